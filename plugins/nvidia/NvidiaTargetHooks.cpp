//===- NvidiaTargetHooks.cpp - What the lowering asks an NVIDIA GPU -------===//

#include "NvidiaTargetHooks.h"

#include "NvidiaMatrixUnits.h"
#include "NvidiaPtx.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include <string>

using namespace mlir;
using namespace tegula::nvidia;
using namespace tegula::backend;

namespace {

/// PTX address spaces.
constexpr unsigned kGenericSpace = 0;
constexpr unsigned kGlobalSpace = 1;
constexpr const char *kWho = "nvidia target hooks";

/// Calls vprintf(|format|, args) with |args| stored, naturally aligned, in a
/// local buffer (the layout vprintf reads); the format lives in global
/// memory. The buffer is an alloca in the entry block of the enclosing
/// llvm.func, so that prints in loops do not grow the stack.
LogicalResult callPrintf(OpBuilder &builder, Location loc, StringRef format,
                         ValueRange args) {
  MLIRContext *context = builder.getContext();
  LLVM::LLVMFuncOp func = tegula::backend::getEnclosingLLVMFunction(builder);
  if (!func || func.getBody().empty())
    return emitError(loc) << "nvidia print: the code is not inside an "
                             "llvm.func with a body";
  Type ptr = LLVM::LLVMPointerType::get(context, kGenericSpace);
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
  auto printfType =
      LLVM::LLVMFunctionType::get(builder.getI32Type(), {ptr, ptr});
  return tegula::backend::callExternalFunction(builder, loc, "vprintf",
                                               printfType, {format, buffer},
                                               kWho, kGlobalSpace);
}

/// The special register of |axis| among %<name>.{x,y,z}, as i32.
template <typename X, typename Y, typename Z>
Value axisRegister(OpBuilder &builder, Location loc, Axis axis) {
  Type i32 = builder.getI32Type();
  if (axis == Axis::Y)
    return builder.create<Y>(loc, i32);
  if (axis == Axis::Z)
    return builder.create<Z>(loc, i32);
  return builder.create<X>(loc, i32);
}

} // namespace

namespace tegula::nvidia {
namespace {

/// NVIDIA's answers to the generic lowering. Stateless: one instance may
/// serve concurrent compiles. A hook that cannot build what it is asked
/// emits an error at |loc| and returns a poison value (or failure), so the
/// compile fails with that message.
class NvidiaTargetHooks : public backend::TargetHooks {
public:
  /// NVVM besides the kit's LLVM and arith, with its translation to LLVM
  /// IR.
  void loadDialects(MLIRContext &context) const override {
    TargetHooks::loadDialects(context);
    context.loadDialect<NVVM::NVVMDialect>();
    DialectRegistry registry;
    registerNVVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
  }
  unsigned getWarpSize() const override { return 32; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }
  /// `fence.acq_rel.{cta,gpu,sys}` before a releasing and after an acquiring
  /// atomic (LLVM 19's NVPTX drops atomic orderings).
  void buildAtomicFence(OpBuilder &builder, Location loc, bool before,
                        backend::MemoryOrder order,
                        backend::MemoryScope scope) const override {
    using backend::MemoryOrder;
    bool releases =
        order == MemoryOrder::Release || order == MemoryOrder::AcquireRelease;
    bool acquires =
        order == MemoryOrder::Acquire || order == MemoryOrder::AcquireRelease;
    if (before ? !releases : !acquires)
      return;
    const char *text =
        scope == backend::MemoryScope::Block    ? "fence.acq_rel.cta;"
        : scope == backend::MemoryScope::System ? "fence.acq_rel.sys;"
                                                : "fence.acq_rel.gpu;";
    buildSideEffectAsm(builder, loc, text);
  }

  /// %ctaid.{x,y,z}.
  Value buildProgramId(OpBuilder &builder, Location loc,
                       Axis axis) const override {
    return axisRegister<NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>(
        builder, loc, axis);
  }
  /// %nctaid.{x,y,z}.
  Value buildNumPrograms(OpBuilder &builder, Location loc,
                         Axis axis) const override {
    return axisRegister<NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>(
        builder, loc, axis);
  }
  /// %tid.x.
  Value buildThreadId(OpBuilder &builder, Location loc) const override {
    return builder.create<NVVM::ThreadIdXOp>(loc, builder.getI32Type());
  }
  /// bar.sync 0 (nvvm.barrier0).
  void buildBarrier(OpBuilder &builder, Location loc) const override {
    builder.create<NVVM::Barrier0Op>(loc);
  }
  /// shfl.sync.idx.b32 from lane 0: ptxas then keeps what derives from it
  /// (the warp id, shared-memory descriptors of wgmma) in uniform registers.
  Value buildWarpUniform(OpBuilder &builder, Location loc,
                         Value value) const override {
    return buildShuffle(builder, loc, value, ShuffleKind::Index,
                        constantI32(builder, loc, 0));
  }
  /// shfl.sync.{bfly,up,down,idx}.b32 over all 32 lanes (member mask
  /// 0xffffffff; clamp 0x1f, or 0 for `up`, as PTX defines them).
  Value buildShuffle(OpBuilder &builder, Location loc, Value value,
                     ShuffleKind kind, Value offset) const override {
    Type type = value.getType();
    if (!type.isInteger(32) && !type.isF32()) {
      emitError(loc) << "nvidia shuffle: cannot shuffle a value of type "
                     << type
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

  /// `.extern .shared .align 1024 .b8 tegula_shared[]`: the launch's
  /// dynamic shared memory.
  std::optional<SharedScratch> getSharedScratch() const override {
    return SharedScratch{kSharedMemorySymbol, /*alignment=*/1024, kWho};
  }
  /// vprintf(format, args) (the kit's buildPrint and buildAssertFailure
  /// format Triton's lines).
  LogicalResult buildPrintf(OpBuilder &builder, Location loc, StringRef format,
                            ValueRange args) const override {
    return callPrintf(builder, loc, format, args);
  }
  /// __assertfail(message, file, line, function, 1), which ends the kernel
  /// with CUDA_ERROR_ASSERT (after the kit printed the failed assertion's
  /// line with program and element, which __assertfail's own lacks).
  LogicalResult buildAbort(OpBuilder &builder, Location loc, StringRef message,
                           StringRef file, unsigned line,
                           StringRef function) const override {
    // void __assertfail(const char *message, const char *file, unsigned line,
    //                   const char *function, size_t charSize)
    Type ptr = LLVM::LLVMPointerType::get(builder.getContext(), kGenericSpace);
    auto assertType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(builder.getContext()),
        {ptr, ptr, builder.getI32Type(), ptr, builder.getI64Type()});
    return tegula::backend::callExternalFunction(
        builder, loc, "__assertfail", assertType,
        {message, file, constantI32(builder, loc, static_cast<int32_t>(line)),
         function, constantI64(builder, loc, 1)},
        kWho, kGlobalSpace);
  }
  /// cp.async (NvidiaAsyncCopy, NvidiaMatrixUnits.h).
  const tegula::backend::AsyncCopy *getAsyncCopy() const override {
    return &getNvidiaAsyncCopy();
  }
  /// PTX, as Triton's NVIDIA backend takes tl.inline_asm_elementwise.
  llvm::StringRef getInlineAsmLanguage() const override { return "PTX"; }
};

} // namespace

std::unique_ptr<backend::TargetHooks> createNvidiaTargetHooks() {
  return std::make_unique<NvidiaTargetHooks>();
}

} // namespace tegula::nvidia
