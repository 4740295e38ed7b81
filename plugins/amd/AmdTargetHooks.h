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
//                         lowers itself (no fences added), in the scope
//                         of their scope=: syncscope("workgroup") for
//                         "cta", "agent" for "gpu", system for "sys"
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

#include <memory>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::amd {

/// The LDS array the scratch base points to.
inline constexpr const char *kLdsSymbol = "tegula_lds";
/// In every message of a refusal for a feature the plugin lacks (the
/// compiler makes such errors TG_ERROR_UNIMPLEMENTED).
inline constexpr const char *kAmdRefusalMarker = "is not supported by the amd plugin";

/// The AMD answers to the generic lowering for |target|, which must outlive
/// them (stateless: one instance may serve concurrent compiles). They build
/// with the LLVM and arith dialects (TargetHooks::loadDialects).
std::unique_ptr<backend::TargetHooks>
createAmdTargetHooks(const AmdTarget &target);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDTARGETHOOKS_H
