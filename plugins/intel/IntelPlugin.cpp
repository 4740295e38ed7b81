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
//  - Memory, streams and launch: not yet (the kit's defaults answer
//    TG_ERROR_UNIMPLEMENTED).
//
//===----------------------------------------------------------------------===//

#include "IntelCompiler.h"
#include "IntelTargets.h"

#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/TileCompile.h"
#include "tegula/BackendKit/VendorLibrary.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <level_zero/ze_api.h>

#include <dlfcn.h>

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

/// The Level Zero entry points the plugin calls.
#define TEGULA_ZE_ENTRIES(X)                                                   \
  X(zeInit)                                                                    \
  X(zeDriverGet)                                                               \
  X(zeDeviceGet)                                                               \
  X(zeDeviceGetProperties)                                                     \
  X(zeDeviceGetComputeProperties)                                              \
  X(zeDeviceGetMemoryProperties)

/// The Level Zero entry points, resolved from the loader.
struct LevelZero {
  TEGULA_ZE_ENTRIES(TEGULA_VENDOR_MEMBER)
};

/// "0x78000001 ZE_RESULT_ERROR_UNINITIALIZED" for the results we expect to
/// meet; the hex value alone for the rest.
std::string describe(ze_result_t result) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", static_cast<unsigned>(result));
  const char *name = nullptr;
  switch (result) {
  case ZE_RESULT_ERROR_UNINITIALIZED:
    name = "ZE_RESULT_ERROR_UNINITIALIZED";
    break;
  case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
    name = "ZE_RESULT_ERROR_UNSUPPORTED_VERSION";
    break;
  case ZE_RESULT_ERROR_DEVICE_LOST:
    name = "ZE_RESULT_ERROR_DEVICE_LOST";
    break;
  case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
    name = "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    break;
  default:
    break;
  }
  return name ? std::string(hex) + " " + name : std::string(hex);
}

/// A Level Zero GPU: its properties, filled once at discovery.
using ZeDevice = PropertiesDevice;

class IntelPlugin : public tegula::backend::CompilerPlugin {
public:
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
    tegula::backend::VendorLibrary library("Level Zero loader");
    if (!library.open({"libze_loader.so.1"}))
      return library.error();
#define TEGULA_ZE_RESOLVE(fn) library.resolve(ze.fn, {#fn});
    TEGULA_ZE_ENTRIES(TEGULA_ZE_RESOLVE)
#undef TEGULA_ZE_RESOLVE
    if (!library.error().empty())
      return library.error();

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
    for (ze_driver_handle_t driver : drivers) {
      uint32_t deviceCount = 0;
      if (ze.zeDeviceGet(driver, &deviceCount, nullptr) != ZE_RESULT_SUCCESS)
        continue;
      std::vector<ze_device_handle_t> handles(deviceCount);
      if (ze.zeDeviceGet(driver, &deviceCount, handles.data()) !=
          ZE_RESULT_SUCCESS)
        continue;
      for (ze_device_handle_t device : handles)
        if (auto dev = describeDevice(device))
          addDevice(std::move(dev));
    }
    return devices().empty() ? "Level Zero: no GPU device" : "";
  }

  /// The device's properties; NULL when it is not a GPU or cannot be asked.
  std::unique_ptr<ZeDevice> describeDevice(ze_device_handle_t device) {
    ze_device_properties_t props{};
    props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    if (ze.zeDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS ||
        props.type != ZE_DEVICE_TYPE_GPU)
      return nullptr;
    // Level Zero 1.8 names no architecture; the PCI device ID identifies
    // the GPU generation, and with it the compile target.
    auto dev = std::make_unique<ZeDevice>(
        *this, props.name[0] ? props.name : "Intel GPU",
        intelTargetForDeviceId(props.deviceId).name);

    tg_device_properties &p = dev->props;
    // A sub-slice is an Xe core, the unit a work-group runs on.
    p.compute_units = props.numSlices * props.numSubslicesPerSlice;
    p.clock_khz = props.coreClockRate * 1000; // MHz in Level Zero.

    ze_device_compute_properties_t compute{};
    compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    if (ze.zeDeviceGetComputeProperties(device, &compute) ==
        ZE_RESULT_SUCCESS) {
      p.max_threads_per_block = compute.maxTotalGroupSize;
      p.shared_memory_per_block = compute.maxSharedLocalMemory;
      // The largest sub-group size the device supports.
      for (uint32_t i = 0; i < compute.numSubGroupSizes && i < 8; ++i)
        p.warp_size = std::max(p.warp_size, compute.subGroupSizes[i]);
    }

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

  LevelZero ze;
};

} // namespace

TEGULA_PLUGIN_ENTRY_POINT(IntelPlugin)
