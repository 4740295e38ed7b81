//===- HookSupport.cpp - Helpers for TargetHooks --------------------------===//

#include "tegula/BackendKit/HookSupport.h"

using namespace mlir;

LLVM::LLVMFuncOp tegula::backend::getEnclosingLLVMFunction(OpBuilder &builder) {
  Block *block = builder.getInsertionBlock();
  Operation *parent = block ? block->getParentOp() : nullptr;
  if (!parent)
    return {};
  if (auto func = dyn_cast<LLVM::LLVMFuncOp>(parent))
    return func;
  return parent->getParentOfType<LLVM::LLVMFuncOp>();
}

ModuleOp tegula::backend::getEnclosingModule(OpBuilder &builder) {
  Block *block = builder.getInsertionBlock();
  Operation *parent = block ? block->getParentOp() : nullptr;
  if (!parent)
    return {};
  if (auto module = dyn_cast<ModuleOp>(parent))
    return module;
  return parent->getParentOfType<ModuleOp>();
}

FailureOr<LLVM::LLVMFuncOp> tegula::backend::declareExternalFunction(
    OpBuilder &builder, Location loc, ModuleOp module, StringRef name,
    LLVM::LLVMFunctionType type, StringRef who) {
  if (Operation *existing = module.lookupSymbol(name)) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(existing);
    if (func && func.getFunctionType() == type)
      return func;
    return emitError(loc) << who << ": the module already has a symbol @"
                          << name << " that is not the external function "
                          << type;
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  return builder.create<LLVM::LLVMFuncOp>(loc, name, type);
}

LLVM::GlobalOp tegula::backend::getOrCreateStringGlobal(
    OpBuilder &builder, Location loc, ModuleOp module, StringRef prefix,
    StringRef text, unsigned addressSpace) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  StringAttr value = builder.getStringAttr(bytes);
  std::string name;
  for (unsigned n = 0;; ++n) {
    name = prefix.str() + std::to_string(n);
    Operation *existing = module.lookupSymbol(name);
    if (!existing)
      break;
    auto global = dyn_cast<LLVM::GlobalOp>(existing);
    if (global && global.getConstant() && global.getValueAttr() == value &&
        global.getAddrSpace() == addressSpace)
      return global;
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), bytes.size());
  return builder.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/true,
                                        LLVM::Linkage::Internal, name, value,
                                        /*alignment=*/1, addressSpace);
}
