//===- Semantic.cpp - Triton's arithmetic, casts and shapes ---------------===//
#include "tegula/Frontend/Semantic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <climits>
#include <cmath>

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
[[noreturn]] void fail(const std::string &message) { throw SemanticError(message); }


std::string numStr(const PyNum &n) {
  if (n.kind == PyNum::Bool)
    return n.i ? "True" : "False";
  if (n.kind == PyNum::Int)
    return int128ToString(n.i);
  std::string s;
  llvm::raw_string_ostream(s) << n.f;
  return s;
}
} // namespace

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

DType Semantic::dtypeOf(const PyNum &n) {
  switch (n.kind) {
  case PyNum::Bool:
    return DType::I1;
  case PyNum::Int: {
    const __int128 two31 = static_cast<__int128>(1) << 31;
    const __int128 two32 = static_cast<__int128>(1) << 32;
    const __int128 two63 = static_cast<__int128>(1) << 63;
    const __int128 two64 = static_cast<__int128>(1) << 64;
    if (-two31 <= n.i && n.i < two31)
      return DType::I32;
    if (two31 <= n.i && n.i < two32)
      return DType::U32;
    if (-two63 <= n.i && n.i < two63)
      return DType::I64;
    if (two63 <= n.i && n.i < two64)
      return DType::U64;
    fail("nonrepresentable integer " + numStr(n));
  }
  case PyNum::Float: {
    double a = std::fabs(n.f);
    const double minF32 = std::ldexp(1.0, -126);
    const double maxF32 = (2 - std::ldexp(1.0, -23)) * std::ldexp(1.0, 127);
    if (std::isinf(a) || a == 0.0 || std::isnan(n.f) ||
        (minF32 <= a && a <= maxF32))
      return DType::FP32;
    return DType::FP64;
  }
  }
  return DType::I32;
}

TValue Semantic::constant(const PyNum &n, const DType &dtype) {
  Type type = dtype.toMLIR(context());
  TypedAttr attr;
  if (dtype.isFloat()) {
    double v = n.kind == PyNum::Float ? n.f : static_cast<double>(n.i);
    attr = b.getFloatAttr(type, v);
  } else if (dtype.isInt()) {
    __int128 v = n.i;
    if (n.kind == PyNum::Float)
      v = static_cast<__int128>(n.f);
    if (dtype.isBool())
      v = v != 0;
    attr = b.getIntegerAttr(type, APInt(dtype.bitWidth(),
                                        static_cast<uint64_t>(v),
                                        /*isSigned=*/false));
  } else {
    fail("cannot make a constant of type " + dtype.str());
  }
  return wrap(create<arith::ConstantOp>(attr), dtype);
}

TValue Semantic::toTensor(const Operand &x) {
  if (auto *v = std::get_if<TValue>(&x))
    return *v;
  return toTensor(std::get<PyNum>(x));
}

TValue Semantic::full(ArrayRef<int64_t> shape, const PyNum &n,
                      const DType &dtype) {
  TValue scalar = constant(n, dtype);
  if (shape.empty())
    return scalar;
  return splat(scalar, shape);
}

mlir::Value Semantic::zeroLike(const TType &type) {
  Type t = type.toMLIR(context());
  return create<arith::ConstantOp>(mlir::cast<TypedAttr>(b.getZeroAttr(t)));
}

mlir::Value Semantic::allOnesLike(const TType &type) {
  Type elem = type.scalar().toMLIR(context());
  auto one = b.getIntegerAttr(elem, APInt::getAllOnes(type.scalar().bitWidth()));
  if (!type.isBlock())
    return create<arith::ConstantOp>(one);
  return create<arith::ConstantOp>(
      DenseElementsAttr::get(mlir::cast<ShapedType>(type.toMLIR(context())),
                             Attribute(one)));
}

//===----------------------------------------------------------------------===//
// Programs and ranges
//===----------------------------------------------------------------------===//

TValue Semantic::programId(int64_t axis) {
  if (axis < 0 || axis > 2)
    fail("program_id axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return wrap(create<tile::ProgramIdOp>(static_cast<int32_t>(axis)), DType::I32);
}

TValue Semantic::numPrograms(int64_t axis) {
  if (axis < 0 || axis > 2)
    fail("num_programs axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return wrap(create<tile::NumProgramsOp>(static_cast<int32_t>(axis)),
              DType::I32);
}

TValue Semantic::arange(int64_t start, int64_t end) {
  // The range's values and its end (an int32 attribute of the op) fit in
  // int32.
  if (start < INT32_MIN || start > INT32_MAX || end < INT32_MIN || end > INT32_MAX)
    fail("arange must fit in int32");
  if (end <= start)
    fail("arange's end argument must be greater than the start argument");
  int64_t range = end - start;
  if ((range & (range - 1)) != 0)
    fail("arange's range must be a power of 2");
  TType type(DType::I32, {range});
  auto op = create<tile::MakeRangeOp>(
      mlir::cast<RankedTensorType>(type.toMLIR(context())),
      static_cast<int32_t>(start), static_cast<int32_t>(end));
  return wrap(op, type);
}

//===----------------------------------------------------------------------===//
// Promotion (Triton's computation_type_impl)
//===----------------------------------------------------------------------===//

static DType integerPromote(const DType &a, const DType &b) {
  // int1 counts as unsigned, as in Triton.
  unsigned ar = a.bitWidth(), br = b.bitWidth();
  bool as = a.isSignedInt(), bs = b.isSignedInt();
  if (as == bs)
    return ar > br ? a : b;
  if (!as)
    return ar >= br ? a : b;
  return br >= ar ? b : a;
}

DType Semantic::promoteIntegers(const DType &a, const DType &b) {
  return integerPromote(a, b);
}

DType Semantic::computationType(const DType &a, bool aIsScalar, const DType &b,
                                bool bIsScalar, bool divOrMod,
                                StringRef opName) {
  if (aIsScalar != bIsScalar) {
    const DType &scalar = aIsScalar ? a : b;
    const DType &tensor = aIsScalar ? b : a;
    if (scalar.kindRank() <= tensor.kindRank()) {
      if (divOrMod && (tensor.kind() == DType::FP16 || tensor.kind() == DType::BF16))
        return DType::FP32;
      return tensor;
    }
  }
  auto is = [&](DType::Kind k) { return a.kind() == k || b.kind() == k; };
  if (is(DType::FP64))
    return DType::FP64;
  if (is(DType::FP32))
    return DType::FP32;
  if (is(DType::FP16))
    return divOrMod ? DType::FP32 : DType::FP16;
  if (a.kind() == DType::BF16 && b.kind() == DType::BF16)
    return divOrMod ? DType::FP32 : DType::BF16;
  if (is(DType::BF16))
    return DType::FP32;
  if (a.isFP8() && b.isFP8())
    return a == b ? a : DType(DType::FP16);
  if (!a.isInt() || !b.isInt())
    fail("invalid operands of type " + a.str() + " and " + b.str() + " for " +
         opName.str());
  if (divOrMod && a.isSignedInt() != b.isSignedInt())
    fail("cannot use " + opName.str() + " with " + a.str() + " and " + b.str() +
         " because they have different signedness; this is unlikely to "
         "result in a useful answer. Cast them to the same signedness.");
  return integerPromote(a, b);
}

static void checkPointer(const DType &a, const DType &b, bool allowPtr,
                         StringRef opName) {
  if (!a.isPtr())
    return;
  if (!allowPtr || (b.isPtr() && a != b) || b.isFloat())
    fail("invalid operands of type " + a.str() + " and " + b.str() + " for " +
         opName.str());
}

std::pair<TValue, TValue>
Semantic::binaryOperands(const Operand &x, const Operand &y, bool allowLhsPtr,
                         bool allowRhsPtr, bool arithmeticCheck, bool divOrMod,
                         StringRef opName) {
  const PyNum *xn = std::get_if<PyNum>(&x);
  const PyNum *yn = std::get_if<PyNum>(&y);
  TValue lhs = toTensor(x), rhs = toTensor(y);
  DType ls = lhs.dtype(), rs = rhs.dtype();
  checkPointer(ls, rs, allowLhsPtr, opName);
  checkPointer(rs, ls, allowRhsPtr, opName);
  if (arithmeticCheck && !ls.isPtr() && !rs.isPtr()) {
    DType ret = computationType(ls, xn, rs, yn, divOrMod, opName);
    if (((xn && xn->isNegative()) || (yn && yn->isNegative())) &&
        ret.isUnsignedInt())
      fail("cannot perform a binary operation between an unsigned tensor and "
           "a negative scalar; perform an explicit cast on one of them");
    if (ret.isInt()) {
      for (const PyNum *n : {xn, yn})
        if (n && n->kind != PyNum::Float &&
            (n->i < ret.intMin() || n->i > ret.intMax()))
          fail("scalar " + numStr(*n) + " is out of range for type " + ret.str());
    }
    lhs = xn ? constant(*xn, ret) : cast(lhs, ret);
    rhs = yn ? constant(*yn, ret) : cast(rhs, ret);
  }
  return broadcastPair(lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

TValue Semantic::add(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, true, true, true, false, "+");
  if (lhs.dtype().isPtr() && rhs.dtype().isPtr())
    fail("cannot add pointers together");
  if (rhs.dtype().isPtr())
    std::swap(lhs, rhs);
  if (lhs.dtype().isPtr()) {
    if (rhs.dtype().isFloat())
      fail("invalid operands of type " + lhs.dtype().str() + " and " +
           rhs.dtype().str() + " for +");
    TValue offset = rhs;
    // addptr reads offsets as signed: zero-extend narrow unsigned ones.
    if (offset.dtype().isUnsignedInt() && offset.dtype().bitWidth() < 64)
      offset = intCast(offset, DType::I64, /*signExtend=*/false);
    return wrap(create<tile::AddPtrOp>(lhs.value.getType(), lhs.value,
                                       offset.value),
                lhs.type);
  }
  if (lhs.dtype().isFloat())
    return wrap(create<arith::AddFOp>(lhs.value, rhs.value), lhs.type);
  if (lhs.dtype().isInt())
    return wrap(create<arith::AddIOp>(lhs.value, rhs.value), lhs.type);
  fail("unexpected type " + lhs.dtype().str() + " for +");
}

TValue Semantic::sub(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, true, false, true, false, "-");
  if (lhs.dtype().isPtr())
    return add(lhs, minus(rhs));
  if (lhs.dtype().isFloat())
    return wrap(create<arith::SubFOp>(lhs.value, rhs.value), lhs.type);
  if (lhs.dtype().isInt())
    return wrap(create<arith::SubIOp>(lhs.value, rhs.value), lhs.type);
  fail("unexpected type " + lhs.dtype().str() + " for -");
}

TValue Semantic::mul(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, false, "*");
  if (lhs.dtype().isFloat())
    return wrap(create<arith::MulFOp>(lhs.value, rhs.value), lhs.type);
  if (lhs.dtype().isInt())
    return wrap(create<arith::MulIOp>(lhs.value, rhs.value), lhs.type);
  fail("unexpected type " + lhs.dtype().str() + " for *");
}

TValue Semantic::truediv(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, true, "/");
  const DType &l = lhs.dtype(), &r = rhs.dtype();
  if (l.isFloat() && r.isInt()) {
    rhs = cast(rhs, l);
  } else if (l.isInt() && r.isFloat()) {
    lhs = cast(lhs, r);
  } else if (l.isInt() && r.isInt()) {
    lhs = cast(lhs, DType::FP32);
    rhs = cast(rhs, DType::FP32);
  } else if (l.isFloat() && r.isFloat()) {
    if (l.mantissaWidth() > r.mantissaWidth())
      rhs = cast(rhs, l);
    else
      lhs = cast(lhs, r);
  } else {
    fail("unexpected type " + l.str() + " for /");
  }
  return wrap(create<arith::DivFOp>(lhs.value, rhs.value), lhs.type);
}

TValue Semantic::floordiv(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, true, "//");
  if (!lhs.dtype().isInt() || !rhs.dtype().isInt())
    fail("unexpected type " + lhs.dtype().str() + " for //");
  DType ret = integerPromote(lhs.dtype(), rhs.dtype());
  lhs = cast(lhs, ret);
  rhs = cast(rhs, ret);
  if (ret.isSignedInt())
    return wrap(create<arith::DivSIOp>(lhs.value, rhs.value), lhs.type);
  return wrap(create<arith::DivUIOp>(lhs.value, rhs.value), lhs.type);
}

TValue Semantic::mod(const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, true, "%");
  if (lhs.dtype().isFloat())
    return wrap(create<arith::RemFOp>(lhs.value, rhs.value), lhs.type);
  if (lhs.dtype().isInt()) {
    if (lhs.dtype().isSignedInt() != rhs.dtype().isSignedInt())
      fail("cannot mod " + lhs.dtype().str() + " by " + rhs.dtype().str() +
           " because they have different signedness; cast them to the same "
           "signedness");
    if (lhs.dtype().isSignedInt())
      return wrap(create<arith::RemSIOp>(lhs.value, rhs.value), lhs.type);
    return wrap(create<arith::RemUIOp>(lhs.value, rhs.value), lhs.type);
  }
  fail("unexpected type " + lhs.dtype().str() + " for %");
}

TValue Semantic::fdiv(const Operand &x, const Operand &y, bool ieeeRounding) {
  TValue lhs = toTensor(x), rhs = toTensor(y);
  if (!lhs.dtype().isFloat() || !rhs.dtype().isFloat())
    fail("both operands of fdiv must have floating scalar type");
  std::tie(lhs, rhs) = binaryOperands(lhs, rhs, false, false, false, true, "fdiv");
  if (ieeeRounding)
    return wrap(create<tile::PreciseDivFOp>(lhs.value, rhs.value), lhs.type);
  return wrap(create<arith::DivFOp>(lhs.value, rhs.value), lhs.type);
}

TValue Semantic::minimum(const Operand &x, const Operand &y, bool propagateNan) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, false, "minimum");
  const DType &d = lhs.dtype();
  if (d.isFloat()) {
    if (propagateNan)
      return wrap(create<arith::MinimumFOp>(lhs.value, rhs.value), lhs.type);
    return wrap(create<arith::MinNumFOp>(lhs.value, rhs.value), lhs.type);
  }
  if (d.isUnsignedInt() || d.isBool())
    return wrap(create<arith::MinUIOp>(lhs.value, rhs.value), lhs.type);
  if (d.isInt())
    return wrap(create<arith::MinSIOp>(lhs.value, rhs.value), lhs.type);
  fail("unexpected dtype " + d.str() + " for minimum");
}

TValue Semantic::maximum(const Operand &x, const Operand &y, bool propagateNan) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, false, "maximum");
  const DType &d = lhs.dtype();
  if (d.isFloat()) {
    if (propagateNan)
      return wrap(create<arith::MaximumFOp>(lhs.value, rhs.value), lhs.type);
    return wrap(create<arith::MaxNumFOp>(lhs.value, rhs.value), lhs.type);
  }
  if (d.isUnsignedInt() || d.isBool())
    return wrap(create<arith::MaxUIOp>(lhs.value, rhs.value), lhs.type);
  if (d.isInt())
    return wrap(create<arith::MaxSIOp>(lhs.value, rhs.value), lhs.type);
  fail("unexpected dtype " + d.str() + " for maximum");
}

TValue Semantic::clamp(const Operand &x, const Operand &lo, const Operand &hi,
                       bool propagateNan) {
  auto [mn, mx] = binaryOperands(lo, hi, false, false, true, false, "clamp");
  auto [v, mn2] = binaryOperands(x, mn, false, false, true, false, "clamp");
  auto [v2, mx2] = binaryOperands(v, mx, false, false, true, false, "clamp");
  // The bounds may need the final broadcast shape too.
  mn2 = broadcastTo(cast(mn2, v2.dtype()), v2.type.shape());
  if (!v2.dtype().isFloat())
    fail("unexpected dtype " + v2.dtype().str() +
         "; only floating-point clamp is supported");
  auto nan = propagateNan ? tile::PropagateNan::all : tile::PropagateNan::none;
  return wrap(create<tile::ClampFOp>(v2.value, mn2.value, mx2.value, nan),
              v2.type);
}

std::pair<TValue, TValue> Semantic::bitwiseOperands(const Operand &x,
                                                    const Operand &y,
                                                    StringRef opName) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, false, opName);
  if (!lhs.dtype().isInt() || !rhs.dtype().isInt())
    fail("invalid operands of type " + lhs.dtype().str() + " and " +
         rhs.dtype().str() + " for " + opName.str());
  DType ret = integerPromote(lhs.dtype(), rhs.dtype());
  return {cast(lhs, ret), cast(rhs, ret)};
}

template <typename OpTy>
TValue Semantic::bitwise(const Operand &x, const Operand &y, StringRef opName) {
  auto [l, r] = bitwiseOperands(x, y, opName);
  return wrap(create<OpTy>(l.value, r.value), l.type);
}

TValue Semantic::bitAnd(const Operand &x, const Operand &y) {
  return bitwise<arith::AndIOp>(x, y, "&");
}
TValue Semantic::bitOr(const Operand &x, const Operand &y) {
  return bitwise<arith::OrIOp>(x, y, "|");
}
TValue Semantic::bitXor(const Operand &x, const Operand &y) {
  return bitwise<arith::XOrIOp>(x, y, "^");
}
TValue Semantic::shl(const Operand &x, const Operand &y) {
  return bitwise<arith::ShLIOp>(x, y, "<<");
}
TValue Semantic::lshr(const Operand &x, const Operand &y) {
  return bitwise<arith::ShRUIOp>(x, y, ">>");
}
TValue Semantic::ashr(const Operand &x, const Operand &y) {
  return bitwise<arith::ShRSIOp>(x, y, ">>");
}
TValue Semantic::shr(const Operand &x, const Operand &y) {
  TValue lhs = toTensor(x);
  if (lhs.dtype().isSignedInt())
    return ashr(x, y);
  return lshr(x, y);
}

// Triton's logical ops take booleans, bitcasting anything else to i1 (which
// fails, with Triton's message, for wider types).
TValue Semantic::asBool(const TValue &x) {
  return x.dtype().isBool() ? x : bitcast(x, DType::I1);
}
TValue Semantic::logicalAnd(const TValue &x, const TValue &y) {
  return bitAnd(asBool(x), asBool(y));
}
TValue Semantic::logicalOr(const TValue &x, const TValue &y) {
  return bitOr(asBool(x), asBool(y));
}
TValue Semantic::logicalNot(const TValue &x) { return invert(asBool(x)); }

TValue Semantic::minus(const TValue &x) {
  if (x.dtype().isPtr())
    fail("wrong type argument to unary minus (" + x.dtype().str() + ")");
  TValue zero = wrap(zeroLike(x.dtype()), x.dtype());
  return sub(zero, x);
}

TValue Semantic::invert(const TValue &x) {
  if (x.dtype().isPtr() || x.dtype().isFloat())
    fail("wrong type argument to unary invert (" + x.dtype().str() + ")");
  TValue ones = wrap(allOnesLike(x.dtype()), x.dtype());
  return bitXor(x, ones);
}

TValue Semantic::compare(StringRef pred, const Operand &x, const Operand &y) {
  auto [lhs, rhs] = binaryOperands(x, y, false, false, true, false, pred);
  const DType &d = lhs.dtype();
  TType result = lhs.type.withScalar(DType::I1);
  if (d.isFloat()) {
    auto p = llvm::StringSwitch<arith::CmpFPredicate>(pred)
                 .Case("<", arith::CmpFPredicate::OLT)
                 .Case("<=", arith::CmpFPredicate::OLE)
                 .Case(">", arith::CmpFPredicate::OGT)
                 .Case(">=", arith::CmpFPredicate::OGE)
                 .Case("==", arith::CmpFPredicate::OEQ)
                 .Default(arith::CmpFPredicate::UNE);
    return wrap(create<arith::CmpFOp>(p, lhs.value, rhs.value), result);
  }
  if (d.isInt()) {
    bool u = d.isUnsignedInt() || d.isBool();
    auto p = llvm::StringSwitch<arith::CmpIPredicate>(pred)
                 .Case("<", u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
                 .Case("<=", u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
                 .Case(">", u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                 .Case(">=", u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
                 .Case("==", arith::CmpIPredicate::eq)
                 .Default(arith::CmpIPredicate::ne);
    return wrap(create<arith::CmpIOp>(p, lhs.value, rhs.value), result);
  }
  fail("unexpected type " + d.str() + " for " + pred.str());
}

TValue Semantic::where(const Operand &c, const Operand &x, const Operand &y) {
  TValue cond = cast(toTensor(c), DType::I1);
  auto [lhs, rhs] = binaryOperands(x, y, true, true, true, false, "where");
  if (cond.type.isBlock()) {
    std::tie(cond, lhs) = broadcastPair(cond, lhs);
    std::tie(lhs, rhs) = broadcastPair(lhs, rhs);
    std::tie(cond, lhs) = broadcastPair(cond, lhs);
  } else {
    std::tie(cond, lhs) = broadcastPair(cond, lhs);
  }
  return wrap(create<arith::SelectOp>(cond.value, lhs.value, rhs.value),
              lhs.type);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

TValue Semantic::intCast(const TValue &x, const DType &dtype, bool signExtend) {
  TType dst = x.type.withScalar(dtype);
  unsigned from = x.dtype().bitWidth(), to = dtype.bitWidth();
  Type t = dst.toMLIR(context());
  if (from == to)
    return wrap(x.value, dst);
  if (to > from) {
    if (signExtend)
      return wrap(create<arith::ExtSIOp>(t, x.value), dst);
    return wrap(create<arith::ExtUIOp>(t, x.value), dst);
  }
  return wrap(create<arith::TruncIOp>(t, x.value), dst);
}

TValue Semantic::cast(const TValue &x, const DType &dtype,
                      std::optional<std::string> rounding) {
  const DType &src = x.dtype();
  if (src == dtype)
    return x;
  TType dst = x.type.withScalar(dtype);
  Type dstTy = dst.toMLIR(context());

  std::optional<tile::RoundingMode> mode;
  if (rounding) {
    if (*rounding == "rtne")
      mode = tile::RoundingMode::rtne;
    else if (*rounding == "rtz")
      mode = tile::RoundingMode::rtz;
    else
      fail("invalid rounding mode: " + *rounding +
           "; supported rounding modes are 'rtne' and 'rtz'");
  }
  bool customRounding = false;
  if (src.isFloat() && dtype.isFloat() && dtype.bitWidth() < src.bitWidth()) {
    if (!mode)
      mode = tile::RoundingMode::rtne;
    else if (*mode != tile::RoundingMode::rtne)
      customRounding = true;
  } else if (mode) {
    fail("fp_downcast_rounding should be set only for truncating fp "
         "conversions; source scalar type is " + src.str() +
         " and destination type is " + dtype.str());
  }

  if ((src.isFP8() && dtype.isFloat()) || (src.isFloat() && dtype.isFP8()) ||
      customRounding) {
    tile::RoundingModeAttr attr;
    if (mode && dtype.bitWidth() <= src.bitWidth())
      attr = tile::RoundingModeAttr::get(context(), *mode);
    return wrap(create<tile::FpToFpOp>(dstTy, x.value, attr), dst);
  }
  if ((src.kind() == DType::FP16 && dtype.kind() != DType::FP32 && dtype.isFloat()) ||
      (src.kind() == DType::BF16 && dtype.kind() != DType::FP32 && dtype.isFloat()))
    return cast(cast(x, DType::FP32), dtype);
  if (src.isFloat() && dtype.isFloat()) {
    if (src.bitWidth() > dtype.bitWidth())
      return wrap(create<arith::TruncFOp>(dstTy, x.value), dst);
    return wrap(create<arith::ExtFOp>(dstTy, x.value), dst);
  }
  if (src.isInt() && dtype.isInt()) {
    if (dtype.isBool())
      return compare("!=", x, wrap(zeroLike(x.type), x.type));
    return intCast(x, dtype, src.isSignedInt());
  }
  if (src.isFloat() && dtype.isInt()) {
    if (src.isFP8())
      return cast(cast(x, DType::FP32), dtype);
    if (dtype.isBool())
      return compare("!=", x, wrap(zeroLike(x.type), x.type));
    if (dtype.isSignedInt())
      return wrap(create<arith::FPToSIOp>(dstTy, x.value), dst);
    return wrap(create<arith::FPToUIOp>(dstTy, x.value), dst);
  }
  if (src.isInt() && dtype.isFloat()) {
    if (dtype.isFP8())
      return cast(cast(x, DType::FP32), dtype);
    if (src.isBool() || src.isUnsignedInt())
      return wrap(create<arith::UIToFPOp>(dstTy, x.value), dst);
    return wrap(create<arith::SIToFPOp>(dstTy, x.value), dst);
  }
  if (src.isPtr() && dtype.isInt()) {
    if (dtype.bitWidth() == 64)
      return wrap(create<tile::PtrToIntOp>(dstTy, x.value), dst);
    if (dtype.isBool()) {
      TValue asInt = cast(x, DType::I64);
      return compare("!=", asInt, wrap(zeroLike(asInt.type), asInt.type));
    }
  }
  if (src.isInt() && dtype.isPtr()) {
    TValue wide = intCast(x, DType::I64, src.isSignedInt());
    return wrap(create<tile::IntToPtrOp>(dstTy, wide.value), dst);
  }
  if (src.isPtr() && dtype.isPtr())
    return wrap(create<tile::BitcastOp>(dstTy, x.value), dst);
  fail("cannot cast " + x.type.str() + " to " + dtype.str());
}

TValue Semantic::bitcast(const TValue &x, const DType &dtype) {
  const DType &src = x.dtype();
  TType dst = x.type.withScalar(dtype);
  if (src == dtype)
    return x;
  if (src.isPtr() || dtype.isPtr())
    return cast(x, dtype);
  if (src.bitWidth() != dtype.bitWidth())
    fail("cannot bitcast data-type of size " + std::to_string(src.bitWidth()) +
         " to data-type of size " + std::to_string(dtype.bitWidth()));
  if (src.isInt() && dtype.isInt())
    return wrap(x.value, dst);
  return wrap(create<tile::BitcastOp>(dst.toMLIR(context()), x.value), dst);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

TValue Semantic::splat(const TValue &x, ArrayRef<int64_t> shape) {
  if (x.type.isBlock())
    fail("cannot splat a block tensor");
  if (shape.empty())
    return x;
  TType type(x.dtype(), shape);
  return wrap(create<tile::SplatOp>(type.toMLIR(context()), x.value), type);
}

TValue Semantic::broadcastTo(const TValue &x, ArrayRef<int64_t> shape) {
  if (!x.type.isBlock())
    return splat(x, shape);
  ArrayRef<int64_t> src = x.type.shape();
  if (src.size() != shape.size())
    fail("cannot broadcast, rank mismatch: " + shapeStr(src) + ", " +
         shapeStr(shape));
  if (src == shape)
    return x;
  for (size_t i = 0; i < src.size(); ++i)
    if (shape[i] != src[i] && src[i] != 1)
      fail("cannot broadcast, the expanded size of the tensor (" +
           std::to_string(shape[i]) + ") must match the existing size (" +
           std::to_string(src[i]) + ") at non-singleton dimension " +
           std::to_string(i) + ": " + shapeStr(src) + ", " + shapeStr(shape));
  TType type(x.dtype(), shape);
  return wrap(create<tile::BroadcastOp>(type.toMLIR(context()), x.value), type);
}

std::pair<TValue, TValue> Semantic::broadcastPair(TValue x, TValue y) {
  bool xb = x.type.isBlock(), yb = y.type.isBlock();
  if (xb && !yb)
    return {x, splat(y, x.type.shape())};
  if (!xb && yb)
    return {splat(x, y.type.shape()), y};
  if (!xb && !yb)
    return {x, y};
  while (x.type.shape().size() < y.type.shape().size())
    x = expandDims(x, 0);
  while (y.type.shape().size() < x.type.shape().size())
    y = expandDims(y, 0);
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < x.type.shape().size(); ++i) {
    int64_t l = x.type.shape()[i], r = y.type.shape()[i];
    if (l == 1)
      shape.push_back(r);
    else if (r == 1 || r == l)
      shape.push_back(l);
    else
      fail("incompatible shapes " + shapeStr(x.type.shape()) + " and " +
           shapeStr(y.type.shape()) + ": dimension " + std::to_string(i) +
           " is " + std::to_string(l) + " and " + std::to_string(r));
  }
  return {broadcastTo(x, shape), broadcastTo(y, shape)};
}

TValue Semantic::reshape(const TValue &x, ArrayRef<int64_t> shape,
                         bool canReorder) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      fail("reshape() dimensions must be positive, got " + shapeStr(shape));
    n *= d;
  }
  if (x.type.numel() != n)
    fail("reshape() cannot change total number of elements in tensor: " +
         shapeStr(x.type.shape()) + " to " + shapeStr(shape));
  if (shape.empty() || (!x.type.isBlock()))
    fail("reshape() needs a tensor and a non-empty shape");
  TType type(x.dtype(), shape);
  return wrap(create<tile::ReshapeOp>(type.toMLIR(context()), x.value, canReorder),
              type);
}

TValue Semantic::expandDims(const TValue &x, int64_t axis) {
  SmallVector<int64_t> shape(x.type.shape());
  int64_t rank = static_cast<int64_t>(shape.size());
  if (axis < 0)
    axis += rank + 1;
  if (axis < 0 || axis > rank)
    fail("expand_dims axis " + std::to_string(axis) +
         " is out of range for a tensor of rank " + std::to_string(rank));
  shape.insert(shape.begin() + axis, 1);
  if (!x.type.isBlock())
    return splat(x, shape);
  TType type(x.dtype(), shape);
  return wrap(create<tile::ExpandDimsOp>(type.toMLIR(context()), x.value,
                                         static_cast<int32_t>(axis)),
              type);
}

TValue Semantic::permute(const TValue &x, ArrayRef<int64_t> dims) {
  ArrayRef<int64_t> shape = x.type.shape();
  if (shape.size() != dims.size())
    fail("permute dims must have the same length as input shape");
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      fail("permute dims must be a permutation of 0, 1, ..., n-1, but were " +
           shapeStr(dims));
  SmallVector<int64_t> out;
  SmallVector<int32_t> order;
  for (int64_t d : dims) {
    out.push_back(shape[d]);
    order.push_back(static_cast<int32_t>(d));
  }
  TType type(x.dtype(), out);
  return wrap(create<tile::TransOp>(type.toMLIR(context()), x.value, order), type);
}

TValue Semantic::cat(const TValue &x, const TValue &y, bool canReorder) {
  if (!canReorder)
    fail("current implementation of `cat` always may reorder elements");
  if (x.type.shape().size() != 1 || y.type.shape().size() != 1)
    fail("tl.cat expects 1-D tensors, got " + x.type.str() + " and " +
         y.type.str());
  if (x.dtype() != y.dtype())
    fail("tl.cat expects tensors of one dtype, got " + x.dtype().str() +
         " and " + y.dtype().str());
  TType type(x.dtype(), {x.type.shape()[0] + y.type.shape()[0]});
  return wrap(create<tile::CatOp>(type.toMLIR(context()), x.value, y.value), type);
}

TValue Semantic::join(TValue x, TValue y) {
  std::tie(x, y) = broadcastPair(x, y);
  if (x.dtype() != y.dtype())
    fail("tl.join expects tensors of one dtype, got " + x.dtype().str() +
         " and " + y.dtype().str());
  bool scalar = !x.type.isBlock();
  if (scalar) {
    x = expandDims(x, 0);
    y = expandDims(y, 0);
  }
  SmallVector<int64_t> shape(x.type.shape());
  shape.push_back(2);
  TType type(x.dtype(), shape);
  TValue r = wrap(create<tile::JoinOp>(type.toMLIR(context()), x.value, y.value), type);
  if (scalar)
    r = reshape(r, {2}, false);
  return r;
}

std::pair<TValue, TValue> Semantic::split(const TValue &x) {
  ArrayRef<int64_t> shape = x.type.shape();
  if (shape.empty() || shape.back() != 2)
    fail("tl.split expects a tensor whose last dimension is 2, got " +
         x.type.str());
  if (shape.size() == 1) {
    // The IR splits tensors of rank 2 or more; a [2] tensor goes through [1, 2].
    auto [a, b2] = split(reshape(x, {1, 2}, false));
    return {reshape(a, {1}, false), reshape(b2, {1}, false)};
  }
  TType half(x.dtype(), shape.drop_back());
  auto op = create<tile::SplitOp>(x.value);
  return {wrap(op.getOutLHS(), half), wrap(op.getOutRHS(), half)};
}

TValue Semantic::gather(const TValue &src, const TValue &index, int64_t axis) {
  if (!index.dtype().isInt())
    fail("index must be an integer tensor");
  int64_t rank = static_cast<int64_t>(src.type.shape().size());
  if (static_cast<int64_t>(index.type.shape().size()) != rank)
    fail("source and index tensors must have the same rank");
  if (axis < -rank || axis >= rank)
    fail("gather axis " + std::to_string(axis) + " must be < source rank (" +
         std::to_string(rank) + ")");
  if (axis < 0)
    axis += rank;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && index.type.shape()[d] != src.type.shape()[d])
      fail("index dim " + std::to_string(d) +
           " must match the corresponding source dim");
  TType type(src.dtype(), index.type.shape());
  return wrap(create<tile::GatherOp>(type.toMLIR(context()), src.value,
                                     index.value, static_cast<int32_t>(axis)),
              type);
}
