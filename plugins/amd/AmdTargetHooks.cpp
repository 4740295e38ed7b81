//===- AmdTargetHooks.cpp - What the lowering asks an AMD GPU -------------===//

#include "AmdTargetHooks.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tegula::amd;
using namespace tegula::backend;

namespace {

/// AMDGPU address spaces.
constexpr unsigned kConstantSpace = 4;

const char *axisName(Axis axis) {
  switch (axis) {
  case Axis::X:
    return "x";
  case Axis::Y:
    return "y";
  case Axis::Z:
    return "z";
  }
  return "x";
}

/// The DPP control of a quad_perm that reads lane `lane ^ offset` within
/// each group of four, for |offset| 1 or 2; 0 for other offsets.
unsigned quadPermXor(uint64_t offset) {
  if (offset != 1 && offset != 2)
    return 0;
  unsigned control = 0;
  for (unsigned lane = 0; lane < 4; ++lane)
    control |= (lane ^ offset) << (2 * lane);
  return control;
}

} // namespace

namespace tegula::amd {
namespace {

/// The AMD answers to the generic lowering for one architecture.
/// Stateless: one instance may serve concurrent compiles.
class AmdTargetHooks : public backend::TargetHooks {
public:
  explicit AmdTargetHooks(const AmdTarget &target) : target(target) {}

  unsigned getWarpSize() const override { return target.waveSize; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  Value buildProgramId(OpBuilder &builder, Location loc,
                       Axis axis) const override {
    return buildIntrinsic(builder, loc,
                          std::string("workgroup.id.") + axisName(axis),
                          builder.getI32Type(), {});
  }
  Value buildNumPrograms(OpBuilder &builder, Location loc,
                         Axis axis) const override {
    // hsa_kernel_dispatch_packet_t: u16 workgroup_size_{x,y,z} at byte 4,
    // u32 grid_size_{x,y,z} at byte 12; the grid is counted in work-items.
    MLIRContext *context = builder.getContext();
    Type i8 = builder.getI8Type(), i16 = builder.getI16Type(),
         i32 = builder.getI32Type();
    Type constantPtr = LLVM::LLVMPointerType::get(context, kConstantSpace);
    Value packet =
        buildIntrinsic(builder, loc, "dispatch.ptr", constantPtr, {});
    unsigned d = static_cast<unsigned>(axis);
    auto field = [&](int32_t offset, Type type, unsigned align) -> Value {
      Value address = builder.create<LLVM::GEPOp>(
          loc, constantPtr, i8, packet, ArrayRef<LLVM::GEPArg>{offset},
          /*inbounds=*/true);
      return builder.create<LLVM::LoadOp>(loc, type, address, align,
                                          /*isVolatile=*/false,
                                          /*isNonTemporal=*/false,
                                          /*isInvariant=*/true);
    };
    Value blockSize =
        builder.create<LLVM::ZExtOp>(loc, i32, field(4 + 2 * d, i16, 2));
    Value gridSize = field(12 + 4 * d, i32, 4);
    return builder.create<LLVM::UDivOp>(loc, gridSize, blockSize);
  }
  Value buildThreadId(OpBuilder &builder, Location loc) const override {
    return buildIntrinsic(builder, loc, "workitem.id.x", builder.getI32Type(),
                          {});
  }
  void buildBarrier(OpBuilder &builder, Location loc) const override {
    // s_barrier alone does not order LDS accesses: the fences make the
    // stores before it visible to the loads after it (as HIP's
    // __syncthreads).
    builder.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::release,
                                  "workgroup");
    buildIntrinsic(builder, loc, "s.barrier", Type(), {});
    builder.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::acquire,
                                  "workgroup");
  }
  /// ds_bpermute from the source lane (Up and Down keep the lane's own
  /// value where the source is outside the wavefront, as shfl.sync with
  /// PTX's clamps does; Index reads lane |offset| mod the wave size); DPP
  /// quad_perm for Xor by a constant 1 or 2.
  Value buildShuffle(OpBuilder &builder, Location loc, Value value,
                     ShuffleKind kind, Value offset) const override {
    Type type = value.getType();
    Type i32 = builder.getI32Type();
    if (!type.isInteger(32) && !type.isF32()) {
      emitError(loc) << "amd shuffle: cannot shuffle a value of type " << type
                     << " (i32 or f32 only; the caller splits wider values)";
      return builder.create<LLVM::PoisonOp>(loc, type);
    }
    Value bits =
        type.isF32() ? builder.create<LLVM::BitcastOp>(loc, i32, value) : value;
    auto back = [&](Value result) -> Value {
      return type.isF32() ? builder.create<LLVM::BitcastOp>(loc, type, result)
                          : result;
    };

    // A butterfly within groups of four lanes is a DPP move: no LDS
    // traffic, no address computation.
    llvm::APInt constant;
    if (kind == ShuffleKind::Xor && target.dpp &&
        matchPattern(offset, m_ConstantInt(&constant)))
      if (unsigned control = quadPermXor(constant.getZExtValue())) {
        Value moved = buildIntrinsic(
            builder, loc, "update.dpp", i32,
            {bits, bits, constantI32(builder, loc, control),
             constantI32(builder, loc, 0xf), constantI32(builder, loc, 0xf),
             builder.create<LLVM::ConstantOp>(loc, builder.getI1Type(),
                                              builder.getBoolAttr(false))});
        return back(moved);
      }

    Value tid = buildThreadId(builder, loc);
    Value lane = builder.create<LLVM::AndOp>(
        loc, tid, constantI32(builder, loc, target.waveSize - 1));
    Value source;
    switch (kind) {
    case ShuffleKind::Xor:
      source = builder.create<LLVM::XOrOp>(loc, lane, offset);
      break;
    case ShuffleKind::Up: {
      // Lanes below |offset| keep their own value.
      Value below = builder.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult,
                                                 lane, offset);
      source = builder.create<LLVM::SelectOp>(
          loc, below, lane, builder.create<LLVM::SubOp>(loc, lane, offset));
      break;
    }
    case ShuffleKind::Down: {
      // Lanes whose source is past the last lane keep their own value.
      Value up = builder.create<LLVM::AddOp>(loc, lane, offset);
      Value past = builder.create<LLVM::ICmpOp>(
          loc, LLVM::ICmpPredicate::uge, up,
          constantI32(builder, loc, target.waveSize));
      source = builder.create<LLVM::SelectOp>(loc, past, lane, up);
      break;
    }
    case ShuffleKind::Index:
      source = builder.create<LLVM::AndOp>(
          loc, offset, constantI32(builder, loc, target.waveSize - 1));
      break;
    }
    // ds_bpermute addresses lanes in bytes.
    Value address =
        builder.create<LLVM::ShlOp>(loc, source, constantI32(builder, loc, 2));
    return back(
        buildIntrinsic(builder, loc, "ds.bpermute", i32, {address, bits}));
  }
  /// The module's LDS array, 16-byte aligned; the compiler gives it its
  /// size.
  std::optional<SharedScratch> getSharedScratch() const override {
    return SharedScratch{kLdsSymbol, /*alignment=*/16, "amd target hooks"};
  }
  /// AMDGPU's memory model scopes (LLVM AMDGPUUsage, "Memory Scopes"):
  /// scope="cta" is the work-group, "gpu" the agent, "sys" the system
  /// (LLVM's default), as Triton's AMD backend maps them. An agent-scoped
  /// atomic skips the cache writebacks and invalidates that keep the host
  /// coherent.
  /// AMDGPU assembly, as Triton's AMD backend takes
  /// tl.inline_asm_elementwise.
  StringRef getInlineAsmLanguage() const override { return "AMDGPU"; }
  StringRef getAtomicSyncScope(MemoryScope scope) const override {
    switch (scope) {
    case MemoryScope::Block:
      return "workgroup";
    case MemoryScope::Device:
      return "agent";
    case MemoryScope::System:
      return "";
    }
    return "";
  }
  /// Refused (see above): tl.device_print fails the compile.
  LogicalResult buildPrintf(OpBuilder &, Location loc, StringRef,
                            ValueRange) const override {
    return emitError(loc) << "tl.device_print " << kAmdRefusalMarker
                          << " yet (amd:" << target.name
                          << "): it has no HIP host-call printf";
  }
  /// llvm.trap (see above).
  LogicalResult buildAssertFailure(OpBuilder &builder, Location loc, StringRef,
                                   StringRef, unsigned, StringRef,
                                   Value) const override {
    // llvm.trap is s_trap 2 under the AMDHSA ABI: the wave stops and the
    // runtime fails the queue, and with it the launch. The message is not
    // printed: there is no host-call printf.
    builder.create<LLVM::Trap>(loc);
    return success();
  }
  /// The debug mode's out-of-bounds access: llvm.trap too, for the same
  /// reason (the launch fails; where and which index is not printed).
  LogicalResult buildBoundsFailure(OpBuilder &builder, Location loc, StringRef,
                                   StringRef, unsigned, StringRef, Value, Value,
                                   Value) const override {
    builder.create<LLVM::Trap>(loc);
    return success();
  }

  /// `llvm.amdgcn.|name|(|args|)` returning |resultType| (null: nothing),
  /// after checking the capability table; an error at |loc| and a poison
  /// value (or a null value for no result) when the target lacks it.
  Value buildIntrinsic(OpBuilder &builder, Location loc, StringRef name,
                       Type resultType, ValueRange args) const {
    std::string full = ("llvm.amdgcn." + name).str();
    if (std::string why = checkIntrinsic(target, full, 0); !why.empty()) {
      emitError(loc) << full << " " << kAmdRefusalMarker << ": " << why;
      return resultType ? builder.create<LLVM::PoisonOp>(loc, resultType)
                        : Value();
    }
    auto call = builder.create<LLVM::CallIntrinsicOp>(
        loc, resultType ? TypeRange(resultType) : TypeRange(), full, args);
    return resultType ? call.getResult(0) : Value();
  }

  const AmdTarget &getTarget() const { return target; }

private:
  const AmdTarget &target;
};

} // namespace

std::unique_ptr<backend::TargetHooks>
createAmdTargetHooks(const AmdTarget &target) {
  return std::make_unique<AmdTargetHooks>(target);
}

} // namespace tegula::amd
