//===- SemanticLibdevice.cpp - Triton's libdevice functions ---------------===//
//
// `tl.extra.libdevice` (and `tl.extra.cuda.libdevice`, `.hip.libdevice`):
// Triton's names, argument dtypes and result dtypes, decided here once for
// every target. Triton calls CUDA's libdevice (or ROCm's ocml) for them;
// Tegula builds each from math, arith and tile ops, which every backend
// lowers (transcendental functions as the kit's polynomials on GPUs, libm
// on the host for fp64). Functions whose exact semantics need more than
// that (directed roundings, Bessel and gamma functions, ...) are listed
// but refused with a located "not supported yet".
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Semantic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
[[noreturn]] void fail(const std::string &message) { throw SemanticError(message); }

/// One libdevice function: its signatures as Triton lists them, each
/// "<argument codes>><result code>" with f fp32, d fp64, i int32,
/// u uint32, l int64, L uint64, b int1 (e.g. "ff>f"), separated by spaces;
/// |supported| false for the names Tegula refuses.
struct LibdeviceFunction {
  const char *name;
  const char *signatures;
  bool supported;
};

// clang-format off
const LibdeviceFunction kFunctions[] = {
    // Integer bit operations.
    {"clz", "i>i l>i", true}, {"popc", "i>i l>i", true},
    {"ffs", "i>i l>i", true}, {"brev", "i>i l>l", false},
    {"byte_perm", "iii>i", false},
    {"mulhi", "ii>i uu>u ll>l LL>L", true},
    {"mul24", "ii>i uu>u", false},
    {"sad", "iiu>i uuu>u", true},
    {"hadd", "ii>i uu>u", true}, {"rhadd", "ii>i uu>u", true},
    // Elementwise float math.
    {"abs", "i>i l>l f>f d>d", true},
    {"floor", "f>f d>d", true}, {"ceil", "d>d f>f", true},
    {"trunc", "d>d f>f", true}, {"rint", "f>f d>d", true},
    {"nearbyint", "f>f d>d", true}, {"round", "f>f d>d", true},
    {"llrint", "f>l d>l", true}, {"llround", "f>l d>l", true},
    {"rcp64h", "d>d", false},
    {"rsqrt", "f>f d>d", true}, {"rsqrt_rn", "f>f", true},
    {"sqrt", "f>f d>d", true},
    {"sqrt_rn", "f>f d>d", true}, {"sqrt_rz", "f>f d>d", false},
    {"sqrt_rd", "f>f d>d", false}, {"sqrt_ru", "f>f d>d", false},
    {"exp", "f>f d>d", true}, {"exp2", "f>f d>d", true},
    {"exp10", "f>f d>d", true}, {"expm1", "f>f d>d", true},
    {"log", "f>f d>d", true}, {"log2", "f>f d>d", true},
    {"log10", "f>f d>d", true}, {"log1p", "f>f d>d", true},
    {"sin", "f>f d>d", true}, {"cos", "f>f d>d", true},
    {"tan", "f>f d>d", true}, {"sinpi", "f>f d>d", true},
    {"cospi", "f>f d>d", true},
    {"asin", "f>f d>d", true}, {"acos", "f>f d>d", true},
    {"atan", "f>f d>d", true}, {"atan2", "ff>f dd>d", true},
    {"sinh", "f>f d>d", true}, {"cosh", "f>f d>d", true},
    {"tanh", "f>f d>d", true},
    {"asinh", "f>f d>d", true}, {"acosh", "f>f d>d", true},
    {"atanh", "f>f d>d", true},
    {"cbrt", "f>f d>d", true}, {"rcbrt", "f>f d>d", true},
    {"hypot", "ff>f dd>d", true}, {"rhypot", "ff>f dd>d", true},
    {"norm3d", "fff>f ddd>d", true}, {"rnorm3d", "fff>f ddd>d", true},
    {"norm4d", "ffff>f dddd>d", true}, {"rnorm4d", "ffff>f dddd>d", true},
    {"erf", "f>f d>d", true}, {"erfc", "f>f d>d", true},
    {"erfinv", "f>f d>d", false}, {"erfcx", "f>f d>d", false},
    {"erfcinv", "f>f d>d", false},
    {"normcdf", "f>f d>d", true}, {"normcdfinv", "f>f d>d", false},
    {"lgamma", "f>f d>d", false}, {"tgamma", "f>f d>d", false},
    {"j0", "f>f d>d", false}, {"j1", "f>f d>d", false},
    {"y0", "f>f d>d", false}, {"y1", "f>f d>d", false},
    {"jn", "if>f id>d", false}, {"yn", "if>f id>d", false},
    {"cyl_bessel_i0", "f>f d>d", false}, {"cyl_bessel_i1", "f>f d>d", false},
    {"pow", "fi>f di>d ff>f dd>d", true},
    {"fmod", "ff>f dd>d", true}, {"remainder", "ff>f dd>d", false},
    {"fdim", "ff>f dd>d", true}, {"copysign", "ff>f dd>d", true},
    {"nextafter", "ff>f dd>d", false},
    {"fma", "fff>f ddd>d", true}, {"fma_rn", "fff>f ddd>d", true},
    {"fma_rz", "fff>f ddd>d", false}, {"fma_rd", "fff>f ddd>d", false},
    {"fma_ru", "fff>f ddd>d", false},
    {"ldexp", "fi>f di>d", true}, {"scalbn", "fi>f di>d", true},
    {"ilogb", "f>i d>i", false}, {"logb", "f>f d>d", false},
    {"saturatef", "f>f", true},
    // Classification.
    {"isnan", "f>b d>b", true}, {"isinf", "f>b d>b", true},
    {"signbit", "f>i d>i", true}, {"finitef", "f>i", true},
    {"isfinited", "d>i", true},
    // Arithmetic with a rounding mode: round-to-nearest is IEEE's default.
    {"add_rn", "dd>d ff>f", true}, {"add_rz", "dd>d ff>f", false},
    {"add_rd", "dd>d ff>f", false}, {"add_ru", "dd>d ff>f", false},
    {"sub_rn", "ff>f dd>d", true}, {"sub_rz", "ff>f dd>d", false},
    {"sub_rd", "ff>f dd>d", false}, {"sub_ru", "ff>f dd>d", false},
    {"mul_rn", "dd>d ff>f", true}, {"mul_rz", "dd>d ff>f", false},
    {"mul_rd", "dd>d ff>f", false}, {"mul_ru", "dd>d ff>f", false},
    {"div_rn", "ff>f dd>d", true}, {"div_rz", "ff>f dd>d", false},
    {"div_rd", "ff>f dd>d", false}, {"div_ru", "ff>f dd>d", false},
    {"rcp_rn", "f>f d>d", true}, {"rcp_rz", "f>f d>d", false},
    {"rcp_rd", "f>f d>d", false}, {"rcp_ru", "f>f d>d", false},
    // Fast approximations: the target's ordinary (approximate) functions.
    {"fast_sinf", "f>f", true}, {"fast_cosf", "f>f", true},
    {"fast_tanf", "f>f", true}, {"fast_expf", "f>f", true},
    {"fast_exp10f", "f>f", true}, {"fast_logf", "f>f", true},
    {"fast_log2f", "f>f", true}, {"fast_log10f", "f>f", true},
    {"fast_powf", "ff>f", true}, {"fast_dividef", "ff>f", true},
    // Conversions (Triton's result dtypes, int32 for the unsigned ones).
    {"double2float_rn", "d>f", true}, {"double2float_rz", "d>f", false},
    {"double2float_rd", "d>f", false}, {"double2float_ru", "d>f", false},
    {"double2int_rn", "d>i", true}, {"double2int_rz", "d>i", true},
    {"double2int_rd", "d>i", true}, {"double2int_ru", "d>i", true},
    {"double2uint_rn", "d>i", true}, {"double2uint_rz", "d>i", true},
    {"double2uint_rd", "d>i", true}, {"double2uint_ru", "d>i", true},
    {"float2int_rn", "f>i", true}, {"float2int_rz", "f>i", true},
    {"float2int_rd", "f>i", true}, {"float2int_ru", "f>i", true},
    {"float2uint_rn", "f>i", true}, {"float2uint_rz", "f>i", true},
    {"float2uint_rd", "f>i", true}, {"float2uint_ru", "f>i", true},
    {"float2ll_rn", "f>l", true}, {"float2ll_rz", "f>l", true},
    {"float2ll_rd", "f>l", true}, {"float2ll_ru", "f>l", true},
    {"float2ull_rn", "f>l", true}, {"float2ull_rz", "f>l", true},
    {"float2ull_rd", "f>l", true}, {"float2ull_ru", "f>l", true},
    {"double2ll_rn", "d>l", true}, {"double2ll_rz", "d>l", true},
    {"double2ll_rd", "d>l", true}, {"double2ll_ru", "d>l", true},
    {"double2ull_rn", "d>l", true}, {"double2ull_rz", "d>l", true},
    {"double2ull_rd", "d>l", true}, {"double2ull_ru", "d>l", true},
    {"int2double_rn", "i>d", true}, {"uint2double_rn", "u>d", true},
    {"int2float_rn", "i>f", true}, {"int2float_rz", "i>f", false},
    {"int2float_rd", "i>f", false}, {"int2float_ru", "i>f", false},
    {"uint2float_rn", "u>f", true}, {"uint2float_rz", "u>f", false},
    {"uint2float_rd", "u>f", false}, {"uint2float_ru", "u>f", false},
    {"ll2float_rn", "l>f", true}, {"ll2float_rz", "l>f", false},
    {"ll2float_rd", "l>f", false}, {"ll2float_ru", "l>f", false},
    {"ull2float_rn", "L>f", true}, {"ull2float_rz", "L>f", false},
    {"ull2float_rd", "L>f", false}, {"ull2float_ru", "L>f", false},
    {"ll2double_rn", "l>d", true}, {"ll2double_rz", "l>d", false},
    {"ll2double_rd", "l>d", false}, {"ll2double_ru", "l>d", false},
    {"ull2double_rn", "L>d", true}, {"ull2double_rz", "L>d", false},
    {"ull2double_rd", "L>d", false}, {"ull2double_ru", "L>d", false},
    {"hiloint2double", "ii>d", true}, {"double2loint", "d>i", true},
    {"double2hiint", "d>i", true},
    {"int_as_float", "i>f", true}, {"float_as_int", "f>i", true},
    {"uint_as_float", "u>f", true}, {"float_as_uint", "f>i", true},
    {"longlong_as_double", "l>d", true}, {"double_as_longlong", "d>l", true},
};
// clang-format on

const LibdeviceFunction *lookup(StringRef name) {
  for (const LibdeviceFunction &f : kFunctions)
    if (name == f.name)
      return &f;
  return nullptr;
}

DType dtypeOfCode(char c) {
  switch (c) {
  case 'f':
    return DType::FP32;
  case 'd':
    return DType::FP64;
  case 'i':
    return DType::I32;
  case 'u':
    return DType::U32;
  case 'l':
    return DType::I64;
  case 'L':
    return DType::U64;
  default:
    return DType::I1;
  }
}

/// The result dtype of the signature of |f| that takes exactly |args|.
std::optional<DType> matchSignature(const LibdeviceFunction &f,
                                    ArrayRef<TValue> args) {
  for (StringRef sig : llvm::split(StringRef(f.signatures), ' ')) {
    auto [params, result] = sig.split('>');
    if (params.size() != args.size())
      continue;
    bool match = true;
    for (auto [code, arg] : llvm::zip(params, args))
      match &= arg.dtype() == dtypeOfCode(code);
    if (match)
      return dtypeOfCode(result.front());
  }
  return std::nullopt;
}

std::string signatureList(const LibdeviceFunction &f) {
  std::string list;
  for (StringRef sig : llvm::split(StringRef(f.signatures), ' ')) {
    StringRef params = sig.split('>').first;
    list += list.empty() ? "(" : ", (";
    for (auto [i, code] : llvm::enumerate(params))
      list += (i ? ", " : "") + dtypeOfCode(code).str();
    list += ")";
  }
  return list;
}

size_t arityOf(const LibdeviceFunction &f) {
  return StringRef(f.signatures).split('>').first.size();
}
} // namespace

bool Semantic::isLibdeviceFunction(StringRef name) {
  return lookup(name) != nullptr;
}

std::vector<StringRef> Semantic::libdeviceFunctionNames() {
  std::vector<StringRef> names;
  for (const LibdeviceFunction &f : kFunctions)
    names.push_back(f.name);
  return names;
}

TValue Semantic::libdevice(StringRef name, ArrayRef<Operand> operands) {
  const LibdeviceFunction *f = lookup(name);
  if (!f)
    fail("'libdevice." + name.str() + "' is not a libdevice function");
  std::string qualified = "libdevice." + name.str();
  if (!f->supported)
    fail(qualified + " is not supported yet");
  if (operands.size() != arityOf(*f))
    fail(qualified + "() takes " + std::to_string(arityOf(*f)) +
         " arguments, got " + std::to_string(operands.size()));

  // Triton's extern_elementwise: Python numbers become tensors of their own
  // dtype; the arguments are broadcast together, and promoted to a common
  // dtype only when their dtypes match no signature as they are.
  SmallVector<TValue> args;
  for (const Operand &o : operands)
    args.push_back(toTensor(o));
  bool exact = matchSignature(*f, args).has_value();
  TValue common = args.front();
  for (const TValue &a : args)
    common = binaryOperands(a, common, false, false, !exact, false, qualified)
                 .second;
  for (TValue &a : args)
    a = binaryOperands(a, common, false, false, !exact, false, qualified).first;
  std::optional<DType> resultDtype = matchSignature(*f, args);
  if (!resultDtype) {
    std::string got;
    for (const TValue &a : args)
      got += (got.empty() ? "" : ", ") + a.dtype().str();
    fail(qualified + ": input arg type does not match; expected one of " +
         signatureList(*f) + ", got (" + got + ")");
  }
  TType resultType = args.front().type.withScalar(*resultDtype);
  const TValue &x = args.front();
  Type xType = x.type.toMLIR(context());
  bool isF32 = x.dtype() == DType::FP32;

  // Builders of the generic ops the functions are made of.
  auto op = [&](StringRef opName, ArrayRef<TValue> in, Type resultMLIR) {
    OperationState state(*currentLoc, opName);
    for (const TValue &v : in)
      state.addOperands(v.value);
    state.addTypes(resultMLIR);
    return b.create(state)->getResult(0);
  };
  auto same = [&](StringRef opName, ArrayRef<TValue> in) {
    return wrap(op(opName, in, in.front().type.toMLIR(context())),
                in.front().type);
  };
  auto num = [&](double v) { return Operand(PyNum::ofFloat(v)); };
  auto typed = [&](const TValue &v) { return wrap(v.value, resultType); };
  auto toInt = [&](const TValue &rounded, bool isUnsigned) {
    // The integer of the libdevice result's width, then Triton's dtype
    // (int32 even for the unsigned conversions).
    DType target = isUnsigned
                       ? DType::integer(resultDtype->bitWidth(), false)
                       : *resultDtype;
    TValue v = cast(rounded, target);
    return typed(v);
  };
  auto rounded = [&](StringRef suffix, const TValue &v) {
    if (suffix == "rn")
      return same("math.roundeven", {v});
    if (suffix == "rd")
      return same("math.floor", {v});
    if (suffix == "ru")
      return same("math.ceil", {v});
    return v; // rz: the conversion truncates
  };

  static const llvm::StringMap<StringRef> unaryOps = {
      {"floor", "math.floor"},     {"ceil", "math.ceil"},
      {"trunc", "math.trunc"},     {"rint", "math.roundeven"},
      {"nearbyint", "math.roundeven"}, {"round", "math.round"},
      {"exp", "math.exp"},         {"exp2", "math.exp2"},
      {"expm1", "math.expm1"},     {"log", "math.log"},
      {"log2", "math.log2"},       {"log10", "math.log10"},
      {"log1p", "math.log1p"},     {"sin", "math.sin"},
      {"cos", "math.cos"},         {"tan", "math.tan"},
      {"acos", "math.acos"},
      {"atan", "math.atan"},       {"sinh", "math.sinh"},
      {"cosh", "math.cosh"},       {"tanh", "math.tanh"},
      {"acosh", "math.acosh"},
      {"atanh", "math.atanh"},     {"cbrt", "math.cbrt"},
      {"erf", "math.erf"},         {"sqrt", "math.sqrt"},
      {"rsqrt", "math.rsqrt"},     {"fast_sinf", "math.sin"},
      {"fast_cosf", "math.cos"},   {"fast_tanf", "math.tan"},
      {"fast_expf", "math.exp"},   {"fast_logf", "math.log"},
      {"fast_log2f", "math.log2"}, {"fast_log10f", "math.log10"}};
  static const llvm::StringMap<StringRef> binaryOps = {
      {"atan2", "math.atan2"},   {"copysign", "math.copysign"},
      {"fmod", "arith.remf"},    {"add_rn", "arith.addf"},
      {"sub_rn", "arith.subf"},  {"mul_rn", "arith.mulf"},
      {"fast_powf", "math.powf"}};
  if (auto it = unaryOps.find(name); it != unaryOps.end())
    return same(it->second, {x});
  if (auto it = binaryOps.find(name); it != binaryOps.end())
    return same(it->second, {args[0], args[1]});

  if (name == "abs")
    return unaryMath("abs", x);
  if (name == "sqrt_rn" || name == "rsqrt_rn" || name == "rcp_rn") {
    // IEEE's correctly rounded square root (tl.sqrt_rn's op for fp32;
    // math.sqrt is correctly rounded for fp64 everywhere) and divisions.
    TValue root = name == "rcp_rn" ? x
                  : isF32          ? unaryMath("sqrt_rn", x)
                                   : same("math.sqrt", {x});
    if (name == "sqrt_rn")
      return root;
    return fdiv(num(1.0), root, /*ieeeRounding=*/true);
  }
  if (name == "div_rn")
    return fdiv(args[0], args[1], /*ieeeRounding=*/true);
  if (name == "fast_dividef")
    return fdiv(args[0], args[1], /*ieeeRounding=*/false);
  if (name == "fma" || name == "fma_rn")
    return fma(args[0], args[1], args[2]);
  if (name == "exp10" || name == "fast_exp10f")
    return same("math.exp2", {mul(x, num(3.321928094887362347870319))});
  if (name == "sinpi" || name == "cospi")
    return same(name == "sinpi" ? "math.sin" : "math.cos",
                {mul(x, num(M_PI))});
  if (name == "asin") {
    // atan2(x, sqrt((1 - x)(1 + x))): the atan polynomial is accurate over
    // the whole range, where MLIR's asin polynomial is not near |x| = 1.
    TValue root = same("math.sqrt", {mul(sub(num(1.0), x), add(num(1.0), x))});
    return same("math.atan2", {x, root});
  }
  if (name == "asinh") {
    // sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation for
    // negative x or near zero (log(x + sqrt(x^2 + 1)) has both); above
    // 2^30 the square overflows first: log(2|x|) there.
    TValue a = unaryMath("abs", x);
    TValue square = mul(a, a);
    TValue small = same(
        "math.log1p",
        {add(a, fdiv(square, add(num(1.0), same("math.sqrt", {add(num(1.0), square)})), true))});
    TValue large = add(same("math.log", {a}), num(M_LN2));
    TValue magnitude = where(compare(">", a, num(1073741824.0)), large, small);
    return same("math.copysign", {magnitude, x});
  }
  if (name == "rcbrt")
    return fdiv(num(1.0), same("math.cbrt", {x}), false);
  if (name == "erfc")
    return sub(num(1.0), same("math.erf", {x}));
  if (name == "normcdf")
    return mul(num(0.5), add(num(1.0), same("math.erf", {mul(x, num(M_SQRT1_2))})));
  if (name == "saturatef") {
    // CUDA's __saturatef: NaN becomes 0.
    TValue clamped = minimum(maximum(x, num(0.0), false), num(1.0), false);
    return where(compare("!=", x, x), num(0.0), clamped);
  }
  if (name == "fdim")
    return where(compare("<=", args[0], args[1]), num(0.0),
                 sub(args[0], args[1]));
  if (name == "hypot" || name == "rhypot" || name.ends_with("norm3d") ||
      name.ends_with("norm4d")) {
    // max |a| times the root of the sum of squares of the ratios: no
    // overflow or underflow of the squares (as the C functions); zero when
    // every argument is zero.
    SmallVector<TValue> mags;
    for (const TValue &a : args)
      mags.push_back(unaryMath("abs", a));
    TValue top = mags.front();
    for (const TValue &m : mags)
      top = maximum(top, m, /*propagateNan=*/true);
    TValue safe = where(compare("==", top, num(0.0)), num(1.0), top);
    TValue sum = full(x.type.shape(), PyNum::ofFloat(0.0), x.dtype());
    for (const TValue &m : mags) {
      TValue r = fdiv(m, safe, true);
      sum = add(sum, mul(r, r));
    }
    TValue norm = mul(top, same("math.sqrt", {sum}));
    // An infinite argument makes the norm infinite even beside a NaN.
    TValue anyInf = compare("==", mags.front(), num(INFINITY));
    for (const TValue &m : mags)
      anyInf = logicalOr(anyInf, compare("==", m, num(INFINITY)));
    norm = where(anyInf, num(INFINITY), norm);
    if (name.starts_with("r"))
      return fdiv(num(1.0), norm, true);
    return norm;
  }
  if (name == "pow") {
    if (!args[1].dtype().isInt())
      return same("math.powf", {args[0], args[1]});
    // A constant integer power is multiplications (math.fpowi, expanded by
    // the lowering); another is |x|^n through powf, negative for a negative
    // x and an odd n, and 1 for n == 0 (even for a NaN or infinite x).
    if (std::holds_alternative<PyNum>(operands[1]))
      return wrap(create<math::FPowIOp>(xType, x.value, args[1].value),
                  x.type);
    TValue n = args[1];
    TValue magnitude = same("math.powf", {unaryMath("abs", x), cast(n, x.dtype())});
    TValue odd = compare("!=", bitAnd(n, PyNum::ofInt(1)), PyNum::ofInt(0));
    TValue negate = logicalAnd(odd, compare("<", x, num(0.0)));
    TValue signedResult = where(negate, minus(magnitude), magnitude);
    return where(compare("==", n, PyNum::ofInt(0)), num(1.0), signedResult);
  }
  if (name == "ldexp" || name == "scalbn") {
    // x * 2^n exactly, in two steps so that n beyond one power's exponent
    // range (down to denormal results) still scales exactly.
    bool wide = !isF32;
    int64_t bias = wide ? 1023 : 127, mantissa = wide ? 52 : 23;
    DType intType = wide ? DType::I64 : DType::I32;
    TValue n = cast(args[1], intType);
    // Beyond 3 * bias every finite x overflows or flushes to zero, and a
    // quarter of n stays inside one power's exponent range.
    n = minimum(maximum(n, PyNum::ofInt(-3 * bias), false),
                PyNum::ofInt(3 * bias), false);
    auto power = [&](const TValue &e) {
      TValue clamped = minimum(maximum(e, PyNum::ofInt(1 - bias), false),
                               PyNum::ofInt(bias), false);
      TValue bits = shl(add(clamped, PyNum::ofInt(bias)), PyNum::ofInt(mantissa));
      return bitcast(bits, x.dtype());
    };
    TValue half = floordiv(n, PyNum::ofInt(2));
    TValue rest = sub(n, half);
    TValue quarter1 = floordiv(half, PyNum::ofInt(2));
    TValue quarter3 = floordiv(rest, PyNum::ofInt(2));
    TValue result = x;
    for (TValue part : {quarter1, sub(half, quarter1), quarter3,
                        sub(rest, quarter3)})
      result = mul(result, power(part));
    return result;
  }
  if (name == "isnan")
    return compare("!=", x, x);
  if (name == "isinf")
    return compare("==", unaryMath("abs", x), num(INFINITY));
  if (name == "finitef" || name == "isfinited")
    return cast(compare("<", unaryMath("abs", x), num(INFINITY)), DType::I32);
  if (name == "signbit") {
    DType bits = isF32 ? DType::I32 : DType::I64;
    return cast(compare("<", bitcast(x, bits), PyNum::ofInt(0)), DType::I32);
  }
  if (name == "llrint")
    return toInt(same("math.roundeven", {x}), false);
  if (name == "llround")
    return toInt(same("math.round", {x}), false);
  if (name == "double2float_rn")
    return cast(x, DType::FP32);
  if (name.contains("2int_") || name.contains("2uint_") ||
      name.contains("2ll_") || name.contains("2ull_")) {
    StringRef suffix = name.take_back(2);
    bool isUnsigned = name.contains("2uint_") || name.contains("2ull_");
    return toInt(rounded(suffix, x), isUnsigned);
  }
  if (name.ends_with("2float_rn") || name.ends_with("2double_rn"))
    return cast(x, *resultDtype);
  if (name == "int_as_float" || name == "uint_as_float" ||
      name == "longlong_as_double")
    return bitcast(x, *resultDtype);
  if (name == "float_as_int" || name == "float_as_uint" ||
      name == "double_as_longlong")
    return bitcast(x, *resultDtype);
  if (name == "double2loint" || name == "double2hiint") {
    TValue bits = bitcast(x, DType::U64);
    if (name == "double2hiint")
      bits = lshr(bits, PyNum::ofInt(32));
    return bitcast(cast(bits, DType::U32), DType::I32);
  }
  if (name == "hiloint2double") {
    TValue hi = cast(bitcast(args[0], DType::U32), DType::U64);
    TValue lo = cast(bitcast(args[1], DType::U32), DType::U64);
    return bitcast(bitOr(shl(hi, PyNum::ofInt(32)), lo), DType::FP64);
  }
  if (name == "clz" || name == "popc" || name == "ffs") {
    TValue count =
        name == "clz"    ? same("math.ctlz", {x})
        : name == "popc" ? same("math.ctpop", {x})
                         : add(same("math.cttz", {x}), PyNum::ofInt(1));
    if (name == "ffs")
      count = where(compare("==", x, PyNum::ofInt(0)), PyNum::ofInt(0), count);
    return typed(cast(count, DType::I32));
  }
  if (name == "mulhi") {
    if (x.dtype().bitWidth() == 64)
      fail(qualified + " of 64-bit integers is not supported yet");
    TValue high = umulhi(args[0], args[1]);
    if (x.dtype().isUnsignedInt())
      return high;
    // The signed high half from the unsigned one: a negative factor's
    // two's complement adds 2^32 times the other factor.
    TValue zero = full(x.type.shape(), PyNum::ofInt(0), x.dtype());
    high = sub(high, where(compare("<", args[0], PyNum::ofInt(0)), args[1], zero));
    return sub(high, where(compare("<", args[1], PyNum::ofInt(0)), args[0], zero));
  }
  if (name == "hadd" || name == "rhadd") {
    // (x + y) >> 1 and (x + y + 1) >> 1 without the sum's overflow.
    TValue half = x.dtype().isUnsignedInt()
                      ? lshr(bitXor(args[0], args[1]), PyNum::ofInt(1))
                      : ashr(bitXor(args[0], args[1]), PyNum::ofInt(1));
    if (name == "hadd")
      return add(bitAnd(args[0], args[1]), half);
    return sub(bitOr(args[0], args[1]), half);
  }
  if (name == "sad") {
    // |x - y| + z, the difference taken without overflow as unsigned.
    TValue a = args[0], c = args[1];
    TValue greater = compare(">", a, c);
    TValue ua = bitcast(a, DType::U32), uc = bitcast(c, DType::U32);
    TValue diff = where(greater, sub(ua, uc), sub(uc, ua));
    return typed(bitcast(add(diff, bitcast(args[2], DType::U32)),
                         *resultDtype));
  }
  fail(qualified + " is not supported yet");
}
