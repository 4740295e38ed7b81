//===- NvidiaLayoutPolicy.h - How NVIDIA GPUs lay out tiles -----*- C++ -*-===//
//
// The NVIDIA plugin's LayoutPolicy: 32-thread warps, 128-bit (16-byte)
// global accesses per thread, and Triton's coalescing rule for the blocked
// layouts of loads and stores (LayoutPolicy's default). Dots take the
// plugin's matrix-unit families (NvidiaMatrixUnits.h), which decide which
// dots they take: with |useMma| (the compiler's default; TEGULA_NVIDIA_MMA=0
// turns it off for the fallback of scalar fused multiply-adds) on sm_80 and
// later, "nvidia.mma" (mma.sync: f16/bf16, tf32 and i8 dots of whole
// instruction tiles); on sm_90 and later with |useWgmma| as well
// (TEGULA_NVIDIA_WGMMA=0 turns it off), "nvidia.wgmma" first (wgmma.mma_async
// with operands in swizzled shared memory, for 2-D f16/bf16 dots whose M is
// a multiple of 64 and whose warps form warp groups).
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
  /// wgmma, else mma.sync, where they apply (see above), else nothing
  /// (FMA).
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
