//===- IntelDeviceTest.cpp - The Intel plugin on Level Zero, end to end ---===//
//
// The built intel plugin, through the runtime, on the real Level Zero loader
// and the project's test driver (libtegula_ze_opencl.so, ZeOnOpenCL.cpp,
// named by ZE_ENABLE_ALT_DRIVERS), which runs modules and launches on
// Intel's OpenCL CPU runtime: discovery, the vector add compiled to SPIR-V,
// built by zeModuleCreate and launched at sub-group sizes 16 and 32 with
// its output checked, buffers, streams and events, the checks that keep a
// bad image or launch from the driver, and how a Level Zero failure reads
// (the driver fails a call on request).
//
// ctest runs it with TEGULA_ZE_TEST_DEVICE_ID=0x0bd5, a Data Center GPU
// Max ID, so the device is an intel:pvc.
//
//===----------------------------------------------------------------------===//

#include "IntelImage.h"
#include "TestSupport.h"
#include "TileBytecodeSupport.h"

#include <gtest/gtest.h>

#include <level_zero/ze_api.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::test;

namespace {

/// The test driver's hooks (ZeOnOpenCL.cpp): the same file the loader
/// opened, so the same instance.
struct DriverHooks {
  void (*failNext)(const char *, ze_result_t) = nullptr;
  uint64_t (*callCount)(const char *) = nullptr;

  static const DriverHooks &get() {
    static DriverHooks hooks = [] {
      DriverHooks h;
      const char *path = std::getenv("ZE_ENABLE_ALT_DRIVERS");
      void *library = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
      if (!library)
        return h;
      h.failNext = reinterpret_cast<void (*)(const char *, ze_result_t)>(
          dlsym(library, "tegulaZeTestFailNext"));
      h.callCount = reinterpret_cast<uint64_t (*)(const char *)>(
          dlsym(library, "tegulaZeTestCallCount"));
      return h;
    }();
    return hooks;
  }
};

constexpr int kBlock = 256;

class IntelOnLevelZero : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::getenv("ZE_ENABLE_ALT_DRIVERS"))
      GTEST_SKIP() << "ZE_ENABLE_ALT_DRIVERS names no Level Zero driver (ctest "
                      "sets it to the test driver)";
    ASSERT_NE(hooks.failNext, nullptr) << "the test driver has no hooks";
    std::vector<Device> devices = runtime.devices();
    ASSERT_EQ(devices.size(), 1u) << why();
    device.emplace(devices.front());
  }

  std::string why() const {
    for (const PluginInfo &info : runtime.plugins())
      if (info.name == "intel")
        return info.loaded ? info.deviceStatus : info.skipMessage;
    return "the intel plugin is not there";
  }

  /// The vector add (BLOCK 256, 4 sub-groups) compiled for the device at
  /// |subGroupSize|, as an image.
  std::string vectorAddImage(int subGroupSize) {
    std::string bytes = tileBytecode(vectorAddIR(kBlock));
    std::string size = std::to_string(subGroupSize);
    Image compiled = device->compile(bytes.data(), bytes.size(),
                                     {{"sub_group_size", size.c_str()}});
    return std::string(static_cast<const char *>(compiled.data()),
                       compiled.size());
  }

  /// Runs the vector add of |n| random floats and checks every element and
  /// that nothing past n was written.
  void runVectorAdd(Kernel &kernel, int subGroupSize, Stream *stream) {
    const int n = 3000;
    std::mt19937 random(std::random_device{}());
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = uniform(random);
      y[i] = uniform(random);
    }
    const size_t bytes = (n + 64) * sizeof(float);
    Buffer bx = device->allocate(bytes), by = device->allocate(bytes),
           out = device->allocate(bytes);
    bx.write(x.data(), n * sizeof(float));
    by.write(y.data(), n * sizeof(float));
    out.memset(0xff, bytes); // NaN
    ArgPack args;
    args.add(bx).add(by).add(out).add(int32_t(n));
    uint32_t block = 4 * subGroupSize;
    kernel.launch({(n + kBlock - 1) / kBlock, 1, 1}, {block, 1, 1}, args,
                  stream);
    if (stream)
      stream->synchronize();
    std::vector<float> got = out.read<float>(n + 64);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(got[i], x[i] + y[i]) << "element " << i;
    for (int i = n; i < n + 64; ++i)
      ASSERT_TRUE(std::isnan(got[i])) << "element " << i << " was written";
  }

  const DriverHooks &hooks = DriverHooks::get();
  Runtime runtime = makeRuntime(kBuildPluginDir, "intel");
  std::optional<Device> device;
};

TEST_F(IntelOnLevelZero, DiscoversTheDevice) {
  DeviceProperties p = device->properties();
  EXPECT_EQ(device->backend(), "intel");
  EXPECT_EQ(device->target(), "intel:pvc");
  EXPECT_EQ(p.arch, "pvc");
  EXPECT_NE(p.name.find("Tegula Level Zero test device"), std::string::npos)
      << p.name;
  // The sub-group size kernels get by default, so that a block of
  // num_warps x warp size is their work-group.
  EXPECT_EQ(p.warpSize, 16u);
  // What the OpenCL CPU device reports through the driver: 256 KiB of
  // local memory, 8192 work-items.
  EXPECT_EQ(p.sharedMemoryPerBlock, 256u * 1024);
  EXPECT_GE(p.maxThreadsPerBlock, 1024u);
  EXPECT_GT(p.globalMemory, 0u);
  EXPECT_GT(p.computeUnits, 0u);
  EXPECT_EQ(p.matrixUnits, uint32_t(TG_MATRIX_UNIT_NONE));
}

TEST_F(IntelOnLevelZero, WarpSizeFollowsTheDefaultSubGroupSize) {
  setenv("TEGULA_INTEL_SUB_GROUP_SIZE", "32", 1);
  Runtime other = makeRuntime(kBuildPluginDir, "intel");
  unsetenv("TEGULA_INTEL_SUB_GROUP_SIZE");
  std::vector<Device> devices = other.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].properties().warpSize, 32u);
}

TEST_F(IntelOnLevelZero, VectorAddRunsAtSubGroups16And32) {
  for (int subGroupSize : {16, 32}) {
    SCOPED_TRACE("sub-group size " + std::to_string(subGroupSize));
    std::string image = vectorAddImage(subGroupSize);
    Kernel kernel = device->loadKernel(image.data(), image.size(), "add_kernel");
    runVectorAdd(kernel, subGroupSize, nullptr);
    Stream stream = device->createStream();
    runVectorAdd(kernel, subGroupSize, &stream);
  }
}

TEST_F(IntelOnLevelZero, KernelAttributesComeFromZeKernelGetProperties) {
  std::string image = vectorAddImage(16);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "add_kernel");
  tg_kernel_attributes attrs = kernel.attributes();
  // Level Zero has no register count; the test driver reports no spill
  // memory and OpenCL's private memory size.
  EXPECT_EQ(attrs.registers, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  EXPECT_EQ(attrs.spills, 0u);
  EXPECT_NE(attrs.local_memory, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  EXPECT_NE(attrs.shared_memory, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  // The work-group the SPIR-V requires: 4 sub-groups of 16 at most.
  EXPECT_GE(attrs.max_threads_per_block, 64u);
  EXPECT_NE(attrs.max_threads_per_block, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  EXPECT_EQ(attrs.scalar_registers, TG_KERNEL_ATTRIBUTE_UNKNOWN);
}

TEST_F(IntelOnLevelZero, BuffersRoundTrip) {
  std::mt19937 random(std::random_device{}());
  std::vector<uint32_t> data(256);
  for (uint32_t &word : data)
    word = random();
  Buffer a = device->allocate(1024), b = device->allocate(1024);
  a.write(data);
  EXPECT_EQ(a.read<uint32_t>(256), data);
  b.copyFrom(a, 1024);
  EXPECT_EQ(b.read<uint32_t>(256), data);
  b.memset(0xab, 16, 8);
  std::vector<uint8_t> got = b.read<uint8_t>(1024);
  for (size_t i = 0; i < 1024; ++i) {
    uint8_t want =
        i >= 8 && i < 24 ? 0xab : reinterpret_cast<uint8_t *>(data.data())[i];
    ASSERT_EQ(got[i], want) << "byte " << i;
  }
  // The same in a stream: nothing is read before the stream's synchronize.
  Stream stream = device->createStream();
  std::vector<uint32_t> back(256, 0);
  b.memset(0x5a, 1024, 0, &stream);
  b.write(data.data(), 64, 0, &stream);
  b.read(back.data(), 1024, 0, &stream);
  stream.synchronize();
  for (size_t i = 0; i < 256; ++i)
    ASSERT_EQ(back[i], i < 16 ? data[i] : 0x5a5a5a5au) << "word " << i;
}

TEST_F(IntelOnLevelZero, EventsTimeAndOrderWork) {
  std::string image = vectorAddImage(16);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "add_kernel");
  Stream first = device->createStream(), second = device->createStream();
  Event start = device->createEvent(), end = device->createEvent();
  const int n = 1 << 16;
  Buffer x = device->allocate(n * 4), y = device->allocate(n * 4),
         out = device->allocate(n * 4);
  x.memset(0, n * 4);
  y.memset(0, n * 4);
  std::vector<float> ones(n, 1.0f);
  start.record(first);
  x.write(ones.data(), n * 4, 0, &first);
  ArgPack args;
  args.add(x).add(y).add(out).add(int32_t(n));
  kernel.launch({n / kBlock, 1, 1}, {64, 1, 1}, args, &first);
  end.record(first);
  // The second stream reads only after the first's kernel.
  end.waitIn(second);
  std::vector<float> got(n, -1.0f);
  out.read(got.data(), n * 4, 0, &second);
  second.synchronize();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 1.0f) << "element " << i;
  float ms = end.elapsedSince(start);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 60000.0f);
  // Recorded again, the event marks the new point.
  end.record(second);
  end.synchronize();
  EXPECT_GE(end.elapsedSince(start), ms);
}

TEST_F(IntelOnLevelZero, ModuleLoadChecksTheImage) {
  std::string image = vectorAddImage(16);
  llvm::Expected<intel::IntelImage> decoded =
      backend::readImage<intel::IntelImage>(image.data(), image.size());
  ASSERT_TRUE(bool(decoded));
  uint64_t creates = hooks.callCount("zeModuleCreate");

  intel::IntelImage other = *decoded;
  other.target = "intel:dg2";
  std::string forDg2 = backend::writeImage(other);
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "the image of kernel add_kernel is for intel:dg2",
                [&] { device->loadModule(forDg2.data(), forDg2.size()); });

  other = *decoded;
  other.subGroupSize = 24;
  std::string odd = backend::writeImage(other);
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "kernel add_kernel needs sub-groups of 24; ",
                [&] { device->loadModule(odd.data(), odd.size()); });
  EXPECT_EQ(hooks.callCount("zeModuleCreate"), creates);

  // SPIR-V the driver cannot build: the error says so with its build log.
  other = *decoded;
  for (size_t i = 20; i < other.spirv.size(); ++i)
    other.spirv[i] = static_cast<char>(0xee);
  std::string broken = backend::writeImage(other);
  Error error = expectError(
      [&] { device->loadModule(broken.data(), broken.size()); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT) << error.what();
  EXPECT_NE(std::string(error.what())
                .find("building the SPIR-V of kernel add_kernel "
                      "(zeModuleCreate): 0x70000004 "
                      "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"),
            std::string::npos)
      << error.what();
}

TEST_F(IntelOnLevelZero, BadLaunchesAreRefusedBeforeTheDriver) {
  std::string image = vectorAddImage(16);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "add_kernel");
  Buffer buffer = device->allocate(1024);
  ArgPack args;
  args.add(buffer).add(buffer).add(buffer).add(int32_t(0));
  uint64_t launches = hooks.callCount("zeCommandListAppendLaunchKernel");
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "kernel add_kernel was compiled for blocks of 64 threads (4 "
                "warps of 16), the launch asks for (128, 1, 1)",
                [&] { kernel.launch({1, 1, 1}, {128, 1, 1}, args); });
  const std::vector<uint8_t> &bytes = args.bytes();
  expectRefusal(TG_ERROR_INVALID_ARGUMENT, "the launch passes 16", [&] {
    kernel.launch({1, 1, 1}, {64, 1, 1}, bytes.data(), 16);
  });
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "cannot add dynamic shared local memory", [&] {
                  kernel.launch({1, 1, 1}, {64, 1, 1}, bytes.data(),
                                bytes.size(), nullptr, 1024);
                });
  EXPECT_EQ(hooks.callCount("zeCommandListAppendLaunchKernel"), launches);
}

TEST_F(IntelOnLevelZero, DriverFailuresNameTheCallAndTheResult) {
  hooks.failNext("zeMemAllocDevice", ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  expectRefusal(TG_ERROR_OUT_OF_MEMORY,
                "cannot allocate 1048576 bytes (zeMemAllocDevice): "
                "0x70000003 ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
                [&] { device->allocate(1 << 20); });

  std::string image = vectorAddImage(16);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "add_kernel");
  Buffer buffer = device->allocate(1024);
  ArgPack args;
  args.add(buffer).add(buffer).add(buffer).add(int32_t(0));
  hooks.failNext("zeCommandListAppendLaunchKernel",
                 ZE_RESULT_ERROR_DEVICE_LOST);
  expectRefusal(TG_ERROR_DEVICE,
                "launching kernel add_kernel: 0x70000001 "
                "ZE_RESULT_ERROR_DEVICE_LOST",
                [&] { kernel.launch({1, 1, 1}, {64, 1, 1}, args); });

  // A failed wait at a stream's synchronize names the kernels since.
  Stream stream = device->createStream();
  kernel.launch({1, 1, 1}, {64, 1, 1}, args, &stream);
  hooks.failNext("zeEventHostSynchronize", ZE_RESULT_ERROR_DEVICE_LOST);
  expectRefusal(TG_ERROR_DEVICE,
                "stream synchronize (kernels launched in the stream since "
                "its last synchronize: add_kernel): 0x70000001",
                [&] { stream.synchronize(); });
  // The kernel still runs afterwards.
  kernel.launch({1, 1, 1}, {64, 1, 1}, args);
}

} // namespace
