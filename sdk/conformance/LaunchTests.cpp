//===- LaunchTests.cpp - Compile, load and launch -------------------------===//
//
// Until plugins compile tile bytecode there is no kernel every plugin can
// build, so the launch test runs the kernel that Config::fillKernelOptions
// makes the plugin build (a test plugin's built-in kernel) and skips without
// one. The end-to-end kernel corpus replaces it once the compile pipeline
// goes through plugins.
//
//===----------------------------------------------------------------------===//

#include "Fixture.h"

#include <cstring>

namespace tegula::conformance {
int launchTestsAnchor = 0;
} // namespace tegula::conformance

using namespace tegula;
using namespace tegula::conformance;

namespace {

using Launch = DeviceTest;

/// Placeholder bytecode: the plugins that build the fill kernel on request
/// ignore it.
const char kPlaceholderBytecode[] = "tegula conformance: fill_u32";

TEST_F(Launch, FillKernel) {
  if (config().fillKernelOptions.empty())
    GTEST_SKIP() << "no conformance kernel for this plugin (set "
                    "TEGULA_CONFORMANCE_FILL_KERNEL); the end-to-end kernel "
                    "corpus runs here once plugins compile tile bytecode";
  std::vector<tg_compile_option> options;
  for (const auto &[key, value] : config().fillKernelOptions)
    options.push_back({key.c_str(), value.c_str()});

  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      Image image = device.compile(kPlaceholderBytecode,
                                   sizeof(kPlaceholderBytecode) - 1, options);
      const tg_kernel_metadata *meta = image.metadata();
      ASSERT_NE(meta, nullptr);
      ASSERT_STREQ(meta->name, "fill_u32");
      EXPECT_EQ(std::string(meta->target), device.target())
          << "the image's target should be the device's";
      ASSERT_EQ(meta->num_args, 3u);
      EXPECT_EQ(meta->args[0].kind, uint32_t(TG_ARG_POINTER));
      EXPECT_EQ(meta->args[1].kind, uint32_t(TG_ARG_SCALAR));
      EXPECT_EQ(meta->args[2].kind, uint32_t(TG_ARG_SCALAR));

      Kernel kernel = device.loadKernel(image.data(), image.size(), "fill_u32");
      const int32_t n = 1000;
      const uint32_t kPoison = 0xDEADBEEF;
      const size_t slack = 24;
      Buffer out = device.allocate((n + slack) * 4);
      out.write(std::vector<uint32_t>(n + slack, kPoison));

      // Synchronously, with more threads than elements.
      ArgPack args(meta);
      args.add(out).add(uint32_t(0x01020304)).add(int32_t(n));
      kernel.launch({(n + 127) / 128, 1, 1}, {128, 1, 1}, args);
      std::vector<uint32_t> got = out.read<uint32_t>(n + slack);
      for (int32_t i = 0; i < n + int32_t(slack); ++i) {
        uint32_t want = i < n ? 0x01020304u : kPoison;
        ASSERT_EQ(got[i], want) << "element " << i;
      }

      // In a stream, ordered after a memset and before a read.
      Stream stream = device.createStream();
      out.memset(0, (n + slack) * 4, 0, &stream);
      ArgPack again(meta);
      again.add(out).add(uint32_t(7)).add(int32_t(n / 2));
      kernel.launch({4, 1, 1}, {256, 1, 1}, again, &stream);
      std::vector<uint32_t> after(n + slack, kPoison);
      out.read(after.data(), after.size() * 4, 0, &stream);
      stream.synchronize();
      for (int32_t i = 0; i < n + int32_t(slack); ++i)
        ASSERT_EQ(after[i], i < n / 2 ? 7u : 0u) << "element " << i;
    });
  }
}

} // namespace
