//===- DispatchTest.cpp - Calls reaching the owning plugin ----------------===//
//
// Devices, memory, streams, events, compile, load and launch through the
// testdev plugin (host memory behind a real plugin boundary), errors from
// the all_errors plugin, and the C++ RAII layer over the C API.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <cstring>
#include <numeric>

using namespace tegula;
using namespace tegula::test;

namespace {

class Dispatch : public ::testing::Test {
protected:
  Runtime runtime = makeRuntime(kTestPluginDir);
};

TEST_F(Dispatch, DeviceNamesAreStable) {
  Device first = runtime.device("testdev:0");
  Device second = runtime.device("testdev:1");
  EXPECT_EQ(first.backend(), "testdev");
  EXPECT_EQ(first.target(), "testdev:testarch");
  EXPECT_EQ(second.target(), "testdev:testarch2");
  // The same names whatever else loads.
  Runtime alone = makeRuntime(testPlugin("testdev"));
  ASSERT_EQ(alone.devices().size(), 2u);
  EXPECT_EQ(alone.devices()[0].name(), "testdev:0");
  EXPECT_EQ(alone.devices()[1].name(), "testdev:1");

  Error error = expectError([&] { runtime.device("testdev:2"); });
  EXPECT_EQ(error.code(), TG_ERROR_NOT_FOUND);
  EXPECT_STREQ(error.what(), "no device named 'testdev:2'");
}

TEST_F(Dispatch, PropertiesComeFromThePlugin) {
  DeviceProperties p = runtime.device("testdev:1").properties();
  EXPECT_EQ(p.name, "Tegula test device 1");
  EXPECT_EQ(p.arch, "testarch2");
  EXPECT_EQ(p.computeUnits, 8u);
  EXPECT_EQ(p.warpSize, 64u);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024u);
  EXPECT_EQ(p.sharedMemoryPerBlock, 64u * 1024);
  EXPECT_EQ(p.globalMemory, 1ull << 30);
  EXPECT_EQ(p.clockKHz, 1000000u);
  EXPECT_EQ(p.memoryClockKHz, 500000u);
  EXPECT_EQ(p.matrixUnits, 0u);
}

TEST_F(Dispatch, MemoryRoundTripThroughTheCApi) {
  tegula_device_t *device = runtime.device("testdev:0").get();
  const size_t size = 1 << 20;
  tegula_buffer_t *a = nullptr, *b = nullptr;
  ASSERT_EQ(tegula_buffer_alloc(device, size, &a), nullptr);
  ASSERT_EQ(tegula_buffer_alloc(device, size, &b), nullptr);
  EXPECT_EQ(tegula_buffer_get_size(a), size);
  EXPECT_NE(tegula_buffer_get_device_address(a), 0u);
  EXPECT_EQ(tegula_buffer_get_device(a), device);

  std::vector<uint8_t> host(size);
  for (size_t i = 0; i < size; ++i)
    host[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_EQ(tegula_buffer_write(a, 0, host.data(), size, nullptr), nullptr);
  ASSERT_EQ(tegula_buffer_memset(a, 100, 0x5A, 50, nullptr), nullptr);
  ASSERT_EQ(tegula_buffer_memset(b, 0, 0, size, nullptr), nullptr);
  ASSERT_EQ(tegula_buffer_copy(b, 4096, a, 0, size - 4096, nullptr), nullptr);

  std::vector<uint8_t> back(size, 0xEE);
  ASSERT_EQ(tegula_buffer_read(b, 0, back.data(), size, nullptr), nullptr);
  std::memset(host.data() + 100, 0x5A, 50);
  for (size_t i = 0; i < 4096; ++i)
    ASSERT_EQ(back[i], 0) << i;
  for (size_t i = 4096; i < size; ++i)
    ASSERT_EQ(back[i], host[i - 4096]) << i;

  EXPECT_EQ(tegula_buffer_free(a), nullptr);
  EXPECT_EQ(tegula_buffer_free(b), nullptr);
}

TEST_F(Dispatch, MemoryRoundTripThroughRaiiHandlesAndStreams) {
  Device device = runtime.device("testdev:1");
  Stream stream = device.createStream();
  Buffer buffer = device.allocate(256 * sizeof(uint32_t));
  std::vector<uint32_t> values(256);
  std::iota(values.begin(), values.end(), 1000u);
  buffer.write(values.data(), values.size() * 4, 0, &stream);
  Buffer copy = device.allocate(buffer.size());
  copy.copyFrom(buffer, buffer.size(), 0, 0, &stream);
  std::vector<uint32_t> back(256);
  copy.read(back.data(), back.size() * 4, 0, &stream);
  stream.synchronize();
  EXPECT_EQ(back, values);
  EXPECT_EQ(copy.read<uint32_t>(256), values);
}

TEST_F(Dispatch, OutOfRangeCopiesAreRejectedBeforeThePlugin) {
  Device device = runtime.device("testdev:0");
  Buffer small = device.allocate(1024);
  Buffer other = device.allocate(64);
  char bytes[64] = {};
  Error error = expectError([&] { small.write(bytes, 16, 1020); });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_RANGE);
  EXPECT_STREQ(error.what(), "tegula_buffer_write: 16 bytes at offset 1020 "
                             "exceed the 1024-byte destination buffer");
  error = expectError([&] { small.read(bytes, 1, 1024); });
  EXPECT_STREQ(error.what(), "tegula_buffer_read: 1 bytes at offset 1024 "
                             "exceed the 1024-byte source buffer");
  error = expectError([&] { other.copyFrom(small, 65); });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_RANGE);
  // Offsets near 2^64 must not wrap around into range.
  error = expectError([&] { small.memset(0, 16, ~0ull - 4); });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_RANGE);
}

TEST_F(Dispatch, StreamsMustBelongToTheBuffersDevice) {
  Buffer buffer = runtime.device("testdev:0").allocate(16);
  Stream stream = runtime.device("testdev:1").createStream();
  Error error = expectError([&] { buffer.memset(0, 16, 0, &stream); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(error.what(), "tegula_buffer_memset: the stream belongs to "
                             "testdev:1, the buffer to testdev:0");
}

TEST_F(Dispatch, NativeStreamsAreWrappedByPluginsThatOfferIt) {
  Device device = runtime.device("testdev:0");
  // testdev advertises TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT: any handle
  // but ~0 ("another device's") wraps, and works as a stream.
  Stream wrapped = device.wrapNativeStream(0x1234);
  Buffer buffer = device.allocate(64);
  buffer.memset(7, 64, 0, &wrapped);
  wrapped.synchronize();
  Event event = device.createEvent();
  event.record(wrapped);
  event.waitIn(wrapped);
  Error error = expectError([&] { device.wrapNativeStream(~uint64_t(0)); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(error.what(), "testdev: the native stream 0xffffffffffffffff "
                             "belongs to another device");

  // all_errors offers no support: the runtime refuses without asking it
  // (it would have made a stream of its own, unordered with the caller's).
  tegula_stream_t *stream = reinterpret_cast<tegula_stream_t *>(1);
  tegula_error_t *e = tegula_stream_create_native(
      runtime.device("all_errors:0").get(), 0, &stream);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_UNIMPLEMENTED);
  EXPECT_EQ(takeMessage(e),
            "all_errors: the plugin cannot launch on a native stream (it does "
            "not offer TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT)");
  EXPECT_EQ(stream, nullptr);
  e = tegula_stream_create_native(nullptr, 0, &stream);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(e);
}

TEST_F(Dispatch, PluginErrorsArriveWithCodeAndBackendName) {
  Device device = runtime.device("testdev:0");
  Error error = expectError([&] { device.allocate(2ull << 30); });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_MEMORY);
  EXPECT_STREQ(error.what(),
               "testdev: cannot allocate 2147483648 bytes on a 1 GiB device");
}

TEST_F(Dispatch, EventsMeasureTime) {
  Device device = runtime.device("testdev:0");
  Stream stream = device.createStream();
  Event start = device.createEvent();
  Event end = device.createEvent();
  Error error = expectError([&] { end.elapsedSince(start); });
  EXPECT_STREQ(error.what(), "testdev: the start event was never recorded");
  start.record(stream);
  Buffer buffer = device.allocate(1 << 20);
  buffer.memset(1, 1 << 20, 0, &stream);
  end.record(stream);
  end.waitIn(stream);
  end.synchronize();
  EXPECT_GE(end.elapsedSince(start), 0.0f);

  Stream otherDevice = runtime.device("testdev:1").createStream();
  error = expectError([&] { start.record(otherDevice); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
}

TEST_F(Dispatch, CompileLoadAndLaunch) {
  Device device = runtime.device("testdev:0");
  const char bytecode[] = "tile bytecode stand-in";
  Image image =
      device.compile(bytecode, sizeof(bytecode), {{"kernel", "fill_u32"}});
  const tg_kernel_metadata *meta = image.metadata();
  ASSERT_NE(meta, nullptr);
  EXPECT_STREQ(meta->name, "fill_u32");
  EXPECT_STREQ(meta->target, "testdev:testarch");
  ASSERT_EQ(meta->num_args, 3u);

  Kernel kernel = device.loadKernel(image.data(), image.size(), "fill_u32");
  Buffer out = device.allocate(256 * 4);
  out.memset(0xFF, out.size());
  ArgPack args(meta);
  args.add(out).add(uint32_t(0xC0FFEE)).add(int32_t(200));
  kernel.launch({4, 1, 1}, {64, 1, 1}, args);

  std::vector<uint32_t> values = out.read<uint32_t>(256);
  for (size_t i = 0; i < 256; ++i)
    ASSERT_EQ(values[i], i < 200 ? 0xC0FFEEu : 0xFFFFFFFFu) << i;
}

TEST_F(Dispatch, LaunchWithPaddedArgumentsOnAStream) {
  Device device = runtime.device("testdev:1");
  Image image = device.compile("x", 1, {{"kernel", "scale_f32"}});
  Kernel kernel = device.loadKernel(image.data(), image.size(), "scale_f32");
  std::vector<float> input(100);
  std::iota(input.begin(), input.end(), 0.5f);
  Buffer in = device.allocate(400), out = device.allocate(400);
  in.write(input);
  Stream stream = device.createStream();
  ArgPack args(image.metadata());
  args.add(out).add(in).add(2.0f).add(int64_t(100));
  EXPECT_EQ(args.bytes().size(), 32u); // i64 after f32: 4 bytes of padding.
  kernel.launch({1, 1, 1}, {128, 1, 1}, args, &stream);
  stream.synchronize();
  std::vector<float> result = out.read<float>(100);
  for (size_t i = 0; i < 100; ++i)
    ASSERT_EQ(result[i], 2.0f * input[i]);
}

TEST_F(Dispatch, KernelAttributesComeFromThePlugin) {
  Device device = runtime.device("testdev:0");
  Image image = device.compile("x", 1, {{"kernel", "fill_u32"}});
  Kernel fill = device.loadKernel(image.data(), image.size(), "fill_u32");
  tg_kernel_attributes attrs = fill.attributes();
  EXPECT_EQ(attrs.struct_size, sizeof(tg_kernel_attributes));
  EXPECT_EQ(attrs.registers, 16u);
  EXPECT_EQ(attrs.spills, 0u);
  EXPECT_EQ(attrs.local_memory, 0u);
  EXPECT_EQ(attrs.shared_memory, 0u);
  EXPECT_EQ(attrs.max_threads_per_block, 1024u);

  // What the plugin does not set stays unknown (all bits set).
  Image scaleImage = device.compile("x", 1, {{"kernel", "scale_f32"}});
  Kernel scale =
      device.loadKernel(scaleImage.data(), scaleImage.size(), "scale_f32");
  attrs = scale.attributes();
  EXPECT_EQ(attrs.registers, 255u);
  EXPECT_EQ(attrs.spills, 6u);
  EXPECT_EQ(attrs.local_memory, 24u);
  EXPECT_EQ(attrs.shared_memory, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  EXPECT_EQ(attrs.max_threads_per_block, TG_KERNEL_ATTRIBUTE_UNKNOWN);
  EXPECT_EQ(attrs.scalar_registers, TG_KERNEL_ATTRIBUTE_UNKNOWN);

  // An older caller's shorter struct: nothing past its struct_size is
  // written, by the runtime or the plugin.
  struct {
    tg_kernel_attributes attrs;
  } guarded;
  std::memset(&guarded, 0x5a, sizeof(guarded));
  guarded.attrs.struct_size = TG_STRUCT_SIZE(tg_kernel_attributes, spills);
  guarded.attrs.extension_start = nullptr;
  ASSERT_EQ(tegula_kernel_get_attributes(fill.get(), &guarded.attrs), nullptr);
  EXPECT_EQ(guarded.attrs.registers, 16u);
  EXPECT_EQ(guarded.attrs.spills, 0u);
  EXPECT_EQ(guarded.attrs.local_memory, 0x5a5a5a5au);
  EXPECT_EQ(guarded.attrs.max_threads_per_block, 0x5a5a5a5au);

  tg_kernel_attributes tooSmall{};
  tooSmall.struct_size = sizeof(size_t);
  tegula_error_t *e = tegula_kernel_get_attributes(fill.get(), &tooSmall);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(e);
  e = tegula_kernel_get_attributes(nullptr, &attrs);
  EXPECT_EQ(takeMessage(e),
            "tegula_kernel_get_attributes: kernel or attributes is NULL");
}

TEST_F(Dispatch, LaunchErrorsAreReported) {
  Device device = runtime.device("testdev:0");
  Image image = device.compile("x", 1, {{"kernel", "fill_u32"}});
  Module module = device.loadModule(image.data(), image.size());
  Error error = expectError([&] { module.kernel("nope"); });
  EXPECT_EQ(error.code(), TG_ERROR_NOT_FOUND);
  EXPECT_STREQ(error.what(), "testdev: no kernel named 'nope' in the module");

  Kernel kernel = module.kernel("fill_u32");
  uint64_t dangling = 0;
  {
    Buffer gone = device.allocate(64);
    dangling = gone.address();
  } // Freed here by RAII: the plugin must no longer know the address.
  struct {
    uint64_t out;
    uint32_t value;
    int32_t n;
  } packed = {dangling, 1, 16};
  error = expectError(
      [&] { kernel.launch({1, 1, 1}, {16, 1, 1}, &packed, sizeof(packed)); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what()).find("is not device memory"),
            std::string::npos)
      << error.what();

  error = expectError([&] { kernel.launch({1, 1, 1}, {16, 1, 1}, &packed, 8); });
  EXPECT_STREQ(error.what(),
               "testdev: fill_u32 takes 16 bytes of packed arguments, got 8");
  error = expectError(
      [&] { kernel.launch({0, 1, 1}, {16, 1, 1}, &packed, sizeof(packed)); });
  EXPECT_STREQ(error.what(), "tegula_kernel_launch: grid and block dimensions "
                             "must be at least 1");
  error = expectError([&] { device.loadModule("garbage", 7); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT);
  error = expectError([&] { device.compile("x", 1, {{"kernel", "nope"}}); });
  EXPECT_STREQ(error.what(), "testdev: no built-in kernel 'nope'");
}

TEST_F(Dispatch, EveryFailingCallOfABrokenPluginIsAnError) {
  Device device = runtime.device("all_errors:0");
  EXPECT_EQ(device.target(), "all_errors"); // Properties failed at load.

  Error error = expectError([&] { device.properties(); });
  EXPECT_EQ(error.code(), TG_ERROR_UNKNOWN); // 1234 is no known code.
  EXPECT_STREQ(error.what(),
               "all_errors: simulated failure in device_get_properties");

  auto expectDeviceError = [](tegula_error_t *e, const char *entry) {
    EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_DEVICE) << entry;
    EXPECT_EQ(takeMessage(e),
              std::string("all_errors: simulated failure in ") + entry);
  };
  tegula_buffer_t *buffer = reinterpret_cast<tegula_buffer_t *>(1);
  expectDeviceError(tegula_buffer_alloc(device.get(), 16, &buffer),
                    "buffer_alloc");
  EXPECT_EQ(buffer, nullptr);
  tegula_stream_t *stream = nullptr;
  expectDeviceError(tegula_stream_create(device.get(), &stream),
                    "stream_create");
  tegula_event_t *event = nullptr;
  expectDeviceError(tegula_event_create(device.get(), &event), "event_create");
  tegula_image_t *image = nullptr;
  expectDeviceError(
      tegula_device_compile(device.get(), "x", 1, nullptr, 0, &image),
      "plugin_compile");
  EXPECT_EQ(image, nullptr);

  // A C++ exception thrown through the C ABI is caught, not propagated.
  tegula_module_t *module = nullptr;
  tegula_error_t *e = tegula_module_load(device.get(), "x", 1, &module);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INTERNAL);
  EXPECT_EQ(takeMessage(e),
            "all_errors: module_load threw a C++ exception across the C ABI");
  EXPECT_EQ(module, nullptr);
}

TEST_F(Dispatch, NullArgumentsAreErrorsNotCrashes) {
  tegula_buffer_t *buffer = nullptr;
  tegula_error_t *e = tegula_buffer_alloc(nullptr, 16, &buffer);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(takeMessage(e), "tegula_buffer_alloc: device or out is NULL");
  EXPECT_EQ(tegula_buffer_free(nullptr), nullptr);
  EXPECT_EQ(tegula_stream_destroy(nullptr), nullptr);
  e = tegula_stream_synchronize(nullptr);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(e);
  EXPECT_EQ(tegula_runtime_get_device(runtime.get(), 99), nullptr);
  EXPECT_STREQ(tegula_device_get_name(nullptr), "");
  EXPECT_STREQ(tegula_error_get_message(nullptr), "");
  EXPECT_EQ(tegula_error_get_code(nullptr), TG_SUCCESS);
  tegula_device_t *device = runtime.device("testdev:0").get();
  tg_device_properties tooSmall{};
  tooSmall.struct_size = sizeof(size_t);
  e = tegula_device_get_properties(device, &tooSmall);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(e);
}

TEST_F(Dispatch, CopiesBetweenPluginsAreRefused) {
  // Two runtimes' testdev plugins are separate instances, as two plugins are.
  Runtime other = makeRuntime(testPlugin("testdev"));
  Buffer a = runtime.device("testdev:0").allocate(16);
  Buffer b = other.device("testdev:0").allocate(16);
  Error error = expectError([&] { a.copyFrom(b, 16); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(error.what(), "tegula_buffer_copy: cannot copy between "
                             "testdev:0 and testdev:0: different plugins");
}

} // namespace
