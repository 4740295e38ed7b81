//===- ConcurrencyTest.cpp - Many threads on one runtime ------------------===//
//
// The runtime is shared by every thread of a program: allocations, copies,
// streams, compiles and launches from several threads at once must neither
// crash nor mix up their data.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <atomic>
#include <random>
#include <thread>

using namespace tegula;
using namespace tegula::test;

namespace {

constexpr int kThreads = 8;

/// Runs |body(threadIndex)| on kThreads threads; returns the failures.
template <typename Body> int runThreads(Body body) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        if (!body(t))
          ++failures;
      } catch (const Error &error) {
        ADD_FAILURE() << "thread " << t << ": " << error.what();
        ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  return failures;
}

TEST(Concurrency, AllocateCopyFreeFromEightThreads) {
  Runtime runtime = makeRuntime(kTestPluginDir);
  int failures = runThreads([&](int t) {
    Device device = runtime.device(t % 2 ? "testdev:1" : "testdev:0");
    std::mt19937 rng(t);
    for (int i = 0; i < 200; ++i) {
      size_t count = 1 + rng() % 4096;
      std::vector<uint32_t> values(count);
      for (uint32_t &v : values)
        v = uint32_t(rng());
      Stream stream = device.createStream();
      Buffer a = device.allocate(count * 4);
      Buffer b = device.allocate(count * 4);
      a.write(values.data(), count * 4, 0, &stream);
      b.copyFrom(a, count * 4, 0, 0, &stream);
      std::vector<uint32_t> back(count);
      b.read(back.data(), count * 4, 0, &stream);
      stream.synchronize();
      if (back != values)
        return false;
    }
    return true;
  });
  EXPECT_EQ(failures, 0);
}

TEST(Concurrency, CompileLoadLaunchFromEightThreads) {
  Runtime runtime = makeRuntime(kTestPluginDir);
  // One module shared by every thread (kernel lookups race), plus per-thread
  // compiles and modules.
  Device shared = runtime.device("testdev:0");
  Image sharedImage = shared.compile("x", 1, {{"kernel", "fill_u32"}});
  Module sharedModule = shared.loadModule(sharedImage.data(), sharedImage.size());
  int failures = runThreads([&](int t) {
    Device device = runtime.device(t % 2 ? "testdev:1" : "testdev:0");
    for (int i = 0; i < 50; ++i) {
      Image image = device.compile("x", 1, {{"kernel", "fill_u32"}});
      Kernel kernel = t % 2 ? device.loadKernel(image.data(), image.size(),
                                                "fill_u32")
                            : sharedModule.kernel("fill_u32");
      Buffer out = device.allocate(128 * 4);
      Event start = device.createEvent(), end = device.createEvent();
      Stream stream = device.createStream();
      start.record(stream);
      ArgPack args(image.metadata());
      uint32_t value = uint32_t(t * 1000 + i);
      args.add(out).add(value).add(int32_t(128));
      kernel.launch({2, 1, 1}, {64, 1, 1}, args, &stream);
      end.record(stream);
      end.synchronize();
      if (end.elapsedSince(start) < 0)
        return false;
      if (out.read<uint32_t>(128) != std::vector<uint32_t>(128, value))
        return false;
    }
    return true;
  });
  EXPECT_EQ(failures, 0);
}

TEST(Concurrency, RuntimesCreatedAndDestroyedInParallel) {
  // Loading and unloading the same plugin files from several runtimes at
  // once (dlopen reference counts, plugin instances, the broken plugins).
  int failures = runThreads([&](int) {
    for (int i = 0; i < 10; ++i) {
      Runtime runtime = makeRuntime(kTestPluginDir);
      if (runtime.devices().size() != 4)
        return false;
      Buffer buffer = runtime.device("testdev:1").allocate(64);
      buffer.memset(3, 64);
      if (buffer.read<uint8_t>(64) != std::vector<uint8_t>(64, 3))
        return false;
    }
    return true;
  });
  EXPECT_EQ(failures, 0);
}

TEST(Concurrency, ErrorsFromManyThreads) {
  Runtime runtime = makeRuntime(kTestPluginDir);
  Device device = runtime.device("all_errors:0");
  int failures = runThreads([&](int) {
    for (int i = 0; i < 200; ++i) {
      tegula_buffer_t *buffer = nullptr;
      tegula_error_t *e = tegula_buffer_alloc(device.get(), 16, &buffer);
      bool ok = tegula_error_get_code(e) == TG_ERROR_DEVICE &&
                takeMessage(e) ==
                    "all_errors: simulated failure in buffer_alloc";
      if (!ok)
        return false;
    }
    return true;
  });
  EXPECT_EQ(failures, 0);
}

} // namespace
