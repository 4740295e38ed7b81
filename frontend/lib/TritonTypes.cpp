//===- TritonTypes.cpp - Triton's types in the front end ------------------===//
#include "tegula/Frontend/TritonTypes.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace tegula::frontend;

DType DType::pointer(const TType &pointee, int addressSpace) {
  DType d(Ptr);
  d.pointee_ = std::make_shared<const TType>(pointee);
  d.addressSpace_ = addressSpace;
  return d;
}

DType DType::integer(unsigned bits, bool isSigned) {
  switch (bits) {
  case 1: return I1;
  case 8: return isSigned ? I8 : U8;
  case 16: return isSigned ? I16 : U16;
  case 32: return isSigned ? I32 : U32;
  default: return isSigned ? I64 : U64;
  }
}

std::optional<DType> DType::fromName(llvm::StringRef name) {
  auto kind = llvm::StringSwitch<std::optional<Kind>>(name)
                  .Cases("i1", "int1", "u1", I1)
                  .Cases("i8", "int8", I8)
                  .Cases("i16", "int16", I16)
                  .Cases("i32", "int32", I32)
                  .Cases("i64", "int64", I64)
                  .Cases("u8", "uint8", U8)
                  .Cases("u16", "uint16", U16)
                  .Cases("u32", "uint32", U32)
                  .Cases("u64", "uint64", U64)
                  .Cases("fp8e4nv", "float8e4nv", "float8_e4m3fn", FP8E4NV)
                  .Cases("fp8e5", "float8e5", "float8_e5m2", FP8E5)
                  .Cases("fp16", "float16", "f16", FP16)
                  .Cases("bf16", "bfloat16", BF16)
                  .Cases("fp32", "float32", "f32", FP32)
                  .Cases("fp64", "float64", "f64", FP64)
                  .Case("void", Void)
                  .Default(std::nullopt);
  if (!kind)
    return std::nullopt;
  return DType(*kind);
}

bool DType::isBlockPtr() const { return isPtr() && pointee_->isBlock(); }

unsigned DType::bitWidth() const {
  switch (kind_) {
  case Void: return 0;
  case I1: return 1;
  case I8: case U8: case FP8E4NV: case FP8E5: return 8;
  case I16: case U16: case FP16: case BF16: return 16;
  case I32: case U32: case FP32: return 32;
  case I64: case U64: case FP64: case Ptr: return 64;
  }
  return 0;
}

unsigned DType::mantissaWidth() const {
  switch (kind_) {
  case FP8E4NV: return 3;
  case FP8E5: return 2;
  case FP16: return 10;
  case BF16: return 7;
  case FP32: return 23;
  case FP64: return 52;
  default: return 0;
  }
}

int DType::kindRank() const {
  if (isBool())
    return 0;
  if (isInt())
    return 1;
  return 2;
}

__int128 DType::intMin() const {
  if (isBool() || isUnsignedInt())
    return 0;
  return -(static_cast<__int128>(1) << (bitWidth() - 1));
}

__int128 DType::intMax() const {
  if (isBool())
    return 1;
  if (isUnsignedInt())
    return (static_cast<__int128>(1) << bitWidth()) - 1;
  return (static_cast<__int128>(1) << (bitWidth() - 1)) - 1;
}

std::string DType::str() const {
  switch (kind_) {
  case Void: return "void";
  case I1: return "int1";
  case I8: return "int8";
  case I16: return "int16";
  case I32: return "int32";
  case I64: return "int64";
  case U8: return "uint8";
  case U16: return "uint16";
  case U32: return "uint32";
  case U64: return "uint64";
  case FP8E4NV: return "fp8e4nv";
  case FP8E5: return "fp8e5";
  case FP16: return "fp16";
  case BF16: return "bf16";
  case FP32: return "fp32";
  case FP64: return "fp64";
  case Ptr: {
    std::string s = "pointer<" + pointee_->str();
    if (addressSpace_ != 1)
      s += ", " + std::to_string(addressSpace_);
    return s + ">";
  }
  }
  return "?";
}

mlir::Type DType::toMLIR(mlir::MLIRContext *context) const {
  mlir::Builder b(context);
  switch (kind_) {
  case Void: return mlir::NoneType::get(context);
  case I1: return b.getI1Type();
  case I8: case U8: return b.getI8Type();
  case I16: case U16: return b.getI16Type();
  case I32: case U32: return b.getI32Type();
  case I64: case U64: return b.getI64Type();
  case FP8E4NV: return b.getFloat8E4M3FNType();
  case FP8E5: return b.getFloat8E5M2Type();
  case FP16: return b.getF16Type();
  case BF16: return b.getBF16Type();
  case FP32: return b.getF32Type();
  case FP64: return b.getF64Type();
  case Ptr:
    return tile::PointerType::get(pointee_->toMLIR(context), addressSpace_);
  }
  return {};
}

bool DType::operator==(const DType &other) const {
  if (kind_ != other.kind_)
    return false;
  if (kind_ != Ptr)
    return true;
  return addressSpace_ == other.addressSpace_ && *pointee_ == *other.pointee_;
}

int64_t TType::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

std::string TType::str() const {
  if (!isBlock())
    return scalar_.str();
  return "<" + shapeStr(shape_) + ", " + scalar_.str() + ">";
}

mlir::Type TType::toMLIR(mlir::MLIRContext *context) const {
  mlir::Type elem = scalar_.toMLIR(context);
  if (!isBlock())
    return elem;
  return mlir::RankedTensorType::get(shape_, elem);
}

std::string tegula::frontend::int128ToString(__int128 v) {
  if (v == 0)
    return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v)
                            : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), char('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

std::string tegula::frontend::shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}
