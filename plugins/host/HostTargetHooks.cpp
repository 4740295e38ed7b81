//===- HostTargetHooks.cpp - What the lowering asks the host CPU ----------===//

#include "HostTargetHooks.h"
#include "HostKernelABI.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace tegula::host;
using namespace tegula::backend;

namespace {

constexpr const char *kPrintFunction = "tegula_host_print";
constexpr const char *kAssertFunction = "tegula_host_assert_fail";
constexpr const char *kBoundsFunction = "tegula_host_bounds_fail";
constexpr const char *kWho = "host target hooks";

Type ptrType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context);
}

/// struct tg_host_program {[3 x i32], [3 x i32], ptr, ptr, i32, i32}.
Type programType(MLIRContext *context) {
  Type i32 = IntegerType::get(context, 32);
  Type ids = LLVM::LLVMArrayType::get(i32, 3);
  Type ptr = ptrType(context);
  return LLVM::LLVMStructType::getLiteral(context,
                                          {ids, ids, ptr, ptr, i32, i32});
}

/// The tg_host_program pointer: the last argument of the enclosing
/// llvm.func's entry block. Emits an error and returns null when there is
/// none.
Value programPointer(OpBuilder &builder, Location loc) {
  LLVM::LLVMFuncOp func = tegula::backend::getEnclosingLLVMFunction(builder);
  if (!func) {
    emitError(loc) << "host target hooks: the code is not inside an llvm.func "
                      "(the program context is its last argument)";
    return {};
  }
  if (func.getBody().empty() || func.getBody().front().getNumArguments() == 0 ||
      !isa<LLVM::LLVMPointerType>(
          func.getBody().front().getArguments().back().getType())) {
    emitError(loc) << "host target hooks: @" << func.getSymName()
                   << " does not end in the !llvm.ptr program context argument";
    return {};
  }
  return func.getBody().front().getArguments().back();
}

Value poison(OpBuilder &builder, Location loc, Type type) {
  return builder.create<LLVM::PoisonOp>(loc, type);
}

/// Loads field |field| (element |element| of it when >= 0) of the program
/// record. Not !invariant.load: the launcher rewrites the record between
/// programs. The entry's `noalias` context parameter and the runtime
/// functions' `readonly` one let LLVM reuse the loads within a program.
Value loadProgramField(OpBuilder &builder, Location loc, int32_t field,
                       int32_t element, Type type) {
  Value program = programPointer(builder, loc);
  if (!program)
    return poison(builder, loc, type);
  MLIRContext *context = builder.getContext();
  SmallVector<LLVM::GEPArg> indices = {0, field};
  if (element >= 0)
    indices.push_back(element);
  Value address = builder.create<LLVM::GEPOp>(
      loc, ptrType(context), programType(context), program, indices,
      /*inbounds=*/true);
  unsigned alignment = isa<LLVM::LLVMPointerType>(type) ? 8 : 4;
  return builder.create<LLVM::LoadOp>(loc, type, address, alignment);
}

/// Declares runtime function |name| of |type| in |module| unless it is
/// there; fails (with an error) when the name is taken.
LogicalResult declareFunction(OpBuilder &builder, Location loc, ModuleOp module,
                              StringRef name, LLVM::LLVMFunctionType type) {
  FailureOr<LLVM::LLVMFuncOp> func = tegula::backend::declareExternalFunction(
      builder, loc, module, name, type, kWho);
  if (failed(func))
    return failure();
  // The runtime functions only read the program record and the strings,
  // and keep none of the pointers.
  for (unsigned i = 0; i < type.getNumParams(); ++i)
    if (isa<LLVM::LLVMPointerType>(type.getParamType(i))) {
      func->setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                       builder.getUnitAttr());
      func->setArgAttr(i, LLVM::LLVMDialect::getNoCaptureAttrName(),
                       builder.getUnitAttr());
    }
  return success();
}

} // namespace

Value HostTargetHooks::buildProgramId(OpBuilder &builder, Location loc,
                                      Axis axis) const {
  return loadProgramField(builder, loc, TG_HOST_PROGRAM_FIELD_PROGRAM_ID,
                          static_cast<int32_t>(axis), builder.getI32Type());
}

Value HostTargetHooks::buildNumPrograms(OpBuilder &builder, Location loc,
                                        Axis axis) const {
  return loadProgramField(builder, loc, TG_HOST_PROGRAM_FIELD_NUM_PROGRAMS,
                          static_cast<int32_t>(axis), builder.getI32Type());
}

Value HostTargetHooks::buildThreadId(OpBuilder &builder, Location loc) const {
  if (!simtWarpSize)
    return constantI32(builder, loc, 0);
  return loadProgramField(builder, loc, TG_HOST_PROGRAM_FIELD_THREAD_ID, -1,
                          builder.getI32Type());
}

/// Calls runtime function |name| of |type| with the program pointer and
/// |args|; returns its result (null for void).
static Value callRuntime(OpBuilder &builder, Location loc, StringRef name,
                         LLVM::LLVMFunctionType type, ValueRange args) {
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  Value program = programPointer(builder, loc);
  if (!module || !program ||
      failed(declareFunction(builder, loc, module, name, type)))
    return {};
  SmallVector<Value> operands{program};
  operands.append(args.begin(), args.end());
  auto call = builder.create<LLVM::CallOp>(loc, type, name, operands);
  return call.getNumResults() ? call.getResult() : Value();
}

void HostTargetHooks::buildBarrier(OpBuilder &builder, Location loc) const {
  if (!simtWarpSize)
    return;
  MLIRContext *context = builder.getContext();
  callRuntime(builder, loc, "tegula_host_barrier",
              LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                          {ptrType(context)}),
              {});
}

Value HostTargetHooks::buildShuffle(OpBuilder &builder, Location loc,
                                    Value value, ShuffleKind kind,
                                    Value offset) const {
  if (!simtWarpSize)
    return value;
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  Value bits = value.getType() == i32
                   ? value
                   : builder.create<LLVM::BitcastOp>(loc, i32, value);
  Value result = callRuntime(
      builder, loc, "tegula_host_shuffle",
      LLVM::LLVMFunctionType::get(i32, {ptrType(context), i32, i32, i32, i32}),
      {bits, constantI32(builder, loc, static_cast<int32_t>(kind)), offset,
       constantI32(builder, loc, static_cast<int32_t>(simtWarpSize))});
  if (!result)
    return poison(builder, loc, value.getType());
  return value.getType() == i32
             ? result
             : builder.create<LLVM::BitcastOp>(loc, value.getType(), result);
}

llvm::SmallVector<Type>
HostTargetHooks::getKernelContextTypes(MLIRContext *context) const {
  return {ptrType(context)};
}

Value HostTargetHooks::buildScratchBase(OpBuilder &builder,
                                        Location loc) const {
  return loadProgramField(builder, loc, TG_HOST_PROGRAM_FIELD_SCRATCH, -1,
                          ptrType(builder.getContext()));
}

LogicalResult HostTargetHooks::buildPrint(OpBuilder &builder, Location loc,
                                          StringRef prefix, Value index,
                                          Value value, bool isSigned,
                                          bool hex) const {
  MLIRContext *context = builder.getContext();
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  Value program = programPointer(builder, loc);
  if (!module || !program)
    return failure();
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << "host print: the element index is "
                          << index.getType() << ", not an integer";

  // The value as 64 bits and how to read them (HostKernelABI.h).
  Type type = value ? value.getType() : Type();
  Value bits;
  uint32_t kind = 0;
  unsigned width = 0;
  if (!value) {
    // A print of no values: the prefix alone.
    bits = builder.create<LLVM::ConstantOp>(loc, builder.getI64Type(),
                                            builder.getI64IntegerAttr(0));
    kind = TG_HOST_PRINT_NONE;
  } else if (isa<IndexType>(type)) {
    width = 64;
    bits = toI64(builder, loc, value, /*isSigned=*/true);
    kind = TG_HOST_PRINT_SIGNED;
  } else if (auto intType = dyn_cast<IntegerType>(type)) {
    width = intType.getWidth();
    // i1 prints as 0 or 1 whatever the signedness.
    bool sign = isSigned && width > 1;
    bits = toI64(builder, loc, value, sign);
    kind = sign ? TG_HOST_PRINT_SIGNED : TG_HOST_PRINT_UNSIGNED;
  } else if (auto floatType = dyn_cast<FloatType>(type)) {
    width = floatType.getWidth();
    if (hex) {
      // The float's own bits, as Triton prints them.
      Value raw = builder.create<LLVM::BitcastOp>(
          loc, IntegerType::get(context, width), value);
      bits = toI64(builder, loc, raw, /*isSigned=*/false);
      kind = TG_HOST_PRINT_UNSIGNED;
    } else {
      bits = builder.create<LLVM::BitcastOp>(loc, builder.getI64Type(),
                                             toF64(builder, loc, value));
      kind = TG_HOST_PRINT_FLOAT;
    }
  } else if (isa<LLVM::LLVMPointerType>(type)) {
    width = 64;
    bits = builder.create<LLVM::PtrToIntOp>(loc, builder.getI64Type(), value);
    kind = TG_HOST_PRINT_POINTER;
  } else {
    return emitError(loc) << "host print: cannot print a value of type " << type
                          << " (integers, floats and pointers only)";
  }
  if (hex && kind != TG_HOST_PRINT_POINTER && kind != TG_HOST_PRINT_NONE)
    kind |= TG_HOST_PRINT_HEX;
  kind |= (width & 0xff) << 8;

  Type ptr = ptrType(context);
  auto calleeType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                  {ptr, ptr, builder.getI64Type(),
                                   builder.getI64Type(), builder.getI32Type()});
  if (failed(declareFunction(builder, loc, module, kPrintFunction, calleeType)))
    return failure();
  Value index64 = toI64(builder, loc, index, /*isSigned=*/true);
  return tegula::backend::callExternalFunction(
      builder, loc, kPrintFunction, calleeType,
      {program, prefix, index64, bits,
       constantI32(builder, loc, static_cast<int32_t>(kind))},
      kWho);
}

LogicalResult HostTargetHooks::buildAssertFailure(
    OpBuilder &builder, Location loc, StringRef message, StringRef file,
    unsigned line, StringRef function, Value index) const {
  MLIRContext *context = builder.getContext();
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  Value program = programPointer(builder, loc);
  if (!module || !program)
    return failure();
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << "host assert: the element index is "
                          << index.getType() << ", not an integer";
  Type ptr = ptrType(context);
  auto calleeType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context),
      {ptr, ptr, ptr, builder.getI32Type(), ptr, builder.getI64Type()});
  if (failed(
          declareFunction(builder, loc, module, kAssertFunction, calleeType)))
    return failure();
  Value index64 = toI64(builder, loc, index, /*isSigned=*/true);
  return tegula::backend::callExternalFunction(
      builder, loc, kAssertFunction, calleeType,
      {program, message, file,
       constantI32(builder, loc, static_cast<int32_t>(line)), function,
       index64},
      kWho);
}

LogicalResult HostTargetHooks::buildBoundsFailure(
    OpBuilder &builder, Location loc, StringRef access, StringRef file,
    unsigned line, StringRef function, Value index, Value begin,
    Value end) const {
  MLIRContext *context = builder.getContext();
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  Value program = programPointer(builder, loc);
  if (!module || !program)
    return failure();
  Type ptr = ptrType(context);
  Type i64 = builder.getI64Type();
  auto calleeType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context),
      {ptr, ptr, ptr, builder.getI32Type(), ptr, i64, i64, i64});
  if (failed(
          declareFunction(builder, loc, module, kBoundsFunction, calleeType)))
    return failure();
  return tegula::backend::callExternalFunction(
      builder, loc, kBoundsFunction, calleeType,
      {program, access, file,
       constantI32(builder, loc, static_cast<int32_t>(line)), function,
       toI64(builder, loc, index, /*isSigned=*/true),
       toI64(builder, loc, begin, /*isSigned=*/true),
       toI64(builder, loc, end, /*isSigned=*/true)},
      kWho);
}
