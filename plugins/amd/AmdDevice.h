//===- AmdDevice.h - HIP memory, streams and launch -------------*- C++ -*-===//
//
// A HIP device of the AMD plugin, through the HIP runtime (libamdhip64)
// loaded at run time (HipRuntime, below):
//
//  - Device: HIP keeps a current device per thread; every call makes this
//    one current (hipSetDevice) and gives the thread its previous one back.
//  - Memory: hipMalloc / hipFree; copies and memset through the *Async
//    entry points in the stream, or, for a NULL stream, in the null stream
//    followed by its synchronization ("complete before returning").
//  - Streams: blocking HIP streams (hipStreamDefault: ordered with the null
//    stream, like the nvidia plugin's), or wrappers of a caller's
//    hipStream_t; an error of a kernel launched in a stream surfaces at its
//    next synchronize, which names the kernels launched since the last one.
//  - Events: hipEvent* with timing.
//  - Modules: an AMD image (AmdImage, AmdCompiler.h) that the kit's
//    checkImage accepts; its hsaco goes to hipModuleLoadData.
//  - Launch: checked by the kit's GpuKernel (DeviceSupport.h), which makes
//    the packed arguments hipModuleLaunchKernel's kernelParams; a block is
//    num_warps wavefronts of the image's wave size, the dynamic LDS the
//    launch's (the code object allocates its own LDS statically).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDDEVICE_H
#define TEGULA_PLUGINS_AMD_AMDDEVICE_H

#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/VendorLibrary.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>

namespace tegula::amd {

/// The HIP entry points the plugin calls (hipGetErrorName and
/// hipGetErrorString are optional: errors are then named by number).
// clang-format off
#define TEGULA_HIP_ENTRIES(X)                                                  \
  X(hipInit) X(hipGetDeviceCount) X(hipGetDeviceProperties)                    \
  X(hipGetDevice) X(hipSetDevice)                                              \
  X(hipFree) X(hipMemcpyHtoDAsync) X(hipMemcpyDtoHAsync)                       \
  X(hipMemcpyDtoDAsync) X(hipMemsetD8Async)                                    \
  X(hipStreamCreateWithFlags) X(hipStreamDestroy) X(hipStreamSynchronize)      \
  X(hipStreamWaitEvent)                                                        \
  X(hipEventCreate) X(hipEventDestroy) X(hipEventRecord)                       \
  X(hipEventSynchronize) X(hipEventElapsedTime)                                \
  X(hipModuleLoadData) X(hipModuleUnload) X(hipModuleGetFunction)              \
  X(hipModuleLaunchKernel)
// clang-format on
#define TEGULA_HIP_OPTIONAL_ENTRIES(X) X(hipGetErrorName) X(hipGetErrorString)

/// The HIP entry points, resolved from the HIP runtime library: the file
/// $TEGULA_AMD_HIP_LIBRARY names when set (another HIP, or a test double),
/// else libamdhip64.
struct HipRuntime {
  TEGULA_HIP_ENTRIES(TEGULA_VENDOR_MEMBER)
  // The header overloads hipMalloc with a template for C++ callers.
  hipError_t (*hipMalloc)(void **, size_t) = nullptr;
  TEGULA_HIP_OPTIONAL_ENTRIES(TEGULA_VENDOR_MEMBER)

  /// The process's one table, loaded on the first call; null, with
  /// |whyNot| saying why, when the HIP runtime cannot be used.
  static const HipRuntime *get(std::string &whyNot);

  /// "hipErrorInvalidDevice (101): invalid device ordinal", as far as HIP
  /// names |error|.
  std::string describe(hipError_t error) const;

  /// Resolves the entry points; returns why it cannot, or "".
  std::string load();
};

/// The tg_error_code for a failed HIP call that returned |error|.
int32_t toErrorCode(hipError_t error);

/// One HIP device. Properties are filled at discovery (|props|).
class HipDevice : public plugin::PropertiesDevice {
public:
  HipDevice(plugin::PluginBase &plugin, const HipRuntime &hip, int ordinal,
            std::string name, std::string arch)
      : PropertiesDevice(plugin, std::move(name), std::move(arch)), hip(hip),
        ordinal(ordinal) {}

  using Status = plugin::Status;
  using Buffer = plugin::BufferBase;
  using Stream = plugin::StreamBase;

  /// hipMalloc.
  Status allocate(uint64_t size, std::unique_ptr<Buffer> &buffer) override;
  /// hipMemcpyHtoDAsync.
  Status write(Buffer &dst, uint64_t dstOffset, const void *src, uint64_t size,
               Stream *stream) override;
  /// hipMemcpyDtoHAsync.
  Status read(void *dst, Buffer &src, uint64_t srcOffset, uint64_t size,
              Stream *stream) override;
  /// hipMemcpyDtoDAsync.
  Status copy(Buffer &dst, uint64_t dstOffset, Buffer &src, uint64_t srcOffset,
              uint64_t size, Stream *stream) override;
  /// hipMemsetD8Async.
  Status memset(Buffer &buffer, uint64_t offset, uint64_t size, uint8_t value,
                Stream *stream) override;
  /// hipStreamCreateWithFlags(hipStreamDefault).
  Status createStream(std::unique_ptr<Stream> &stream) override;
  /// Wraps |native|, a hipStream_t of this device (0: the null stream),
  /// which the caller owns: the wrapper never destroys it.
  Status wrapNativeStream(uint64_t native,
                          std::unique_ptr<Stream> &stream) override;
  /// hipEventCreate (timed).
  Status createEvent(std::unique_ptr<plugin::EventBase> &event) override;
  /// hipModuleLoadData of the image's hsaco, hipModuleGetFunction.
  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<plugin::ModuleBase> &module) override;

  /// Status(code for |error|, "<what>: <HIP's error>").
  Status failure(const std::string &what, hipError_t error) const;

  /// Makes |call| (HIP calls) with this device current on the calling
  /// thread: success, or failure() naming |what| (and hipSetDevice when
  /// the device cannot be made current).
  Status run(const std::string &what, llvm::function_ref<hipError_t()> call);

  /// A memory operation of |size| bytes on |stream|: |enqueue| makes the
  /// HIP call on its hipStream_t, then, for a NULL stream, waits for the
  /// null stream; |what| names it in errors ("buffer write").
  Status transfer(const char *what, uint64_t size, Stream *stream,
                  llvm::function_ref<hipError_t(hipStream_t)> enqueue);

  const HipRuntime &hip;
  const int ordinal;
  /// The device's own launch limits (maxGrid, maxSharedBytes), from
  /// hipGetDeviceProperties at discovery.
  plugin::LaunchLimits limits;
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDDEVICE_H
