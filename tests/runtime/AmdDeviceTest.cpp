//===- AmdDeviceTest.cpp - The AMD plugin's HIP runtime, on a double ------===//
//
// The built amd plugin, through the runtime, on libtegula_fake_hip.so
// (FakeHip.cpp), a recording double of libamdhip64 that fakes one gfx942
// (TEGULA_AMD_HIP_LIBRARY names it): discovery, the corpus vector add
// compiled and loaded, what a launch asks HIP for, buffers, streams and
// events, the launch checks that keep HIP from seeing a bad launch, and a
// HIP failure's Status. Kernels do not run in the double: what is checked
// is what the plugin asks HIP to do.
//
//===----------------------------------------------------------------------===//

#include "AmdCompiler.h"
#include "TestSupport.h"
#include "TileBytecodeSupport.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::test;

namespace {

/// The double's own entry points (FakeHip.cpp).
struct FakeHip {
  const char *(*log)() = nullptr;
  void (*clearLog)() = nullptr;
  void (*failNext)(const char *, int) = nullptr;
  void (*setArgumentSizes)(const uint32_t *, size_t) = nullptr;

  /// The double the plugin loaded (the same file, so the same instance).
  static const FakeHip &get() {
    static FakeHip fake = [] {
      FakeHip f;
      void *library = dlopen(TEGULA_FAKE_HIP_LIBRARY, RTLD_NOW | RTLD_LOCAL);
      EXPECT_NE(library, nullptr) << dlerror();
      if (!library)
        return f;
      f.log = reinterpret_cast<const char *(*)()>(
          dlsym(library, "tegulaFakeHipLog"));
      f.clearLog =
          reinterpret_cast<void (*)()>(dlsym(library, "tegulaFakeHipClearLog"));
      f.failNext = reinterpret_cast<void (*)(const char *, int)>(
          dlsym(library, "tegulaFakeHipFailNext"));
      f.setArgumentSizes = reinterpret_cast<void (*)(const uint32_t *, size_t)>(
          dlsym(library, "tegulaFakeHipSetArgumentSizes"));
      return f;
    }();
    return fake;
  }

  /// The logged calls of |name|, each "name(arguments)".
  std::vector<std::string> calls(const std::string &name) const {
    std::vector<std::string> found;
    std::istringstream lines(log());
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(name + "(", 0) == 0)
        found.push_back(line);
    return found;
  }
};

/// The little-endian bytes of |value| as the double logs them.
template <typename T> std::string hexOf(T value) {
  std::string text;
  char byte[3];
  for (size_t i = 0; i < sizeof(T); ++i) {
    std::snprintf(byte, sizeof(byte), "%02x",
                  reinterpret_cast<const unsigned char *>(&value)[i]);
    text += byte;
  }
  return text;
}

class AmdOnFakeHip : public ::testing::Test {
protected:
  void SetUp() override {
    const FakeHip &fake = FakeHip::get();
    ASSERT_NE(fake.log, nullptr);
    std::vector<Device> devices = runtime.devices();
    ASSERT_EQ(devices.size(), 1u) << why();
    device.emplace(devices.front());
    fake.clearLog();
  }

  std::string why() const {
    for (const PluginInfo &info : runtime.plugins())
      if (info.name == "amd")
        return info.loaded ? info.deviceStatus : info.skipMessage;
    return "the amd plugin is not there";
  }

  /// The vector add compiled for the device and loaded.
  Kernel vectorAdd() {
    std::string bytes = tileBytecode(vectorAddIR(256));
    Image compiled = device->compile(bytes.data(), bytes.size());
    image = std::string(static_cast<const char *>(compiled.data()),
                        compiled.size());
    return device->loadKernel(image.data(), image.size(), "add_kernel");
  }

  const FakeHip &fake = FakeHip::get();
  Runtime runtime = [] {
    // ctest sets it too; a run of the binary by hand gets the double.
    setenv("TEGULA_AMD_HIP_LIBRARY", TEGULA_FAKE_HIP_LIBRARY, 0);
    return makeRuntime(kBuildPluginDir, "amd");
  }();
  std::optional<Device> device;
  std::string image;
};

TEST_F(AmdOnFakeHip, DiscoversTheDevice) {
  DeviceProperties p = device->properties();
  EXPECT_EQ(device->backend(), "amd");
  EXPECT_EQ(device->target(), "amd:gfx942");
  EXPECT_EQ(p.name, "Fake AMD Instinct MI300X");
  EXPECT_EQ(p.arch, "gfx942");
  EXPECT_EQ(p.warpSize, 64u);
  EXPECT_EQ(p.computeUnits, 304u);
  EXPECT_EQ(p.sharedMemoryPerBlock, 64u * 1024);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024u);
  EXPECT_EQ(p.globalMemory, uint64_t(192) << 30);
  EXPECT_EQ(p.matrixUnits, uint32_t(TG_MATRIX_UNIT_AMD_MFMA));
}

TEST_F(AmdOnFakeHip, LoadsTheCompiledCodeObject) {
  Kernel kernel = vectorAdd();
  std::vector<std::string> loads = fake.calls("hipModuleLoadData");
  ASSERT_EQ(loads.size(), 1u) << fake.log();
  // 7f 45 4c 46: "\x7fELF".
  EXPECT_EQ(loads[0].find("hipModuleLoadData(first bytes 7f454c46, ELF size "),
            0u)
      << loads[0];
  std::vector<std::string> lookups = fake.calls("hipModuleGetFunction");
  ASSERT_EQ(lookups.size(), 1u) << fake.log();
  EXPECT_NE(lookups[0].find(", add_kernel)"), std::string::npos) << lookups[0];
}

TEST_F(AmdOnFakeHip, KernelAttributesComeFromTheCodeObjectMetadata) {
  Kernel kernel = vectorAdd();
  tg_kernel_attributes attrs = kernel.attributes();
  // What `llvm-readobj --notes` shows of the code object: a small kernel
  // that spills nothing, in a workgroup of 4 waves of 64.
  EXPECT_GT(attrs.registers, 0u);
  EXPECT_LT(attrs.registers, 64u);
  EXPECT_GT(attrs.scalar_registers, 0u);
  EXPECT_LE(attrs.scalar_registers, 112u);
  EXPECT_EQ(attrs.spills, 0u);
  EXPECT_EQ(attrs.local_memory, 0u);
  EXPECT_EQ(attrs.vector_register_spills, 0u);
  EXPECT_EQ(attrs.scalar_register_spills, 0u);
  EXPECT_EQ(attrs.shared_memory, 0u);
  EXPECT_EQ(attrs.max_threads_per_block, 256u);
}

TEST_F(AmdOnFakeHip, LaunchPassesGridBlockArgumentsSharedMemoryAndStream) {
  Kernel kernel = vectorAdd();
  Buffer x = device->allocate(4096), y = device->allocate(4096),
         out = device->allocate(4096);
  const uint32_t sizes[] = {8, 8, 8, 4};
  fake.setArgumentSizes(sizes, 4);
  ArgPack args;
  args.add(x).add(y).add(out).add(int32_t(1000));
  Stream stream = device->createStream();
  fake.clearLog();
  kernel.launch({4, 1, 1}, {256, 1, 1}, args.bytes().data(),
                args.bytes().size(), &stream, 1024);
  std::vector<std::string> launches = fake.calls("hipModuleLaunchKernel");
  ASSERT_EQ(launches.size(), 1u) << fake.log();
  EXPECT_EQ(launches[0].find("hipModuleLaunchKernel(function add_kernel#"), 0u)
      << launches[0];
  // 4 wavefronts of 64; the launch's 1024 bytes of LDS; the stream created
  // above; the arguments as the runtime packed them.
  const std::string rest =
      ", grid (4, 1, 1), block (256, 1, 1), sharedMem 1024, stream stream#";
  EXPECT_NE(launches[0].find(rest), std::string::npos) << launches[0];
  const std::string packed = "args [" + hexOf(x.address()) + ", " +
                             hexOf(y.address()) + ", " + hexOf(out.address()) +
                             ", " + hexOf(int32_t(1000)) + "], extra null)";
  EXPECT_NE(launches[0].find(packed), std::string::npos) << launches[0];
  // In a stream nothing waits; the stream's synchronize does.
  EXPECT_TRUE(fake.calls("hipStreamSynchronize").empty()) << fake.log();
  stream.synchronize();
  EXPECT_EQ(fake.calls("hipStreamSynchronize").size(), 1u) << fake.log();

  // Without a stream: the null stream, waited for.
  fake.clearLog();
  kernel.launch({2, 1, 1}, {256, 1, 1}, args);
  launches = fake.calls("hipModuleLaunchKernel");
  ASSERT_EQ(launches.size(), 1u) << fake.log();
  EXPECT_NE(launches[0].find("sharedMem 0, stream null"), std::string::npos)
      << launches[0];
  EXPECT_EQ(fake.calls("hipStreamSynchronize"),
            std::vector<std::string>{"hipStreamSynchronize(null)"});
}

TEST_F(AmdOnFakeHip, BadLaunchesAreRefusedBeforeHip) {
  Kernel kernel = vectorAdd();
  Buffer buffer = device->allocate(1024);
  ArgPack args;
  args.add(buffer).add(buffer).add(buffer).add(int32_t(0));
  fake.clearLog();
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "kernel add_kernel was compiled for blocks of 256 threads (4 "
                "warps of 64), the launch asks for (128, 1, 1)",
                [&] {
                  kernel.launch({1, 1, 1}, {128, 1, 1}, args);
                });
  expectRefusal(TG_ERROR_INVALID_ARGUMENT, "exceeds the device's limit", [&] {
    kernel.launch({1, 70000, 1}, {256, 1, 1}, args);
  });
  const std::vector<uint8_t> &bytes = args.bytes();
  expectRefusal(TG_ERROR_INVALID_ARGUMENT, "the launch passes 16", [&] {
    kernel.launch({1, 1, 1}, {256, 1, 1}, bytes.data(), 16);
  });
  // More LDS than the device has.
  expectRefusal(TG_ERROR_OUT_OF_RANGE, "bytes of shared memory per block", [&] {
    kernel.launch({1, 1, 1}, {256, 1, 1}, bytes.data(), bytes.size(), nullptr,
                  65 * 1024);
  });
  EXPECT_TRUE(fake.calls("hipModuleLaunchKernel").empty()) << fake.log();
}

TEST_F(AmdOnFakeHip, ModuleLoadChecksTheImage) {
  Kernel kernel = vectorAdd();
  Module module = device->loadModule(image.data(), image.size());
  expectRefusal(TG_ERROR_NOT_FOUND, "other", [&] { module.kernel("other"); });
  expectRefusal(TG_ERROR_INVALID_FORMAT, "",
                [&] { device->loadModule("garbage", 7); });
  // An image for another arch never reaches HIP.
  llvm::Expected<amd::AmdImage> decoded =
      backend::readImage<amd::AmdImage>(image.data(), image.size());
  ASSERT_TRUE(bool(decoded));
  decoded->target = "amd:gfx90a";
  decoded->arch = "gfx90a";
  std::string other = backend::writeImage(*decoded);
  fake.clearLog();
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "the image of kernel add_kernel is for amd:gfx90a (gfx90a "
                "code), this device is amd:gfx942",
                [&] { device->loadModule(other.data(), other.size()); });
  EXPECT_TRUE(fake.calls("hipModuleLoadData").empty()) << fake.log();
}

TEST_F(AmdOnFakeHip, BuffersRoundTrip) {
  std::vector<uint32_t> data(256);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint32_t(i * 2654435761u);
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
  // Each NULL-stream operation waits for the null stream.
  EXPECT_EQ(fake.calls("hipMemcpyHtoDAsync").size(), 1u) << fake.log();
  EXPECT_EQ(fake.calls("hipMemcpyDtoDAsync").size(), 1u) << fake.log();
  EXPECT_EQ(fake.calls("hipMemsetD8Async").size(), 1u) << fake.log();
  EXPECT_EQ(fake.calls("hipMemcpyDtoHAsync").size(), 3u) << fake.log();
  EXPECT_EQ(fake.calls("hipStreamSynchronize").size(), 6u) << fake.log();

  // In a stream, the stream is passed and nothing waits.
  Stream stream = device->createStream();
  fake.clearLog();
  a.write(data.data(), 64, 0, &stream);
  stream.synchronize();
  std::vector<std::string> writes = fake.calls("hipMemcpyHtoDAsync");
  ASSERT_EQ(writes.size(), 1u) << fake.log();
  EXPECT_NE(writes[0].find(", 64, stream#"), std::string::npos) << writes[0];
  EXPECT_EQ(fake.calls("hipStreamSynchronize").size(), 1u) << fake.log();
}

TEST_F(AmdOnFakeHip, StreamsAndEvents) {
  Stream stream = device->createStream(), other = device->createStream();
  // hipStreamDefault: ordered with the null stream.
  EXPECT_EQ(fake.calls("hipStreamCreateWithFlags"),
            (std::vector<std::string>{"hipStreamCreateWithFlags(0)",
                                      "hipStreamCreateWithFlags(0)"}));
  Event start = device->createEvent(), end = device->createEvent();
  start.record(stream);
  end.record(stream);
  end.waitIn(other);
  end.synchronize();
  float ms = end.elapsedSince(start);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(fake.calls("hipEventRecord").size(), 2u) << fake.log();
  EXPECT_EQ(fake.calls("hipStreamWaitEvent").size(), 1u) << fake.log();
  EXPECT_EQ(fake.calls("hipEventElapsedTime").size(), 1u) << fake.log();

  // A caller's stream is used and left alone.
  Stream native = device->wrapNativeStream(0x5000);
  Buffer buffer = device->allocate(64);
  fake.clearLog();
  buffer.memset(1, 64, 0, &native);
  EXPECT_NE(fake.calls("hipMemsetD8Async")[0].find("unknown:0x5000"),
            std::string::npos)
      << fake.log();
}

TEST_F(AmdOnFakeHip, HipFailuresNameTheCallAndHipsError) {
  fake.failNext("hipMalloc", 2); // hipErrorOutOfMemory
  expectRefusal(TG_ERROR_OUT_OF_MEMORY,
                "cannot allocate 1048576 bytes (hipMalloc): "
                "hipErrorOutOfMemory (2): a failure the test asked for",
                [&] { device->allocate(1 << 20); });

  Kernel kernel = vectorAdd();
  Buffer buffer = device->allocate(1024);
  ArgPack args;
  args.add(buffer).add(buffer).add(buffer).add(int32_t(0));
  fake.failNext("hipModuleLaunchKernel", 719); // hipErrorLaunchFailure
  expectRefusal(TG_ERROR_DEVICE,
                "launching kernel add_kernel: hipErrorLaunchFailure (719)",
                [&] {
                  kernel.launch({1, 1, 1}, {256, 1, 1}, args);
                });

  // A failure found at a stream's synchronize names the kernels since.
  Stream stream = device->createStream();
  kernel.launch({1, 1, 1}, {256, 1, 1}, args, &stream);
  fake.failNext("hipStreamSynchronize", 719);
  expectRefusal(TG_ERROR_DEVICE,
                "stream synchronize (kernels launched in the stream since its "
                "last synchronize: add_kernel): hipErrorLaunchFailure",
                [&] { stream.synchronize(); });

  fake.failNext("hipModuleLoadData", 200); // hipErrorInvalidImage
  expectRefusal(TG_ERROR_INVALID_FORMAT,
                "loading the code object of kernel add_kernel: "
                "hipErrorInvalidImage (200)",
                [&] { vectorAdd(); });
}

} // namespace
