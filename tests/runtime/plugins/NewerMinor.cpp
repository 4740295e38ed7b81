//===- NewerMinor.cpp - A plugin built against a newer minor version ------===//
//
// Stands for a plugin built against a future 1.99 header: its function table
// is longer (two entries the runtime has never heard of), it carries an
// extension the runtime does not know, and its device properties struct has
// a field more. The runtime must load it and use what it knows.

#include "NoDevicePlugin.h"

namespace {

/// What a 1.99 table might look like: 1.0's, then new entries at the end.
struct FutureApi {
  tg_plugin_api base;
  void (*futureEntryA)(void);
  void (*futureEntryB)(void);
};

/// An extension type the runtime does not know.
struct FutureExtension {
  tg_extension_base base;
  uint64_t payload;
};

/// 1.99's properties: 1.0's, then a new field.
struct FutureProperties {
  tg_device_properties base;
  uint32_t futureField;
};

struct FutureDevice {
  FutureProperties properties{};
  FutureDevice() {
    properties.base.struct_size = sizeof(FutureProperties);
    properties.base.name = "Future device";
    properties.base.arch = "future_arch";
    properties.base.compute_units = 7;
    properties.base.warp_size = 32;
    properties.futureField = 42;
  }
};

FutureDevice &theDevice() {
  static FutureDevice device;
  return device;
}

tg_error_t *getDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  static tg_device_t *const devices[] = {
      reinterpret_cast<tg_device_t *>(&theDevice())};
  args->devices = devices;
  args->num_devices = 1;
  args->status = nullptr;
  return nullptr;
}

tg_error_t *getProperties(tg_device_get_properties_args *args) {
  TG_CHECK_ARGS(args, tg_device_get_properties_args, properties);
  // The caller's struct may be shorter than ours: copy what fits.
  tegula::plugin::copyProperties(theDevice().properties.base,
                                 args->properties);
  if (TG_STRUCT_SIZE(FutureProperties, futureField) <=
      args->properties->struct_size)
    reinterpret_cast<FutureProperties *>(args->properties)->futureField =
        theDevice().properties.futureField;
  return nullptr;
}

void futureEntry() {}

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t, uint32_t) {
  static const FutureExtension extension = {
      {sizeof(FutureExtension), 0x7fff0001u, nullptr}, 0xfeedu};
  static const FutureApi table = [] {
    FutureApi t{};
    t.base = nodevice::baseTable("newer_minor");
    t.base.struct_size = sizeof(FutureApi);
    t.base.minor_version = 99;
    t.base.extension_start = &extension.base;
    t.base.plugin_get_devices = getDevices;
    t.base.device_get_properties = getProperties;
    t.futureEntryA = futureEntry;
    t.futureEntryB = futureEntry;
    return t;
  }();
  return &table.base;
}
