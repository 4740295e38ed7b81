//===- NvidiaPlugin.cpp - The NVIDIA plugin -------------------------------===//
//
// `nvidia`: NVIDIA GPUs through the CUDA driver API, loaded at run time from
// libcuda.so.1 (the driver, not the toolkit), so the plugin loads and reports
// "no CUDA driver found" on machines without one. Written with the SDK's C++
// kit (tegula/BackendKit/PluginBase.h), which provides the function table.
//
//  - Discovery: every device the driver lists, with its name, sm_XY arch,
//    SM count, warp size, opt-in shared memory per block, global memory,
//    clocks and matrix units.
//  - Compile: tile bytecode -> layouts -> distributed LLVM dialect -> LLVM
//    IR -> O3 -> PTX -> cubin (ptxas, when found), in an NVIDIA image
//    (NvidiaCompiler.h, NvidiaCodegen.h; the image in NvidiaDevice.h). Needs no
//    device.
//  - Memory, streams, events, module load and launch: NvidiaDevice.h, on
//    each device's primary context.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "NvidiaCodegen.h"
#include "NvidiaCompiler.h"
#include "NvidiaDevice.h"

#include "tegula/BackendKit/PluginBase.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace tegula::plugin;
using namespace tegula::nvidia;

namespace {

class NvidiaPlugin : public tegula::backend::CompilerPlugin {
public:
  /// Streams can wrap a caller's CUstream (CudaDevice::wrapNativeStream).
  static constexpr const char *nativeStreamHandleType = "CUstream";

  NvidiaPlugin()
      : CompilerPlugin({"nvidia", "0.1.0",
                        "NVIDIA (through the CUDA driver API)",
                        getNvidiaTargets(), stages(), options()},
                       compileTileModule) {}

  static std::vector<tegula::plugin::CompileStage> stages() {
    return {{"llvm-ir", false, "the optimized LLVM IR the NVPTX back end gets"},
            {"ptx", false, "PTX assembly"},
            {"cubin", true, "the cubin ptxas makes of the PTX (needs ptxas)"}};
  }

  static std::vector<CompileOption> options() {
    return {
        CompileOption::integer("num_warps", 1, 32, "", "",
                               "warps per block, a power of 2 (the kernel's "
                               "tile.num_warps, else 4)"),
        CompileOption::integer("num_stages", 1, 8, "", "",
                               "software-pipelining depth of dot loops (the "
                               "loop's or kernel's tile.num_stages, else 3)"),
        CompileOption::flag("mma", true, "TEGULA_NVIDIA_MMA",
                            "dots on the tensor cores (mma.sync, wgmma); "
                            "off: FMA dots"),
        CompileOption::flag("wgmma", true, "TEGULA_NVIDIA_WGMMA",
                            "wgmma dots on sm_90a; off: mma.sync there too"),
        CompileOption::choice(
            "lowering", "distributed|single-thread", "distributed",
            "TEGULA_NVIDIA_LOWERING",
            "single-thread: thread 0 of each block runs the program from "
            "shared memory (bring-up and debugging; slow)"),
        CompileOption::text("llvm_passes", "", "TEGULA_NVIDIA_LLVM_PASSES",
                            "an LLVM pass pipeline replacing the built-in "
                            "O3 pipeline"),
        CompileOption::text("ptxas", "", "TEGULA_PTXAS",
                            "the ptxas to run: a path, none (PTX only), or "
                            "empty to search CUDA_HOME, CUDA_PATH, PATH and "
                            "/usr/local/cuda"),
        CompileOption::text("ptxas_options", "", "TEGULA_NVIDIA_PTXAS_OPTIONS",
                            "more ptxas options, separated by spaces (-O3 "
                            "unless they set a level)"),
    };
  }

private:
  /// The targets besides |arch| whose images a device of |arch| runs, best
  /// first: the arch-specific variant (sm_90a code on sm_90), then older
  /// targets whose code has no arch-specific features (PTX the driver
  /// compiles for |arch|), newest first. CudaDevice::loadModule accepts
  /// exactly these.
  static std::vector<std::string> compatibleArchs(const std::string &arch) {
    std::vector<std::string> archs;
    unsigned sm = getSmVersion(arch);
    const std::vector<std::string> &targets = getNvidiaTargets();
    if (llvm::is_contained(targets, arch + "a"))
      archs.push_back(arch + "a");
    for (auto it = targets.rbegin(); it != targets.rend(); ++it)
      if (getCodegenArch(*it).back() != 'a' && getSmVersion(*it) < sm)
        archs.push_back(*it);
    return archs;
  }

  std::string discoverDevices() override {
    std::string missing;
    const CudaDriver *table = CudaDriver::get(missing);
    if (!table)
      return missing;
    const CudaDriver &cu = *table;
    if (CUresult r = cu.cuInit(0); r != CUDA_SUCCESS)
      return "CUDA driver failed to initialize: cuInit returned " +
             cu.describe(r);
    int count = 0;
    if (CUresult r = cu.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
      return "CUDA: cuDeviceGetCount returned " + cu.describe(r);
    if (count == 0)
      return "CUDA: no device";

    for (int ordinal = 0; ordinal < count; ++ordinal) {
      CUdevice device;
      if (cu.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS)
        continue;
      char name[256] = {};
      if (cu.cuDeviceGetName(name, sizeof(name) - 1, device) != CUDA_SUCCESS)
        std::snprintf(name, sizeof(name), "CUDA device %d", ordinal);
      int major =
          cu.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      int minor =
          cu.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
      auto dev = std::make_unique<CudaDevice>(
          *this, cu, device, name, "sm_" + std::to_string(major * 10 + minor));

      dev->ordinal = ordinal;
      dev->setCompatibleArchs(compatibleArchs(dev->arch));
      tg_device_properties &p = dev->props;
      p.compute_units =
          cu.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
      p.warp_size = cu.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, device);
      p.max_threads_per_block =
          cu.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device);
      // Kernels may opt in to more than the default 48 KiB; report that.
      int optin = cu.attribute(
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
      p.shared_memory_per_block =
          optin ? optin
                : cu.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                               device);
      dev->limits.maxSharedBytes = p.shared_memory_per_block;
      // X, Y and Z are consecutive attributes; 0 (no limit) when unknown.
      for (int d = 0; d < 3; ++d)
        dev->limits.maxGrid[d] = static_cast<uint32_t>(
            cu.attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + d, device));
      size_t bytes = 0;
      if (cu.cuDeviceTotalMem(&bytes, device) == CUDA_SUCCESS)
        p.global_memory = bytes;
      p.clock_khz = cu.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device);
      p.memory_clock_khz =
          cu.attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device);
      // mma.sync from Volta on; warpgroup MMA on sm_90 only (sm_90a).
      if (major >= 7)
        p.matrix_units |= TG_MATRIX_UNIT_NVIDIA_MMA;
      if (major == 9)
        p.matrix_units |= TG_MATRIX_UNIT_NVIDIA_WGMMA;
      addDevice(std::move(dev));
    }
    return "";
  }
};

} // namespace

TEGULA_PLUGIN_ENTRY_POINT(NvidiaPlugin)
