//===- DeviceSupportTest.cpp - What the kit's device runtimes share -------===//
//
// DeviceSupport.h (image checks at load, GpuKernel's checked launches, the
// words of failed waits and driver errors) and PluginBase.h's single-kernel
// module. What PluginBase's table answers itself is in BackendKitTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/DeviceSupport.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tegula::backend;
using namespace tegula::plugin;

namespace {

/// A device of arch "t1" that also runs "t0" images, with 4 KiB of shared
/// memory per block.
class ToyDevice : public PropertiesDevice {
public:
  explicit ToyDevice(PluginBase &plugin)
      : PropertiesDevice(plugin, "toy device", "t1") {
    props.shared_memory_per_block = 4096;
    setCompatibleArchs({"t0"});
  }
};

class ToyPlugin : public PluginBase {
public:
  ToyPlugin() : PluginBase({"toy", "1.0.0", "Tegula tests", {"t1", "t0"}}) {}
};

/// Kernel "scale" of 2 warps, 100 bytes of shared memory, a pointer and an
/// i32 argument.
LaunchFields toyImage() { return {"scale", "toy:t0", "t0", 2, 100, {8, 4}}; }

/// A GpuKernel that keeps what its launchChecked() got.
class ToyKernel : public GpuKernel {
public:
  ToyKernel(ModuleBase &module, const LaunchLimits &device)
      : GpuKernel(module, toyImage(), device, 32) {}
  uint64_t pointer = 0;
  uint32_t scalar = 0;
  uint64_t shared = 0;

protected:
  Status launchChecked(const LaunchRequest &, std::vector<void *> &params,
                       uint64_t sharedBytes) override {
    EXPECT_EQ(params.size(), 2u);
    std::memcpy(&pointer, params[0], 8);
    std::memcpy(&scalar, params[1], 4);
    shared = sharedBytes;
    return Status::success();
  }
};

TEST(SingleKernelModule, FindsItsKernelOrSaysWhichItHolds) {
  ToyPlugin plugin;
  ToyDevice device(plugin);
  SingleKernelModule<ToyKernel> module(device, "scale", LaunchLimits());
  KernelBase *kernel = nullptr;
  ASSERT_TRUE(module.getKernel("scale", kernel).ok());
  EXPECT_EQ(kernel, &module.kernel());
  EXPECT_EQ(&kernel->module(), &module);
  Status missing = module.getKernel("other", kernel);
  EXPECT_EQ(missing.code(), TG_ERROR_NOT_FOUND);
  EXPECT_EQ(missing.message(),
            "no kernel 'other' in the module (it holds 'scale')");
}

TEST(CheckImage, AcceptsTheTargetsTheRuntimeSelects) {
  ToyPlugin plugin;
  ToyDevice device(plugin);
  EXPECT_EQ(deviceTarget(device), "toy:t1");
  EXPECT_TRUE(checkImageTarget(device, "k", "toy:t1").ok());
  EXPECT_TRUE(checkImageTarget(device, "k", "toy:t0").ok());
  Status other = checkImageTarget(device, "k", "toy:t2");
  EXPECT_EQ(other.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(other.message(),
            "the image of kernel k is for toy:t2, this device is toy:t1");
  EXPECT_FALSE(checkImageTarget(device, "k", "host:t1").ok());

  LaunchFields image = toyImage();
  EXPECT_TRUE(checkImage(device, image).ok());
  image.target = "toy:t9";
  image.arch = "t9a";
  EXPECT_EQ(checkImage(device, image).message(),
            "the image of kernel scale is for toy:t9 (t9a code), this device "
            "is toy:t1");
  image = toyImage();
  image.sharedBytes = 5000;
  Status shared = checkImage(device, image);
  EXPECT_EQ(shared.code(), TG_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(shared.message(), "kernel scale needs 5000 bytes of shared memory "
                              "per block; toy device allows 4096");
}

TEST(GpuKernel, ChecksEveryLaunchThenPassesOnePointerPerArgument) {
  ToyPlugin plugin;
  ToyDevice device(plugin);
  LaunchLimits deviceLimits;
  deviceLimits.maxGrid[0] = deviceLimits.maxGrid[1] = deviceLimits.maxGrid[2] =
      8;
  deviceLimits.maxSharedBytes = 4096;
  SingleKernelModule<ToyKernel> module(device, "scale", deviceLimits);
  ToyKernel &kernel = module.kernel();
  EXPECT_EQ(kernel.name, "scale");

  // A pointer at 0 and an i32 at 8: 16 bytes packed.
  uint64_t packed[2] = {0xABCD0000, 7};
  LaunchRequest request;
  request.block[0] = 64;
  request.dynamicSharedMemory = 28;
  request.packedArgs = packed;
  request.packedArgsSize = sizeof(packed);
  ASSERT_TRUE(kernel.launch(request).ok());
  EXPECT_EQ(kernel.pointer, 0xABCD0000u);
  EXPECT_EQ(kernel.scalar, 7u);
  EXPECT_EQ(kernel.shared, 128u);

  LaunchRequest wrongBlock = request;
  wrongBlock.block[0] = 128;
  EXPECT_EQ(kernel.launch(wrongBlock).message(),
            "kernel scale was compiled for blocks of 64 threads (2 warps of "
            "32), the launch asks for (128, 1, 1)");
  LaunchRequest wideGrid = request;
  wideGrid.grid[1] = 9;
  EXPECT_EQ(kernel.launch(wideGrid).code(), TG_ERROR_INVALID_ARGUMENT);
  LaunchRequest shortArgs = request;
  shortArgs.packedArgsSize = 8;
  EXPECT_EQ(kernel.launch(shortArgs).code(), TG_ERROR_INVALID_ARGUMENT);
  LaunchRequest tooMuchShared = request;
  tooMuchShared.dynamicSharedMemory = 4000;
  EXPECT_EQ(kernel.launch(tooMuchShared).code(), TG_ERROR_OUT_OF_RANGE);
}

TEST(DeviceSupport, WordsFailedWaitsAndDriverErrors) {
  LaunchLog log;
  EXPECT_EQ(log.describeAndTake("stream synchronize"), "stream synchronize");
  log.note("add");
  log.note("softmax");
  EXPECT_EQ(log.describeAndTake("stream synchronize"),
            "stream synchronize (kernels launched in the stream since its "
            "last synchronize: add, softmax)");
  EXPECT_EQ(log.take(), "");
  EXPECT_EQ(deviceAssertFailure("kernel k", "the driver gave up"),
            "kernel k: a device_assert failed (the device printed which one "
            "to its stdout; the driver gave up)");
  EXPECT_EQ(describeDriverError("CUDA", 100, "CUDA_ERROR_NO_DEVICE",
                                "no CUDA-capable device is detected"),
            "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
  EXPECT_EQ(describeDriverError("HIP", 101, nullptr, nullptr),
            "HIP error 101");
  EXPECT_EQ(describeDriverError("HIP", 101, nullptr, "invalid device"),
            "HIP error 101: invalid device");
}

} // namespace
