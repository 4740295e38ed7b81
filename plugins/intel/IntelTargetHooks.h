//===- IntelTargetHooks.h - What the lowering asks an Intel GPU -*- C++ -*-===//
//
// TargetHooks for SPIR-V kernels under the OpenCL execution model, built
// with LLVM dialect ops only: the sub-group is the warp (16 or 32
// work-items), global memory is address space 1 (CrossWorkgroup) and shared
// local memory 3 (Workgroup). Each primitive is a call of an OpenCL C
// builtin by its Itanium-mangled name, which the SPIR-V translator turns
// into SPIR-V (IntelCodegen.h gives every call the spir_func convention):
//
//   program id / count   get_group_id(axis) / get_num_groups(axis)
//   thread id            get_local_id(0)   (work-groups are 1-D)
//   barrier              barrier(CLK_LOCAL_MEM_FENCE): OpControlBarrier
//                        Workgroup, Workgroup, SequentiallyConsistent |
//                        WorkgroupMemory
//   shuffles             sub_group_shuffle{_xor,_up,_down,}
//                        (cl_khr_subgroup_shuffle[_relative]):
//                        OpGroupNonUniformShuffle{Xor,Up,Down,}. Unlike
//                        CUDA's shfl, up/down from a lane outside the
//                        sub-group is undefined; the lowering uses xor only.
//   scratch              the module's `tegula_shared` array in address
//                        space 3, declared [0 x i8] here and given the
//                        kernel's scratch size by the code generator: a
//                        Workgroup variable (SLM), no launch argument.
//
// tl.device_print calls OpenCL's printf (OpExtInst printf) with the host
// plugin's line; so does a failed tl.device_assert, with the line the host
// makes its launch error of, but the kernel then goes on and the launch
// does not fail: SPIR-V for OpenCL has no way to stop a kernel (no abort;
// IGC's __assert_fail is not portable to the CPU runtime). An op a hook
// cannot build is refused with an error at its location, which
// IntelCompiler.h makes TG_ERROR_UNIMPLEMENTED (kUnsupportedMarker).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELTARGETHOOKS_H
#define TEGULA_PLUGINS_INTEL_INTELTARGETHOOKS_H

#include "tegula/BackendKit/TargetHooks.h"

#include <memory>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::intel {

/// The symbol of the shared local memory array the scratch base points to.
inline constexpr const char *kSharedMemorySymbol = "tegula_shared";
/// What a hook's refusal of an op says; IntelCompiler.h looks for it.
inline constexpr const char *kUnsupportedMarker =
    "is not supported by the intel plugin yet";

/// The Intel answers to the generic lowering for sub-groups of
/// |subGroupSize| work-items (stateless: one instance may serve concurrent
/// compiles). They build with the LLVM and arith dialects
/// (TargetHooks::loadDialects).
std::unique_ptr<backend::TargetHooks>
createIntelTargetHooks(unsigned subGroupSize);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELTARGETHOOKS_H
