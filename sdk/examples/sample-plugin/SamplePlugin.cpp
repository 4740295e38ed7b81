//===- SamplePlugin.cpp - A complete plugin written with PluginBase -------===//
//
// `sample`: a backend whose device memory is host memory and whose streams
// are worker threads, written with the SDK's C++ kit
// (tegula/BackendKit/PluginBase.h). It shows every part of a plugin a vendor
// writes - identity, device discovery and properties, memory, streams,
// events, compile, module load and launch - without a GPU, and it passes the
// conformance suite in strict mode. Copy it to start a backend; replace host
// memory with the vendor driver's calls.
//
//  - TEGULA_SAMPLE_DEVICES=<n> sets the number of devices (default 1; 0
//    shows the "no device, and why" path).
//  - Compile ignores the bytecode (there is no code generator here) and
//    builds the one built-in kernel the option `kernel=fill_u32` names:
//      fill_u32(u32* out, u32 value, i32 n): out[i] = value, i < n
//  - Every pointer a launch receives is checked against live allocations, so
//    a wrong argument packing is an error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/PluginBase.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

using namespace tegula::plugin;

namespace {

constexpr uint64_t kGlobalMemory = 1ull << 30;
constexpr char kImageMagic[] = "SAMPLE-IMAGE\n";
constexpr char kTarget[] = "host_memory";

class SampleDevice;

/// Host memory standing in for device memory.
class SampleBuffer : public BufferBase {
public:
  SampleBuffer(DeviceBase &device, std::unique_ptr<uint8_t[]> bytes,
               uint64_t size)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(bytes.get())),
        bytes(std::move(bytes)) {}
  ~SampleBuffer() override;
  uint8_t *data() const { return bytes.get(); }

private:
  std::unique_ptr<uint8_t[]> bytes;
};

/// An in-order queue run by one worker thread.
class SampleStream : public StreamBase {
public:
  explicit SampleStream(DeviceBase &device)
      : StreamBase(device), worker([this] { run(); }) {}
  ~SampleStream() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    worker.join();
  }

  void enqueue(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(work));
    }
    wake.notify_all();
  }

  Status synchronize() override {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [this] { return queue.empty() && !busy; });
    return Status::success();
  }

  Status waitEvent(EventBase &event) override;

private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty())
        return; // Stopping, and everything ran.
      std::function<void()> work = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      work();
      lock.lock();
      busy = false;
      if (queue.empty())
        idle.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, idle;
  std::deque<std::function<void()>> queue;
  bool busy = false;
  bool stopping = false;
  std::thread worker; // Last: starts after the members it uses.
};

/// Runs |work| in |stream|, or now when there is none.
void submit(StreamBase *stream, std::function<void()> work) {
  if (stream)
    static_cast<SampleStream *>(stream)->enqueue(std::move(work));
  else
    work();
}

/// Each record() starts a new generation; the stream's worker completes it.
class SampleEvent : public EventBase {
public:
  using EventBase::EventBase;

  Status record(StreamBase &stream) override {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation = ++recorded;
    }
    static_cast<SampleStream &>(stream).enqueue([this, generation] {
      std::lock_guard<std::mutex> lock(mutex);
      completed = std::max(completed, generation);
      time = std::chrono::steady_clock::now();
      done.notify_all();
    });
    return Status::success();
  }

  Status synchronize() override {
    waitFor(currentGeneration());
    return Status::success();
  }

  Status elapsedSince(EventBase &startEvent, float &milliseconds) override {
    auto &start = static_cast<SampleEvent &>(startEvent);
    std::optional<std::chrono::steady_clock::time_point> from = start.stamp(),
                                                         to = stamp();
    if (!from || !to)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "elapsed time needs two recorded, completed events");
    milliseconds = std::chrono::duration<float, std::milli>(*to - *from).count();
    return Status::success();
  }

  uint64_t currentGeneration() {
    std::lock_guard<std::mutex> lock(mutex);
    return recorded;
  }
  /// Blocks until generation |generation| has completed (0: at once).
  void waitFor(uint64_t generation) {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return completed >= generation; });
  }

private:
  std::optional<std::chrono::steady_clock::time_point> stamp() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!recorded || completed < recorded)
      return std::nullopt;
    return time;
  }

  std::mutex mutex;
  std::condition_variable done;
  uint64_t recorded = 0, completed = 0;
  std::chrono::steady_clock::time_point time;
};

Status SampleStream::waitEvent(EventBase &eventBase) {
  auto &event = static_cast<SampleEvent &>(eventBase);
  // Waits for the recording current now, not for later ones.
  uint64_t generation = event.currentGeneration();
  enqueue([&event, generation] { event.waitFor(generation); });
  return Status::success();
}

class SampleKernel : public KernelBase {
public:
  SampleKernel(ModuleBase &module, SampleDevice &device)
      : KernelBase(module), device(device) {}
  Status launch(const LaunchRequest &request) override;

private:
  SampleDevice &device;
};

class SampleModule : public ModuleBase {
public:
  SampleModule(SampleDevice &device);
  Status getKernel(const std::string &name, KernelBase *&kernel) override {
    if (name != "fill_u32")
      return Status(TG_ERROR_NOT_FOUND,
                    "no kernel named '" + name + "' in the module");
    kernel = &fill;
    return Status::success();
  }

private:
  SampleKernel fill;
};

class SampleDevice : public DeviceBase {
public:
  SampleDevice(PluginBase &plugin, int index) : DeviceBase(plugin) {
    name = "Tegula sample device " + std::to_string(index);
    props.struct_size = sizeof(props);
    props.name = name.c_str();
    props.arch = kTarget;
    props.compute_units = 1;
    props.warp_size = 32;
    props.max_threads_per_block = 1024;
    props.shared_memory_per_block = 48 * 1024;
    props.global_memory = kGlobalMemory;
  }

  const tg_device_properties &properties() const override { return props; }

  Status allocate(uint64_t size,
                  std::unique_ptr<BufferBase> &buffer) override {
    if (size > kGlobalMemory)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot allocate " + std::to_string(size) +
                        " bytes on a 1 GiB device");
    std::unique_ptr<uint8_t[]> bytes(new (std::nothrow)
                                         uint8_t[size ? size : 1]);
    if (!bytes)
      return Status(TG_ERROR_OUT_OF_MEMORY, "host allocation failed");
    {
      std::lock_guard<std::mutex> lock(mutex);
      live[reinterpret_cast<uintptr_t>(bytes.get())] = size;
    }
    buffer = std::make_unique<SampleBuffer>(*this, std::move(bytes), size);
    return Status::success();
  }

  void forget(const SampleBuffer &buffer) {
    std::lock_guard<std::mutex> lock(mutex);
    live.erase(reinterpret_cast<uintptr_t>(buffer.data()));
  }

  /// True when [address, address + size) lies in one live allocation.
  bool isLive(uint64_t address, uint64_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.upper_bound(static_cast<uintptr_t>(address));
    if (it == live.begin())
      return false;
    --it;
    uint64_t offset = address - it->first;
    return offset <= it->second && size <= it->second - offset;
  }

  // The runtime has checked every range against the buffers' sizes.
  Status write(BufferBase &dst, uint64_t dstOffset, const void *src,
               uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + dstOffset;
    submit(stream, [=] { std::memcpy(to, src, size); });
    return Status::success();
  }
  Status read(void *dst, BufferBase &src, uint64_t srcOffset, uint64_t size,
              StreamBase *stream) override {
    const uint8_t *from = data(src) + srcOffset;
    submit(stream, [=] { std::memcpy(dst, from, size); });
    return Status::success();
  }
  Status copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
              uint64_t srcOffset, uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + dstOffset;
    const uint8_t *from = data(src) + srcOffset;
    submit(stream, [=] { std::memmove(to, from, size); });
    return Status::success();
  }
  Status memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                uint8_t value, StreamBase *stream) override {
    uint8_t *to = data(buffer) + offset;
    submit(stream, [=] { std::memset(to, value, size); });
    return Status::success();
  }

  Status createStream(std::unique_ptr<StreamBase> &stream) override {
    stream = std::make_unique<SampleStream>(*this);
    return Status::success();
  }
  Status createEvent(std::unique_ptr<EventBase> &event) override {
    event = std::make_unique<SampleEvent>(*this);
    return Status::success();
  }

  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<ModuleBase> &module) override {
    std::string text(static_cast<const char *>(image), size);
    if (text != std::string(kImageMagic) + "fill_u32")
      return Status(TG_ERROR_INVALID_FORMAT, "not a sample image");
    module = std::make_unique<SampleModule>(*this);
    return Status::success();
  }

private:
  static uint8_t *data(BufferBase &buffer) {
    return static_cast<SampleBuffer &>(buffer).data();
  }

  std::string name;
  tg_device_properties props{};
  std::mutex mutex;
  /// Live allocations: address -> size.
  std::map<uintptr_t, uint64_t> live;
};

SampleBuffer::~SampleBuffer() {
  static_cast<SampleDevice &>(device()).forget(*this);
}

SampleModule::SampleModule(SampleDevice &device)
    : ModuleBase(device), fill(*this, device) {}

Status SampleKernel::launch(const LaunchRequest &request) {
  // fill_u32(u32* out, u32 value, i32 n) packed by the kernel ABI: out at 0,
  // value at 8, n at 12, 16 bytes in all.
  if (request.packedArgsSize != 16)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "fill_u32 takes 16 bytes of packed arguments, got " +
                      std::to_string(request.packedArgsSize));
  const auto *packed = static_cast<const uint8_t *>(request.packedArgs);
  uint64_t out;
  uint32_t value;
  int32_t n;
  std::memcpy(&out, packed, 8);
  std::memcpy(&value, packed + 8, 4);
  std::memcpy(&n, packed + 12, 4);
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i)
    threads *= uint64_t(request.grid[i]) * request.block[i];
  uint64_t count = n > 0 ? std::min<uint64_t>(uint64_t(n), threads) : 0;
  if (!device.isLive(out, count * 4))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "fill_u32: out + " + std::to_string(count * 4) +
                      " bytes is not device memory");
  auto *dst = reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(out));
  submit(request.stream, [=] { std::fill(dst, dst + count, value); });
  return Status::success();
}

class SamplePlugin : public PluginBase {
public:
  SamplePlugin()
      : PluginBase({"sample", "0.1.0", "Tegula SDK sample (host memory)",
                    {kTarget}}) {}

  Status initialize(uint32_t, uint32_t) override {
    int count = 1;
    if (const char *env = std::getenv("TEGULA_SAMPLE_DEVICES"))
      count = std::atoi(env);
    for (int i = 0; i < count; ++i)
      addDevice(std::make_unique<SampleDevice>(*this, i));
    if (count <= 0)
      setNoDeviceReason("TEGULA_SAMPLE_DEVICES is " + std::to_string(count));
    return Status::success();
  }

  Status compile(const CompileRequest &request,
                 std::unique_ptr<CompiledImage> &image) override {
    if (request.target != kTarget)
      return Status(TG_ERROR_NOT_FOUND,
                    "unknown target '" + request.target + "'");
    const std::string *kernel = request.option("kernel");
    if (!kernel || *kernel != "fill_u32")
      return Status(TG_ERROR_UNIMPLEMENTED,
                    "the sample plugin has no code generator; it builds only "
                    "kernel=fill_u32");
    image = std::make_unique<CompiledImage>();
    image->data = std::string(kImageMagic) + "fill_u32";
    image->name = "fill_u32";
    image->target = std::string("sample:") + kTarget;
    image->numWarps = 4;
    image->arguments = {{"out", TG_ARG_POINTER, TG_TYPE_U32, 16},
                        {"value", TG_ARG_SCALAR, TG_TYPE_U32, 0},
                        {"n", TG_ARG_SCALAR, TG_TYPE_I32, 0}};
    return Status::success();
  }
};

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  return pluginApi<SamplePlugin>(runtimeMajor, runtimeMinor);
}
