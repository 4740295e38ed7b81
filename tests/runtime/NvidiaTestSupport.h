//===- NvidiaTestSupport.h - Shared by the NVIDIA plugin tests --*- C++ -*-===//

#ifndef TEGULA_TESTS_RUNTIME_NVIDIATESTSUPPORT_H
#define TEGULA_TESTS_RUNTIME_NVIDIATESTSUPPORT_H

#include "TestSupport.h"

#include <cstdlib>
#include <string>

namespace tegula::test {

/// The folder of the nvidia plugin: $TEGULA_NVIDIA_PLUGIN_DIR when set (a
/// copy of the build run on another machine, e.g. the GPU machine), else
/// the build tree's plugin folder.
inline std::string nvidiaPluginDir() {
  const char *dir = std::getenv("TEGULA_NVIDIA_PLUGIN_DIR");
  return dir && *dir ? std::string(dir) : kBuildPluginDir;
}

/// A runtime that sees only the nvidia plugin of nvidiaPluginDir().
inline Runtime makeNvidiaRuntime() {
  return makeRuntime(nvidiaPluginDir(), "nvidia");
}

/// Why there is no nvidia device in |runtime|, for a skip message.
inline std::string noDeviceReason(const Runtime &runtime) {
  std::string reason = "no CUDA device";
  for (const PluginInfo &info : runtime.plugins()) {
    if (info.name != "nvidia" && info.path.find("nvidia") == std::string::npos)
      continue;
    if (!info.loaded)
      reason += " (the plugin did not load: " + info.skipMessage + ")";
    else if (!info.deviceStatus.empty())
      reason += " (" + info.deviceStatus + ")";
  }
  return reason;
}

} // namespace tegula::test

#endif // TEGULA_TESTS_RUNTIME_NVIDIATESTSUPPORT_H
