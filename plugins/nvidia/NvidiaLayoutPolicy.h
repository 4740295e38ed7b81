//===- NvidiaLayoutPolicy.h - How NVIDIA GPUs lay out tiles -----*- C++ -*-===//
//
// The NVIDIA plugin's LayoutPolicy: 32-thread warps, 128-bit (16-byte)
// global accesses per thread, and Triton's coalescing rule for the blocked
// layouts of loads and stores (LayoutPolicy's default). With |useMma| (the
// compiler's default; TEGULA_NVIDIA_MMA=0 turns it off for the fallback of
// scalar fused multiply-adds) a dot of f16 or bf16 operands into f32 on sm_80 and later whose M, N
// and K are multiples of 16, 8 and 16 takes "nvidia.mma" v2 m16n8k16
// (mma.sync, NvidiaTargetHooks::buildMatrixMultiply). On sm_90 and later
// with |useWgmma| (TEGULA_NVIDIA_WGMMA=0 turns it off) such a dot whose M
// is a multiple of 64 and whose warps form warp groups takes "nvidia.mma"
// v3 instead: wgmma.mma_async m64nNk16 with operands in swizzled shared
// memory (NvidiaTargetHooks::buildSharedMatrixMultiply).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIALAYOUTPOLICY_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIALAYOUTPOLICY_H

#include "tegula/BackendKit/LayoutPolicy.h"

namespace tegula::nvidia {

/// Layout choices for one NVIDIA architecture. Stateless.
class NvidiaLayoutPolicy : public backend::LayoutPolicy {
public:
  /// |smVersion| is the compute capability as a number (90 for sm_90a);
  /// |useMma| lets dots take mma.sync (see above).
  NvidiaLayoutPolicy(unsigned smVersion, bool useMma = false,
                     bool useWgmma = false)
      : smVersion(smVersion), useMma(useMma), useWgmma(useWgmma) {}

  unsigned getWarpSize() const override { return 32; }
  unsigned getMaxAccessBytes() const override { return 16; }
  /// mma.sync m16n8k16 where it applies and |useMma|, else nothing (FMA).
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(const backend::DotProblem &dot) const override;

  unsigned getSmVersion() const { return smVersion; }

private:
  unsigned smVersion;
  bool useMma;
  bool useWgmma;
};

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIALAYOUTPOLICY_H
