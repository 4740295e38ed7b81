//===- NvidiaDevice.h - CUDA memory, streams and launch ---------*- C++ -*-===//
//
// A CUDA device of the NVIDIA plugin, through the driver API (CudaDriver.h):
//
//  - Context: the device's primary context, retained on first use (the one
//    the CUDA runtime and PyTorch use, so their device pointers are valid
//    here) and made current on the calling thread for each call; a thread
//    that had another context current gets it back afterwards.
//  - Memory: cuMemAlloc / cuMemFree; copies and memset through the
//    *Async entry points in the stream, or, for a NULL stream, in the legacy
//    default stream followed by its synchronization ("complete before
//    returning").
//  - Streams: blocking CUDA streams (ordered with the legacy default
//    stream), or wrappers of a caller's CUstream (PyTorch's current stream);
//    an error of a kernel launched in a stream surfaces at its next
//    synchronize, which names the kernels launched since the last one.
//  - Events: cuEvent* with timing.
//  - Modules: an NVIDIA image (NvidiaImage, below) that checkImage accepts:
//    its cubin made for this arch, else its PTX, which the driver compiles.
//  - Launch: checked by the kit's GpuKernel (DeviceSupport.h), which makes
//    the packed arguments (runtime.h) cuLaunchKernel's kernelParams, one
//    pointer per argument; dynamic shared memory = the kernel's own plus
//    what the launch asks for, opted in above 48 KiB.
//
// The image is what the plugin's compile returns (NvidiaCompiler.h): one
// kernel as PTX text and, when ptxas was found at compile time, the cubin
// ptxas made of it, in the kit's container (tegula/BackendKit/KernelImage.h)
// with magic "TGNVPTX\0", the launch fields every GPU image has
// (LaunchFields), and two payloads: the PTX (no terminating NUL), then the
// cubin (an ELF file; empty when none). Only ever read by this plugin.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIADEVICE_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIADEVICE_H

#include "CudaDriver.h"

#include "tegula/BackendKit/KernelImage.h"
#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <mutex>
#include <string>

namespace tegula::nvidia {

/// One CUDA device. Properties are filled at discovery (|props|).
class CudaDevice : public plugin::PropertiesDevice {
public:
  CudaDevice(plugin::PluginBase &plugin, const CudaDriver &driver,
             CUdevice handle, std::string name, std::string arch)
      : PropertiesDevice(plugin, std::move(name), std::move(arch)), cu(driver),
        handle(handle) {}
  ~CudaDevice() override;

  plugin::Status allocate(uint64_t size,
                          std::unique_ptr<plugin::BufferBase> &buffer) override;
  plugin::Status write(plugin::BufferBase &dst, uint64_t dstOffset,
                       const void *src, uint64_t size,
                       plugin::StreamBase *stream) override;
  plugin::Status read(void *dst, plugin::BufferBase &src, uint64_t srcOffset,
                      uint64_t size, plugin::StreamBase *stream) override;
  plugin::Status copy(plugin::BufferBase &dst, uint64_t dstOffset,
                      plugin::BufferBase &src, uint64_t srcOffset,
                      uint64_t size, plugin::StreamBase *stream) override;
  plugin::Status memset(plugin::BufferBase &buffer, uint64_t offset,
                        uint64_t size, uint8_t value,
                        plugin::StreamBase *stream) override;
  plugin::Status
  createStream(std::unique_ptr<plugin::StreamBase> &stream) override;
  /// Wraps |native|, a CUstream of this device's primary context (0 the
  /// legacy default stream, 1 CU_STREAM_LEGACY, 2 CU_STREAM_PER_THREAD),
  /// which the caller owns: the wrapper never destroys it.
  plugin::Status
  wrapNativeStream(uint64_t native,
                   std::unique_ptr<plugin::StreamBase> &stream) override;
  plugin::Status
  createEvent(std::unique_ptr<plugin::EventBase> &event) override;
  plugin::Status
  loadModule(const void *image, size_t size,
             std::unique_ptr<plugin::ModuleBase> &module) override;

  /// The primary context, retained on the first call; null with |status|
  /// set when it cannot be.
  CUcontext context(plugin::Status &status);

  /// Status(code for |result|, "<what>: <the driver's error>").
  plugin::Status failure(const std::string &what, CUresult result) const;
  /// The outcome of a wait for kernels that returned |result|: success, or
  /// failure() naming |what| and the device_assert CUDA_ERROR_ASSERT means.
  plugin::Status waitStatus(const std::string &what, CUresult result) const;

  /// Makes |call| (a driver call) in the device's context: success, or
  /// failure() naming |what|.
  plugin::Status run(const std::string &what,
                     llvm::function_ref<CUresult()> call);

  /// A memory operation of |size| bytes on |stream|: |enqueue| makes the
  /// driver call on its CUstream, then, for a NULL stream, waits for the
  /// legacy default stream; |what| names it in errors ("buffer write").
  plugin::Status transfer(const char *what, uint64_t size,
                          plugin::StreamBase *stream,
                          llvm::function_ref<CUresult(CUstream)> enqueue);

  /// "CUDA device <ordinal> (<name>)": GPUs of one model share a name.
  std::string label() const;

  const CudaDriver &cu;
  const CUdevice handle;
  /// The driver's ordinal of the device (cuDeviceGet's): the n of
  /// nvidia:<n>, as every device the driver lists is one.
  int ordinal = 0;
  /// The device's own launch limits (maxGrid, maxSharedBytes), from
  /// cuDeviceGetAttribute at discovery.
  plugin::LaunchLimits limits;

private:
  std::once_flag contextOnce;
  CUcontext primary = nullptr;
  plugin::Status contextFailure;
};

/// A decoded NVIDIA image: its launch fields (the target is
/// "nvidia:<target>", the arch the code's: sm_90a for an sm_90 target), the
/// PTX (.entry kernelName) and ptxas's output for the arch, or empty.
struct NvidiaImage : backend::LaunchFields {
  static constexpr backend::KernelImageFormat kFormat = {
      "TGNVPTX", /*version=*/1, /*numPayloads=*/2, "NVIDIA kernel image",
      "the nvidia plugin"};

  std::string ptx;
  std::string cubin;

  template <typename Fields> void visit(Fields &fields) {
    LaunchFields::visit(fields);
    fields.payload(ptx, "PTX", /*minSize=*/1);
    fields.payload(cubin, "a cubin");
  }
};

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIADEVICE_H
