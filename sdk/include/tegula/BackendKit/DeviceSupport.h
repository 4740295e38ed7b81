//===- tegula/BackendKit/DeviceSupport.h - Device runtimes ------*- C++ -*-===//
//
// The parts of a device runtime that do not depend on the driver (CUDA, HIP,
// Level Zero or the host's JIT), so that every backend decides and words
// them alike:
//
//  - at module load, whether the device runs an image: checkImageTarget
//    accepts the images the runtime selects for the device (its own target
//    or one of its compatible archs); checkImage adds, for a GPU image
//    (LaunchFields), that its kernel's shared memory fits the device;
//  - GpuKernel: a GPU kernel whose launches are checked (LaunchCheck.h)
//    against the limits of its image and device before its driver sees
//    them, with one pointer to each argument;
//  - deviceAssertFailure: how a wait for kernels that a `tl.device_assert`
//    stopped says so; describeDriverError: how a driver's error reads.
//
// A driver's log in an error (a PTX JIT's, a program build's) is cut to its
// first lines with firstLines (ExternalTool.h). Header only.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_DEVICESUPPORT_H
#define TEGULA_BACKENDKIT_DEVICESUPPORT_H

#include "tegula/BackendKit/KernelImage.h"
#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tegula::backend {

/// "<backend>:<arch>", the target |device|'s own images are compiled for.
inline std::string deviceTarget(const plugin::PropertiesDevice &device) {
  return device.plugin().info().name + ":" + device.arch;
}

/// Success when |device| runs an image compiled for |target|
/// ("<backend>:<arch>"): the device's own arch or one of its compatible
/// archs (PropertiesDevice::setCompatibleArchs), as the runtime selects
/// images for it. Else TG_ERROR_INVALID_ARGUMENT: "the image of kernel K is
/// for T (|code|), this device is D", |code| saying what the image holds
/// when it helps ("sm_90a code").
inline plugin::Status checkImageTarget(const plugin::PropertiesDevice &device,
                                       const std::string &kernel,
                                       const std::string &target,
                                       const std::string &code = "") {
  std::string own = deviceTarget(device);
  if (target == own)
    return plugin::Status::success();
  const tg_device_properties &props = device.properties();
  std::string backend = device.plugin().info().name + ":";
  for (size_t i = 0; i < props.num_compatible_archs; ++i)
    if (target == backend + props.compatible_archs[i])
      return plugin::Status::success();
  return plugin::Status(TG_ERROR_INVALID_ARGUMENT,
                        "the image of kernel " + kernel + " is for " + target +
                            (code.empty() ? "" : " (" + code + ")") +
                            ", this device is " + own);
}

/// checkImageTarget for a GPU image, naming the arch of its code, and that
/// its kernel's own shared memory fits in the device's per block
/// (TG_ERROR_OUT_OF_RANGE otherwise).
inline plugin::Status checkImage(const plugin::PropertiesDevice &device,
                                 const LaunchFields &image) {
  plugin::Status status = checkImageTarget(device, image.kernelName,
                                           image.target, image.arch + " code");
  uint64_t limit = device.props.shared_memory_per_block;
  if (status.ok() && image.sharedBytes > limit)
    return plugin::Status(TG_ERROR_OUT_OF_RANGE,
                          "kernel " + image.kernelName + " needs " +
                              std::to_string(image.sharedBytes) +
                              " bytes of shared memory per block; " +
                              device.name + " allows " + std::to_string(limit));
  return status;
}

/// A kernel of a GPU image (LaunchFields), for drivers that take a launch's
/// arguments as one pointer to each (CUDA's and HIP's kernelParams, Level
/// Zero's zeKernelSetArgumentValue): launch() checks every request against
/// the kernel's LaunchLimits (checkLaunch) before launchChecked() gets it.
class GpuKernel : public plugin::KernelBase {
public:
  /// |device| holds the device's own limits (maxGrid, maxSharedBytes). The
  /// code was generated for blocks of exactly image.numWarps warps of
  /// |warpSize| threads along x, the one shape the kit's lowering makes.
  GpuKernel(plugin::ModuleBase &module, const LaunchFields &image,
            plugin::LaunchLimits device, uint32_t warpSize)
      : KernelBase(module), name(image.kernelName), arguments(image.argSizes),
        limits(std::move(device)) {
    limits.block[0] = image.numWarps * warpSize;
    limits.block[1] = limits.block[2] = 1;
    limits.blockDescription = std::to_string(image.numWarps) + " warps of " +
                              std::to_string(warpSize);
    limits.packedArgsSize = arguments.packedSize();
    limits.sharedBytes = image.sharedBytes;
  }

  plugin::Status launch(const plugin::LaunchRequest &request) final {
    if (plugin::Status status = plugin::checkLaunch(name, request, limits);
        !status.ok())
      return status;
    // The driver copies the values the pointers point to before the launch
    // returns: this thread's buffers serve every launch (no allocation).
    thread_local std::vector<uint64_t> storage;
    thread_local std::vector<void *> params;
    arguments.pointers(request.packedArgs, storage, params);
    return launchChecked(request, params,
                         limits.sharedBytes + request.dynamicSharedMemory);
  }

  /// The kernel's name in the image.
  const std::string name;

protected:
  /// Launches |request|, which checkLaunch() accepted: |params| points at
  /// each argument (empty for none; valid during the call), and a block
  /// gets |sharedBytes| of dynamic shared memory (the kernel's own and the
  /// launch's).
  virtual plugin::Status launchChecked(const plugin::LaunchRequest &request,
                                       std::vector<void *> &params,
                                       uint64_t sharedBytes) = 0;

private:
  plugin::KernelArguments arguments;
  plugin::LaunchLimits limits;
};

/// What a GPU backend says, before its driver's error, of a wait for
/// kernels (|what|: "kernel k" for a launch without a stream, a stream's
/// synchronize) that failed because a `tl.device_assert` stopped one: the
/// kernel printed the failed assertion (HookSupport.h) to the device's
/// stdout, and the driver only reports a trap. |aftermath| says what the
/// driver leaves behind ("CUDA leaves the context unusable: restart the
/// process").
inline std::string deviceAssertFailure(const std::string &what,
                                       const std::string &aftermath) {
  return what +
         ": a device_assert failed (the device printed which one to "
         "its stdout; " +
         aftermath + ")";
}

/// A driver's error as a Status message says it: "CUDA_ERROR_NO_DEVICE
/// (100): no CUDA-capable device is detected" from the |name| and |meaning|
/// the driver gives |code| (each NULL when it cannot say), "|driver| error
/// 100" without a name.
inline std::string describeDriverError(const char *driver, long long code,
                                       const char *name, const char *meaning) {
  std::string text =
      name ? std::string(name) + " (" + std::to_string(code) + ")"
           : std::string(driver) + " error " + std::to_string(code);
  if (meaning)
    text += std::string(": ") + meaning;
  return text;
}

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_DEVICESUPPORT_H
