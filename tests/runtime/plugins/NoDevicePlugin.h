//===- NoDevicePlugin.h - Skeleton of the small test plugins ----*- C++ -*-===//
//
// A plugin with no device, for the discovery tests: each bad plugin takes
// this table and breaks the one thing it tests. Test-only; never installed.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_TESTS_RUNTIME_PLUGINS_NODEVICEPLUGIN_H
#define TEGULA_TESTS_RUNTIME_PLUGINS_NODEVICEPLUGIN_H

#include "tegula/plugin_support.hpp"

struct tg_plugin {
  int unused = 0;
};

namespace nodevice {

/// The backend name getInfo reports; set by baseTable.
inline const char *pluginName = "";

inline tg_error_t *initialize(tg_plugin_initialize_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_initialize_args, plugin);
  args->plugin = new tg_plugin();
  return nullptr;
}

inline tg_error_t *destroy(tg_plugin_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_destroy_args, plugin);
  delete args->plugin;
  return nullptr;
}

inline tg_error_t *getInfo(tg_plugin_get_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_info_args, num_targets);
  args->name = pluginName;
  args->version = "0.1.0";
  args->vendor = "Tegula tests";
  args->targets = nullptr;
  args->num_targets = 0;
  return nullptr;
}

inline tg_error_t *getDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  args->devices = nullptr;
  args->num_devices = 0;
  args->status = "no devices (test plugin)";
  return nullptr;
}

/// A complete 1.0 table for a device-less plugin named |name|.
inline tg_plugin_api baseTable(const char *name) {
  pluginName = name;
  tg_plugin_api t{};
  t.struct_size = sizeof(t);
  t.major_version = TG_PLUGIN_API_MAJOR;
  t.minor_version = TG_PLUGIN_API_MINOR;
  t.error_destroy = tegula::plugin::errorDestroy;
  t.error_message = tegula::plugin::errorMessage;
  t.error_get_code = tegula::plugin::errorGetCode;
  t.plugin_initialize = initialize;
  t.plugin_destroy = destroy;
  t.plugin_get_info = getInfo;
  t.plugin_get_devices = getDevices;
  return t;
}

} // namespace nodevice

#endif // TEGULA_TESTS_RUNTIME_PLUGINS_NODEVICEPLUGIN_H
