//===- NvidiaTargetHooks.cpp - What the lowering asks an NVIDIA GPU -------===//

#include "NvidiaTargetHooks.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

using namespace mlir;
using namespace tegula::nvidia;
using tegula::backend::Axis;
using tegula::backend::ShuffleKind;

namespace {

constexpr const char *kPrintFunction = "vprintf";
constexpr const char *kAssertFunction = "__assertfail";
/// Names of the string constants the hooks add: <prefix><n>.
constexpr const char *kStringPrefix = "tegula_nv_str_";
/// PTX address spaces.
constexpr unsigned kGenericSpace = 0;
constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;

Type ptrType(MLIRContext *context, unsigned space = kGenericSpace) {
  return LLVM::LLVMPointerType::get(context, space);
}

/// Inline PTX: |text| on |operands| under |constraints|, of |resultType|
/// (LLVM's void type, a scalar, or a struct of the results);
/// |sideEffects| keeps the optimizer from moving or dropping it.
LLVM::InlineAsmOp buildPtx(OpBuilder &builder, Location loc, Type resultType,
                           ValueRange operands, StringRef text,
                           StringRef constraints, bool sideEffects) {
  return builder.create<LLVM::InlineAsmOp>(
      loc, resultType, operands, text, constraints, sideEffects,
      /*is_align_stack=*/false,
      LLVM::AsmDialectAttr::get(builder.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

/// Inline PTX without results that the optimizer must keep in place.
void buildSideEffectAsm(OpBuilder &builder, Location loc, StringRef text) {
  buildPtx(builder, loc, LLVM::LLVMVoidType::get(builder.getContext()),
           ValueRange{}, text, "~{memory}", /*sideEffects=*/true);
}

Value constantI32(OpBuilder &builder, Location loc, int32_t value) {
  return builder.create<LLVM::ConstantOp>(loc, builder.getI32Type(),
                                          builder.getI32IntegerAttr(value));
}

Value constantI64(OpBuilder &builder, Location loc, int64_t value) {
  return builder.create<LLVM::ConstantOp>(loc, builder.getI64Type(),
                                          builder.getI64IntegerAttr(value));
}

/// Declares device function |name| of |type| in |module| unless it is
/// there; fails (with an error) when the name is taken.
LogicalResult declareFunction(OpBuilder &builder, Location loc,
                              ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  return tegula::backend::declareExternalFunction(builder, loc, module, name,
                                                  type, "nvidia target hooks");
}

/// A generic pointer to a NUL-terminated constant copy of |text| in global
/// memory (`tegula_nv_str_<n>`, shared by equal text).
Value stringConstant(OpBuilder &builder, Location loc, ModuleOp module,
                     StringRef text) {
  Value address = builder.create<LLVM::AddressOfOp>(
      loc, tegula::backend::getOrCreateStringGlobal(
               builder, loc, module, kStringPrefix, text, kGlobalSpace));
  return builder.create<LLVM::AddrSpaceCastOp>(loc,
                                               ptrType(builder.getContext()),
                                               address);
}

/// |text| with every '%' doubled, for a printf format.
std::string escapeFormat(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%%";
    else if (c == '\n' || c == '\r')
      out += ' '; // One line per print, as the host prints it.
    else
      out += c;
  }
  return out;
}

/// |value| (any integer, or an index) as an i64, sign- or zero-extended.
Value toI64(OpBuilder &builder, Location loc, Value value, bool isSigned) {
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

/// Calls vprintf(|format|, args) with |args| stored, naturally aligned, in a
/// local buffer (the layout vprintf reads). The buffer is an alloca in the
/// entry block of the enclosing llvm.func, so that prints in loops do not
/// grow the stack.
LogicalResult callPrintf(OpBuilder &builder, Location loc, ModuleOp module,
                         StringRef format, ArrayRef<Value> args) {
  MLIRContext *context = builder.getContext();
  LLVM::LLVMFuncOp func = tegula::backend::getEnclosingLLVMFunction(builder);
  if (!func || func.getBody().empty())
    return emitError(loc) << "nvidia print: the code is not inside an "
                             "llvm.func with a body";
  Type ptr = ptrType(context);
  auto printfType =
      LLVM::LLVMFunctionType::get(builder.getI32Type(), {ptr, ptr});
  if (failed(declareFunction(builder, loc, module, kPrintFunction,
                             printfType)))
    return failure();

  Value buffer;
  if (args.empty()) {
    buffer = builder.create<LLVM::ZeroOp>(loc, ptr);
  } else {
    SmallVector<Type> fields;
    for (Value arg : args)
      fields.push_back(arg.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(context, fields);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&func.getBody().front());
      Value one = constantI32(builder, loc, 1);
      buffer = builder.create<LLVM::AllocaOp>(loc, ptr, structType, one,
                                              /*alignment=*/8);
    }
    for (auto [i, arg] : llvm::enumerate(args)) {
      Value field = builder.create<LLVM::GEPOp>(
          loc, ptr, structType, buffer,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
          /*inbounds=*/true);
      builder.create<LLVM::StoreOp>(loc, arg, field);
    }
  }
  Value formatAddress = stringConstant(builder, loc, module, format);
  builder.create<LLVM::CallOp>(loc, printfType, kPrintFunction,
                               ValueRange{formatAddress, buffer});
  return success();
}

/// The three program ids, for "pid (x, y, z)".
SmallVector<Value> programIds(OpBuilder &builder, Location loc) {
  Type i32 = builder.getI32Type();
  return {builder.create<NVVM::BlockIdXOp>(loc, i32),
          builder.create<NVVM::BlockIdYOp>(loc, i32),
          builder.create<NVVM::BlockIdZOp>(loc, i32)};
}

/// True when |index| is a constant below zero (a scalar: no element index).
/// Matched by op class, not with m_ConstantInt: hasTrait<ConstantLike>
/// compares TypeIDs made from compiler-specific type names, which differ
/// between this GCC-built code and a clang-built libMLIR.
bool isScalarIndex(Value index) {
  Attribute value;
  if (auto constant = index.getDefiningOp<arith::ConstantOp>())
    value = constant.getValue();
  else if (auto constant = index.getDefiningOp<LLVM::ConstantOp>())
    value = constant.getValue();
  auto integer = dyn_cast_or_null<IntegerAttr>(value);
  return integer && integer.getValue().isNegative();
}

} // namespace

void tegula::nvidia::loadNvidiaHookDialects(MLIRContext &context) {
  context.loadDialect<NVVM::NVVMDialect, LLVM::LLVMDialect,
                      arith::ArithDialect>();
}

Value NvidiaTargetHooks::buildProgramId(OpBuilder &builder, Location loc,
                                        Axis axis) const {
  Type i32 = builder.getI32Type();
  switch (axis) {
  case Axis::X:
    return builder.create<NVVM::BlockIdXOp>(loc, i32);
  case Axis::Y:
    return builder.create<NVVM::BlockIdYOp>(loc, i32);
  case Axis::Z:
    return builder.create<NVVM::BlockIdZOp>(loc, i32);
  }
  return builder.create<NVVM::BlockIdXOp>(loc, i32);
}

Value NvidiaTargetHooks::buildNumPrograms(OpBuilder &builder, Location loc,
                                          Axis axis) const {
  Type i32 = builder.getI32Type();
  switch (axis) {
  case Axis::X:
    return builder.create<NVVM::GridDimXOp>(loc, i32);
  case Axis::Y:
    return builder.create<NVVM::GridDimYOp>(loc, i32);
  case Axis::Z:
    return builder.create<NVVM::GridDimZOp>(loc, i32);
  }
  return builder.create<NVVM::GridDimXOp>(loc, i32);
}

Value NvidiaTargetHooks::buildThreadId(OpBuilder &builder, Location loc) const {
  return builder.create<NVVM::ThreadIdXOp>(loc, builder.getI32Type());
}

void NvidiaTargetHooks::buildBarrier(OpBuilder &builder, Location loc) const {
  builder.create<NVVM::Barrier0Op>(loc);
}

Value NvidiaTargetHooks::buildShuffle(OpBuilder &builder, Location loc,
                                      Value value, ShuffleKind kind,
                                      Value offset) const {
  Type type = value.getType();
  if (!type.isInteger(32) && !type.isF32()) {
    emitError(loc) << "nvidia shuffle: cannot shuffle a value of type " << type
                   << " (i32 or f32 only; the caller splits wider values)";
    return builder.create<LLVM::PoisonOp>(loc, type);
  }
  // The c operand of shfl.sync: segment mask (bits 8-12) 0, so the whole
  // warp is one segment, and the clamp (bits 0-4): the last lane for bfly,
  // down and idx, the first for up (PTX ISA, shfl.sync).
  NVVM::ShflKind mode = NVVM::ShflKind::bfly;
  int32_t clamp = 0x1f;
  switch (kind) {
  case ShuffleKind::Xor:
    mode = NVVM::ShflKind::bfly;
    break;
  case ShuffleKind::Up:
    mode = NVVM::ShflKind::up;
    clamp = 0;
    break;
  case ShuffleKind::Down:
    mode = NVVM::ShflKind::down;
    break;
  case ShuffleKind::Index:
    mode = NVVM::ShflKind::idx;
    break;
  }
  Value members = constantI32(builder, loc, -1); // 0xffffffff
  Value maskAndClamp = constantI32(builder, loc, clamp);
  return builder.create<NVVM::ShflOp>(
      loc, type, members, value, offset, maskAndClamp,
      NVVM::ShflKindAttr::get(builder.getContext(), mode),
      /*return_value_and_is_valid=*/UnitAttr());
}

Value NvidiaTargetHooks::buildScratchBase(OpBuilder &builder,
                                          Location loc) const {
  MLIRContext *context = builder.getContext();
  Type sharedPtr = ptrType(context, kSharedSpace);
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  if (!module) {
    emitError(loc) << "nvidia target hooks: the scratch base is asked for "
                      "outside a module";
    return builder.create<LLVM::PoisonOp>(loc, sharedPtr);
  }
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedMemorySymbol);
  if (!global) {
    if (module.lookupSymbol(kSharedMemorySymbol)) {
      emitError(loc) << "nvidia target hooks: the module already has a "
                        "symbol @"
                     << kSharedMemorySymbol
                     << " that is not the shared memory array";
      return builder.create<LLVM::PoisonOp>(loc, sharedPtr);
    }
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    // `.extern .shared .align 1024 .b8 tegula_shared[]`: the launch's dynamic
    // shared memory.
    global = builder.create<LLVM::GlobalOp>(
        loc, LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kSharedMemorySymbol,
        Attribute(), /*alignment=*/1024, kSharedSpace);
  }
  return builder.create<LLVM::AddressOfOp>(loc, global);
}

LogicalResult NvidiaTargetHooks::buildPrint(OpBuilder &builder, Location loc,
                                            StringRef prefix, Value index,
                                            Value value, bool isSigned,
                                            bool hex) const {
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  if (!module)
    return emitError(loc) << "nvidia print: the code is not inside a module";
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << "nvidia print: the element index is "
                          << index.getType() << ", not an integer";

  std::string format = "pid (%u, %u, %u)";
  SmallVector<Value> args = programIds(builder, loc);
  if (!isScalarIndex(index)) {
    format += " idx (%lld)";
    args.push_back(toI64(builder, loc, index, /*isSigned=*/true));
  }
  // Triton's front end makes the prefix " name: "; a bare "name:" gets the
  // same spacing (the host plugin's rule).
  std::string text = escapeFormat(prefix);
  if (text.empty() || text.front() != ' ')
    text.insert(text.begin(), ' ');
  if (!value) {
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    format += text + "\n";
    return callPrintf(builder, loc, module, format, args);
  }
  if (text.back() != ' ')
    text.push_back(' ');
  format += text;

  Type type = value.getType();
  MLIRContext *context = builder.getContext();
  auto hexFormat = [&](unsigned width) {
    return "0x%0" + std::to_string((width + 3) / 4) + "llx";
  };
  if (isa<IndexType>(type)) {
    format += hex ? hexFormat(64) : "%lld";
    args.push_back(toI64(builder, loc, value, /*isSigned=*/true));
  } else if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    // i1 prints as 0 or 1 whatever the signedness; hex shows the value's
    // own bits.
    bool sign = isSigned && width > 1 && !hex;
    format += hex ? hexFormat(width) : sign ? "%lld" : "%llu";
    args.push_back(toI64(builder, loc, value, sign));
  } else if (auto floatType = dyn_cast<FloatType>(type)) {
    unsigned width = floatType.getWidth();
    if (hex) {
      Value raw = builder.create<LLVM::BitcastOp>(
          loc, IntegerType::get(context, width), value);
      format += hexFormat(width);
      args.push_back(toI64(builder, loc, raw, /*isSigned=*/false));
    } else {
      Value wide = value;
      if (width < 64)
        wide = builder.create<LLVM::FPExtOp>(loc, builder.getF64Type(), value);
      else if (width > 64)
        wide =
            builder.create<LLVM::FPTruncOp>(loc, builder.getF64Type(), value);
      format += "%f";
      args.push_back(wide);
    }
  } else if (isa<LLVM::LLVMPointerType>(type)) {
    format += "0x%llx";
    args.push_back(
        builder.create<LLVM::PtrToIntOp>(loc, builder.getI64Type(), value));
  } else {
    return emitError(loc) << "nvidia print: cannot print a value of type "
                          << type << " (integers, floats and pointers only)";
  }
  format += "\n";
  return callPrintf(builder, loc, module, format, args);
}

LogicalResult NvidiaTargetHooks::buildAssertFailure(
    OpBuilder &builder, Location loc, StringRef message, StringRef file,
    unsigned line, StringRef function, Value index) const {
  MLIRContext *context = builder.getContext();
  ModuleOp module = tegula::backend::getEnclosingModule(builder);
  if (!module)
    return emitError(loc) << "nvidia assert: the code is not inside a module";
  if (!isa<IntegerType, IndexType>(index.getType()))
    return emitError(loc) << "nvidia assert: the element index is "
                          << index.getType() << ", not an integer";

  // The line the host plugin makes its launch error of, on the device's
  // stdout: __assertfail's own line lacks the program and the element.
  std::string format = "device_assert failed at " + escapeFormat(file) + ":" +
                       std::to_string(line) + " in " +
                       escapeFormat(function) + ": " + escapeFormat(message) +
                       " (program (%u, %u, %u)";
  SmallVector<Value> args = programIds(builder, loc);
  if (!isScalarIndex(index)) {
    format += ", element %lld";
    args.push_back(toI64(builder, loc, index, /*isSigned=*/true));
  }
  format += ")\n";
  if (failed(callPrintf(builder, loc, module, format, args)))
    return failure();

  // void __assertfail(const char *message, const char *file, unsigned line,
  //                   const char *function, size_t charSize)
  Type ptr = ptrType(context);
  auto assertType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context),
      {ptr, ptr, builder.getI32Type(), ptr, builder.getI64Type()});
  if (failed(declareFunction(builder, loc, module, kAssertFunction,
                             assertType)))
    return failure();
  Value messageAddress = stringConstant(builder, loc, module, message);
  Value fileAddress = stringConstant(builder, loc, module, file);
  Value functionAddress = stringConstant(builder, loc, module, function);
  builder.create<LLVM::CallOp>(
      loc, assertType, kAssertFunction,
      ValueRange{messageAddress, fileAddress,
                 constantI32(builder, loc, static_cast<int32_t>(line)),
                 functionAddress, constantI64(builder, loc, 1)});
  return success();
}

void NvidiaTargetHooks::buildAtomicFence(OpBuilder &builder, Location loc,
                                         bool before,
                                         backend::MemoryOrder order,
                                         backend::MemoryScope scope) const {
  using backend::MemoryOrder;
  bool releases = order == MemoryOrder::Release ||
                  order == MemoryOrder::AcquireRelease;
  bool acquires = order == MemoryOrder::Acquire ||
                  order == MemoryOrder::AcquireRelease;
  if (before ? !releases : !acquires)
    return;
  const char *text = scope == backend::MemoryScope::Block
                         ? "fence.acq_rel.cta;"
                         : scope == backend::MemoryScope::System
                               ? "fence.acq_rel.sys;"
                               : "fence.acq_rel.gpu;";
  buildSideEffectAsm(builder, loc, text);
}

FailureOr<SmallVector<Value>> NvidiaTargetHooks::buildMatrixMultiply(
    OpBuilder &builder, Location loc, StringRef kind, ArrayRef<int64_t> version,
    ArrayRef<int64_t> instrShape, ValueRange a, ValueRange b,
    ValueRange c) const {
  if (kind != "nvidia.mma" || version.size() != 1 || version[0] != 2 ||
      instrShape.size() != 2 || instrShape[0] != 16 || instrShape[1] != 8 ||
      a.empty() || c.size() != 4)
    return failure();
  // The operand type picks the instruction: 16-bit floats m16n8k16, f32 as
  // tf32 m16n8k8 (the registers' low 13 mantissa bits ignored, as Triton's
  // input_precision="tf32"), i8 m16n8k32 (signed, into s32).
  Type operand = a.front().getType();
  std::string type, accType = "f32", shape;
  int64_t width;
  if (operand.isF16() || operand.isBF16()) {
    type = operand.isF16() ? "f16" : "bf16";
    shape = "m16n8k16";
    width = 2;
  } else if (operand.isF32()) {
    type = "tf32";
    shape = "m16n8k8";
    width = 1;
  } else if (operand.isInteger(8)) {
    type = "s8";
    accType = "s32";
    shape = "m16n8k32";
    width = 4;
  } else {
    return failure();
  }
  if (static_cast<int64_t>(a.size()) != 4 * width ||
      static_cast<int64_t>(b.size()) != 2 * width)
    return failure();
  for (ValueRange operands : {a, b})
    for (Value value : operands)
      if (value.getType() != operand)
        return failure();
  Type accElem = accType == "f32" ? Type(builder.getF32Type())
                                  : Type(builder.getI32Type());
  for (Value value : c)
    if (value.getType() != accElem)
      return failure();

  // |width| consecutive operand elements as one .b32 register, the first in
  // the low bits.
  MLIRContext *context = builder.getContext();
  auto pack = [&](ValueRange elements) -> Value {
    if (elements.size() == 1)
      return builder.create<LLVM::BitcastOp>(loc, builder.getI32Type(),
                                             elements.front());
    auto vectorType = VectorType::get(
        {static_cast<int64_t>(elements.size())}, operand);
    Value vector = builder.create<LLVM::PoisonOp>(loc, vectorType);
    for (auto [i, element] : llvm::enumerate(elements))
      vector = builder.create<LLVM::InsertElementOp>(
          loc, vector, element,
          constantI32(builder, loc, static_cast<int32_t>(i)));
    return builder.create<LLVM::BitcastOp>(loc, builder.getI32Type(), vector);
  };
  SmallVector<Value> operands;
  for (int64_t i = 0; i < 4; ++i)
    operands.push_back(pack(a.slice(i * width, width)));
  for (int64_t i = 0; i < 2; ++i)
    operands.push_back(pack(b.slice(i * width, width)));
  operands.append(c.begin(), c.end());

  std::string text = "mma.sync.aligned." + shape + ".row.col." + accType +
                     "." + type + "." + type + "." + accType +
                     " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                     "{$10, $11, $12, $13};";
  std::string acc = accType == "f32" ? "f" : "r";
  std::string constraints = "=" + acc + ",=" + acc + ",=" + acc + ",=" + acc +
                            ",r,r,r,r,r,r," + acc + "," + acc + "," + acc +
                            "," + acc;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      context, {accElem, accElem, accElem, accElem});
  auto mma = buildPtx(builder, loc, resultType, operands, text, constraints,
                      /*sideEffects=*/false);
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(builder.create<LLVM::ExtractValueOp>(loc, mma.getResult(0),
                                                     ArrayRef<int64_t>{i}));
  return d;
}

namespace {

/// The 64-bit wgmma matrix descriptor of |operand| (PTX ISA, "Matrix
/// Descriptor Format"): address >> 4 in bits 0-13, the leading-dimension
/// byte offset >> 4 in 16-29, the stride-dimension byte offset >> 4 (8 rows
/// of one swizzle atom) in 32-45, the swizzle mode in 62-63.
Value buildMatrixDescriptor(OpBuilder &builder, Location loc,
                            const tegula::backend::SharedMatrixOperand &operand) {
  uint64_t mode = operand.swizzleBytes == 128  ? 1
                  : operand.swizzleBytes == 64 ? 2
                  : operand.swizzleBytes == 32 ? 3
                                               : 0;
  uint64_t fields = (((static_cast<uint64_t>(operand.atomStrideBytes) >> 4) &
                      0x3FFF)
                     << 16) |
                    (((static_cast<uint64_t>(operand.swizzleBytes * 8) >> 4) &
                      0x3FFF)
                     << 32) |
                    (mode << 62);
  Type i64 = builder.getI64Type();
  Value address = builder.create<arith::ExtUIOp>(loc, i64, operand.address);
  Value start = builder.create<arith::AndIOp>(
      loc, builder.create<arith::ShRUIOp>(loc, address,
                                          constantI64(builder, loc, 4)),
      constantI64(builder, loc, 0x3FFF));
  return builder.create<arith::OrIOp>(
      loc, start, constantI64(builder, loc, static_cast<int64_t>(fields)));
}

/// The value of an arith or LLVM constant, else null. By op class, not
/// matchPattern/m_Constant: the ConstantLike trait's TypeID does not
/// resolve inside this hidden-visibility plugin.
Attribute constantAttr(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    return constant.getValue();
  if (auto constant = value.getDefiningOp<LLVM::ConstantOp>())
    return constant.getValue();
  return {};
}

/// An integer constant's value.
std::optional<int64_t> constantValue(Value value) {
  if (auto number = dyn_cast_or_null<IntegerAttr>(constantAttr(value)))
    return number.getValue().getSExtValue();
  return std::nullopt;
}

/// |value| as root + constant, peeling additions of constants.
std::pair<Value, int64_t> splitConstantOffset(Value value) {
  int64_t offset = 0;
  while (auto add = value.getDefiningOp<arith::AddIOp>()) {
    if (auto c = constantValue(add.getRhs())) {
      offset += *c;
      value = add.getLhs();
    } else if (auto c = constantValue(add.getLhs())) {
      offset += *c;
      value = add.getRhs();
    } else {
      break;
    }
  }
  return {value, offset};
}

} // namespace

LogicalResult NvidiaTargetHooks::buildAsyncCopy(OpBuilder &builder,
                                                Location loc, Value destination,
                                                Value source, int64_t bytes,
                                                Value predicate) const {
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return failure();
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  Value shared = builder.create<LLVM::PtrToIntOp>(loc, i32, destination);
  Value size = constantI32(builder, loc, static_cast<int32_t>(bytes));
  if (predicate)
    size = builder.create<arith::SelectOp>(loc, predicate, size,
                                           constantI32(builder, loc, 0));
  // .cg (L2 only) exists for 16-byte copies; smaller ones take .ca.
  std::string text = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
                     ".shared.global [$0], [$1], " + std::to_string(bytes) +
                     ", $2;";
  buildPtx(builder, loc, LLVM::LLVMVoidType::get(context),
           ValueRange{shared, source, size}, text, "r,l,r,~{memory}",
           /*sideEffects=*/true);
  return success();
}

FailureOr<SmallVector<Value>> NvidiaTargetHooks::buildSharedMatrixLoad(
    OpBuilder &builder, Location loc, Value address, unsigned count,
    bool transpose) const {
  if (count != 1 && count != 2 && count != 4)
    return failure();
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  Value shared = builder.create<LLVM::PtrToIntOp>(loc, i32, address);
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (transpose ? ".trans" : "") + ".shared.b16 {";
  std::string constraints;
  for (unsigned i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  text += "}, [$" + std::to_string(count) + "];";
  constraints += "r";
  Type result = count == 1 ? i32
                           : Type(LLVM::LLVMStructType::getLiteral(
                                 context, SmallVector<Type>(count, i32)));
  auto load = buildPtx(builder, loc, result, ValueRange{shared}, text,
                       constraints, /*sideEffects=*/true);
  SmallVector<Value> values;
  if (count == 1)
    values.push_back(load.getResult(0));
  else
    for (unsigned i = 0; i < count; ++i)
      values.push_back(builder.create<LLVM::ExtractValueOp>(
          loc, load.getResult(0), ArrayRef<int64_t>{static_cast<int64_t>(i)}));
  return values;
}

void NvidiaTargetHooks::buildAsyncCommit(OpBuilder &builder,
                                         Location loc) const {
  buildSideEffectAsm(builder, loc, "cp.async.commit_group;");
}

void NvidiaTargetHooks::buildAsyncWait(OpBuilder &builder, Location loc,
                                       int64_t pending) const {
  buildSideEffectAsm(builder, loc,
                     "cp.async.wait_group " + std::to_string(pending) + ";");
}

void NvidiaTargetHooks::buildSharedOperandFence(OpBuilder &builder,
                                                Location loc) const {
  buildSideEffectAsm(builder, loc, "fence.proxy.async.shared::cta;");
}

FailureOr<SmallVector<Value>> NvidiaTargetHooks::buildSharedMatrixMultiply(
    OpBuilder &builder, Location loc,
    const tegula::backend::SharedMatrixMultiply &group, ValueRange acc) const {
  if (group.kind != "nvidia.mma" || group.version.size() != 1 ||
      group.version[0] != 3 || group.m != 64 || group.k != 16 ||
      group.n < 8 || group.n > 256 || group.n % 8 != 0 ||
      group.aType != group.bType ||
      !(group.aType.isF16() || group.aType.isBF16()))
    return failure();
  int64_t numAcc = group.n / 2;
  for (Value value : acc)
    if (!value.getType().isF32())
      return failure();
  const auto &instructions = group.instructions;
  int64_t total = static_cast<int64_t>(acc.size());
  for (const auto &instruction : instructions) {
    if (static_cast<int64_t>(instruction.accIndices.size()) != numAcc ||
        llvm::any_of(instruction.accIndices, [&](int64_t index) {
          return index < 0 || index >= total;
        }))
      return failure();
    bool aInRegisters = !instruction.a.registers.empty();
    if (aInRegisters && instruction.a.registers.size() != 4)
      return failure();
  }

  MLIRContext *context = builder.getContext();
  Type f32 = builder.getF32Type();
  // Accumulators that are still the constant +0.0 (a dot without an
  // accumulator: attention's QK^T): the instruction that first writes them
  // runs with scale-d false (D = A*B), so no zeros are moved into them.
  SmallVector<bool> zero(total);
  for (auto [i, value] : llvm::enumerate(acc)) {
    auto number = dyn_cast_or_null<FloatAttr>(constantAttr(value));
    zero[i] = number && number.getValue().isPosZero();
  }

  // The chains: runs of instructions on the same accumulators (a dot's K
  // steps). A chain whose accumulators are all still zero is fresh: its
  // first instruction runs with scale-d false and they need no input.
  struct Chain {
    size_t first, end;
    bool fresh;
  };
  SmallVector<Chain> chains;
  SmallVector<bool> tied(total, true);
  for (size_t first = 0; first < instructions.size();) {
    size_t end = first + 1;
    while (end < instructions.size() &&
           instructions[end].accIndices == instructions[first].accIndices)
      ++end;
    ArrayRef<int64_t> indices = instructions[first].accIndices;
    bool fresh = llvm::all_of(indices, [&](int64_t i) { return zero[i]; });
    for (int64_t i : indices) {
      if (fresh)
        tied[i] = false;
      zero[i] = false;
    }
    chains.push_back({first, end, fresh});
    first = end;
  }

  // The whole group is one asm statement: fence, the chains, commit and
  // wait. Every accumulator crosses LLVM once, as an output ($0..$N-1) tied
  // to its input unless a fresh chain writes it; then the scale-d sources
  // (0 for predicate p, 1 for q), then per chain the root descriptors of A
  // and B where the chain shares them, and per instruction A (a descriptor,
  // or four registers) and B's descriptor where not. With A in registers
  // there is no transpose bit for A. Nothing reads an accumulator before
  // the wait: the outputs are defined by the statement that waits.
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t i = 0; i < total; ++i)
    constraints += (i ? ",=f" : "=f");
  for (int64_t i = 0; i < total; ++i)
    if (tied[i]) {
      constraints += "," + std::to_string(i);
      operands.push_back(acc[i]);
    }
  int64_t next = total + static_cast<int64_t>(operands.size());
  operands.push_back(constantI32(builder, loc, 0));
  operands.push_back(constantI32(builder, loc, 1));
  constraints += ",r,r";
  std::string text = "{\n.reg .pred p, q;\n.reg .b64 da, db;\n"
                     "setp.ne.b32 p, $" +
                     std::to_string(next) + ", 0;\nsetp.ne.b32 q, $" +
                     std::to_string(next + 1) + ", 0;\n" +
                     "wgmma.fence.sync.aligned;\n";
  next += 2;

  std::string type = group.aType.isF16() ? "f16" : "bf16";
  std::string shape = "m64n" + std::to_string(group.n) + "k16";
  for (const Chain &chain : chains) {
    std::string accList = "{";
    for (auto [j, index] : llvm::enumerate(instructions[chain.first].accIndices))
      accList += (j ? ", $" : "$") + std::to_string(index);
    accList += "}";
    // Where every instruction's operand address is one root plus a
    // constant, the root's descriptor is the only operand and each step's
    // is derived in the statement (the start address field counts 16-byte
    // units; shared addresses stay below 2^18, so no carry leaves it).
    // LLVM then has one descriptor to keep instead of one per K step.
    auto sharedRoot = [&](auto operandOf) -> std::optional<int64_t> {
      auto [root, offset] = splitConstantOffset(operandOf(chain.first).address);
      for (size_t j = chain.first; j < chain.end; ++j) {
        auto [other, otherOffset] = splitConstantOffset(operandOf(j).address);
        if (other != root || otherOffset % 16 || otherOffset < 0 ||
            otherOffset >= (1 << 18))
          return std::nullopt;
      }
      tegula::backend::SharedMatrixOperand base = operandOf(chain.first);
      base.address = root;
      operands.push_back(buildMatrixDescriptor(builder, loc, base));
      constraints += ",l";
      return next++;
    };
    // The descriptor of |operand| in the statement: "$n", or the derived
    // register |name| after the add that sets it.
    auto descriptor = [&](std::optional<int64_t> rootIndex,
                          const tegula::backend::SharedMatrixOperand &operand,
                          StringRef name) -> std::string {
      if (!rootIndex) {
        constraints += ",l";
        operands.push_back(buildMatrixDescriptor(builder, loc, operand));
        return "$" + std::to_string(next++);
      }
      int64_t units = splitConstantOffset(operand.address).second / 16;
      if (units == 0)
        return "$" + std::to_string(*rootIndex);
      text += "add.s64 " + name.str() + ", $" + std::to_string(*rootIndex) +
              ", " + std::to_string(units) + ";\n";
      return name.str();
    };
    bool aInRegisters = !instructions[chain.first].a.registers.empty();
    for (size_t j = chain.first; j < chain.end; ++j)
      if (instructions[j].a.registers.empty() == aInRegisters)
        return failure();
    std::optional<int64_t> aRoot, bRoot;
    if (!aInRegisters)
      aRoot = sharedRoot([&](size_t j) { return instructions[j].a; });
    bRoot = sharedRoot([&](size_t j) { return instructions[j].b; });
    for (size_t j = chain.first; j < chain.end; ++j) {
      const auto &instruction = instructions[j];
      std::string a;
      if (aInRegisters) {
        a = "{";
        for (int64_t i = 0; i < 4; ++i)
          a += (i ? ", $" : "$") + std::to_string(next + i);
        a += "}";
        constraints += ",r,r,r,r";
        llvm::append_range(operands, instruction.a.registers);
        next += 4;
      } else {
        a = descriptor(aRoot, instruction.a, "da");
      }
      std::string b = descriptor(bRoot, instruction.b, "db");
      text += "wgmma.mma_async.sync.aligned." + shape + ".f32." + type + "." +
              type + " " + accList + ", " + a + ", " + b +
              (j == chain.first && chain.fresh ? ", p" : ", q") + ", 1, 1, ";
      if (!aInRegisters)
        text += std::string(instruction.a.mnMajor ? "1" : "0") + ", ";
      text += std::string(instruction.b.mnMajor ? "1" : "0") + ";\n";
    }
  }
  text += "wgmma.commit_group.sync.aligned;\n"
          "wgmma.wait_group.sync.aligned 0;\n}";
  auto resultType = LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(total, f32));
  auto mma = buildPtx(builder, loc, resultType, operands, text, constraints,
                      /*sideEffects=*/true);
  SmallVector<Value> result;
  for (int64_t i = 0; i < total; ++i)
    result.push_back(builder.create<LLVM::ExtractValueOp>(
        loc, mma.getResult(0), ArrayRef<int64_t>{i}));
  return result;
}
