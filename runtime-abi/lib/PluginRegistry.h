//===- PluginRegistry.h - Plugin discovery and loading ----------*- C++ -*-===//
//
// Finds plugin files along the search path, loads each with Boost.DLL,
// negotiates the ABI version, initializes it and lists its devices. A plugin
// that fails any step is recorded as skipped with a one-line reason; the
// others go on loading. Built once per runtime and read-only afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_RUNTIME_LIB_PLUGINREGISTRY_H
#define TEGULA_RUNTIME_LIB_PLUGINREGISTRY_H

#include "Objects.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tegula::runtime {

/// Where to look and what to admit.
struct DiscoveryOptions {
  /// TEGULA_PLUGIN_PATH split at ':' (empty entries already dropped).
  std::vector<std::string> pathEntries;
  /// The folder beside the library, or "" for none.
  std::string defaultDir;
  /// TEGULA_VISIBLE_BACKENDS split at ','; empty admits every backend.
  std::vector<std::string> visibleBackends;
};

/// What discovery found at one path: a loaded plugin, or something skipped.
struct PluginRecord {
  std::string path;
  /// Backend name from the file name; "" for a folder.
  std::string name;
  /// Set when loaded.
  std::unique_ptr<Plugin> plugin;
  /// Set when skipped: the reason, and "<path>: <reason>".
  std::string skipReason;
  std::string skipMessage;
};

/// The plugins and devices of one runtime.
class PluginRegistry {
public:
  PluginRegistry() = default;
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry &) = delete;
  PluginRegistry &operator=(const PluginRegistry &) = delete;

  /// Runs discovery. Never fails: problems become skipped records.
  void discover(const DiscoveryOptions &options);

  /// Every path looked at, in discovery order.
  std::vector<PluginRecord> records;
  /// The folders searched, in order.
  std::vector<std::string> searchDirs;
  /// Devices of all loaded plugins, in discovery order.
  std::vector<std::unique_ptr<tegula_device>> devices;

private:
  void scanFolder(const std::string &dir, bool isDefault);
  void considerFile(const std::string &file);
  /// Loads |record|'s file; on failure returns the reason, else "".
  std::string load(PluginRecord &record);
  void listDevices(Plugin &plugin);
  void addSkipped(std::string path, std::string name, std::string reason);

  std::vector<std::string> visible;
  std::set<std::string> scannedDirs;
};

/// The default plugin folder: `tegula/plugins/` beside libtegula_runtime, or
/// "" when the library's own location cannot be found.
std::string defaultPluginDir();

/// The backend name in `libtegula_plugin_<backend>.so`, or "" when |fileName|
/// does not follow that pattern.
std::string backendNameFromFileName(const std::string &fileName);

} // namespace tegula::runtime

/// A runtime: its registry, nothing else (the registry is immutable after
/// creation, which is what makes concurrent dispatch safe).
struct tegula_runtime {
  tegula::runtime::PluginRegistry registry;
};

#endif // TEGULA_RUNTIME_LIB_PLUGINREGISTRY_H
