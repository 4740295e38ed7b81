//===- IntelPlugin.cpp - The Intel plugin ---------------------------------===//
//
// `intel`: Intel GPUs through the Level Zero loader (libze_loader.so.1),
// loaded at run time, so the plugin loads everywhere and says why there is
// no device where no Intel GPU driver is installed. Types come from
// Debian's ze_api.h; nothing is linked. Written with the SDK's C++ kit
// (tegula/BackendKit/PluginBase.h), which provides the function table.
//
//  - Discovery: every GPU the loader lists, mapped to a compile target by
//    its PCI device ID (IntelTargets.h).
//  - Compile: tile bytecode -> sub-group layouts -> distributed LLVM
//    dialect -> spir64 LLVM IR -> llvm-spirv-15 -> SPIR-V validated in
//    process (IntelCompiler.h), with the stages llvm-ir, spirv and
//    spirv-asm. Needs no device.
//  - Memory, streams, events, modules and launch through Level Zero
//    (IntelDevice.h).
//
//===----------------------------------------------------------------------===//

#include "IntelCompiler.h"
#include "IntelDevice.h"
#include "IntelTargets.h"

#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/TileCompile.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <level_zero/ze_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace tegula::plugin;
using namespace tegula::intel;
using tegula::backend::toStatus;

namespace {

/// The device's warp size: the sub-group size its kernels get when the
/// compile does not choose one (TEGULA_INTEL_SUB_GROUP_SIZE, else the
/// target's default), so that a launcher's block of num_warps x warp size
/// is the work-group such a kernel requires. The largest size the device
/// runs when it lacks that one (its kernels then fail to load, saying so).
uint32_t defaultSubGroupSize(const IntelTarget &target,
                             const std::vector<uint32_t> &supported) {
  uint32_t size = target.defaultSubGroupSize;
  if (const char *chosen = std::getenv("TEGULA_INTEL_SUB_GROUP_SIZE"))
    for (unsigned candidate : target.subGroupSizes)
      if (std::to_string(candidate) == chosen)
        size = candidate;
  if (supported.empty() ||
      std::find(supported.begin(), supported.end(), size) != supported.end())
    return size;
  return *std::max_element(supported.begin(), supported.end());
}

class IntelPlugin : public tegula::backend::CompilerPlugin {
public:
  /// Streams can wrap a caller's immediate command list
  /// (ZeDevice::wrapNativeStream).
  static constexpr const char *nativeStreamHandleType =
      "ze_command_list_handle_t";

  IntelPlugin()
      : CompilerPlugin({"intel",
                        "0.1.0",
                        "Intel (through Level Zero)",
                        {},
                        getIntelCompileStages(),
                        getIntelCompileOptions()},
                       getIntelTargets(), compileTileModule) {}

private:
  std::string discoverDevices() override {
    std::string whyNot;
    const LevelZero *loaded = LevelZero::get(whyNot);
    if (!loaded)
      return whyNot;
    const LevelZero &ze = *loaded;

    if (ze_result_t r = ze.zeInit(ZE_INIT_FLAG_GPU_ONLY);
        r != ZE_RESULT_SUCCESS)
      // The loader answers this when it finds no GPU driver to initialize.
      return "Level Zero: no GPU driver (zeInit returned " + describe(r) + ")";
    uint32_t driverCount = 0;
    if (ze_result_t r = ze.zeDriverGet(&driverCount, nullptr);
        r != ZE_RESULT_SUCCESS || driverCount == 0)
      return "Level Zero: no GPU driver (zeDriverGet returned " + describe(r) +
             ", count " + std::to_string(driverCount) + ")";
    std::vector<ze_driver_handle_t> drivers(driverCount);
    if (ze.zeDriverGet(&driverCount, drivers.data()) != ZE_RESULT_SUCCESS)
      return "Level Zero: zeDriverGet failed listing drivers";
    std::string failures;
    for (ze_driver_handle_t driver : drivers) {
      uint32_t deviceCount = 0;
      if (ze.zeDeviceGet(driver, &deviceCount, nullptr) != ZE_RESULT_SUCCESS)
        continue;
      std::vector<ze_device_handle_t> handles(deviceCount);
      if (ze.zeDeviceGet(driver, &deviceCount, handles.data()) !=
          ZE_RESULT_SUCCESS)
        continue;
      for (ze_device_handle_t handle : handles) {
        std::unique_ptr<ZeDevice> dev = describeDevice(ze, driver, handle);
        if (!dev)
          continue;
        if (Status status = dev->open(); !status.ok()) {
          failures += (failures.empty() ? "" : "; ") + dev->name + ": " +
                      status.message();
          continue;
        }
        addDevice(std::move(dev));
      }
    }
    if (!devices().empty())
      return "";
    return failures.empty() ? "Level Zero: no GPU device"
                            : "Level Zero: no GPU device could be opened (" +
                                  failures + ")";
  }

  /// The device's properties; NULL when it is not a GPU or cannot be asked.
  std::unique_ptr<ZeDevice> describeDevice(const LevelZero &ze,
                                           ze_driver_handle_t driver,
                                           ze_device_handle_t device) {
    ze_device_properties_t props{};
    props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    if (ze.zeDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS ||
        props.type != ZE_DEVICE_TYPE_GPU)
      return nullptr;
    // Level Zero 1.4 names no architecture; the PCI device ID identifies
    // the GPU generation, and with it the compile target.
    const IntelTarget &target = intelTargetForDeviceId(props.deviceId);
    auto dev = std::make_unique<ZeDevice>(
        *this, ze, driver, device, props.name[0] ? props.name : "Intel GPU",
        target.name);

    tg_device_properties &p = dev->props;
    // A sub-slice is an Xe core, the unit a work-group runs on.
    p.compute_units = props.numSlices * props.numSubslicesPerSlice;
    p.clock_khz = props.coreClockRate * 1000; // MHz in Level Zero.
    // With stype ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, nanoseconds a tick.
    dev->timerResolutionNs = std::max<uint64_t>(props.timerResolution, 1);
    dev->timestampValidBits = props.timestampValidBits;

    ze_device_compute_properties_t compute{};
    compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    if (ze.zeDeviceGetComputeProperties(device, &compute) !=
        ZE_RESULT_SUCCESS)
      return nullptr;
    p.max_threads_per_block = compute.maxTotalGroupSize;
    p.shared_memory_per_block = compute.maxSharedLocalMemory;
    dev->maxGroupSize = compute.maxTotalGroupSize;
    dev->limits.maxSharedBytes = compute.maxSharedLocalMemory;
    dev->limits.maxGrid[0] = compute.maxGroupCountX;
    dev->limits.maxGrid[1] = compute.maxGroupCountY;
    dev->limits.maxGrid[2] = compute.maxGroupCountZ;
    for (uint32_t i = 0;
         i < compute.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; ++i)
      dev->subGroupSizes.push_back(compute.subGroupSizes[i]);
    p.warp_size = defaultSubGroupSize(target, dev->subGroupSizes);

    uint32_t count = 0;
    if (ze.zeDeviceGetMemoryProperties(device, &count, nullptr) ==
            ZE_RESULT_SUCCESS &&
        count) {
      std::vector<ze_device_memory_properties_t> memories(count);
      for (auto &memory : memories)
        memory.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
      if (ze.zeDeviceGetMemoryProperties(device, &count, memories.data()) ==
          ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < count; ++i) {
          p.global_memory += memories[i].totalSize;
          p.memory_clock_khz =
              std::max(p.memory_clock_khz, memories[i].maxClockRate * 1000);
        }
    }
    // DPAS availability needs an extension this loader's headers lack;
    // report no matrix unit rather than guess.
    p.matrix_units = TG_MATRIX_UNIT_NONE;
    return dev;
  }
};

} // namespace

TEGULA_PLUGIN_ENTRY_POINT(IntelPlugin)
