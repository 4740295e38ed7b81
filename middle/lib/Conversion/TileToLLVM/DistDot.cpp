//===- DistDot.cpp - tl.dot as fused multiply-adds per thread -------------===//
//
// The portable dot of the distributed lowering: D = A x B + C with D in a
// blocked layout. A and B are brought to the dot-operand layouts of D's
// layout (through shared memory when they are not already), in which a
// thread holds, for each of its rows of D, the whole row of A, and for each
// of its columns, the whole column of B; each accumulator register then
// takes K fused multiply-adds (Triton's FMA dot). Operands are converted to
// the accumulator type first (f16/bf16 to f32, i8 to i32); an f16 or bf16
// result is computed in f32 and rounded. Matrix units belong to a target's
// own lowering (LayoutPolicy::selectMatrixInstruction).
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// The registers of |operand| (old value) in the dot-operand layout
/// |opIdx| of |parent|, and that layout.
FailureOr<std::pair<DistLayout, SmallVector<Value>>>
operandRegisters(DistLowerer &l, tile::DotOp op, Value operand, int64_t opIdx,
                 Attribute parent) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(operand.getType());
  FailureOr<DistLayout> from = l.layoutOf(type, loc);
  auto wanted = RankedTensorType::get(
      type.getShape(), type.getElementType(),
      tile::DotOperandLayoutAttr::get(l.ctx, opIdx, parent, 0));
  FailureOr<DistLayout> to = l.layoutOf(wanted, loc);
  if (failed(from) || failed(to))
    return failure();
  SmallVector<Value> values =
      l.convert(loc, *from, l.regsOf(operand), type.getElementType(), *to);
  return std::pair{*to, values};
}

/// A dot in a matrix-unit layout: per instruction tile of the accumulator
/// and per K step, the fragments go to TargetHooks::buildMatrixMultiply.
LogicalResult lowerMatrixDot(DistLowerer &l, tile::DotOp op,
                             tile::MatrixLayoutAttr matrix) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  Type aElem = aType.getElementType();
  Type bElem = cast<RankedTensorType>(op.getB().getType()).getElementType();
  if (!(aElem.isF16() || aElem.isBF16()) || aElem != bElem ||
      !dType.getElementType().isF32())
    return l.unsupported(op, "nvidia.mma dots take f16 or bf16 operands and "
                             "an f32 accumulator");
  FailureOr<DistLayout> dLayout = l.layoutOf(dType, loc);
  FailureOr<DistLayout> cLayout =
      l.layoutOf(cast<RankedTensorType>(op.getC().getType()), loc);
  if (failed(dLayout) || failed(cLayout))
    return failure();
  auto a = operandRegisters(l, op, op.getA(), 0, matrix);
  auto b = operandRegisters(l, op, op.getB(), 1, matrix);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<Value> acc = l.convert(loc, *cLayout, l.regsOf(op.getC()),
                                     dType.getElementType(), *dLayout);
  int64_t rank = dType.getRank();
  int64_t m = rank - 2, n = rank - 1;
  int64_t instrK = 16;
  int64_t k = aType.getDimSize(rank - 1);
  if (k % instrK != 0)
    return l.unsupported(op, "K must be a multiple of 16 for nvidia.mma");
  auto find = [&](const DistLayout &layout, Coords coords) -> int64_t {
    return layout.findReg(coords);
  };
  for (auto [r, coords] : llvm::enumerate(dLayout->regOffsets)) {
    if ((coords[m] & 8) || (coords[n] & 1))
      continue;
    auto at = [&](int64_t dm, int64_t dn) {
      Coords c(coords);
      c[m] += dm;
      c[n] += dn;
      return c;
    };
    SmallVector<int64_t> cRegs;
    for (auto [dm, dn] : {std::pair<int64_t, int64_t>{0, 0}, {0, 1}, {8, 0},
                          {8, 1}})
      cRegs.push_back(find(*dLayout, at(dm, dn)));
    if (llvm::is_contained(cRegs, -1))
      return l.unsupported(op, "the dot's tile is smaller than an nvidia.mma "
                               "instruction");
    SmallVector<Value> c;
    for (int64_t reg : cRegs)
      c.push_back(acc[reg]);
    for (int64_t kBase = 0; kBase < k; kBase += instrK) {
      SmallVector<Value> aFragment, bFragment;
      for (auto [dm, dk] : {std::pair<int64_t, int64_t>{0, 0}, {0, 1}, {8, 0},
                            {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}}) {
        Coords coordsA(coords);
        coordsA[m] += dm;
        coordsA[n] = kBase + dk;
        int64_t reg = find(a->first, coordsA);
        if (reg < 0)
          return l.unsupported(op, "dot operand A does not line up with the "
                                   "nvidia.mma fragments");
        aFragment.push_back(a->second[reg]);
      }
      for (int64_t dk : {0, 1, 8, 9}) {
        Coords coordsB(coords);
        coordsB[m] = kBase + dk;
        int64_t reg = find(b->first, coordsB);
        if (reg < 0)
          return l.unsupported(op, "dot operand B does not line up with the "
                                   "nvidia.mma fragments");
        bFragment.push_back(b->second[reg]);
      }
      FailureOr<SmallVector<Value>> d = l.hooks.buildMatrixMultiply(
          l.b, loc, matrix.getKind(), matrix.getVersion(),
          matrix.getInstrShape(), aFragment, bFragment, c);
      if (failed(d))
        return l.unsupported(op, "the target has no " + matrix.getKind() +
                                     " instruction for these types");
      c = *d;
    }
    for (auto [i, reg] : llvm::enumerate(cRegs))
      acc[reg] = c[i];
  }
  l.setRegs(op.getD(), acc);
  return success();
}

LogicalResult lowerDot(DistLowerer &l, tile::DotOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  Type aElem = aType.getElementType(), bElem = bType.getElementType();
  Type dElem = dType.getElementType();
  for (Type t : {aElem, bElem, dElem})
    if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
      return l.unsupported(op, "fp8 dot operands are not supported by this "
                               "lowering yet");
  Attribute parent = dType.getEncoding();
  if (!parent) {
    // No layout: the default blocked layout, spelled out.
    return l.unsupported(op, "a dot whose result has no layout (run "
                             "tile::assignLayouts first)");
  }
  if (auto matrix = dyn_cast<tile::MatrixLayoutAttr>(parent))
    return lowerMatrixDot(l, op, matrix);
  if (!isa<tile::BlockedLayoutAttr>(parent))
    return l.unsupported(op, "a dot whose result is neither blocked nor a "
                             "matrix-unit layout");
  FailureOr<DistLayout> dLayout = l.layoutOf(dType, loc);
  FailureOr<DistLayout> cLayout =
      l.layoutOf(cast<RankedTensorType>(op.getC().getType()), loc);
  if (failed(dLayout) || failed(cLayout))
    return failure();
  auto a = operandRegisters(l, op, op.getA(), 0, parent);
  auto bOperand = operandRegisters(l, op, op.getB(), 1, parent);
  if (failed(a) || failed(bOperand))
    return failure();
  SmallVector<Value> c =
      l.convert(loc, *cLayout, l.regsOf(op.getC()), dElem, *dLayout);

  Type acc = dElem;
  if (dElem.isF16() || dElem.isBF16())
    acc = b.getF32Type();
  bool isFloat = isa<FloatType>(acc);
  int64_t rank = dType.getRank();
  int64_t k = aType.getDimSize(rank - 1);
  std::map<Coords, int64_t> aRegs, bRegs;
  for (auto [i, coords] : llvm::enumerate(a->first.regOffsets))
    aRegs[coords] = i;
  for (auto [i, coords] : llvm::enumerate(bOperand->first.regOffsets))
    bRegs[coords] = i;
  // Operands converted once each.
  DenseMap<Value, Value> converted;
  auto operand = [&](Value value, Type from) {
    auto [it, inserted] = converted.try_emplace(value, Value());
    if (inserted)
      it->second = convertDotOperand(l, loc, value, from, acc, 1);
    return it->second;
  };
  SmallVector<Value> result;
  for (auto [r, coords] : llvm::enumerate(dLayout->regOffsets)) {
    Value sum = convertDotOperand(l, loc, c[r], dElem, acc, 1);
    for (int64_t kk = 0; kk < k; ++kk) {
      Coords aAt(coords), bAt(coords);
      aAt[rank - 1] = kk;
      bAt[rank - 2] = kk;
      auto ai = aRegs.find(aAt), bi = bRegs.find(bAt);
      if (ai == aRegs.end() || bi == bRegs.end())
        return l.unsupported(op, "dot operand registers do not line up with "
                                 "the result's");
      Value x = operand(a->second[ai->second], aElem);
      Value y = operand(bOperand->second[bi->second], bElem);
      sum = isFloat ? b.create<LLVM::FMAOp>(loc, x, y, sum).getResult()
                    : b.create<arith::AddIOp>(
                           loc, sum, b.create<arith::MulIOp>(loc, x, y))
                          .getResult();
    }
    result.push_back(roundAccumulator(l, loc, sum, acc, dElem, 1));
  }
  l.setRegs(op.getD(), result);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDistDot(DistLowerer &l, Operation *op) {
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return lowerDot(l, dot);
  return std::nullopt;
}
