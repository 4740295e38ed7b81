/*===- PluginABIProbe.c - Every plugin ABI type, for abidw -----------------===//
 *
 * tegula/plugin.h is a header, not a library: nothing exports its types, so
 * abidw cannot see them. This tiny library (built with -g, never installed)
 * exports functions whose parameters reach every struct, typedef and enum of
 * the header - the function table reaches every function type and argument
 * struct - so that its ABI dump is the plugin ABI's. Its SONAME carries the
 * ABI's major version (libtegula_abi_probe.so.<TG_PLUGIN_API_MAJOR>), which
 * is how the abi-check test sees a major bump.
 *
 * A new type in plugin.h that no existing parameter reaches (a new extension
 * struct, say) gets a new probe function of its own: a parameter added to an
 * existing one would read as an incompatible signature change.
 *
 *===----------------------------------------------------------------------===*/

#include "tegula/plugin.h"

/** The function table and, through it, every entry and argument struct. */
TG_PLUGIN_EXPORT void tg_abi_probe_table(const tg_plugin_api *api,
                                         tg_plugin_get_api_fn *entry) {
  (void)api;
  (void)entry;
}

/** The enums (the ABI carries them as integers, so only this reaches them)
 *  and the structs also used outside the table. */
TG_PLUGIN_EXPORT void tg_abi_probe_values(
    tg_error_code code, tg_extension_type extension, tg_arg_kind kind,
    tg_scalar_type type, tg_matrix_unit unit, const tg_extension_base *chain,
    const tg_kernel_metadata *metadata, const tg_kernel_arg *arg,
    const tg_device_properties *properties, const tg_compile_option *option) {
  (void)code;
  (void)extension;
  (void)kind;
  (void)type;
  (void)unit;
  (void)chain;
  (void)metadata;
  (void)arg;
  (void)properties;
  (void)option;
}

/** The native-stream extension (TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT in
 *  the table's chain, TG_EXTENSION_TYPE_NATIVE_STREAM in stream_create's). */
TG_PLUGIN_EXPORT void
tg_abi_probe_native_stream(const tg_native_stream_support *support,
                           const tg_native_stream_extension *extension) {
  (void)support;
  (void)extension;
}
