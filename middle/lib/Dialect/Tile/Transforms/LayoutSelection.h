//===- LayoutSelection.h - how the layout passes choose layouts -*- C++ -*-===//
//
// Private to the layout passes (LayoutCoalesce.cpp, LayoutAssign.cpp,
// LayoutRemoveConversions.cpp): the bridge from a target's LayoutPolicy
// (tegula/BackendKit/LayoutPolicy.h), which speaks in plain numbers, to the
// layout attributes of the tile dialect, and the few type helpers the passes
// share.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_LIB_DIALECT_TILE_TRANSFORMS_LAYOUTSELECTION_H
#define TEGULA_LIB_DIALECT_TILE_TRANSFORMS_LAYOUTSELECTION_H

#include "tegula/Analysis/AxisInfo.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/Dialect/Tile/IR/Tile.h"

namespace tegula::tile {

/// The policy of a generic GPU-like target: warps of |warpSize| threads,
/// accesses of at most |maxAccessBytes| bytes, Triton's coalescing rule, and
/// no matrix unit unless |matrixUnit| is a family (a backend's, registered
/// with the passes by the tool): then the dots that family selects take it.
/// Used by the registered passes; a backend passes its own policy to
/// assignLayouts().
class GenericLayoutPolicy final : public backend::LayoutPolicy {
public:
  GenericLayoutPolicy(unsigned warpSize, unsigned maxAccessBytes,
                      const backend::MatrixUnit *matrixUnit = nullptr);

  unsigned getWarpSize() const override { return warpSize; }
  unsigned getMaxAccessBytes() const override { return maxAccessBytes; }
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(const backend::DotProblem &dot) const override;

private:
  unsigned warpSize;
  unsigned maxAccessBytes;
  const backend::MatrixUnit *matrixUnit;
};

/// The number of warps layouts are built for: |requested| when not 0, else
/// the `tile.num_warps` attribute of |module|, else 4.
unsigned getNumWarps(mlir::ModuleOp module, unsigned requested);

/// |type| with encoding |layout| (no encoding when |layout| is null); types
/// other than ranked tensors are returned unchanged.
mlir::Type withLayout(mlir::Type type, mlir::Attribute layout);

/// The encoding of |type| when it is a ranked tensor; null otherwise.
mlir::Attribute getLayout(mlir::Type type);

/// `#tile.slice<{dim = |dim|, parent = |parent|}>`, or null when |parent| is
/// not a distributed layout.
mlir::Attribute getSliceLayout(mlir::Attribute parent, int64_t dim);

/// The tensor of pointers |op| accesses when it is a tile.load, tile.store,
/// tile.atomic_rmw or tile.atomic_cas through one (not a scalar or block
/// pointer); null otherwise. These are the ops tile-coalesce lays out.
mlir::Value getCoalescablePointer(mlir::Operation *op);

/// Whether |op| computes each element of its results from the same element
/// of its operands, so that it can run in any one layout (the Elementwise
/// trait of tile, arith and math ops).
bool isElementwise(mlir::Operation *op);

/// Chooses layouts for tiles through a LayoutPolicy, for |numWarps| warps.
/// Methods return null, after a diagnostic at |loc|, when the policy's
/// answer is not a valid layout.
class LayoutSelector {
public:
  LayoutSelector(const backend::LayoutPolicy &policy, unsigned numWarps)
      : policy(policy), numWarps(numWarps) {}

  unsigned getNumWarps() const { return numWarps; }

  /// The layout of a tile nothing constrains: the policy's blocked layout
  /// with no known contiguity (one element per thread), row-major order.
  BlockedLayoutAttr getDefaultLayout(mlir::RankedTensorType type,
                                     mlir::Location loc) const;

  /// The layout memory op |op| (getCoalescablePointer(op) is not null)
  /// accesses memory in: dimensions ordered by the pointers' contiguity in
  /// |axis|, most contiguous first (ties: the later dimension first); the
  /// contiguity along the first, limited by the pointers' alignment in
  /// elements, bounds the vector a thread accesses.
  BlockedLayoutAttr getCoalescedLayout(mlir::Operation *op,
                                       const ModuleAxisInfo &axis) const;

  /// The layouts of a tile.dot: the result (and accumulator), and the two
  /// `#tile.dot_operand` operands.
  struct DotLayouts {
    mlir::Attribute result, a, b;
  };
  /// A `#tile.matrix` result when the policy selects a matrix instruction
  /// for |dot|, the policy's default blocked layout of the result
  /// otherwise (scalar fused multiply-adds). Null fields on failure.
  DotLayouts getDotLayouts(DotOp dot) const;

  /// Whether |dot|'s fp8 operands should become f16 before it: the policy
  /// has no matrix instruction for them but has one for f16 operands (fp8
  /// values convert to f16 exactly).
  bool shouldUpcastFp8Operands(DotOp dot) const;

  /// Records, for every dot of |module|, whether each operand can sit in
  /// shared memory contiguous along K with vector copies from memory
  /// (backend::DotProblem::aKContiguous): false only for an operand loaded
  /// through pointers (or a block pointer) contiguous along M or N. The
  /// answers go into the DotProblems the policy is asked about.
  void analyzeDotOperands(mlir::ModuleOp module, const ModuleAxisInfo &axis);

private:
  /// The policy's matrix instruction for |dot| with operands of |aElem|
  /// and |bElem|, if any.
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(DotOp dot, mlir::Type aElem, mlir::Type bElem) const;

  /// |layout| as an attribute for |type|, or null after a diagnostic.
  BlockedLayoutAttr toAttr(const backend::BlockedLayout &layout,
                           mlir::RankedTensorType type,
                           mlir::Location loc) const;

  const backend::LayoutPolicy &policy;
  unsigned numWarps;
  /// analyzeDotOperands's answers per dot: A, B K-contiguous.
  llvm::DenseMap<mlir::Operation *, std::pair<bool, bool>> kContiguous;
};

} // namespace tegula::tile

#endif // TEGULA_LIB_DIALECT_TILE_TRANSFORMS_LAYOUTSELECTION_H
