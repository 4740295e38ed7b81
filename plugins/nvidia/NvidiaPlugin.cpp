//===- NvidiaPlugin.cpp - The NVIDIA plugin: discovery through CUDA -------===//
//
// Enumerates NVIDIA GPUs through the CUDA driver API, loaded at run time from
// libcuda.so.1 (the driver, not the toolkit), so the plugin loads and reports
// "no CUDA driver found" on machines without one. Written with the SDK's C++
// kit (tegula/BackendKit/PluginBase.h), which provides the function table.
// Compiling comes in a later issue: compile answers TG_ERROR_UNIMPLEMENTED,
// and so do memory, streams and launch (the kit's defaults).
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/PluginBase.h"

#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <string>

using namespace tegula::plugin;

namespace {

//===-- The few CUDA driver API declarations we need ----------------------===//
// Declared here rather than taken from cuda.h so that the plugin builds on a
// machine without the CUDA toolkit. Values are from the driver API, which
// keeps them stable across releases.

using CUresult = int;
using CUdevice = int;
constexpr CUresult CUDA_SUCCESS = 0;
enum CUdeviceAttribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/// The CUDA driver entry points, resolved from libcuda.so.1.
struct CudaDriver {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;

  /// "100 (CUDA_ERROR_NO_DEVICE)" for |result|.
  std::string describe(CUresult result) const {
    std::string text = std::to_string(result);
    const char *name = nullptr;
    if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS &&
        name)
      text += std::string(" (") + name + ")";
    return text;
  }

  /// An attribute, or 0 when the driver does not know it.
  int attribute(int attr, CUdevice device) const {
    int value = 0;
    if (cuDeviceGetAttribute(&value, attr, device) != CUDA_SUCCESS)
      return 0;
    return value;
  }
};

/// Resolves |name| from |library| into |fn|; false when missing.
template <typename Fn> bool resolve(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

/// A CUDA device: its properties, filled once at discovery.
using CudaDevice = PropertiesDevice;

class NvidiaPlugin : public PluginBase {
public:
  NvidiaPlugin()
      : PluginBase({"nvidia",
                    "0.1.0",
                    "NVIDIA (through the CUDA driver API)",
                    {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}}) {}

  /// Loads the driver and lists the devices; on failure leaves the list
  /// empty and says why (no device is not an error).
  Status initialize(uint32_t, uint32_t) override {
    setNoDeviceReason(discover());
    return Status::success();
  }

private:
  /// Fills the device list; returns why there is no device, or "".
  std::string discover() {
    // The driver stays loaded for the life of the process (never
    // dlclose'd): it registers exit handlers and threads of its own.
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      return std::string("no CUDA driver found (") +
             (why ? why : "libcuda.so.1 cannot be loaded") + ")";
    }
    CudaDriver &cu = driver;
    struct {
      const char *name;
      bool ok;
    } symbols[] = {
        {"cuInit", resolve(library, "cuInit", cu.cuInit)},
        {"cuDeviceGetCount",
         resolve(library, "cuDeviceGetCount", cu.cuDeviceGetCount)},
        {"cuDeviceGet", resolve(library, "cuDeviceGet", cu.cuDeviceGet)},
        {"cuDeviceGetName",
         resolve(library, "cuDeviceGetName", cu.cuDeviceGetName)},
        {"cuDeviceGetAttribute",
         resolve(library, "cuDeviceGetAttribute", cu.cuDeviceGetAttribute)},
        {"cuDeviceTotalMem_v2",
         resolve(library, "cuDeviceTotalMem_v2", cu.cuDeviceTotalMem)},
    };
    resolve(library, "cuGetErrorName", cu.cuGetErrorName); // Optional.
    for (const auto &symbol : symbols)
      if (!symbol.ok)
        return std::string("the CUDA driver (libcuda.so.1) lacks ") +
               symbol.name;

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
          *this, name, "sm_" + std::to_string(major * 10 + minor));

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

  CudaDriver driver;
};

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  return pluginApi<NvidiaPlugin>(runtimeMajor, runtimeMinor);
}
