//===- HostKernelABI.h - The host plugin's kernel entry contract ----------===//
//
// What the host plugin's code generation emits and its launcher calls. Not
// part of the plugin C ABI: images are only ever loaded by the plugin that
// compiled them.
//
// A compiled kernel NAME is an object-file function
//
//   void NAME(const void *packed_args, tg_host_program *program);
//
// |packed_args| is the argument buffer the runtime packed (docs/runtime.md:
// each argument at the next multiple of its size, pointers as 8-byte
// addresses). The launcher calls it once per program instance, each call on
// one thread of its pool, with |program| describing that instance.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTKERNELABI_H
#define TEGULA_PLUGINS_HOST_HOSTKERNELABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tg_host_program {
  uint32_t program_id[3];   /* offset 0 */
  uint32_t num_programs[3]; /* offset 12 */
  /* offset 24: the program's scratch memory, 64-byte aligned, of the size
   * the image records (the tiles of the program live there). */
  void *scratch;
  /* offset 32: the launcher's state, opaque to generated code; the runtime
   * functions below use it. */
  void *launch;
  /* offset 40: SIMT images (the distributed lowering, TEGULA_HOST_SIMT): the
   * thread's id within its program and the program's thread count; 0 and 1
   * otherwise. */
  uint32_t thread_id;
  uint32_t num_threads;
} tg_host_program;

/* Field indices for generated code
 * (struct {[3 x i32], [3 x i32], ptr, ptr, i32, i32}). */
enum {
  TG_HOST_PROGRAM_FIELD_PROGRAM_ID = 0,
  TG_HOST_PROGRAM_FIELD_NUM_PROGRAMS = 1,
  TG_HOST_PROGRAM_FIELD_SCRATCH = 2,
  TG_HOST_PROGRAM_FIELD_LAUNCH = 3,
  TG_HOST_PROGRAM_FIELD_THREAD_ID = 4,
  TG_HOST_PROGRAM_FIELD_NUM_THREADS = 5
};

/* `kind` of tegula_host_print: the low byte says how to read |bits|, the next
 * byte the value's width in bits; TG_HOST_PRINT_HEX asks for hexadecimal. */
enum {
  TG_HOST_PRINT_SIGNED = 0,   /* |bits| is the value sign-extended to 64 */
  TG_HOST_PRINT_UNSIGNED = 1, /* zero-extended to 64 */
  TG_HOST_PRINT_FLOAT = 2,    /* the bits of the value as a double */
  TG_HOST_PRINT_POINTER = 3,  /* the address */
  TG_HOST_PRINT_NONE = 4,     /* no value: the line is the prefix alone */
  TG_HOST_PRINT_HEX = 1 << 16
};

/* Runtime functions generated code calls; the plugin's JIT resolves them to
 * the plugin's own definitions. */

/* `tl.device_print`: one element. |index| is its linear index in the tile,
 * -1 for a scalar. Prints, as Triton does,
 *   pid (x, y, z) idx (index) prefix value
 * as one line on stdout (lines of concurrent programs do not interleave);
 * without "idx (index)" for a scalar, and without a value for
 * TG_HOST_PRINT_NONE (a print of no values). The prefix is printed with one
 * space before and after it (Triton's front end makes it " name: "). */
void tegula_host_print(const tg_host_program *program, const char *prefix,
                       int64_t index, uint64_t bits, uint32_t kind);

/* `tl.device_assert` failed for the element at |index| (-1: scalar); it
 * returns, and the program goes on. The launch starts no further programs
 * (as a trap ends a GPU kernel), waits for those running, and fails with an
 * error naming |file|:|line|, |function|, |message| and the program id of
 * the first failure. */
void tegula_host_assert_fail(const tg_host_program *program,
                             const char *message, const char *file,
                             uint32_t line, const char *function,
                             int64_t index);

/* The debug mode's bounds check failed: |access| ("store to 'y_ptr'") at
 * |file|:|line| in |function| reached element |index| of a buffer of
 * elements [|begin|, |end|). Like tegula_host_assert_fail, it returns and
 * the launch fails with an error naming all of them. */
void tegula_host_bounds_fail(const tg_host_program *program,
                             const char *access, const char *file,
                             uint32_t line, const char *function,
                             int64_t index, int64_t begin, int64_t end);

/* SIMT images: every thread of the program waits here until all have
 * arrived; shared (scratch) memory written before is visible after. */
void tegula_host_barrier(const tg_host_program *program);
/* SIMT images: the 32 bits |bits| of the thread's lane as the warp exchanges
 * them (|kind|: 0 xor, 1 up, 2 down, 3 index, as backend::ShuffleKind;
 * out-of-warp sources read the thread's own value). Every thread of the
 * program calls it together. */
uint32_t tegula_host_shuffle(const tg_host_program *program, uint32_t bits,
                             uint32_t kind, uint32_t offset,
                             uint32_t warp_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_PLUGINS_HOST_HOSTKERNELABI_H */
