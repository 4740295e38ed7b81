//===- IntelTargets.cpp - The Intel GPUs the plugin compiles for ----------===//

#include "IntelTargets.h"

using namespace tegula::intel;

namespace {

constexpr unsigned kSubGroups[] = {16, 32};

// Limits from Intel's oneAPI GPU optimization guide (work-group size and
// SLM per Xe core) and, for spirv, the OpenCL 2.0 minimums
// (CL_DEVICE_MAX_WORK_GROUP_SIZE is at least 1, local memory at least
// 32 KiB; 256 work-items is what every Intel GPU and CPU runtime offers).
const IntelTarget kTargets[] = {
    {"pvc", "Intel Xe-HPC (Data Center GPU Max, Ponte Vecchio)", 16, kSubGroups,
     1024, 128 * 1024},
    {"dg2", "Intel Xe-HPG (Arc A-series, Data Center GPU Flex)", 16, kSubGroups,
     1024, 64 * 1024},
    {"spirv", "portable SPIR-V for any OpenCL 2.0 device with sub-groups", 16,
     kSubGroups, 256, 32 * 1024},
};

} // namespace

llvm::ArrayRef<IntelTarget> tegula::intel::getIntelTargets() { return kTargets; }

const IntelTarget &tegula::intel::intelTargetForDeviceId(uint32_t deviceId) {
  // PCI IDs as Intel's compute-runtime lists them (device_ids_configs):
  // PVC 0x0bd0-0x0bdb, DG2 0x5690-0x56c1.
  if (deviceId >= 0x0bd0 && deviceId <= 0x0bdf)
    return kTargets[0];
  if (deviceId >= 0x5690 && deviceId <= 0x56ff)
    return kTargets[1];
  return kTargets[2];
}
