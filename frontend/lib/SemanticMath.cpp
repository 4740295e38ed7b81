//===- SemanticMath.cpp - Triton's dot, math and debugging ops ------------===//
#include "tegula/Frontend/Semantic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
[[noreturn]] void fail(const std::string &message) { throw SemanticError(message); }

/// Triton's _check_dtype: math functions take only the listed dtypes.
void checkDtype(const TValue &x, std::initializer_list<const char *> names) {
  std::string name = x.dtype().str();
  for (const char *n : names)
    if (name == n)
      return;
  std::string list = "[";
  bool first = true;
  for (const char *n : names) {
    list += (first ? "'" : ", '") + std::string(n) + "'";
    first = false;
  }
  fail("expected dtype " + list + "] but got " + name);
}
} // namespace

TValue Semantic::dot(const TValue &a, const TValue &bIn, std::optional<TValue> acc,
                     StringRef inputPrecision,
                     std::optional<int64_t> maxImpreciseAcc, const DType &outDtype) {
  TValue lhs = a, rhs = bIn;
  if (!lhs.type.isBlock() || !rhs.type.isBlock())
    fail("tl.dot expects tensor operands, got " + lhs.type.str() + " and " +
         rhs.type.str());
  const DType &ld = lhs.dtype(), &rd = rhs.dtype();
  if (!(ld.isFP8() && rd.isFP8())) {
    auto ok = [](const DType &d) {
      return d.kind() == DType::I8 || d.kind() == DType::U8 ||
             d.kind() == DType::FP16 || d.kind() == DType::BF16 ||
             d.kind() == DType::FP32 || d.kind() == DType::FP64;
    };
    if (!ok(ld))
      fail("unsupported lhs dtype " + ld.str() + " for tl.dot");
    if (!ok(rd))
      fail("unsupported rhs dtype " + rd.str() + " for tl.dot");
    if (ld != rd)
      fail("both operands of tl.dot must have the same dtype, got " + ld.str() +
           " and " + rd.str());
  }
  size_t lr = lhs.type.shape().size(), rr = rhs.type.shape().size();
  if (!((lr == 2 && rr == 2) || (lr == 3 && rr == 3)))
    fail("tl.dot expects 2-D operands (or 3-D with a batch dimension), got " +
         shapeStr(lhs.type.shape()) + " and " + shapeStr(rhs.type.shape()));
  int64_t k = lhs.type.shape().back(), k2 = rhs.type.shape()[rr - 2];
  if (k != k2)
    fail("first input shape (" + shapeStr(lhs.type.shape()) +
         ") and second input shape " + shapeStr(rhs.type.shape()) +
         " are not compatible for matmul (second index of first shape (" +
         std::to_string(k) + ") must be equal to first index of second shape (" +
         std::to_string(k2) + "))");
  if (lr == 3 && lhs.type.shape()[0] != rhs.type.shape()[0])
    fail("tl.dot batch dimensions differ: " + shapeStr(lhs.type.shape()) +
         " and " + shapeStr(rhs.type.shape()));
  int64_t m = lhs.type.shape()[lr - 2], n = rhs.type.shape().back();
  int64_t minK = ld.bitWidth() == 8 ? 32 : 16;
  if (m < 16 || n < 16 || k < minK)
    fail("input shapes should have M >= 16, N >= 16 and K >= " +
         std::to_string(minK) + ", got M=" +
         std::to_string(m) + ", N=" + std::to_string(n) + ", K=" +
         std::to_string(k));

  std::string prec = inputPrecision.empty() ? "tf32" : inputPrecision.lower();
  tile::InputPrecision precision;
  if (prec == "ieee")
    precision = tile::InputPrecision::ieee;
  else if (prec == "tf32")
    precision = tile::InputPrecision::tf32;
  else if (prec == "tf32x3")
    precision = tile::InputPrecision::tf32x3;
  else
    fail("input_precision must be one of ('tf32', 'tf32x3', 'ieee'), got " +
         inputPrecision.str());
  // TF32 only concerns f32 inputs; other inputs multiply exactly.
  if (ld.kind() != DType::FP32)
    precision = tile::InputPrecision::ieee;

  DType ret;
  if (ld.isInt()) {
    if (ld.kind() != DType::I8)
      fail("only int8 supported for integer tl.dot");
    ret = DType::I32;
  } else if (outDtype.kind() == DType::BF16) {
    fail("out_dtype=bfloat16 is unsupported; use out_dtype=float32/float16 "
         "and cast with `.to(tl.bfloat16)`");
  } else if (ld.kind() == DType::FP32 || ld.kind() == DType::BF16) {
    ret = DType::FP32;
  } else if (ld.kind() == DType::FP64) {
    ret = DType::FP64;
  } else {
    ret = outDtype;
  }
  SmallVector<int64_t> shape;
  if (lr == 3)
    shape.push_back(lhs.type.shape()[0]);
  shape.append({m, n});
  TType retTy(ret, shape);
  TValue c;
  if (acc) {
    if (acc->type.shape() != retTy.shape())
      fail("accumulator shape " + shapeStr(acc->type.shape()) +
           " does not match the dot's " + shapeStr(retTy.shape()));
    if (acc->dtype() != outDtype && !(ld.isInt() && acc->dtype() == ret))
      fail("accumulator dtype " + acc->dtype().str() +
           " does not match out_dtype " + outDtype.str());
    c = cast(*acc, ret);
  } else {
    c = full(shape, PyNum::ofInt(0), ret);
  }
  int64_t imprecise = 0;
  if (maxImpreciseAcc) {
    if (ld.isFP8() && rd.isFP8() && *maxImpreciseAcc > k)
      fail("max_num_imprecise_acc (" + std::to_string(*maxImpreciseAcc) +
           ") must be <= K (" + std::to_string(k) + ")");
    imprecise = *maxImpreciseAcc;
  }
  auto op = create<tile::DotOp>(retTy.toMLIR(context()), lhs.value, rhs.value,
                                c.value, precision,
                                static_cast<uint32_t>(imprecise));
  return wrap(op, retTy);
}

TValue Semantic::unaryMath(StringRef name, const TValue &x) {
  Value v = x.value;
  auto floatOnly = [&] { checkDtype(x, {"fp32", "fp64"}); };
  if (name == "abs") {
    if (x.dtype().isFloat())
      return wrap(create<math::AbsFOp>(v), x.type);
    if (x.dtype().isSignedInt())
      return wrap(create<math::AbsIOp>(v), x.type);
    if (x.dtype().isInt())
      return x;
    fail("unexpected dtype " + x.dtype().str() + " for abs");
  }
  if (name == "sqrt_rn") {
    checkDtype(x, {"fp32"});
    return wrap(create<tile::PreciseSqrtOp>(v), x.type);
  }
  floatOnly();
  if (name == "exp") return wrap(create<math::ExpOp>(v), x.type);
  if (name == "exp2") return wrap(create<math::Exp2Op>(v), x.type);
  if (name == "log") return wrap(create<math::LogOp>(v), x.type);
  if (name == "log2") return wrap(create<math::Log2Op>(v), x.type);
  if (name == "sin") return wrap(create<math::SinOp>(v), x.type);
  if (name == "cos") return wrap(create<math::CosOp>(v), x.type);
  if (name == "sqrt") return wrap(create<math::SqrtOp>(v), x.type);
  if (name == "rsqrt") return wrap(create<math::RsqrtOp>(v), x.type);
  if (name == "erf") return wrap(create<math::ErfOp>(v), x.type);
  if (name == "floor") return wrap(create<math::FloorOp>(v), x.type);
  if (name == "ceil") return wrap(create<math::CeilOp>(v), x.type);
  if (name == "log1p") return wrap(create<math::Log1pOp>(v), x.type);
  if (name == "tanh") return wrap(create<math::TanhOp>(v), x.type);
  fail("tl." + name.str() + " is not supported yet");
}

TValue Semantic::fma(const Operand &x, const Operand &y, const Operand &z) {
  auto [xv, yv] = broadcastPair(toTensor(x), toTensor(y));
  TValue zv = toTensor(z);
  std::tie(zv, xv) = broadcastPair(zv, xv);
  std::tie(zv, yv) = broadcastPair(zv, yv);
  std::tie(xv, yv) = broadcastPair(xv, yv);
  if (!xv.dtype().isFloat() || xv.dtype() != yv.dtype() || xv.dtype() != zv.dtype())
    fail("tl.fma expects floating-point operands of one dtype, got " +
         xv.dtype().str() + ", " + yv.dtype().str() + " and " + zv.dtype().str());
  return wrap(create<math::FmaOp>(xv.value, yv.value, zv.value), xv.type);
}

TValue Semantic::umulhi(const Operand &x, const Operand &y) {
  TValue xv = toTensor(x), yv = toTensor(y);
  checkDtype(xv, {"int32", "int64", "uint32", "uint64"});
  checkDtype(yv, {"int32", "int64", "uint32", "uint64"});
  auto [l, r] = binaryOperands(xv, yv, false, false, true, false, "umulhi");
  return wrap(create<tile::UMulHiOp>(l.value, r.value), l.type);
}

std::vector<TValue> Semantic::inlineAsm(llvm::StringRef asmText,
                                        llvm::StringRef constraints,
                                        llvm::ArrayRef<Operand> args,
                                        llvm::ArrayRef<DType> dtypes, bool pure,
                                        int64_t pack) {
  if (pack < 1 || pack > std::numeric_limits<int32_t>::max())
    fail("tl.inline_asm_elementwise: pack must be a positive integer, got " +
         std::to_string(pack));
  if (dtypes.empty())
    fail("tl.inline_asm_elementwise: dtype must name at least one result dtype");
  // As Triton: every argument broadcast against the others, no promotion.
  std::vector<TValue> values;
  std::optional<TValue> shaped;
  for (const Operand &a : args) {
    values.push_back(toTensor(a));
    if (values.back().type.isBlock())
      shaped = shaped ? broadcastPair(*shaped, values.back()).first
                      : values.back();
  }
  if (!shaped)
    fail("tl.inline_asm_elementwise: at least one argument must be a tensor "
         "(the results take its shape)");
  llvm::SmallVector<mlir::Value> operands;
  for (TValue &v : values)
    operands.push_back(broadcastTo(v, shaped->type.shape()).value);
  std::vector<TType> types;
  llvm::SmallVector<mlir::Type> mlirTypes;
  for (const DType &d : dtypes) {
    if (d.isPtr() || d.isVoid())
      fail("tl.inline_asm_elementwise: results must be numbers, got " + d.str());
    types.push_back(shaped->type.withScalar(d));
    mlirTypes.push_back(types.back().toMLIR(context()));
  }
  auto op = create<tile::ElementwiseInlineAsmOp>(
      mlirTypes, asmText, constraints, pure, static_cast<uint32_t>(pack),
      operands);
  std::vector<TValue> results;
  for (auto [value, type] : llvm::zip(op.getResult(), types))
    results.push_back(wrap(value, type));
  return results;
}

TValue Semantic::histogram(const TValue &x, int64_t numBins,
                           std::optional<TValue> mask) {
  if (x.type.shape().size() != 1)
    fail("histogram only supports 1D input");
  if (!x.dtype().isInt())
    fail("histogram only supports integer input");
  if (numBins <= 0)
    fail("histogram needs a positive number of bins, got " + std::to_string(numBins));
  Value m;
  if (mask) {
    TValue mv = broadcastTo(*mask, x.type.shape());
    if (!mv.dtype().isBool())
      fail("mask must have boolean scalar type");
    m = mv.value;
  }
  TType type(DType::I32, {numBins});
  return wrap(create<tile::HistogramOp>(type.toMLIR(context()), x.value, m), type);
}

void Semantic::devicePrint(StringRef prefixIn, ArrayRef<TValue> args, bool hex) {
  std::string prefix = prefixIn.str();
  if (!args.empty()) {
    if (prefix.empty() || prefix.back() != ' ')
      prefix += " ";
    if (prefix.size() < 2 || prefix.substr(prefix.size() - 2) != ": ")
      prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  }
  if (prefix.size() > 2 && prefix.front() != ' ')
    prefix = " " + prefix;
  SmallVector<Value> values;
  SmallVector<int32_t> isSigned;
  for (const TValue &a : args) {
    values.push_back(a.value);
    isSigned.push_back(a.dtype().isSignedInt() ? 1 : 0);
  }
  create<tile::PrintOp>(prefix, hex, values, isSigned);
}

void Semantic::deviceAssert(const TValue &condIn, StringRef message,
                            std::optional<TValue> mask) {
  TValue cond = condIn;
  if (!cond.dtype().isBool())
    cond = cast(cond, DType::I1);
  if (mask)
    cond = bitOr(cond, logicalNot(*mask));
  create<tile::AssertOp>(cond.value, message);
}

void Semantic::debugBarrier() { create<tile::DebugBarrierOp>(); }

TValue Semantic::annotate(const TValue &x, StringRef attr,
                          ArrayRef<int64_t> values) {
  size_t rank = x.type.shape().size();
  if (std::max<size_t>(1, rank) != values.size())
    fail("shape of input to " + attr.drop_front(5).str() +
         " does not match the length of values");
  // Triton takes any positive value. The tile dialect keeps powers of 2:
  // the largest one dividing |v| still holds (divisible by 48 is divisible
  // by 16; runs of 12 starting at multiples of 12 are runs of 4), and no
  // run along a dimension is longer than the dimension.
  std::vector<int64_t> kept;
  for (size_t d = 0; d < values.size(); ++d) {
    int64_t v = values[d];
    if (v <= 0)
      fail("values of " + attr.drop_front(5).str() + " must be positive, got " +
           std::to_string(v));
    int64_t pow2 = v & -v;
    if (rank != 0 && attr != "tile.divisibility")
      pow2 = std::min(pow2, x.type.shape()[d]);
    kept.push_back(pow2);
  }
  if (!x.dtype().isPtr() && !(x.dtype().isInt() && x.dtype().bitWidth() >= 32))
    return x;
  Attribute value = rank == 0 ? Attribute(b.getI64IntegerAttr(kept[0]))
                              : Attribute(b.getDenseI64ArrayAttr(kept));
  if (auto arg = dyn_cast<BlockArgument>(x.value)) {
    // A kernel argument: the hint becomes an argument attribute. Other block
    // arguments (loop-carried values) cannot carry one and keep none.
    auto func = dyn_cast<tile::FuncOp>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock())
      func.setArgAttr(arg.getArgNumber(), attr, value);
    return x;
  }
  Operation *def = x.value.getDefiningOp();
  if (def && def->getNumResults() == 1)
    def->setAttr(attr, value);
  return x;
}
