//===- NvidiaDevice.cpp - Memory, streams, modules and launch on CUDA -----===//

#include "NvidiaDevice.h"


#include "tegula/BackendKit/DeviceSupport.h"
#include "tegula/BackendKit/ExternalTool.h"

#include <algorithm>
#include <vector>

using namespace tegula::nvidia;
using namespace tegula::plugin;

namespace {

/// Makes |device|'s primary context current on this thread while it lives,
/// retaining it on first use; restores the thread's previous context.
class ContextScope {
public:
  explicit ContextScope(CudaDevice &device) : device(device) {
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
    // A thread without a context keeps ours: later calls skip the switch.
    restore = got == CUDA_SUCCESS && previous != nullptr;
  }
  ~ContextScope() {
    if (restore)
      device.cu.cuCtxSetCurrent(previous);
  }
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;

  /// Success, or why the context cannot be made current.
  const Status &status() const { return result; }
  bool ok() const { return result.ok(); }

private:
  CudaDevice &device;
  CUcontext previous = nullptr;
  bool restore = false;
  Status result;
};

/// A cuMemAlloc allocation.
class CudaBuffer : public BufferBase {
public:
  CudaBuffer(CudaDevice &device, uint64_t size, CUdeviceptr address)
      : BufferBase(device, size, address), owner(device) {}
  // A destructor cannot report failure; the driver keeps the memory of a
  // context it cannot make current.
  ~CudaBuffer() override {
    owner.run("buffer free",
              [&] { return owner.cu.cuMemFree(deviceAddress()); });
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
    if (owned)
      owner.run("stream destroy",
                [&] { return owner.cu.cuStreamDestroy(handle); });
  }

  Status synchronize() override {
    ContextScope scope(owner);
    if (!scope.ok())
      return scope.status();
    CUresult result = owner.cu.cuStreamSynchronize(handle);
    return owner.waitStatus(launches.describeAndTake("stream synchronize"),
                            result);
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
    owner.run("event destroy", [&] { return owner.cu.cuEventDestroy(handle); });
  }

  Status record(StreamBase &stream) override {
    return owner.run("event record", [&] {
      return owner.cu.cuEventRecord(handle,
                                    static_cast<CudaStream &>(stream).handle);
    });
  }

  Status synchronize() override {
    return owner.run("event synchronize",
                     [&] { return owner.cu.cuEventSynchronize(handle); });
  }

  Status elapsedSince(EventBase &startBase, float &milliseconds) override {
    auto &start = static_cast<CudaEvent &>(startBase);
    // Both complete, as the ABI promises the caller waited for them; wait
    // rather than answer CUDA_ERROR_NOT_READY if it did not.
    return owner.run("event elapsed time", [&] {
      CUresult result = owner.cu.cuEventSynchronize(handle);
      if (result != CUDA_SUCCESS)
        return result;
      return owner.cu.cuEventElapsedTime(&milliseconds, start.handle, handle);
    });
  }

  CudaDevice &owner;
  const CUevent handle;
};

Status CudaStream::waitEvent(EventBase &event) {
  return owner.run("stream wait event", [&] {
    return owner.cu.cuStreamWaitEvent(
        handle, static_cast<CudaEvent &>(event).handle, 0);
  });
}

CUstream streamHandle(StreamBase *stream) {
  return stream ? static_cast<CudaStream *>(stream)->handle : nullptr;
}

/// The one kernel of a loaded CUmodule, which it unloads when its module is
/// deleted. The code was generated for num_warps x 32 threads along x.
class CudaKernel : public tegula::backend::GpuKernel {
public:
  CudaKernel(ModuleBase &module, CudaDevice &device, CUmodule handle,
             CUfunction function, const NvidiaImage &image)
      : GpuKernel(module, image, device.limits, 32), device(device),
        handle(handle), function(function) {}
  ~CudaKernel() override {
    device.run("module unload",
               [&] { return device.cu.cuModuleUnload(handle); });
  }

  /// Lets the kernel have |bytes| of dynamic shared memory, which CUDA
  /// needs it to opt in to above 48 KiB; in the device's context.
  Status allowSharedMemory(uint64_t bytes) {
    // Every kernel may use the default without opting in: no lock for the
    // launches of most kernels.
    if (bytes <= kDefaultSharedMemoryLimit)
      return Status::success();
    std::lock_guard<std::mutex> lock(attributeMutex);
    if (bytes <= sharedLimit)
      return Status::success();
    CUresult result = device.cu.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(bytes));
    if (result != CUDA_SUCCESS)
      return device.failure("kernel " + name + ": allowing " +
                                std::to_string(bytes) +
                                " bytes of dynamic shared memory",
                            result);
    sharedLimit = bytes;
    return Status::success();
  }

  /// What the driver says of the loaded function (cuFuncGetAttribute), as
  /// Triton's driver reads it: n_regs = NUM_REGS, n_spills =
  /// LOCAL_SIZE_BYTES / 4, n_max_threads = MAX_THREADS_PER_BLOCK.
  Status attributes(tg_kernel_attributes &attrs) override {
    ContextScope scope(device);
    if (!scope.ok())
      return scope.status();
    struct Query {
      int attribute;
      const char *what;
      uint32_t *field;
    };
    const Query queries[] = {
        {CU_FUNC_ATTRIBUTE_NUM_REGS, "registers", &attrs.registers},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory",
         &attrs.local_memory},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory",
         &attrs.shared_memory},
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "most threads per block",
         &attrs.max_threads_per_block},
    };
    for (const Query &query : queries) {
      int value = 0;
      CUresult result =
          device.cu.cuFuncGetAttribute(&value, query.attribute, function);
      if (result != CUDA_SUCCESS)
        return device.failure("kernel " + name + ": reading its " +
                                  query.what,
                              result);
      *query.field = static_cast<uint32_t>(std::max(value, 0));
    }
    attrs.spills = attrs.local_memory / 4;
    return Status::success();
  }

protected:
  Status launchChecked(const LaunchRequest &request,
                       std::vector<void *> &params, uint64_t shared) override {
    ContextScope scope(device);
    if (!scope.ok())
      return scope.status();
    if (Status allowed = allowSharedMemory(shared); !allowed.ok())
      return allowed;
    CUresult result = device.cu.cuLaunchKernel(
        function, request.grid[0], request.grid[1], request.grid[2],
        request.block[0], request.block[1], request.block[2],
        static_cast<unsigned>(shared), streamHandle(request.stream),
        params.empty() ? nullptr : params.data(), nullptr);
    if (result != CUDA_SUCCESS)
      return device.failure("launching kernel " + name, result);
    if (request.stream) {
      static_cast<CudaStream *>(request.stream)->launches.note(name);
      return Status::success();
    }
    return device.waitStatus("kernel " + name,
                             device.cu.cuStreamSynchronize(nullptr));
  }

private:
  CudaDevice &device;
  const CUmodule handle;
  const CUfunction function;
  std::mutex attributeMutex;
  /// The dynamic shared memory the function is allowed so far.
  uint64_t sharedLimit = kDefaultSharedMemoryLimit;
};

} // namespace

//===-- CudaDevice --------------------------------------------------------===//

CudaDevice::~CudaDevice() {
  if (primary)
    cu.cuDevicePrimaryCtxRelease(handle);
}

CUcontext CudaDevice::context(Status &status) {
  std::call_once(contextOnce, [&] {
    CUresult result = cu.cuDevicePrimaryCtxRetain(&primary, handle);
    if (result != CUDA_SUCCESS) {
      primary = nullptr;
      contextFailure =
          failure("retaining the primary CUDA context of " + label(), result);
    }
  });
  if (!primary)
    status = contextFailure;
  return primary;
}

std::string CudaDevice::label() const {
  return "CUDA device " + std::to_string(ordinal) + " (" + name + ")";
}

Status CudaDevice::failure(const std::string &what, CUresult result) const {
  return Status(toErrorCode(result), what + ": " + cu.describe(result));
}

Status CudaDevice::waitStatus(const std::string &what, CUresult result) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  if (result != CUDA_ERROR_ASSERT)
    return failure(what, result);
  return failure(tegula::backend::deviceAssertFailure(
                     what, "CUDA leaves the context unusable: restart the "
                           "process"),
                 result);
}

Status CudaDevice::run(const std::string &what,
                       llvm::function_ref<CUresult()> call) {
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUresult result = call();
  if (result != CUDA_SUCCESS)
    return failure(what, result);
  return Status::success();
}

Status CudaDevice::allocate(uint64_t size,
                            std::unique_ptr<BufferBase> &buffer) {
  // cuMemAlloc refuses 0 bytes; a zero-sized buffer still gets an address.
  CUdeviceptr address = 0;
  Status status =
      run("cannot allocate " + std::to_string(size) + " bytes",
          [&] { return cu.cuMemAlloc(&address, std::max<uint64_t>(size, 1)); });
  if (status.ok())
    buffer = std::make_unique<CudaBuffer>(*this, size, address);
  return status;
}

Status CudaDevice::transfer(const char *what, uint64_t size, StreamBase *stream,
                            llvm::function_ref<CUresult(CUstream)> enqueue) {
  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUresult result = enqueue(streamHandle(stream));
  if (result != CUDA_SUCCESS)
    return failure(std::string(what) + " of " + std::to_string(size) + " bytes",
                   result);
  if (!stream && (result = cu.cuStreamSynchronize(nullptr)) != CUDA_SUCCESS)
    return failure(std::string(what) + " (waiting for the default stream)",
                   result);
  return Status::success();
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
  // CU_STREAM_DEFAULT: ordered with the legacy default stream, which the
  // NULL-stream operations use.
  CUstream handle = nullptr;
  Status status =
      run("stream create", [&] { return cu.cuStreamCreate(&handle, 0); });
  if (status.ok())
    stream = std::make_unique<CudaStream>(*this, handle, /*owned=*/true);
  return status;
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
                        " is not a CUDA stream of " + label() + ": " +
                        cu.describe(result));
    if (its != ours)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "the native stream " + std::to_string(native) +
                        " belongs to another CUDA context than " + label() +
                        "'s primary context");
  }
  stream = std::make_unique<CudaStream>(*this, handle, /*owned=*/false);
  return Status::success();
}

Status CudaDevice::createEvent(std::unique_ptr<EventBase> &event) {
  CUevent handle = nullptr; // CU_EVENT_DEFAULT: timed
  Status status =
      run("event create", [&] { return cu.cuEventCreate(&handle, 0); });
  if (status.ok())
    event = std::make_unique<CudaEvent>(*this, handle);
  return status;
}

Status CudaDevice::loadModule(const void *data, size_t size,
                              std::unique_ptr<ModuleBase> &module) {
  llvm::Expected<NvidiaImage> decoded =
      tegula::backend::readImage<tegula::nvidia::NvidiaImage>(data, size);
  if (!decoded)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(decoded.takeError()));
  NvidiaImage &image = *decoded;
  // The images the runtime selects for this arch (compatibleArchs in
  // NvidiaPlugin.cpp): its own, sm_90a code on sm_90, and the PTX of older
  // archs without arch-specific features, which the driver compiles.
  if (Status status = tegula::backend::checkImage(*this, image); !status.ok())
    return status;

  ContextScope scope(*this);
  if (!scope.ok())
    return scope.status();
  CUmodule handle = nullptr;
  CUresult result = CUDA_SUCCESS;
  std::string how;
  if ((image.arch == arch || image.arch == arch + "a") &&
      !image.cubin.empty()) {
    result =
        cu.cuModuleLoadDataEx(&handle, image.cubin.data(), 0, nullptr, nullptr);
    how = "loading the cubin of kernel " + image.kernelName;
  }
  if (!handle) {
    // The driver compiles the PTX (NUL-terminated) and says why it cannot.
    char errorLog[4096] = {};
    CUjitOption keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {
        errorLog, reinterpret_cast<void *>(uintptr_t(sizeof(errorLog) - 1))};
    CUresult ptxResult =
        cu.cuModuleLoadDataEx(&handle, image.ptx.c_str(), 2, keys, values);
    if (ptxResult != CUDA_SUCCESS) {
      std::string what =
          (how.empty() ? "" : how + " failed (" + cu.describe(result) + "), ") +
          "compiling the PTX of kernel " + image.kernelName + " for " + arch;
      if (std::string log = tegula::backend::firstLines(errorLog, 8);
          !log.empty())
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
  auto loaded = std::make_unique<SingleKernelModule<CudaKernel>>(
      *this, image.kernelName, *this, handle, function, image);
  // Deleting |loaded| unloads the module when the kernel cannot have its
  // shared memory.
  if (Status status = loaded->kernel().allowSharedMemory(image.sharedBytes);
      !status.ok())
    return status;
  module = std::move(loaded);
  return Status::success();
}
