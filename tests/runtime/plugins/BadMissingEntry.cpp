//===- BadMissingEntry.cpp - A plugin without the entry symbol ------------===//
//
// Exports a misspelled entry point: the runtime must skip it with "no entry
// symbol tg_plugin_get_api".

#include "NoDevicePlugin.h"

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_apis(uint32_t, uint32_t) {
  static const tg_plugin_api table = nodevice::baseTable("bad_missing_entry");
  return &table;
}
