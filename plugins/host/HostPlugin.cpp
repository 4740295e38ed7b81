//===- HostPlugin.cpp - The host CPU plugin -------------------------------===//
//
// `host`: the machine's own CPU as one device, `host:0`, written with the
// SDK's C++ kit (tegula/BackendKit/PluginBase.h); started from the SDK's
// sample plugin (sdk/examples/sample-plugin/).
//
//  - Properties describe this machine: the name from /proc/cpuinfo, the
//    architecture the plugin was built for (x86_64, aarch64, ...), compute
//    units = the number of threads the plugin will use (TEGULA_NUM_THREADS
//    when it is a positive integer, else std::thread::hardware_concurrency()),
//    sub-group size 1, one thread per block, kScratchPerProgram bytes of
//    "shared" memory per program, physical RAM as global memory, the CPU's
//    maximum clock where Linux says it, no matrix units.
//  - Device memory is host memory, 64-byte aligned; a buffer's device
//    address is its host address.
//  - Streams are in-order queues, each run by a worker thread; events mark
//    points in them (record, wait, synchronize, elapsed time).
//  - Compiling is not implemented yet (the CPU code generator comes later):
//    plugin_compile answers TG_ERROR_UNIMPLEMENTED, "compiling for host is
//    not implemented yet", and so do module load and launch (the kit's
//    defaults).
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/PluginBase.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

using namespace tegula::plugin;

namespace {

/// Alignment of every allocation: a cache line, and the widest vector
/// register (AVX-512) the code generator may use.
constexpr uint64_t kAlignment = 64;

/// "Shared memory per block": the scratch a program instance may use, sized
/// to stay within a core's L2 on current CPUs. Fixed, so that what compiles
/// for host does not depend on the machine it compiled on.
constexpr uint64_t kScratchPerProgram = 256 * 1024;

//===-- What this machine is --------------------------------------------===//

/// The architecture the plugin was built for, [A-Za-z0-9_.]+.
std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return "ppc64le";
#else
  struct utsname u;
  std::string arch;
  if (uname(&u) == 0)
    for (const char *c = u.machine; *c; ++c)
      if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '_' || *c == '.')
        arch += *c;
  return arch.empty() ? "unknown" : arch;
#endif
}

/// The value of the first "<key> : value" line of /proc/cpuinfo, or "".
std::string cpuinfo(const std::string &key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != key)
      continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    return value;
  }
  return "";
}

/// The CPU's marketing name ("AMD EPYC 9654 96-Core Processor").
std::string hostCpuName(const std::string &arch) {
  std::string name = cpuinfo("model name");
  if (name.empty())
    name = cpuinfo("Model"); // Some aarch64 kernels (e.g. Raspberry Pi).
  return name.empty() ? "Host CPU (" + arch + ")" : name;
}

/// TEGULA_NUM_THREADS when it is a positive integer, else the hardware's
/// threads (1 when unknown).
uint32_t hostThreads() {
  if (const char *env = std::getenv("TEGULA_NUM_THREADS")) {
    errno = 0;
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (errno == 0 && end != env && *end == '\0' && value > 0 &&
        value <= 1 << 20)
      return static_cast<uint32_t>(value);
  }
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware ? hardware : 1;
}

/// Physical RAM in bytes (0 when unknown).
uint64_t hostMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return uint64_t(pages) * uint64_t(pageSize);
}

/// The maximum clock in kHz (cpufreq), else the current one (/proc/cpuinfo
/// "cpu MHz"), else 0.
uint32_t hostClockKHz() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  unsigned long khz = 0;
  if (in >> khz && khz > 0 && khz < 100'000'000ul)
    return static_cast<uint32_t>(khz);
  std::string mhz = cpuinfo("cpu MHz");
  if (!mhz.empty()) {
    double value = std::strtod(mhz.c_str(), nullptr);
    if (value > 0 && value < 100'000)
      return static_cast<uint32_t>(value * 1000);
  }
  return 0;
}

//===-- Memory, streams, events -------------------------------------------===//

/// Host memory as device memory, kAlignment-aligned.
class HostBuffer : public BufferBase {
public:
  HostBuffer(DeviceBase &device, void *bytes, uint64_t size)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(bytes)),
        bytes(static_cast<uint8_t *>(bytes)) {}
  ~HostBuffer() override { std::free(bytes); }
  uint8_t *data() const { return bytes; }

private:
  uint8_t *bytes;
};

/// An in-order queue run by one worker thread.
class HostStream : public StreamBase {
public:
  explicit HostStream(DeviceBase &device)
      : StreamBase(device), worker([this] { run(); }) {}
  ~HostStream() override {
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
    static_cast<HostStream *>(stream)->enqueue(std::move(work));
  else
    work();
}

/// Each record() starts a new generation; the stream's worker completes it.
class HostEvent : public EventBase {
public:
  using EventBase::EventBase;

  Status record(StreamBase &stream) override {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation = ++recorded;
    }
    static_cast<HostStream &>(stream).enqueue([this, generation] {
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
    auto &start = static_cast<HostEvent &>(startEvent);
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

Status HostStream::waitEvent(EventBase &eventBase) {
  auto &event = static_cast<HostEvent &>(eventBase);
  // Waits for the recording current now, not for later ones.
  uint64_t generation = event.currentGeneration();
  enqueue([&event, generation] { event.waitFor(generation); });
  return Status::success();
}

//===-- The device and the plugin -----------------------------------------===//

class HostDevice : public DeviceBase {
public:
  HostDevice(PluginBase &plugin, const std::string &deviceArch)
      : DeviceBase(plugin), arch(deviceArch), name(hostCpuName(arch)) {
    props.struct_size = sizeof(props);
    props.name = name.c_str();
    props.arch = arch.c_str();
    props.compute_units = hostThreads();
    // A program instance is one thread; its tile ops vectorize within it.
    props.warp_size = 1;
    props.max_threads_per_block = 1;
    props.matrix_units = 0;
    props.global_memory = hostMemory();
    props.shared_memory_per_block =
        props.global_memory ? std::min(kScratchPerProgram, props.global_memory)
                            : kScratchPerProgram;
    props.clock_khz = hostClockKHz();
    props.memory_clock_khz = 0;
  }

  const tg_device_properties &properties() const override { return props; }

  Status allocate(uint64_t size,
                  std::unique_ptr<BufferBase> &buffer) override {
    if (props.global_memory && size > props.global_memory)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot allocate " + std::to_string(size) +
                        " bytes: the host has " +
                        std::to_string(props.global_memory) +
                        " bytes of memory");
    // aligned_alloc wants a multiple of the alignment; 0 bytes gets one line.
    uint64_t rounded = std::max<uint64_t>(
        (size + kAlignment - 1) / kAlignment * kAlignment, kAlignment);
    if (rounded < size)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot allocate " + std::to_string(size) + " bytes");
    void *bytes = std::aligned_alloc(kAlignment, rounded);
    if (!bytes)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "host allocation of " + std::to_string(size) +
                        " bytes failed");
    buffer = std::make_unique<HostBuffer>(*this, bytes, size);
    return Status::success();
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
    // memmove: a copy within one buffer may overlap.
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
    stream = std::make_unique<HostStream>(*this);
    return Status::success();
  }
  Status createEvent(std::unique_ptr<EventBase> &event) override {
    event = std::make_unique<HostEvent>(*this);
    return Status::success();
  }

private:
  static uint8_t *data(BufferBase &buffer) {
    return static_cast<HostBuffer &>(buffer).data();
  }

  const std::string arch;
  const std::string name;
  tg_device_properties props{};
};

class HostPlugin : public PluginBase {
public:
  HostPlugin()
      : PluginBase({"host", "0.1.0", "the host CPU", {hostArch()}}) {}

  Status initialize(uint32_t, uint32_t) override {
    addDevice(std::make_unique<HostDevice>(*this, info().targets.front()));
    return Status::success();
  }

  Status compile(const CompileRequest &,
                 std::unique_ptr<CompiledImage> &) override {
    return Status(TG_ERROR_UNIMPLEMENTED,
                  "compiling for host is not implemented yet");
  }
};

} // namespace

extern "C" TG_PLUGIN_EXPORT const tg_plugin_api *
tg_plugin_get_api(uint32_t runtimeMajor, uint32_t runtimeMinor) {
  return pluginApi<HostPlugin>(runtimeMajor, runtimeMinor);
}
