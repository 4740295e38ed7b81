//===- IntelTargets.h - The Intel GPUs the plugin compiles for --*- C++ -*-===//
//
// The plugin's compile targets and what code generation needs of each:
//
//   pvc    Xe-HPC (Data Center GPU Max, Ponte Vecchio): sub-groups of 16
//          (default) or 32, 1024 work-items and 128 KiB of shared local
//          memory per work-group.
//   dg2    Xe-HPG (Arc A-series, Data Center GPU Flex): sub-groups of 16
//          (default) or 32, 1024 work-items, 64 KiB of shared local memory.
//   spirv  any OpenCL 2.0 device with sub-groups (cl_intel_required_
//          subgroup_size): sub-groups of 16 (default) or 32, 256 work-items
//          and 32 KiB of local memory, the OpenCL minimums a device must
//          offer; what Intel's OpenCL CPU runtime runs in tests.
//
// All three get the same portable SPIR-V; the target bounds the work-group
// and the shared local memory a kernel may use and picks the default
// sub-group size. A Level Zero device is mapped to a target by its PCI
// device ID (intelTargetForDeviceId).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELTARGETS_H
#define TEGULA_PLUGINS_INTEL_INTELTARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tegula::intel {

/// One compile target.
struct IntelTarget {
  /// The target name after "intel:" ("pvc").
  const char *name;
  /// What it is, for messages and docs.
  const char *description;
  /// The sub-group size used when the compile does not choose one.
  unsigned defaultSubGroupSize;
  /// The sub-group sizes its kernels may require.
  llvm::ArrayRef<unsigned> subGroupSizes;
  /// The most work-items in one work-group.
  unsigned maxWorkGroupSize;
  /// Shared local memory one work-group may use, in bytes.
  uint64_t sharedLocalMemory;
};

/// Every target, in the order the plugin lists them.
llvm::ArrayRef<IntelTarget> getIntelTargets();

/// The target that fits a Level Zero device with PCI device ID |deviceId|:
/// pvc for 0x0bd0-0x0bdf, dg2 for 0x5690-0x56ff, else spirv.
const IntelTarget &intelTargetForDeviceId(uint32_t deviceId);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELTARGETS_H
