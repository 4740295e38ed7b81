//===- BadMajor.cpp - A plugin of an incompatible ABI major version -------===//
//
// Claims ABI 2.0 whatever the runtime asks for: the runtime must skip it,
// naming both versions.

#include "NoDevicePlugin.h"

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t, uint32_t) {
  static const tg_plugin_api table = [] {
    tg_plugin_api t = nodevice::baseTable("bad_major");
    t.major_version = TG_PLUGIN_API_MAJOR + 1;
    t.minor_version = 0;
    return t;
  }();
  return &table;
}
