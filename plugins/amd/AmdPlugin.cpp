//===- AmdPlugin.cpp - The AMD plugin: discovery through HIP --------------===//
//
// Enumerates AMD GPUs through the HIP runtime (libamdhip64), loaded at run
// time, so the plugin loads everywhere and says "HIP: no device" where there
// is no AMD GPU. Types and signatures come from Debian's HIP headers (ROCm
// 5.2); nothing is linked. Compiling comes in a later issue: plugin_compile
// answers TG_ERROR_UNIMPLEMENTED, and the memory, stream and launch entries
// are left NULL.
//
//===----------------------------------------------------------------------===//

#include "tegula/plugin_support.hpp"

#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace tegula::plugin;

namespace {

/// The HIP entry points, resolved from the HIP runtime library.
struct HipRuntime {
  decltype(&hipInit) init = nullptr;
  decltype(&hipGetDeviceCount) getDeviceCount = nullptr;
  decltype(&hipGetDeviceProperties) getDeviceProperties = nullptr;
  decltype(&hipGetErrorName) getErrorName = nullptr;

  /// "101 hipErrorInvalidDevice" for |error|.
  std::string describe(hipError_t error) const {
    std::string text = std::to_string(static_cast<int>(error));
    if (getErrorName)
      if (const char *name = getErrorName(error))
        text += std::string(" ") + name;
    return text;
  }
};

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
  HipRuntime hip;
  std::vector<std::unique_ptr<tg_device>> devices;
  std::vector<tg_device_t *> handles;
  std::string status;
};

namespace {

const char *const kTargets[] = {"gfx90a", "gfx942", "gfx1100"};

/// Opens the HIP runtime: the unversioned name a ROCm install provides, then
/// the sonames of ROCm 6 and 5. Returns NULL and sets |why| on failure.
void *openHip(std::string &why) {
  for (const char *name :
       {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
    if (void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return library;
    if (why.empty()) {
      const char *error = dlerror();
      why = error ? error : name;
    }
  }
  return nullptr;
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

void discover(tg_plugin &plugin) {
  std::string why;
  // Never dlclose'd: the HIP runtime keeps threads and exit handlers.
  void *library = openHip(why);
  if (!library) {
    plugin.status = "no HIP runtime found (" + why + ")";
    return;
  }
  HipRuntime &hip = plugin.hip;
  resolve(library, "hipGetErrorName", hip.getErrorName); // Optional.
  if (!resolve(library, "hipInit", hip.init) ||
      !resolve(library, "hipGetDeviceCount", hip.getDeviceCount) ||
      !resolve(library, "hipGetDeviceProperties", hip.getDeviceProperties)) {
    plugin.status = "the HIP runtime lacks hipInit, hipGetDeviceCount or "
                    "hipGetDeviceProperties";
    return;
  }

  // hipInit fails without a GPU (101 here) but hipGetDeviceCount still gives
  // the clearer answer (100, no device): report both.
  hipError_t initResult = hip.init(0);
  int count = 0;
  hipError_t countResult = hip.getDeviceCount(&count);
  if (countResult != hipSuccess || count == 0) {
    plugin.status = "HIP: no device (";
    if (initResult != hipSuccess)
      plugin.status += "hipInit returned " + hip.describe(initResult) + ", ";
    plugin.status += "hipGetDeviceCount returned " + hip.describe(countResult);
    if (countResult == hipSuccess)
      plugin.status += ", count 0";
    plugin.status += ")";
    return;
  }

  for (int ordinal = 0; ordinal < count; ++ordinal) {
    hipDeviceProp_t props{};
    if (hip.getDeviceProperties(&props, ordinal) != hipSuccess)
      continue;
    auto dev = std::make_unique<tg_device>();
    dev->name = props.name[0] ? props.name : "AMD GPU";
    dev->arch = archFromGcnName(props.gcnArchName);
    tg_device_properties &p = dev->properties;
    p.struct_size = sizeof(p);
    p.name = dev->name.c_str();
    p.arch = dev->arch.c_str();
    p.compute_units = props.multiProcessorCount;
    p.warp_size = props.warpSize;
    p.max_threads_per_block = props.maxThreadsPerBlock;
    p.matrix_units = matrixUnitsFor(dev->arch);
    p.shared_memory_per_block = props.sharedMemPerBlock;
    p.global_memory = props.totalGlobalMem;
    p.clock_khz = props.clockRate;
    p.memory_clock_khz = props.memoryClockRate;
    plugin.devices.push_back(std::move(dev));
  }
  for (auto &dev : plugin.devices)
    plugin.handles.push_back(dev.get());
  if (plugin.devices.empty())
    plugin.status = "HIP: no device could be queried";
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
  args->name = "amd";
  args->version = "0.1.0";
  args->vendor = "AMD (through the HIP runtime)";
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
