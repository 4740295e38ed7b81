//===- FakeHip.cpp - A recording test double of libamdhip64 ---------------===//
//
// libtegula_fake_hip.so: the HIP entry points the amd plugin resolves
// (plugins/amd/AmdDevice.h), faking one gfx942 device, so that the plugin's
// device runtime is exercised where there is no AMD GPU, through
// TEGULA_AMD_HIP_LIBRARY. Memory is host memory and copies happen at once;
// kernels do not run: a launch is only recorded. Every call is logged, one
// line each with its arguments, for the test to read:
//
//   const char *tegulaFakeHipLog();              the log so far
//   void tegulaFakeHipClearLog();
//   void tegulaFakeHipFailNext(const char *call, int error);
//       the next call of that entry point returns |error|
//   void tegulaFakeHipSetArgumentSizes(const uint32_t *sizes, size_t n);
//       the bytes of each kernelParams argument the next launches log
//
//===----------------------------------------------------------------------===//

#include <hip/hip_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

/// The faked device's memory, as an MI300X's.
constexpr size_t kGlobalMemory = size_t(192) << 30;

std::mutex mutex;
std::string callLog;
std::map<std::string, hipError_t> failures;
std::vector<uint32_t> argumentSizes;
int currentDevice = 0;
/// Handles are numbered (stream#1, event#2, ...) so the log is readable.
int nextHandle = 1;
std::map<uintptr_t, std::string> handleNames;
std::map<uintptr_t, double> eventTimes;
/// The code objects loaded, for hipModuleGetFunction to look names up in.
std::map<uintptr_t, std::string> modules;

/// Logs |line| and answers the failure asked for |call|, if any.
hipError_t logged(const char *call, const std::string &line) {
  callLog += std::string(call) + "(" + line + ")\n";
  auto failure = failures.find(call);
  if (failure == failures.end())
    return hipSuccess;
  hipError_t error = failure->second;
  failures.erase(failure);
  callLog += "  -> " + std::to_string(static_cast<int>(error)) + "\n";
  return error;
}

std::string pointer(const void *p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return p ? text : "null";
}

/// A stream, event, module or function handle: "stream#1", "null".
std::string handle(const void *p) {
  if (!p)
    return "null";
  auto named = handleNames.find(reinterpret_cast<uintptr_t>(p));
  return named == handleNames.end() ? "unknown:" + pointer(p) : named->second;
}

template <typename T> T *makeHandle(const std::string &kind) {
  auto *p = reinterpret_cast<T *>(static_cast<uintptr_t>(0x1000 * nextHandle));
  handleNames[reinterpret_cast<uintptr_t>(p)] =
      kind + "#" + std::to_string(nextHandle++);
  return p;
}

std::string hex(const void *data, size_t size) {
  std::string text;
  char byte[3];
  for (size_t i = 0; i < size; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x",
                  static_cast<const unsigned char *>(data)[i]);
    text += byte;
  }
  return text;
}

std::string sized(size_t n) { return std::to_string(n); }

/// The size of the ELF file at |image|: its section headers come last in
/// what lld writes. 0 when |image| is not a 64-bit ELF file.
size_t elfSize(const void *image) {
  const auto *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      bytes[4] != 2)
    return 0;
  uint64_t shoff;
  uint16_t shentsize, shnum;
  std::memcpy(&shoff, bytes + 0x28, 8);
  std::memcpy(&shentsize, bytes + 0x3a, 2);
  std::memcpy(&shnum, bytes + 0x3c, 2);
  return shoff + size_t(shentsize) * shnum;
}

double nowMilliseconds() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

#define FAKE_LOCK std::lock_guard<std::mutex> lock(mutex)

extern "C" {

const char *tegulaFakeHipLog() {
  FAKE_LOCK;
  // Stays valid until the next call of the double.
  static std::string copy;
  copy = callLog;
  return copy.c_str();
}

void tegulaFakeHipClearLog() {
  FAKE_LOCK;
  callLog.clear();
}

void tegulaFakeHipFailNext(const char *call, int error) {
  FAKE_LOCK;
  failures[call] = static_cast<hipError_t>(error);
}

void tegulaFakeHipSetArgumentSizes(const uint32_t *sizes, size_t n) {
  FAKE_LOCK;
  argumentSizes.assign(sizes, sizes + n);
}

const char *hipGetErrorName(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorLaunchFailure:
    return "hipErrorLaunchFailure";
  default:
    return "hipErrorUnknown";
  }
}

const char *hipGetErrorString(hipError_t error) {
  return error == hipSuccess ? "no error" : "a failure the test asked for";
}

hipError_t hipInit(unsigned int flags) {
  FAKE_LOCK;
  return logged("hipInit", std::to_string(flags));
}

hipError_t hipGetDeviceCount(int *count) {
  FAKE_LOCK;
  *count = 1;
  return logged("hipGetDeviceCount", "");
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *props, int device) {
  FAKE_LOCK;
  if (device != 0)
    return hipErrorInvalidDevice;
  std::memset(props, 0, sizeof(*props));
  std::strcpy(props->name, "Fake AMD Instinct MI300X");
  std::strcpy(props->gcnArchName, "gfx942:sramecc+:xnack-");
  props->gcnArch = 942;
  props->warpSize = 64;
  props->multiProcessorCount = 304;
  props->maxThreadsPerBlock = 1024;
  props->sharedMemPerBlock = 64 * 1024;
  props->totalGlobalMem = kGlobalMemory;
  props->clockRate = 2100000;
  props->memoryClockRate = 1300000;
  props->maxGridSize[0] = 0x7fffffff;
  props->maxGridSize[1] = props->maxGridSize[2] = 65535;
  return logged("hipGetDeviceProperties", std::to_string(device));
}

hipError_t hipGetDevice(int *device) {
  FAKE_LOCK;
  *device = currentDevice;
  return hipSuccess; // asked before every call: not logged
}

hipError_t hipSetDevice(int device) {
  FAKE_LOCK;
  if (device != 0)
    return hipErrorInvalidDevice;
  currentDevice = device;
  return logged("hipSetDevice", std::to_string(device));
}

hipError_t hipMalloc(void **ptr, size_t size) {
  FAKE_LOCK;
  hipError_t error = logged("hipMalloc", sized(size));
  if (error != hipSuccess)
    return error;
  // More than the faked device's memory fails as on a device.
  *ptr = size <= kGlobalMemory ? std::calloc(1, size) : nullptr;
  return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipFree(void *ptr) {
  FAKE_LOCK;
  hipError_t error = logged("hipFree", pointer(ptr));
  if (error == hipSuccess)
    std::free(ptr);
  return error;
}

/// A copy, done at once whatever the stream.
static hipError_t copied(const char *call, void *dst, const void *src,
                         size_t size, hipStream_t stream) {
  FAKE_LOCK;
  hipError_t error = logged(call, pointer(dst) + ", " + pointer(src) + ", " +
                                      sized(size) + ", " + handle(stream));
  if (error == hipSuccess)
    std::memmove(dst, src, size);
  return error;
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t size,
                              hipStream_t stream) {
  return copied("hipMemcpyHtoDAsync", dst, src, size, stream);
}

hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t size,
                              hipStream_t stream) {
  return copied("hipMemcpyDtoHAsync", dst, src, size, stream);
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src,
                              size_t size, hipStream_t stream) {
  return copied("hipMemcpyDtoDAsync", dst, src, size, stream);
}

hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value,
                            size_t count, hipStream_t stream) {
  FAKE_LOCK;
  hipError_t error = logged("hipMemsetD8Async",
                            pointer(dst) + ", " + std::to_string(value) + ", " +
                                sized(count) + ", " + handle(stream));
  if (error == hipSuccess)
    std::memset(dst, value, count);
  return error;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags) {
  FAKE_LOCK;
  hipError_t error = logged("hipStreamCreateWithFlags", std::to_string(flags));
  if (error == hipSuccess) {
    *stream = makeHandle<ihipStream_t>("stream");
    callLog += "  -> " + handle(*stream) + "\n";
  }
  return error;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  FAKE_LOCK;
  return logged("hipStreamDestroy", handle(stream));
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  FAKE_LOCK;
  return logged("hipStreamSynchronize", handle(stream));
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                              unsigned int flags) {
  FAKE_LOCK;
  return logged("hipStreamWaitEvent", handle(stream) + ", " + handle(event) +
                                          ", " + std::to_string(flags));
}

hipError_t hipEventCreate(hipEvent_t *event) {
  FAKE_LOCK;
  hipError_t error = logged("hipEventCreate", "");
  if (error == hipSuccess) {
    *event = makeHandle<ihipEvent_t>("event");
    callLog += "  -> " + handle(*event) + "\n";
  }
  return error;
}

hipError_t hipEventDestroy(hipEvent_t event) {
  FAKE_LOCK;
  return logged("hipEventDestroy", handle(event));
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  FAKE_LOCK;
  eventTimes[reinterpret_cast<uintptr_t>(event)] = nowMilliseconds();
  return logged("hipEventRecord", handle(event) + ", " + handle(stream));
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  FAKE_LOCK;
  return logged("hipEventSynchronize", handle(event));
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop) {
  FAKE_LOCK;
  hipError_t error =
      logged("hipEventElapsedTime", handle(start) + ", " + handle(stop));
  auto from = eventTimes.find(reinterpret_cast<uintptr_t>(start));
  auto to = eventTimes.find(reinterpret_cast<uintptr_t>(stop));
  if (error == hipSuccess &&
      (from == eventTimes.end() || to == eventTimes.end()))
    return hipErrorInvalidHandle;
  if (error == hipSuccess)
    *ms = static_cast<float>(to->second - from->second);
  return error;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  FAKE_LOCK;
  size_t size = elfSize(image);
  hipError_t error =
      logged("hipModuleLoadData",
             "first bytes " + hex(image, 4) + ", " + "ELF size " + sized(size));
  if (error != hipSuccess)
    return error;
  if (size == 0)
    return hipErrorInvalidImage;
  *module = makeHandle<ihipModule_t>("module");
  modules[reinterpret_cast<uintptr_t>(*module)] =
      std::string(static_cast<const char *>(image), size);
  callLog += "  -> " + handle(*module) + "\n";
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
  FAKE_LOCK;
  modules.erase(reinterpret_cast<uintptr_t>(module));
  return logged("hipModuleUnload", handle(module));
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name) {
  FAKE_LOCK;
  hipError_t error =
      logged("hipModuleGetFunction", handle(module) + ", " + name);
  if (error != hipSuccess)
    return error;
  // A kernel of a code object has a symbol <name>.kd, its descriptor.
  auto found = modules.find(reinterpret_cast<uintptr_t>(module));
  std::string symbol = std::string(name) + ".kd";
  if (found == modules.end() ||
      found->second.find(symbol + '\0') == std::string::npos)
    return hipErrorNotFound;
  *function = makeHandle<ihipModuleSymbol_t>(std::string("function ") + name);
  callLog += "  -> " + handle(*function) + "\n";
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridX,
                                 unsigned int gridY, unsigned int gridZ,
                                 unsigned int blockX, unsigned int blockY,
                                 unsigned int blockZ, unsigned int sharedMem,
                                 hipStream_t stream, void **kernelParams,
                                 void **extra) {
  FAKE_LOCK;
  std::string args;
  for (size_t i = 0; kernelParams && i < argumentSizes.size(); ++i)
    args += (i ? ", " : "") + hex(kernelParams[i], argumentSizes[i]);
  auto three = [](unsigned x, unsigned y, unsigned z) {
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
           std::to_string(z) + ")";
  };
  return logged("hipModuleLaunchKernel",
                handle(f) + ", grid " + three(gridX, gridY, gridZ) +
                    ", block " + three(blockX, blockY, blockZ) +
                    ", sharedMem " + std::to_string(sharedMem) + ", stream " +
                    handle(stream) + ", args [" + args + "], extra " +
                    pointer(extra));
}

} // extern "C"
