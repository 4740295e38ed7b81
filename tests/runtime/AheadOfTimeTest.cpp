//===- AheadOfTimeTest.cpp - Compiling for a target with no device --------===//
//
// tegula_runtime_compile: the runtime finds the loaded plugin of a target's
// backend and compiles through it whether or not a device of it is present
// (this machine has no GPU: the NVIDIA plugin compiles anyway), with an
// error naming what is wrong for a target no plugin declares.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "TileBytecodeSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace tegula;
using namespace tegula::test;

namespace {

constexpr const char *kScale = R"mlir(
module attributes {tile.num_warps = 4 : i32} {
  tile.func @scale(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg1: f32) {
    %pid = tile.program_id 0 : i32
    %c = arith.constant 128 : i32
    %start = arith.muli %pid, %c : i32
    %range = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %sstart = tile.splat %start : i32 -> tensor<128xi32>
    %offs = arith.addi %sstart, %range : tensor<128xi32>
    %xb = tile.splat %arg0 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %xp = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %x = tile.load %xp : tensor<128x!tile.ptr<f32>>
    %s = tile.splat %arg1 : f32 -> tensor<128xf32>
    %y = arith.mulf %x, %s : tensor<128xf32>
    tile.store %xp, %y : tensor<128x!tile.ptr<f32>>
    tile.return
  }
}
)mlir";

class AheadOfTime : public ::testing::Test {
protected:
  AheadOfTime()
      : runtime(makeRuntime(kBuildPluginDir)), bytes(tileBytecode(kScale)) {}

  /// The code and message of compiling for |target|.
  std::pair<int32_t, std::string> failure(const std::string &target) {
    tegula_image_t *image = nullptr;
    tegula_error_t *error =
        tegula_runtime_compile(runtime.get(), target.c_str(), bytes.data(),
                               bytes.size(), nullptr, 0, &image);
    EXPECT_EQ(image, nullptr);
    if (!error)
      return {TG_SUCCESS, "compiled"};
    std::pair<int32_t, std::string> result{tegula_error_get_code(error),
                                           tegula_error_get_message(error)};
    tegula_error_destroy(error);
    return result;
  }

  Runtime runtime;
  std::string bytes;
};

TEST_F(AheadOfTime, CompilesForEveryTargetALoadedPluginDeclares) {
  ASSERT_FALSE(bytes.empty());
  std::map<std::string, int> compiled;
  for (const PluginInfo &plugin : runtime.plugins()) {
    if (!plugin.loaded || (plugin.name != "nvidia" && plugin.name != "host"))
      continue;
    for (const std::string &arch : plugin.targets) {
      std::string target = plugin.name + ":" + arch;
      SCOPED_TRACE(target);
      Image image = runtime.compile(target, bytes.data(), bytes.size(),
                                    {{"num_warps", "2"}});
      const tg_kernel_metadata &meta = *image.metadata();
      EXPECT_STREQ(meta.name, "scale");
      EXPECT_EQ(std::string(meta.target), target);
      EXPECT_EQ(meta.num_args, 2u);
      EXPECT_GT(image.size(), 0u);
      if (plugin.name == "nvidia")
        EXPECT_EQ(meta.num_warps, 2u);
      ++compiled[plugin.name];
    }
  }
  // Every NVIDIA target, with no NVIDIA device here, and the host's.
  EXPECT_EQ(compiled["nvidia"], 6);
  EXPECT_EQ(compiled["host"], 1);
}

TEST_F(AheadOfTime, NamesWhatIsWrongWithATarget) {
  ASSERT_FALSE(bytes.empty());
  auto [code, message] = failure("nvidia:sm_42");
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message.rfind("the nvidia plugin does not compile for "
                          "nvidia:sm_42 (it declares nvidia:sm_75, ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("nvidia:sm_90a"), std::string::npos) << message;

  std::tie(code, message) = failure("vax:780");
  EXPECT_EQ(code, TG_ERROR_NOT_FOUND);
  EXPECT_EQ(message.rfind("no vax plugin is loaded to compile for vax:780 "
                          "(loaded: ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("host"), std::string::npos) << message;

  for (const char *target : {"nvidia", ":sm_90", "nvidia:", ""}) {
    std::tie(code, message) = failure(target);
    EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT) << target;
    EXPECT_EQ(message, "target '" + std::string(target) +
                           "' is not <backend>:<arch> (e.g. nvidia:sm_90a)");
  }

  // The plugin's own errors come through: not tile bytecode.
  std::string host;
  for (const PluginInfo &plugin : runtime.plugins())
    if (plugin.loaded && plugin.name == "host" && !plugin.targets.empty())
      host = "host:" + plugin.targets.front();
  ASSERT_FALSE(host.empty()) << "the host plugin is not loaded";
  tegula_image_t *image = nullptr;
  tegula_error_t *error = tegula_runtime_compile(
      runtime.get(), host.c_str(), "garbage", 7, nullptr, 0, &image);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(tegula_error_get_code(error), TG_ERROR_INVALID_FORMAT);
  tegula_error_destroy(error);

  error = tegula_runtime_compile(nullptr, host.c_str(), bytes.data(),
                                 bytes.size(), nullptr, 0, &image);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(tegula_error_get_code(error), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(error);
}

} // namespace
