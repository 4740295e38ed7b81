/*===- tegula/runtime.h - The Tegula runtime C API ----------------*- C -*-===//
 *
 * What users and tools call, implemented by libtegula_runtime: plugin
 * discovery, one device list across all plugins, memory, streams, events,
 * compile, module load and launch. Every call is dispatched to the plugin that
 * owns the object. docs/runtime.md describes discovery, the environment
 * variables and the kernel ABI.
 *
 * Conventions:
 *  - Functions are `tegula_<object>_<verb>`; handles are opaque
 *    (`tegula_device_t*`). The plugin ABI (tegula/plugin.h) uses `tg_`; the
 *    value types shared with it (tg_error_code, tg_device_properties,
 *    tg_kernel_metadata, tg_compile_option) come from there unchanged.
 *  - A call that can fail returns NULL on success or a `tegula_error_t*` the
 *    caller must free with tegula_error_destroy. No call aborts or throws.
 *  - Thread safety: all calls may be made concurrently from several threads,
 *    except that an object must not be destroyed while another call uses it,
 *    and everything made from a runtime must be destroyed before it.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TEGULA_RUNTIME_H
#define TEGULA_RUNTIME_H

#include "tegula/plugin.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the library's exported functions (it is built with hidden
 *  visibility, so only these are its ABI). */
#define TEGULA_API __attribute__((visibility("default")))

typedef struct tegula_error tegula_error_t;
typedef struct tegula_runtime tegula_runtime_t;
typedef struct tegula_device tegula_device_t;
typedef struct tegula_buffer tegula_buffer_t;
typedef struct tegula_stream tegula_stream_t;
typedef struct tegula_event tegula_event_t;
typedef struct tegula_module tegula_module_t;
typedef struct tegula_kernel tegula_kernel_t;
typedef struct tegula_image tegula_image_t;

/*===-- Errors ------------------------------------------------------------===*/

/** The error's code; TG_SUCCESS for NULL. */
TEGULA_API tg_error_code tegula_error_get_code(const tegula_error_t *error);
/** The error's one-line message, owned by the error; "" for NULL. Errors from
 *  a plugin are prefixed with its backend name ("nvidia: ..."). */
TEGULA_API const char *tegula_error_get_message(const tegula_error_t *error);
/** Frees |error|; NULL is fine. */
TEGULA_API void tegula_error_destroy(tegula_error_t *error);

/*===-- Runtime and discovery ---------------------------------------------===*/

/** Overrides for discovery; a NULL field means "as the environment says". */
typedef struct tegula_runtime_options {
  size_t struct_size;
  /** Colon-separated plugin folders or files, searched first. NULL: read
   *  $TEGULA_PLUGIN_PATH. */
  const char *plugin_path;
  /** Comma-separated backend names that may load. NULL: read
   *  $TEGULA_VISIBLE_BACKENDS (unset or empty: all). */
  const char *visible_backends;
  /** The folder searched after |plugin_path|. NULL: `tegula/plugins/` beside
   *  libtegula_runtime; "": none. */
  const char *default_plugin_dir;
} tegula_runtime_options;

/** The plugin ABI version the runtime speaks (TG_PLUGIN_API_MAJOR/MINOR of
 *  the header it was built with). */
TEGULA_API void tegula_runtime_get_abi_version(uint32_t *major,
                                               uint32_t *minor);

/** Discovers and loads plugins and lists their devices. Broken plugins do not
 *  make this fail: they are recorded as skipped, with the reason. Fails only
 *  for bad |options| or exhausted memory. |options| may be NULL. */
TEGULA_API tegula_error_t *
tegula_runtime_create(const tegula_runtime_options *options,
                      tegula_runtime_t **out);
/** Destroys the plugin instances and unloads the libraries. */
TEGULA_API void tegula_runtime_destroy(tegula_runtime_t *runtime);

/** The folders searched, in order (absolute paths). */
TEGULA_API size_t tegula_runtime_get_search_dir_count(tegula_runtime_t *rt);
TEGULA_API const char *tegula_runtime_get_search_dir(tegula_runtime_t *rt,
                                                     size_t index);

/** What discovery found at one plugin path: a plugin that loaded, or a file
 *  or folder that was skipped and why. Strings live as long as the runtime. */
typedef struct tegula_plugin_info {
  size_t struct_size;
  /** The file (or the folder, for a folder that could not be read). */
  const char *path;
  /** The backend name from the file name (`libtegula_plugin_<name>.so`), or
   *  "" for a folder. */
  const char *name;
  /** 1 when loaded; 0 when skipped. */
  int loaded;
  /** Skipped: one line naming |path| and the reason. Loaded: NULL. */
  const char *skip_message;
  /** Skipped: the reason alone. Loaded: NULL. */
  const char *skip_reason;
  /* The rest is set for a loaded plugin only. */
  const char *version;
  const char *vendor;
  uint32_t abi_major;
  uint32_t abi_minor;
  const char *const *targets;
  size_t num_targets;
  size_t num_devices;
  /** Why the plugin has no device (e.g. "no CUDA driver found"), or NULL. */
  const char *device_status;
  /** The compile stages besides "image" and the compile options the plugin
   *  declares (tegula/plugin.h, ABI 1.1); none for a 1.0 plugin. */
  const tg_compile_stage_info *stages;
  size_t num_stages;
  const tg_compile_option_info *options;
  size_t num_options;
} tegula_plugin_info;

/** Every path discovery looked at, in discovery order. */
TEGULA_API size_t tegula_runtime_get_plugin_count(tegula_runtime_t *rt);
/** Fills |info| (caller sets info->struct_size). */
TEGULA_API tegula_error_t *
tegula_runtime_get_plugin_info(tegula_runtime_t *rt, size_t index,
                               tegula_plugin_info *info);

/*===-- Devices -----------------------------------------------------------===*/

/** All devices of all loaded plugins, in plugin discovery order, then in each
 *  plugin's order. */
TEGULA_API size_t tegula_runtime_get_device_count(tegula_runtime_t *rt);
/** NULL when |index| is out of range. Devices live as long as the runtime. */
TEGULA_API tegula_device_t *tegula_runtime_get_device(tegula_runtime_t *rt,
                                                      size_t index);
/** Finds a device by its stable name, e.g. "nvidia:0". */
TEGULA_API tegula_error_t *tegula_runtime_find_device(tegula_runtime_t *rt,
                                                      const char *name,
                                                      tegula_device_t **out);

/** `<backend>:<n>`, n counting this backend's devices from 0. Stable for a
 *  given machine and plugin set, whatever other plugins load. */
TEGULA_API const char *tegula_device_get_name(const tegula_device_t *device);
/** The backend (plugin) name, e.g. "nvidia". */
TEGULA_API const char *
tegula_device_get_backend(const tegula_device_t *device);
/** The container target of the device, `<backend>:<arch>`, e.g.
 *  "nvidia:sm_90"; `<backend>` when the plugin reports no arch. */
TEGULA_API const char *tegula_device_get_target(const tegula_device_t *device);
/** Fills |properties| (caller sets properties->struct_size) from the plugin. */
TEGULA_API tegula_error_t *
tegula_device_get_properties(tegula_device_t *device,
                             tg_device_properties *properties);

/*===-- Memory ------------------------------------------------------------===*/
/* Copies take a |stream|: NULL means the copy completes before the call
 * returns; otherwise it is ordered in the stream and host memory must stay
 * valid until the stream is synchronized. Offsets and sizes are checked
 * against the buffers (TG_ERROR_OUT_OF_RANGE). */

TEGULA_API tegula_error_t *tegula_buffer_alloc(tegula_device_t *device,
                                               uint64_t size,
                                               tegula_buffer_t **out);
/** Frees the buffer; the handle is gone even when an error is returned. */
TEGULA_API tegula_error_t *tegula_buffer_free(tegula_buffer_t *buffer);
TEGULA_API uint64_t tegula_buffer_get_size(const tegula_buffer_t *buffer);
/** The device address a pointer kernel argument carries. */
TEGULA_API uint64_t
tegula_buffer_get_device_address(const tegula_buffer_t *buffer);
TEGULA_API tegula_device_t *
tegula_buffer_get_device(const tegula_buffer_t *buffer);

/** Host to device. */
TEGULA_API tegula_error_t *tegula_buffer_write(tegula_buffer_t *dst,
                                               uint64_t dst_offset,
                                               const void *src, uint64_t size,
                                               tegula_stream_t *stream);
/** Device to host. */
TEGULA_API tegula_error_t *tegula_buffer_read(tegula_buffer_t *src,
                                              uint64_t src_offset, void *dst,
                                              uint64_t size,
                                              tegula_stream_t *stream);
/** Device to device; both buffers on devices of the same plugin. */
TEGULA_API tegula_error_t *
tegula_buffer_copy(tegula_buffer_t *dst, uint64_t dst_offset,
                   tegula_buffer_t *src, uint64_t src_offset, uint64_t size,
                   tegula_stream_t *stream);
TEGULA_API tegula_error_t *tegula_buffer_memset(tegula_buffer_t *buffer,
                                                uint64_t offset, uint8_t value,
                                                uint64_t size,
                                                tegula_stream_t *stream);

/*===-- Streams and events ------------------------------------------------===*/

TEGULA_API tegula_error_t *tegula_stream_create(tegula_device_t *device,
                                                tegula_stream_t **out);
/** A stream that wraps an existing native stream of |device| instead of
 *  creating one: a CUstream (as an integer) for the `nvidia` backend, e.g.
 *  PyTorch's `torch.cuda.current_stream().cuda_stream`; 0 is CUDA's legacy
 *  default stream. Work on it is ordered with the framework's work on that
 *  stream. The caller keeps the native stream alive while the wrapper is
 *  used; tegula_stream_destroy frees the wrapper only (no wait, the native
 *  stream stays). TG_ERROR_UNIMPLEMENTED when |device|'s plugin does not
 *  offer TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT (tegula/plugin.h). */
TEGULA_API tegula_error_t *tegula_stream_create_native(tegula_device_t *device,
                                                       uint64_t native_stream,
                                                       tegula_stream_t **out);
/** Waits for the stream's work and destroys it (the handle is gone even when
 *  an error is returned). A wrapper of a native stream is freed without
 *  waiting. */
TEGULA_API tegula_error_t *tegula_stream_destroy(tegula_stream_t *stream);
TEGULA_API tegula_error_t *tegula_stream_synchronize(tegula_stream_t *stream);
/** Later work in |stream| waits for |event| (same plugin). */
TEGULA_API tegula_error_t *tegula_stream_wait_event(tegula_stream_t *stream,
                                                    tegula_event_t *event);

TEGULA_API tegula_error_t *tegula_event_create(tegula_device_t *device,
                                               tegula_event_t **out);
TEGULA_API tegula_error_t *tegula_event_destroy(tegula_event_t *event);
TEGULA_API tegula_error_t *tegula_event_record(tegula_event_t *event,
                                               tegula_stream_t *stream);
TEGULA_API tegula_error_t *tegula_event_synchronize(tegula_event_t *event);
/** Milliseconds from |start| to |end|, both recorded and complete. */
TEGULA_API tegula_error_t *tegula_event_elapsed_time(tegula_event_t *start,
                                                     tegula_event_t *end,
                                                     float *milliseconds);

/*===-- Compile, modules, launch ------------------------------------------===*/

/** Compiles tile-dialect bytecode for |device|'s arch through its plugin. */
TEGULA_API tegula_error_t *
tegula_device_compile(tegula_device_t *device, const void *bytecode,
                      size_t bytecode_size, const tg_compile_option *options,
                      size_t num_options, tegula_image_t **out);
/** Compiles tile-dialect bytecode ahead of time for |target|,
 *  "<backend>:<arch>" (e.g. "nvidia:sm_90a", "host:x86_64"), through the
 *  loaded plugin of that backend, whether or not a device of it is present:
 *  one build machine compiles for every target a loaded plugin declares.
 *  TG_ERROR_NOT_FOUND when no plugin of <backend> is loaded (the message
 *  names the backends that are); TG_ERROR_INVALID_ARGUMENT for a target
 *  without a ':' or an arch the plugin does not declare (the message lists
 *  its targets); the plugin's own errors otherwise. */
TEGULA_API tegula_error_t *
tegula_runtime_compile(tegula_runtime_t *runtime, const char *target,
                       const void *bytecode, size_t bytecode_size,
                       const tg_compile_option *options, size_t num_options,
                       tegula_image_t **out);
/** tegula_runtime_compile stopped at |stage|: NULL or "image" for the
 *  loadable image, else a stage the target's plugin declares (see
 *  tegula_plugin_info.stages; e.g. "llvm-ir", "ptx"), whose output is then
 *  the image's data (text without a terminating NUL, or bytes), with the
 *  kernel's metadata beside it. TG_ERROR_INVALID_ARGUMENT naming the stages
 *  there are when the plugin does not declare |stage|; TG_ERROR_UNIMPLEMENTED
 *  for a 1.0 plugin, which declares none. */
TEGULA_API tegula_error_t *
tegula_runtime_compile_stage(tegula_runtime_t *runtime, const char *target,
                             const char *stage, const void *bytecode,
                             size_t bytecode_size,
                             const tg_compile_option *options,
                             size_t num_options, tegula_image_t **out);
/** The image bytes and metadata; live as long as |image|. */
TEGULA_API const void *tegula_image_get_data(const tegula_image_t *image);
TEGULA_API size_t tegula_image_get_size(const tegula_image_t *image);
TEGULA_API const tg_kernel_metadata *
tegula_image_get_metadata(const tegula_image_t *image);
TEGULA_API void tegula_image_destroy(tegula_image_t *image);

/** Loads a kernel image on |device|; |image| may be freed afterwards. */
TEGULA_API tegula_error_t *tegula_module_load(tegula_device_t *device,
                                              const void *image,
                                              size_t image_size,
                                              tegula_module_t **out);
/** Unloads; its kernels are gone with it. */
TEGULA_API tegula_error_t *tegula_module_unload(tegula_module_t *module);
TEGULA_API tegula_error_t *tegula_module_get_kernel(tegula_module_t *module,
                                                    const char *name,
                                                    tegula_kernel_t **out);

/** Launch geometry. */
typedef struct tegula_launch_config {
  size_t struct_size;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t dynamic_shared_memory;
} tegula_launch_config;

/** The device |kernel| was loaded on (its module's). */
TEGULA_API tegula_device_t *
tegula_kernel_get_device(const tegula_kernel_t *kernel);

/** Checks that the buffers a launch of |kernel| passes are on its device,
 *  before packing them (a packed pointer no longer says where it lives; a
 *  kernel reads every pointer on its own device): |buffers|[i] is argument
 *  i's buffer, NULL for a scalar or a pointer into memory the caller keeps
 *  track of. |metadata| (may be NULL) names the arguments. An argument on
 *  another device is TG_ERROR_INVALID_ARGUMENT naming each such argument
 *  and its device: "kernel scale_f32 is on testdev:0, but argument 'in' (1)
 *  is a buffer on testdev:1". libtegula_runtime.so.1.1. */
TEGULA_API tegula_error_t *
tegula_kernel_check_buffers(const tegula_kernel_t *kernel,
                            const tg_kernel_metadata *metadata,
                            const tegula_buffer_t *const *buffers,
                            size_t num_buffers);

/** Launches |kernel| with arguments packed as tegula_args_pack does. A NULL
 *  |stream| means: complete before returning. */
TEGULA_API tegula_error_t *
tegula_kernel_launch(tegula_kernel_t *kernel, tegula_stream_t *stream,
                     const tegula_launch_config *config,
                     const void *packed_args, size_t packed_args_size);

/** Fills |attributes| (the caller sets attributes->struct_size) with what
 *  |kernel| uses of its device: registers and spills per thread, local and
 *  static shared memory, the most threads a block may have (plugin ABI 1.2,
 *  tg_kernel_attributes). The runtime first sets every field after
 *  extension_start to TG_KERNEL_ATTRIBUTE_UNKNOWN (all bits set); the plugin
 *  overwrites those it knows. TG_ERROR_UNIMPLEMENTED when the plugin can
 *  tell nothing (the host plugin; a plugin of ABI 1.1 or older). */
TEGULA_API tegula_error_t *
tegula_kernel_get_attributes(tegula_kernel_t *kernel,
                             tg_kernel_attributes *attributes);

/*===-- Kernel ABI: argument packing ---------------------------------------===
 * Arguments are packed in metadata order into one buffer. Each argument sits
 * at the next offset that is a multiple of its size: a pointer is its 8-byte
 * device address, a scalar its value in |type|'s size (I1 as one byte 0/1,
 * F16/BF16 as their 2-byte bit patterns). The total is rounded up to 8.
 *===----------------------------------------------------------------------===*/

/** Size in bytes of |type| (a tg_scalar_type); 0 for unknown values. */
TEGULA_API size_t tegula_scalar_type_size(uint32_t type);

/** Computes each argument's offset (|offsets| has num_args entries, may be
 *  NULL) and the packed size. Fails for unknown kinds or types. */
TEGULA_API tegula_error_t *
tegula_args_layout(const tg_kernel_metadata *metadata, size_t *offsets,
                   size_t *packed_size);

/** Packs arguments: |values|[i] points at argument i's value (a uint64_t
 *  device address for pointers, the scalar otherwise). |out| has |capacity|
 *  bytes; *|packed_size| receives the size used. Padding is zeroed. */
TEGULA_API tegula_error_t *tegula_args_pack(const tg_kernel_metadata *metadata,
                                            const void *const *values,
                                            void *out, size_t capacity,
                                            size_t *packed_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_RUNTIME_H */
