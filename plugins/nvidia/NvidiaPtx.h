//===- NvidiaPtx.h - Inline PTX for the NVIDIA plugin -----------*- C++ -*-===//
//
// The few builders the target hooks (NvidiaTargetHooks.cpp) and the matrix
// units (NvidiaMatrixUnits.cpp) share: inline PTX statements on the LLVM
// dialect. Private to the plugin.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAPTX_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAPTX_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tegula::nvidia {

/// Inline PTX: |text| on |operands| under |constraints|, of |resultType|
/// (LLVM's void type, a scalar, or a struct of the results);
/// |sideEffects| keeps the optimizer from moving or dropping it.
inline mlir::LLVM::InlineAsmOp
buildPtx(mlir::OpBuilder &builder, mlir::Location loc, mlir::Type resultType,
         mlir::ValueRange operands, llvm::StringRef text,
         llvm::StringRef constraints, bool sideEffects) {
  return builder.create<mlir::LLVM::InlineAsmOp>(
      loc, resultType, operands, text, constraints, sideEffects,
      /*is_align_stack=*/false,
      mlir::LLVM::AsmDialectAttr::get(builder.getContext(),
                                      mlir::LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/mlir::ArrayAttr());
}

/// Inline PTX without results that the optimizer must keep in place.
inline void buildSideEffectAsm(mlir::OpBuilder &builder, mlir::Location loc,
                               llvm::StringRef text) {
  buildPtx(builder, loc, mlir::LLVM::LLVMVoidType::get(builder.getContext()),
           mlir::ValueRange{}, text, "~{memory}", /*sideEffects=*/true);
}

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAPTX_H
