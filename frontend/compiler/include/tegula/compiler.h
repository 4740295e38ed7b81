/*===- tegula/compiler.h - The Tegula compiler C API --------------*- C -*-===//
 *
 * Compiles one kernel of a Triton-language source file into tile-dialect MLIR
 * bytecode, implemented by libtegula_compiler: the bytes
 * `tegula compile --emit tile-bytecode` writes, after the same pipeline (the
 * front end, then the target-independent tile-optimize passes). The bytecode
 * is what tegula_device_compile (tegula/runtime.h) takes. docs/python.md
 * shows the whole path from source to launch.
 *
 * Conventions (those of tegula/runtime.h):
 *  - Functions are `tegula_compile_<verb>` and `tegula_compiler_<...>`;
 *    objects are opaque.
 *  - A call that can fail returns NULL on success or a
 *    `tegula_compiler_error_t*` the caller must free with
 *    tegula_compiler_error_destroy. No call aborts or throws.
 *  - The options struct begins with `struct_size`; fields are only ever
 *    added at its end.
 *  - Thread safety: every call may be made concurrently from several
 *    threads (each compile has its own MLIR context and sources).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TEGULA_COMPILER_H
#define TEGULA_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the library's exported functions (it is built with hidden
 *  visibility, so only these are its ABI). Same definition as runtime.h. */
#ifndef TEGULA_API
#define TEGULA_API __attribute__((visibility("default")))
#endif

/** The version of this API: libtegula_compiler.so.<major>. */
#define TEGULA_COMPILER_API_MAJOR 1
#define TEGULA_COMPILER_API_MINOR 3

typedef struct tegula_compiler_error tegula_compiler_error_t;
typedef struct tegula_compile_result tegula_compile_result_t;

/*===-- Errors ------------------------------------------------------------===*/

/** What went wrong. Values never change meaning; new ones may be added. */
typedef enum tegula_compiler_error_code {
  TEGULA_COMPILER_SUCCESS = 0,
  /** The call itself is malformed: a NULL pointer, a struct_size too small,
   *  num_warps not a power of 2, a negative num_stages, a constexpr entry
   *  without '='. */
  TEGULA_COMPILER_ERROR_INVALID_ARGUMENT = 1,
  /** The signature or a constexpr value does not parse; the message says
   *  which entry and why. */
  TEGULA_COMPILER_ERROR_INVALID_SIGNATURE = 2,
  /** The kernel cannot compile: syntax and type errors, an unknown kernel
   *  name, a signature that does not fit the parameters. The message is the
   *  front end's diagnostics, exactly as `tegula compile` prints them
   *  (`file:line:col: error: ...`, the source line and a caret). */
  TEGULA_COMPILER_ERROR_KERNEL = 3,
  /** A bug: the generated IR does not verify, a pass failed. */
  TEGULA_COMPILER_ERROR_INTERNAL = 4,
  TEGULA_COMPILER_ERROR_OUT_OF_MEMORY = 5
} tegula_compiler_error_code;

/** The error's code; TEGULA_COMPILER_SUCCESS for NULL. */
TEGULA_API tegula_compiler_error_code
tegula_compiler_error_get_code(const tegula_compiler_error_t *error);
/** The error's message, owned by the error; "" for NULL. One line, except for
 *  TEGULA_COMPILER_ERROR_KERNEL, whose diagnostics span several lines (each
 *  ends with '\n'). */
TEGULA_API const char *
tegula_compiler_error_get_message(const tegula_compiler_error_t *error);
/** Frees |error|; NULL is fine. */
TEGULA_API void tegula_compiler_error_destroy(tegula_compiler_error_t *error);

/*===-- Compiling ---------------------------------------------------------===*/

/** The API version the library implements (TEGULA_COMPILER_API_MAJOR/MINOR
 *  of the header it was built with). */
TEGULA_API void tegula_compiler_get_api_version(uint32_t *major,
                                                uint32_t *minor);

/** What to compile. Zero-initialize it and set struct_size; string fields are
 *  UTF-8 and NUL-terminated unless a size says otherwise. */
typedef struct tegula_compile_options {
  size_t struct_size;
  /** The whole kernel file (a Python module); |source_size| bytes, which may
   *  contain anything (no NUL terminator needed). */
  const char *source;
  size_t source_size;
  /** The file name diagnostics show; NULL: "<source>". */
  const char *file_name;
  /** The @jit function to compile. */
  const char *kernel_name;
  /** The specialization in Triton's AOT format, e.g.
   *  "*fp32:16, *fp32:16, i32, 1024" (docs/language.md). */
  const char *signature;
  /** Keyword constexprs, each "NAME=VALUE" as `--constexpr` takes them
   *  (VALUE in signature-literal syntax: 128, True, fp16, "relu"). */
  const char *const *constexprs;
  size_t num_constexprs;
  /** Warps per program: a power of 2 (the CLI's default is 4). */
  int32_t num_warps;
  /** Software pipelining stages: >= 0 (the CLI's default is 3). */
  int32_t num_stages;
  /** Nonzero: drop `tl.device_assert` and `assert` (`--no-assert`). */
  int32_t disable_assertions;
  /** API 1.2. Folders searched first for the modules of the user's package
   *  the kernel imports @jit helpers and constants from (`tegula compile
   *  -I`; Python passes sys.path); then the root of |file_name|'s package
   *  and its folder. |num_search_paths| entries; NULL when 0. */
  const char *const *search_paths;
  size_t num_search_paths;
  /** API 1.3 (a smaller |struct_size| means 0). Nonzero: the bounds-checked
   *  debug mode (`tegula compile --debug`, docs/runtime.md): the kernel takes
   *  two hidden i64 arguments per pointer argument, after all the others
   *  and in the pointers' order: the byte offsets, from the pointer, of the
   *  first and one past the last byte of the buffer the launch gives for
   *  it; a load, store or atomic outside them fails the launch with the
   *  kernel, the source line and the element index. */
  int32_t debug;
} tegula_compile_options;

/** Compiles |options|' kernel into tile-dialect bytecode. On success *|out|
 *  receives a result to free with tegula_compile_result_destroy; on failure
 *  *|out| is NULL and the error says why. */
TEGULA_API tegula_compiler_error_t *
tegula_compile_kernel(const tegula_compile_options *options,
                      tegula_compile_result_t **out);

/** The bytecode (starts with MLIR's magic "ML\xefR"); lives as long as
 *  |result|. */
TEGULA_API const void *
tegula_compile_result_get_bytecode(const tegula_compile_result_t *result);
TEGULA_API size_t
tegula_compile_result_get_bytecode_size(const tegula_compile_result_t *result);
/** Warnings and notes the front end reported while compiling successfully,
 *  rendered like errors; "" when there were none. */
TEGULA_API const char *
tegula_compile_result_get_diagnostics(const tegula_compile_result_t *result);
/** API 1.1. The kernel's arguments: its parameters that are not constexprs,
 *  in order (the order of the compiled image's metadata). 0 for NULL. */
TEGULA_API size_t
tegula_compile_result_get_num_args(const tegula_compile_result_t *result);
/** API 1.1. 1 when the kernel may write memory through argument |index|: a
 *  value computed from it reaches a store, an atomic, a descriptor store, a
 *  call not inlined, or an op that may write memory or whose effects are not
 *  known; 0 when the kernel only reads through it (or never dereferences
 *  it); -1 for an index out of range or a NULL |result|. Over-approximate:
 *  never 0 for an argument the kernel writes through. The Python launcher
 *  uses it to refuse read-only arrays for written pointers only. */
TEGULA_API int32_t
tegula_compile_result_get_arg_writes(const tegula_compile_result_t *result,
                                     size_t index);
/** API 1.2. The files other than the kernel's own that the compile read
 *  (modules the kernel imports helpers from), in the order read: with the
 *  kernel's source, everything the bytecode depends on. 0 for NULL. */
TEGULA_API size_t
tegula_compile_result_get_num_imported_files(const tegula_compile_result_t *result);
/** API 1.2. The path of imported file |index| (as found under a search
 *  folder), owned by |result|; NULL for an index out of range. */
TEGULA_API const char *
tegula_compile_result_get_imported_file(const tegula_compile_result_t *result,
                                        size_t index);
/** Frees |result|; NULL is fine. */
TEGULA_API void tegula_compile_result_destroy(tegula_compile_result_t *result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_COMPILER_H */
