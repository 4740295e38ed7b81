//===- Devices.cpp - `tegula devices` -------------------------------------===//
//
// Prints what plugin discovery found: the folders searched, every plugin
// (loaded with its version, targets and device count or the reason it has
// no device; or skipped, on one line naming the file and the reason), then
// every device with its properties. The format is described in
// docs/runtime.md and checked by tests/runtime/devices-*.test.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tegula/runtime.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>

using namespace tegula;

namespace {

void printUsage() {
  std::printf(
      "usage: tegula devices\n\n"
      "Lists every plugin found (loaded, or skipped and why) and every "
      "device\nwith its properties. Exits 0 even when there is no device.\n\n"
      "environment:\n"
      "  TEGULA_PLUGIN_PATH       colon-separated plugin folders or files, "
      "searched\n"
      "                           before the folder beside libtegula_runtime\n"
      "  TEGULA_VISIBLE_BACKENDS  comma-separated backends allowed to load\n");
}

/// "48 KiB", "1.5 GiB": a byte count the way people read it.
std::string formatBytes(uint64_t bytes) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[64];
  if (unit == 0 || value == static_cast<double>(static_cast<uint64_t>(value)))
    std::snprintf(text, sizeof(text), "%llu %s",
                  static_cast<unsigned long long>(value), units[unit]);
  else
    std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

std::string formatClock(uint32_t khz) {
  if (!khz)
    return "unknown";
  return std::to_string(khz / 1000) + " MHz";
}

std::string formatMatrixUnits(uint32_t units) {
  static const struct {
    uint32_t bit;
    const char *name;
  } kNames[] = {
      {TG_MATRIX_UNIT_NVIDIA_MMA, "mma"},
      {TG_MATRIX_UNIT_NVIDIA_WGMMA, "wgmma"},
      {TG_MATRIX_UNIT_AMD_MFMA, "mfma"},
      {TG_MATRIX_UNIT_AMD_WMMA, "wmma"},
      {TG_MATRIX_UNIT_INTEL_DPAS, "dpas"},
      {TG_MATRIX_UNIT_X86_AMX, "amx"},
  };
  std::string text;
  for (const auto &entry : kNames)
    if (units & entry.bit)
      text += (text.empty() ? "" : ", ") + std::string(entry.name);
  return text.empty() ? "none" : text;
}

void printPlugins(const Runtime &runtime) {
  std::vector<std::string> dirs = runtime.searchDirs();
  std::printf("Plugin folders searched:%s\n", dirs.empty() ? " none" : "");
  for (const std::string &dir : dirs)
    std::printf("  %s\n", dir.c_str());

  std::vector<PluginInfo> plugins = runtime.plugins();
  size_t loaded = 0;
  for (const PluginInfo &plugin : plugins)
    loaded += plugin.loaded;
  std::printf("Plugins (%zu found, %zu loaded):%s\n", plugins.size(), loaded,
              plugins.empty() ? " none" : "");
  for (const PluginInfo &plugin : plugins) {
    if (!plugin.loaded) {
      std::printf("  skipped %s\n", plugin.skipMessage.c_str());
      continue;
    }
    std::printf("  loaded  %s %s (ABI %u.%u) from %s\n", plugin.name.c_str(),
                plugin.version.c_str(), plugin.abiMajor, plugin.abiMinor,
                plugin.path.c_str());
    std::printf("          vendor: %s\n", plugin.vendor.c_str());
    std::string targets;
    for (const std::string &target : plugin.targets)
      targets += (targets.empty() ? "" : ", ") + target;
    std::printf("          targets: %s\n",
                targets.empty() ? "none" : targets.c_str());
    if (plugin.numDevices)
      std::printf("          devices: %zu\n", plugin.numDevices);
    else
      std::printf("          devices: none (%s)\n",
                  plugin.deviceStatus.empty() ? "the plugin gave no reason"
                                              : plugin.deviceStatus.c_str());
  }
}

void printDevices(const Runtime &runtime) {
  std::vector<Device> devices = runtime.devices();
  if (devices.empty()) {
    std::printf("Devices: none\n");
    return;
  }
  std::printf("Devices (%zu):\n", devices.size());
  for (const Device &device : devices) {
    DeviceProperties p;
    try {
      p = device.properties();
    } catch (const Error &error) {
      std::printf("  %s\n    properties unavailable: %s\n",
                  device.name().c_str(), error.what());
      continue;
    }
    std::printf("  %s  %s\n", device.name().c_str(), p.name.c_str());
    auto row = [](const char *key, const std::string &value) {
      std::printf("    %-24s %s\n", key, value.c_str());
    };
    row("target:", device.target());
    row("architecture:", p.arch.empty() ? "unknown" : p.arch);
    row("compute units:", std::to_string(p.computeUnits));
    row("warp size:", std::to_string(p.warpSize));
    row("max threads per block:", std::to_string(p.maxThreadsPerBlock));
    row("shared memory per block:", formatBytes(p.sharedMemoryPerBlock));
    row("global memory:", formatBytes(p.globalMemory));
    row("clock:", formatClock(p.clockKHz));
    row("memory clock:", formatClock(p.memoryClockKHz));
    row("matrix units:", formatMatrixUnits(p.matrixUnits));
  }
}

/// The folder plugin packages install into: tegula/plugins/ beside the
/// libtegula_runtime this process loaded (where the runtime looks by default).
std::string packagePluginFolder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&tegula_runtime_create), &info) ||
      !info.dli_fname)
    return "lib/tegula/plugins/ beside libtegula_runtime";
  std::error_code ec;
  std::filesystem::path library =
      std::filesystem::weakly_canonical(info.dli_fname, ec);
  if (ec)
    library = info.dli_fname;
  return (library.parent_path() / "tegula" / "plugins").string();
}

/// Without a loaded plugin there is nothing to run on: say how to add one.
void printHowToAddAPlugin(const Runtime &runtime) {
  std::vector<PluginInfo> plugins = runtime.plugins();
  for (const PluginInfo &plugin : plugins)
    if (plugin.loaded)
      return;
  std::printf(
      "\nNo backend plugin is loaded, so there is no device to run on.%s\n"
      "Backends are separate packages: install tegula-plugin-host,\n"
      "tegula-plugin-nvidia, tegula-plugin-amd or tegula-plugin-intel, which\n"
      "put their plugin into\n"
      "  %s\n"
      "or set TEGULA_PLUGIN_PATH to a folder holding "
      "libtegula_plugin_<backend>.so.\n",
      plugins.empty() ? "" : " (The reasons each was skipped are above.)",
      packagePluginFolder().c_str());
}

} // namespace

int tegula::cli::runDevices(const std::vector<std::string> &args) {
  for (const std::string &arg : args) {
    if (arg == "--help" || arg == "-h") {
      printUsage();
      return 0;
    }
    std::fprintf(stderr, "tegula devices: unexpected argument '%s'\n",
                 arg.c_str());
    return 2;
  }
  try {
    Runtime runtime;
    printPlugins(runtime);
    printDevices(runtime);
    printHowToAddAPlugin(runtime);
  } catch (const Error &error) {
    std::fprintf(stderr, "tegula devices: %s\n", error.what());
    return 1;
  }
  return 0;
}
