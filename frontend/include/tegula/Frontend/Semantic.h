//===- Semantic.h - the semantics of Triton's operations --------*- C++ -*-===//
//
// Builds tile IR for Triton's operations with Triton 3.x's exact rules: type
// promotion, Python-scalar handling, broadcasting, casting, integer division
// and remainder, pointer arithmetic, loads and stores with masks, atomics,
// dot. The code generator calls it for each operator and `tl.*` function;
// a user error throws SemanticError, which the code generator reports at the
// source location of the expression being compiled.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_SEMANTIC_H
#define TEGULA_FRONTEND_SEMANTIC_H

#include "tegula/Frontend/TritonTypes.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

namespace tegula::frontend {

/// A value computed by the kernel: its IR value and its Triton type.
struct TValue {
  mlir::Value value;
  TType type;
  const DType &dtype() const { return type.scalar(); }
};

/// A Python number known at compile time: a literal or constexpr.
struct PyNum {
  enum Kind { Bool, Int, Float } kind = Int;
  __int128 i = 0;
  double f = 0;
  static PyNum ofBool(bool b) { return {Bool, b ? 1 : 0, b ? 1.0 : 0.0}; }
  static PyNum ofInt(__int128 v) { return {Int, v, static_cast<double>(v)}; }
  static PyNum ofFloat(double v) { return {Float, 0, v}; }
  bool isNegative() const { return kind == Float ? f < 0 : i < 0; }
};

/// An operand of a binary operation: a kernel value or a Python number.
using Operand = std::variant<TValue, PyNum>;

/// A user error in the kernel, in Triton's words; the code generator adds
/// the location.
class SemanticError : public std::runtime_error {
public:
  explicit SemanticError(const std::string &message)
      : std::runtime_error(message) {}
};

/// Memory-operation options, as strings from the kernel (".cg", "evict_last",
/// "acq_rel", "gpu", "zero"); empty means the default.
struct MemoryOptions {
  std::string cache;
  std::string eviction;
  bool isVolatile = false;
};

/// Builds tile IR for Triton operations at the builder's insertion point.
class Semantic {
public:
  /// Triton's TRITON_MAX_TENSOR_NUMEL: the most elements a block holds.
  static constexpr int64_t kMaxTensorNumel = 1048576;

  explicit Semantic(mlir::OpBuilder &builder)
      : b(builder), currentLoc(builder.getUnknownLoc()) {}

  /// Location given to the ops built next.
  void setLoc(mlir::Location l) { currentLoc = l; }
  mlir::Location getLoc() const { return *currentLoc; }
  mlir::OpBuilder &builder() { return b; }
  mlir::MLIRContext *context() { return b.getContext(); }

  //===--------------------------------------------------------------------===//
  // Constants and conversions of Python numbers
  //===--------------------------------------------------------------------===//

  /// The dtype Triton gives a Python number: bool → int1; int → int32,
  /// uint32, int64 or uint64 by range; float → fp32 unless out of fp32's
  /// normal range (then fp64).
  DType dtypeOf(const PyNum &n);
  /// A scalar constant of |dtype| holding |n|.
  TValue constant(const PyNum &n, const DType &dtype);
  /// |n| as a tensor of its own dtype (Triton's to_tensor).
  TValue toTensor(const PyNum &n) { return constant(n, dtypeOf(n)); }
  TValue toTensor(const Operand &x);
  /// A constant of |type| (scalar or block) with every element |n|.
  TValue full(llvm::ArrayRef<int64_t> shape, const PyNum &n, const DType &dtype);

  //===--------------------------------------------------------------------===//
  // Programs and ranges
  //===--------------------------------------------------------------------===//

  TValue programId(int64_t axis);
  TValue numPrograms(int64_t axis);
  TValue arange(int64_t start, int64_t end);

  //===--------------------------------------------------------------------===//
  // Arithmetic (Triton's binary operators)
  //===--------------------------------------------------------------------===//

  TValue add(const Operand &x, const Operand &y);
  TValue sub(const Operand &x, const Operand &y);
  TValue mul(const Operand &x, const Operand &y);
  TValue truediv(const Operand &x, const Operand &y);
  /// `//`: integer division rounding toward zero (as C, as Triton).
  TValue floordiv(const Operand &x, const Operand &y);
  /// `%`: remainder with the sign of the dividend (C's, Triton's); frem for
  /// floats.
  TValue mod(const Operand &x, const Operand &y);
  TValue fdiv(const Operand &x, const Operand &y, bool ieeeRounding);
  TValue minimum(const Operand &x, const Operand &y, bool propagateNan);
  TValue maximum(const Operand &x, const Operand &y, bool propagateNan);
  TValue clamp(const Operand &x, const Operand &lo, const Operand &hi,
               bool propagateNan);
  TValue bitAnd(const Operand &x, const Operand &y);
  TValue bitOr(const Operand &x, const Operand &y);
  TValue bitXor(const Operand &x, const Operand &y);
  TValue shl(const Operand &x, const Operand &y);
  /// `>>`: arithmetic for signed integers, logical for unsigned.
  TValue shr(const Operand &x, const Operand &y);
  TValue lshr(const Operand &x, const Operand &y);
  TValue ashr(const Operand &x, const Operand &y);
  TValue logicalAnd(const TValue &x, const TValue &y);
  TValue logicalOr(const TValue &x, const TValue &y);
  TValue logicalNot(const TValue &x);
  TValue minus(const TValue &x);
  TValue invert(const TValue &x);

  /// Comparisons; |predicate| is one of "<", "<=", ">", ">=", "==", "!=".
  TValue compare(llvm::StringRef predicate, const Operand &x, const Operand &y);

  /// tl.where(cond, x, y).
  TValue where(const Operand &cond, const Operand &x, const Operand &y);

  //===--------------------------------------------------------------------===//
  // Casts
  //===--------------------------------------------------------------------===//

  /// `x.to(dtype)`; |rounding| ("rtne", "rtz") only for float downcasts.
  TValue cast(const TValue &x, const DType &dtype,
              std::optional<std::string> rounding = std::nullopt);
  /// `x.to(dtype, bitcast=True)`.
  TValue bitcast(const TValue &x, const DType &dtype);

  //===--------------------------------------------------------------------===//
  // Shapes
  //===--------------------------------------------------------------------===//

  TValue splat(const TValue &x, llvm::ArrayRef<int64_t> shape);
  TValue broadcastTo(const TValue &x, llvm::ArrayRef<int64_t> shape);
  /// Broadcasts two values to a common shape (numpy rules, Triton's errors).
  std::pair<TValue, TValue> broadcastPair(TValue x, TValue y);
  TValue reshape(const TValue &x, llvm::ArrayRef<int64_t> shape, bool canReorder);
  TValue expandDims(const TValue &x, int64_t axis);
  TValue permute(const TValue &x, llvm::ArrayRef<int64_t> dims);
  TValue cat(const TValue &x, const TValue &y, bool canReorder);
  TValue join(TValue x, TValue y);
  std::pair<TValue, TValue> split(const TValue &x);
  TValue gather(const TValue &src, const TValue &index, int64_t axis);

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  TValue load(const TValue &ptr, std::optional<TValue> mask,
              std::optional<Operand> other,
              llvm::ArrayRef<int64_t> boundaryCheck, llvm::StringRef padding,
              const MemoryOptions &options);
  void store(const TValue &ptr, const Operand &value, std::optional<TValue> mask,
             llvm::ArrayRef<int64_t> boundaryCheck, const MemoryOptions &options);
  /// tl.atomic_<op> with |op| one of add, max, min, and, or, xor, xchg.
  TValue atomicRMW(llvm::StringRef op, const TValue &ptr, const Operand &value,
                   std::optional<TValue> mask, llvm::StringRef sem,
                   llvm::StringRef scope);
  TValue atomicCAS(const TValue &ptr, const Operand &cmp, const Operand &value,
                   llvm::StringRef sem, llvm::StringRef scope);
  TValue makeBlockPtr(const TValue &base, llvm::ArrayRef<TValue> shape,
                      llvm::ArrayRef<TValue> strides,
                      llvm::ArrayRef<TValue> offsets,
                      llvm::ArrayRef<int64_t> blockShape,
                      llvm::ArrayRef<int64_t> order);
  TValue advance(const TValue &ptr, llvm::ArrayRef<TValue> offsets);

  //===--------------------------------------------------------------------===//
  // Linear algebra, math, misc
  //===--------------------------------------------------------------------===//

  TValue dot(const TValue &a, const TValue &b, std::optional<TValue> acc,
             llvm::StringRef inputPrecision, std::optional<int64_t> maxImpreciseAcc,
             const DType &outDtype);
  /// A one-argument math function: exp, exp2, log, log2, sin, cos, sqrt,
  /// rsqrt, erf, floor, ceil, abs, sqrt_rn...
  TValue unaryMath(llvm::StringRef name, const TValue &x);
  TValue fma(const Operand &x, const Operand &y, const Operand &z);
  /// Triton's libdevice function |name| (`tl.extra.libdevice.<name>`) with
  /// its dtype rules; a listed function Tegula lacks fails "not supported
  /// yet" (SemanticLibdevice.cpp).
  TValue libdevice(llvm::StringRef name, llvm::ArrayRef<Operand> args);
  /// Whether |name| is one of Triton's libdevice functions.
  static bool isLibdeviceFunction(llvm::StringRef name);
  static std::vector<llvm::StringRef> libdeviceFunctionNames();
  TValue umulhi(const Operand &x, const Operand &y);
  /// tl.inline_asm_elementwise: |args| broadcast to one shape (at least one
  /// must be a tensor), one result of that shape per dtype of |dtypes|.
  std::vector<TValue> inlineAsm(llvm::StringRef asmText,
                                llvm::StringRef constraints,
                                llvm::ArrayRef<Operand> args,
                                llvm::ArrayRef<DType> dtypes, bool pure,
                                int64_t pack);
  TValue histogram(const TValue &x, int64_t numBins, std::optional<TValue> mask);
  void devicePrint(llvm::StringRef prefix, llvm::ArrayRef<TValue> args, bool hex);
  void deviceAssert(const TValue &cond, llvm::StringRef message,
                    std::optional<TValue> mask);
  void debugBarrier();
  /// tl.multiple_of / max_contiguous / max_constancy: |attr| is one of
  /// tile.divisibility, tile.contiguity, tile.constancy.
  TValue annotate(const TValue &x, llvm::StringRef attr,
                  llvm::ArrayRef<int64_t> values);

  /// C's usual conversion of two integer dtypes (Triton's
  /// integer_promote_impl; int1 counts as unsigned).
  static DType promoteIntegers(const DType &a, const DType &b);

  /// Converts a value to the scalar |dtype| expected as an index or bound
  /// (block-pointer shapes, strides and offsets).
  mlir::Value toIndexScalar(const TValue &x, bool wide);

private:
  /// Triton's binary_op_type_checking_impl: converts Python numbers, checks
  /// pointer use, promotes both operands to the computation type and
  /// broadcasts them.
  std::pair<TValue, TValue> binaryOperands(const Operand &x, const Operand &y,
                                           bool allowLhsPtr, bool allowRhsPtr,
                                           bool arithmeticCheck, bool divOrMod,
                                           llvm::StringRef opName);
  DType computationType(const DType &a, bool aIsScalar, const DType &b,
                        bool bIsScalar, bool divOrMod, llvm::StringRef opName);
  std::pair<TValue, TValue> bitwiseOperands(const Operand &x, const Operand &y,
                                            llvm::StringRef opName);
  /// A bitwise or shift op |OpTy| on promoted integer operands.
  template <typename OpTy>
  TValue bitwise(const Operand &x, const Operand &y, llvm::StringRef opName);
  TValue asBool(const TValue &x);
  TValue intCast(const TValue &x, const DType &dtype, bool signExtend);
  mlir::Value zeroLike(const TType &type);
  mlir::Value allOnesLike(const TType &type);
  template <typename OpTy, typename... Args>
  OpTy create(Args &&...args) {
    return b.create<OpTy>(*currentLoc, std::forward<Args>(args)...);
  }
  /// A value of |type| from |value|.
  /// Every op's result passes here: a block beyond Triton's maximum number
  /// of elements is refused, as Triton's block_type refuses it (larger
  /// tiles overflowed the lowering's 32-bit scratch offsets).
  TValue wrap(mlir::Value value, TType type) {
    if (type.isBlock() && type.numel() > kMaxTensorNumel)
      throw SemanticError("numel (" + std::to_string(type.numel()) +
                          ") exceeds triton maximum tensor numel (" +
                          std::to_string(kMaxTensorNumel) + ")");
    return {value, std::move(type)};
  }


  mlir::OpBuilder &b;
  std::optional<mlir::Location> currentLoc;
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_SEMANTIC_H
