//===- tegula/BackendKit/HookSupport.h - Helpers for TargetHooks -*- C++ -*-===//
//
// What TargetHooks implementations build again and again: where the builder
// is (the llvm.func and module it inserts into), external functions of the
// target's runtime declared once, and NUL-terminated string constants
// shared by equal text.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_HOOKSUPPORT_H
#define TEGULA_BACKENDKIT_HOOKSUPPORT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tegula::backend {

/// The llvm.func |builder| inserts into, or null.
mlir::LLVM::LLVMFuncOp getEnclosingLLVMFunction(mlir::OpBuilder &builder);

/// The module |builder| inserts into, or null.
mlir::ModuleOp getEnclosingModule(mlir::OpBuilder &builder);

/// External function |name| of |type| in |module|: declared at the start
/// of the module unless it is there. Fails, with an error at |loc| naming
/// |who| (e.g. "host target hooks"), when |name| is taken by something
/// else.
mlir::FailureOr<mlir::LLVM::LLVMFuncOp>
declareExternalFunction(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::ModuleOp module, llvm::StringRef name,
                        mlir::LLVM::LLVMFunctionType type,
                        llvm::StringRef who);

/// An internal constant global in |addressSpace| holding |text| and a NUL:
/// an existing `<prefix><n>` global with the same bytes, or a new one with
/// the first free <n>.
mlir::LLVM::GlobalOp getOrCreateStringGlobal(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             mlir::ModuleOp module,
                                             llvm::StringRef prefix,
                                             llvm::StringRef text,
                                             unsigned addressSpace = 0);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_HOOKSUPPORT_H
