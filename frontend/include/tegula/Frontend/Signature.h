//===- Signature.h - kernel specialization signatures -----------*- C++ -*-===//
//
// A kernel compiles for a signature in the format of Triton's AOT tool:
//   "*fp32:16, *fp32:16, i32, 1024"
// one entry per parameter: a pointer (`*dtype`, optionally `:16` when the
// address is a multiple of 16 bytes), a scalar (`dtype`, optionally `:16`
// when divisible by 16 or `:1` when equal to 1), or a literal for a
// constexpr parameter. Keyword constexprs (`--constexpr BLOCK=128`) use the
// same literal syntax. The JIT path builds the same specialization.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_SIGNATURE_H
#define TEGULA_FRONTEND_SIGNATURE_H

#include "tegula/Frontend/Semantic.h"
#include "tegula/Frontend/TritonTypes.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tegula::frontend {

/// A compile-time constant given for a constexpr parameter: a number, a bool,
/// None, a dtype or a string.
struct ConstantSpec {
  enum Kind { Number, NoneValue, DTypeValue, String } kind = Number;
  PyNum number;
  DType dtype;
  std::string string;
  /// The text as written, for messages and cache keys.
  std::string text;
};

/// One entry of a signature.
struct ArgSpec {
  /// TensorDesc: a host-built tensor descriptor (`tensordesc<fp16[64, 64]>`,
  /// `tensordesc<fp32[32, 32], nan>` for NaN padding), which the kernel
  /// receives as its base pointer (16-byte aligned), its shape (one i32 per
  /// dimension) and the strides of all but the last dimension (i64; the
  /// last is 1).
  enum Kind { Pointer, Scalar, Constant, TensorDesc } kind = Scalar;
  /// The pointee (Pointer, TensorDesc) or the scalar type (Scalar).
  DType dtype;
  /// 16 when specialized as divisible by 16, else 0.
  unsigned divisibility = 0;
  /// Scalar specialized as equal to 1 (`:1`): it folds to the constant 1.
  bool equalsOne = false;
  ConstantSpec constant;
  /// TensorDesc: the block shape and the padding ("zero" or "nan").
  std::vector<int64_t> blockShape;
  std::string padding;
  /// The entry as written.
  std::string text;
};

/// Parses a signature; errors name the entry (1-based) and what is wrong.
llvm::Expected<std::vector<ArgSpec>> parseSignature(llvm::StringRef signature);

/// Parses a constant literal: 123, -4, 0x10, 1.5, 1e-3, True, False, None,
/// a dtype name (fp16, tl.float16, ...) or a quoted string.
llvm::Expected<ConstantSpec> parseConstant(llvm::StringRef text);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_SIGNATURE_H
