//===- KernelCorpus.h - The kernels the Launch tests compile ----*- C++ -*-===//
//
// Private to the conformance library. Triton-language kernels
// (kernels/<file>.py) compiled to tile-dialect MLIR bytecode by `tegula
// compile` when the SDK is built (sdk/CMakeLists.txt; each file's first line
// holds its --kernel and --signature) and embedded here byte for byte: what
// a plugin's compile receives from the front end. The constants below are
// the constexpr parameters of those signatures, which the tests need to size
// their grids; they must match the files' first lines.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_SDK_CONFORMANCE_KERNELCORPUS_H
#define TEGULA_SDK_CONFORMANCE_KERNELCORPUS_H

#include <cstddef>

namespace tegula::conformance {

/// One compiled kernel of the corpus.
struct CorpusKernel {
  /// The @jit function, and the name its compiled kernel must have.
  const char *name;
  /// Its source, in sdk/conformance/kernels/.
  const char *file;
  /// Tile bytecode.
  const unsigned char *bytecode;
  size_t size;
};

/// fill_u32(u32* out, u32 value, i32 n), BLOCK elements a program:
/// out[i] = value for i < n.
extern const CorpusKernel kFillU32;
constexpr int kFillBlock = 64;

/// add_f32(f32* x, f32* y, f32* out, i32 n), BLOCK elements a program:
/// out[i] = x[i] + y[i] for i < n.
extern const CorpusKernel kAddF32;
constexpr int kAddBlock = 128;

/// row_sum_f32(f32* x, f32* out, i32 rows, i32 cols, i32 stride), ROWS rows
/// a program, BLOCK columns at a time: out[r] = sum of x[r * stride + c] for
/// c < cols, r < rows.
extern const CorpusKernel kRowSumF32;
constexpr int kRowSumRows = 4, kRowSumBlock = 32;

/// atomic_counter(i32* counter, i32* tickets, i32* bins, i32 n, i32 n_bins),
/// BLOCK elements a program: tickets[pid] = atomic_add(counter, 1), and
/// atomic_add(bins + i % n_bins, 1) for each of its elements i < n.
extern const CorpusKernel kAtomicCounter;
constexpr int kAtomicBlock = 64;

/// program_ids(i32* out): the program (x, y, z) of a grid (nx, ny, nz) writes
/// {x, y, z, nx, ny, nz} at out + ((z * ny + y) * nx + x) * 6.
extern const CorpusKernel kProgramIds;
constexpr int kProgramIdsRecord = 6;

} // namespace tegula::conformance

#endif // TEGULA_SDK_CONFORMANCE_KERNELCORPUS_H
