//===- tegula/BackendKit/LayoutPolicy.h - How a target lays out tiles -*- C++ -*-===//
//
// A layout says which thread of which warp holds which elements of a tile.
// The layout engine (middle/: tile-coalesce, tile-assign-layouts,
// tile-remove-layout-conversions) propagates and converts layouts; a
// target's LayoutPolicy answers the questions only the target can: the
// blocked layout of a tile it loads or stores, and the matrix instruction a
// `tl.dot` should use - an instruction of one of the target's matrix-unit
// families (MatrixUnit.h), which then lays out the dot.
//
// Status: used by middle/'s layout assignment (tegula::tile::assignLayouts,
// coalesceMemoryOps), which turns these numbers into #tile.blocked /
// #tile.matrix attributes. The interface grows with the GPU backends -
// likely next: layouts for reductions and scans - and, like TargetHooks,
// never crosses the plugin C boundary.
//
// defaultBlockedLayout() is the rule Triton uses for coalesced global memory
// access; most policies return it for loads and stores.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_LAYOUTPOLICY_H
#define TEGULA_BACKENDKIT_LAYOUTPOLICY_H

#include "tegula/plugin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tegula::backend {

class MatrixUnit;

/// A blocked (distributed) layout, Triton's BlockedEncoding as numbers: along
/// each dimension d, a thread holds sizePerThread[d] contiguous elements, a
/// warp threadsPerWarp[d] threads, a block warpsPerBlock[d] warps; the layout
/// repeats to cover larger tiles. |order| lists dimensions from the fastest
/// varying (contiguous in memory) to the slowest.
struct BlockedLayout {
  llvm::SmallVector<unsigned, 4> sizePerThread;
  llvm::SmallVector<unsigned, 4> threadsPerWarp;
  llvm::SmallVector<unsigned, 4> warpsPerBlock;
  llvm::SmallVector<unsigned, 4> order;

  /// Empty when the layout is well formed for |warpSize| threads per warp
  /// and |numWarps| warps: every vector has the same rank, |order| is a
  /// permutation, every factor is at least 1, and the thread and warp counts
  /// multiply out. Otherwise the first problem found.
  std::string verify(unsigned warpSize, unsigned numWarps) const;

  bool operator==(const BlockedLayout &other) const {
    return sizePerThread == other.sizePerThread &&
           threadsPerWarp == other.threadsPerWarp &&
           warpsPerBlock == other.warpsPerBlock && order == other.order;
  }
};

/// One matrix-multiply instruction shape: D(m x n) += A(m x k) * B(k x n)
/// computed by a warp (or a group of warps) of the family |unit|.
struct MatrixInstruction {
  /// The family (owned by the backend, alive for the compile).
  const MatrixUnit *unit = nullptr;
  /// The family's version of its layouts, as it numbers them.
  unsigned version = 0;
  unsigned m = 0, n = 0, k = 0;
};

/// A `tl.dot` a policy is asked about.
struct DotProblem {
  int64_t m = 0, n = 0, k = 0;
  /// The extent of a leading batch dimension; 0 for a 2-D dot.
  int64_t batch = 0;
  /// tg_scalar_type of the operands and of the accumulator.
  tg_scalar_type aType = TG_TYPE_F16;
  tg_scalar_type bType = TG_TYPE_F16;
  tg_scalar_type accType = TG_TYPE_F32;
  unsigned numWarps = 4;
  /// `tl.dot(..., input_precision=...)`: "tf32", "tf32x3", "ieee".
  std::string inputPrecision = "tf32";
  /// Whether A (and B) can be laid out in shared memory contiguous along K
  /// without giving up vector copies from global memory: false when the
  /// operand is loaded from memory that is contiguous along M (N) instead.
  /// A family whose instructions read some operand types only K-major from
  /// shared memory (wgmma on 8-bit elements) refuses them when false.
  bool aKContiguous = true;
  bool bKContiguous = true;
};

/// The layout choices of one target (and one device architecture).
/// Implementations must be stateless or thread-safe.
class LayoutPolicy {
public:
  virtual ~LayoutPolicy();

  /// Threads per warp (wavefront, sub-group) the layouts are built for.
  virtual unsigned getWarpSize() const = 0;
  /// The widest access one thread should make to global memory, in bytes
  /// (16: 128-bit loads on NVIDIA and AMD).
  virtual unsigned getMaxAccessBytes() const = 0;

  /// The layout for loading or storing a tile of |shape| with elements of
  /// |elementBits| bits whose dimensions, fastest first, are |order|, by
  /// |numWarps| warps. |contiguity| is how many elements along order[0] are
  /// known to be contiguous and aligned in memory (1 when unknown). The
  /// default is defaultBlockedLayout().
  virtual BlockedLayout getBlockedLayout(llvm::ArrayRef<int64_t> shape,
                                         unsigned elementBits,
                                         llvm::ArrayRef<unsigned> order,
                                         unsigned numWarps,
                                         unsigned contiguity) const;

  /// The matrix instruction for |dot|, or nothing for the fallback of scalar
  /// fused multiply-adds (when no family can take the types or shapes).
  /// A policy usually asks its families in the order it prefers them
  /// (MatrixUnit::selectInstruction).
  virtual std::optional<MatrixInstruction>
  selectMatrixInstruction(const DotProblem &dot) const = 0;
};

/// Triton's coalescing rule: each thread takes a vector along order[0] as wide
/// as the access limit, the known contiguity and the share of elements per
/// thread allow; threads fill the fastest dimension first, then the next;
/// warps take what is left, the slowest dimension last. |shape| entries must
/// be powers of two, as tile shapes are.
BlockedLayout defaultBlockedLayout(llvm::ArrayRef<int64_t> shape,
                                   unsigned elementBits,
                                   llvm::ArrayRef<unsigned> order,
                                   unsigned numWarps, unsigned warpSize,
                                   unsigned maxAccessBytes,
                                   unsigned contiguity);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_LAYOUTPOLICY_H
