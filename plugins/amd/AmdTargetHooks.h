//===- AmdTargetHooks.h - What the lowering asks an AMD GPU -----*- C++ -*-===//
//
// TargetHooks for AMDGPU, built with the LLVM dialect's llvm.call_intrinsic
// on LLVM's AMDGPU intrinsics, each checked against the target's row of the
// capability table (AmdTargets.h) before it is built:
//
//   program id            llvm.amdgcn.workgroup.id.{x,y,z}
//   number of programs    the dispatch packet (llvm.amdgcn.dispatch.ptr):
//                         grid_size / workgroup_size along the axis, the
//                         same in code object v4 and v5
//   thread id             llvm.amdgcn.workitem.id.x
//   barrier               fence syncscope("workgroup") release, s_barrier,
//                         fence syncscope("workgroup") acquire (LDS ordered)
//   shuffles              ds_bpermute (llvm.amdgcn.ds.bpermute) across the
//                         whole wavefront (64 or 32 lanes); a butterfly
//                         with a constant offset of 1 or 2 is a DPP
//                         quad_perm move (llvm.amdgcn.update.dpp) instead
//   scratch               LDS, address space 3: the module's `tegula_lds`
//                         array, sized by the compiler once the lowering
//                         has said how much a workgroup needs
//   atomics               the kit's atomicrmw / cmpxchg with their
//                         orderings, which LLVM's AMDGPU memory model
//                         lowers itself (no fences added; system scope)
//   print                 refused with a located error: Tegula has no HIP
//                         host-call printf yet (kAmdRefusalMarker)
//   assert                a failed tl.device_assert traps (llvm.trap, which
//                         is s_trap 2 under the AMDHSA ABI): the queue, and
//                         so the launch, fails; the message is not printed
//
// A warp is a wavefront. Hooks that cannot build what they are asked emit
// an error at |loc| and return a poison value (or failure).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDTARGETHOOKS_H
#define TEGULA_PLUGINS_AMD_AMDTARGETHOOKS_H

#include "AmdTargets.h"

#include "tegula/BackendKit/TargetHooks.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::amd {

/// The LDS array the scratch base points to.
inline constexpr const char *kLdsSymbol = "tegula_lds";
/// In every message of a refusal for a feature the plugin lacks (the
/// compiler makes such errors TG_ERROR_UNIMPLEMENTED).
inline constexpr const char *kAmdRefusalMarker = "is not supported by the amd plugin";

/// The AMD answers to the generic lowering for one architecture.
/// Stateless: one instance may serve concurrent compiles.
class AmdTargetHooks : public backend::TargetHooks {
public:
  explicit AmdTargetHooks(const AmdTarget &target) : target(target) {}

  unsigned getWarpSize() const override { return target.waveSize; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  mlir::Value buildProgramId(mlir::OpBuilder &builder, mlir::Location loc,
                             backend::Axis axis) const override;
  mlir::Value buildNumPrograms(mlir::OpBuilder &builder, mlir::Location loc,
                               backend::Axis axis) const override;
  mlir::Value buildThreadId(mlir::OpBuilder &builder,
                            mlir::Location loc) const override;
  void buildBarrier(mlir::OpBuilder &builder,
                    mlir::Location loc) const override;
  /// ds_bpermute from the source lane (Up and Down keep the lane's own
  /// value where the source is outside the wavefront, as shfl.sync with
  /// PTX's clamps does; Index reads lane |offset| mod the wave size); DPP
  /// quad_perm for Xor by a constant 1 or 2.
  mlir::Value buildShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value value, backend::ShuffleKind kind,
                           mlir::Value offset) const override;
  /// The module's `[0 x i8]` LDS array (address space 3, 16-byte aligned),
  /// declared on first use; the compiler gives it its size.
  mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                               mlir::Location loc) const override;
  /// Refused (see above): tl.device_print fails the compile.
  mlir::LogicalResult buildPrintf(mlir::OpBuilder &builder, mlir::Location loc,
                                  llvm::StringRef format,
                                  mlir::ValueRange args) const override;
  /// llvm.trap (see above).
  mlir::LogicalResult
  buildAssertFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef message, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index) const override;

  /// `llvm.amdgcn.|name|(|args|)` returning |resultType| (null: nothing),
  /// after checking the capability table; an error at |loc| and a poison
  /// value (or a null value for no result) when the target lacks it.
  mlir::Value buildIntrinsic(mlir::OpBuilder &builder, mlir::Location loc,
                             llvm::StringRef name, mlir::Type resultType,
                             mlir::ValueRange args) const;

  const AmdTarget &getTarget() const { return target; }

private:
  const AmdTarget &target;
};

/// Loads the dialects AmdTargetHooks builds with (LLVM, arith).
void loadAmdHookDialects(mlir::MLIRContext &context);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDTARGETHOOKS_H
