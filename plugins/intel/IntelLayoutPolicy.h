//===- IntelLayoutPolicy.h - How Intel GPUs lay out tiles -------*- C++ -*-===//
//
// The Intel plugin's LayoutPolicy: the sub-group is the warp (16 or 32
// work-items, the compile's sub_group_size), each work-item accesses at
// most 16 bytes of global memory at once, and loads and stores take
// Triton's coalescing rule (LayoutPolicy's default), so that a sub-group's
// work-items read consecutive vectors. Shared local memory for layout
// conversions and reductions is the lowering's scratch
// (IntelTargetHooks.h). Dots are scalar fused multiply-adds: no DPAS family
// is registered (translator 15 cannot express SPV_INTEL_subgroup_matrix_
// multiply_accumulate; see the README).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELLAYOUTPOLICY_H
#define TEGULA_PLUGINS_INTEL_INTELLAYOUTPOLICY_H

#include "tegula/BackendKit/LayoutPolicy.h"

namespace tegula::intel {

/// Layout choices for sub-groups of |subGroupSize|. Stateless.
class IntelLayoutPolicy : public backend::LayoutPolicy {
public:
  explicit IntelLayoutPolicy(unsigned subGroupSize)
      : subGroupSize(subGroupSize) {}

  unsigned getWarpSize() const override { return subGroupSize; }
  unsigned getMaxAccessBytes() const override { return 16; }
  /// Nothing: every dot is FMA.
  std::optional<backend::MatrixInstruction>
  selectMatrixInstruction(const backend::DotProblem &dot) const override;

private:
  unsigned subGroupSize;
};

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELLAYOUTPOLICY_H
