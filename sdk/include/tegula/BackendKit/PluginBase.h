//===- tegula/BackendKit/PluginBase.h - A plugin written in C++ -*- C++ -*-===//
//
// Turns C++ classes into the plugin C ABI (tegula/plugin.h). A vendor derives
// from PluginBase, DeviceBase, BufferBase, StreamBase, EventBase, ModuleBase
// and KernelBase, overrides what the backend can do, and exports the entry
// symbol, tg_plugin_get_api, with one line at file scope:
//
//   TEGULA_PLUGIN_ENTRY_POINT(MyPlugin)
//
// pluginApi<MyPlugin> builds the function table once: every entry checks its
// argument struct (size, NULL handles), calls the matching virtual function,
// and turns a Status or an escaping C++ exception into an error object. What
// a class does not override answers TG_ERROR_UNIMPLEMENTED ("buffer_alloc is
// not implemented"), exactly as a NULL table entry would.
//
// Header-only and standard C++17: it needs nothing but tegula/plugin.h and
// tegula/plugin_support.hpp, so a plugin that uses it stays a single library
// linking only what its backend needs. It completes the ABI's opaque handle
// types (`struct tg_device`, ...) as the base classes of the objects below:
// a plugin either uses this header or defines those structs itself, not both.
// Build the plugin with hidden visibility (tegula_add_plugin() does) so these
// definitions stay private to it.
//
// Lifetimes follow the ABI: devices belong to the plugin and live as long as
// it; buffers, streams, events, modules and images are deleted when the
// runtime frees them (their virtual destructors release the backend's
// resources; a destructor cannot report failure, so release what can fail in
// an explicit call, e.g. StreamBase::synchronize(), which the kit calls before
// deleting a stream); kernels belong to their module.
//
// Threading: every virtual function may be called from several threads at
// once (tegula/plugin.h); the kit adds no locking of its own.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_PLUGINBASE_H
#define TEGULA_BACKENDKIT_PLUGINBASE_H

#include "tegula/plugin_support.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

//===-- The ABI's opaque handles, completed as polymorphic bases -----------===//
// The runtime sees only pointers to these; the kit converts them back with
// static_cast, which the class hierarchy below makes well-defined.

struct tg_plugin {
  virtual ~tg_plugin() = default;
};
struct tg_device {
  virtual ~tg_device() = default;
};
struct tg_buffer {
  virtual ~tg_buffer() = default;
};
struct tg_stream {
  virtual ~tg_stream() = default;
};
struct tg_event {
  virtual ~tg_event() = default;
};
struct tg_module {
  virtual ~tg_module() = default;
};
struct tg_kernel {
  virtual ~tg_kernel() = default;
};
struct tg_image {
  virtual ~tg_image() = default;
};

namespace tegula::plugin {

/// The outcome of a plugin call: success, or a tg_error_code with a one-line
/// message (lower-case, no trailing period, naming the offending value).
class Status {
public:
  /// Success.
  Status() = default;
  Status(int32_t code, std::string message)
      : errorCode(code), text(std::move(message)) {}

  static Status success() { return Status(); }
  /// TG_ERROR_UNIMPLEMENTED: "<what> is not implemented".
  static Status unimplemented(const std::string &what) {
    return Status(TG_ERROR_UNIMPLEMENTED, what + " is not implemented");
  }

  bool ok() const { return errorCode == TG_SUCCESS; }
  int32_t code() const { return errorCode; }
  const std::string &message() const { return text; }

  /// The C error object for this status; NULL for success.
  tg_error_t *toError() const {
    return ok() ? nullptr : makeError(errorCode, text);
  }

private:
  int32_t errorCode = TG_SUCCESS;
  std::string text;
};

class PluginBase;
class DeviceBase;
class StreamBase;
class EventBase;
class ModuleBase;

/// Device memory. The kit frees it by deleting the object.
class BufferBase : public tg_buffer {
public:
  /// |address| is what a pointer kernel argument carries for this buffer.
  BufferBase(DeviceBase &device, uint64_t size, uint64_t address)
      : owner(device), bytes(size), address(address) {}
  DeviceBase &device() const { return owner; }
  uint64_t size() const { return bytes; }
  uint64_t deviceAddress() const { return address; }

private:
  DeviceBase &owner;
  uint64_t bytes;
  uint64_t address;
};

/// An in-order queue of work on one device.
class StreamBase : public tg_stream {
public:
  explicit StreamBase(DeviceBase &device) : owner(device) {}
  DeviceBase &device() const { return owner; }
  /// Waits until everything enqueued so far has completed.
  virtual Status synchronize() = 0;
  /// Makes later work in this stream wait until |event| has completed.
  virtual Status waitEvent(EventBase &event) = 0;

  /// Set by the kit for a stream made by DeviceBase::wrapNativeStream: it is
  /// deleted without synchronize(), and its destructor must leave the native
  /// stream (which the caller owns) alone.
  bool wrapsNativeStream = false;

private:
  DeviceBase &owner;
};

/// A point in a stream, for ordering and timing.
class EventBase : public tg_event {
public:
  explicit EventBase(DeviceBase &device) : owner(device) {}
  DeviceBase &device() const { return owner; }
  /// Records the event at the current end of |stream|.
  virtual Status record(StreamBase &stream) = 0;
  /// Waits until the recorded point has been reached.
  virtual Status synchronize() = 0;
  /// Milliseconds from |start| to this event, both recorded and complete
  /// (the kit has refused events never recorded).
  virtual Status elapsedSince(EventBase &start, float &milliseconds) = 0;

  /// Set by the kit once record() has succeeded.
  std::atomic<bool> everRecorded{false};

private:
  DeviceBase &owner;
};

/// How a kernel is launched; mirrors tg_kernel_launch_args.
struct LaunchRequest {
  /// NULL: complete before returning.
  StreamBase *stream = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t dynamicSharedMemory = 0;
  /// Arguments packed as the kernel ABI says (docs/runtime.md).
  const void *packedArgs = nullptr;
  size_t packedArgsSize = 0;
};

/// A kernel in a loaded module; owned by the module.
class KernelBase : public tg_kernel {
public:
  explicit KernelBase(ModuleBase &module) : owner(module) {}
  ModuleBase &module() const { return owner; }
  virtual Status launch(const LaunchRequest &request) = 0;
  /// The kernel's resource use (kernel_get_attributes, ABI 1.2): set the
  /// fields of |attributes| it knows; the kit preset every field to
  /// TG_KERNEL_ATTRIBUTE_UNKNOWN and copies what the caller's struct_size
  /// covers. The default knows nothing (TG_ERROR_UNIMPLEMENTED).
  virtual Status attributes(tg_kernel_attributes &attributes) {
    (void)attributes;
    return Status(TG_ERROR_UNIMPLEMENTED,
                  "the plugin cannot tell a kernel's registers or spills");
  }

private:
  ModuleBase &owner;
};

/// A kernel image loaded on one device. Deleting it unloads it.
class ModuleBase : public tg_module {
public:
  explicit ModuleBase(DeviceBase &device) : owner(device) {}
  DeviceBase &device() const { return owner; }
  /// Sets |kernel| to the kernel called |name|, which lives as long as this
  /// module; TG_ERROR_NOT_FOUND when there is none.
  virtual Status getKernel(const std::string &name, KernelBase *&kernel) = 0;

private:
  DeviceBase &owner;
};

/// A module of one kernel, the usual case (an image holds one kernel): the
/// module owns a |KernelT|, constructed from the module and |args|, and
/// getKernel() finds it by |kernelName| or says which kernel the module
/// holds. Derive from it to release the driver's module when it is deleted.
template <typename KernelT> class SingleKernelModule : public ModuleBase {
public:
  template <typename... Args>
  SingleKernelModule(DeviceBase &device, std::string kernelName, Args &&...args)
      : ModuleBase(device), name(std::move(kernelName)),
        only(*this, std::forward<Args>(args)...) {}

  Status getKernel(const std::string &wanted, KernelBase *&kernel) override {
    if (wanted != name)
      return Status(TG_ERROR_NOT_FOUND, "no kernel '" + wanted +
                                            "' in the module (it holds '" +
                                            name + "')");
    kernel = &only;
    return Status::success();
  }

  const std::string &kernelName() const { return name; }
  KernelT &kernel() { return only; }

private:
  std::string name;
  KernelT only;
};

/// A compiled kernel image and its metadata, owning every byte and string
/// the ABI hands out for it. Fill the public fields, then return it from
/// PluginBase::compile(); the kit builds the C metadata from them.
class CompiledImage : public tg_image {
public:
  /// One kernel argument (tg_kernel_arg with an owned name).
  struct Argument {
    std::string name;
    tg_arg_kind kind = TG_ARG_SCALAR;
    tg_scalar_type type = TG_TYPE_I32;
    /// Known divisibility of the value or address; 0 or 1 when unknown.
    uint32_t divisibility = 0;
  };

  /// The image bytes that ModuleBase loading accepts.
  std::string data;
  /// The kernel's symbol name.
  std::string name;
  /// `<backend>:<arch>`, or `<backend>` for an arch-independent image.
  std::string target;
  std::string specialization;
  uint32_t numWarps = 0;
  uint32_t sharedMemory = 0;
  std::vector<Argument> arguments;

  /// The C view of the fields above; valid until they change or the image
  /// is destroyed.
  const tg_kernel_metadata &metadata() {
    cArgs.clear();
    for (const Argument &arg : arguments)
      cArgs.push_back(tg_kernel_arg{arg.name.c_str(),
                                    static_cast<uint32_t>(arg.kind),
                                    static_cast<uint32_t>(arg.type),
                                    arg.divisibility, 0});
    cMetadata = tg_kernel_metadata{};
    cMetadata.struct_size = sizeof(cMetadata);
    cMetadata.name = name.c_str();
    cMetadata.target = target.c_str();
    cMetadata.num_warps = numWarps;
    cMetadata.shared_memory = sharedMemory;
    cMetadata.num_args = static_cast<uint32_t>(cArgs.size());
    cMetadata.args = cArgs.data();
    cMetadata.specialization = specialization.c_str();
    return cMetadata;
  }

private:
  std::vector<tg_kernel_arg> cArgs;
  tg_kernel_metadata cMetadata{};
};

/// A compile option the plugin declares (tg_compile_option_info): every
/// setting that changes the code it generates.
struct CompileOption {
  std::string name;
  tg_option_type type = TG_OPTION_STRING;
  /// TG_OPTION_INT: the inclusive range.
  int64_t min = 0, max = 0;
  /// TG_OPTION_ENUM: "a|b|c".
  std::string choices;
  /// "" when the kernel decides.
  std::string defaultValue;
  /// The environment variable that overrides the default, or "".
  std::string env;
  std::string description;

  static CompileOption flag(std::string name, bool byDefault, std::string env,
                            std::string description) {
    return {std::move(name), TG_OPTION_BOOL, 0,         1, "",
            byDefault ? "1" : "0", std::move(env), std::move(description)};
  }
  static CompileOption integer(std::string name, int64_t min, int64_t max,
                               std::string byDefault, std::string env,
                               std::string description) {
    return {std::move(name), TG_OPTION_INT,      min, max, "",
            std::move(byDefault), std::move(env), std::move(description)};
  }
  static CompileOption choice(std::string name, std::string choices,
                              std::string byDefault, std::string env,
                              std::string description) {
    return {std::move(name),      TG_OPTION_ENUM,      0, 0, std::move(choices),
            std::move(byDefault), std::move(env), std::move(description)};
  }
  static CompileOption text(std::string name, std::string byDefault,
                            std::string env, std::string description) {
    return {std::move(name),      TG_OPTION_STRING,    0, 0, "",
            std::move(byDefault), std::move(env), std::move(description)};
  }

  /// Checks |value| against the type; returns why it does not fit, or "".
  std::string check(const std::string &value) const {
    switch (type) {
    case TG_OPTION_BOOL:
      return parseFlag(value) < 0 ? "is not 1 or 0" : "";
    case TG_OPTION_INT: {
      int64_t parsed = 0;
      if (!parseInteger(value, parsed) || parsed < min || parsed > max)
        return "is not an integer from " + std::to_string(min) + " to " +
               std::to_string(max);
      return "";
    }
    case TG_OPTION_ENUM: {
      std::string list = "|" + choices + "|";
      if (value.find('|') != std::string::npos ||
          list.find("|" + value + "|") == std::string::npos)
        return "is not one of " + choices;
      return "";
    }
    default:
      return "";
    }
  }

  /// 1 or 0 for the spellings of a flag, -1 for anything else.
  static int parseFlag(const std::string &value) {
    if (value == "1" || value == "true" || value == "on")
      return 1;
    if (value == "0" || value == "false" || value == "off")
      return 0;
    return -1;
  }
  static bool parseInteger(const std::string &value, int64_t &parsed) {
    if (value.empty() || value.size() > 18)
      return false;
    size_t i = value[0] == '-' ? 1 : 0;
    if (i == value.size())
      return false;
    int64_t magnitude = 0;
    for (; i < value.size(); ++i) {
      if (value[i] < '0' || value[i] > '9')
        return false;
      magnitude = magnitude * 10 + (value[i] - '0');
    }
    parsed = value[0] == '-' ? -magnitude : magnitude;
    return true;
  }
};

/// An output a compile can stop at (tg_compile_stage_info). "image" is
/// always one.
struct CompileStage {
  std::string name;
  bool binary = false;
  std::string description;
};

/// What a compile is asked to do; mirrors tg_plugin_compile_args.
struct CompileRequest {
  /// One of the plugin's targets (an arch, e.g. "sm_90").
  std::string target;
  /// Tile-dialect MLIR bytecode; the dialect version is inside it.
  const void *bytecode = nullptr;
  size_t bytecodeSize = 0;
  /// Compile options in the caller's order.
  std::vector<std::pair<std::string, std::string>> options;
  /// The stage to stop at: "image", or one the plugin declares.
  std::string stage = "image";
  /// For a plugin that declares its options: every declared option's value
  /// (the compile's, else its environment variable's, else the default), in
  /// declaration order, already checked against its type.
  std::vector<std::pair<std::string, std::string>> resolved;

  /// The value of option |key|, or NULL when absent (the last one wins).
  const std::string *option(const std::string &key) const {
    const std::string *found = nullptr;
    for (const auto &[name, value] : options)
      if (name == key)
        found = &value;
    return found;
  }
  /// Where each resolved value came from: "compile option <name>", the
  /// environment variable's name, or "the default of <name>"; parallel to
  /// |resolved|.
  std::vector<std::string> origins;
  /// "<origin>=<value>" of a declared option, for messages about its value
  /// ("TEGULA_HOST_SIMT=3", "compile option simt=3").
  std::string describe(const std::string &key) const {
    for (size_t i = 0; i < resolved.size() && i < origins.size(); ++i)
      if (resolved[i].first == key)
        return origins[i] + "=" + resolved[i].second;
    return "compile option " + key;
  }
  /// A declared option's resolved value ("" when the kernel decides).
  const std::string &value(const std::string &key) const {
    static const std::string none;
    for (const auto &[name, text] : resolved)
      if (name == key)
        return text;
    return none;
  }
  /// A declared TG_OPTION_BOOL option.
  bool flag(const std::string &key) const {
    return CompileOption::parseFlag(value(key)) == 1;
  }
  /// A declared TG_OPTION_INT option; 0 when the kernel decides.
  int64_t integer(const std::string &key) const {
    int64_t parsed = 0;
    return CompileOption::parseInteger(value(key), parsed) ? parsed : 0;
  }
};

/// A device. Owned by its plugin (PluginBase::addDevice) and alive as long as
/// the plugin. Every operation the backend cannot do yet keeps its default,
/// which answers TG_ERROR_UNIMPLEMENTED. The runtime has already checked
/// offsets and sizes against the buffers, and that buffers and streams belong
/// to this device, before any of these is called.
class DeviceBase : public tg_device {
public:
  explicit DeviceBase(PluginBase &plugin) : owner(plugin) {}
  PluginBase &plugin() const { return owner; }

  /// The device's properties. Strings must live as long as the device;
  /// unknown numbers are 0. The kit copies only as much as the caller's
  /// struct holds.
  virtual const tg_device_properties &properties() const = 0;

  /// Allocates |size| bytes (0 is allowed); the kit has refused more than
  /// properties().global_memory, when it is known.
  virtual Status allocate(uint64_t size, std::unique_ptr<BufferBase> &buffer) {
    return Status::unimplemented("buffer_alloc");
  }
  // In the copies, a NULL |stream| means "complete before returning";
  // otherwise the work is ordered in the stream and host memory stays valid
  // until it is synchronized. The kit answers zero bytes itself: nothing to
  // do, in a stream or not.
  /// Host to device.
  virtual Status write(BufferBase &dst, uint64_t dstOffset, const void *src,
                       uint64_t size, StreamBase *stream) {
    return Status::unimplemented("buffer_write");
  }
  /// Device to host.
  virtual Status read(void *dst, BufferBase &src, uint64_t srcOffset,
                      uint64_t size, StreamBase *stream) {
    return Status::unimplemented("buffer_read");
  }
  /// Device to device, both buffers of this plugin.
  virtual Status copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
                      uint64_t srcOffset, uint64_t size, StreamBase *stream) {
    return Status::unimplemented("buffer_copy");
  }
  virtual Status memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                        uint8_t value, StreamBase *stream) {
    return Status::unimplemented("buffer_memset");
  }
  virtual Status createStream(std::unique_ptr<StreamBase> &stream) {
    return Status::unimplemented("stream_create");
  }
  /// A stream that wraps |native|, an existing native stream of this device
  /// the caller owns (TG_EXTENSION_TYPE_NATIVE_STREAM in tegula/plugin.h: on
  /// CUDA a CUstream as an integer, 0 the legacy default stream). It must not
  /// destroy |native|. The runtime asks only when the plugin class declares
  /// `static constexpr const char *nativeStreamHandleType = "CUstream";`,
  /// which makes pluginApi advertise TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT.
  virtual Status wrapNativeStream(uint64_t native,
                                  std::unique_ptr<StreamBase> &stream) {
    return Status::unimplemented("stream_create of a native stream");
  }
  virtual Status createEvent(std::unique_ptr<EventBase> &event) {
    return Status::unimplemented("event_create");
  }
  /// Loads an image made by this plugin's compile; |image| may be freed once
  /// this returns.
  virtual Status loadModule(const void *image, size_t size,
                            std::unique_ptr<ModuleBase> &module) {
    return Status::unimplemented("module_load");
  }

private:
  PluginBase &owner;
};

/// A device whose properties are filled once, at discovery, and never change
/// afterwards: the usual case. The constructor sets struct_size, name and
/// arch (the strings live in the object, as long as the device); discovery
/// fills the rest of |props| before PluginBase::addDevice, e.g.
///
///   auto dev = std::make_unique<PropertiesDevice>(*this, "ACME X1", "x1");
///   dev->props.compute_units = 64;
///   addDevice(std::move(dev));
///
/// Derive from it to add memory, streams, events and modules (the
/// operations it does not override answer TG_ERROR_UNIMPLEMENTED).
class PropertiesDevice : public DeviceBase {
public:
  PropertiesDevice(PluginBase &plugin, std::string deviceName,
                   std::string deviceArch)
      : DeviceBase(plugin), name(std::move(deviceName)),
        arch(std::move(deviceArch)) {
    props.struct_size = sizeof(props);
    props.name = name.c_str();
    props.arch = arch.c_str();
  }
  // |props| points into the object itself.
  PropertiesDevice(const PropertiesDevice &) = delete;
  PropertiesDevice &operator=(const PropertiesDevice &) = delete;

  const tg_device_properties &properties() const override { return props; }

  /// Sets the archs besides |arch| whose images the device also runs, best
  /// first (tg_device_properties::compatible_archs).
  void setCompatibleArchs(std::vector<std::string> archs) {
    compatibleArchs = std::move(archs);
    compatibleArchPointers.clear();
    for (const std::string &other : compatibleArchs)
      compatibleArchPointers.push_back(other.c_str());
    props.compatible_archs = compatibleArchPointers.data();
    props.num_compatible_archs = compatibleArchPointers.size();
  }

  const std::string name;
  const std::string arch;
  /// Unknown numbers stay 0.
  tg_device_properties props{};

private:
  std::vector<std::string> compatibleArchs;
  std::vector<const char *> compatibleArchPointers;
};

/// The plugin's identity, as plugin_get_info reports it.
struct PluginInfo {
  /// The backend name, [a-z0-9_]+, equal to the `<backend>` of the file name
  /// `libtegula_plugin_<backend>.so`.
  std::string name;
  /// The plugin's own version, e.g. "0.1.0".
  std::string version;
  std::string vendor;
  /// The archs it compiles for, e.g. "sm_90".
  std::vector<std::string> targets;
  /// The stages a compile can stop at besides "image"
  /// (plugin_get_compile_info).
  std::vector<CompileStage> stages = {};
  /// The compile options it reads. When there are any, the kit rejects a
  /// compile with another option or a value that does not fit, and fills
  /// CompileRequest::resolved.
  std::vector<CompileOption> options = {};
};

/// One initialized instance of the plugin. Derive from it, pass the
/// PluginInfo to the constructor, and find devices in initialize().
class PluginBase : public tg_plugin {
public:
  explicit PluginBase(PluginInfo info) : identity(std::move(info)) {
    for (const std::string &target : identity.targets)
      targetNames.push_back(target.c_str());
    for (const CompileStage &stage : identity.stages)
      stageInfos.push_back({stage.name.c_str(), stage.binary ? 1u : 0u, 0,
                            stage.description.c_str()});
    for (const CompileOption &option : identity.options)
      optionInfos.push_back(
          {option.name.c_str(), static_cast<uint32_t>(option.type), 0,
           option.min, option.max, option.choices.c_str(),
           option.defaultValue.c_str(), option.env.c_str(),
           option.description.c_str()});
  }

  /// Called once, right after construction, with the ABI version the runtime
  /// speaks. Discover devices here (addDevice, or setNoDeviceReason when there
  /// is none: no device is not an error). An error makes the runtime skip the
  /// plugin and show the message.
  virtual Status initialize(uint32_t runtimeMajor, uint32_t runtimeMinor) {
    return Status::success();
  }

  /// Compiles |request| into |image|. The default says compiling for the
  /// target is not implemented yet.
  virtual Status compile(const CompileRequest &request,
                         std::unique_ptr<CompiledImage> &image) {
    return Status(TG_ERROR_UNIMPLEMENTED,
                  "compiling for " + request.target + " is not implemented yet");
  }

  const PluginInfo &info() const { return identity; }
  const std::vector<std::unique_ptr<DeviceBase>> &devices() const {
    return ownedDevices;
  }
  /// Why there is no device; empty when there are devices or no reason.
  const std::string &noDeviceReason() const { return reason; }

  /// The C views the kit hands out (live as long as the plugin).
  const char *const *targetArray() const { return targetNames.data(); }
  tg_device_t *const *deviceArray() const { return deviceHandles.data(); }
  const std::vector<tg_compile_stage_info> &stageArray() const {
    return stageInfos;
  }
  const std::vector<tg_compile_option_info> &optionArray() const {
    return optionInfos;
  }

  /// Checks |request|'s target, stage and options against the declarations
  /// and fills its resolved values; the error names the target or option
  /// (or the environment variable) and what is accepted.
  Status resolve(CompileRequest &request) const {
    const std::vector<std::string> &targets = identity.targets;
    if (std::find(targets.begin(), targets.end(), request.target) ==
        targets.end()) {
      std::string names;
      for (const std::string &target : targets)
        names += (names.empty() ? "" : ", ") + target;
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "the " + identity.name + " plugin compiles for " + names +
                        ", not '" + request.target + "'");
    }
    if (request.stage != "image") {
      bool declared = false;
      std::string names = "image";
      for (const CompileStage &stage : identity.stages) {
        declared |= stage.name == request.stage;
        names += ", " + stage.name;
      }
      if (!declared)
        return Status(TG_ERROR_INVALID_ARGUMENT,
                      "no compile stage '" + request.stage + "' (stages: " +
                          names + ")");
    }
    if (identity.options.empty())
      return Status::success();
    for (const auto &[key, value] : request.options) {
      const CompileOption *option = nullptr;
      std::string names;
      for (const CompileOption &candidate : identity.options) {
        if (candidate.name == key)
          option = &candidate;
        names += (names.empty() ? "" : ", ") + candidate.name;
      }
      if (!option)
        return Status(TG_ERROR_INVALID_ARGUMENT,
                      "no compile option '" + key + "' (options: " + names +
                          ")");
      if (std::string why = option->check(value); !why.empty())
        return Status(TG_ERROR_INVALID_ARGUMENT, "compile option " + key +
                                                     "=" + value + " " + why);
    }
    request.resolved.clear();
    request.origins.clear();
    for (const CompileOption &option : identity.options) {
      if (const std::string *given = request.option(option.name)) {
        request.resolved.emplace_back(option.name, *given);
        request.origins.push_back("compile option " + option.name);
        continue;
      }
      const char *env =
          option.env.empty() ? nullptr : std::getenv(option.env.c_str());
      if (env && *env) {
        if (std::string why = option.check(env); !why.empty())
          return Status(TG_ERROR_INVALID_ARGUMENT,
                        option.env + "=" + env + " " + why +
                            " (it sets the compile option " + option.name +
                            ")");
        request.resolved.emplace_back(option.name, env);
        request.origins.push_back(option.env);
        continue;
      }
      request.resolved.emplace_back(option.name, option.defaultValue);
      request.origins.push_back("the default of " + option.name);
    }
    return Status::success();
  }

protected:
  /// Adds a device; call from initialize() only (the list is fixed after it).
  DeviceBase &addDevice(std::unique_ptr<DeviceBase> device) {
    deviceHandles.push_back(device.get());
    ownedDevices.push_back(std::move(device));
    return *ownedDevices.back();
  }
  /// One line saying why there is no device ("no CUDA driver found (...)").
  void setNoDeviceReason(std::string why) { reason = std::move(why); }

private:
  PluginInfo identity;
  std::vector<const char *> targetNames;
  std::vector<tg_compile_stage_info> stageInfos;
  std::vector<tg_compile_option_info> optionInfos;
  std::vector<std::unique_ptr<DeviceBase>> ownedDevices;
  std::vector<tg_device_t *> deviceHandles;
  std::string reason;
};

//===-- The function table ----------------------------------------------------===//

namespace detail {

/// Runs |body| (returning Status) behind the exception guard.
template <typename Body> tg_error_t *call(Body &&body) noexcept {
  return guard([&]() -> tg_error_t * { return body().toError(); });
}

/// Returns TG_ERROR_INVALID_ARGUMENT naming |what| when |handle| is NULL.
#define TG_KIT_REQUIRE(handle, what)                                           \
  do {                                                                         \
    if (!(handle))                                                             \
      return ::tegula::plugin::makeError(TG_ERROR_INVALID_ARGUMENT,            \
                                         what " is NULL");                     \
  } while (0)

template <typename To, typename From> To &as(From *handle) {
  return *static_cast<To *>(handle);
}

template <typename PluginT>
tg_error_t *pluginInitialize(tg_plugin_initialize_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_initialize_args, plugin);
  return guard([&]() -> tg_error_t * {
    auto plugin = std::make_unique<PluginT>();
    Status status = plugin->initialize(args->runtime_major,
                                       args->runtime_minor);
    if (!status.ok())
      return status.toError();
    args->plugin = plugin.release();
    return nullptr;
  });
}

inline tg_error_t *pluginDestroy(tg_plugin_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_destroy_args, plugin);
  return guard([&]() -> tg_error_t * {
    delete args->plugin;
    return nullptr;
  });
}

inline tg_error_t *pluginGetInfo(tg_plugin_get_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_info_args, num_targets);
  TG_KIT_REQUIRE(args->plugin, "plugin");
  const PluginBase &plugin = as<PluginBase>(args->plugin);
  args->name = plugin.info().name.c_str();
  args->version = plugin.info().version.c_str();
  args->vendor = plugin.info().vendor.c_str();
  args->targets = plugin.targetArray();
  args->num_targets = plugin.info().targets.size();
  return nullptr;
}

inline tg_error_t *pluginGetDevices(tg_plugin_get_devices_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_devices_args, status);
  TG_KIT_REQUIRE(args->plugin, "plugin");
  const PluginBase &plugin = as<PluginBase>(args->plugin);
  args->devices = plugin.deviceArray();
  args->num_devices = plugin.devices().size();
  args->status = plugin.noDeviceReason().empty()
                     ? nullptr
                     : plugin.noDeviceReason().c_str();
  return nullptr;
}

inline tg_error_t *deviceGetProperties(tg_device_get_properties_args *args) {
  TG_CHECK_ARGS(args, tg_device_get_properties_args, properties);
  TG_KIT_REQUIRE(args->device, "device");
  TG_KIT_REQUIRE(args->properties, "properties");
  return guard([&]() -> tg_error_t * {
    copyProperties(as<DeviceBase>(args->device).properties(),
                   args->properties);
    return nullptr;
  });
}

inline tg_error_t *pluginCompile(tg_plugin_compile_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_compile_args, metadata);
  TG_KIT_REQUIRE(args->plugin, "plugin");
  TG_KIT_REQUIRE(args->target, "target");
  if (args->num_options)
    TG_KIT_REQUIRE(args->options, "options");
  return guard([&]() -> tg_error_t * {
    CompileRequest request;
    request.target = args->target;
    request.bytecode = args->bytecode;
    request.bytecodeSize = args->bytecode_size;
    for (size_t i = 0; i < args->num_options; ++i)
      request.options.emplace_back(
          args->options[i].key ? args->options[i].key : "",
          args->options[i].value ? args->options[i].value : "");
    if (TG_STRUCT_HAS(args, tg_plugin_compile_args, stage) && args->stage &&
        *args->stage)
      request.stage = args->stage;
    PluginBase &plugin = as<PluginBase>(args->plugin);
    Status status = plugin.resolve(request);
    if (!status.ok())
      return status.toError();
    std::unique_ptr<CompiledImage> image;
    status = plugin.compile(request, image);
    if (!status.ok())
      return status.toError();
    if (!image)
      return makeError(TG_ERROR_INTERNAL, "compile succeeded without an image");
    args->metadata = &image->metadata();
    args->image_data = image->data.data();
    args->image_size = image->data.size();
    args->image = image.release();
    return nullptr;
  });
}

inline tg_error_t *
pluginGetCompileInfo(tg_plugin_get_compile_info_args *args) {
  TG_CHECK_ARGS(args, tg_plugin_get_compile_info_args, num_options);
  TG_KIT_REQUIRE(args->plugin, "plugin");
  const PluginBase &plugin = as<PluginBase>(args->plugin);
  args->stages = plugin.stageArray().data();
  args->num_stages = plugin.stageArray().size();
  args->options = plugin.optionArray().data();
  args->num_options = plugin.optionArray().size();
  return nullptr;
}

inline tg_error_t *imageDestroy(tg_image_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_image_destroy_args, image);
  return guard([&]() -> tg_error_t * {
    delete args->image;
    return nullptr;
  });
}

inline tg_error_t *bufferAlloc(tg_buffer_alloc_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_alloc_args, device_address);
  TG_KIT_REQUIRE(args->device, "device");
  return call([&] {
    auto &device = as<DeviceBase>(args->device);
    const tg_device_properties &props = device.properties();
    if (props.global_memory && args->size > props.global_memory)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot allocate " + std::to_string(args->size) +
                        " bytes: " + (props.name ? props.name : "the device") +
                        " has " + std::to_string(props.global_memory) +
                        " bytes of memory");
    std::unique_ptr<BufferBase> buffer;
    Status status = device.allocate(args->size, buffer);
    if (status.ok() && !buffer)
      return Status(TG_ERROR_INTERNAL, "allocate succeeded without a buffer");
    if (status.ok()) {
      args->device_address = buffer->deviceAddress();
      args->buffer = buffer.release();
    }
    return status;
  });
}

inline tg_error_t *bufferFree(tg_buffer_free_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_free_args, buffer);
  return guard([&]() -> tg_error_t * {
    delete args->buffer;
    return nullptr;
  });
}

inline StreamBase *streamOf(tg_stream_t *stream) {
  return stream ? static_cast<StreamBase *>(stream) : nullptr;
}

inline tg_error_t *bufferWrite(tg_buffer_write_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_write_args, size);
  TG_KIT_REQUIRE(args->dst, "dst");
  if (args->size == 0)
    return nullptr;
  BufferBase &dst = as<BufferBase>(args->dst);
  return call([&] {
    return dst.device().write(dst, args->dst_offset, args->src, args->size,
                              streamOf(args->stream));
  });
}

inline tg_error_t *bufferRead(tg_buffer_read_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_read_args, size);
  TG_KIT_REQUIRE(args->src, "src");
  if (args->size == 0)
    return nullptr;
  BufferBase &src = as<BufferBase>(args->src);
  return call([&] {
    return src.device().read(args->dst, src, args->src_offset, args->size,
                             streamOf(args->stream));
  });
}

inline tg_error_t *bufferCopy(tg_buffer_copy_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_copy_args, size);
  TG_KIT_REQUIRE(args->dst, "dst");
  TG_KIT_REQUIRE(args->src, "src");
  if (args->size == 0)
    return nullptr;
  BufferBase &dst = as<BufferBase>(args->dst);
  return call([&] {
    return dst.device().copy(dst, args->dst_offset, as<BufferBase>(args->src),
                             args->src_offset, args->size,
                             streamOf(args->stream));
  });
}

inline tg_error_t *bufferMemset(tg_buffer_memset_args *args) {
  TG_CHECK_ARGS(args, tg_buffer_memset_args, value);
  TG_KIT_REQUIRE(args->buffer, "buffer");
  if (args->size == 0)
    return nullptr;
  BufferBase &buffer = as<BufferBase>(args->buffer);
  return call([&] {
    return buffer.device().memset(buffer, args->offset, args->size,
                                  args->value, streamOf(args->stream));
  });
}

inline tg_error_t *streamCreate(tg_stream_create_args *args) {
  TG_CHECK_ARGS(args, tg_stream_create_args, stream);
  TG_KIT_REQUIRE(args->device, "device");
  // A native stream to wrap instead of a new one (the runtime sends it only
  // when the table advertises the support: NativeStreamSupport below).
  const auto *native =
      reinterpret_cast<const tg_native_stream_extension *>(tg_find_extension(
          args->extension_start, TG_EXTENSION_TYPE_NATIVE_STREAM));
  return call([&] {
    if (native && native->base.struct_size <
                      TG_STRUCT_SIZE(tg_native_stream_extension, native_stream))
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "tg_native_stream_extension is too small");
    std::unique_ptr<StreamBase> stream;
    DeviceBase &device = as<DeviceBase>(args->device);
    Status status = native ? device.wrapNativeStream(native->native_stream, stream)
                           : device.createStream(stream);
    if (status.ok() && !stream)
      return Status(TG_ERROR_INTERNAL, "createStream succeeded without a stream");
    if (status.ok()) {
      stream->wrapsNativeStream = native != nullptr;
      args->stream = stream.release();
    }
    return status;
  });
}

inline tg_error_t *streamDestroy(tg_stream_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_stream_destroy_args, stream);
  TG_KIT_REQUIRE(args->stream, "stream");
  return call([&] {
    // The ABI: wait for the stream's work, then destroy it (even when the
    // wait fails: the handle is gone either way). A wrapper of a native
    // stream is only deleted: the native stream is its owner's.
    std::unique_ptr<StreamBase> stream(&as<StreamBase>(args->stream));
    return stream->wrapsNativeStream ? Status::success() : stream->synchronize();
  });
}

inline tg_error_t *streamSynchronize(tg_stream_synchronize_args *args) {
  TG_CHECK_ARGS(args, tg_stream_synchronize_args, stream);
  TG_KIT_REQUIRE(args->stream, "stream");
  return call([&] { return as<StreamBase>(args->stream).synchronize(); });
}

inline tg_error_t *streamWaitEvent(tg_stream_wait_event_args *args) {
  TG_CHECK_ARGS(args, tg_stream_wait_event_args, event);
  TG_KIT_REQUIRE(args->stream, "stream");
  TG_KIT_REQUIRE(args->event, "event");
  return call([&] {
    return as<StreamBase>(args->stream).waitEvent(as<EventBase>(args->event));
  });
}

inline tg_error_t *eventCreate(tg_event_create_args *args) {
  TG_CHECK_ARGS(args, tg_event_create_args, event);
  TG_KIT_REQUIRE(args->device, "device");
  return call([&] {
    std::unique_ptr<EventBase> event;
    Status status = as<DeviceBase>(args->device).createEvent(event);
    if (status.ok() && !event)
      return Status(TG_ERROR_INTERNAL, "createEvent succeeded without an event");
    if (status.ok())
      args->event = event.release();
    return status;
  });
}

inline tg_error_t *eventDestroy(tg_event_destroy_args *args) {
  TG_CHECK_ARGS(args, tg_event_destroy_args, event);
  return guard([&]() -> tg_error_t * {
    delete args->event;
    return nullptr;
  });
}

inline tg_error_t *eventRecord(tg_event_record_args *args) {
  TG_CHECK_ARGS(args, tg_event_record_args, stream);
  TG_KIT_REQUIRE(args->event, "event");
  TG_KIT_REQUIRE(args->stream, "stream");
  return call([&] {
    auto &event = as<EventBase>(args->event);
    Status status = event.record(as<StreamBase>(args->stream));
    if (status.ok())
      event.everRecorded = true;
    return status;
  });
}

inline tg_error_t *eventSynchronize(tg_event_synchronize_args *args) {
  TG_CHECK_ARGS(args, tg_event_synchronize_args, event);
  TG_KIT_REQUIRE(args->event, "event");
  return call([&] { return as<EventBase>(args->event).synchronize(); });
}

inline tg_error_t *eventElapsedTime(tg_event_elapsed_time_args *args) {
  TG_CHECK_ARGS(args, tg_event_elapsed_time_args, milliseconds);
  TG_KIT_REQUIRE(args->start, "start");
  TG_KIT_REQUIRE(args->end, "end");
  return call([&] {
    auto &start = as<EventBase>(args->start), &end = as<EventBase>(args->end);
    if (!start.everRecorded || !end.everRecorded)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    std::string("elapsed time: the ") +
                        (start.everRecorded ? "end" : "start") +
                        " event was never recorded");
    return end.elapsedSince(start, args->milliseconds);
  });
}

inline tg_error_t *moduleLoad(tg_module_load_args *args) {
  TG_CHECK_ARGS(args, tg_module_load_args, module);
  TG_KIT_REQUIRE(args->device, "device");
  if (args->image_size)
    TG_KIT_REQUIRE(args->image, "image");
  return call([&] {
    std::unique_ptr<ModuleBase> module;
    Status status = as<DeviceBase>(args->device)
                        .loadModule(args->image, args->image_size, module);
    if (status.ok() && !module)
      return Status(TG_ERROR_INTERNAL, "loadModule succeeded without a module");
    if (status.ok())
      args->module = module.release();
    return status;
  });
}

inline tg_error_t *moduleUnload(tg_module_unload_args *args) {
  TG_CHECK_ARGS(args, tg_module_unload_args, module);
  return guard([&]() -> tg_error_t * {
    delete args->module;
    return nullptr;
  });
}

inline tg_error_t *moduleGetKernel(tg_module_get_kernel_args *args) {
  TG_CHECK_ARGS(args, tg_module_get_kernel_args, kernel);
  TG_KIT_REQUIRE(args->module, "module");
  TG_KIT_REQUIRE(args->name, "name");
  return call([&] {
    KernelBase *kernel = nullptr;
    Status status = as<ModuleBase>(args->module).getKernel(args->name, kernel);
    if (status.ok() && !kernel)
      return Status(TG_ERROR_INTERNAL, "getKernel succeeded without a kernel");
    if (status.ok())
      args->kernel = kernel;
    return status;
  });
}

inline tg_error_t *kernelLaunch(tg_kernel_launch_args *args) {
  TG_CHECK_ARGS(args, tg_kernel_launch_args, packed_args_size);
  TG_KIT_REQUIRE(args->kernel, "kernel");
  return call([&] {
    LaunchRequest request;
    request.stream = streamOf(args->stream);
    std::memcpy(request.grid, args->grid, sizeof(request.grid));
    std::memcpy(request.block, args->block, sizeof(request.block));
    request.dynamicSharedMemory = args->dynamic_shared_memory;
    request.packedArgs = args->packed_args;
    request.packedArgsSize = args->packed_args_size;
    return as<KernelBase>(args->kernel).launch(request);
  });
}

inline tg_error_t *kernelGetAttributes(tg_kernel_get_attributes_args *args) {
  TG_CHECK_ARGS(args, tg_kernel_get_attributes_args, attributes);
  TG_KIT_REQUIRE(args->kernel, "kernel");
  TG_KIT_REQUIRE(args->attributes, "attributes");
  tg_kernel_attributes *out = args->attributes;
  const size_t header = TG_STRUCT_SIZE(tg_kernel_attributes, extension_start);
  if (out->struct_size < header)
    return makeError(TG_ERROR_INVALID_ARGUMENT,
                     "attributes.struct_size too small");
  return call([&] {
    // The kernel fills a whole struct of this header's version; the
    // caller's gets the fields its struct_size covers, and keeps its own
    // presets (unknown) past ours.
    tg_kernel_attributes own;
    std::memset(&own, 0xff, sizeof(own));
    own.struct_size = sizeof(own);
    own.extension_start = out->extension_start;
    Status status = as<KernelBase>(args->kernel).attributes(own);
    if (status.ok()) {
      size_t size = std::min(out->struct_size, sizeof(own));
      if (size > header)
        std::memcpy(reinterpret_cast<char *>(out) + header,
                    reinterpret_cast<const char *>(&own) + header,
                    size - header);
    }
    return status;
  });
}

#undef TG_KIT_REQUIRE

/// The table's extension chain: TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT when
/// PluginT declares `static constexpr const char *nativeStreamHandleType`
/// (its devices override DeviceBase::wrapNativeStream), else nothing.
template <typename PluginT, typename = void> struct NativeStreamSupport {
  static const tg_extension_base *chain() { return nullptr; }
};
template <typename PluginT>
struct NativeStreamSupport<
    PluginT, std::void_t<decltype(PluginT::nativeStreamHandleType)>> {
  static const tg_extension_base *chain() {
    static const tg_native_stream_support support = {
        {sizeof(tg_native_stream_support),
         TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT, nullptr},
        PluginT::nativeStreamHandleType};
    return &support.base;
  }
};

} // namespace detail

/// The function table for plugin class |PluginT| (derived from PluginBase,
/// default-constructible), or NULL when the runtime speaks another major
/// version. Return it from `tg_plugin_get_api`.
template <typename PluginT>
const tg_plugin_api *pluginApi(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  static_assert(std::is_base_of<PluginBase, PluginT>::value,
                "a plugin class derives from tegula::plugin::PluginBase");
  (void)runtimeMinor;
  static const tg_plugin_api table = [] {
    tg_plugin_api t{};
    t.struct_size = sizeof(t);
    t.extension_start = detail::NativeStreamSupport<PluginT>::chain();
    t.major_version = TG_PLUGIN_API_MAJOR;
    t.minor_version = TG_PLUGIN_API_MINOR;
    t.error_destroy = errorDestroy;
    t.error_message = errorMessage;
    t.error_get_code = errorGetCode;
    t.plugin_initialize = detail::pluginInitialize<PluginT>;
    t.plugin_destroy = detail::pluginDestroy;
    t.plugin_get_info = detail::pluginGetInfo;
    t.plugin_get_devices = detail::pluginGetDevices;
    t.device_get_properties = detail::deviceGetProperties;
    t.plugin_compile = detail::pluginCompile;
    t.image_destroy = detail::imageDestroy;
    t.buffer_alloc = detail::bufferAlloc;
    t.buffer_free = detail::bufferFree;
    t.buffer_write = detail::bufferWrite;
    t.buffer_read = detail::bufferRead;
    t.buffer_copy = detail::bufferCopy;
    t.buffer_memset = detail::bufferMemset;
    t.stream_create = detail::streamCreate;
    t.stream_destroy = detail::streamDestroy;
    t.stream_synchronize = detail::streamSynchronize;
    t.stream_wait_event = detail::streamWaitEvent;
    t.event_create = detail::eventCreate;
    t.event_destroy = detail::eventDestroy;
    t.event_record = detail::eventRecord;
    t.event_synchronize = detail::eventSynchronize;
    t.event_elapsed_time = detail::eventElapsedTime;
    t.module_load = detail::moduleLoad;
    t.module_unload = detail::moduleUnload;
    t.module_get_kernel = detail::moduleGetKernel;
    t.kernel_launch = detail::kernelLaunch;
    t.plugin_get_compile_info = detail::pluginGetCompileInfo;
    t.kernel_get_attributes = detail::kernelGetAttributes;
    return t;
  }();
  return runtimeMajor == TG_PLUGIN_API_MAJOR ? &table : nullptr;
}

/// Defines the plugin's one exported symbol, tg_plugin_get_api, as the
/// function table of |PluginT| (pluginApi).
#define TEGULA_PLUGIN_ENTRY_POINT(PluginT)                                     \
  extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *tg_plugin_get_api(          \
      uint32_t runtimeMajor, uint32_t runtimeMinor) {                          \
    return ::tegula::plugin::pluginApi<PluginT>(runtimeMajor, runtimeMinor);   \
  }

} // namespace tegula::plugin

#endif // TEGULA_BACKENDKIT_PLUGINBASE_H
