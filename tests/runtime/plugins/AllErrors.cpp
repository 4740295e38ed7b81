//===- AllErrors.cpp - A plugin whose every call fails --------------------===//
//
// Loads and lists one device, and then every call fails: most with
// TG_ERROR_DEVICE and "simulated failure in <entry>", device_get_properties
// with a code no header defines (1234, which the runtime must read as
// TG_ERROR_UNKNOWN), and module_load by throwing a C++ exception through the
// C ABI (which a plugin must never do, and which the runtime must survive).

#include "tegula/plugin_support.hpp"

#include <stdexcept>

using namespace tegula::plugin;

struct tg_device {
  int unused = 0;
};

struct tg_plugin {
  tg_device device;
  tg_device_t *handles[1] = {&device};
};

namespace {

tg_error_t *initialize(tg_plugin_initialize_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_initialize_args, plugin);
  args->plugin = new tg_plugin();
  return nullptr;
}

tg_error_t *destroy(tg_plugin_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_destroy_args, plugin);
  delete args->plugin;
  return nullptr;
}

tg_error_t *getInfo(tg_plugin_get_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_info_args, num_targets);
  args->name = "all_errors";
  args->version = "0.1.0";
  args->vendor = "Tegula tests";
  return nullptr;
}

tg_error_t *getDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  args->devices = args->plugin->handles;
  args->num_devices = 1;
  return nullptr;
}

tg_error_t *getProperties(tg_device_get_properties_args *) {
  return makeError(1234, "simulated failure in device_get_properties");
}

tg_error_t *moduleLoad(tg_module_load_args *) {
  throw std::runtime_error("a C++ exception escaping module_load");
}

#define FAILING(entry)                                                         \
  tg_error_t *entry##Fails(tg_##entry##_args *) {                              \
    return makeError(TG_ERROR_DEVICE, "simulated failure in " #entry);         \
  }
FAILING(plugin_compile)
FAILING(image_destroy)
FAILING(buffer_alloc)
FAILING(buffer_free)
FAILING(buffer_write)
FAILING(buffer_read)
FAILING(buffer_copy)
FAILING(buffer_memset)
FAILING(stream_create)
FAILING(stream_destroy)
FAILING(stream_synchronize)
FAILING(stream_wait_event)
FAILING(event_create)
FAILING(event_destroy)
FAILING(event_record)
FAILING(event_synchronize)
FAILING(event_elapsed_time)
FAILING(module_unload)
FAILING(module_get_kernel)
FAILING(kernel_launch)
#undef FAILING

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t, uint32_t) {
  static const tg_plugin_api table = [] {
    tg_plugin_api t{};
    t.struct_size = sizeof(t);
    t.major_version = TG_PLUGIN_API_MAJOR;
    t.minor_version = TG_PLUGIN_API_MINOR;
    t.error_destroy = errorDestroy;
    t.error_message = errorMessage;
    t.error_get_code = errorGetCode;
    t.plugin_initialize = initialize;
    t.plugin_destroy = destroy;
    t.plugin_get_info = getInfo;
    t.plugin_get_devices = getDevices;
    t.device_get_properties = getProperties;
    t.plugin_compile = plugin_compileFails;
    t.image_destroy = image_destroyFails;
    t.buffer_alloc = buffer_allocFails;
    t.buffer_free = buffer_freeFails;
    t.buffer_write = buffer_writeFails;
    t.buffer_read = buffer_readFails;
    t.buffer_copy = buffer_copyFails;
    t.buffer_memset = buffer_memsetFails;
    t.stream_create = stream_createFails;
    t.stream_destroy = stream_destroyFails;
    t.stream_synchronize = stream_synchronizeFails;
    t.stream_wait_event = stream_wait_eventFails;
    t.event_create = event_createFails;
    t.event_destroy = event_destroyFails;
    t.event_record = event_recordFails;
    t.event_synchronize = event_synchronizeFails;
    t.event_elapsed_time = event_elapsed_timeFails;
    t.module_load = moduleLoad;
    t.module_unload = module_unloadFails;
    t.module_get_kernel = module_get_kernelFails;
    t.kernel_launch = kernel_launchFails;
    return t;
  }();
  return &table;
}
