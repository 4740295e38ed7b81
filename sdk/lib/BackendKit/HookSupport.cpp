//===- HookSupport.cpp - Helpers for TargetHooks --------------------------===//

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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

Value tegula::backend::getOrDeclareSharedArray(OpBuilder &builder,
                                               Location loc, StringRef symbol,
                                               unsigned addressSpace,
                                               unsigned alignment,
                                               StringRef who) {
  Type pointer = LLVM::LLVMPointerType::get(builder.getContext(), addressSpace);
  ModuleOp module = getEnclosingModule(builder);
  if (!module) {
    emitError(loc) << who
                   << ": the scratch base is asked for outside a module";
    return builder.create<LLVM::PoisonOp>(loc, pointer);
  }
  auto global = module.lookupSymbol<LLVM::GlobalOp>(symbol);
  if (!global) {
    if (module.lookupSymbol(symbol)) {
      emitError(loc) << who << ": the module already has a symbol @" << symbol
                     << " that is not the shared memory array";
      return builder.create<LLVM::PoisonOp>(loc, pointer);
    }
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    global = builder.create<LLVM::GlobalOp>(
        loc, LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, symbol, Attribute(),
        alignment, addressSpace);
  }
  return builder.create<LLVM::AddressOfOp>(loc, global);
}

LLVM::GlobalOp tegula::backend::getOrCreateStringGlobal(OpBuilder &builder,
                                                        Location loc,
                                                        ModuleOp module,
                                                        StringRef text,
                                                        unsigned addressSpace) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  StringAttr value = builder.getStringAttr(bytes);
  std::string name;
  for (unsigned n = 0;; ++n) {
    name = "tegula_str_" + std::to_string(n);
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

FailureOr<LLVM::CallOp> tegula::backend::callExternalFunction(
    OpBuilder &builder, Location loc, StringRef name,
    LLVM::LLVMFunctionType type, ArrayRef<ExternalArgument> args, StringRef who,
    unsigned stringSpace) {
  ModuleOp module = getEnclosingModule(builder);
  if (!module)
    return emitError(loc) << who << ": a call of @" << name
                          << " is built outside a module";
  if (failed(declareExternalFunction(builder, loc, module, name, type, who)))
    return failure();
  SmallVector<Value> operands;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg.isText) {
      operands.push_back(arg.value);
      continue;
    }
    Value address = builder.create<LLVM::AddressOfOp>(
        loc,
        getOrCreateStringGlobal(builder, loc, module, arg.text, stringSpace));
    auto parameter = i < type.getNumParams()
                         ? dyn_cast<LLVM::LLVMPointerType>(type.getParamType(i))
                         : LLVM::LLVMPointerType();
    if (parameter && parameter.getAddressSpace() != stringSpace)
      address = builder.create<LLVM::AddrSpaceCastOp>(loc, parameter, address);
    operands.push_back(address);
  }
  auto call = builder.create<LLVM::CallOp>(loc, type, name, operands);
  if (type.isVarArg())
    call.setVarCalleeTypeAttr(TypeAttr::get(type));
  return call;
}

Value tegula::backend::constantI32(OpBuilder &builder, Location loc,
                                   int32_t value) {
  return builder.create<LLVM::ConstantOp>(loc, builder.getI32Type(),
                                          builder.getI32IntegerAttr(value));
}

Value tegula::backend::constantI64(OpBuilder &builder, Location loc,
                                   int64_t value) {
  return builder.create<LLVM::ConstantOp>(loc, builder.getI64Type(),
                                          builder.getI64IntegerAttr(value));
}

std::string tegula::backend::escapePrintfText(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%%";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

bool tegula::backend::isScalarIndex(Value index) {
  Attribute value;
  if (auto constant = index.getDefiningOp<arith::ConstantOp>())
    value = constant.getValue();
  else if (auto constant = index.getDefiningOp<LLVM::ConstantOp>())
    value = constant.getValue();
  auto integer = dyn_cast_or_null<IntegerAttr>(value);
  return integer && integer.getValue().isNegative();
}

Value tegula::backend::toI64(OpBuilder &builder, Location loc, Value value,
                             bool isSigned) {
  if (isa<IndexType>(value.getType()))
    return builder.create<arith::IndexCastOp>(loc, builder.getI64Type(), value);
  auto type = cast<IntegerType>(value.getType());
  if (type.getWidth() == 64)
    return value;
  if (type.getWidth() > 64)
    return builder.create<LLVM::TruncOp>(loc, builder.getI64Type(), value);
  if (isSigned)
    return builder.create<LLVM::SExtOp>(loc, builder.getI64Type(), value);
  return builder.create<LLVM::ZExtOp>(loc, builder.getI64Type(), value);
}

Value tegula::backend::toF64(OpBuilder &builder, Location loc, Value value) {
  unsigned width = cast<FloatType>(value.getType()).getWidth();
  if (width < 64)
    return builder.create<LLVM::FPExtOp>(loc, builder.getF64Type(), value);
  if (width > 64)
    return builder.create<LLVM::FPTruncOp>(loc, builder.getF64Type(), value);
  return value;
}

FailureOr<tegula::backend::PrintfCall> tegula::backend::formatDevicePrint(
    OpBuilder &builder, Location loc, ValueRange programIds,
    llvm::StringRef prefix, Value index, Value value, bool isSigned, bool hex,
    llvm::StringRef who) {
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << who << ": the element index is "
                          << index.getType() << ", not an integer";
  PrintfCall call;
  call.format = "pid (%u, %u, %u)";
  call.args.assign(programIds.begin(), programIds.end());
  if (!isScalarIndex(index)) {
    call.format += " idx (%lld)";
    call.args.push_back(toI64(builder, loc, index, /*isSigned=*/true));
  }
  // Triton's front end makes the prefix " name: "; a bare "name:" gets the
  // same spacing.
  std::string text = escapePrintfText(prefix);
  if (text.empty() || text.front() != ' ')
    text.insert(text.begin(), ' ');
  if (!value) {
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    call.format += text + "\n";
    return call;
  }
  if (text.back() != ' ')
    text.push_back(' ');
  call.format += text;

  Type type = value.getType();
  auto hexFormat = [&](unsigned width) {
    return "0x%0" + std::to_string((width + 3) / 4) + "llx";
  };
  if (isa<IndexType>(type)) {
    call.format += hex ? hexFormat(64) : "%lld";
    call.args.push_back(toI64(builder, loc, value, /*isSigned=*/true));
  } else if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    // i1 prints as 0 or 1 whatever the signedness; hex shows the value's
    // own bits.
    bool sign = isSigned && width > 1 && !hex;
    call.format += hex ? hexFormat(width) : sign ? "%lld" : "%llu";
    call.args.push_back(toI64(builder, loc, value, sign));
  } else if (auto floatType = dyn_cast<FloatType>(type)) {
    unsigned width = floatType.getWidth();
    if (hex) {
      Value raw = builder.create<LLVM::BitcastOp>(
          loc, IntegerType::get(builder.getContext(), width), value);
      call.format += hexFormat(width);
      call.args.push_back(toI64(builder, loc, raw, /*isSigned=*/false));
    } else {
      call.format += "%f";
      call.args.push_back(toF64(builder, loc, value));
    }
  } else if (isa<LLVM::LLVMPointerType>(type)) {
    call.format += "0x%llx";
    call.args.push_back(
        builder.create<LLVM::PtrToIntOp>(loc, builder.getI64Type(), value));
  } else {
    return emitError(loc) << who << ": cannot print a value of type " << type
                          << " (integers, floats and pointers only)";
  }
  call.format += "\n";
  return call;
}

FailureOr<tegula::backend::PrintfCall> tegula::backend::formatAssertFailure(
    OpBuilder &builder, Location loc, ValueRange programIds,
    llvm::StringRef message, llvm::StringRef file, unsigned line,
    llvm::StringRef function, Value index, llvm::StringRef who) {
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << who << ": the element index is "
                          << index.getType() << ", not an integer";
  PrintfCall call;
  call.format = "device_assert failed at " + escapePrintfText(file) + ":" +
                std::to_string(line) + " in " + escapePrintfText(function) +
                ": " + escapePrintfText(message) + " (program (%u, %u, %u)";
  call.args.assign(programIds.begin(), programIds.end());
  if (!isScalarIndex(index)) {
    call.format += ", element %lld";
    call.args.push_back(toI64(builder, loc, index, /*isSigned=*/true));
  }
  call.format += ")\n";
  return call;
}

tegula::backend::PrintfCall tegula::backend::formatBoundsFailure(
    OpBuilder &builder, Location loc, ValueRange programIds,
    llvm::StringRef access, llvm::StringRef file, unsigned line,
    llvm::StringRef function, Value index, Value begin, Value end) {
  PrintfCall call;
  call.format = "out-of-bounds " + escapePrintfText(access) + " at " +
                escapePrintfText(file) + ":" + std::to_string(line) + " in " +
                escapePrintfText(function) +
                ": index %lld is outside [%lld, %lld) (program (%u, %u, %u))\n";
  for (Value v : {index, begin, end})
    call.args.push_back(toI64(builder, loc, v, /*isSigned=*/true));
  call.args.append(programIds.begin(), programIds.end());
  return call;
}
