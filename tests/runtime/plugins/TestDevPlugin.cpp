//===- TestDevPlugin.cpp - A fake backend for the runtime tests -----------===//
//
// `testdev`: two fake devices whose memory is plain host memory, so the
// runtime's dispatch and the C++ API can be tested for real without a GPU.
// Test-only; never installed.
//
//  - testdev:0 (arch "testarch") and testdev:1 (arch "testarch2").
//    TEGULA_TESTDEV_COUNT=N (0 to 16, read when the plugin initializes)
//    makes N devices instead: the even ones are testarch devices like
//    testdev:0, the odd ones testarch2 devices like testdev:1, so that the
//    multi-device paths (one compile per arch, one module per device) can
//    be tested. 0 reports no device.
//  - TEGULA_TESTDEV_LOG=FILE appends one line per compile
//    ("compile testdev:<arch> <kernel>") and per module load
//    ("load testdev:<n> <kernel>") to FILE, for tests that count them.
//  - Memory: new[]; the device address is the host address. Allocations
//    above the device's 1 GiB fail with TG_ERROR_OUT_OF_MEMORY.
//  - Streams run everything at once, in the caller's thread; events record
//    the time. That is a valid (if trivial) in-order stream.
//  - Native streams (TG_EXTENSION_TYPE_NATIVE_STREAM): any handle wraps,
//    except ~0 (all ones), which stands for "a stream of another device" and
//    is TG_ERROR_INVALID_ARGUMENT, as a real plugin answers where it can tell.
//  - Compile: ignores the bytecode's content, takes the kernel name from the
//    "kernel" option, and makes a text image naming it. Two built-in kernels
//    run on the host when launched, unpacking the kernel ABI's layout:
//      fill_u32(u32* out, u32 value, i32 n):   out[i] = value
//      scale_f32(f32* out, f32* in, f32 a, i64 n): out[i] = a * in[i]
//    for every global thread index i < n. Pointers are checked against the
//    live allocations, so a bad packing is an error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "tegula/plugin_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace tegula::plugin;

struct tg_device {
  struct tg_plugin *plugin = nullptr;
  int index = 0;
  std::string name;
  std::string arch;
  tg_device_properties properties{};
};

struct tg_plugin {
  /// TEGULA_TESTDEV_COUNT's devices (2 by default); addresses stay put.
  std::vector<std::unique_ptr<tg_device>> devices;
  std::vector<tg_device_t *> handles;
  /// TEGULA_TESTDEV_LOG, or empty.
  std::string logPath;
  std::mutex logMutex;
  /// Live allocations: address -> size. Launches check pointers against it.
  std::mutex mutex;
  std::map<uintptr_t, uint64_t> allocations;
};

struct tg_buffer {
  tg_device *device;
  uint8_t *data;
  uint64_t size;
};

struct tg_stream {
  tg_device *device;
  bool wrapsNative = false;
  uint64_t native = 0;
};

struct tg_event {
  explicit tg_event(tg_device *device) : device(device) {}
  tg_device *device;
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
  std::mutex mutex;
};

namespace {

enum class Builtin { FillU32, ScaleF32 };

/// A built-in kernel's signature.
struct BuiltinInfo {
  Builtin kind;
  const char *name;
  std::vector<tg_kernel_arg> args;
  size_t packedSize;
};

const std::vector<BuiltinInfo> &builtins() {
  static const std::vector<BuiltinInfo> list = {
      {Builtin::FillU32,
       "fill_u32",
       {{"out", TG_ARG_POINTER, TG_TYPE_U32, 16, 0},
        {"value", TG_ARG_SCALAR, TG_TYPE_U32, 0, 0},
        {"n", TG_ARG_SCALAR, TG_TYPE_I32, 0, 0}},
       16},
      {Builtin::ScaleF32,
       "scale_f32",
       {{"out", TG_ARG_POINTER, TG_TYPE_F32, 16, 0},
        {"in", TG_ARG_POINTER, TG_TYPE_F32, 16, 0},
        {"a", TG_ARG_SCALAR, TG_TYPE_F32, 0, 0},
        {"n", TG_ARG_SCALAR, TG_TYPE_I64, 0, 0}},
       32},
  };
  return list;
}

const BuiltinInfo *findBuiltin(const std::string &name) {
  for (const BuiltinInfo &info : builtins())
    if (name == info.name)
      return &info;
  return nullptr;
}

} // namespace

struct tg_kernel {
  const BuiltinInfo *info;
  tg_device *device;
};

struct tg_module {
  tg_device *device;
  std::vector<std::unique_ptr<tg_kernel>> kernels;
};

struct tg_image {
  std::string data;
  std::string target;
  tg_kernel_metadata metadata{};
};

namespace {

constexpr char kImageMagic[] = "TESTDEV-IMAGE\n";
constexpr uint64_t kGiB = 1ull << 30;
const char *const kTargets[] = {"testarch", "testarch2"};
/// testarch2 devices also run testarch images (plugin ABI 1.1).
const char *const kTestarch2Runs[] = {"testarch"};

void setUpDevice(tg_plugin &plugin, int index) {
  plugin.devices.push_back(std::make_unique<tg_device>());
  tg_device &d = *plugin.devices.back();
  plugin.handles.push_back(&d);
  d.plugin = &plugin;
  d.index = index;
  d.name = "Tegula test device " + std::to_string(index);
  // Even devices are testarch devices like testdev:0, odd ones testarch2.
  bool first = index % 2 == 0;
  d.arch = first ? "testarch" : "testarch2";
  tg_device_properties &p = d.properties;
  p.struct_size = sizeof(p);
  p.name = d.name.c_str();
  p.arch = d.arch.c_str();
  p.compute_units = first ? 4 : 8;
  p.warp_size = first ? 32 : 64;
  p.max_threads_per_block = 1024;
  p.matrix_units = TG_MATRIX_UNIT_NONE;
  p.shared_memory_per_block = first ? 48 * 1024 : 64 * 1024;
  p.global_memory = kGiB;
  p.clock_khz = 1000000;
  p.memory_clock_khz = 500000;
  if (!first) {
    p.compatible_archs = kTestarch2Runs;
    p.num_compatible_archs = 1;
  }
}

/// True when [address, address + bytes) lies inside one live allocation.
bool isLive(tg_plugin &plugin, uint64_t address, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(plugin.mutex);
  auto it = plugin.allocations.upper_bound(static_cast<uintptr_t>(address));
  if (it == plugin.allocations.begin())
    return false;
  --it;
  uint64_t offset = address - it->first;
  return offset <= it->second && bytes <= it->second - offset;
}

//===-- Plugin --------------------------------------------------------------===//

/// Appends |line| to TEGULA_TESTDEV_LOG's file, when set.
void logLine(tg_plugin &plugin, const std::string &line) {
  if (plugin.logPath.empty())
    return;
  std::lock_guard<std::mutex> lock(plugin.logMutex);
  if (FILE *file = std::fopen(plugin.logPath.c_str(), "a")) {
    std::fprintf(file, "%s\n", line.c_str());
    std::fclose(file);
  }
}

tg_error_t *initialize(tg_plugin_initialize_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_initialize_args, plugin);
  int count = 2;
  if (const char *text = std::getenv("TEGULA_TESTDEV_COUNT"); text && *text) {
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end || value < 0 || value > 16)
      return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                        "TEGULA_TESTDEV_COUNT=%s is not a number of devices "
                        "from 0 to 16",
                        text);
    count = static_cast<int>(value);
  }
  return guard([&]() -> tg_error_t * {
    auto plugin = std::make_unique<tg_plugin>();
    if (const char *log = std::getenv("TEGULA_TESTDEV_LOG"))
      plugin->logPath = log;
    for (int index = 0; index < count; ++index)
      setUpDevice(*plugin, index);
    args->plugin = plugin.release();
    return nullptr;
  });
}

tg_error_t *destroy(tg_plugin_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_destroy_args, plugin);
  delete args->plugin;
  return nullptr;
}

tg_error_t *getInfo(tg_plugin_get_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_info_args, num_targets);
  args->name = "testdev";
  args->version = "0.1.0";
  args->vendor = "Tegula tests";
  args->targets = kTargets;
  args->num_targets = 2;
  return nullptr;
}

tg_error_t *getDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  args->devices = args->plugin->handles.data();
  args->num_devices = args->plugin->handles.size();
  args->status =
      args->num_devices ? nullptr : "no device (TEGULA_TESTDEV_COUNT=0)";
  return nullptr;
}

tg_error_t *getProperties(tg_device_get_properties_args *args) {
  TG_CHECK_ARGS(args, tg_device_get_properties_args, properties);
  copyProperties(args->device->properties, args->properties);
  return nullptr;
}

//===-- Compile and images ----------------------------------------------------===//

tg_error_t *compile(tg_plugin_compile_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_compile_args, metadata);
  if (!args->bytecode_size)
    return makeError(TG_ERROR_INVALID_ARGUMENT, "empty bytecode");
  std::string target = args->target ? args->target : "";
  if (target != kTargets[0] && target != kTargets[1])
    return makeErrorf(TG_ERROR_NOT_FOUND, "unknown target '%s'",
                      target.c_str());
  std::string kernel;
  for (size_t i = 0; i < args->num_options; ++i)
    if (args->options[i].key && std::strcmp(args->options[i].key, "kernel") == 0)
      kernel = args->options[i].value ? args->options[i].value : "";
  const BuiltinInfo *info = findBuiltin(kernel);
  if (!info)
    return makeErrorf(TG_ERROR_NOT_FOUND, "no built-in kernel '%s'",
                      kernel.c_str());
  return guard([&]() -> tg_error_t * {
    auto image = std::make_unique<tg_image>();
    image->data = std::string(kImageMagic) + "kernel " + info->name + "\n";
    image->target = "testdev:" + target;
    tg_kernel_metadata &m = image->metadata;
    m.struct_size = sizeof(m);
    m.name = info->name;
    m.target = image->target.c_str();
    m.num_warps = 4;
    m.shared_memory = 0;
    m.num_args = static_cast<uint32_t>(info->args.size());
    m.args = info->args.data();
    m.specialization = "";
    logLine(*args->plugin, "compile " + image->target + " " + info->name);
    args->image_data = image->data.data();
    args->image_size = image->data.size();
    args->metadata = &image->metadata;
    args->image = image.release();
    return nullptr;
  });
}

tg_error_t *imageDestroy(tg_image_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_image_destroy_args, image);
  delete args->image;
  return nullptr;
}

//===-- Memory ----------------------------------------------------------------===//

tg_error_t *bufferAlloc(tg_buffer_alloc_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_alloc_args, device_address);
  tg_device *device = args->device;
  if (args->size > device->properties.global_memory)
    return makeErrorf(TG_ERROR_OUT_OF_MEMORY,
                      "cannot allocate %llu bytes on a 1 GiB device",
                      static_cast<unsigned long long>(args->size));
  uint8_t *data = new (std::nothrow) uint8_t[args->size ? args->size : 1];
  if (!data)
    return makeError(TG_ERROR_OUT_OF_MEMORY, "host allocation failed");
  auto *buffer = new (std::nothrow) tg_buffer{device, data, args->size};
  if (!buffer) {
    delete[] data;
    return makeError(TG_ERROR_OUT_OF_MEMORY, "host allocation failed");
  }
  {
    std::lock_guard<std::mutex> lock(device->plugin->mutex);
    device->plugin->allocations[reinterpret_cast<uintptr_t>(data)] =
        args->size;
  }
  args->buffer = buffer;
  args->device_address = reinterpret_cast<uintptr_t>(data);
  return nullptr;
}

tg_error_t *bufferFree(tg_buffer_free_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_free_args, buffer);
  tg_buffer *buffer = args->buffer;
  {
    std::lock_guard<std::mutex> lock(buffer->device->plugin->mutex);
    buffer->device->plugin->allocations.erase(
        reinterpret_cast<uintptr_t>(buffer->data));
  }
  delete[] buffer->data;
  delete buffer;
  return nullptr;
}

// The runtime has checked every range against the buffer sizes; the copies
// below trust it (which is what the tests of out-of-range copies exercise).

tg_error_t *bufferWrite(tg_buffer_write_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_write_args, size);
  std::memcpy(args->dst->data + args->dst_offset, args->src, args->size);
  return nullptr;
}

tg_error_t *bufferRead(tg_buffer_read_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_read_args, size);
  std::memcpy(args->dst, args->src->data + args->src_offset, args->size);
  return nullptr;
}

tg_error_t *bufferCopy(tg_buffer_copy_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_copy_args, size);
  std::memmove(args->dst->data + args->dst_offset,
               args->src->data + args->src_offset, args->size);
  return nullptr;
}

tg_error_t *bufferMemset(tg_buffer_memset_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_memset_args, value);
  std::memset(args->buffer->data + args->offset, args->value, args->size);
  return nullptr;
}

//===-- Streams and events ------------------------------------------------------===//

tg_error_t *streamCreate(tg_stream_create_args *args) {
  TG_CHECK_ARGS(args, tg_stream_create_args, stream);
  const auto *native =
      reinterpret_cast<const tg_native_stream_extension *>(tg_find_extension(
          args->extension_start, TG_EXTENSION_TYPE_NATIVE_STREAM));
  if (native && native->base.struct_size <
                    TG_STRUCT_SIZE(tg_native_stream_extension, native_stream))
    return makeError(TG_ERROR_INVALID_ARGUMENT,
                     "tg_native_stream_extension is too small");
  if (native && native->native_stream == ~uint64_t(0))
    return makeError(TG_ERROR_INVALID_ARGUMENT,
                     "the native stream 0xffffffffffffffff belongs to another "
                     "device");
  args->stream = new (std::nothrow) tg_stream{args->device};
  if (!args->stream)
    return makeError(TG_ERROR_OUT_OF_MEMORY, "out of memory");
  if (native) {
    args->stream->wrapsNative = true;
    args->stream->native = native->native_stream;
  }
  return nullptr;
}

tg_error_t *streamDestroy(tg_stream_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_stream_destroy_args, stream);
  delete args->stream; // A wrapper: the native stream is not ours to touch.
  return nullptr;
}

tg_error_t *streamSynchronize(tg_stream_synchronize_args *args) {
  TG_CHECK_ARGS(args, tg_stream_synchronize_args, stream);
  return nullptr; // Work already ran when it was enqueued.
}

tg_error_t *streamWaitEvent(tg_stream_wait_event_args *args) {
  TG_CHECK_ARGS(args, tg_stream_wait_event_args, event);
  return nullptr; // Every event has completed when it is recorded.
}

tg_error_t *eventCreate(tg_event_create_args *args) {
  TG_CHECK_ARGS(args, tg_event_create_args, event);
  args->event = new (std::nothrow) tg_event(args->device);
  return args->event ? nullptr
                     : makeError(TG_ERROR_OUT_OF_MEMORY, "out of memory");
}

tg_error_t *eventDestroy(tg_event_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_event_destroy_args, event);
  delete args->event;
  return nullptr;
}

tg_error_t *eventRecord(tg_event_record_args *args) {
  TG_CHECK_ARGS(args, tg_event_record_args, stream);
  std::lock_guard<std::mutex> lock(args->event->mutex);
  args->event->recorded = true;
  args->event->time = std::chrono::steady_clock::now();
  return nullptr;
}

tg_error_t *eventSynchronize(tg_event_synchronize_args *args) {
  TG_CHECK_ARGS(args, tg_event_synchronize_args, event);
  return nullptr;
}

tg_error_t *eventElapsedTime(tg_event_elapsed_time_args *args) {
  TG_CHECK_ARGS(args, tg_event_elapsed_time_args, milliseconds);
  std::chrono::steady_clock::time_point start, end;
  {
    std::lock_guard<std::mutex> lock(args->start->mutex);
    if (!args->start->recorded)
      return makeError(TG_ERROR_INVALID_ARGUMENT,
                       "the start event was never recorded");
    start = args->start->time;
  }
  {
    std::lock_guard<std::mutex> lock(args->end->mutex);
    if (!args->end->recorded)
      return makeError(TG_ERROR_INVALID_ARGUMENT,
                       "the end event was never recorded");
    end = args->end->time;
  }
  args->milliseconds =
      std::chrono::duration<float, std::milli>(end - start).count();
  return nullptr;
}

//===-- Modules and launches ----------------------------------------------------===//

tg_error_t *moduleLoad(tg_module_load_args *args) {
  TG_CHECK_ARGS(args, tg_module_load_args, module);
  std::string image(static_cast<const char *>(args->image), args->image_size);
  if (image.compare(0, sizeof(kImageMagic) - 1, kImageMagic) != 0)
    return makeError(TG_ERROR_INVALID_FORMAT, "not a testdev image");
  return guard([&]() -> tg_error_t * {
    auto module = std::make_unique<tg_module>();
    module->device = args->device;
    size_t pos = sizeof(kImageMagic) - 1;
    while (pos < image.size()) {
      size_t end = image.find('\n', pos);
      if (end == std::string::npos)
        end = image.size();
      std::string line = image.substr(pos, end - pos);
      pos = end + 1;
      if (line.rfind("kernel ", 0) != 0)
        return makeErrorf(TG_ERROR_INVALID_FORMAT, "bad image line '%s'",
                          line.c_str());
      const BuiltinInfo *info = findBuiltin(line.substr(7));
      if (!info)
        return makeErrorf(TG_ERROR_INVALID_FORMAT, "unknown kernel '%s'",
                          line.c_str() + 7);
      module->kernels.push_back(
          std::make_unique<tg_kernel>(tg_kernel{info, args->device}));
      logLine(*args->device->plugin, "load testdev:" +
                                         std::to_string(args->device->index) +
                                         " " + info->name);
    }
    args->module = module.release();
    return nullptr;
  });
}

tg_error_t *moduleUnload(tg_module_unload_args *args) {
  TG_CHECK_ARGS(args, tg_module_unload_args, module);
  delete args->module;
  return nullptr;
}

tg_error_t *moduleGetKernel(tg_module_get_kernel_args *args) {
  TG_CHECK_ARGS(args, tg_module_get_kernel_args, kernel);
  for (const auto &kernel : args->module->kernels)
    if (std::strcmp(kernel->info->name, args->name) == 0) {
      args->kernel = kernel.get();
      return nullptr;
    }
  return makeErrorf(TG_ERROR_NOT_FOUND, "no kernel named '%s' in the module",
                    args->name);
}

template <typename T> T unpack(const uint8_t *bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

tg_error_t *kernelLaunch(tg_kernel_launch_args *args) {
  TG_CHECK_ARGS(args, tg_kernel_launch_args, packed_args_size);
  const BuiltinInfo &info = *args->kernel->info;
  tg_plugin &plugin = *args->kernel->device->plugin;
  if (args->packed_args_size != info.packedSize)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "%s takes %zu bytes of packed arguments, got %zu",
                      info.name, info.packedSize, args->packed_args_size);
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i)
    threads *= uint64_t(args->grid[i]) * args->block[i];
  const uint8_t *packed = static_cast<const uint8_t *>(args->packed_args);

  // Offsets below are the kernel ABI's layout of each signature.
  switch (info.kind) {
  case Builtin::FillU32: {
    uint64_t out = unpack<uint64_t>(packed, 0);
    uint32_t value = unpack<uint32_t>(packed, 8);
    int32_t n = unpack<int32_t>(packed, 12);
    uint64_t count = n > 0 ? std::min<uint64_t>(uint64_t(n), threads) : 0;
    if (!isLive(plugin, out, count * 4))
      return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                        "fill_u32: out (0x%llx) + %llu bytes is not device "
                        "memory",
                        static_cast<unsigned long long>(out),
                        static_cast<unsigned long long>(count * 4));
    uint32_t *dst = reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(out));
    for (uint64_t i = 0; i < count; ++i)
      dst[i] = value;
    return nullptr;
  }
  case Builtin::ScaleF32: {
    uint64_t out = unpack<uint64_t>(packed, 0);
    uint64_t in = unpack<uint64_t>(packed, 8);
    float a = unpack<float>(packed, 16);
    int64_t n = unpack<int64_t>(packed, 24);
    uint64_t count = n > 0 ? std::min<uint64_t>(uint64_t(n), threads) : 0;
    if (!isLive(plugin, out, count * 4) || !isLive(plugin, in, count * 4))
      return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                        "scale_f32: out or in + %llu bytes is not device "
                        "memory",
                        static_cast<unsigned long long>(count * 4));
    float *dst = reinterpret_cast<float *>(static_cast<uintptr_t>(out));
    const float *src = reinterpret_cast<const float *>(static_cast<uintptr_t>(in));
    for (uint64_t i = 0; i < count; ++i)
      dst[i] = a * src[i];
    return nullptr;
  }
  }
  return makeError(TG_ERROR_INTERNAL, "unknown built-in kernel");
}

/// Made-up resource use: fill_u32 reports every attribute (at most 1024
/// threads a block, or $TEGULA_TESTDEV_MAX_THREADS, which stands for a
/// kernel whose registers limit its blocks), scale_f32 only registers,
/// spills and local memory (the rest stay unknown). Writes only what the
/// caller's struct_size covers.
tg_error_t *kernelGetAttributes(tg_kernel_get_attributes_args *args) {
  TG_CHECK_ARGS(args, tg_kernel_get_attributes_args, attributes);
  if (!args->kernel || !args->attributes)
    return makeError(TG_ERROR_INVALID_ARGUMENT, "kernel or attributes is NULL");
  tg_kernel_attributes *out = args->attributes;
#define TESTDEV_SET(field, value)                                              \
  if (TG_STRUCT_HAS(out, tg_kernel_attributes, field))                         \
    out->field = (value);
  switch (args->kernel->info->kind) {
  case Builtin::FillU32:
    TESTDEV_SET(registers, 16)
    TESTDEV_SET(spills, 0)
    TESTDEV_SET(local_memory, 0)
    TESTDEV_SET(shared_memory, 0)
    TESTDEV_SET(max_threads_per_block,
                std::getenv("TEGULA_TESTDEV_MAX_THREADS")
                    ? uint32_t(std::atoi(std::getenv("TEGULA_TESTDEV_MAX_THREADS")))
                    : 1024u)
    TESTDEV_SET(vector_register_spills, 0)
    TESTDEV_SET(scalar_registers, 0)
    TESTDEV_SET(scalar_register_spills, 0)
    break;
  case Builtin::ScaleF32:
    TESTDEV_SET(registers, 255)
    TESTDEV_SET(spills, 6)
    TESTDEV_SET(local_memory, 24)
    break;
  }
#undef TESTDEV_SET
  return nullptr;
}

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t) {
  static const tg_native_stream_support nativeStreams = {
      {sizeof(tg_native_stream_support),
       TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT, nullptr},
      "testdev stream (any integer)"};
  static const tg_plugin_api table = [] {
    tg_plugin_api t{};
    t.struct_size = sizeof(t);
    t.extension_start = &nativeStreams.base;
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
    t.plugin_compile = compile;
    t.image_destroy = imageDestroy;
    t.buffer_alloc = bufferAlloc;
    t.buffer_free = bufferFree;
    t.buffer_write = bufferWrite;
    t.buffer_read = bufferRead;
    t.buffer_copy = bufferCopy;
    t.buffer_memset = bufferMemset;
    t.stream_create = streamCreate;
    t.stream_destroy = streamDestroy;
    t.stream_synchronize = streamSynchronize;
    t.stream_wait_event = streamWaitEvent;
    t.event_create = eventCreate;
    t.event_destroy = eventDestroy;
    t.event_record = eventRecord;
    t.event_synchronize = eventSynchronize;
    t.event_elapsed_time = eventElapsedTime;
    t.module_load = moduleLoad;
    t.module_unload = moduleUnload;
    t.module_get_kernel = moduleGetKernel;
    t.kernel_launch = kernelLaunch;
    t.kernel_get_attributes = kernelGetAttributes;
    return t;
  }();
  return runtimeMajor == TG_PLUGIN_API_MAJOR ? &table : nullptr;
}
