//===- NvidiaPlugin.cpp - The NVIDIA plugin: discovery through CUDA -------===//
//
// Enumerates NVIDIA GPUs through the CUDA driver API, loaded at run time from
// libcuda.so.1 (the driver, not the toolkit), so the plugin loads and reports
// "no CUDA driver found" on machines without one. Compiling comes in a later
// issue: plugin_compile answers TG_ERROR_UNIMPLEMENTED, and the memory,
// stream and launch entries are left NULL (the runtime answers
// TG_ERROR_UNIMPLEMENTED for them).
//
//===----------------------------------------------------------------------===//

#include "tegula/plugin_support.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

} // namespace

struct tg_device {
  std::string name;
  std::string arch;
  tg_device_properties properties{};
};

struct tg_plugin {
  CudaDriver driver;
  std::vector<std::unique_ptr<tg_device>> devices;
  std::vector<tg_device_t *> handles;
  /// Why there is no device; empty when there are devices.
  std::string status;
};

namespace {

const char *const kTargets[] = {"sm_75", "sm_80", "sm_86",
                                "sm_89", "sm_90", "sm_90a"};

/// Loads the driver and lists the devices into |plugin|; on failure leaves
/// the list empty and says why in plugin.status.
void discover(tg_plugin &plugin) {
  // The driver stays loaded for the life of the process (never dlclose'd):
  // it registers exit handlers and threads of its own.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    plugin.status = std::string("no CUDA driver found (") +
                    (why ? why : "libcuda.so.1 cannot be loaded") + ")";
    return;
  }
  CudaDriver &cu = plugin.driver;
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
    if (!symbol.ok) {
      plugin.status = std::string("the CUDA driver (libcuda.so.1) lacks ") +
                      symbol.name;
      return;
    }

  if (CUresult r = cu.cuInit(0); r != CUDA_SUCCESS) {
    plugin.status = "CUDA driver failed to initialize: cuInit returned " +
                    cu.describe(r);
    return;
  }
  int count = 0;
  if (CUresult r = cu.cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
    plugin.status = "CUDA: cuDeviceGetCount returned " + cu.describe(r);
    return;
  }
  if (count == 0) {
    plugin.status = "CUDA: no device";
    return;
  }

  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device;
    if (cu.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS)
      continue;
    auto dev = std::make_unique<tg_device>();
    char name[256] = {};
    if (cu.cuDeviceGetName(name, sizeof(name) - 1, device) != CUDA_SUCCESS)
      std::snprintf(name, sizeof(name), "CUDA device %d", ordinal);
    dev->name = name;
    int major =
        cu.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    int minor =
        cu.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    dev->arch = "sm_" + std::to_string(major * 10 + minor);

    tg_device_properties &p = dev->properties;
    p.struct_size = sizeof(p);
    p.name = dev->name.c_str();
    p.arch = dev->arch.c_str();
    p.compute_units =
        cu.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    p.warp_size = cu.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, device);
    p.max_threads_per_block =
        cu.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device);
    // Kernels may opt in to more than the default 48 KiB; report that limit.
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
    // mma.sync from Volta on; warpgroup MMA on sm_90 only (sm_90a features).
    if (major >= 7)
      p.matrix_units |= TG_MATRIX_UNIT_NVIDIA_MMA;
    if (major == 9)
      p.matrix_units |= TG_MATRIX_UNIT_NVIDIA_WGMMA;
    plugin.devices.push_back(std::move(dev));
  }
  for (auto &dev : plugin.devices)
    plugin.handles.push_back(dev.get());
  if (plugin.devices.empty())
    plugin.status = "CUDA: no device could be opened";
}

tg_error_t *initialize(tg_plugin_initialize_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_initialize_args, plugin);
  return guard([&]() -> tg_error_t * {
    auto plugin = std::make_unique<tg_plugin>();
    discover(*plugin);
    args->plugin = plugin.release();
    return nullptr;
  });
}

tg_error_t *destroy(tg_plugin_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_destroy_args, plugin);
  delete args->plugin;
  return nullptr;
}

tg_error_t *getInfo(tg_plugin_get_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_info_args, num_targets);
  args->name = "nvidia";
  args->version = "0.1.0";
  args->vendor = "NVIDIA (through the CUDA driver API)";
  args->targets = kTargets;
  args->num_targets = sizeof(kTargets) / sizeof(kTargets[0]);
  return nullptr;
}

tg_error_t *getDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  if (!args->plugin)
    return makeError(TG_ERROR_INVALID_ARGUMENT, "plugin is NULL");
  args->devices = args->plugin->handles.data();
  args->num_devices = args->plugin->handles.size();
  args->status =
      args->plugin->status.empty() ? nullptr : args->plugin->status.c_str();
  return nullptr;
}

tg_error_t *getProperties(tg_device_get_properties_args *args) {
  TG_CHECK_ARGS(args, tg_device_get_properties_args, properties);
  if (!args->device || !args->properties)
    return makeError(TG_ERROR_INVALID_ARGUMENT, "device or properties is NULL");
  copyProperties(args->device->properties, args->properties);
  return nullptr;
}

tg_error_t *compile(tg_plugin_compile_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_compile_args, metadata);
  return makeErrorf(TG_ERROR_UNIMPLEMENTED,
                    "compiling for %s is not implemented yet",
                    args->target ? args->target : "(no target)");
}

const tg_plugin_api *api() {
  static const tg_plugin_api table = [] {
    tg_plugin_api t{};
    t.struct_size = sizeof(t);
    t.major_version = TG_PLUGIN_API_MAJOR;
    t.minor_version = TG_PLUGIN_API_MINOR;
    t.error_destroy = errorDestroy;
    t.error_message = errorMessage;
    t.error_get_code = errorGetCode;
    t.plugin_initialize = initialize;
    t.plugin_destroy = destroy;
    t.plugin_get_info = getInfo;
    t.plugin_get_devices = getDevices;
    t.device_get_properties = getProperties;
    t.plugin_compile = compile;
    return t;
  }();
  return &table;
}

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  (void)runtimeMinor;
  return runtimeMajor == TG_PLUGIN_API_MAJOR ? api() : nullptr;
}
