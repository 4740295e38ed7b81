//===- NvidiaTargetHooks.h - What the lowering asks an NVIDIA GPU -*- C++ -*-===//
//
// TargetHooks for NVPTX, built with MLIR's NVVM and LLVM dialects: a warp is
// 32 threads, global memory is address space 1 and shared memory 3; program
// and thread ids are the PTX special registers (%ctaid, %nctaid, %tid), the
// block barrier is bar.sync 0 and cross-lane exchanges are shfl.sync over the
// full warp. The lowering's scratch is the kernel's dynamic shared memory:
// an external `[0 x i8]` array in address space 3, declared once per module.
// tl.device_print calls the CUDA device runtime's vprintf and a failed
// tl.device_assert calls __assertfail (both resolved by ptxas or the
// driver's JIT), which stops the kernel with CUDA_ERROR_ASSERT. Asynchronous
// copies (cp.async) are the AsyncCopy extension getAsyncCopy() returns; the
// matrix units (mma.sync, wgmma) are NvidiaMatrixUnits.h's.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H

#include "tegula/BackendKit/TargetHooks.h"

#include <memory>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::nvidia {

/// The symbol of the dynamic shared memory array the scratch base points to.
inline constexpr const char *kSharedMemorySymbol = "tegula_shared";

/// NVIDIA's answers to the generic lowering (stateless: one instance may
/// serve concurrent compiles). They build with the NVVM, LLVM and arith
/// dialects, which loadDialects loads with NVVM's translation to LLVM IR.
std::unique_ptr<backend::TargetHooks>
createNvidiaTargetHooks();

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H
