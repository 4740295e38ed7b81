//===- Defective.cpp - A plugin with one chosen defect --------------------===//
//
// `defective`: a correct, synchronous host-memory backend (written with
// PluginBase) that, when TEGULA_DEFECT names a defect, breaks exactly that
// one thing. The conformance tests run the suite on it once without a defect
// (everything must pass) and once per defect with the test that must catch
// it (it must fail): the suite's checks are shown able to fail.
//
//   memset-off-by-one    memset writes one byte past its range
//   wrong-read-offset    read ignores the source offset
//   reversed-stream      stream work is held back and run last-in first-out
//   overrun-properties   device_get_properties writes the whole struct,
//                        whatever the caller's struct_size
//   silent-no-device     no device, and no reason given
//   accepts-garbage      compile succeeds on anything
//   fill-one-too-many    the fill kernel writes n + 1 elements
//
// Test-only; never installed.
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/PluginBase.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

using namespace tegula::plugin;

namespace {

bool hasDefect(const char *name) {
  const char *defect = std::getenv("TEGULA_DEFECT");
  return defect && std::strcmp(defect, name) == 0;
}

constexpr char kTarget[] = "defective_arch";
constexpr char kImage[] = "DEFECTIVE fill_u32";

class Buffer : public BufferBase {
public:
  /// Host memory; the device address is its host address.
  Buffer(DeviceBase &device, uint64_t size, std::unique_ptr<uint8_t[]> memory)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(memory.get())),
        bytes(std::move(memory)) {}
  uint8_t *data() { return bytes.get(); }

private:
  std::unique_ptr<uint8_t[]> bytes;
};

/// Runs work at once; with reversed-stream, holds it back and runs it last
/// first at synchronize.
class Stream : public StreamBase {
public:
  using StreamBase::StreamBase;
  void submit(std::function<void()> work) {
    if (!hasDefect("reversed-stream")) {
      work();
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    held.push_back(std::move(work));
  }
  Status synchronize() override {
    std::vector<std::function<void()>> work;
    {
      std::lock_guard<std::mutex> lock(mutex);
      work.swap(held);
    }
    std::reverse(work.begin(), work.end());
    for (auto &item : work)
      item();
    return Status::success();
  }
  Status waitEvent(EventBase &) override { return Status::success(); }

private:
  std::mutex mutex;
  std::vector<std::function<void()>> held;
};

void run(StreamBase *stream, std::function<void()> work) {
  if (stream)
    static_cast<Stream *>(stream)->submit(std::move(work));
  else
    work();
}

class Event : public EventBase {
public:
  using EventBase::EventBase;
  Status record(StreamBase &) override {
    std::lock_guard<std::mutex> lock(mutex);
    time = std::chrono::steady_clock::now();
    recorded = true;
    return Status::success();
  }
  Status synchronize() override { return Status::success(); }
  Status elapsedSince(EventBase &start, float &ms) override {
    auto &from = static_cast<Event &>(start);
    if (!recorded || !from.recorded)
      return Status(TG_ERROR_INVALID_ARGUMENT, "event never recorded");
    ms = std::chrono::duration<float, std::milli>(time - from.time).count();
    return Status::success();
  }

private:
  std::mutex mutex;
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
};

class Kernel : public KernelBase {
public:
  using KernelBase::KernelBase;
  Status launch(const LaunchRequest &request) override {
    if (request.packedArgsSize != 16)
      return Status(TG_ERROR_INVALID_ARGUMENT, "fill_u32 takes 16 bytes");
    const auto *packed = static_cast<const uint8_t *>(request.packedArgs);
    uint64_t out;
    uint32_t value;
    int32_t n;
    std::memcpy(&out, packed, 8);
    std::memcpy(&value, packed + 8, 4);
    std::memcpy(&n, packed + 12, 4);
    int64_t count = std::max(n, 0) + (hasDefect("fill-one-too-many") ? 1 : 0);
    auto *dst = reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(out));
    run(request.stream, [=] { std::fill(dst, dst + count, value); });
    return Status::success();
  }
};

class Module : public ModuleBase {
public:
  explicit Module(DeviceBase &device) : ModuleBase(device), fill(*this) {}
  Status getKernel(const std::string &name, KernelBase *&kernel) override {
    if (name != "fill_u32")
      return Status(TG_ERROR_NOT_FOUND, "no kernel '" + name + "'");
    kernel = &fill;
    return Status::success();
  }

private:
  Kernel fill;
};

class Device : public DeviceBase {
public:
  explicit Device(PluginBase &plugin) : DeviceBase(plugin) {
    props.struct_size = sizeof(props);
    props.name = "Defective test device";
    props.arch = kTarget;
    props.compute_units = 1;
    props.warp_size = 32;
    props.max_threads_per_block = 1024;
    props.shared_memory_per_block = 48 * 1024;
    props.global_memory = 1ull << 30;
  }
  const tg_device_properties &properties() const override { return props; }

  Status allocate(uint64_t size, std::unique_ptr<BufferBase> &out) override {
    if (size > props.global_memory)
      return Status(TG_ERROR_OUT_OF_MEMORY, "larger than the device");
    out = std::make_unique<Buffer>(
        *this, size, std::make_unique<uint8_t[]>(size ? size : 1));
    return Status::success();
  }
  Status write(BufferBase &dst, uint64_t offset, const void *src,
               uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + offset;
    run(stream, [=] { std::memcpy(to, src, size); });
    return Status::success();
  }
  Status read(void *dst, BufferBase &src, uint64_t offset, uint64_t size,
              StreamBase *stream) override {
    if (hasDefect("wrong-read-offset"))
      offset = 0;
    const uint8_t *from = data(src) + offset;
    run(stream, [=] { std::memcpy(dst, from, size); });
    return Status::success();
  }
  Status copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
              uint64_t srcOffset, uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + dstOffset;
    const uint8_t *from = data(src) + srcOffset;
    run(stream, [=] { std::memmove(to, from, size); });
    return Status::success();
  }
  Status memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                uint8_t value, StreamBase *stream) override {
    // One past the range, where there is room for it.
    if (hasDefect("memset-off-by-one") && size &&
        offset + size < buffer.size())
      ++size;
    uint8_t *to = data(buffer) + offset;
    run(stream, [=] { std::memset(to, value, size); });
    return Status::success();
  }
  Status createStream(std::unique_ptr<StreamBase> &out) override {
    out = std::make_unique<Stream>(*this);
    return Status::success();
  }
  Status createEvent(std::unique_ptr<EventBase> &out) override {
    out = std::make_unique<Event>(*this);
    return Status::success();
  }
  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<ModuleBase> &out) override {
    if (std::string(static_cast<const char *>(image), size) != kImage)
      return Status(TG_ERROR_INVALID_FORMAT, "not a defective image");
    out = std::make_unique<Module>(*this);
    return Status::success();
  }

private:
  static uint8_t *data(BufferBase &buffer) {
    return static_cast<Buffer &>(buffer).data();
  }
  tg_device_properties props{};
};

class DefectivePlugin : public PluginBase {
public:
  DefectivePlugin()
      : PluginBase({"defective", "1.0.0", "Tegula tests", {kTarget}}) {}

  Status initialize(uint32_t, uint32_t) override {
    if (!hasDefect("silent-no-device"))
      addDevice(std::make_unique<Device>(*this));
    return Status::success();
  }

  Status compile(const CompileRequest &request,
                 std::unique_ptr<CompiledImage> &image) override {
    const std::string *kernel = request.option("kernel");
    bool fill = kernel && *kernel == "fill_u32";
    if (!fill && !hasDefect("accepts-garbage"))
      return Status(TG_ERROR_INVALID_FORMAT, "not tile bytecode");
    image = std::make_unique<CompiledImage>();
    image->data = kImage;
    image->name = "fill_u32";
    image->target = std::string("defective:") + kTarget;
    image->numWarps = 1;
    image->arguments = {{"out", TG_ARG_POINTER, TG_TYPE_U32, 16},
                        {"value", TG_ARG_SCALAR, TG_TYPE_U32, 0},
                        {"n", TG_ARG_SCALAR, TG_TYPE_I32, 0}};
    return Status::success();
  }
};

/// device_get_properties that ignores the caller's struct_size.
tg_error_t *overrunProperties(tg_device_get_properties_args *args) {
  const tg_device_properties &props =
      static_cast<DeviceBase *>(args->device)->properties();
  size_t size = args->properties->struct_size;
  std::memcpy(args->properties, &props, sizeof(props));
  args->properties->struct_size = size;
  return nullptr;
}

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  const tg_plugin_api *api =
      pluginApi<DefectivePlugin>(runtimeMajor, runtimeMinor);
  if (!api || !hasDefect("overrun-properties"))
    return api;
  static tg_plugin_api patched = *api;
  patched.device_get_properties = overrunProperties;
  return &patched;
}
