//===- Objects.h - The runtime's handle types -------------------*- C++ -*-===//
//
// What the opaque runtime handles are, and `Plugin`, one loaded plugin with
// the helper that dispatches a call to it. Every runtime object remembers the
// plugin that owns it, which is how a call finds its way.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_RUNTIME_LIB_OBJECTS_H
#define TEGULA_RUNTIME_LIB_OBJECTS_H

#include "Error.h"

#include <boost/dll/shared_library.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tegula::runtime {

/// One loaded, initialized plugin. Immutable after loading, so any number of
/// threads may dispatch through it at once.
class Plugin {
public:
  Plugin(std::string path, std::string name) noexcept
      : path(std::move(path)), name(std::move(name)) {}
  ~Plugin();
  Plugin(const Plugin &) = delete;
  Plugin &operator=(const Plugin &) = delete;

  /// Converts a plugin error into a runtime error ("<backend>: <message>")
  /// and frees the plugin's object. NULL stays NULL.
  tegula_error_t *takeError(tg_error_t *error) const noexcept;

  /// Calls the table entry |fn| (NULL when the table lacks it) with |args|,
  /// after setting args.struct_size. Missing entries answer
  /// TG_ERROR_UNIMPLEMENTED; a C++ exception escaping the plugin (a bug in
  /// it) becomes TG_ERROR_INTERNAL rather than unwinding through us.
  template <typename Args>
  tegula_error_t *call(tg_error_t *(*fn)(Args *), const char *entry,
                       Args &args) const noexcept {
    if (!fn)
      return makeErrorf(TG_ERROR_UNIMPLEMENTED, "%s: %s is not implemented",
                        name.c_str(), entry);
    args.struct_size = sizeof(Args);
    try {
      return takeError(fn(&args));
    } catch (...) {
      return makeErrorf(TG_ERROR_INTERNAL,
                        "%s: %s threw a C++ exception across the C ABI",
                        name.c_str(), entry);
    }
  }

  std::string path;
  /// The backend name (from the file name, checked against the plugin's).
  std::string name;
  boost::dll::shared_library library;
  const tg_plugin_api *api = nullptr;
  tg_plugin_t *instance = nullptr;

  std::string version;
  std::string vendor;
  std::vector<std::string> targets;
  std::vector<const char *> targetPtrs;
  std::string deviceStatus;
  bool hasDeviceStatus = false;
  /// What plugin_get_compile_info declared (ABI 1.1); arrays owned by the
  /// plugin instance. Empty for a 1.0 plugin.
  const tg_compile_stage_info *stages = nullptr;
  size_t numStages = 0;
  const tg_compile_option_info *options = nullptr;
  size_t numOptions = 0;
};

} // namespace tegula::runtime

/// Dispatches |entry| of |plugin|'s table with |args| (a tg_<entry>_args).
#define TEGULA_PLUGIN_CALL(plugin, entry, args)                                \
  (plugin)->call(TG_API_HAS((plugin)->api, entry) ? (plugin)->api->entry       \
                                                  : nullptr,                   \
                 #entry, args)

struct tegula_device {
  tegula::runtime::Plugin *plugin;
  tg_device_t *handle;
  std::string name;   // "<backend>:<n>"
  std::string target; // "<backend>:<arch>" or "<backend>"
  /// "<backend>:<arch>" of each arch whose images the device also runs,
  /// best first (tg_device_properties::compatible_archs).
  std::vector<std::string> compatibleTargets;
};

struct tegula_buffer {
  tegula_device *device;
  tg_buffer_t *handle;
  uint64_t size;
  uint64_t address;
};

struct tegula_stream {
  tegula_device *device;
  tg_stream_t *handle;
  /// A wrapper of a native stream (tegula_stream_create_native).
  bool native = false;
};

struct tegula_event {
  tegula_device *device;
  tg_event_t *handle;
};

struct tegula_kernel {
  struct tegula_module *module;
  tg_kernel_t *handle;
};

struct tegula_module {
  tegula_device *device;
  tg_module_t *handle;
  /// Kernels looked up so far, by name; guarded by |mutex| because lookups
  /// may race.
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<tegula_kernel>> kernels;
};

struct tegula_image {
  tegula::runtime::Plugin *plugin;
  tg_image_t *handle;
  const void *data;
  size_t size;
  const tg_kernel_metadata *metadata;
};

#endif // TEGULA_RUNTIME_LIB_OBJECTS_H
