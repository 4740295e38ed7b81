//===- AmdPlugin.cpp - The AMD plugin: discovery through HIP --------------===//
//
// `amd`: AMD GPUs. Written with the SDK's C++ kit
// (tegula/BackendKit/PluginBase.h), which provides the function table.
//
//  - Discovery: AMD GPUs through the HIP runtime (libamdhip64), loaded at
//    run time, so the plugin loads everywhere and says "HIP: no device"
//    where there is no AMD GPU. Types and signatures come from Debian's HIP
//    headers (ROCm 5.2); nothing is linked.
//  - Compile, for gfx90a, gfx942 and gfx1100, with or without a device:
//    tile bytecode -> layouts -> distributed LLVM dialect -> LLVM IR ->
//    AMDGPU object -> hsaco, in an AMD image (AmdCompiler.h). Stages
//    llvm-ir, asm and hsaco; options below.
//  - Memory, streams, events, module load and launch: HipDevice
//    (AmdDevice.h). Only ever run against a recording test double of
//    libamdhip64 (tests/runtime/FakeHip.cpp), never on AMD hardware.
//  - $TEGULA_AMD_HIP_LIBRARY names the HIP runtime to load instead of
//    libamdhip64.
//
//===----------------------------------------------------------------------===//

#include "AmdCompiler.h"
#include "AmdDevice.h"
#include "AmdTargets.h"

#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/TileCompile.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <memory>
#include <string>

using namespace tegula::plugin;
using namespace tegula::amd;
using tegula::backend::toStatus;

namespace {

/// "101 hipErrorInvalidDevice" for |error|, as the no-device reason words
/// each call's answer.
std::string briefly(const HipRuntime &hip, hipError_t error) {
  std::string text = std::to_string(static_cast<int>(error));
  if (hip.hipGetErrorName)
    if (const char *name = hip.hipGetErrorName(error))
      text += std::string(" ") + name;
  return text;
}

/// "gfx90a" from "gfx90a:sramecc+:xnack-".
std::string archFromGcnName(const char *gcnArchName) {
  std::string arch = gcnArchName;
  return arch.substr(0, arch.find(':'));
}

uint32_t matrixUnitsFor(const std::string &arch) {
  // CDNA (gfx908, gfx90a, gfx94x) has MFMA; RDNA3 (gfx11xx) has WMMA.
  if (arch == "gfx908" || arch == "gfx90a" || arch.rfind("gfx94", 0) == 0)
    return TG_MATRIX_UNIT_AMD_MFMA;
  if (arch.rfind("gfx11", 0) == 0)
    return TG_MATRIX_UNIT_AMD_WMMA;
  return TG_MATRIX_UNIT_NONE;
}

class AmdPlugin : public tegula::backend::CompilerPlugin {
public:
  /// Streams can wrap a caller's hipStream_t (HipDevice::wrapNativeStream).
  static constexpr const char *nativeStreamHandleType = "hipStream_t";

  AmdPlugin()
      : CompilerPlugin({"amd",
                        "0.1.0",
                        "AMD (through the HIP runtime)",
                        {},
                        stages(),
                        options()},
                       getAmdTargets(), compileTileModule) {}

private:
  static std::vector<CompileStage> stages() {
    return {{"llvm-ir", false,
             "the optimized LLVM IR the AMDGPU back end receives"},
            {"asm", false, "AMDGPU assembly"},
            {"hsaco", true,
             "the code object (ELF shared object, what hipModuleLoadData "
             "takes)"}};
  }

  static std::vector<CompileOption> options() {
    return {
        CompileOption::integer("num_warps", 1, 32, "", "",
                               "wavefronts per workgroup (a power of 2, at "
                               "most 1024 work-items); default: the "
                               "kernel's, else 4"),
        CompileOption::integer("num_stages", 1, 8, "", "",
                               "software-pipelining depth of dot loops; "
                               "default: the kernel's, else 3"),
        CompileOption::choice("code_object_version", "4|5", "5",
                              "TEGULA_AMD_CODE_OBJECT_VERSION",
                              "AMDHSA code object version"),
        CompileOption::integer("waves_per_eu", 0, 10, "0", "",
                               "amdgpu-waves-per-eu: the fewest waves per "
                               "execution unit to budget registers for; 0 "
                               "lets LLVM decide"),
        CompileOption::flag("matrix_units", true, "TEGULA_AMD_MATRIX_UNITS",
                            "tl.dot on MFMA (gfx90a, gfx942) or WMMA "
                            "(gfx1100) where they take it; 0: fused "
                            "multiply-adds"),
        CompileOption::text("llvm_passes", "", "TEGULA_AMD_LLVM_PASSES",
                            "LLVM new-pass-manager pipeline replacing "
                            "the built-in pipeline (e.g. default<O2>)"),
    };
  }

  std::string discoverDevices() override {
    std::string whyNot;
    const HipRuntime *hip = HipRuntime::get(whyNot);
    if (!hip)
      return whyNot;

    // hipInit fails without a GPU (101 here) but hipGetDeviceCount still
    // gives the clearer answer (100, no device): report both.
    hipError_t initResult = hip->hipInit(0);
    int count = 0;
    hipError_t countResult = hip->hipGetDeviceCount(&count);
    if (countResult != hipSuccess || count == 0) {
      std::string status = "HIP: no device (";
      if (initResult != hipSuccess)
        status += "hipInit returned " + briefly(*hip, initResult) + ", ";
      status += "hipGetDeviceCount returned " + briefly(*hip, countResult);
      if (countResult == hipSuccess)
        status += ", count 0";
      return status + ")";
    }

    for (int ordinal = 0; ordinal < count; ++ordinal) {
      hipDeviceProp_t props{};
      if (hip->hipGetDeviceProperties(&props, ordinal) != hipSuccess)
        continue;
      auto dev = std::make_unique<HipDevice>(
          *this, *hip, ordinal, props.name[0] ? props.name : "AMD GPU",
          archFromGcnName(props.gcnArchName));
      tg_device_properties &p = dev->props;
      p.compute_units = props.multiProcessorCount;
      p.warp_size = props.warpSize;
      p.max_threads_per_block = props.maxThreadsPerBlock;
      p.matrix_units = matrixUnitsFor(dev->arch);
      p.shared_memory_per_block = props.sharedMemPerBlock;
      p.global_memory = props.totalGlobalMem;
      p.clock_khz = props.clockRate;
      p.memory_clock_khz = props.memoryClockRate;
      dev->limits.maxSharedBytes = props.sharedMemPerBlock;
      for (int d = 0; d < 3; ++d)
        dev->limits.maxGrid[d] = static_cast<uint32_t>(props.maxGridSize[d]);
      addDevice(std::move(dev));
    }
    return "";
  }
};

} // namespace

TEGULA_PLUGIN_ENTRY_POINT(AmdPlugin)
