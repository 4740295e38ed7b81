//===- FailingInit.cpp - A plugin whose initialization fails --------------===//
//
// plugin_initialize returns an error: the runtime must skip the plugin with
// "initialization failed: <the plugin's message>".

#include "NoDevicePlugin.h"

namespace {
tg_error_t *failingInitialize(tg_plugin_initialize_args *) {
  return tegula::plugin::makeError(TG_ERROR_UNAVAILABLE,
                                   "simulated initialization failure");
}
} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t, uint32_t) {
  static const tg_plugin_api table = [] {
    tg_plugin_api t = nodevice::baseTable("failing_init");
    t.plugin_initialize = failingInitialize;
    return t;
  }();
  return &table;
}
