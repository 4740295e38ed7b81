//===- AmdLayoutPolicy.h - How AMD GPUs lay out tiles -----------*- C++ -*-===//
//
// The AMD plugin's LayoutPolicy: a warp is a wavefront (64 lanes on CDNA,
// 32 on RDNA3, from the capability table), each lane accesses global memory
// 128 bits (16 bytes: global_load_dwordx4) at a time, and loads and stores
// take Triton's coalescing rule (LayoutPolicy's default). Dots take the
// target's matrix unit (AmdMatrixUnits.h: MFMA on CDNA, WMMA on RDNA3)
// when one is given and takes them, else the kit's fused multiply-adds.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H
#define TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H

#include "AmdMatrixUnits.h"
#include "AmdTargets.h"

#include "tegula/BackendKit/LayoutPolicy.h"

namespace tegula::amd {

/// Layout choices for one AMD architecture. Stateless.
class AmdLayoutPolicy : public backend::LayoutPolicy {
public:
  /// |unit| (null: none, FMA dots) must outlive the policy.
  AmdLayoutPolicy(const AmdTarget &target, const AmdMatrixUnit *unit)
      : target(target), unit(unit) {}

  unsigned getWarpSize() const override { return target.waveSize; }
  unsigned getMaxAccessBytes() const override { return 16; }
  /// The matrix unit's instruction, or nothing (fused multiply-adds).
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(const backend::DotProblem &dot) const override;

private:
  const AmdTarget &target;
  const AmdMatrixUnit *unit;
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H
