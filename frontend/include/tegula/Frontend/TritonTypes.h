//===- TritonTypes.h - Triton's types in the front end ----------*- C++ -*-===//
//
// The types kernels compute with, as the Triton language defines them:
// scalar dtypes (with signedness, which tile IR's signless integers do not
// carry), pointers, and blocks (tensors) of either. Promotion and casting
// rules live in Semantic.h; this file only models the types.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_TRITONTYPES_H
#define TEGULA_FRONTEND_TRITONTYPES_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tegula::frontend {

class TType;

/// A scalar Triton dtype: an integer with signedness, a float, a pointer or
/// void. Values are cheap to copy; pointers share their pointee.
class DType {
public:
  enum Kind : uint8_t {
    Void,
    I1, I8, I16, I32, I64,
    U8, U16, U32, U64,
    FP8E4NV, FP8E5, FP16, BF16, FP32, FP64,
    Ptr,
  };

  DType() : kind_(Void) {}
  /*implicit*/ DType(Kind kind) : kind_(kind) {}
  /// A pointer to |pointee| (a scalar dtype, or a block for a block pointer)
  /// in |addressSpace|.
  static DType pointer(const TType &pointee, int addressSpace = 1);
  /// The integer dtype of |bits| bits and the given signedness; I1 for 1.
  static DType integer(unsigned bits, bool isSigned);
  /// Parses a Triton dtype name as it appears in signatures and `tl.*`
  /// attribute names: "i32", "int32", "u8", "uint8", "fp16", "float16",
  /// "bf16", "bfloat16", "fp8e4nv", "fp8e5", "i1", "int1", ...
  static std::optional<DType> fromName(llvm::StringRef name);

  Kind kind() const { return kind_; }
  bool isVoid() const { return kind_ == Void; }
  bool isBool() const { return kind_ == I1; }
  bool isInt() const { return kind_ >= I1 && kind_ <= U64; }
  bool isSignedInt() const { return kind_ >= I8 && kind_ <= I64; }
  bool isUnsignedInt() const { return kind_ >= U8 && kind_ <= U64; }
  bool isFloat() const { return kind_ >= FP8E4NV && kind_ <= FP64; }
  bool isFP8() const { return kind_ == FP8E4NV || kind_ == FP8E5; }
  /// fp16, bf16, fp32 and fp64: the floats with native conversions.
  bool isStandardFloat() const { return kind_ >= FP16 && kind_ <= FP64; }
  bool isPtr() const { return kind_ == Ptr; }
  /// A pointer to a block (`tl.make_block_ptr`).
  bool isBlockPtr() const;

  /// Width in bits; pointers are 64 bits wide.
  unsigned bitWidth() const;
  /// Mantissa bits of a float (fp32: 23).
  unsigned mantissaWidth() const;
  /// 0 for bool, 1 for integers, 2 for floats: Triton's "kind" order, by
  /// which a Python scalar of a lower or equal kind does not promote a tensor.
  int kindRank() const;
  /// Smallest and largest value of an integer dtype.
  __int128 intMin() const;
  __int128 intMax() const;

  /// The pointee of a pointer.
  const TType &pointee() const { return *pointee_; }
  int addressSpace() const { return addressSpace_; }

  /// Triton's name: "int32", "uint8", "fp16", "bf16", "fp8e4nv",
  /// "pointer<fp32>".
  std::string str() const;
  mlir::Type toMLIR(mlir::MLIRContext *context) const;

  bool operator==(const DType &other) const;
  bool operator!=(const DType &other) const { return !(*this == other); }

private:
  Kind kind_;
  std::shared_ptr<const TType> pointee_;
  int addressSpace_ = 1;
};

/// A Triton type: a scalar dtype, or a block (tensor) of a dtype.
class TType {
public:
  TType() = default;
  /*implicit*/ TType(DType scalar) : scalar_(std::move(scalar)) {}
  /*implicit*/ TType(DType::Kind kind) : scalar_(kind) {}
  TType(DType scalar, llvm::ArrayRef<int64_t> shape)
      : scalar_(std::move(scalar)), shape_(shape.begin(), shape.end()) {}

  const DType &scalar() const { return scalar_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  bool isBlock() const { return !shape_.empty(); }
  int64_t numel() const;
  /// The same shape with another element dtype.
  TType withScalar(DType scalar) const { return TType(std::move(scalar), shape_); }

  /// "fp32" for a scalar, "<[128, 64], fp32>" for a block.
  std::string str() const;
  mlir::Type toMLIR(mlir::MLIRContext *context) const;

  bool operator==(const TType &other) const {
    return scalar_ == other.scalar_ && shape_ == other.shape_;
  }
  bool operator!=(const TType &other) const { return !(*this == other); }

private:
  DType scalar_;
  llvm::SmallVector<int64_t, 4> shape_;
};

/// The decimal text of |value| (constexpr integers are 128-bit).
std::string int128ToString(__int128 value);

/// "[128, 64]": a shape the way Triton prints it in messages.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_TRITONTYPES_H
