//===- MultiDeviceTest.cpp - Several devices of one plugin ----------------===//
//
// The per-device paths of the runtime with the testdev plugin exposing more
// devices (TEGULA_TESTDEV_COUNT, read by that plugin alone): device names
// and ordinals, one compile per arch loaded once per device, concurrent
// launches on one stream per device, and the error for a launch whose
// buffers are on another device than its kernel (C API and C++ layer).
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

using namespace tegula;
using namespace tegula::test;

namespace {

/// Sets an environment variable while it lives; restores the old value.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (previous)
      ::setenv(name, previous->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

/// The lines of |path| (TEGULA_TESTDEV_LOG's file).
std::vector<std::string> readLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

Runtime testdevRuntime() { return makeRuntime(testPlugin("testdev")); }

TEST(MultiDevice, TestdevCountGivesThatManyDevicesWithStableNames) {
  ScopedEnv count("TEGULA_TESTDEV_COUNT", "4");
  Runtime runtime = testdevRuntime();
  std::vector<Device> devices = runtime.devices();
  ASSERT_EQ(devices.size(), 4u);
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].name(), "testdev:" + std::to_string(i));
    EXPECT_EQ(devices[i].target(),
              i % 2 ? "testdev:testarch2" : "testdev:testarch");
    EXPECT_EQ(devices[i].properties().name,
              "Tegula test device " + std::to_string(i));
    EXPECT_EQ(runtime.device("testdev:" + std::to_string(i)).get(),
              devices[i].get());
  }
  expectRefusal(TG_ERROR_NOT_FOUND, "no device named 'testdev:4'",
                [&] { runtime.device("testdev:4"); });
}

TEST(MultiDevice, TestdevCountZeroAndNonsense) {
  {
    ScopedEnv count("TEGULA_TESTDEV_COUNT", "0");
    Runtime runtime = testdevRuntime();
    EXPECT_TRUE(runtime.devices().empty());
    PluginInfo info = findRecord(runtime, testPlugin("testdev"));
    EXPECT_TRUE(info.loaded);
    EXPECT_EQ(info.deviceStatus, "no device (TEGULA_TESTDEV_COUNT=0)");
  }
  ScopedEnv count("TEGULA_TESTDEV_COUNT", "lots");
  Runtime runtime = testdevRuntime();
  PluginInfo info = findRecord(runtime, testPlugin("testdev"));
  EXPECT_FALSE(info.loaded);
  EXPECT_NE(info.skipMessage.find("TEGULA_TESTDEV_COUNT=lots is not a number "
                                  "of devices from 0 to 16"),
            std::string::npos)
      << info.skipMessage;
}

// One image per arch, loaded on each device that uses it; each device's
// module launches there, on a stream of its own, from its own thread.
TEST(MultiDevice, OneCompileLoadedOncePerDeviceLaunchedConcurrently) {
  TempDir dir;
  std::string log = dir.path() + "/testdev.log";
  ScopedEnv count("TEGULA_TESTDEV_COUNT", "4");
  ScopedEnv logged("TEGULA_TESTDEV_LOG", log);
  Runtime runtime = testdevRuntime();
  Image image = runtime.compile("testdev:testarch", "x", 1,
                                {{"kernel", "fill_u32"}});
  std::vector<Device> devices = {runtime.device("testdev:0"),
                                 runtime.device("testdev:2")};
  std::vector<Kernel> kernels;
  for (Device &device : devices)
    kernels.push_back(
        device.loadKernel(image.data(), image.size(), "fill_u32"));
  for (size_t i = 0; i < devices.size(); ++i)
    EXPECT_EQ(kernels[i].device(), devices[i].get());

  const int n = 1000;
  std::vector<Buffer> outs;
  for (Device &device : devices)
    outs.push_back(device.allocate(n * 4));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices.size(); ++i)
    threads.emplace_back([&, i] {
      Stream stream = devices[i].createStream();
      ArgPack args(image.metadata());
      args.add(outs[i]).add(uint32_t(100 + i)).add(int32_t(n));
      kernels[i].launch({(n + 127) / 128, 1, 1}, {128, 1, 1}, args, &stream);
      stream.synchronize();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t i = 0; i < devices.size(); ++i) {
    std::vector<uint32_t> values = outs[i].read<uint32_t>(n);
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(values[j], 100 + i) << devices[i].name() << " [" << j << "]";
  }
  EXPECT_EQ(readLines(log),
            (std::vector<std::string>{"compile testdev:testarch fill_u32",
                                      "load testdev:0 fill_u32",
                                      "load testdev:2 fill_u32"}));
}

TEST(MultiDevice, BuffersOfAnotherDeviceAreRefusedNamingThem) {
  ScopedEnv count("TEGULA_TESTDEV_COUNT", "3");
  Runtime runtime = testdevRuntime();
  Device zero = runtime.device("testdev:0"), one = runtime.device("testdev:1"),
         two = runtime.device("testdev:2");
  Image image = zero.compile("x", 1, {{"kernel", "scale_f32"}});
  const tg_kernel_metadata *meta = image.metadata();
  Kernel kernel = zero.loadKernel(image.data(), image.size(), "scale_f32");
  Buffer here = zero.allocate(64), onOne = one.allocate(64),
         onTwo = two.allocate(64);
  here.memset(0, 64);

  // The C API: each argument elsewhere is named with its device.
  const tegula_buffer_t *mixed[] = {here.get(), onOne.get(), nullptr,
                                    nullptr};
  EXPECT_EQ(takeMessage(tegula_kernel_check_buffers(kernel.get(), meta, mixed,
                                                    4)),
            "kernel scale_f32 is on testdev:0, but argument 'in' (1) is a "
            "buffer on testdev:1: a kernel reads every pointer on its own "
            "device; copy the data there or load the kernel on that device");
  const tegula_buffer_t *both[] = {onTwo.get(), onOne.get()};
  tegula_error_t *error = tegula_kernel_check_buffers(kernel.get(), nullptr,
                                                      both, 2);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(tegula_error_get_code(error), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(takeMessage(error),
            "kernel is on testdev:0, but argument (0) is a buffer on "
            "testdev:2, argument (1) is a buffer on testdev:1: a kernel reads "
            "every pointer on its own device; copy the data there or load "
            "the kernel on that device");
  const tegula_buffer_t *fine[] = {here.get(), here.get(), nullptr, nullptr};
  EXPECT_EQ(tegula_kernel_check_buffers(kernel.get(), meta, fine, 4),
            nullptr);
  EXPECT_EQ(tegula_kernel_check_buffers(kernel.get(), meta, nullptr, 0),
            nullptr);
  EXPECT_EQ(takeMessage(tegula_kernel_check_buffers(nullptr, meta, fine, 4)),
            "tegula_kernel_check_buffers: kernel is NULL");
  EXPECT_EQ(tegula_kernel_get_device(kernel.get()), zero.get());
  EXPECT_EQ(tegula_kernel_get_device(nullptr), nullptr);

  // The C++ layer checks before launching (testdev's memory is all host
  // memory, so the launch itself would not notice).
  ArgPack args(meta);
  args.add(here).add(onOne).add(2.0f).add(int64_t(16));
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "kernel scale_f32 is on testdev:0, but argument 'in' (1) is a "
                "buffer on testdev:1",
                [&] { kernel.launch({1, 1, 1}, {16, 1, 1}, args); });
  // A stream of another device, too.
  Stream otherStream = one.createStream();
  ArgPack good(meta);
  good.add(here).add(here).add(2.0f).add(int64_t(16));
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "the stream belongs to testdev:1, the kernel to testdev:0",
                [&] { kernel.launch({1, 1, 1}, {16, 1, 1}, good, &otherStream); });
  kernel.launch({1, 1, 1}, {16, 1, 1}, good);
}

} // namespace
