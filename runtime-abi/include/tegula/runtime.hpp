//===- tegula/runtime.hpp - C++ API over the runtime C API ------*- C++ -*-===//
//
// A thin, header-only C++17 layer over tegula/runtime.h and
// tegula/container.h: RAII handles that free what they own, exceptions
// (tegula::Error) instead of error objects. Everything here compiles into the
// caller; libtegula_runtime exports only the C API, so this header adds no ABI
// of its own.
//
//   tegula::Runtime runtime;                  // discovers plugins
//   tegula::Device device = runtime.device("nvidia:0");
//   tegula::Buffer x = device.allocate(4096);
//   x.write(host.data(), 4096);
//   tegula::Kernel kernel = device.loadKernel(image, size, "add");
//   kernel.launch({grid, 1, 1}, {128, 1, 1}, tegula::ArgPack(meta).add(x));
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_RUNTIME_HPP
#define TEGULA_RUNTIME_HPP

#include "tegula/container.h"
#include "tegula/runtime.h"

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tegula {

/// A failed runtime call: the C error's code and message.
class Error : public std::runtime_error {
public:
  Error(tg_error_code code, const std::string &message)
      : std::runtime_error(message), errorCode(code) {}
  tg_error_code code() const { return errorCode; }

private:
  tg_error_code errorCode;
};

namespace detail {
/// Throws tegula::Error for a non-NULL |error| (and frees it).
inline void check(tegula_error_t *error) {
  if (!error)
    return;
  Error exception(tegula_error_get_code(error),
                  tegula_error_get_message(error));
  tegula_error_destroy(error);
  throw exception;
}

/// unique_ptr deleter for a C handle whose destroy function may fail: a
/// destructor cannot report the failure, so it is dropped.
template <typename T, tegula_error_t *(*Destroy)(T *)> struct ErrorDeleter {
  void operator()(T *handle) const { tegula_error_destroy(Destroy(handle)); }
};
template <typename T, void (*Destroy)(T *)> struct VoidDeleter {
  void operator()(T *handle) const { Destroy(handle); }
};
} // namespace detail

/// A device's properties with owned strings.
struct DeviceProperties {
  std::string name;
  std::string arch;
  uint32_t computeUnits = 0;
  uint32_t warpSize = 0;
  uint32_t maxThreadsPerBlock = 0;
  uint32_t matrixUnits = 0;
  uint64_t sharedMemoryPerBlock = 0;
  uint64_t globalMemory = 0;
  uint32_t clockKHz = 0;
  uint32_t memoryClockKHz = 0;
};

/// What discovery found at one path (see tegula_plugin_info).
struct PluginInfo {
  std::string path;
  std::string name;
  bool loaded = false;
  std::string skipReason;
  std::string skipMessage;
  std::string version;
  std::string vendor;
  uint32_t abiMajor = 0;
  uint32_t abiMinor = 0;
  std::vector<std::string> targets;
  size_t numDevices = 0;
  /// Why there is no device; empty when the plugin said nothing.
  std::string deviceStatus;
  /// The compile stages besides "image" and the compile options the plugin
  /// declares (pointers into the plugin, live as long as the runtime).
  std::vector<tg_compile_stage_info> stages;
  std::vector<tg_compile_option_info> options;
};

/// An in-order queue of work on one device. Destroying it waits for its work
/// (a wrapper of a native stream is freed without waiting).
class Stream {
public:
  explicit Stream(tegula_stream_t *handle) : handle(handle) {}
  void synchronize() { detail::check(tegula_stream_synchronize(get())); }
  tegula_stream_t *get() const { return handle.get(); }

private:
  std::unique_ptr<tegula_stream_t,
                  detail::ErrorDeleter<tegula_stream_t, tegula_stream_destroy>>
      handle;
};

/// A point in a stream, for ordering and timing.
class Event {
public:
  explicit Event(tegula_event_t *handle) : handle(handle) {}
  void record(Stream &stream) {
    detail::check(tegula_event_record(get(), stream.get()));
  }
  void synchronize() { detail::check(tegula_event_synchronize(get())); }
  /// Milliseconds from |start| to this event.
  float elapsedSince(const Event &start) const {
    float ms = 0;
    detail::check(tegula_event_elapsed_time(start.get(), get(), &ms));
    return ms;
  }
  /// Makes later work in |stream| wait for this event.
  void waitIn(Stream &stream) {
    detail::check(tegula_stream_wait_event(stream.get(), get()));
  }
  tegula_event_t *get() const { return handle.get(); }

private:
  std::unique_ptr<tegula_event_t,
                  detail::ErrorDeleter<tegula_event_t, tegula_event_destroy>>
      handle;
};

/// Device memory; freed when the Buffer goes away. Copies without a stream
/// complete before they return.
class Buffer {
public:
  explicit Buffer(tegula_buffer_t *handle) : handle(handle) {}
  uint64_t size() const { return tegula_buffer_get_size(get()); }
  /// What a pointer kernel argument carries.
  uint64_t address() const { return tegula_buffer_get_device_address(get()); }

  void write(const void *src, uint64_t bytes, uint64_t offset = 0,
             Stream *stream = nullptr) {
    detail::check(tegula_buffer_write(get(), offset, src, bytes,
                                      stream ? stream->get() : nullptr));
  }
  void read(void *dst, uint64_t bytes, uint64_t offset = 0,
            Stream *stream = nullptr) const {
    detail::check(tegula_buffer_read(get(), offset, dst, bytes,
                                     stream ? stream->get() : nullptr));
  }
  void copyFrom(const Buffer &src, uint64_t bytes, uint64_t dstOffset = 0,
                uint64_t srcOffset = 0, Stream *stream = nullptr) {
    detail::check(tegula_buffer_copy(get(), dstOffset, src.get(), srcOffset,
                                     bytes, stream ? stream->get() : nullptr));
  }
  void memset(uint8_t value, uint64_t bytes, uint64_t offset = 0,
              Stream *stream = nullptr) {
    detail::check(tegula_buffer_memset(get(), offset, value, bytes,
                                       stream ? stream->get() : nullptr));
  }

  /// Typed conveniences for whole-vector transfers.
  template <typename T> void write(const std::vector<T> &values) {
    write(values.data(), values.size() * sizeof(T));
  }
  template <typename T> std::vector<T> read(size_t count) const {
    std::vector<T> values(count);
    read(values.data(), count * sizeof(T));
    return values;
  }

  tegula_buffer_t *get() const { return handle.get(); }

private:
  std::unique_ptr<tegula_buffer_t,
                  detail::ErrorDeleter<tegula_buffer_t, tegula_buffer_free>>
      handle;
};

/// Builds a packed argument buffer (the kernel ABI of runtime.h). With
/// metadata, each add() is checked against the kernel's next argument.
class ArgPack {
public:
  ArgPack() = default;
  explicit ArgPack(const tg_kernel_metadata *metadata) : metadata(metadata) {}

  /// A pointer argument: the buffer's device address. Kernel::launch
  /// checks that the buffer is on the kernel's device.
  ArgPack &add(const Buffer &buffer) {
    expect(TG_ARG_POINTER, 8, false);
    buffersOut.resize(count + 1, nullptr);
    buffersOut[count] = buffer.get();
    return append(buffer.address());
  }
  /// A scalar argument of C++ type T: float or double for F32/F64, an
  /// integer of the right width for integer types (signedness is not
  /// checked) and for the bit patterns of F16, BF16 and FP8.
  template <typename T> ArgPack &add(T value) {
    static_assert(std::is_arithmetic<T>::value, "scalars only");
    expect(TG_ARG_SCALAR, sizeof(T), std::is_floating_point<T>::value);
    return append(value);
  }

  /// The packed bytes, padded to a multiple of 8.
  const std::vector<uint8_t> &bytes() {
    bytesOut.resize((bytesOut.size() + 7) / 8 * 8, 0);
    if (metadata && next != metadata->num_args)
      throw Error(TG_ERROR_INVALID_ARGUMENT,
                  "kernel " + std::string(metadata->name) + " takes " +
                      std::to_string(metadata->num_args) +
                      " arguments, got " + std::to_string(next));
    return bytesOut;
  }

  /// The buffer of each argument so far (null for scalars), for
  /// tegula_kernel_check_buffers; may be shorter than the arguments.
  const std::vector<const tegula_buffer_t *> &buffers() const {
    return buffersOut;
  }
  /// The kernel metadata given, or null.
  const tg_kernel_metadata *kernelMetadata() const { return metadata; }

private:
  void expect(uint32_t kind, size_t size, bool isFloat) {
    if (!metadata)
      return;
    if (next >= metadata->num_args)
      throw Error(TG_ERROR_INVALID_ARGUMENT,
                  "too many arguments for kernel " +
                      std::string(metadata->name));
    const tg_kernel_arg &arg = metadata->args[next];
    bool wantsFloat = arg.type == TG_TYPE_F32 || arg.type == TG_TYPE_F64;
    if (arg.kind != kind ||
        (kind == TG_ARG_SCALAR &&
         (tegula_scalar_type_size(arg.type) != size || wantsFloat != isFloat)))
      throw Error(TG_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(next) + " (" +
                      (arg.name ? arg.name : "?") +
                      ") does not match the kernel's signature");
    ++next;
  }
  template <typename T> ArgPack &append(T value) {
    size_t offset = (bytesOut.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    bytesOut.resize(offset + sizeof(T), 0);
    std::memcpy(bytesOut.data() + offset, &value, sizeof(T));
    ++count;
    return *this;
  }

  const tg_kernel_metadata *metadata = nullptr;
  size_t next = 0;
  /// Arguments added.
  size_t count = 0;
  std::vector<uint8_t> bytesOut;
  std::vector<const tegula_buffer_t *> buffersOut;
};

/// Launch dimensions.
using Dim3 = std::array<uint32_t, 3>;

/// A kernel in a loaded module. Keeps its module loaded as long as any copy
/// of the Kernel (or of the Module) lives.
class Kernel {
public:
  Kernel(std::shared_ptr<tegula_module_t> module, tegula_kernel_t *handle)
      : module(std::move(module)), handle(handle) {}

  /// Launches with already packed arguments.
  void launch(Dim3 grid, Dim3 block, const void *packedArgs, size_t size,
              Stream *stream = nullptr, uint32_t dynamicSharedMemory = 0) {
    tegula_launch_config config{};
    config.struct_size = sizeof(config);
    for (int i = 0; i < 3; ++i) {
      config.grid[i] = grid[i];
      config.block[i] = block[i];
    }
    config.dynamic_shared_memory = dynamicSharedMemory;
    detail::check(tegula_kernel_launch(handle, stream ? stream->get() : nullptr,
                                       &config, packedArgs, size));
  }
  /// Launches with |args|, whose buffers must be on the kernel's device
  /// (an Error naming each one that is not).
  void launch(Dim3 grid, Dim3 block, ArgPack &args, Stream *stream = nullptr,
              uint32_t dynamicSharedMemory = 0) {
    const std::vector<uint8_t> &bytes = args.bytes();
    const std::vector<const tegula_buffer_t *> &buffers = args.buffers();
    if (!buffers.empty())
      detail::check(tegula_kernel_check_buffers(
          handle, args.kernelMetadata(), buffers.data(), buffers.size()));
    launch(grid, block, bytes.data(), bytes.size(), stream,
           dynamicSharedMemory);
  }
  /// What the kernel uses of its device (tegula_kernel_get_attributes):
  /// fields the plugin cannot tell are TG_KERNEL_ATTRIBUTE_UNKNOWN. Throws
  /// Error (TG_ERROR_UNIMPLEMENTED) when it can tell nothing.
  tg_kernel_attributes attributes() const {
    tg_kernel_attributes attrs{};
    attrs.struct_size = sizeof(attrs);
    detail::check(tegula_kernel_get_attributes(handle, &attrs));
    return attrs;
  }
  tegula_kernel_t *get() const { return handle; }
  /// The device the kernel is loaded on (Device(kernel.device()) names it).
  tegula_device_t *device() const { return tegula_kernel_get_device(handle); }

private:
  std::shared_ptr<tegula_module_t> module;
  tegula_kernel_t *handle;
};

/// A loaded kernel image.
class Module {
public:
  explicit Module(tegula_module_t *handle)
      : handle(handle, [](tegula_module_t *m) {
          tegula_error_destroy(tegula_module_unload(m));
        }) {}
  Kernel kernel(const std::string &name) {
    tegula_kernel_t *kernel = nullptr;
    detail::check(tegula_module_get_kernel(handle.get(), name.c_str(), &kernel));
    return Kernel(handle, kernel);
  }
  tegula_module_t *get() const { return handle.get(); }

private:
  std::shared_ptr<tegula_module_t> handle;
};

/// A compiled kernel image with its metadata.
class Image {
public:
  explicit Image(tegula_image_t *handle) : handle(handle) {}
  const void *data() const { return tegula_image_get_data(get()); }
  size_t size() const { return tegula_image_get_size(get()); }
  const tg_kernel_metadata *metadata() const {
    return tegula_image_get_metadata(get());
  }
  tegula_image_t *get() const { return handle.get(); }

private:
  std::unique_ptr<tegula_image_t,
                  detail::VoidDeleter<tegula_image_t, tegula_image_destroy>>
      handle;
};

/// A device. Owned by its Runtime: a Device is a cheap, copyable view that
/// must not outlive it.
class Device {
public:
  explicit Device(tegula_device_t *handle) : handle(handle) {}
  std::string name() const { return tegula_device_get_name(handle); }
  std::string backend() const { return tegula_device_get_backend(handle); }
  std::string target() const { return tegula_device_get_target(handle); }

  DeviceProperties properties() const {
    tg_device_properties p{};
    p.struct_size = sizeof(p);
    detail::check(tegula_device_get_properties(handle, &p));
    DeviceProperties out;
    out.name = p.name ? p.name : "";
    out.arch = p.arch ? p.arch : "";
    out.computeUnits = p.compute_units;
    out.warpSize = p.warp_size;
    out.maxThreadsPerBlock = p.max_threads_per_block;
    out.matrixUnits = p.matrix_units;
    out.sharedMemoryPerBlock = p.shared_memory_per_block;
    out.globalMemory = p.global_memory;
    out.clockKHz = p.clock_khz;
    out.memoryClockKHz = p.memory_clock_khz;
    return out;
  }

  Buffer allocate(uint64_t size) {
    tegula_buffer_t *buffer = nullptr;
    detail::check(tegula_buffer_alloc(handle, size, &buffer));
    return Buffer(buffer);
  }
  Stream createStream() {
    tegula_stream_t *stream = nullptr;
    detail::check(tegula_stream_create(handle, &stream));
    return Stream(stream);
  }
  /// A Stream wrapping a native stream of this device (a CUstream as an
  /// integer on `nvidia`); destroying it does not wait or destroy the
  /// native stream (tegula_stream_create_native).
  Stream wrapNativeStream(uint64_t nativeStream) {
    tegula_stream_t *stream = nullptr;
    detail::check(tegula_stream_create_native(handle, nativeStream, &stream));
    return Stream(stream);
  }
  Event createEvent() {
    tegula_event_t *event = nullptr;
    detail::check(tegula_event_create(handle, &event));
    return Event(event);
  }
  Image compile(const void *bytecode, size_t size,
                const std::vector<tg_compile_option> &options = {}) {
    tegula_image_t *image = nullptr;
    detail::check(tegula_device_compile(handle, bytecode, size,
                                        options.data(), options.size(),
                                        &image));
    return Image(image);
  }
  Module loadModule(const void *image, size_t size) {
    tegula_module_t *module = nullptr;
    detail::check(tegula_module_load(handle, image, size, &module));
    return Module(module);
  }
  /// Loads |image| and looks up |name| in it.
  Kernel loadKernel(const void *image, size_t size, const std::string &name) {
    return loadModule(image, size).kernel(name);
  }
  tegula_device_t *get() const { return handle; }

private:
  tegula_device_t *handle;
};

/// A parsed kernel container (read-only).
class Container {
public:
  static Container read(const void *data, size_t size) {
    tegula_container_t *c = nullptr;
    detail::check(tegula_container_read(data, size, &c));
    return Container(c);
  }
  static Container readFile(const std::string &path) {
    tegula_container_t *c = nullptr;
    detail::check(tegula_container_read_file(path.c_str(), &c));
    return Container(c);
  }
  size_t size() const { return tegula_container_get_entry_count(get()); }
  tegula_container_entry entry(size_t index) const {
    tegula_container_entry e{};
    e.struct_size = sizeof(e);
    detail::check(tegula_container_get_entry(get(), index, &e));
    return e;
  }
  /// The entry to run on |device| (exact arch first, then the backend's
  /// portable image).
  tegula_container_entry select(const Device &device,
                                const char *kernelName = nullptr) const {
    size_t index = 0;
    detail::check(
        tegula_container_select(get(), device.get(), kernelName, &index));
    return entry(index);
  }
  tegula_container_t *get() const { return handle.get(); }

private:
  explicit Container(tegula_container_t *c) : handle(c) {}
  std::unique_ptr<tegula_container_t,
                  detail::VoidDeleter<tegula_container_t,
                                      tegula_container_destroy>>
      handle;
};

/// Builds a kernel container.
class ContainerWriter {
public:
  ContainerWriter() {
    tegula_container_writer_t *w = nullptr;
    detail::check(tegula_container_writer_create(&w));
    handle.reset(w);
  }
  void add(const tg_kernel_metadata &metadata, const void *image,
           size_t size) {
    detail::check(
        tegula_container_writer_add(handle.get(), &metadata, image, size));
  }
  std::vector<uint8_t> finish() {
    const void *data = nullptr;
    size_t size = 0;
    detail::check(tegula_container_writer_finish(handle.get(), &data, &size));
    const uint8_t *bytes = static_cast<const uint8_t *>(data);
    return std::vector<uint8_t>(bytes, bytes + size);
  }
  void writeFile(const std::string &path) {
    detail::check(
        tegula_container_writer_write_file(handle.get(), path.c_str()));
  }

private:
  std::unique_ptr<tegula_container_writer_t,
                  detail::VoidDeleter<tegula_container_writer_t,
                                      tegula_container_writer_destroy>>
      handle;
};

/// Plugin discovery and the device list. Everything made from it must be
/// destroyed before it.
class Runtime {
public:
  /// Discovers plugins as the environment says.
  Runtime() : Runtime(nullptr) {}
  /// Discovers plugins with overrides (see tegula_runtime_options).
  explicit Runtime(const tegula_runtime_options *options) {
    tegula_runtime_t *rt = nullptr;
    detail::check(tegula_runtime_create(options, &rt));
    handle.reset(rt);
  }

  std::vector<Device> devices() const {
    std::vector<Device> result;
    for (size_t i = 0, e = tegula_runtime_get_device_count(get()); i < e; ++i)
      result.emplace_back(tegula_runtime_get_device(get(), i));
    return result;
  }
  Device device(const std::string &name) const {
    tegula_device_t *device = nullptr;
    detail::check(tegula_runtime_find_device(get(), name.c_str(), &device));
    return Device(device);
  }

  /// Compiles |bytecode| for |target| ("<backend>:<arch>") through the
  /// loaded plugin of that backend, with or without a device of it
  /// (tegula_runtime_compile).
  Image compile(const std::string &target, const void *bytecode, size_t size,
                const std::vector<tg_compile_option> &options = {}) const {
    return compileStage(target, "image", bytecode, size, options);
  }
  /// compile() stopped at |stage| (tegula_runtime_compile_stage): the
  /// image's data is then that stage's output.
  Image compileStage(const std::string &target, const std::string &stage,
                     const void *bytecode, size_t size,
                     const std::vector<tg_compile_option> &options = {}) const {
    tegula_image_t *image = nullptr;
    detail::check(tegula_runtime_compile_stage(
        get(), target.c_str(), stage.c_str(), bytecode, size, options.data(),
        options.size(), &image));
    return Image(image);
  }

  std::vector<std::string> searchDirs() const {
    std::vector<std::string> dirs;
    for (size_t i = 0, e = tegula_runtime_get_search_dir_count(get()); i < e;
         ++i)
      dirs.emplace_back(tegula_runtime_get_search_dir(get(), i));
    return dirs;
  }

  std::vector<PluginInfo> plugins() const {
    std::vector<PluginInfo> result;
    for (size_t i = 0, e = tegula_runtime_get_plugin_count(get()); i < e;
         ++i) {
      tegula_plugin_info c{};
      c.struct_size = sizeof(c);
      detail::check(tegula_runtime_get_plugin_info(get(), i, &c));
      PluginInfo info;
      info.path = c.path;
      info.name = c.name;
      info.loaded = c.loaded != 0;
      if (!info.loaded) {
        info.skipReason = c.skip_reason;
        info.skipMessage = c.skip_message;
      } else {
        info.version = c.version;
        info.vendor = c.vendor;
        info.abiMajor = c.abi_major;
        info.abiMinor = c.abi_minor;
        for (size_t t = 0; t < c.num_targets; ++t)
          info.targets.emplace_back(c.targets[t]);
        info.numDevices = c.num_devices;
        info.deviceStatus = c.device_status ? c.device_status : "";
        info.stages.assign(c.stages, c.stages + c.num_stages);
        info.options.assign(c.options, c.options + c.num_options);
      }
      result.push_back(std::move(info));
    }
    return result;
  }

  tegula_runtime_t *get() const { return handle.get(); }

private:
  std::unique_ptr<tegula_runtime_t,
                  detail::VoidDeleter<tegula_runtime_t, tegula_runtime_destroy>>
      handle;
};

} // namespace tegula

#endif // TEGULA_RUNTIME_HPP
