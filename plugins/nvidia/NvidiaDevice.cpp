//===- NvidiaDevice.cpp - Memory, streams, modules and launch on CUDA -----===//

#include "NvidiaDevice.h"

#include "NvidiaImage.h"

#include "tegula/BackendKit/LaunchCheck.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

using namespace tegula::nvidia;
using namespace tegula::plugin;

namespace {

/// A cuMemAlloc allocation.
class CudaBuffer : public BufferBase {
public:
  CudaBuffer(CudaDevice &device, uint64_t size, CUdeviceptr address)
      : BufferBase(device, size, address), owner(device) {}
  ~CudaBuffer() override {
    // A destructor cannot report failure; the driver keeps the memory of a
    // context it cannot make current.
    ContextScope scope(owner);
    if (scope.ok())
      owner.cu.cuMemFree(deviceAddress());
  }

private:
  CudaDevice &owner;
};

/// A CUDA stream, remembering which kernels it ran since it was last
/// synchronized so that an asynchronous failure can name them.
class CudaStream : public StreamBase {
public:
  /// |owned|: the stream was created for this object (else it wraps a
  /// caller's native stream, which stays).
  CudaStream(CudaDevice &device, CUstream handle, bool owned)
      : StreamBase(device), owner(device), handle(handle), owned(owned) {}
  ~CudaStream() override {
    if (!owned)
      return;
    ContextScope scope(owner);
    if (scope.ok())
      owner.cu.cuStreamDestroy(handle);
  }

  Status synchronize() override {
    ContextScope scope(owner);
    if (!scope.ok())
      return scope.status();
    CUresult result = owner.cu.cuStreamSynchronize(handle);
    std::string kernels = launches.take();
    if (result == CUDA_SUCCESS)
      return Status::success();
    std::string what = "stream synchronize";
    if (!kernels.empty())
      what += " (kernels launched in the stream since its last "
              "synchronize: " +
              kernels + ")";
    if (result == CUDA_ERROR_ASSERT)
      what += ": a device_assert failed (the device printed which one to "
              "its stdout; CUDA leaves the context unusable: restart the "
              "process)";
    return owner.failure(what, result);
  }

  Status waitEvent(EventBase &event) override;

  CudaDevice &owner;
  const CUstream handle;
  LaunchLog launches;

private:
  const bool owned;
};

class CudaEvent : public EventBase {
public:
  CudaEvent(CudaDevice &device, CUevent handle)
      : EventBase(device), owner(device), handle(handle) {}
  ~CudaEvent() override {
    ContextScope scope(owner);
    if (scope.ok())
      owner.cu.cuEventDestroy(handle);
  }

  Status record(StreamBase &stream) override {
    ContextScope scope(owner);
    if (!scope.ok())
      return scope.status();
    CUresult result = owner.cu.cuEventRecord(
        handle, static_cast<CudaStream &>(stream).handle);
    if (result != CUDA_SUCCESS)
      return owner.failure("event record", result);
    recorded = true;
    return Status::success();
  }

  Status synchronize() override {
    ContextScope scope(owner);
    if (!scope.ok())
      return scope.status();
    CUresult result = owner.cu.cuEventSynchronize(handle);
    if (result != CUDA_SUCCESS)
      return owner.failure("event synchronize", result);
    return Status::success();
  }

  Status elapsedSince(EventBase &startBase, float &milliseconds) override {
    auto &start = static_cast<CudaEvent &>(startBase);
    if (!recorded || !start.recorded)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    std::string("elapsed time: the ") +
                        (!start.recorded ? "start" : "end") +
                        " event was never recorded");
    ContextScope scope(owner);
    if (!scope.ok())
      return scope.status();
    // Both complete, as the ABI promises the caller waited for them; wait
    // rather than answer CUDA_ERROR_NOT_READY if it did not.
    CUresult result = owner.cu.cuEventSynchronize(handle);
    if (result == CUDA_SUCCESS)
      result = owner.cu.cuEventElapsedTime(&milliseconds, start.handle, handle);
    if (result != CUDA_SUCCESS)
      return owner.failure("event elapsed time", result);
    return Status::success();
  }

  CudaDevice &owner;
  const CUevent handle;

private:
  std::atomic<bool> recorded{false};
};

Status CudaStream::waitEvent(EventBase &event) {
  ContextScope scope(owner);
  if (!scope.ok())
    return scope.status();
  CUresult result = owner.cu.cuStreamWaitEvent(
      handle, static_cast<CudaEvent &>(event).handle, 0);
  if (result != CUDA_SUCCESS)
    return owner.failure("stream wait event", result);
  return Status::success();
}

CUstream streamHandle(StreamBase *stream) {
  return stream ? static_cast<CudaStream *>(stream)->handle : nullptr;
}

/// The one kernel of a loaded image.
class CudaKernel : public KernelBase {
public:
  CudaKernel(ModuleBase &module, CudaDevice &device, CUfunction function,
             NvidiaImage image, uint64_t sharedLimit)
      : KernelBase(module), device(device), function(function),
        name(image.kernelName), numWarps(image.numWarps),
        sharedBytes(image.sharedBytes), arguments(image.argSizes),
        sharedLimit(sharedLimit) {}

  Status launch(const LaunchRequest &request) override {
    // The code was generated for exactly num_warps x 32 threads along x.
    LaunchLimits limits;
    for (int d = 0; d < 3; ++d)
      limits.maxGrid[d] = device.maxGrid[d];
    limits.block[0] = numWarps * 32;
    limits.block[1] = limits.block[2] = 1;
    limits.blockDescription = std::to_string(numWarps) + " warps of 32";
    limits.packedArgsSize = arguments.packedSize();
    limits.sharedBytes = sharedBytes;
    limits.maxSharedBytes = device.maxSharedOptin;
    if (Status status = checkLaunch(name, request, limits); !status.ok())
      return status;
    uint64_t shared = sharedBytes + request.dynamicSharedMemory;

    // cuLaunchKernel copies the values the pointers point to.
    std::vector<uint64_t> storage;
    std::vector<void *> params =
        arguments.pointers(request.packedArgs, storage);

    ContextScope scope(device);
    if (!scope.ok())
      return scope.status();
    if (shared > kDefaultSharedMemoryLimit) {
      std::lock_guard<std::mutex> lock(attributeMutex);
      if (shared > sharedLimit) {
        CUresult result = device.cu.cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(shared));
        if (result != CUDA_SUCCESS)
          return device.failure("kernel " + name + ": allowing " +
                                    std::to_string(shared) +
                                    " bytes of dynamic shared memory",
                                result);
        sharedLimit = shared;
      }
    }
    CUstream stream = streamHandle(request.stream);
    CUresult result = device.cu.cuLaunchKernel(
        function, request.grid[0], request.grid[1], request.grid[2],
        request.block[0], request.block[1], request.block[2],
        static_cast<unsigned>(shared), stream,
        params.empty() ? nullptr : params.data(), nullptr);
    if (result != CUDA_SUCCESS)
      return device.failure("launching kernel " + name, result);
    if (request.stream) {
      static_cast<CudaStream *>(request.stream)->launches.note(name);
      return Status::success();
    }
    result = device.cu.cuStreamSynchronize(nullptr);
    if (result == CUDA_ERROR_ASSERT)
      return device.failure(
          "kernel " + name +
              ": a device_assert failed (the device printed which one to "
              "its stdout; CUDA leaves the context unusable: restart the "
              "process)",
          result);
    if (result != CUDA_SUCCESS)
      return device.failure("kernel " + name + " failed", result);
    return Status::success();
  }

private:
  CudaDevice &device;
  CUfunction function;
  std::string name;
  uint32_t numWarps;
  uint64_t sharedBytes;
  KernelArguments arguments;
  std::mutex attributeMutex;
  /// The dynamic shared memory the function is allowed so far.
  uint64_t sharedLimit;
};

class CudaModule : public ModuleBase {
public:
  CudaModule(CudaDevice &device, CUmodule handle, CUfunction function,
             NvidiaImage image, uint64_t sharedLimit)
      : ModuleBase(device), owner(device), handle(handle),
        kernelName(image.kernelName),
        kernel(*this, device, function, std::move(image), sharedLimit) {}
  ~CudaModule() override {
    ContextScope scope(owner);
    if (scope.ok())
      owner.cu.cuModuleUnload(handle);
  }

  Status getKernel(const std::string &name, KernelBase *&out) override {
    if (name != kernelName)
      return Status(TG_ERROR_NOT_FOUND, "no kernel '" + name +
                                            "' in the module (it holds '" +
                                            kernelName + "')");
    out = &kernel;
    return Status::success();
  }

private:
  CudaDevice &owner;
  CUmodule handle;
  std::string kernelName;
  CudaKernel kernel;
};

/// "sm_90a" -> 90, "sm_90" -> 90; 0 for anything else.
unsigned smOf(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return 0;
  unsigned value = 0;
  size_t i = 3;
  for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i)
    value = value * 10 + unsigned(arch[i] - '0');
  if (i == 3 || value > 999 || (i != arch.size() && arch.substr(i) != "a"))
    return 0;
  return value;
}

/// The first line of a JIT log, trimmed.
std::string firstLogLines(const char *log) {
  std::string text(log);
  while (!text.empty() &&
         (text.back() == '\n' || text.back() == ' ' || text.back() == '\0'))
    text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > 600)
    text = text.substr(0, 600) + " ...";
  return text;
}

} // namespace

//===-- ContextScope
//-------------------------------------------------------===//

ContextScope::ContextScope(CudaDevice &device) : device(device) {
  CUcontext context = device.context(result);
  if (!context)
    return;
  CUresult got = device.cu.cuCtxGetCurrent(&previous);
  if (got == CUDA_SUCCESS && previous == context)
    return;
  CUresult set = device.cu.cuCtxSetCurrent(context);
  if (set != CUDA_SUCCESS) {
    result = device.failure("making the device's CUDA context current", set);
    return;
  }
  // A thread without a context keeps ours: later calls then skip the switch.
  restore = got == CUDA_SUCCESS && previous != nullptr;
}

ContextScope::~ContextScope() {
  if (restore)
    device.cu.cuCtxSetCurrent(previous);
}

//===-- CudaDevice
//---------------------------------------------------------===//

CudaDevice::CudaDevice(plugin::PluginBase &plugin, const CudaDriver &driver,
                       CUdevice handle, std::string name, std::string arch)
    : PropertiesDevice(plugin, std::move(name), std::move(arch)), cu(driver),
      handle(handle) {}

CudaDevice::~CudaDevice() {
  if (primary)
    cu.cuDevicePrimaryCtxRelease(handle);
}

CUcontext CudaDevice::context(Status &status) {
  std::lock_guard<std::mutex> lock(contextMutex);
  if (!contextTried) {
    contextTried = true;
    CUresult result = cu.cuDevicePrimaryCtxRetain(&primary, handle);
    if (result != CUDA_SUCCESS) {
      primary = nullptr;
      contextFailure = failure(
          "retaining the primary CUDA context of " + this->name, result);
    }
  }
  if (!primary)
    status = contextFailure;
  return primary;
}

Status CudaDevice::failure(const std::string &what, CUresult result) const {
  return Status(toErrorCode(result), what + ": " + cu.describe(result));
}

Status CudaDevice::finish(StreamBase *stream, const std::string &what) {
  if (stream)
    return Status::success();
  CUresult result = cu.cuStreamSynchronize(nullptr);
  if (result != CUDA_SUCCESS)
    return failure(what + " (waiting for the default stream)", result);
  return Status::success();
}

Status CudaDevice::allocate(uint64_t size,
                            std::unique_ptr<BufferBase> &buffer) {
  if (props.global_memory && size > props.global_memory)
    return Status(TG_ERROR_OUT_OF_MEMORY,
                  "cannot allocate " + std::to_string(size) +
                      " bytes: " + name + " has " +
                      std::to_string(props.global_memory) + " bytes of memory");
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  // cuMemAlloc refuses 0 bytes; a zero-sized buffer still gets an address.
  CUdeviceptr address = 0;
  CUresult result = cu.cuMemAlloc(&address, std::max<uint64_t>(size, 1));
  if (result != CUDA_SUCCESS)
    return failure("cannot allocate " + std::to_string(size) + " bytes",
                   result);
  buffer = std::make_unique<CudaBuffer>(*this, size, address);
  return Status::success();
}

Status CudaDevice::transfer(const char *what, uint64_t size, StreamBase *stream,
                            llvm::function_ref<CUresult(CUstream)> enqueue) {
  if (size == 0)
    return Status::success();
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUresult result = enqueue(streamHandle(stream));
  if (result != CUDA_SUCCESS)
    return failure(std::string(what) + " of " + std::to_string(size) + " bytes",
                   result);
  return finish(stream, what);
}

Status CudaDevice::write(BufferBase &dst, uint64_t dstOffset, const void *src,
                         uint64_t size, StreamBase *stream) {
  return transfer("buffer write", size, stream, [&](CUstream s) {
    return cu.cuMemcpyHtoDAsync(dst.deviceAddress() + dstOffset, src, size, s);
  });
}

Status CudaDevice::read(void *dst, BufferBase &src, uint64_t srcOffset,
                        uint64_t size, StreamBase *stream) {
  return transfer("buffer read", size, stream, [&](CUstream s) {
    return cu.cuMemcpyDtoHAsync(dst, src.deviceAddress() + srcOffset, size, s);
  });
}

Status CudaDevice::copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
                        uint64_t srcOffset, uint64_t size, StreamBase *stream) {
  return transfer("buffer copy", size, stream, [&](CUstream s) {
    return cu.cuMemcpyDtoDAsync(dst.deviceAddress() + dstOffset,
                                src.deviceAddress() + srcOffset, size, s);
  });
}

Status CudaDevice::memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                          uint8_t value, StreamBase *stream) {
  return transfer("buffer memset", size, stream, [&](CUstream s) {
    return cu.cuMemsetD8Async(buffer.deviceAddress() + offset, value, size, s);
  });
}

Status CudaDevice::createStream(std::unique_ptr<StreamBase> &stream) {
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUstream handle = nullptr;
  // CU_STREAM_DEFAULT: ordered with the legacy default stream, which the
  // NULL-stream operations use.
  CUresult result = cu.cuStreamCreate(&handle, 0);
  if (result != CUDA_SUCCESS)
    return failure("stream create", result);
  stream = std::make_unique<CudaStream>(*this, handle, /*owned=*/true);
  return Status::success();
}

Status CudaDevice::wrapNativeStream(uint64_t native,
                                    std::unique_ptr<StreamBase> &stream) {
  auto handle = reinterpret_cast<CUstream>(static_cast<uintptr_t>(native));
  // 0, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD belong to whichever context
  // is current: ours, during every call.
  if (native > 2 && cu.cuStreamGetCtx) {
    ContextScope scope(*this);
    if (!scope.ok())
      return scope.status();
    Status status;
    CUcontext ours = context(status);
    CUcontext its = nullptr;
    CUresult result = cu.cuStreamGetCtx(handle, &its);
    if (result != CUDA_SUCCESS)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "the native stream " + std::to_string(native) +
                        " is not a CUDA stream of " + name + ": " +
                        cu.describe(result));
    if (its != ours)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "the native stream " + std::to_string(native) +
                        " belongs to another CUDA context than " + name +
                        "'s primary context");
  }
  stream = std::make_unique<CudaStream>(*this, handle, /*owned=*/false);
  return Status::success();
}

Status CudaDevice::createEvent(std::unique_ptr<EventBase> &event) {
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUevent handle = nullptr;
  CUresult result = cu.cuEventCreate(&handle, 0); // CU_EVENT_DEFAULT: timed
  if (result != CUDA_SUCCESS)
    return failure("event create", result);
  event = std::make_unique<CudaEvent>(*this, handle);
  return Status::success();
}

Status CudaDevice::loadModule(const void *data, size_t size,
                              std::unique_ptr<ModuleBase> &module) {
  llvm::Expected<NvidiaImage> decoded =
      tegula::backend::readImage<tegula::nvidia::NvidiaImage>(data, size);
  if (!decoded)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(decoded.takeError()));
  NvidiaImage &image = *decoded;

  // The cubin runs on the arch it was made for (sm_90a code on sm_90);
  // PTX of an older arch without arch-specific features is compiled for
  // this one by the driver.
  const std::string target = "nvidia:" + arch;
  unsigned deviceSm = smOf(arch), imageSm = smOf(image.arch);
  bool sameArch = image.arch == arch || image.arch == arch + "a";
  bool ptxCompatible =
      imageSm && imageSm <= deviceSm && image.arch.back() != 'a';
  if (!sameArch && !ptxCompatible)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "the image of kernel " + image.kernelName + " is for " +
                      image.target + " (" + image.arch +
                      " code), this device is " + target);
  if (image.sharedBytes > maxSharedOptin)
    return Status(TG_ERROR_OUT_OF_RANGE,
                  "kernel " + image.kernelName + " needs " +
                      std::to_string(image.sharedBytes) +
                      " bytes of shared memory per block; " + name +
                      " allows " + std::to_string(maxSharedOptin));

  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUmodule handle = nullptr;
  CUresult result = CUDA_SUCCESS;
  std::string how;
  if (sameArch && !image.cubin.empty()) {
    result =
        cu.cuModuleLoadDataEx(&handle, image.cubin.data(), 0, nullptr, nullptr);
    how = "loading the cubin of kernel " + image.kernelName;
  }
  if (!handle) {
    // The driver compiles the PTX (NUL-terminated) and says why it cannot.
    std::string ptx = image.ptx;
    char errorLog[4096] = {};
    CUjitOption keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {
        errorLog, reinterpret_cast<void *>(uintptr_t(sizeof(errorLog) - 1))};
    CUresult ptxResult =
        cu.cuModuleLoadDataEx(&handle, ptx.c_str(), 2, keys, values);
    if (ptxResult != CUDA_SUCCESS) {
      std::string what =
          (how.empty() ? "" : how + " failed (" + cu.describe(result) + "), ") +
          "compiling the PTX of kernel " + image.kernelName + " for " + arch;
      std::string log = firstLogLines(errorLog);
      if (!log.empty())
        what += " (" + log + ")";
      return failure(what, ptxResult);
    }
  }

  CUfunction function = nullptr;
  result = cu.cuModuleGetFunction(&function, handle, image.kernelName.c_str());
  if (result != CUDA_SUCCESS) {
    cu.cuModuleUnload(handle);
    return failure("the module of kernel " + image.kernelName +
                       " has no function of that name",
                   result);
  }
  uint64_t sharedLimit = kDefaultSharedMemoryLimit;
  if (image.sharedBytes > kDefaultSharedMemoryLimit) {
    result = cu.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(image.sharedBytes));
    if (result != CUDA_SUCCESS) {
      cu.cuModuleUnload(handle);
      return failure("kernel " + image.kernelName + ": allowing " +
                         std::to_string(image.sharedBytes) +
                         " bytes of dynamic shared memory",
                     result);
    }
    sharedLimit = image.sharedBytes;
  }
  module = std::make_unique<CudaModule>(*this, handle, function,
                                        std::move(image), sharedLimit);
  return Status::success();
}
