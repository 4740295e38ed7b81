//===- AmdDevice.cpp - Memory, streams, modules and launch on HIP ---------===//

#include "AmdDevice.h"
#include "AmdCodeObject.h"
#include "AmdCompiler.h"

#include "tegula/BackendKit/DeviceSupport.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

using namespace tegula::amd;
using namespace tegula::plugin;

//===-- HipRuntime --------------------------------------------------------===//

const HipRuntime *HipRuntime::get(std::string &whyNot) {
  return tegula::backend::loadVendorTableOnce<HipRuntime>(whyNot);
}

std::string HipRuntime::load() {
  tegula::backend::VendorLibrary library("HIP runtime");
  // A library the user names is the only one tried: falling back to the
  // system's HIP would hide that it does not load.
  const char *chosen = std::getenv("TEGULA_AMD_HIP_LIBRARY");
  bool opened = chosen && *chosen
                    ? library.open({chosen})
                    // The unversioned name a ROCm install provides, then
                    // the sonames of ROCm 6 and 5.
                    : library.open({"libamdhip64.so", "libamdhip64.so.6",
                                    "libamdhip64.so.5"});
  if (!opened)
    return library.error();
#define TEGULA_HIP_REQUIRED(fn) library.resolve(fn, {#fn});
#define TEGULA_HIP_OPTIONAL(fn) library.resolve(fn, {#fn}, /*required=*/false);
  TEGULA_HIP_ENTRIES(TEGULA_HIP_REQUIRED)
  TEGULA_HIP_REQUIRED(hipMalloc)
  TEGULA_HIP_OPTIONAL_ENTRIES(TEGULA_HIP_OPTIONAL)
#undef TEGULA_HIP_REQUIRED
#undef TEGULA_HIP_OPTIONAL
  return library.error();
}

std::string HipRuntime::describe(hipError_t error) const {
  return tegula::backend::describeDriverError(
      "HIP", error, hipGetErrorName ? hipGetErrorName(error) : nullptr,
      hipGetErrorString ? hipGetErrorString(error) : nullptr);
}

int32_t tegula::amd::toErrorCode(hipError_t error) {
  // Faults in kernels (illegal address, launch failure, ...) and the rest
  // are TG_ERROR_DEVICE.
  static const std::pair<hipError_t, int32_t> kCodes[] = {
      {hipSuccess, TG_SUCCESS},
      {hipErrorInvalidValue, TG_ERROR_INVALID_ARGUMENT},
      {hipErrorOutOfMemory, TG_ERROR_OUT_OF_MEMORY},
      {hipErrorNotFound, TG_ERROR_NOT_FOUND},
      {hipErrorInvalidImage, TG_ERROR_INVALID_FORMAT},
      {hipErrorNoBinaryForGpu, TG_ERROR_INVALID_FORMAT},
      {hipErrorInvalidKernelFile, TG_ERROR_INVALID_FORMAT},
      {hipErrorNotInitialized, TG_ERROR_UNAVAILABLE},
      {hipErrorDeinitialized, TG_ERROR_UNAVAILABLE},
      {hipErrorNoDevice, TG_ERROR_UNAVAILABLE}};
  for (const auto &[hipCode, code] : kCodes)
    if (hipCode == error)
      return code;
  return TG_ERROR_DEVICE;
}

namespace {

/// A hipMalloc allocation.
class HipBuffer : public BufferBase {
public:
  HipBuffer(HipDevice &device, uint64_t size, void *memory)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(memory)),
        device(device), memory(memory) {}
  // A destructor cannot report failure.
  ~HipBuffer() override {
    device.run("buffer free", [this] { return device.hip.hipFree(memory); });
  }

private:
  HipDevice &device;
  void *const memory;
};

/// A HIP stream, remembering the kernels it ran since its last
/// synchronize so that an asynchronous failure can name them.
class HipStream : public StreamBase {
public:
  /// |owned|: created for this object, else a caller's, which stays.
  HipStream(HipDevice &device, hipStream_t handle, bool owned)
      : StreamBase(device), device(device), handle(handle), owned(owned) {}
  ~HipStream() override {
    if (!owned)
      return;
    device.run("stream destroy",
               [this] { return device.hip.hipStreamDestroy(handle); });
  }

  HipDevice &device;
  const hipStream_t handle;
  const bool owned;
  LaunchLog launches;

  Status synchronize() override {
    return device.run(launches.describeAndTake("stream synchronize"), [this] {
      return device.hip.hipStreamSynchronize(handle);
    });
  }

  Status waitEvent(EventBase &event) override;
};

hipStream_t nativeOf(StreamBase *stream) {
  return stream ? static_cast<HipStream *>(stream)->handle : nullptr;
}

class HipEvent : public EventBase {
public:
  HipEvent(HipDevice &device, hipEvent_t handle)
      : EventBase(device), device(device), handle(handle) {}
  ~HipEvent() override {
    device.run("event destroy",
               [this] { return device.hip.hipEventDestroy(handle); });
  }

  Status record(StreamBase &stream) override {
    hipStream_t in = nativeOf(&stream);
    return device.run("event record",
                      [&] { return device.hip.hipEventRecord(handle, in); });
  }

  Status synchronize() override {
    return device.run("event synchronize", [this] {
      return device.hip.hipEventSynchronize(handle);
    });
  }

  Status elapsedSince(EventBase &start, float &milliseconds) override {
    hipEvent_t from = static_cast<HipEvent &>(start).handle;
    // The ABI promises both completed; wait rather than answer
    // hipErrorNotReady if the caller did not.
    return device.run("event elapsed time", [&] {
      hipError_t waited = device.hip.hipEventSynchronize(handle);
      return waited != hipSuccess
                 ? waited
                 : device.hip.hipEventElapsedTime(&milliseconds, from, handle);
    });
  }

  HipDevice &device;
  const hipEvent_t handle;
};

Status HipStream::waitEvent(EventBase &event) {
  hipEvent_t awaited = static_cast<HipEvent &>(event).handle;
  return device.run("stream wait event", [&] {
    return device.hip.hipStreamWaitEvent(handle, awaited, 0);
  });
}

/// The one kernel of a loaded hipModule_t, which it unloads when its
/// module is deleted.
class HipKernel : public tegula::backend::GpuKernel {
public:
  HipKernel(ModuleBase &module, HipDevice &device, hipModule_t handle,
            hipFunction_t function, const AmdImage &image,
            const LaunchLimits &limits)
      : GpuKernel(module, image, limits, image.waveSize), device(device),
        handle(handle), function(function) {
    llvm::Expected<KernelResources> read =
        readKernelResources(image.hsaco, image.kernelName);
    if (read)
      resources = *read;
    else
      resourcesError = llvm::toString(read.takeError());
  }
  ~HipKernel() override {
    device.run("module unload",
               [this] { return device.hip.hipModuleUnload(handle); });
  }

  /// From the code object's metadata, read when the module was loaded: the
  /// numbers hipFuncGetAttribute answers from (n_regs = .vgpr_count,
  /// n_spills = .private_segment_fixed_size / 4, as Triton's HIP driver).
  Status attributes(tg_kernel_attributes &attrs) override {
    if (!resources)
      return Status(TG_ERROR_INVALID_FORMAT,
                    "kernel " + name + ": " + resourcesError);
    auto set = [](uint32_t &field, const std::optional<uint32_t> &value) {
      if (value)
        field = *value;
    };
    set(attrs.registers, resources->vgprCount);
    set(attrs.local_memory, resources->privateSegmentSize);
    if (resources->privateSegmentSize)
      attrs.spills = *resources->privateSegmentSize / 4;
    set(attrs.shared_memory, resources->groupSegmentSize);
    set(attrs.max_threads_per_block, resources->maxFlatWorkgroupSize);
    set(attrs.vector_register_spills, resources->vgprSpillCount);
    set(attrs.scalar_registers, resources->sgprCount);
    set(attrs.scalar_register_spills, resources->sgprSpillCount);
    return Status::success();
  }

protected:
  Status launchChecked(const LaunchRequest &request,
                       std::vector<void *> &params,
                       uint64_t sharedBytes) override {
    hipStream_t stream = nativeOf(request.stream);
    Status status = device.run("launching kernel " + name, [&] {
      return device.hip.hipModuleLaunchKernel(
          function, request.grid[0], request.grid[1], request.grid[2],
          request.block[0], request.block[1], request.block[2],
          static_cast<unsigned>(sharedBytes), stream,
          params.empty() ? nullptr : params.data(), nullptr);
    });
    if (!status.ok())
      return status;
    if (request.stream) {
      static_cast<HipStream *>(request.stream)->launches.note(name);
      return status;
    }
    return device.run("kernel " + name,
                      [&] { return device.hip.hipStreamSynchronize(nullptr); });
  }

private:
  HipDevice &device;
  const hipModule_t handle;
  const hipFunction_t function;
  std::optional<KernelResources> resources;
  std::string resourcesError;
};

} // namespace

//===-- HipDevice ---------------------------------------------------------===//

Status HipDevice::failure(const std::string &what, hipError_t error) const {
  return Status(toErrorCode(error), what + ": " + hip.describe(error));
}

Status HipDevice::run(const std::string &what,
                      llvm::function_ref<hipError_t()> call) {
  int previous = -1;
  if (hip.hipGetDevice(&previous) != hipSuccess)
    previous = -1;
  if (previous != ordinal)
    if (hipError_t set = hip.hipSetDevice(ordinal); set != hipSuccess)
      return failure(what + ": hipSetDevice(" + std::to_string(ordinal) + ")",
                     set);
  hipError_t result = call();
  if (previous >= 0 && previous != ordinal)
    (void)hip.hipSetDevice(previous); // the call's own result matters more
  return result == hipSuccess ? Status::success() : failure(what, result);
}

Status HipDevice::allocate(uint64_t size, std::unique_ptr<BufferBase> &buffer) {
  void *memory = nullptr;
  // A zero-sized buffer still gets an address of its own.
  auto malloc = [&] {
    return hip.hipMalloc(&memory, std::max<uint64_t>(size, 1));
  };
  if (Status status =
          run("cannot allocate " + std::to_string(size) + " bytes (hipMalloc)",
              malloc);
      !status.ok())
    return status;
  buffer = std::make_unique<HipBuffer>(*this, size, memory);
  return Status::success();
}

Status
HipDevice::transfer(const char *what, uint64_t size, StreamBase *stream,
                    llvm::function_ref<hipError_t(hipStream_t)> enqueue) {
  std::string described =
      std::string(what) + " of " + std::to_string(size) + " bytes";
  return run(described, [&] {
    hipError_t result = enqueue(nativeOf(stream));
    // NULL: complete before returning.
    if (result == hipSuccess && !stream)
      result = hip.hipStreamSynchronize(nullptr);
    return result;
  });
}

namespace {
void *at(BufferBase &buffer, uint64_t offset) {
  return reinterpret_cast<void *>(
      static_cast<uintptr_t>(buffer.deviceAddress() + offset));
}
} // namespace

Status HipDevice::write(BufferBase &dst, uint64_t dstOffset, const void *src,
                        uint64_t size, StreamBase *stream) {
  // hipMemcpyHtoDAsync's source is not const in ROCm 5's header; it is
  // only read.
  auto copyIn = [&](hipStream_t s) {
    return hip.hipMemcpyHtoDAsync(at(dst, dstOffset), const_cast<void *>(src),
                                  size, s);
  };
  return transfer("buffer write", size, stream, copyIn);
}

Status HipDevice::read(void *dst, BufferBase &src, uint64_t srcOffset,
                       uint64_t size, StreamBase *stream) {
  auto copyOut = [&](hipStream_t s) {
    return hip.hipMemcpyDtoHAsync(dst, at(src, srcOffset), size, s);
  };
  return transfer("buffer read", size, stream, copyOut);
}

Status HipDevice::copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
                       uint64_t srcOffset, uint64_t size, StreamBase *stream) {
  auto copyOver = [&](hipStream_t s) {
    return hip.hipMemcpyDtoDAsync(at(dst, dstOffset), at(src, srcOffset), size,
                                  s);
  };
  return transfer("buffer copy", size, stream, copyOver);
}

Status HipDevice::memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                         uint8_t value, StreamBase *stream) {
  auto fill = [&](hipStream_t s) {
    return hip.hipMemsetD8Async(at(buffer, offset), value, size, s);
  };
  return transfer("buffer memset", size, stream, fill);
}

Status HipDevice::createStream(std::unique_ptr<StreamBase> &stream) {
  hipStream_t created = nullptr;
  // hipStreamDefault: ordered with the null stream, which the NULL-stream
  // operations use.
  auto create = [&] {
    return hip.hipStreamCreateWithFlags(&created, hipStreamDefault);
  };
  if (Status status = run("stream create", create); !status.ok())
    return status;
  stream = std::make_unique<HipStream>(*this, created, /*owned=*/true);
  return Status::success();
}

Status HipDevice::wrapNativeStream(uint64_t native,
                                   std::unique_ptr<StreamBase> &stream) {
  // HIP cannot say which device a stream belongs to (ROCm 5.2 has no
  // hipStreamGetDevice): the caller vouches for it.
  auto handle = reinterpret_cast<hipStream_t>(static_cast<uintptr_t>(native));
  stream = std::make_unique<HipStream>(*this, handle, /*owned=*/false);
  return Status::success();
}

Status HipDevice::createEvent(std::unique_ptr<EventBase> &event) {
  hipEvent_t created = nullptr; // hipEventDefault: timed
  auto create = [&] { return hip.hipEventCreate(&created); };
  if (Status status = run("event create", create); !status.ok())
    return status;
  event = std::make_unique<HipEvent>(*this, created);
  return Status::success();
}

Status HipDevice::loadModule(const void *data, size_t size,
                             std::unique_ptr<ModuleBase> &module) {
  llvm::Expected<AmdImage> decoded =
      tegula::backend::readImage<AmdImage>(data, size);
  if (!decoded)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(decoded.takeError()));
  const AmdImage &image = *decoded;
  if (Status status = tegula::backend::checkImage(*this, image); !status.ok())
    return status;
  // The code object's static LDS comes out of what a block may have.
  LaunchLimits kernelLimits = limits;
  if (image.ldsBytes > kernelLimits.maxSharedBytes)
    return Status(TG_ERROR_OUT_OF_RANGE,
                  "kernel " + image.kernelName + " allocates " +
                      std::to_string(image.ldsBytes) +
                      " bytes of LDS statically; " + name + " allows " +
                      std::to_string(kernelLimits.maxSharedBytes));
  kernelLimits.maxSharedBytes -= image.ldsBytes;

  hipModule_t handle = nullptr;
  hipFunction_t function = nullptr;
  Status status =
      run("loading the code object of kernel " + image.kernelName,
          [&] { return hip.hipModuleLoadData(&handle, image.hsaco.data()); });
  if (!status.ok())
    return status;
  status = run("the code object of kernel " + image.kernelName +
                   " has no function of that name",
               [&] {
                 return hip.hipModuleGetFunction(&function, handle,
                                                 image.kernelName.c_str());
               });
  if (!status.ok()) {
    run("module unload", [&] { return hip.hipModuleUnload(handle); });
    return status;
  }
  module = std::make_unique<SingleKernelModule<HipKernel>>(
      *this, image.kernelName, *this, handle, function, image, kernelLimits);
  return Status::success();
}
