//===- AmdLayoutPolicy.h - How AMD GPUs lay out tiles -----------*- C++ -*-===//
//
// The AMD plugin's LayoutPolicy: a warp is a wavefront (64 lanes on CDNA,
// 32 on RDNA3, from the capability table), each lane accesses global memory
// 128 bits (16 bytes: global_load_dwordx4) at a time, and loads and stores
// take Triton's coalescing rule (LayoutPolicy's default). Dots take no
// matrix unit yet: the kit's fused multiply-add fallback lays them out and
// lowers them (MFMA and WMMA families are not written; AmdTargets.h lists
// their instructions).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H
#define TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H

#include "AmdTargets.h"

#include "tegula/BackendKit/LayoutPolicy.h"

namespace tegula::amd {

/// Layout choices for one AMD architecture. Stateless.
class AmdLayoutPolicy : public backend::LayoutPolicy {
public:
  explicit AmdLayoutPolicy(const AmdTarget &target) : target(target) {}

  unsigned getWarpSize() const override { return target.waveSize; }
  unsigned getMaxAccessBytes() const override { return 16; }
  /// Nothing: dots are fused multiply-adds (see above).
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(const backend::DotProblem &dot) const override;

private:
  const AmdTarget &target;
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDLAYOUTPOLICY_H
