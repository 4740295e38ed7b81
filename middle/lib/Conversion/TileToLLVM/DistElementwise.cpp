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

/// Every operand of the elementwise |op| is a tile in |layout| (the layout
/// engine inserted conversions where layouts met).
LogicalResult checkOperandLayouts(DistLowerer &l, Operation *op,
                                  const DistLayout &layout) {
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType)
      return l.unsupported(op, "a scalar operand of a tile op");
    FailureOr<DistLayout> operandLayout = l.layoutOf(operandType, op->getLoc());
    if (failed(operandLayout))
      return failure();
    if (!(*operandLayout == layout))
      return l.unsupported(op, "operands in different layouts (a missing "
                               "convert_layout)");
  }
  return success();
}

/// `tl.inline_asm_elementwise` on a target that takes inline assembly:
/// one LLVM inline-assembly op per `packed_element` registers of a thread,
/// with operands and results as Triton's lowering passes them: elements
/// narrower than 32 bits go in vectors filling a 32-bit register (at most
/// `packed_element` of them), wider ones one by one. So `pack=4` of uint8 is
/// one `<4 x i8>` operand, `pack=2` of int32 two operands.
LogicalResult lowerInlineAsm(DistLowerer &l, tile::ElementwiseInlineAsmOp op,
                             RankedTensorType type) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  if (l.hooks.getInlineAsmLanguage().empty())
    return l.unsupported(op, "tl.inline_asm_elementwise: this target takes no "
                             "inline assembly (Triton's is PTX on NVIDIA "
                             "GPUs and AMDGPU assembly on AMD GPUs)");
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout) || failed(checkOperandLayouts(l, op, *layout)))
    return failure();
  int64_t pack = op.getPackedElement();
  int64_t regs = layout->getNumRegs();
  if (regs % pack)
    return l.unsupported(op, "packed_element " + Twine(pack) +
                                 " does not divide the " + Twine(regs) +
                                 " elements each thread holds");
  // Elements of a tile of |tensorType| per asm operand or result.
  auto perRegister = [&](Type tensorType) -> int64_t {
    Type elem = l.computeType(cast<RankedTensorType>(tensorType).getElementType());
    unsigned bits = elem.getIntOrFloatBitWidth();
    return bits < 32 ? std::min<int64_t>(32 / bits, pack) : 1;
  };
  auto registerType = [&](Type tensorType) -> Type {
    Type elem = l.computeType(cast<RankedTensorType>(tensorType).getElementType());
    int64_t n = perRegister(tensorType);
    return n == 1 ? elem : VectorType::get({n}, elem);
  };
  SmallVector<Type> asmTypes;
  for (Value result : op.getResult())
    for (int64_t k = 0; k < pack; k += perRegister(result.getType()))
      asmTypes.push_back(registerType(result.getType()));
  Type asmType = asmTypes.size() == 1
                     ? asmTypes.front()
                     : LLVM::LLVMStructType::getLiteral(b.getContext(), asmTypes);
  SmallVector<SmallVector<Value>> results(op.getNumResults());
  for (int64_t first = 0; first < regs; first += pack) {
    SmallVector<Value> operands;
    for (Value operand : op.getArgs()) {
      ArrayRef<Value> values = l.regsOf(operand).slice(first, pack);
      int64_t n = perRegister(operand.getType());
      for (int64_t k = 0; k < pack; k += n) {
        if (n == 1) {
          operands.push_back(values[k]);
          continue;
        }
        Value v = b.create<LLVM::UndefOp>(loc, registerType(operand.getType()));
        for (int64_t j = 0; j < n; ++j)
          v = b.create<LLVM::InsertElementOp>(loc, v, values[k + j],
                                              l.constI32(loc, j));
        operands.push_back(v);
      }
    }
    Value out = b.create<LLVM::InlineAsmOp>(
                     loc, asmType, operands, op.getAsmString(),
                     op.getConstraints(), /*has_side_effects=*/!op.getPure(),
                     /*is_align_stack=*/false,
                     LLVM::AsmDialectAttr::get(b.getContext(),
                                               LLVM::AsmDialect::AD_ATT),
                     /*operand_attrs=*/ArrayAttr())
                    .getResult(0);
    int64_t field = 0;
    for (auto [i, result] : llvm::enumerate(op.getResult())) {
      int64_t n = perRegister(result.getType());
      for (int64_t k = 0; k < pack; k += n) {
        Value value =
            asmTypes.size() == 1
                ? out
                : b.create<LLVM::ExtractValueOp>(loc, out, field).getResult();
        ++field;
        if (n == 1) {
          results[i].push_back(value);
          continue;
        }
        for (int64_t j = 0; j < n; ++j)
          results[i].push_back(b.create<LLVM::ExtractElementOp>(
              loc, value, l.constI32(loc, j)));
      }
    }
  }
  for (auto [old, values] : llvm::zip(op.getResult(), results))
    l.setRegs(old, values);
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
  if (auto inlineAsm = dyn_cast<tile::ElementwiseInlineAsmOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(inlineAsm.getType(0));
    if (!type)
      return l.unsupported(op, "tl.inline_asm_elementwise on scalars");
    return lowerInlineAsm(l, inlineAsm, type);
  }
  if (!isElementwiseOp(op))
    return std::nullopt;
  // All operands and results are tiles of one shape and layout (the layout
  // engine inserted conversions where they met).
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout) || failed(checkOperandLayouts(l, op, *layout)))
    return failure();
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
