//===- NvidiaMultiDeviceTest.cpp - The nvidia plugin on two fake GPUs -----===//
//
// The built nvidia plugin, through the runtime, on libtegula_fake_cuda.so
// (FakeCuda.cpp: two GPUs of sm_90 that check which primary context each
// call is made in), named by TEGULA_CUDA_DRIVER_LIBRARY; its own executable,
// since the plugin loads the driver once per process. Kernels compile to
// PTX only (TEGULA_PTXAS=none) and do not run: the fake records launches.
//
// What multi-GPU use needs of the plugin: every GPU is its own device
// (nvidia:<ordinal>), its primary context retained on first use only; its
// memory, streams, modules and launches made in its context, whatever
// context the calling thread had current (and given back afterwards); one
// compiled image loaded once per device; native streams of another GPU
// refused; the runtime's mixed-device errors.
//
//===----------------------------------------------------------------------===//

#include "NvidiaTestSupport.h"
#include "TileBytecodeSupport.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <thread>

using namespace tegula;
using namespace tegula::test;

namespace {

/// The fake driver's own functions (the plugin opened the same file).
struct FakeCuda {
  const char *(*log)() = nullptr;
  void (*clearLog)() = nullptr;
  int (*ctxGetCurrent)(void **) = nullptr;
  int (*ctxSetCurrent)(void *) = nullptr;
  int (*primaryCtxRetain)(void **, int) = nullptr;
  int (*streamCreate)(void **, unsigned) = nullptr;

  FakeCuda() {
    const char *path = std::getenv("TEGULA_CUDA_DRIVER_LIBRARY");
    void *library = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!library)
      return;
    log = reinterpret_cast<const char *(*)()>(dlsym(library, "tegulaFakeCudaLog"));
    clearLog = reinterpret_cast<void (*)()>(dlsym(library, "tegulaFakeCudaClearLog"));
    ctxGetCurrent = reinterpret_cast<int (*)(void **)>(dlsym(library, "cuCtxGetCurrent"));
    ctxSetCurrent = reinterpret_cast<int (*)(void *)>(dlsym(library, "cuCtxSetCurrent"));
    primaryCtxRetain = reinterpret_cast<int (*)(void **, int)>(
        dlsym(library, "cuDevicePrimaryCtxRetain"));
    streamCreate = reinterpret_cast<int (*)(void **, unsigned)>(
        dlsym(library, "cuStreamCreate"));
  }
  bool ok() const { return log && clearLog && ctxSetCurrent && streamCreate; }

  /// The log's lines that start with |prefix|.
  std::vector<std::string> lines(const std::string &prefix = "") const {
    std::vector<std::string> out;
    std::istringstream in(log());
    for (std::string line; std::getline(in, line);)
      if (line.rfind(prefix, 0) == 0)
        out.push_back(line);
    return out;
  }
};

class NvidiaOnFakeGpus : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fake.ok())
      GTEST_SKIP() << "TEGULA_CUDA_DRIVER_LIBRARY does not name the fake "
                      "driver (ctest sets it)";
    ::setenv("TEGULA_PTXAS", "none", 1);
    fake.clearLog();
    runtime.emplace(makeNvidiaRuntime());
    if (runtime->devices().size() != 2)
      GTEST_FAIL() << noDeviceReason(*runtime);
  }
  /// add_kernel (tile IR of vector add), compiled once for nvidia:sm_90.
  Image compileVectorAdd() {
    std::string bytecode = tileBytecode(vectorAddIR(256));
    return runtime->compile("nvidia:sm_90", bytecode.data(), bytecode.size());
  }

  FakeCuda fake;
  std::optional<Runtime> runtime;
};

TEST_F(NvidiaOnFakeGpus, EveryGpuIsADeviceWithItsOrdinal) {
  std::vector<Device> devices = runtime->devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].name(), "nvidia:" + std::to_string(i));
    EXPECT_EQ(devices[i].target(), "nvidia:sm_90");
    EXPECT_EQ(devices[i].properties().name, "Fake GPU " + std::to_string(i));
  }
  // Discovery retains no context: a GPU nobody uses gets none.
  EXPECT_TRUE(fake.lines("cuDevicePrimaryCtxRetain").empty()) << fake.log();
}

TEST_F(NvidiaOnFakeGpus, EachDeviceWorksInItsOwnPrimaryContext) {
  Device second = runtime->device("nvidia:1");
  Buffer buffer = second.allocate(256);
  std::vector<uint32_t> values(64, 7);
  buffer.write(values);
  EXPECT_EQ(buffer.read<uint32_t>(64), values);
  // Only nvidia:1's context was retained, once.
  EXPECT_EQ(fake.lines("cuDevicePrimaryCtxRetain"),
            std::vector<std::string>{"cuDevicePrimaryCtxRetain(device=1)"});
  EXPECT_EQ(fake.lines("cuMemAlloc"),
            std::vector<std::string>{"cuMemAlloc(device=1, 256)"});

  Device first = runtime->device("nvidia:0");
  Buffer other = first.allocate(128);
  other.memset(0, 128);
  Stream stream = first.createStream();
  other.write(values.data(), 0, 128, &stream);
  stream.synchronize();
  EXPECT_EQ(fake.lines("cuDevicePrimaryCtxRetain"),
            (std::vector<std::string>{"cuDevicePrimaryCtxRetain(device=1)",
                                      "cuDevicePrimaryCtxRetain(device=0)"}));
  EXPECT_EQ(fake.lines("cuStreamCreate"),
            std::vector<std::string>{"cuStreamCreate(device=0)"});
}

// One image, loaded once on each GPU (lazily: a module per device that
// loads it), each launched in its own stream from its own thread; the
// thread's own current context (another GPU's) is given back.
TEST_F(NvidiaOnFakeGpus, OneImageLoadedOnEachGpuLaunchedConcurrently) {
  Image image = compileVectorAdd();
  ASSERT_TRUE(fake.lines("cuModuleLoadDataEx").empty());
  std::vector<Device> devices = runtime->devices();
  std::vector<Kernel> kernels;
  for (Device &device : devices)
    kernels.push_back(
        device.loadKernel(image.data(), image.size(), "add_kernel"));
  EXPECT_EQ(fake.lines("cuModuleLoadDataEx"),
            (std::vector<std::string>{"cuModuleLoadDataEx(device=0)",
                                      "cuModuleLoadDataEx(device=1)"}));

  std::vector<std::string> failures(devices.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        // The thread works in the *other* GPU's context, as a framework's
        // thread might (torch.cuda.device(other)).
        void *theirs = nullptr;
        fake.primaryCtxRetain(&theirs, int(1 - i));
        fake.ctxSetCurrent(theirs);
        Stream stream = devices[i].createStream();
        Buffer x = devices[i].allocate(4096), y = devices[i].allocate(4096),
               out = devices[i].allocate(4096);
        ArgPack args(image.metadata());
        args.add(x).add(y).add(out).add(int32_t(1024));
        kernels[i].launch({4, 1, 1}, {128, 1, 1}, args, &stream);
        stream.synchronize();
        void *now = nullptr;
        fake.ctxGetCurrent(&now);
        if (now != theirs)
          failures[i] = "the thread's context was not given back";
      } catch (const Error &error) {
        failures[i] = error.what();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t i = 0; i < devices.size(); ++i)
    EXPECT_EQ(failures[i], "") << devices[i].name();
  std::vector<std::string> launches = fake.lines("cuLaunchKernel");
  std::sort(launches.begin(), launches.end());
  EXPECT_EQ(launches,
            (std::vector<std::string>{
                "cuLaunchKernel(device=0, add_kernel, grid 4x1x1, own stream)",
                "cuLaunchKernel(device=1, add_kernel, grid 4x1x1, own stream)"}))
      << fake.log();
}

TEST_F(NvidiaOnFakeGpus, ArgumentsAndStreamsOfAnotherGpuAreRefused) {
  Image image = compileVectorAdd();
  Device first = runtime->device("nvidia:0"), second = runtime->device("nvidia:1");
  Kernel kernel = first.loadKernel(image.data(), image.size(), "add_kernel");
  Buffer x = first.allocate(1024), y = second.allocate(1024),
         out = first.allocate(1024);
  ArgPack args(image.metadata());
  args.add(x).add(y).add(out).add(int32_t(256));
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "kernel add_kernel is on nvidia:0, but argument 'arg1' (1) is "
                "a buffer on nvidia:1",
                [&] { kernel.launch({1, 1, 1}, {128, 1, 1}, args); });
  Stream theirs = second.createStream();
  ArgPack good(image.metadata());
  good.add(x).add(x).add(out).add(int32_t(256));
  expectRefusal(TG_ERROR_INVALID_ARGUMENT,
                "the stream belongs to nvidia:1, the kernel to nvidia:0",
                [&] { kernel.launch({1, 1, 1}, {128, 1, 1}, good, &theirs); });
  EXPECT_TRUE(fake.lines("cuLaunchKernel").empty()) << fake.log();

  // A native CUstream made in nvidia:1's context, given to nvidia:0.
  void *context = nullptr, *native = nullptr;
  fake.primaryCtxRetain(&context, 1);
  void *previous = nullptr;
  fake.ctxGetCurrent(&previous);
  fake.ctxSetCurrent(context);
  ASSERT_EQ(fake.streamCreate(&native, 0), 0);
  fake.ctxSetCurrent(previous);
  tegula_stream_t *wrapped = nullptr;
  std::string message = takeMessage(tegula_stream_create_native(
      first.get(), reinterpret_cast<uintptr_t>(native), &wrapped));
  EXPECT_NE(message.find("belongs to another CUDA context than CUDA device 0 "
                         "(Fake GPU 0)'s primary context"),
            std::string::npos)
      << message;
  ASSERT_EQ(tegula_stream_create_native(
                second.get(), reinterpret_cast<uintptr_t>(native), &wrapped),
            nullptr);
  tegula_error_destroy(tegula_stream_destroy(wrapped));
}

} // namespace
