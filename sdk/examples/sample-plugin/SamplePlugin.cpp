//===- SamplePlugin.cpp - A complete plugin written with PluginBase -------===//
//
// `sample`: a backend whose device memory is host memory and whose streams
// are worker threads, written with the SDK's C++ kit
// (tegula/BackendKit/PluginBase.h, and HostQueues.h for host memory, streams
// and events). It shows every part of a plugin a vendor writes - identity,
// device discovery and properties, memory, streams, events, compile, module
// load and launch - without a GPU, and it passes the conformance suite in
// strict mode. Copy it to start a backend; replace host memory with the
// vendor driver's calls.
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

#include "tegula/BackendKit/HostQueues.h"
#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

using namespace tegula::plugin;

namespace {

constexpr uint64_t kGlobalMemory = 1ull << 30;
constexpr char kImageMagic[] = "SAMPLE-IMAGE\n";
constexpr char kTarget[] = "host_memory";

class SampleDevice;

/// Host memory standing in for device memory (the SDK's HostBuffer), which
/// the device forgets when it is freed.
class SampleBuffer : public HostBuffer {
public:
  using HostBuffer::HostBuffer;
  ~SampleBuffer() override;
};

class SampleKernel : public KernelBase {
public:
  SampleKernel(ModuleBase &module, SampleDevice &device)
      : KernelBase(module), device(device) {}
  Status launch(const LaunchRequest &request) override;

private:
  SampleDevice &device;
};

// Buffer copies, streams and events come from the SDK's host kit
// (HostMemoryDevice, HostStream, HostEvent in HostQueues.h): a real backend
// replaces them with its driver's calls.
class SampleDevice : public HostMemoryDevice {
public:
  SampleDevice(PluginBase &plugin, int index)
      : HostMemoryDevice(plugin, "Tegula sample device " + std::to_string(index),
                         kTarget) {
    props.compute_units = 1;
    props.warp_size = 32;
    props.max_threads_per_block = 1024;
    props.shared_memory_per_block = 48 * 1024;
    props.global_memory = kGlobalMemory;
  }

  Status allocate(uint64_t size,
                  std::unique_ptr<BufferBase> &buffer) override {
    // The kit has refused more than props.global_memory.
    void *bytes = HostBuffer::allocateAligned(size);
    if (!bytes)
      return Status(TG_ERROR_OUT_OF_MEMORY, "host allocation failed");
    {
      std::lock_guard<std::mutex> lock(mutex);
      live[reinterpret_cast<uintptr_t>(bytes)] = size;
    }
    buffer = std::make_unique<SampleBuffer>(*this, bytes, size);
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

  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<ModuleBase> &module) override {
    std::string text(static_cast<const char *>(image), size);
    if (text != std::string(kImageMagic) + "fill_u32")
      return Status(TG_ERROR_INVALID_FORMAT, "not a sample image");
    // An image holds one kernel: the kit's module finds it by name.
    module = std::make_unique<SingleKernelModule<SampleKernel>>(
        *this, "fill_u32", *this);
    return Status::success();
  }

private:
  std::mutex mutex;
  /// Live allocations: address -> size.
  std::map<uintptr_t, uint64_t> live;
};

SampleBuffer::~SampleBuffer() {
  static_cast<SampleDevice &>(device()).forget(*this);
}

Status SampleKernel::launch(const LaunchRequest &request) {
  // fill_u32(u32* out, u32 value, i32 n) packed by the kernel ABI: out at 0,
  // value at 8, n at 12, 16 bytes in all. The kit's checks refuse a grid
  // with a zero dimension and short arguments in every backend's words.
  LaunchLimits limits;
  limits.packedArgsSize = 16;
  if (Status status = checkLaunch("fill_u32", request, limits); !status.ok())
    return status;
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
  HostStream::submit(request.stream,
                     [=] { std::fill(dst, dst + count, value); });
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

TEGULA_PLUGIN_ENTRY_POINT(SamplePlugin)
