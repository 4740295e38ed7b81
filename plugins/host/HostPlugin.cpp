//===- HostPlugin.cpp - The host CPU plugin -------------------------------===//
//
// `host`: the machine's own CPU as one device, `host:0`, written with the
// SDK's C++ kit (tegula/BackendKit/PluginBase.h, and HostQueues.h for host
// memory, streams and events); started from the SDK's sample plugin
// (sdk/examples/sample-plugin/).
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
//    points in them (record, wait, synchronize, elapsed time). A launch in a
//    stream that fails (a device_assert) reports its error at the stream's
//    next synchronize.
//  - Compile: tile bytecode -> LLVM dialect (middle/'s lowering with
//    HostTargetHooks) -> LLVM IR -> O3 for this CPU -> ELF object, in a host
//    image (HostCompiler.h, HostCodegen.h, HostImage.h).
//  - Module load: the object is linked in process by ORC's LLJIT, one JIT
//    per module (HostJIT.h).
//  - Launch: grid[0] * grid[1] * grid[2] programs on the device's thread
//    pool (HostLauncher.h), in the stream's queue or at once.
//
//===----------------------------------------------------------------------===//

#include "HostCompiler.h"
#include "HostImage.h"
#include "HostJIT.h"
#include "HostLauncher.h"

#include "tegula/BackendKit/DeviceSupport.h"
#include "tegula/BackendKit/HostQueues.h"
#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tegula::plugin;
using tegula::host::HostCode;
using tegula::host::ProgramPool;

namespace {

/// Alignment of every allocation: a cache line, and the widest vector
/// register (AVX-512) the code generator may use.
constexpr uint64_t kAlignment = HostBuffer::kAlignment;

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

//===-- The device and the plugin -----------------------------------------===//

/// A HostStream that also carries kernel launches, whose failures (a
/// device_assert) it reports at the next synchronize, as a GPU stream
/// reports an asynchronous error; the error is cleared once reported.
class HostKernelStream : public HostStream {
public:
  using HostStream::HostStream;
  ~HostKernelStream() override {
    // Queued launches record into this object: run them while it is whole.
    HostStream::synchronize();
  }

  /// Queues |launch| behind the stream's work.
  void enqueueLaunch(std::function<Status()> launch) {
    enqueue([this, launch = std::move(launch)] {
      Status status = launch();
      if (status.ok())
        return;
      std::lock_guard<std::mutex> lock(errorMutex);
      if (pending.ok())
        pending = std::move(status);
    });
  }

  /// Waits for the queued work; fails with the first launch failure since
  /// the last synchronize.
  Status synchronize() override {
    Status waited = HostStream::synchronize();
    if (!waited.ok())
      return waited;
    std::lock_guard<std::mutex> lock(errorMutex);
    Status failure = std::move(pending);
    pending = Status();
    return failure;
  }

private:
  std::mutex errorMutex;
  Status pending;
};

// Memory, streams and events: the SDK's host kit (HostQueues.h); kernels
// run on the device's ProgramPool.
class HostDevice : public HostMemoryDevice {
public:
  HostDevice(PluginBase &plugin, const std::string &deviceArch)
      : HostMemoryDevice(plugin, hostCpuName(deviceArch), deviceArch) {
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

  Status allocate(uint64_t size, std::unique_ptr<BufferBase> &buffer) override {
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

  Status createStream(std::unique_ptr<StreamBase> &stream) override {
    stream = std::make_unique<HostKernelStream>(*this);
    return Status::success();
  }

  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<ModuleBase> &module) override;

  /// The pool that runs this device's programs: compute_units threads,
  /// started at the first launch.
  ProgramPool &programPool() {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (!pool)
      pool = std::make_unique<ProgramPool>(props.compute_units);
    return *pool;
  }

private:
  std::mutex poolMutex;
  std::unique_ptr<ProgramPool> pool;
};

/// The one kernel of a loaded host image.
class HostKernel : public KernelBase {
public:
  HostKernel(ModuleBase &module, HostDevice &device,
             std::shared_ptr<HostCode> code)
      : KernelBase(module), device(device), code(std::move(code)) {}

  Status launch(const LaunchRequest &request) override {
    // The block shape has no meaning here: a program is one thread (or a
    // SIMT image's fixed number of them).
    LaunchLimits limits;
    limits.packedArgsSize = code->packedArgsSize();
    if (Status status = checkLaunch(code->kernelName(), request, limits);
        !status.ok())
      return status;
    uint64_t programs = 0;
    Status grid = tegula::host::checkGrid(request.grid, programs);
    if (!grid.ok())
      return grid;
    // The caller may free its arguments once this returns; the copy is also
    // 8-byte aligned, as the entry's loads assume.
    auto args = std::make_shared<std::vector<uint64_t>>(
        (request.packedArgsSize + 7) / 8);
    if (request.packedArgsSize)
      std::memcpy(args->data(), request.packedArgs, request.packedArgsSize);
    std::array<uint32_t, 3> shape = {request.grid[0], request.grid[1],
                                     request.grid[2]};
    // The launch holds the code and the device, not this kernel: unloading
    // the module while the launch waits in a stream frees the kernel (the
    // device outlives its streams and their work).
    std::function<Status()> run = [&device = device, code = code, args, shape] {
      return device.programPool().run(code->entry(), args->data(),
                                      shape.data(), code->scratchBytes(),
                                      code->simtThreads());
    };
    if (request.stream) {
      static_cast<HostKernelStream *>(request.stream)
          ->enqueueLaunch(std::move(run));
      return Status::success();
    }
    return run();
  }

private:
  HostDevice &device;
  std::shared_ptr<HostCode> code;
};

Status HostDevice::loadModule(const void *image, size_t size,
                              std::unique_ptr<ModuleBase> &module) {
  llvm::Expected<tegula::host::HostImage> decoded =
      tegula::backend::readImage<tegula::host::HostImage>(image, size);
  if (!decoded)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(decoded.takeError()));
  if (Status status = tegula::backend::checkImageTarget(
          *this, decoded->kernelName, decoded->target);
      !status.ok())
    return status;
  llvm::Expected<std::shared_ptr<HostCode>> code = HostCode::load(*decoded);
  if (!code)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(code.takeError()));
  module = std::make_unique<SingleKernelModule<HostKernel>>(
      *this, decoded->kernelName, *this, std::move(*code));
  return Status::success();
}

class HostPlugin : public PluginBase {
public:
  HostPlugin()
      : PluginBase({"host",
                    "0.1.0",
                    "the host CPU",
                    {hostArch()},
                    {{"llvm-ir", false, "the optimized LLVM IR"},
                     {"asm", false, "assembly for this CPU"},
                     {"object", true, "the relocatable ELF object"}},
                    {CompileOption::integer(
                         "num_warps", 1, 64, "", "",
                         "warps per program of the SIMT emulation (simt); "
                         "the kernel's tile.num_warps, else 1"),
                     CompileOption::integer(
                         "num_stages", 1, 8, "", "",
                         "accepted as Triton takes it; the host does not "
                         "pipeline loops"),
                     CompileOption::integer(
                         "simt", 0, 64, "0", "TEGULA_HOST_SIMT",
                         "0: a program is one thread; else the warp size "
                         "(a power of 2) of the SIMT emulation that runs "
                         "the GPU lowering on the CPU"),
                     CompileOption::integer(
                         "simt_shared_bytes", 0, UINT32_MAX, "0",
                         "TEGULA_HOST_SIMT_SHARED_BYTES",
                         "the shared memory a SIMT program may use (0: no "
                         "limit); a smaller one makes layout conversions "
                         "that exceed it go in chunks")}}) {}

  Status initialize(uint32_t, uint32_t) override {
    addDevice(std::make_unique<HostDevice>(*this, info().targets.front()));
    return Status::success();
  }

  Status compile(const CompileRequest &request,
                 std::unique_ptr<CompiledImage> &image) override {
    return tegula::host::compileTileBytecode(request, info().targets.front(),
                                             image);
  }
};

} // namespace

TEGULA_PLUGIN_ENTRY_POINT(HostPlugin)
