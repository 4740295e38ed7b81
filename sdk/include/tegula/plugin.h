/*===- tegula/plugin.h - The Tegula plugin C ABI ------------------*- C -*-===//
 *
 * The contract between libtegula_runtime and a backend plugin. Pure C (C99),
 * no dependency beyond the C standard headers, so a vendor can build a plugin
 * with nothing but this file.
 *
 * Shape (modelled on PJRT's C API and Vulkan's loader-driver interface):
 *  - A plugin is a shared library named `libtegula_plugin_<backend>.so` that
 *    exports one symbol, `tg_plugin_get_api` (TG_PLUGIN_ENTRY_SYMBOL). It
 *    returns a function table, `tg_plugin_api`, stamped with the ABI version
 *    the plugin implements.
 *  - Every call takes one `tg_<object>_<verb>_args` struct. Each struct (and
 *    every other extensible struct) begins with `size_t struct_size`, set by
 *    whoever allocates it to `sizeof` as that party compiled it, followed by an
 *    extension chain pointer.
 *  - Handles are opaque pointers (`tg_device_t*`), owned by the plugin.
 *  - A call returns NULL on success or a `tg_error_t*` that the caller reads
 *    with `error_message` / `error_get_code` and frees with `error_destroy`.
 *    No C++ exception, `abort()`, `exit()` or signal may cross this boundary.
 *
 * Versioning rules (docs/runtime.md says the same at more length):
 *  - Same major version = compatible. A minor version only *adds*: new
 *    function pointers at the end of `tg_plugin_api`, new fields at the end of
 *    a struct, new enum values, new extension types. Nothing is removed,
 *    reordered or retyped within a major version.
 *  - A reader uses a field only when `struct_size` shows it is present:
 *    TG_STRUCT_HAS(ptr, type, field). Fields of the first release of a major
 *    version (1.0) are always present; a callee may reject a struct too small
 *    to hold them with TG_ERROR_INVALID_ARGUMENT.
 *  - A writer of an out-struct (e.g. `tg_device_properties`) writes only the
 *    fields that the reader's `struct_size` covers.
 *  - The runtime loads a plugin whose major equals its own, whatever the
 *    minor: a newer plugin simply has a longer table the runtime does not
 *    read, an older one a shorter table whose missing entries the runtime
 *    treats as TG_ERROR_UNIMPLEMENTED.
 *  - Arrays of `tg_kernel_arg` and `tg_compile_option` have a fixed element
 *    layout for the whole major version (they carry no struct_size); new
 *    per-element data goes into new parallel arrays at the end of the owner.
 *
 * Threading: every function may be called from several threads at once,
 * except that an object must not be destroyed while another call uses it.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TEGULA_PLUGIN_H
#define TEGULA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Versions and helpers ----------------------------------------------===*/

/** The plugin ABI version this header describes. */
#define TG_PLUGIN_API_MAJOR 1
#define TG_PLUGIN_API_MINOR 2

/** The one symbol a plugin exports: a `tg_plugin_get_api_fn`. */
#define TG_PLUGIN_ENTRY_SYMBOL "tg_plugin_get_api"

/** Marks the entry symbol exported from a library built with hidden
 *  visibility (plugins should hide everything else). */
#if defined(_WIN32)
#define TG_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TG_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/** Size of |type| up to and including |field|: the smallest `struct_size`
 *  for which |field| is present. */
#define TG_STRUCT_SIZE(type, field)                                            \
  (offsetof(type, field) + sizeof(((type *)0)->field))

/** True when the struct at |ptr| (of C type |type|, with its own
 *  `struct_size`) is large enough to contain |field|. */
#define TG_STRUCT_HAS(ptr, type, field)                                        \
  ((ptr)->struct_size >= TG_STRUCT_SIZE(type, field))

/** True when the function table |api| contains a non-NULL |field|. */
#define TG_API_HAS(api, field)                                                 \
  (TG_STRUCT_HAS(api, tg_plugin_api, field) && (api)->field != NULL)

/*===-- Errors ------------------------------------------------------------===*/

/** What went wrong. 0 is never carried by an error object: success is a NULL
 *  error. Readers must treat values they do not know as TG_ERROR_UNKNOWN.
 *  Across the ABI a code travels as an int32_t holding one of these. */
typedef enum tg_error_code {
  TG_SUCCESS = 0,
  /** Anything without a better code. */
  TG_ERROR_UNKNOWN = 1,
  /** A NULL handle, a struct too small, an offset past the end, a bad value. */
  TG_ERROR_INVALID_ARGUMENT = 2,
  /** A named thing (kernel, device, target, symbol) does not exist. */
  TG_ERROR_NOT_FOUND = 3,
  TG_ERROR_OUT_OF_MEMORY = 4,
  /** The plugin does not implement this call (yet). */
  TG_ERROR_UNIMPLEMENTED = 5,
  /** The driver or device this needs is not present. */
  TG_ERROR_UNAVAILABLE = 6,
  /** ABI, container or bytecode version not supported. */
  TG_ERROR_VERSION_MISMATCH = 7,
  /** Malformed input data (container, image, bytecode). */
  TG_ERROR_INVALID_FORMAT = 8,
  /** An index, offset or size outside the valid range. */
  TG_ERROR_OUT_OF_RANGE = 9,
  /** The vendor driver reported a failure; the message has its code. */
  TG_ERROR_DEVICE = 10,
  /** A bug in the plugin or runtime. */
  TG_ERROR_INTERNAL = 11
} tg_error_code;

/** An error object, created by the plugin and destroyed by the caller with
 *  the same plugin's `error_destroy`. */
typedef struct tg_error tg_error_t;

/*===-- Extension chain ---------------------------------------------------===*/

/** Identifies an optional feature struct in an extension chain. Values below
 *  0x10000 are reserved for Tegula; a vendor uses its own range above. */
typedef enum tg_extension_type {
  TG_EXTENSION_TYPE_NONE = 0,
  /** tg_native_stream_support, in `tg_plugin_api.extension_start`: the
   *  plugin's stream_create honors TG_EXTENSION_TYPE_NATIVE_STREAM. */
  TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT = 1,
  /** tg_native_stream_extension, in `tg_stream_create_args.extension_start`:
   *  wrap an existing native stream instead of creating one. */
  TG_EXTENSION_TYPE_NATIVE_STREAM = 2
} tg_extension_type;

/** The header every extension struct begins with. A reader walks `next` and
 *  skips types it does not know; it never fails because of one. */
typedef struct tg_extension_base {
  size_t struct_size;
  uint32_t type; /* a tg_extension_type or a vendor's value */
  const struct tg_extension_base *next;
} tg_extension_base;

/** Returns the first extension of |type| in the chain starting at |chain|,
 *  or NULL. */
static inline const tg_extension_base *
tg_find_extension(const tg_extension_base *chain, uint32_t type) {
  for (; chain; chain = chain->next)
    if (chain->type == type)
      return chain;
  return NULL;
}

/*===-- Opaque handles (all owned by the plugin) ---------------------------===*/

/** One initialized instance of the plugin. */
typedef struct tg_plugin tg_plugin_t;
/** A device; lives as long as its tg_plugin_t. */
typedef struct tg_device tg_device_t;
/** Device memory. */
typedef struct tg_buffer tg_buffer_t;
/** An in-order queue of work on one device. */
typedef struct tg_stream tg_stream_t;
/** A point in a stream, for ordering and timing. */
typedef struct tg_event tg_event_t;
/** A kernel image loaded on one device. */
typedef struct tg_module tg_module_t;
/** A kernel inside a module; lives as long as the module. */
typedef struct tg_kernel tg_kernel_t;
/** The result of a compile: image bytes plus metadata. */
typedef struct tg_image tg_image_t;

/*===-- Kernel ABI: metadata and argument kinds ----------------------------===*/

/** How a kernel argument is passed. */
typedef enum tg_arg_kind {
  /** A device address (8 bytes) of memory holding elements of `type`. */
  TG_ARG_POINTER = 1,
  /** A value of `type`, by value. */
  TG_ARG_SCALAR = 2
} tg_arg_kind;

/** Element types (the Triton dtypes). Sizes: I1/I8/U8/FP8* 1, I16/U16/F16/
 *  BF16 2, I32/U32/F32 4, I64/U64/F64 8. An I1 scalar is passed as one byte,
 *  0 or 1. */
typedef enum tg_scalar_type {
  TG_TYPE_I1 = 1,
  TG_TYPE_I8 = 2,
  TG_TYPE_I16 = 3,
  TG_TYPE_I32 = 4,
  TG_TYPE_I64 = 5,
  TG_TYPE_U8 = 6,
  TG_TYPE_U16 = 7,
  TG_TYPE_U32 = 8,
  TG_TYPE_U64 = 9,
  TG_TYPE_F16 = 10,
  TG_TYPE_BF16 = 11,
  TG_TYPE_F32 = 12,
  TG_TYPE_F64 = 13,
  TG_TYPE_FP8E4M3 = 14,
  TG_TYPE_FP8E5M2 = 15
} tg_scalar_type;

/** One kernel argument, in launch order. Fixed layout for the whole major
 *  version (no struct_size; see the versioning rules above). */
typedef struct tg_kernel_arg {
  const char *name;
  uint32_t kind;         /* tg_arg_kind */
  uint32_t type;         /* tg_scalar_type: the value, or the pointee */
  uint32_t divisibility; /* specialization: value (or address) divisible by
                            this, 0 or 1 when unknown */
  uint32_t reserved;     /* 0 */
} tg_kernel_arg;

/** What the runtime needs to know to launch a kernel. Strings and arrays are
 *  owned by whoever produced the metadata (the image, the container). */
typedef struct tg_kernel_metadata {
  size_t struct_size;
  const tg_extension_base *extension_start;
  /** The kernel's symbol name in the image. */
  const char *name;
  /** The target the image was compiled for, `<backend>:<arch>` (e.g.
   *  "nvidia:sm_90"), or `<backend>` for an image any device of that backend
   *  runs (e.g. "intel" for portable SPIR-V). */
  const char *target;
  /** Warps (waves, sub-groups) per block the kernel was compiled for. */
  uint32_t num_warps;
  /** Static shared memory per block, in bytes. */
  uint32_t shared_memory;
  uint32_t num_args;
  const tg_kernel_arg *args;
  /** The specialization this image was built for (constexpr values, dtypes,
   *  divisibility), as an opaque printable key; may be "". */
  const char *specialization;
} tg_kernel_metadata;

/*===-- Device properties --------------------------------------------------===*/

/** Matrix-multiply units a device has (bit set). */
typedef enum tg_matrix_unit {
  TG_MATRIX_UNIT_NONE = 0,
  TG_MATRIX_UNIT_NVIDIA_MMA = 1u << 0,   /* mma.sync, sm_80+ (sm_70 wmma) */
  TG_MATRIX_UNIT_NVIDIA_WGMMA = 1u << 1, /* warpgroup MMA, sm_90a */
  TG_MATRIX_UNIT_AMD_MFMA = 1u << 2,     /* CDNA */
  TG_MATRIX_UNIT_AMD_WMMA = 1u << 3,     /* RDNA3 */
  TG_MATRIX_UNIT_INTEL_DPAS = 1u << 4,   /* Xe XMX */
  TG_MATRIX_UNIT_X86_AMX = 1u << 5
} tg_matrix_unit;

/** A device's properties. The caller allocates it and sets `struct_size`;
 *  the plugin fills the fields that fit. Strings are owned by the plugin and
 *  live as long as the device. Unknown numbers are 0. */
typedef struct tg_device_properties {
  size_t struct_size;
  const tg_extension_base *extension_start;
  /** Marketing name, e.g. "NVIDIA H200". */
  const char *name;
  /** Architecture the compiler targets, e.g. "sm_90", "gfx942"; the device's
   *  container target is `<backend>:<arch>`. */
  const char *arch;
  /** SMs, CUs, Xe cores, CPU cores. */
  uint32_t compute_units;
  /** Warp / wavefront / sub-group size in threads. */
  uint32_t warp_size;
  uint32_t max_threads_per_block;
  /** tg_matrix_unit bits. */
  uint32_t matrix_units;
  /** Largest shared (local) memory a block may use, in bytes. */
  uint64_t shared_memory_per_block;
  uint64_t global_memory;
  uint32_t clock_khz;
  uint32_t memory_clock_khz;
  /* 1.1 */
  /** Archs besides |arch| whose kernel images this device also runs, best
   *  first (an sm_90 GPU runs sm_90a code and the PTX of older archs). The
   *  runtime's container selection tries `<backend>:<arch>` of each after
   *  the device's own target. Live as long as the device. */
  const char *const *compatible_archs;
  size_t num_compatible_archs;
} tg_device_properties;

/*===-- Kernel attributes (1.2) --------------------------------------------===*/

/** A kernel attribute the plugin cannot tell: every bit set (UINT32_MAX in
 *  the fields below, which are all uint32_t). Zero is a real value ("no
 *  spills"), never "unknown". */
#define TG_KERNEL_ATTRIBUTE_UNKNOWN UINT32_MAX

/** What a loaded kernel uses of the device, as its driver or its code object
 *  says (Triton's `n_regs`, `n_spills`, `n_max_threads`). The caller
 *  allocates it, sets `struct_size` and presets every field after
 *  `extension_start` to TG_KERNEL_ATTRIBUTE_UNKNOWN (all bits set); the
 *  plugin overwrites the fields it knows and that `struct_size` covers. */
typedef struct tg_kernel_attributes {
  size_t struct_size;
  const tg_extension_base *extension_start;
  /** Registers per thread: NVIDIA's (CU_FUNC_ATTRIBUTE_NUM_REGS), AMD's
   *  vector registers (the code object's .vgpr_count). Triton's n_regs. */
  uint32_t registers;
  /** Registers spilled per thread, as Triton's drivers count them (its
   *  n_spills): |local_memory| / 4, on NVIDIA and AMD alike. */
  uint32_t spills;
  /** Private (local, scratch) memory per thread in bytes: spills and
   *  thread-local arrays (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, AMD
   *  .private_segment_fixed_size). */
  uint32_t local_memory;
  /** Static shared memory (LDS, SLM) per block in bytes, as the loaded code
   *  declares it (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, AMD
   *  .group_segment_fixed_size). A kernel that takes its shared memory
   *  dynamically reports 0 here; tg_kernel_metadata::shared_memory is what
   *  a launch gives it. */
  uint32_t shared_memory;
  /** The most threads a block of this kernel may have on this device, given
   *  its registers (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, AMD
   *  .max_flat_workgroup_size). Triton's n_max_threads. */
  uint32_t max_threads_per_block;
  /** Vector registers the compiler spilled, as it counts them (AMD
   *  .vgpr_spill_count); unlike |spills|, not derived from memory. */
  uint32_t vector_register_spills;
  /** Scalar registers per wavefront (AMD .sgpr_count). */
  uint32_t scalar_registers;
  /** Scalar registers spilled (AMD .sgpr_spill_count). */
  uint32_t scalar_register_spills;
} tg_kernel_attributes;

/*===-- Argument structs ----------------------------------------------------===
 * Every struct starts with `struct_size` and `extension_start`. "in" fields are
 * set by the caller, "out" fields by the plugin.
 *===----------------------------------------------------------------------===*/

typedef struct tg_error_destroy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_error_t *error; /* in */
} tg_error_destroy_args;

typedef struct tg_error_message_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  const tg_error_t *error; /* in */
  const char *message;     /* out: owned by the error, not NUL-terminated */
  size_t message_size;     /* out */
} tg_error_message_args;

typedef struct tg_error_get_code_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  const tg_error_t *error; /* in */
  /* out: a tg_error_code value. An int, not the enum: a newer plugin may
     send a code this header does not list, which C++ may not store in the
     enum type. */
  int32_t code;
} tg_error_get_code_args;

typedef struct tg_plugin_initialize_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  uint32_t runtime_major; /* in: the ABI the runtime speaks */
  uint32_t runtime_minor; /* in */
  tg_plugin_t *plugin;    /* out */
} tg_plugin_initialize_args;

typedef struct tg_plugin_destroy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_plugin_t *plugin; /* in */
} tg_plugin_destroy_args;

/** Strings and arrays out of this call live as long as the plugin instance. */
typedef struct tg_plugin_get_info_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_plugin_t *plugin;        /* in */
  const char *name;           /* out: the backend name, [a-z0-9_]+, equal to
                                 the `<backend>` in the file name */
  const char *version;        /* out: the plugin's own version, e.g. "0.1.0" */
  const char *vendor;         /* out */
  const char *const *targets; /* out: archs it compiles for, e.g. "sm_90" */
  size_t num_targets;         /* out */
} tg_plugin_get_info_args;

/** The device list is fixed when the plugin is initialized. No device is not
 *  an error: the plugin returns none and says why in `status`. */
typedef struct tg_plugin_get_devices_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_plugin_t *plugin;           /* in */
  tg_device_t *const *devices;   /* out: live as long as the plugin */
  size_t num_devices;            /* out */
  const char *status;            /* out: one line, why there is no device
                                    (e.g. "no CUDA driver found"); may be NULL
                                    when there are devices */
} tg_plugin_get_devices_args;

typedef struct tg_device_get_properties_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_device_t *device;              /* in */
  tg_device_properties *properties; /* in: caller-owned, struct_size set */
} tg_device_get_properties_args;

/** A compile option: a key and a value, both NUL-terminated. Fixed layout. */
typedef struct tg_compile_option {
  const char *key;
  const char *value;
} tg_compile_option;

/*===-- What a compiler offers (1.1) --------------------------------------===*/

/** How a compile option's value is spelled. */
typedef enum tg_option_type {
  /** "1" or "0" ("true"/"false", "on"/"off" are read as well). */
  TG_OPTION_BOOL = 1,
  /** A decimal integer from `min` to `max`. */
  TG_OPTION_INT = 2,
  /** One of the '|'-separated words of `choices`. */
  TG_OPTION_ENUM = 3,
  /** Any text. */
  TG_OPTION_STRING = 4
} tg_option_type;

/** A compile option a plugin declares: every setting that changes the code
 *  it generates. When a compile does not pass the option, the plugin uses the
 *  value of the environment variable `env` when that is set and not empty,
 *  else `default_value`; so a kernel cache keyed on the options and on these
 *  variables never returns stale code. Fixed layout for the whole major
 *  version (arrays of it carry no struct_size). */
typedef struct tg_compile_option_info {
  /** [a-z0-9_]+, e.g. "num_warps". */
  const char *name;
  /** tg_option_type. */
  uint32_t type;
  uint32_t reserved; /* 0 */
  /** TG_OPTION_INT: the inclusive range. */
  int64_t min;
  int64_t max;
  /** TG_OPTION_ENUM: "distributed|single-thread"; "" otherwise. */
  const char *choices;
  /** The value when neither the compile nor `env` sets it; "" when the
   *  kernel decides (num_warps: the module's, else the plugin's default). */
  const char *default_value;
  /** The environment variable that overrides the default, or "". */
  const char *env;
  /** One sentence. */
  const char *description;
} tg_compile_option_info;

/** An output a compile can stop at. Fixed layout for the whole major
 *  version. */
typedef struct tg_compile_stage_info {
  /** [a-z0-9-]+, e.g. "llvm-ir", "ptx". "image", the loadable kernel image,
   *  is always a stage, declared or not. */
  const char *name;
  /** 1 when the output is bytes (an object, a cubin), 0 when text. */
  uint32_t binary;
  uint32_t reserved; /* 0 */
  /** One sentence. */
  const char *description;
} tg_compile_stage_info;

/** What plugin_compile accepts. Arrays live as long as the plugin. */
typedef struct tg_plugin_get_compile_info_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_plugin_t *plugin;                    /* in */
  const tg_compile_stage_info *stages;    /* out */
  size_t num_stages;                      /* out */
  const tg_compile_option_info *options;  /* out */
  size_t num_options;                     /* out */
} tg_plugin_get_compile_info_args;

/** Compiles tile-dialect MLIR bytecode (the dialect version is inside it)
 *  for |target| (one of the plugin's targets). A plugin that declares its
 *  options (plugin_get_compile_info) rejects options it does not declare and
 *  values that do not fit their type, naming them. */
typedef struct tg_plugin_compile_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_plugin_t *plugin;                /* in */
  const char *target;                 /* in: an arch, e.g. "sm_90" */
  const void *bytecode;               /* in */
  size_t bytecode_size;               /* in */
  const tg_compile_option *options;   /* in */
  size_t num_options;                 /* in */
  tg_image_t *image;                  /* out: free with image_destroy */
  const void *image_data;             /* out: live as long as |image| */
  size_t image_size;                  /* out */
  const tg_kernel_metadata *metadata; /* out: live as long as |image| */
  /* 1.1 */
  /** in: a stage the plugin declares, or NULL (or "image") for the loadable
   *  image. For another stage, |image_data| holds that stage's output (text
   *  without a terminating NUL) and |image| cannot be loaded. */
  const char *stage;
} tg_plugin_compile_args;

typedef struct tg_image_destroy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_image_t *image; /* in */
} tg_image_destroy_args;

typedef struct tg_buffer_alloc_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_device_t *device;     /* in */
  uint64_t size;           /* in: bytes, may be 0 */
  tg_buffer_t *buffer;     /* out */
  uint64_t device_address; /* out: what a pointer argument carries */
} tg_buffer_alloc_args;

typedef struct tg_buffer_free_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_buffer_t *buffer; /* in */
} tg_buffer_free_args;

/* In the copy calls, a NULL |stream| means: complete before returning. With
 * a stream the copy is ordered in it and host memory must stay valid until
 * the stream is synchronized. The runtime has already checked offsets and
 * sizes against the buffers' sizes. */

/** Host to device. */
typedef struct tg_buffer_write_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in, nullable */
  tg_buffer_t *dst;    /* in */
  uint64_t dst_offset; /* in */
  const void *src;     /* in */
  uint64_t size;       /* in */
} tg_buffer_write_args;

/** Device to host. */
typedef struct tg_buffer_read_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in, nullable */
  void *dst;           /* in */
  tg_buffer_t *src;    /* in */
  uint64_t src_offset; /* in */
  uint64_t size;       /* in */
} tg_buffer_read_args;

/** Device to device, both buffers of this plugin. */
typedef struct tg_buffer_copy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in, nullable */
  tg_buffer_t *dst;    /* in */
  uint64_t dst_offset; /* in */
  tg_buffer_t *src;    /* in */
  uint64_t src_offset; /* in */
  uint64_t size;       /* in */
} tg_buffer_copy_args;

/** Sets |size| bytes to |value|. */
typedef struct tg_buffer_memset_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in, nullable */
  tg_buffer_t *buffer; /* in */
  uint64_t offset;     /* in */
  uint64_t size;       /* in */
  uint8_t value;       /* in */
} tg_buffer_memset_args;

/** Creates a stream; with a tg_native_stream_extension in the chain, wraps
 *  an existing native one instead (see below). */
typedef struct tg_stream_create_args {
  size_t struct_size;
  tg_extension_base *extension_start; /* in: may hold the native stream */
  tg_device_t *device; /* in */
  tg_stream_t *stream; /* out */
} tg_stream_create_args;

/*===-- Extension: launching on a native stream -----------------------------===
 * A framework (PyTorch, JAX, CuPy) owns a vendor stream (a CUstream,
 * hipStream_t, ...) and wants Tegula's work ordered in it. The plugin wraps
 * that stream in a tg_stream_t instead of creating one (PJRT's "external
 * stream" idea), so every call that takes a stream works on it unchanged.
 *
 *  - A plugin that can do this lists a tg_native_stream_support in its
 *    table's `extension_start`. The runtime passes the extension below only
 *    to such a plugin, and answers TG_ERROR_UNIMPLEMENTED itself otherwise
 *    (a plugin skips extension types it does not know, so it would create a
 *    new stream and the work would not be ordered with the caller's).
 *  - stream_create with a tg_native_stream_extension in its chain wraps
 *    `native_stream`, which belongs to |device| (for CUDA: a CUstream of the
 *    device's primary context; 0 is the legacy default stream; the special
 *    handles CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are valid too). A
 *    handle of another device or context is TG_ERROR_INVALID_ARGUMENT where
 *    the plugin can tell.
 *  - The wrapper works like any stream (copies, launches, events, waits,
 *    synchronize are all enqueued on or done against the native stream).
 *    stream_destroy of a wrapper frees the wrapper only: it neither waits for
 *    the native stream nor destroys it; the framework owns it and must keep
 *    it alive while the wrapper is used.
 *===----------------------------------------------------------------------===*/

/** Advertised in `tg_plugin_api.extension_start`. */
typedef struct tg_native_stream_support {
  tg_extension_base base; /* type = TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT */
  /** What `native_stream` holds, for messages: "CUstream", "hipStream_t". */
  const char *handle_type;
} tg_native_stream_support;

/** In `tg_stream_create_args.extension_start`: wrap, do not create. */
typedef struct tg_native_stream_extension {
  tg_extension_base base; /* type = TG_EXTENSION_TYPE_NATIVE_STREAM */
  /** The native handle as an integer (a CUstream cast to uintptr_t). */
  uint64_t native_stream;
} tg_native_stream_extension;

/** Waits for the stream's work, then destroys it (a wrapper of a native
 *  stream: see above). */
typedef struct tg_stream_destroy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in */
} tg_stream_destroy_args;

typedef struct tg_stream_synchronize_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in */
} tg_stream_synchronize_args;

/** Later work in |stream| waits until |event| has completed. */
typedef struct tg_stream_wait_event_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_stream_t *stream; /* in */
  tg_event_t *event;   /* in */
} tg_stream_wait_event_args;

typedef struct tg_event_create_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_device_t *device; /* in */
  tg_event_t *event;   /* out */
} tg_event_create_args;

typedef struct tg_event_destroy_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_event_t *event; /* in */
} tg_event_destroy_args;

/** Records |event| at the current end of |stream|. */
typedef struct tg_event_record_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_event_t *event;   /* in */
  tg_stream_t *stream; /* in */
} tg_event_record_args;

typedef struct tg_event_synchronize_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_event_t *event; /* in */
} tg_event_synchronize_args;

/** Time between two recorded, completed events. */
typedef struct tg_event_elapsed_time_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_event_t *start;  /* in */
  tg_event_t *end;    /* in */
  float milliseconds; /* out */
} tg_event_elapsed_time_args;

/** Loads a kernel image produced by this plugin's compile. */
typedef struct tg_module_load_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_device_t *device; /* in */
  const void *image;   /* in: may be freed once the call returns */
  size_t image_size;   /* in */
  tg_module_t *module; /* out */
} tg_module_load_args;

typedef struct tg_module_unload_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_module_t *module; /* in */
} tg_module_unload_args;

typedef struct tg_module_get_kernel_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_module_t *module; /* in */
  const char *name;    /* in */
  tg_kernel_t *kernel; /* out: lives as long as |module| */
} tg_module_get_kernel_args;

/** Launches |kernel|. |packed_args| holds the arguments packed as the kernel
 *  ABI says (docs/runtime.md): in order, each at its natural alignment,
 *  pointers as 8-byte device addresses. A NULL |stream| means: complete
 *  before returning. */
typedef struct tg_kernel_launch_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_kernel_t *kernel;            /* in */
  tg_stream_t *stream;            /* in, nullable */
  uint32_t grid[3];               /* in: blocks */
  uint32_t block[3];              /* in: threads per block */
  uint32_t dynamic_shared_memory; /* in: bytes */
  const void *packed_args;        /* in: may be freed once the call returns */
  size_t packed_args_size;        /* in */
} tg_kernel_launch_args;

/** A loaded kernel's resource use (1.2). The plugin fills what it knows of
 *  |attributes| and leaves the rest as the caller preset it (unknown).
 *  TG_ERROR_UNIMPLEMENTED when it can tell nothing; a 1.0 or 1.1 plugin has
 *  no entry, which the runtime answers the same way. */
typedef struct tg_kernel_get_attributes_args {
  size_t struct_size;
  tg_extension_base *extension_start;
  tg_kernel_t *kernel;              /* in */
  tg_kernel_attributes *attributes; /* in: caller-owned, struct_size set */
} tg_kernel_get_attributes_args;

/*===-- The function table -------------------------------------------------===*/

typedef void tg_error_destroy_fn(tg_error_destroy_args *args);
typedef void tg_error_message_fn(tg_error_message_args *args);
typedef void tg_error_get_code_fn(tg_error_get_code_args *args);
typedef tg_error_t *tg_plugin_initialize_fn(tg_plugin_initialize_args *args);
typedef tg_error_t *tg_plugin_destroy_fn(tg_plugin_destroy_args *args);
typedef tg_error_t *tg_plugin_get_info_fn(tg_plugin_get_info_args *args);
typedef tg_error_t *tg_plugin_get_devices_fn(tg_plugin_get_devices_args *args);
typedef tg_error_t *
tg_device_get_properties_fn(tg_device_get_properties_args *args);
typedef tg_error_t *tg_plugin_compile_fn(tg_plugin_compile_args *args);
typedef tg_error_t *tg_image_destroy_fn(tg_image_destroy_args *args);
typedef tg_error_t *tg_buffer_alloc_fn(tg_buffer_alloc_args *args);
typedef tg_error_t *tg_buffer_free_fn(tg_buffer_free_args *args);
typedef tg_error_t *tg_buffer_write_fn(tg_buffer_write_args *args);
typedef tg_error_t *tg_buffer_read_fn(tg_buffer_read_args *args);
typedef tg_error_t *tg_buffer_copy_fn(tg_buffer_copy_args *args);
typedef tg_error_t *tg_buffer_memset_fn(tg_buffer_memset_args *args);
typedef tg_error_t *tg_stream_create_fn(tg_stream_create_args *args);
typedef tg_error_t *tg_stream_destroy_fn(tg_stream_destroy_args *args);
typedef tg_error_t *tg_stream_synchronize_fn(tg_stream_synchronize_args *args);
typedef tg_error_t *tg_stream_wait_event_fn(tg_stream_wait_event_args *args);
typedef tg_error_t *tg_event_create_fn(tg_event_create_args *args);
typedef tg_error_t *tg_event_destroy_fn(tg_event_destroy_args *args);
typedef tg_error_t *tg_event_record_fn(tg_event_record_args *args);
typedef tg_error_t *tg_event_synchronize_fn(tg_event_synchronize_args *args);
typedef tg_error_t *
tg_event_elapsed_time_fn(tg_event_elapsed_time_args *args);
typedef tg_error_t *tg_module_load_fn(tg_module_load_args *args);
typedef tg_error_t *tg_module_unload_fn(tg_module_unload_args *args);
typedef tg_error_t *tg_module_get_kernel_fn(tg_module_get_kernel_args *args);
typedef tg_error_t *tg_kernel_launch_fn(tg_kernel_launch_args *args);
typedef tg_error_t *
tg_plugin_get_compile_info_fn(tg_plugin_get_compile_info_args *args);
typedef tg_error_t *
tg_kernel_get_attributes_fn(tg_kernel_get_attributes_args *args);

/** The table a plugin returns. It must stay valid until the library is
 *  unloaded (a static const object is the usual choice). Entries may be NULL
 *  where the plugin has nothing to offer; the runtime then answers
 *  TG_ERROR_UNIMPLEMENTED itself. The error and plugin entries are required. */
typedef struct tg_plugin_api {
  size_t struct_size;
  /** Optional features the plugin offers beyond this table. */
  const tg_extension_base *extension_start;
  /** The ABI version the plugin implements. */
  uint32_t major_version;
  uint32_t minor_version;

  /* 1.0 */
  tg_error_destroy_fn *error_destroy;
  tg_error_message_fn *error_message;
  tg_error_get_code_fn *error_get_code;

  tg_plugin_initialize_fn *plugin_initialize;
  tg_plugin_destroy_fn *plugin_destroy;
  tg_plugin_get_info_fn *plugin_get_info;
  tg_plugin_get_devices_fn *plugin_get_devices;

  tg_device_get_properties_fn *device_get_properties;

  tg_plugin_compile_fn *plugin_compile;
  tg_image_destroy_fn *image_destroy;

  tg_buffer_alloc_fn *buffer_alloc;
  tg_buffer_free_fn *buffer_free;
  tg_buffer_write_fn *buffer_write;
  tg_buffer_read_fn *buffer_read;
  tg_buffer_copy_fn *buffer_copy;
  tg_buffer_memset_fn *buffer_memset;

  tg_stream_create_fn *stream_create;
  tg_stream_destroy_fn *stream_destroy;
  tg_stream_synchronize_fn *stream_synchronize;
  tg_stream_wait_event_fn *stream_wait_event;

  tg_event_create_fn *event_create;
  tg_event_destroy_fn *event_destroy;
  tg_event_record_fn *event_record;
  tg_event_synchronize_fn *event_synchronize;
  tg_event_elapsed_time_fn *event_elapsed_time;

  tg_module_load_fn *module_load;
  tg_module_unload_fn *module_unload;
  tg_module_get_kernel_fn *module_get_kernel;
  tg_kernel_launch_fn *kernel_launch;

  /* 1.1 */
  /** The compile stages and options the plugin declares. NULL in a 1.0
   *  plugin: then only the image stage exists and options are not described. */
  tg_plugin_get_compile_info_fn *plugin_get_compile_info;

  /* 1.2 */
  /** A loaded kernel's registers, spills, local and shared memory and
   *  thread limit. NULL where the plugin cannot tell any of them. */
  tg_kernel_get_attributes_fn *kernel_get_attributes;
  /* New entries of later minor versions go here, at the end. */
} tg_plugin_api;

/** The smallest table a 1.x runtime accepts: everything of 1.0. */
#define TG_PLUGIN_API_1_0_SIZE TG_STRUCT_SIZE(tg_plugin_api, kernel_launch)

/** The entry symbol's type. The runtime passes the ABI version it speaks; a
 *  plugin that implements several major versions returns the matching table.
 *  Returns NULL when the plugin cannot serve that major version. Must not
 *  fail otherwise, and must have no side effects: initialization belongs in
 *  `plugin_initialize`. */
typedef const tg_plugin_api *tg_plugin_get_api_fn(uint32_t runtime_major,
                                                  uint32_t runtime_minor);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_PLUGIN_H */
