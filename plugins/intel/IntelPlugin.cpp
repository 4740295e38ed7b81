//===- IntelPlugin.cpp - The Intel plugin: discovery through Level Zero ---===//
//
// Enumerates Intel GPUs through the Level Zero loader (libze_loader.so.1),
// loaded at run time, so the plugin loads everywhere and says why there is
// no device where no Intel GPU driver is installed. Types come from
// Debian's ze_api.h; nothing is linked. Compiling comes in a later issue:
// plugin_compile answers TG_ERROR_UNIMPLEMENTED, and the memory, stream and
// launch entries are left NULL.
//
//===----------------------------------------------------------------------===//

#include "tegula/plugin_support.hpp"

#include <level_zero/ze_api.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace tegula::plugin;

namespace {

/// The Level Zero entry points, resolved from the loader.
struct LevelZero {
  decltype(&zeInit) init = nullptr;
  decltype(&zeDriverGet) driverGet = nullptr;
  decltype(&zeDeviceGet) deviceGet = nullptr;
  decltype(&zeDeviceGetProperties) deviceGetProperties = nullptr;
  decltype(&zeDeviceGetComputeProperties) deviceGetComputeProperties = nullptr;
  decltype(&zeDeviceGetMemoryProperties) deviceGetMemoryProperties = nullptr;
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
  LevelZero ze;
  std::vector<std::unique_ptr<tg_device>> devices;
  std::vector<tg_device_t *> handles;
  std::string status;
};

namespace {

// Intel images are portable SPIR-V: one target for every Intel GPU.
const char *const kTargets[] = {"spirv64"};

std::unique_ptr<tg_device> describeDevice(const LevelZero &ze,
                                          ze_device_handle_t device) {
  ze_device_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (ze.deviceGetProperties(device, &props) != ZE_RESULT_SUCCESS ||
      props.type != ZE_DEVICE_TYPE_GPU)
    return nullptr;
  auto dev = std::make_unique<tg_device>();
  dev->name = props.name[0] ? props.name : "Intel GPU";
  // Level Zero 1.8 names no architecture; the PCI device ID identifies it
  // exactly and is what a compiler maps to a GPU generation.
  char arch[32];
  std::snprintf(arch, sizeof(arch), "pci_0x%04x", props.deviceId);
  dev->arch = arch;

  tg_device_properties &p = dev->properties;
  p.struct_size = sizeof(p);
  p.name = dev->name.c_str();
  p.arch = dev->arch.c_str();
  // A sub-slice is an Xe core, the unit a work-group runs on.
  p.compute_units = props.numSlices * props.numSubslicesPerSlice;
  p.clock_khz = props.coreClockRate * 1000; // MHz in Level Zero.

  ze_device_compute_properties_t compute{};
  compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  if (ze.deviceGetComputeProperties(device, &compute) == ZE_RESULT_SUCCESS) {
    p.max_threads_per_block = compute.maxTotalGroupSize;
    p.shared_memory_per_block = compute.maxSharedLocalMemory;
    // The largest sub-group size the device supports.
    for (uint32_t i = 0; i < compute.numSubGroupSizes && i < 8; ++i)
      p.warp_size = std::max(p.warp_size, compute.subGroupSizes[i]);
  }

  uint32_t count = 0;
  if (ze.deviceGetMemoryProperties(device, &count, nullptr) ==
          ZE_RESULT_SUCCESS &&
      count) {
    std::vector<ze_device_memory_properties_t> memories(count);
    for (auto &memory : memories)
      memory.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    if (ze.deviceGetMemoryProperties(device, &count, memories.data()) ==
        ZE_RESULT_SUCCESS)
      for (uint32_t i = 0; i < count; ++i) {
        p.global_memory += memories[i].totalSize;
        p.memory_clock_khz =
            std::max(p.memory_clock_khz, memories[i].maxClockRate * 1000);
      }
  }
  // DPAS availability needs an extension this loader's headers lack; report
  // no matrix unit rather than guess.
  p.matrix_units = TG_MATRIX_UNIT_NONE;
  return dev;
}

void discover(tg_plugin &plugin) {
  // Never dlclose'd: drivers loaded by the loader keep state until exit.
  void *library = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    plugin.status = std::string("no Level Zero loader found (") +
                    (why ? why : "libze_loader.so.1") + ")";
    return;
  }
  LevelZero &ze = plugin.ze;
  if (!resolve(library, "zeInit", ze.init) ||
      !resolve(library, "zeDriverGet", ze.driverGet) ||
      !resolve(library, "zeDeviceGet", ze.deviceGet) ||
      !resolve(library, "zeDeviceGetProperties", ze.deviceGetProperties) ||
      !resolve(library, "zeDeviceGetComputeProperties",
               ze.deviceGetComputeProperties) ||
      !resolve(library, "zeDeviceGetMemoryProperties",
               ze.deviceGetMemoryProperties)) {
    plugin.status = "the Level Zero loader lacks a core entry point";
    return;
  }

  if (ze_result_t r = ze.init(ZE_INIT_FLAG_GPU_ONLY); r != ZE_RESULT_SUCCESS) {
    // The loader answers this when it finds no GPU driver to initialize.
    plugin.status =
        "Level Zero: no GPU driver (zeInit returned " + describe(r) + ")";
    return;
  }
  uint32_t driverCount = 0;
  if (ze_result_t r = ze.driverGet(&driverCount, nullptr);
      r != ZE_RESULT_SUCCESS || driverCount == 0) {
    plugin.status = "Level Zero: no GPU driver (zeDriverGet returned " +
                    describe(r) + ", count " + std::to_string(driverCount) +
                    ")";
    return;
  }
  std::vector<ze_driver_handle_t> drivers(driverCount);
  if (ze.driverGet(&driverCount, drivers.data()) != ZE_RESULT_SUCCESS) {
    plugin.status = "Level Zero: zeDriverGet failed listing drivers";
    return;
  }
  for (ze_driver_handle_t driver : drivers) {
    uint32_t deviceCount = 0;
    if (ze.deviceGet(driver, &deviceCount, nullptr) != ZE_RESULT_SUCCESS)
      continue;
    std::vector<ze_device_handle_t> devices(deviceCount);
    if (ze.deviceGet(driver, &deviceCount, devices.data()) !=
        ZE_RESULT_SUCCESS)
      continue;
    for (ze_device_handle_t device : devices)
      if (auto dev = describeDevice(ze, device))
        plugin.devices.push_back(std::move(dev));
  }
  for (auto &dev : plugin.devices)
    plugin.handles.push_back(dev.get());
  if (plugin.devices.empty())
    plugin.status = "Level Zero: no GPU device";
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
  args->name = "intel";
  args->version = "0.1.0";
  args->vendor = "Intel (through Level Zero)";
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
