//===- Runtime.cpp - Runtime creation, plugins and devices ----------------===//
//
// The C entry points for the runtime object, the plugin list and the device
// list. Reads TEGULA_PLUGIN_PATH and TEGULA_VISIBLE_BACKENDS once, when the
// runtime is created.
//
//===----------------------------------------------------------------------===//

#include "PluginRegistry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace tegula::runtime;

namespace {

/// Splits |text| at |separator|, trimming blanks and dropping empty pieces
/// (an empty TEGULA_PLUGIN_PATH entry means "current directory" to a shell;
/// here it means nothing).
std::vector<std::string> split(const char *text, char separator) {
  std::vector<std::string> pieces;
  if (!text)
    return pieces;
  std::string all(text);
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(separator, start);
    if (end == std::string::npos)
      end = all.size();
    std::string piece = all.substr(start, end - start);
    size_t first = piece.find_first_not_of(" \t");
    size_t last = piece.find_last_not_of(" \t");
    if (first != std::string::npos)
      pieces.push_back(piece.substr(first, last - first + 1));
    start = end + 1;
  }
  return pieces;
}

template <typename T> bool covers(const T *s, size_t end) {
  return s->struct_size >= end;
}

} // namespace

extern "C" {

void tegula_runtime_get_abi_version(uint32_t *major, uint32_t *minor) {
  if (major)
    *major = TG_PLUGIN_API_MAJOR;
  if (minor)
    *minor = TG_PLUGIN_API_MINOR;
}

tegula_error_t *tegula_runtime_create(const tegula_runtime_options *options,
                                      tegula_runtime_t **out) {
  TEGULA_REJECT_IF(!out, "out is NULL");
  *out = nullptr;
  if (options && options->struct_size <
                     TG_STRUCT_SIZE(tegula_runtime_options, default_plugin_dir))
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "tegula_runtime_create: options.struct_size is %zu, "
                      "need %zu",
                      options->struct_size,
                      TG_STRUCT_SIZE(tegula_runtime_options,
                                     default_plugin_dir));
  return guard([&]() -> tegula_error_t * {
    const char *pluginPath = options && options->plugin_path
                                 ? options->plugin_path
                                 : std::getenv("TEGULA_PLUGIN_PATH");
    const char *visible = options && options->visible_backends
                              ? options->visible_backends
                              : std::getenv("TEGULA_VISIBLE_BACKENDS");
    DiscoveryOptions discovery;
    discovery.pathEntries = split(pluginPath, ':');
    discovery.visibleBackends = split(visible, ',');
    discovery.defaultDir = options && options->default_plugin_dir
                               ? std::string(options->default_plugin_dir)
                               : defaultPluginDir();

    auto runtime = std::make_unique<tegula_runtime>();
    runtime->registry.discover(discovery);
    *out = runtime.release();
    return nullptr;
  });
}

void tegula_runtime_destroy(tegula_runtime_t *runtime) { delete runtime; }

size_t tegula_runtime_get_search_dir_count(tegula_runtime_t *rt) {
  return rt ? rt->registry.searchDirs.size() : 0;
}

const char *tegula_runtime_get_search_dir(tegula_runtime_t *rt, size_t index) {
  if (!rt || index >= rt->registry.searchDirs.size())
    return nullptr;
  return rt->registry.searchDirs[index].c_str();
}

size_t tegula_runtime_get_plugin_count(tegula_runtime_t *rt) {
  return rt ? rt->registry.records.size() : 0;
}

tegula_error_t *tegula_runtime_get_plugin_info(tegula_runtime_t *rt,
                                               size_t index,
                                               tegula_plugin_info *info) {
  TEGULA_REJECT_IF(!rt || !info, "runtime or info is NULL");
  TEGULA_REJECT_IF(info->struct_size <
                       TG_STRUCT_SIZE(tegula_plugin_info, device_status),
                   "info.struct_size too small");
  if (index >= rt->registry.records.size())
    return makeErrorf(TG_ERROR_OUT_OF_RANGE,
                      "plugin index %zu out of range (%zu plugins)", index,
                      rt->registry.records.size());
  const PluginRecord &record = rt->registry.records[index];
  tegula_plugin_info result{};
  result.struct_size = info->struct_size;
  result.path = record.path.c_str();
  result.name = record.name.c_str();
  if (const Plugin *plugin = record.plugin.get()) {
    result.loaded = 1;
    result.version = plugin->version.c_str();
    result.vendor = plugin->vendor.c_str();
    result.abi_major = plugin->api->major_version;
    result.abi_minor = plugin->api->minor_version;
    result.targets = plugin->targetPtrs.data();
    result.num_targets = plugin->targetPtrs.size();
    for (const auto &device : rt->registry.devices)
      if (device->plugin == plugin)
        ++result.num_devices;
    result.device_status =
        plugin->hasDeviceStatus ? plugin->deviceStatus.c_str() : nullptr;
    result.stages = plugin->stages;
    result.num_stages = plugin->numStages;
    result.options = plugin->options;
    result.num_options = plugin->numOptions;
  } else {
    result.skip_reason = record.skipReason.c_str();
    result.skip_message = record.skipMessage.c_str();
  }
  // Write only what the caller's struct holds (it may be an older build).
  std::memcpy(reinterpret_cast<char *>(info) + sizeof(size_t),
              reinterpret_cast<const char *>(&result) + sizeof(size_t),
              std::min(info->struct_size, sizeof(result)) - sizeof(size_t));
  return nullptr;
}

size_t tegula_runtime_get_device_count(tegula_runtime_t *rt) {
  return rt ? rt->registry.devices.size() : 0;
}

tegula_device_t *tegula_runtime_get_device(tegula_runtime_t *rt,
                                           size_t index) {
  if (!rt || index >= rt->registry.devices.size())
    return nullptr;
  return rt->registry.devices[index].get();
}

tegula_error_t *tegula_runtime_find_device(tegula_runtime_t *rt,
                                           const char *name,
                                           tegula_device_t **out) {
  TEGULA_REJECT_IF(!rt || !name || !out, "runtime, name or out is NULL");
  *out = nullptr;
  for (const auto &device : rt->registry.devices)
    if (device->name == name) {
      *out = device.get();
      return nullptr;
    }
  return makeErrorf(TG_ERROR_NOT_FOUND, "no device named '%s'", name);
}

const char *tegula_device_get_name(const tegula_device_t *device) {
  return device ? device->name.c_str() : "";
}

const char *tegula_device_get_backend(const tegula_device_t *device) {
  return device ? device->plugin->name.c_str() : "";
}

const char *tegula_device_get_target(const tegula_device_t *device) {
  return device ? device->target.c_str() : "";
}

tegula_error_t *tegula_device_get_properties(tegula_device_t *device,
                                             tg_device_properties *props) {
  TEGULA_REJECT_IF(!device || !props, "device or properties is NULL");
  TEGULA_REJECT_IF(!covers(props, TG_STRUCT_SIZE(tg_device_properties,
                                                 memory_clock_khz)),
                   "properties.struct_size too small");
  // Zero what the caller owns, so that fields an older plugin does not know
  // read as "unknown" (0) rather than garbage.
  size_t size = props->struct_size;
  const tg_extension_base *extensions = props->extension_start;
  std::memset(props, 0, size);
  props->struct_size = size;
  props->extension_start = extensions;
  tg_device_get_properties_args args{};
  args.device = device->handle;
  args.properties = props;
  return TEGULA_PLUGIN_CALL(device->plugin, device_get_properties, args);
}

} // extern "C"
