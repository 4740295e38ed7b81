//===- Elementwise.cpp - Elementwise ops, constants, splat, ranges ---------===//
//
// Every arith and math op, and the tile dialect's elementwise ops, on scalars
// and on tiles. On tiles the op runs over chunks of elements as MLIR vectors.
// bf16 arithmetic goes through f32 (rounding back to nearest even), and
// integer division guards against the divisors that trap on a CPU (0, and -1
// with the most negative dividend): like a GPU, the lanes get an unspecified
// value instead of stopping the program.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

int64_t widthOf(Value chunk) {
  if (auto vec = dyn_cast<VectorType>(chunk.getType()))
    return vec.getNumElements();
  return 1;
}

Type withElement(Value chunk, Type elem) {
  if (auto vec = dyn_cast<VectorType>(chunk.getType()))
    return VectorType::get(vec.getShape(), elem);
  return elem;
}

/// Copies |op|'s attributes to the op that computes a piece of its result,
/// leaving out the hints about the whole tile: on a piece they would be
/// wrong, and the tile dialect's verifier rejects them on non-tile types.
void addPieceAttributes(OperationState &state, Operation *op) {
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef name = attr.getName().strref();
    if (name != tile::kDivisibilityAttr && name != tile::kContiguityAttr &&
        name != tile::kConstancyAttr && name != tile::kNonNullAttr)
      state.addAttribute(attr.getName(), attr.getValue());
  }
}

Value intConstant(Lowerer &l, Location loc, Type elem, int64_t value,
                  int64_t width) {
  return l.constantChunk(loc, IntegerAttr::get(elem, value), width);
}

/// bf16 -> f32 exactly: the bits moved to the top half.
Value extendBF16(Lowerer &l, Location loc, Value value) {
  OpBuilder &b = l.b;
  Value bits = b.create<arith::BitcastOp>(
      loc, withElement(value, b.getI16Type()), value);
  Value wide =
      b.create<arith::ExtUIOp>(loc, withElement(value, b.getI32Type()), bits);
  Value shifted = b.create<arith::ShLIOp>(
      loc, wide, intConstant(l, loc, b.getI32Type(), 16, widthOf(value)));
  return b.create<arith::BitcastOp>(loc, withElement(value, b.getF32Type()),
                                    shifted);
}

/// f32 (or f64, through f32) -> bf16, rounding to nearest even; NaN stays
/// a quiet NaN.
Value truncateToBF16(Lowerer &l, Location loc, Value value) {
  OpBuilder &b = l.b;
  int64_t width = widthOf(value);
  Type from = getElementTypeOrSelf(value.getType());
  if (from.getIntOrFloatBitWidth() > 32)
    value = b.create<arith::TruncFOp>(loc, withElement(value, b.getF32Type()),
                                      value);
  else if (from.getIntOrFloatBitWidth() < 32)
    value = b.create<arith::ExtFOp>(loc, withElement(value, b.getF32Type()),
                                    value);
  Type i32 = b.getI32Type();
  Value bits =
      b.create<arith::BitcastOp>(loc, withElement(value, i32), value);
  Value lsb = b.create<arith::AndIOp>(
      loc,
      b.create<arith::ShRUIOp>(loc, bits, intConstant(l, loc, i32, 16, width)),
      intConstant(l, loc, i32, 1, width));
  Value rounded = b.create<arith::AddIOp>(
      loc, b.create<arith::AddIOp>(loc, bits,
                                   intConstant(l, loc, i32, 0x7FFF, width)),
      lsb);
  Value top =
      b.create<arith::ShRUIOp>(loc, rounded, intConstant(l, loc, i32, 16, width));
  Value isNan =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, value, value);
  Value result = b.create<arith::SelectOp>(
      loc, isNan, intConstant(l, loc, i32, 0x7FC0, width), top);
  Value half = b.create<arith::TruncIOp>(
      loc, withElement(value, b.getI16Type()), result);
  return b.create<arith::BitcastOp>(loc, withElement(value, b.getBF16Type()),
                                    half);
}

/// The parameters of an fp8 format.
struct Fp8Format {
  unsigned expBits, mantBits;
  int bias;
  /// Whether the all-ones exponent encodes inf/NaN (e5m2) or only
  /// S.1111.111 is NaN (e4m3fn).
  bool ieee;
  uint32_t maxFinite; // the magnitude bits of the largest finite value
};

Fp8Format fp8Format(Type type) {
  if (isa<Float8E5M2Type>(type))
    return {5, 2, 15, true, 0x7B};
  return {4, 3, 7, false, 0x7E}; // Float8E4M3FN
}

/// fp8 bits (an i8 chunk) -> f32, exactly.
Value decodeFp8(Lowerer &l, Location loc, Value bits8, Fp8Format f) {
  OpBuilder &b = l.b;
  int64_t width = widthOf(bits8);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return intConstant(l, loc, i32, v, width); };
  Value bits = b.create<arith::ExtUIOp>(loc, withElement(bits8, i32), bits8);
  Value sign = b.create<arith::ShLIOp>(
      loc, b.create<arith::AndIOp>(loc, bits, c(0x80)), c(24));
  Value exp = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, bits, c(f.mantBits)),
      c((1 << f.expBits) - 1));
  Value mant = b.create<arith::AndIOp>(loc, bits, c((1 << f.mantBits) - 1));
  // Normal numbers: rebias the exponent, widen the mantissa.
  Value normal = b.create<arith::OrIOp>(
      loc,
      b.create<arith::ShLIOp>(
          loc, b.create<arith::AddIOp>(loc, exp, c(127 - f.bias)), c(23)),
      b.create<arith::ShLIOp>(loc, mant, c(23 - f.mantBits)));
  // Subnormals: mant * 2^(1 - bias - mantBits).
  Type f32 = b.getF32Type();
  Value sub = b.create<arith::MulFOp>(
      loc, b.create<arith::UIToFPOp>(loc, withElement(bits8, f32), mant),
      l.constantChunk(loc,
                      b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias -
                                                             int(f.mantBits))),
                      width));
  Value subBits = b.create<arith::BitcastOp>(loc, withElement(bits8, i32), sub);
  Value isSub = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, exp, c(0));
  Value magnitude = b.create<arith::SelectOp>(loc, isSub, subBits, normal);
  Value maxExp = c((1 << f.expBits) - 1);
  Value special;
  if (f.ieee) {
    // Inf (mantissa 0) or NaN.
    Value isMax = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, exp, maxExp);
    Value infNan = b.create<arith::OrIOp>(
        loc, c(0x7F800000),
        b.create<arith::ShLIOp>(loc, mant, c(23 - f.mantBits)));
    magnitude = b.create<arith::SelectOp>(loc, isMax, infNan, magnitude);
  } else {
    Value isNan = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq,
        b.create<arith::AndIOp>(loc, bits, c(0x7F)), c(0x7F));
    magnitude = b.create<arith::SelectOp>(loc, isNan, c(0x7FC00000), magnitude);
  }
  (void)special;
  Value result = b.create<arith::OrIOp>(loc, sign, magnitude);
  return b.create<arith::BitcastOp>(loc, withElement(bits8, f32), result);
}

/// f32 -> fp8 bits (an i8 chunk), rounding to nearest even and saturating
/// to the largest finite value (as Triton's satfinite conversions);
/// NaN stays NaN.
Value encodeFp8(Lowerer &l, Location loc, Value x, Fp8Format f) {
  OpBuilder &b = l.b;
  int64_t width = widthOf(x);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return intConstant(l, loc, i32, v, width); };
  Value bits = b.create<arith::BitcastOp>(loc, withElement(x, i32), x);
  Value sign = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, bits, c(24)), c(0x80));
  Value absBits = b.create<arith::AndIOp>(loc, bits, c(0x7FFFFFFF));
  Value absX = b.create<arith::BitcastOp>(loc, x.getType(), absBits);
  unsigned shift = 23 - f.mantBits;
  // Normal: round the mantissa to mantBits (ties to even), rebias.
  Value lsb = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, absBits, c(shift)), c(1));
  Value rounded = b.create<arith::AddIOp>(
      loc, b.create<arith::AddIOp>(loc, absBits, c((1 << (shift - 1)) - 1)),
      lsb);
  Value normal = b.create<arith::SubIOp>(
      loc, b.create<arith::ShRUIOp>(loc, rounded, c(shift)),
      c(int64_t(127 - f.bias) << f.mantBits));
  // Subnormal: the magnitude in units of the smallest subnormal, rounded.
  Value scaled = b.create<arith::MulFOp>(
      loc, absX,
      l.constantChunk(loc,
                      b.getF32FloatAttr(std::ldexp(1.0f, f.bias - 1 +
                                                             int(f.mantBits))),
                      width));
  Value sub = b.create<arith::FPToUIOp>(
      loc, withElement(x, i32), b.create<math::RoundEvenOp>(loc, scaled));
  Value isSub = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::OLT, absX,
      l.constantChunk(loc, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias)),
                      width));
  Value magnitude = b.create<arith::SelectOp>(loc, isSub, sub, normal);
  // Saturate (inf included), keep NaN.
  Value tooBig = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                                         magnitude, c(f.maxFinite));
  magnitude = b.create<arith::SelectOp>(loc, tooBig, c(f.maxFinite), magnitude);
  Value isNan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  magnitude = b.create<arith::SelectOp>(loc, isNan, c(0x7F), magnitude);
  Value result = b.create<arith::OrIOp>(loc, sign, magnitude);
  return b.create<arith::TruncIOp>(loc, withElement(x, b.getI8Type()), result);
}

/// A float conversion between f16/bf16/f32/f64 chunks.
Value convertFloat(Lowerer &l, Location loc, Value value, Type to) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == to)
    return value;
  if (from.isBF16())
    return convertFloat(l, loc, extendBF16(l, loc, value), to);
  if (to.isBF16())
    return truncateToBF16(l, loc, value);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return l.b.create<arith::ExtFOp>(loc, withElement(value, to), value);
  return l.b.create<arith::TruncFOp>(loc, withElement(value, to), value);
}

/// |narrow|, the round-to-nearest conversion of |x| (a narrower float, or
/// fp8 bits in an i8), made round-toward-zero: where |widened| (|narrow|
/// converted back to |x|'s type) is larger in magnitude than |x|, the
/// magnitude steps down one unit in the last place. Floats are
/// sign-magnitude, so that is one less in the bits, whatever the sign; an
/// overflow to infinity becomes the largest finite value, and NaN (which
/// compares false) stays.
Value roundTowardZero(Lowerer &l, Location loc, Value x, Value narrow,
                      Value widened) {
  OpBuilder &b = l.b;
  Value away = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT,
                                       b.create<math::AbsFOp>(loc, widened),
                                       b.create<math::AbsFOp>(loc, x));
  Type elem = getElementTypeOrSelf(narrow.getType());
  Type bitsElem = b.getIntegerType(elem.getIntOrFloatBitWidth());
  Value bits = elem == bitsElem ? narrow
                                : b.create<arith::BitcastOp>(
                                      loc, withElement(narrow, bitsElem), narrow)
                                      .getResult();
  Value stepped = b.create<arith::SubIOp>(
      loc, bits, intConstant(l, loc, bitsElem, 1, widthOf(narrow)));
  Value result = b.create<arith::SelectOp>(loc, away, stepped, bits);
  if (elem == bitsElem)
    return result;
  return b.create<arith::BitcastOp>(loc, narrow.getType(), result);
}

/// Integer division and remainder that never trap.
Value safeDivision(Lowerer &l, Operation *op, Value x, Value y) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  Type elem = getElementTypeOrSelf(x.getType());
  int64_t width = widthOf(x);
  bool isSigned = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                      arith::FloorDivSIOp>(op);
  Value zero = intConstant(l, loc, elem, 0, width);
  Value one = intConstant(l, loc, elem, 1, width);
  Value isZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, zero);
  Value divisor = b.create<arith::SelectOp>(loc, isZero, one, y);
  Value isMinusOne;
  if (isSigned) {
    isMinusOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y,
                                         intConstant(l, loc, elem, -1, width));
    divisor = b.create<arith::SelectOp>(loc, isMinusOne, one, divisor);
  }
  OperationState state(loc, op->getName());
  state.addOperands({x, divisor});
  state.addTypes(x.getType());
  addPieceAttributes(state, op);
  Value result = b.create(state)->getResult(0);
  if (isSigned) {
    // x / -1 == -x (wrapping), x % -1 == 0.
    Value special = isa<arith::RemSIOp>(op)
                        ? zero
                        : b.create<arith::SubIOp>(loc, zero, x).getResult();
    result = b.create<arith::SelectOp>(loc, isMinusOne, special, result);
  }
  return result;
}

FailureOr<SmallVector<Value>> buildGeneric(Lowerer &l, Operation *op,
                                           ValueRange operands, int64_t width,
                                           bool tileMode) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  auto elemOf = [](Type type) { return getElementTypeOrSelf(type); };
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types)
    if (isa<Float8E4M3FNType, Float8E5M2Type>(elemOf(type)))
      return (l.unsupported(
          op, "fp8 arithmetic (convert fp8 values with .to() first)"));
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return SmallVector<Value>{safeDivision(l, op, operands[0], operands[1])};

  bool isBitcast = isa<arith::BitcastOp>(op);
  auto promote = [&](Type elem) -> Type {
    return !isBitcast && elem.isBF16() ? b.getF32Type() : elem;
  };
  SmallVector<Value> newOperands;
  for (Value operand : operands)
    newOperands.push_back(!isBitcast && elemOf(operand.getType()).isBF16()
                              ? extendBF16(l, loc, operand)
                              : operand);
  // A truncation to bf16 or an extension from it is a conversion.
  if (isa<arith::TruncFOp, arith::ExtFOp>(op))
    return SmallVector<Value>{
        convertFloat(l, loc, newOperands[0], elemOf(op->getResult(0).getType()))};
  OperationState state(loc, op->getName());
  state.addOperands(newOperands);
  for (Type type : op->getResultTypes())
    state.addTypes(l.chunkType(
        promote(tileMode ? l.computeType(elemOf(type)) : l.scalarType(elemOf(type))),
        width));
  addPieceAttributes(state, op);
  Operation *built = b.create(state);
  SmallVector<Value> results;
  for (auto [value, type] :
       llvm::zip(built->getResults(), op->getResultTypes()))
    results.push_back(!isBitcast && elemOf(type).isBF16()
                          ? truncateToBF16(l, loc, value)
                          : value);
  return results;
}

} // namespace

Value tegula::lowering::decodeFp8ToF32(Lowerer &l, Location loc, Value bits,
                                       Type fp8) {
  return decodeFp8(l, loc, bits, fp8Format(fp8));
}

FailureOr<SmallVector<Value>>
Lowerer::buildElementwise(Operation *op, ValueRange operands, int64_t width,
                          bool tileMode) {
  Location loc = op->getLoc();
  auto elemOf = [](Type type) { return getElementTypeOrSelf(type); };
  auto one = [](Value v) { return SmallVector<Value>{v}; };
  return llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](tile::AddPtrOp addptr) -> FailureOr<SmallVector<Value>> {
        auto ptr = cast<tile::PointerType>(elemOf(addptr.getPtr().getType()));
        int64_t bytes = storageBytes(ptr.getPointeeType());
        Value offset = operands[1];
        if (!tileMode)
          return one(b.create<LLVM::GEPOp>(loc, ptrType(),
                                           storageType(ptr.getPointeeType()),
                                           operands[0], ValueRange{offset}));
        Type i64 = b.getI64Type();
        if (!elemOf(offset.getType()).isInteger(64))
          offset = b.create<arith::ExtSIOp>(loc, chunkType(i64, width), offset);
        if (bytes != 1)
          offset = b.create<arith::MulIOp>(
              loc, offset,
              constantChunk(loc, b.getI64IntegerAttr(bytes), width));
        return one(b.create<arith::AddIOp>(loc, operands[0], offset));
      })
      .Case([&](tile::IntToPtrOp) -> FailureOr<SmallVector<Value>> {
        if (tileMode)
          return one(operands[0]);
        return one(b.create<LLVM::IntToPtrOp>(loc, ptrType(), operands[0]));
      })
      .Case([&](tile::PtrToIntOp) -> FailureOr<SmallVector<Value>> {
        if (tileMode)
          return one(operands[0]);
        return one(b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), operands[0]));
      })
      .Case([&](tile::BitcastOp cast) -> FailureOr<SmallVector<Value>> {
        Type to = computeType(elemOf(cast.getResult().getType()));
        Value src = operands[0];
        if (!tileMode) {
          // Scalar pointers are !llvm.ptr: through a 64-bit integer.
          bool fromPtr = isa<LLVM::LLVMPointerType>(src.getType());
          bool toPtr = isa<tile::PointerType>(cast.getResult().getType());
          if (fromPtr && toPtr)
            return one(src);
          if (fromPtr)
            src = b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), src);
          if (toPtr) {
            if (!src.getType().isInteger(64))
              src = b.create<arith::BitcastOp>(loc, b.getI64Type(), src);
            return one(b.create<LLVM::IntToPtrOp>(loc, ptrType(), src));
          }
          if (src.getType() == to)
            return one(src);
          return one(b.create<arith::BitcastOp>(loc, to, src));
        }
        if (getElementTypeOrSelf(operands[0].getType()) == to)
          return one(operands[0]);
        return one(
            b.create<arith::BitcastOp>(loc, chunkType(to, width), operands[0]));
      })
      .Case([&](tile::FpToFpOp conv) -> FailureOr<SmallVector<Value>> {
        Type from = elemOf(conv.getSrc().getType());
        Type to = elemOf(conv.getResult().getType());
        bool fromFp8 = isa<Float8E4M3FNType, Float8E5M2Type>(from);
        bool toFp8 = isa<Float8E4M3FNType, Float8E5M2Type>(to);
        if (fromFp8 && toFp8)
          return one(encodeFp8(*this, loc,
                               decodeFp8(*this, loc, operands[0], fp8Format(from)),
                               fp8Format(to)));
        if (fromFp8)
          return one(convertFloat(
              *this, loc, decodeFp8(*this, loc, operands[0], fp8Format(from)),
              to));
        bool towardZero = conv.getRounding() &&
                          *conv.getRounding() == tile::RoundingMode::rtz;
        if (toFp8) {
          Value wide = convertFloat(*this, loc, operands[0], b.getF32Type());
          Value bits = encodeFp8(*this, loc, wide, fp8Format(to));
          if (!towardZero)
            return one(bits);
          return one(roundTowardZero(*this, loc, wide, bits,
                                     decodeFp8(*this, loc, bits, fp8Format(to))));
        }
        Value narrow = convertFloat(*this, loc, operands[0], to);
        if (!towardZero ||
            from.getIntOrFloatBitWidth() <= to.getIntOrFloatBitWidth())
          return one(narrow);
        return one(roundTowardZero(*this, loc, operands[0], narrow,
                                   convertFloat(*this, loc, narrow, from)));
      })
      .Case([&](tile::PreciseSqrtOp) -> FailureOr<SmallVector<Value>> {
        return one(b.create<math::SqrtOp>(loc, operands[0]));
      })
      .Case([&](tile::PreciseDivFOp) -> FailureOr<SmallVector<Value>> {
        return one(b.create<arith::DivFOp>(loc, operands[0], operands[1]));
      })
      .Case([&](tile::UMulHiOp) -> FailureOr<SmallVector<Value>> {
        Type elem = getElementTypeOrSelf(operands[0].getType());
        unsigned bits = elem.getIntOrFloatBitWidth();
        Type wide = chunkType(b.getIntegerType(2 * bits), width);
        Value x = b.create<arith::ExtUIOp>(loc, wide, operands[0]);
        Value y = b.create<arith::ExtUIOp>(loc, wide, operands[1]);
        Value product = b.create<arith::MulIOp>(loc, x, y);
        Value high = b.create<arith::ShRUIOp>(
            loc, product,
            constantChunk(loc, b.getIntegerAttr(b.getIntegerType(2 * bits), bits),
                          width));
        return one(b.create<arith::TruncIOp>(loc, operands[0].getType(), high));
      })
      .Case([&](tile::ClampFOp clamp) -> FailureOr<SmallVector<Value>> {
        bool propagate = clamp.getPropagateNan() == tile::PropagateNan::all;
        Value x = operands[0], lo = operands[1], hi = operands[2];
        Value lower = propagate
                          ? b.create<arith::MaximumFOp>(loc, x, lo).getResult()
                          : b.create<arith::MaxNumFOp>(loc, x, lo).getResult();
        return one(propagate
                       ? b.create<arith::MinimumFOp>(loc, lower, hi).getResult()
                       : b.create<arith::MinNumFOp>(loc, lower, hi).getResult());
      })
      .Case([&](arith::ConstantOp constant) -> FailureOr<SmallVector<Value>> {
        auto attr = dyn_cast<TypedAttr>(constant.getValue());
        if (!attr || isa<ShapedType>(attr.getType()))
          return (unsupported(op, "a tile constant inside a region"));
        return one(constantChunk(loc, attr, width));
      })
      .Default([&](Operation *other) -> FailureOr<SmallVector<Value>> {
        if (isa<arith::ArithDialect, math::MathDialect>(other->getDialect()))
          return buildGeneric(*this, other, operands, width, tileMode);
        return (unsupported(other, "not an elementwise operation"));
      });
}

FailureOr<SmallVector<Value>> Lowerer::buildCombine(Region &region,
                                                    ValueRange operands,
                                                    int64_t width) {
  Block &block = region.front();
  IRMapping local;
  for (auto [arg, value] : llvm::zip(block.getArguments(), operands))
    local.map(arg, value);
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() != 0)
      return (unsupported(&op, "control flow inside a combine function"));
    SmallVector<Value> args;
    for (Value operand : op.getOperands()) {
      Value mapped = local.lookupOrNull(operand);
      if (!mapped) {
        // A value from outside the region (a scalar of the function).
        mapped = splatChunk(op.getLoc(), lookup(operand), width);
      }
      args.push_back(mapped);
    }
    FailureOr<SmallVector<Value>> results =
        buildElementwise(&op, args, width, /*tileMode=*/false);
    if (failed(results))
      return failure();
    for (auto [old, value] : llvm::zip(op.getResults(), *results))
      local.map(old, value);
  }
  SmallVector<Value> yielded;
  for (Value operand : block.getTerminator()->getOperands())
    yielded.push_back(local.lookupOrNull(operand)
                          ? local.lookup(operand)
                          : splatChunk(block.getTerminator()->getLoc(),
                                       lookup(operand), width));
  return yielded;
}

bool tegula::lowering::isElementwiseOp(Operation *op) {
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return true;
  return isa<tile::AddPtrOp, tile::IntToPtrOp, tile::PtrToIntOp,
             tile::BitcastOp, tile::FpToFpOp, tile::PreciseSqrtOp,
             tile::PreciseDivFOp, tile::UMulHiOp, tile::ClampFOp>(op);
}

namespace {

LogicalResult lowerTileConstant(Lowerer &l, arith::ConstantOp op,
                                RankedTensorType type) {
  Location loc = op.getLoc();
  Value buffer = l.allocTile(loc, type, op.getResult());
  Type elem = type.getElementType();
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return l.unsupported(op, "a tile constant that is not dense");
  if (dense.isSplat()) {
    int64_t n = type.getNumElements(), width = Lowerer::chunkWidth(n);
    auto scalar = cast<TypedAttr>(dense.getSplatValue<Attribute>());
    if (isa<Float8E4M3FNType, Float8E5M2Type>(elem))
      scalar = l.b.getI8IntegerAttr(static_cast<int8_t>(
          cast<FloatAttr>(scalar).getValue().bitcastToAPInt().getZExtValue()));
    l.forEachChunk(loc, n, width, [&](Value index) {
      l.storeChunk(loc, buffer, elem, index,
                   l.constantChunk(loc, scalar, width));
    });
  } else {
    if (type.getNumElements() > 65536)
      return l.unsupported(op, "a non-uniform tile constant of more than "
                               "65536 elements");
    int64_t i = 0;
    for (Attribute value : dense.getValues<Attribute>()) {
      auto scalar = cast<TypedAttr>(value);
      l.storeChunk(loc, buffer, elem, l.constI64(loc, i++),
                   l.constantChunk(loc, scalar, 1));
    }
  }
  l.map.map(op.getResult(), buffer);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerElementwiseFamily(Lowerer &l, Operation *op) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
    l.map.map(pid.getResult(),
              l.hooks.buildProgramId(
                  b, loc, static_cast<backend::Axis>(pid.getAxis())));
    return success();
  }
  if (auto nprog = dyn_cast<tile::NumProgramsOp>(op)) {
    l.map.map(nprog.getResult(),
              l.hooks.buildNumPrograms(
                  b, loc, static_cast<backend::Axis>(nprog.getAxis())));
    return success();
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto type = dyn_cast<RankedTensorType>(constant.getType()))
      return lowerTileConstant(l, constant, type);
    auto attr = cast<TypedAttr>(constant.getValue());
    if (isa<Float8E4M3FNType, Float8E5M2Type>(attr.getType()))
      attr = b.getI8IntegerAttr(static_cast<int8_t>(
          cast<FloatAttr>(attr).getValue().bitcastToAPInt().getZExtValue()));
    l.map.map(constant.getResult(), b.create<arith::ConstantOp>(loc, attr));
    return success();
  }
  // Kernels with GPU assembly: the chunked lowering runs on CPUs.
  if (isa<tile::ElementwiseInlineAsmOp>(op))
    return l.unsupported(op, "tl.inline_asm_elementwise: the host CPU takes no "
                             "inline assembly (Triton's is PTX on NVIDIA GPUs "
                             "and AMDGPU assembly on AMD GPUs)");
  if (!isElementwiseOp(op))
    return std::nullopt;

  // Scalars: the op itself on the new values.
  bool tileResult = op->getNumResults() == 1 &&
                    isa<RankedTensorType>(op->getResult(0).getType());
  if (!tileResult) {
    for (Type type : op->getResultTypes())
      if (isa<RankedTensorType>(type))
        return l.unsupported(op, "several tile results");
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(l.lookup(operand));
    FailureOr<SmallVector<Value>> results =
        l.buildElementwise(op, operands, 1, /*tileMode=*/false);
    if (failed(results))
      return failure();
    for (auto [old, value] : llvm::zip(op->getResults(), *results))
      l.map.map(old, value);
    return success();
  }

  // Tiles are chunk ops (Fusion.cpp).
  return l.unsupported(op, "a tile elementwise op outside a chunk group");
}

FailureOr<Value>
tegula::lowering::emitElementwiseChunk(Lowerer &l, Operation *op,
                                       ArrayRef<Value> operands, Value index,
                                       int64_t width) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  if (auto range = dyn_cast<tile::MakeRangeOp>(op)) {
    Value first = b.create<arith::AddIOp>(
        loc, b.create<arith::TruncIOp>(loc, b.getI32Type(), index),
        l.constI32(loc, range.getStart()));
    Value chunk = l.splatChunk(loc, first, width);
    if (width == 1)
      return chunk;
    SmallVector<int32_t> iota;
    for (int64_t i = 0; i < width; ++i)
      iota.push_back(static_cast<int32_t>(i));
    return b
        .create<arith::AddIOp>(
            loc, chunk,
            b.create<arith::ConstantOp>(
                loc, DenseElementsAttr::get(
                         VectorType::get({width}, b.getI32Type()),
                         ArrayRef<int32_t>(iota))))
        .getResult();
  }
  if (isa<tile::SplatOp>(op))
    return operands[0];
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    auto scalar = cast<TypedAttr>(dense.getSplatValue<Attribute>());
    if (isa<Float8E4M3FNType, Float8E5M2Type>(scalar.getType()))
      scalar = b.getI8IntegerAttr(static_cast<int8_t>(
          cast<FloatAttr>(scalar).getValue().bitcastToAPInt().getZExtValue()));
    return l.constantChunk(loc, scalar, width);
  }
  FailureOr<SmallVector<Value>> results =
      l.buildElementwise(op, operands, width, /*tileMode=*/true);
  if (failed(results))
    return failure();
  return results->front();
}
