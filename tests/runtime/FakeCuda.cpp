//===- FakeCuda.cpp - A recording test double of libcuda, several GPUs ----===//
//
// libtegula_fake_cuda.so: the CUDA driver entry points the nvidia plugin
// resolves (plugins/nvidia/CudaDriver.h), faking TEGULA_FAKE_CUDA_DEVICES
// GPUs (default 2) of compute capability 9.0, so that the plugin's
// per-device paths (primary contexts, memory, streams, module loads,
// launches) are exercised where there is no GPU, through
// TEGULA_CUDA_DRIVER_LIBRARY. It is strict where a real driver is strict
// about contexts and stricter where CUDA's unified addressing would hide a
// mistake: memory, streams, events and modules belong to the device whose
// primary context was current when they were made, and using one while
// another device's context (or none) is current fails, as does launching
// into a stream of another context. Memory is host memory, copies happen at
// once, kernels do not run: a launch is only recorded. Calls that touch a
// device are logged one line each, "<call>(device=<n>...)", for the test:
//
//   const char *tegulaFakeCudaLog();      the log so far
//   void tegulaFakeCudaClearLog();
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

struct Context {
  int device;
  int retains = 0;
};
struct Stream {
  int device;
};
struct Event {
  int device;
};
struct Module {
  int device;
};
struct Function {
  int device;
  std::string name;
};

std::mutex mutex;
std::string callLog;
std::map<int, Context *> contexts;
/// Allocations: address -> (device, size).
std::map<uintptr_t, std::pair<int, size_t>> allocations;
thread_local Context *current = nullptr;

int deviceCount() {
  const char *text = std::getenv("TEGULA_FAKE_CUDA_DEVICES");
  return text && *text ? std::atoi(text) : 2;
}

void log(const std::string &line) {
  std::lock_guard<std::mutex> lock(mutex);
  callLog += line + "\n";
}

/// The current context's device, or -1 (then the caller answers
/// CUDA_ERROR_INVALID_CONTEXT).
int currentDevice() { return current ? current->device : -1; }

/// The device of the allocation holding [address, address + size), or -1.
int deviceOf(CUdeviceptr address, size_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(static_cast<uintptr_t>(address));
  if (it == allocations.begin())
    return -1;
  --it;
  uintptr_t offset = address - it->first;
  if (offset > it->second.second || size > it->second.second - offset)
    return -1;
  return it->second.first;
}

/// CUDA_SUCCESS when |stream| (null: the current context's) may be used in
/// the current context.
CUresult checkStream(void *stream) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  uintptr_t value = reinterpret_cast<uintptr_t>(stream);
  if (value <= 2) // 0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
    return CUDA_SUCCESS;
  return static_cast<Stream *>(stream)->device == current->device
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}

/// A copy's device pointer must be memory of the current context's device.
CUresult checkMemory(CUdeviceptr address, size_t size) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  return deviceOf(address, size) == current->device ? CUDA_SUCCESS
                                                    : CUDA_ERROR_INVALID_VALUE;
}

std::string dev() { return "device=" + std::to_string(currentDevice()); }

} // namespace

extern "C" {

__attribute__((visibility("default"))) const char *tegulaFakeCudaLog() {
  static std::string copy;
  std::lock_guard<std::mutex> lock(mutex);
  copy = callLog;
  return copy.c_str();
}

__attribute__((visibility("default"))) void tegulaFakeCudaClearLog() {
  std::lock_guard<std::mutex> lock(mutex);
  callLog.clear();
}

#define FAKE __attribute__((visibility("default"))) CUresult

FAKE cuGetErrorName(CUresult result, const char **name) {
  switch (result) {
  case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_INVALID_DEVICE: *name = "CUDA_ERROR_INVALID_DEVICE"; break;
  case CUDA_ERROR_INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; break;
  case CUDA_ERROR_INVALID_HANDLE: *name = "CUDA_ERROR_INVALID_HANDLE"; break;
  case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
FAKE cuGetErrorString(CUresult result, const char **text) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  *text = "faked";
  return CUDA_SUCCESS;
}

FAKE cuInit(unsigned) { return CUDA_SUCCESS; }
FAKE cuDeviceGetCount(int *count) {
  *count = deviceCount();
  return CUDA_SUCCESS;
}
FAKE cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
FAKE cuDeviceGetName(char *name, int size, CUdevice device) {
  std::string text = "Fake GPU " + std::to_string(device);
  std::strncpy(name, text.c_str(), size);
  return CUDA_SUCCESS;
}
FAKE cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  if (device < 0 || device >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case 1: *value = 1024; break;                   // max threads per block
  case 5: *value = 2147483647; break;             // max grid x
  case 6: case 7: *value = 65535; break;          // max grid y, z
  case 8: *value = 48 * 1024; break;              // shared memory per block
  case 10: *value = 32; break;                    // warp size
  case 13: *value = 1980000; break;               // clock
  case 16: *value = 132; break;                   // SMs
  case 36: *value = 3201000; break;               // memory clock
  case 75: *value = 9; break;                     // compute capability
  case 76: *value = 0; break;
  case 97: *value = 227 * 1024; break;            // opt-in shared memory
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
FAKE cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}

FAKE cuDevicePrimaryCtxRetain(void **context, CUdevice device) {
  if (device < 0 || device >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  {
    std::lock_guard<std::mutex> lock(mutex);
    Context *&c = contexts[device];
    if (!c)
      c = new Context{device};
    ++c->retains;
    *context = c;
  }
  log("cuDevicePrimaryCtxRetain(device=" + std::to_string(device) + ")");
  return CUDA_SUCCESS;
}
FAKE cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = contexts.find(device);
  if (it == contexts.end() || it->second->retains == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --it->second->retains;
  return CUDA_SUCCESS;
}
FAKE cuCtxGetCurrent(void **context) {
  *context = current;
  return CUDA_SUCCESS;
}
FAKE cuCtxSetCurrent(void *context) {
  current = static_cast<Context *>(context);
  return CUDA_SUCCESS;
}

FAKE cuMemAlloc_v2(CUdeviceptr *address, size_t size) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  void *memory = std::calloc(size, 1);
  {
    std::lock_guard<std::mutex> lock(mutex);
    allocations[reinterpret_cast<uintptr_t>(memory)] = {current->device, size};
  }
  *address = reinterpret_cast<uintptr_t>(memory);
  log("cuMemAlloc(" + dev() + ", " + std::to_string(size) + ")");
  return CUDA_SUCCESS;
}
FAKE cuMemFree_v2(CUdeviceptr address) {
  if (CUresult r = checkMemory(address, 0))
    return r;
  {
    std::lock_guard<std::mutex> lock(mutex);
    allocations.erase(static_cast<uintptr_t>(address));
  }
  std::free(reinterpret_cast<void *>(address));
  log("cuMemFree(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t size,
                          void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  if (CUresult r = checkMemory(dst, size))
    return r;
  std::memcpy(reinterpret_cast<void *>(dst), src, size);
  log("cuMemcpyHtoDAsync(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t size,
                          void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  if (CUresult r = checkMemory(src, size))
    return r;
  std::memcpy(dst, reinterpret_cast<void *>(src), size);
  log("cuMemcpyDtoHAsync(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t size,
                          void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  if (deviceOf(dst, size) < 0 || deviceOf(src, size) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
               size);
  log("cuMemcpyDtoDAsync(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t size,
                     void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  if (CUresult r = checkMemory(dst, size))
    return r;
  std::memset(reinterpret_cast<void *>(dst), value, size);
  log("cuMemsetD8Async(" + dev() + ")");
  return CUDA_SUCCESS;
}

FAKE cuStreamCreate(void **stream, unsigned) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *stream = new Stream{current->device};
  log("cuStreamCreate(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuStreamDestroy_v2(void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  delete static_cast<Stream *>(stream);
  return CUDA_SUCCESS;
}
FAKE cuStreamSynchronize(void *stream) { return checkStream(stream); }
FAKE cuStreamGetCtx(void *stream, void **context) {
  uintptr_t value = reinterpret_cast<uintptr_t>(stream);
  if (value <= 2) {
    *context = current;
    return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto it = contexts.find(static_cast<Stream *>(stream)->device);
  if (it == contexts.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *context = it->second;
  return CUDA_SUCCESS;
}
FAKE cuStreamWaitEvent(void *stream, void *event, unsigned) {
  if (CUresult r = checkStream(stream))
    return r;
  (void)event; // CUDA lets a stream wait for another device's event
  return CUDA_SUCCESS;
}

FAKE cuEventCreate(void **event, unsigned) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *event = new Event{current->device};
  return CUDA_SUCCESS;
}
FAKE cuEventDestroy_v2(void *event) {
  delete static_cast<Event *>(event);
  return CUDA_SUCCESS;
}
FAKE cuEventRecord(void *event, void *stream) {
  if (CUresult r = checkStream(stream))
    return r;
  return static_cast<Event *>(event)->device == current->device
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}
FAKE cuEventSynchronize(void *) { return CUDA_SUCCESS; }
FAKE cuEventElapsedTime(float *milliseconds, void *, void *) {
  *milliseconds = 0.5f;
  return CUDA_SUCCESS;
}

FAKE cuModuleLoadDataEx(void **module, const void *, unsigned, void *,
                        void **) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *module = new Module{current->device};
  log("cuModuleLoadDataEx(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuModuleUnload(void *module) {
  if (!current || static_cast<Module *>(module)->device != current->device)
    return CUDA_ERROR_INVALID_CONTEXT;
  delete static_cast<Module *>(module);
  log("cuModuleUnload(" + dev() + ")");
  return CUDA_SUCCESS;
}
FAKE cuModuleGetFunction(void **function, void *module, const char *name) {
  if (!current || static_cast<Module *>(module)->device != current->device)
    return CUDA_ERROR_INVALID_CONTEXT;
  // Kept for the life of the process, as a module's functions are for its.
  *function = new Function{current->device, name};
  return CUDA_SUCCESS;
}
FAKE cuFuncSetAttribute(void *function, int, int) {
  if (!current || static_cast<Function *>(function)->device != current->device)
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}
FAKE cuFuncGetAttribute(int *value, int attribute, void *function) {
  if (!current || static_cast<Function *>(function)->device != current->device)
    return CUDA_ERROR_INVALID_CONTEXT;
  // What an sm_90 kernel of 128 threads without spills reports: the most
  // threads a block may have (0), its registers (4); no static shared (1)
  // or local (3) memory.
  *value = attribute == 0 ? 1024 : attribute == 4 ? 32 : 0;
  return CUDA_SUCCESS;
}
FAKE cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                    unsigned, unsigned, unsigned, unsigned, void *stream,
                    void **, void **) {
  if (CUresult r = checkStream(stream))
    return r;
  auto *f = static_cast<Function *>(function);
  if (f->device != current->device)
    return CUDA_ERROR_INVALID_HANDLE;
  log("cuLaunchKernel(" + dev() + ", " + f->name + ", grid " +
      std::to_string(gx) + "x" + std::to_string(gy) + "x" +
      std::to_string(gz) +
      (reinterpret_cast<uintptr_t>(stream) > 2 ? ", own stream" : "") + ")");
  return CUDA_SUCCESS;
}

} // extern "C"
