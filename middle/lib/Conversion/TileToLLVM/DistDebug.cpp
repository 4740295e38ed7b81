//===- DistDebug.cpp - device_print and device_assert per register --------===//
//
// Each thread prints (checks) the elements in its registers with their
// row-major index; replicas print too, as on Triton.
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// Visits the registers of |tile| with their row-major index (i64).
void forEachRegister(DistLowerer &l, Value tile,
                     llvm::function_ref<void(Value, Value)> body) {
  auto type = cast<RankedTensorType>(tile.getType());
  Location loc = tile.getLoc();
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout))
    return;
  for (auto [r, value] : llvm::enumerate(l.regsOf(tile))) {
    Value index = l.linearIndex(loc, l.regCoords(loc, *layout, r),
                                layout->shape);
    body(value, l.b.create<arith::ExtUIOp>(loc, l.b.getI64Type(), index));
  }
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDistDebug(DistLowerer &l, Operation *op) {
  auto visit = [&](Value tile, auto body) { forEachRegister(l, tile, body); };
  if (auto print = dyn_cast<tile::PrintOp>(op))
    return lowerPrintOp(l, print, visit);
  if (auto assertOp = dyn_cast<tile::AssertOp>(op))
    return lowerAssertOp(l, assertOp, visit);
  return std::nullopt;
}
