//===- LayoutCoalesce.cpp - the tile-coalesce pass ------------------------===//
//
// Triton's Coalesce: every load, store and atomic through a tensor of
// pointers gets the blocked layout that makes the threads of a warp access
// consecutive, aligned addresses, chosen from the axis analysis by the
// target's LayoutPolicy (LayoutSelector::getCoalescedLayout). The op is
// rewritten in place to work in that layout: tile.convert_layout brings its
// tensor operands into it and takes its results back to their types, so
// the rest of the IR does not change. Layouts are chosen for all ops first,
// on the unmodified IR, because the axis analysis does not look through the
// conversions this inserts.
//
//===----------------------------------------------------------------------===//
#include "LayoutSelection.h"

#include "tegula/Dialect/Tile/Transforms/Passes.h"

namespace tegula::tile {
#define GEN_PASS_DEF_TILECOALESCE
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;
using namespace tegula;
using namespace tegula::tile;

namespace {

/// Rewrites memory op |op| to work in |layout|: conversions of its tensor
/// operands to |layout| before it and of its tensor results back to their
/// types after it. Operands and results already in |layout| are left as
/// they are.
void setMemoryOpLayout(Operation *op, Attribute layout) {
  OpBuilder builder(op);
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = withLayout(operand.get().getType(), layout);
    if (type != operand.get().getType())
      operand.set(
          builder.create<ConvertLayoutOp>(op->getLoc(), type, operand.get()));
  }
  builder.setInsertionPointAfter(op);
  for (OpResult result : op->getResults()) {
    Type original = result.getType();
    Type type = withLayout(original, layout);
    if (type == original)
      continue;
    result.setType(type);
    auto back = builder.create<ConvertLayoutOp>(op->getLoc(), original, result);
    result.replaceAllUsesExcept(back, back);
  }
}

struct TileCoalescePass
    : public tegula::tile::impl::TileCoalesceBase<TileCoalescePass> {
  using TileCoalesceBase::TileCoalesceBase;

  void runOnOperation() override {
    GenericLayoutPolicy policy(warpSize, maxAccessBytes);
    if (failed(coalesceMemoryOps(getOperation(), policy)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult tegula::tile::coalesceMemoryOps(
    ModuleOp module, const backend::LayoutPolicy &policy, unsigned numWarps) {
  LayoutSelector selector(policy, getNumWarps(module, numWarps));
  ModuleAxisInfo axis(module);
  SmallVector<std::pair<Operation *, Attribute>> layouts;
  WalkResult walk = module.walk([&](Operation *op) {
    if (!getCoalescablePointer(op))
      return WalkResult::advance();
    Attribute layout = selector.getCoalescedLayout(op, axis);
    if (!layout)
      return WalkResult::interrupt();
    layouts.emplace_back(op, layout);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [op, layout] : layouts)
    setMemoryOpLayout(op, layout);
  return success();
}
