//===- DistElementwise.cpp - Constants, splat, make_range, elementwise ----===//
//
// Register by register: an elementwise op on tiles becomes the scalar op on
// each register (Lowerer::buildElementwise at width 1).
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

LogicalResult lowerConstant(DistLowerer &l, arith::ConstantOp op,
                            RankedTensorType type) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return l.unsupported(op, "a tile constant whose elements differ");
  FailureOr<DistLayout> layout = l.layoutOf(type, op.getLoc());
  if (failed(layout))
    return failure();
  Type elem = type.getElementType();
  Attribute value = dense.getSplatValue<Attribute>();
  TypedAttr scalar;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    if (isa<Float8E4M3FNType, Float8E5M2Type>(elem))
      scalar = l.b.getIntegerAttr(
          l.b.getI8Type(), f.getValue().bitcastToAPInt().getZExtValue());
    else
      scalar = f;
  } else if (auto i = dyn_cast<IntegerAttr>(value)) {
    scalar = i;
  } else {
    return l.unsupported(op, "a tile constant of this element type");
  }
  Value constant = l.b.create<arith::ConstantOp>(op.getLoc(), scalar);
  l.setRegs(op.getResult(),
            SmallVector<Value>(layout->getNumRegs(), constant));
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDistElementwise(DistLowerer &l, Operation *op) {
  Location loc = op->getLoc();
  OpBuilder &b = l.b;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto type = dyn_cast<RankedTensorType>(constant.getType()))
      return lowerConstant(l, constant, type);
    return std::nullopt;
  }
  if (auto splat = dyn_cast<tile::SplatOp>(op)) {
    auto type = cast<RankedTensorType>(splat.getType());
    FailureOr<DistLayout> layout = l.layoutOf(type, loc);
    if (failed(layout))
      return failure();
    Value scalar =
        l.scalarToCompute(loc, l.lookup(splat.getSrc()), type.getElementType());
    l.setRegs(splat.getResult(),
              SmallVector<Value>(layout->getNumRegs(), scalar));
    return success();
  }
  if (auto range = dyn_cast<tile::MakeRangeOp>(op)) {
    auto type = cast<RankedTensorType>(range.getType());
    FailureOr<DistLayout> layout = l.layoutOf(type, loc);
    if (failed(layout))
      return failure();
    SmallVector<Value> values;
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      Value coord = l.regCoords(loc, *layout, r).front();
      values.push_back(
          range.getStart() == 0
              ? coord
              : b.create<arith::AddIOp>(loc, coord,
                                        l.constI32(loc, range.getStart()))
                    .getResult());
    }
    l.setRegs(range.getResult(), values);
    return success();
  }
  if (!isElementwiseOp(op))
    return std::nullopt;
  // All operands and results are tiles of one shape and layout (the layout
  // engine inserted conversions where they met).
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout))
    return failure();
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType)
      return l.unsupported(op, "a scalar operand of a tile op");
    FailureOr<DistLayout> operandLayout = l.layoutOf(operandType, loc);
    if (failed(operandLayout))
      return failure();
    if (!(*operandLayout == *layout))
      return l.unsupported(op, "operands in different layouts (a missing "
                               "convert_layout)");
  }
  SmallVector<SmallVector<Value>> results(op->getNumResults());
  for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(l.regsOf(operand)[r]);
    FailureOr<SmallVector<Value>> built =
        l.buildElementwise(op, operands, 1, /*tileMode=*/true);
    if (failed(built))
      return failure();
    for (auto [i, value] : llvm::enumerate(*built))
      results[i].push_back(value);
  }
  for (auto [old, values] : llvm::zip(op->getResults(), results))
    l.setRegs(old, values);
  return success();
}
