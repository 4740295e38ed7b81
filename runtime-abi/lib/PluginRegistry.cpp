//===- PluginRegistry.cpp - Plugin discovery and loading ------------------===//

#include "PluginRegistry.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

using namespace tegula::runtime;
namespace fs = std::filesystem;

namespace {
constexpr const char kFilePrefix[] = "libtegula_plugin_";
constexpr const char kFileSuffix[] = ".so";

/// Drops a leading "<prefix>" from |message|.
std::string stripPrefix(std::string message, const std::string &prefix) {
  if (message.compare(0, prefix.size(), prefix) == 0)
    message.erase(0, prefix.size());
  return message;
}

/// The message of a runtime error, without the "<backend>: " prefix that
/// Plugin::takeError adds, and the error freed.
std::string takeMessage(tegula_error_t *error, const std::string &backend) {
  std::string message = tegula_error_get_message(error);
  tegula_error_destroy(error);
  return stripPrefix(std::move(message), backend + ": ");
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string versionString(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

/// Prints |line| to stderr the first time this process sees it: a runtime
/// created again (each test, each Python Runtime) does not repeat it.
void warnOnce(const std::string &line) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (!said.insert(line).second)
    return;
  std::fprintf(stderr, "tegula: warning: %s\n", line.c_str());
  std::fflush(stderr);
}

/// What a file that is not a regular file is, for the skip reason.
const char *fileKind(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISDIR(mode))
    return "a folder";
  return "another kind of file";
}

/// Warns (once) when anyone may write into plugin folder |dir|: any user
/// could then put a plugin there (or replace one) that this process loads.
/// The sticky bit does not help: it stops others deleting or renaming
/// files, not adding new ones.
void checkFolderTrust(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return;
  if (st.st_mode & S_IWOTH)
    warnOnce("plugin folder " + dir +
             " is world-writable: any user can add a plugin this process "
             "will load");
}

/// Warns (once) about plugin file |file| (|st|, its stat) when another user
/// could have written it: owned by someone other than root and the current
/// user, or world-writable. It is loaded all the same.
void checkFileTrust(const std::string &file, const struct stat &st) {
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    warnOnce("plugin " + file + " is owned by user " +
             std::to_string(st.st_uid) + ", neither root nor the current user " +
             std::to_string(::geteuid()) + "; loading it anyway");
  if (st.st_mode & S_IWOTH)
    warnOnce("plugin " + file +
             " is world-writable: any user can change the code this process "
             "loads; loading it anyway");
}
} // namespace

//===----------------------------------------------------------------------===//
// Plugin
//===----------------------------------------------------------------------===//

Plugin::~Plugin() {
  if (instance && TG_API_HAS(api, plugin_destroy)) {
    tg_plugin_destroy_args args{};
    args.plugin = instance;
    tegula_error_destroy(TEGULA_PLUGIN_CALL(this, plugin_destroy, args));
  }
  // |library| unloads itself.
}

tegula_error_t *Plugin::takeError(tg_error_t *error) const noexcept {
  if (!error)
    return nullptr;
  try {
    tg_error_message_args messageArgs{};
    messageArgs.struct_size = sizeof(messageArgs);
    messageArgs.error = error;
    api->error_message(&messageArgs);
    std::string message =
        messageArgs.message
            ? std::string(messageArgs.message, messageArgs.message_size)
            : std::string("(no message)");
    // One line: a message with newlines would break the one-line contract.
    std::replace(message.begin(), message.end(), '\n', ' ');

    tg_error_get_code_args codeArgs{};
    codeArgs.struct_size = sizeof(codeArgs);
    codeArgs.error = error;
    codeArgs.code = TG_ERROR_UNKNOWN;
    api->error_get_code(&codeArgs);

    tg_error_destroy_args destroyArgs{};
    destroyArgs.struct_size = sizeof(destroyArgs);
    destroyArgs.error = error;
    api->error_destroy(&destroyArgs);
    return makeError(normalizeCode(codeArgs.code), name + ": " + message);
  } catch (...) {
    return makeErrorf(TG_ERROR_INTERNAL,
                      "%s: failed to read an error from the plugin",
                      name.c_str());
  }
}

//===----------------------------------------------------------------------===//
// Discovery
//===----------------------------------------------------------------------===//

std::string tegula::runtime::backendNameFromFileName(const std::string &file) {
  size_t prefix = sizeof(kFilePrefix) - 1, suffix = sizeof(kFileSuffix) - 1;
  if (file.size() <= prefix + suffix ||
      file.compare(0, prefix, kFilePrefix) != 0 ||
      file.compare(file.size() - suffix, suffix, kFileSuffix) != 0)
    return "";
  std::string name = file.substr(prefix, file.size() - prefix - suffix);
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return "";
  return name;
}

std::string tegula::runtime::defaultPluginDir() {
  // The folder next to *this library*, wherever it was loaded from: the
  // build tree and an install have the same lib/ + lib/tegula/plugins/ shape.
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&defaultPluginDir), &info) ||
      !info.dli_fname)
    return "";
  std::error_code ec;
  fs::path library = fs::weakly_canonical(fs::path(info.dli_fname), ec);
  if (ec || !library.is_absolute())
    return "";
  return (library.parent_path() / "tegula" / "plugins").string();
}

PluginRegistry::~PluginRegistry() {
  devices.clear();
  // Unload in reverse order of loading.
  for (auto it = records.rbegin(); it != records.rend(); ++it)
    it->plugin.reset();
}

void PluginRegistry::addSkipped(std::string path, std::string name,
                                std::string reason) {
  PluginRecord record;
  record.skipMessage = path + ": " + reason;
  record.path = std::move(path);
  record.name = std::move(name);
  record.skipReason = std::move(reason);
  records.push_back(std::move(record));
}

void PluginRegistry::discover(const DiscoveryOptions &options) {
  visible.clear();
  for (const std::string &name : options.visibleBackends)
    visible.push_back(lower(name));

  for (const std::string &entry : options.pathEntries) {
    fs::path path(entry);
    if (!path.is_absolute()) {
      // A relative entry would be resolved against the current directory,
      // which is never searched: a stray plugin there must not load.
      addSkipped(entry, "",
                 "relative entry in the plugin path ignored (the current "
                 "directory is never searched)");
      continue;
    }
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (fs::is_directory(status)) {
      scanFolder(entry, /*isDefault=*/false);
    } else if (fs::is_regular_file(status)) {
      checkFolderTrust(path.parent_path().string());
      considerFile(entry);
    } else if (!fs::exists(status)) {
      addSkipped(entry, "", "no such file or folder");
    } else {
      addSkipped(entry, "", "neither a folder nor a file");
    }
  }
  if (!options.defaultDir.empty())
    scanFolder(options.defaultDir, /*isDefault=*/true);
}

void PluginRegistry::scanFolder(const std::string &dir, bool isDefault) {
  std::error_code ec;
  std::string key = fs::weakly_canonical(dir, ec).string();
  if (ec)
    key = dir;
  // A folder named twice (say, the default folder also in the path) is
  // scanned once; its plugins would only be duplicates.
  if (!scannedDirs.insert(key).second)
    return;
  if (isDefault && !fs::exists(dir, ec))
    return; // An install without plugins is not worth a line.
  searchDirs.push_back(dir);
  checkFolderTrust(dir);

  std::vector<std::string> files;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    addSkipped(dir, "", "cannot read plugin folder: " + ec.message());
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec)
      break;
    std::string file = it->path().filename().string();
    if (backendNameFromFileName(file).empty())
      continue; // Not a plugin: READMEs, versioned symlinks, ...
    files.push_back(it->path().string());
  }
  if (ec) {
    addSkipped(dir, "", "cannot read plugin folder: " + ec.message());
    return;
  }
  // Directory order is arbitrary; sorted order makes discovery reproducible.
  std::sort(files.begin(), files.end());
  for (const std::string &file : files)
    considerFile(file);
}

void PluginRegistry::considerFile(const std::string &file) {
  std::string name =
      backendNameFromFileName(fs::path(file).filename().string());
  if (name.empty()) {
    addSkipped(file, "",
               "file name does not follow libtegula_plugin_<backend>.so");
    return;
  }
  if (!visible.empty() &&
      std::find(visible.begin(), visible.end(), name) == visible.end()) {
    std::string list;
    for (const std::string &v : visible)
      list += (list.empty() ? "" : ",") + v;
    addSkipped(file, name, "not in TEGULA_VISIBLE_BACKENDS (" + list + ")");
    return;
  }
  for (const PluginRecord &record : records)
    if (record.plugin && record.name == name) {
      // The first one found wins: that is what makes the path an order.
      addSkipped(file, name,
                 "backend '" + name + "' already loaded from " + record.path);
      return;
    }

  // Only regular files are opened: dlopen of a FIFO named like a plugin
  // would wait forever for a writer, a device could be anything. stat
  // follows symbolic links, so a link to such a file is skipped too.
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    addSkipped(file, name,
               std::string("cannot stat the file: ") + std::strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    addSkipped(file, name,
               std::string("not a regular file (") + fileKind(st.st_mode) +
                   "); not opened");
    return;
  }
  checkFileTrust(file, st);

  PluginRecord record;
  record.path = file;
  record.name = name;
  std::string reason = load(record);
  if (!reason.empty()) {
    addSkipped(file, name, reason);
    return;
  }
  records.push_back(std::move(record));
  listDevices(*records.back().plugin);
}

std::string PluginRegistry::load(PluginRecord &record) {
  auto plugin = std::make_unique<Plugin>(record.path, record.name);

  // rtld_now: unresolved symbols fail here, with a message, rather than
  // crashing at the first call. rtld_local: plugins cannot see each other.
  boost::dll::fs::error_code ec;
  plugin->library.load(boost::dll::fs::path(record.path),
                       boost::dll::load_mode::rtld_now |
                           boost::dll::load_mode::rtld_local,
                       ec);
  if (ec || !plugin->library.is_loaded()) {
    // Boost's error code says only "bad file descriptor"; dlerror() has the
    // real reason (still set: nothing dl-related ran since the failure).
    const char *dl = dlerror();
    std::string why = dl ? dl : ec.message();
    return "not a loadable shared library: " +
           stripPrefix(std::move(why), record.path + ": ");
  }

  if (!plugin->library.has(TG_PLUGIN_ENTRY_SYMBOL))
    return std::string("no entry symbol ") + TG_PLUGIN_ENTRY_SYMBOL;
  auto &getApi =
      plugin->library.get<tg_plugin_get_api_fn>(TG_PLUGIN_ENTRY_SYMBOL);

  const std::string runtimeVersion =
      versionString(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  const tg_plugin_api *api = nullptr;
  try {
    api = getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  } catch (...) {
    return std::string(TG_PLUGIN_ENTRY_SYMBOL) +
           " threw a C++ exception across the C ABI";
  }
  if (!api)
    return std::string(TG_PLUGIN_ENTRY_SYMBOL) +
           " returned no function table for ABI " + runtimeVersion;
  if (api->struct_size < TG_STRUCT_SIZE(tg_plugin_api, minor_version))
    return "function table too small to hold a version (" +
           std::to_string(api->struct_size) + " bytes)";
  const std::string pluginVersion =
      versionString(api->major_version, api->minor_version);
  if (api->major_version != TG_PLUGIN_API_MAJOR)
    return "plugin ABI version " + pluginVersion +
           " is incompatible with the runtime's " + runtimeVersion +
           " (major versions differ)";
  if (api->struct_size < TG_PLUGIN_API_1_0_SIZE)
    return "function table is " + std::to_string(api->struct_size) +
           " bytes, ABI " + versionString(TG_PLUGIN_API_MAJOR, 0) +
           " needs at least " + std::to_string(TG_PLUGIN_API_1_0_SIZE);
  struct Required {
    const void *fn;
    const char *name;
  } required[] = {
      {reinterpret_cast<const void *>(api->error_destroy), "error_destroy"},
      {reinterpret_cast<const void *>(api->error_message), "error_message"},
      {reinterpret_cast<const void *>(api->error_get_code), "error_get_code"},
      {reinterpret_cast<const void *>(api->plugin_initialize),
       "plugin_initialize"},
      {reinterpret_cast<const void *>(api->plugin_get_info),
       "plugin_get_info"},
      {reinterpret_cast<const void *>(api->plugin_get_devices),
       "plugin_get_devices"},
  };
  for (const Required &entry : required)
    if (!entry.fn)
      return std::string("function table lacks the required entry ") +
             entry.name;
  plugin->api = api;

  tg_plugin_initialize_args init{};
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  init.runtime_minor = TG_PLUGIN_API_MINOR;
  if (tegula_error_t *error =
          TEGULA_PLUGIN_CALL(plugin, plugin_initialize, init))
    return "initialization failed: " + takeMessage(error, record.name);
  if (!init.plugin)
    return "initialization returned no plugin instance";
  plugin->instance = init.plugin;

  tg_plugin_get_info_args info{};
  info.plugin = plugin->instance;
  if (tegula_error_t *error = TEGULA_PLUGIN_CALL(plugin, plugin_get_info, info))
    return "plugin_get_info failed: " + takeMessage(error, record.name);
  if (!info.name)
    return "plugin_get_info returned no name";
  if (record.name != info.name)
    return std::string("reports backend name '") + info.name +
           "', but its file is named for '" + record.name + "'";
  plugin->version = info.version ? info.version : "";
  plugin->vendor = info.vendor ? info.vendor : "";
  if (info.targets)
    for (size_t i = 0; i < info.num_targets; ++i)
      if (info.targets[i])
        plugin->targets.push_back(info.targets[i]);
  for (const std::string &target : plugin->targets)
    plugin->targetPtrs.push_back(target.c_str());
  // A 1.0 plugin has no entry: then it declares nothing, which is allowed.
  if (TG_API_HAS(plugin->api, plugin_get_compile_info)) {
    tg_plugin_get_compile_info_args compile{};
    compile.plugin = plugin->instance;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(plugin, plugin_get_compile_info, compile))
      return "plugin_get_compile_info failed: " +
             takeMessage(error, record.name);
    if ((compile.num_stages && !compile.stages) ||
        (compile.num_options && !compile.options))
      return "plugin_get_compile_info returned a NULL array";
    plugin->stages = compile.stages;
    plugin->numStages = compile.num_stages;
    plugin->options = compile.options;
    plugin->numOptions = compile.num_options;
  }

  record.plugin = std::move(plugin);
  return "";
}

void PluginRegistry::listDevices(Plugin &plugin) {
  tg_plugin_get_devices_args args{};
  args.plugin = plugin.instance;
  if (tegula_error_t *error =
          TEGULA_PLUGIN_CALL(&plugin, plugin_get_devices, args)) {
    plugin.deviceStatus =
        "plugin_get_devices failed: " + takeMessage(error, plugin.name);
    plugin.hasDeviceStatus = true;
    return;
  }
  if (args.status) {
    plugin.deviceStatus = args.status;
    plugin.hasDeviceStatus = true;
  }
  if (args.num_devices && !args.devices) {
    plugin.deviceStatus = "plugin_get_devices returned " +
                          std::to_string(args.num_devices) +
                          " devices but no array";
    plugin.hasDeviceStatus = true;
    return;
  }
  for (size_t i = 0; i < args.num_devices; ++i) {
    if (!args.devices[i])
      continue;
    auto device = std::make_unique<tegula_device>();
    device->plugin = &plugin;
    device->handle = args.devices[i];
    device->name = plugin.name + ":" + std::to_string(i);
    device->target = plugin.name;

    // The arch is fixed for the device's life: read it once for the target.
    tg_device_properties props{};
    props.struct_size = sizeof(props);
    tg_device_get_properties_args propsArgs{};
    propsArgs.device = device->handle;
    propsArgs.properties = &props;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(&plugin, device_get_properties, propsArgs))
      tegula_error_destroy(error);
    else {
      if (props.arch && *props.arch)
        device->target += std::string(":") + props.arch;
      // 1.1: a 1.0 plugin leaves the (zeroed) field alone.
      if (props.compatible_archs)
        for (size_t c = 0; c < props.num_compatible_archs; ++c)
          if (props.compatible_archs[c] && *props.compatible_archs[c])
            device->compatibleTargets.push_back(plugin.name + ":" +
                                                props.compatible_archs[c]);
    }
    devices.push_back(std::move(device));
  }
}
