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
//    (NvidiaCompiler.h, NvidiaCodegen.h, NvidiaImage.h). Needs no device.
//  - Memory, streams, events, module load and launch: NvidiaDevice.h, on
//    each device's primary context.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "NvidiaCompiler.h"
#include "NvidiaDevice.h"

#include "tegula/BackendKit/PluginBase.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#include <cstdio>
#include <memory>
#include <string>

using namespace tegula::plugin;
using namespace tegula::nvidia;
using tegula::backend::toStatus;
using tegula::backend::unsignedOption;

namespace {

class NvidiaPlugin : public PluginBase {
public:
  /// Streams can wrap a caller's CUstream (CudaDevice::wrapNativeStream).
  static constexpr const char *nativeStreamHandleType = "CUstream";

  NvidiaPlugin()
      : PluginBase({"nvidia", "0.1.0", "NVIDIA (through the CUDA driver API)",
                    getNvidiaTargets()}) {}

  /// Loads the driver and lists the devices; on failure leaves the list
  /// empty and says why (no device is not an error).
  Status initialize(uint32_t, uint32_t) override {
    setNoDeviceReason(discover());
    return Status::success();
  }

  /// Compiles for one of the targets, with or without a device. Options:
  /// num_warps (1..32, a power of 2; default: the module's, else 4);
  /// num_stages (1..8: the software-pipelining depth of dot loops; default:
  /// the module's, else 3); kernel is accepted and not used.
  Status compile(const CompileRequest &request,
                 std::unique_ptr<CompiledImage> &image) override {
    NvidiaCompileOptions options;
    options.target = request.target;
    Status status = unsignedOption(request, "num_warps", 32, options.numWarps);
    if (!status.ok())
      return status;
    status = unsignedOption(request, "num_stages", 8, options.numStages);
    if (!status.ok())
      return status;

    // One context per compile: compiles run concurrently and share nothing.
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    tegula::backend::prepareCompileContext(context);
    llvm::StringRef bytes(static_cast<const char *>(request.bytecode),
                          request.bytecode ? request.bytecodeSize : 0);
    auto module = tegula::backend::readTileBytecode(bytes, context);
    if (!module)
      return toStatus(module.takeError());
    llvm::Expected<NvidiaKernel> kernel = compileTileModule(**module, options);
    if (!kernel)
      return toStatus(kernel.takeError());
    // TEGULA_TIME_STAGES=1: each stage's time on stderr, as `tegula compile
    // --time-stages` prints it.
    if (const char *time = std::getenv("TEGULA_TIME_STAGES");
        time && llvm::StringRef(time) == "1")
      kernel->clock.print(llvm::errs(), "tegula nvidia", kernel->image->name);
    image = std::move(kernel->image);
    return Status::success();
  }

private:
  /// Fills the device list; returns why there is no device, or "".
  std::string discover() {
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
      dev->maxSharedOptin = p.shared_memory_per_block;
      const int gridAttributes[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
      for (int d = 0; d < 3; ++d)
        if (int limit = cu.attribute(gridAttributes[d], device); limit > 0)
          dev->maxGrid[d] = static_cast<unsigned>(limit);
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
    return devices().empty() ? "CUDA: no device could be opened" : "";
  }
};

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  return pluginApi<NvidiaPlugin>(runtimeMajor, runtimeMinor);
}
