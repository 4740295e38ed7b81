//===- PluginTests.cpp - Discovery, identity, versions, errors ------------===//
//
// What every plugin must do, with or without a device.
//
//===----------------------------------------------------------------------===//

#include "Fixture.h"

#include <regex>
#include <set>

namespace tegula::conformance {
int pluginTestsAnchor = 0;
} // namespace tegula::conformance

using namespace tegula;
using namespace tegula::conformance;

namespace {

using Plugin = PluginTest;

TEST_F(Plugin, LoadsAndIdentifiesItself) {
  EXPECT_EQ(plugin.name, backendFromFileName(config().pluginPath));
  EXPECT_TRUE(std::regex_match(plugin.name, std::regex("[a-z0-9_]+")))
      << plugin.name;
  EXPECT_EQ(plugin.abiMajor, uint32_t(TG_PLUGIN_API_MAJOR));
  EXPECT_TRUE(std::regex_match(plugin.version,
                               std::regex("[0-9]+(\\.[0-9]+)*([-+.~].*)?")))
      << "version '" << plugin.version << "' should start with numbers";
  EXPECT_FALSE(plugin.vendor.empty()) << "no vendor";
  ASSERT_FALSE(plugin.targets.empty()) << "the plugin lists no target";
  std::set<std::string> seen;
  for (const std::string &target : plugin.targets) {
    EXPECT_TRUE(std::regex_match(target, std::regex("[A-Za-z0-9_.-]+")))
        << "target '" << target << "'";
    EXPECT_TRUE(seen.insert(target).second)
        << "target '" << target << "' listed twice";
  }
}

TEST_F(Plugin, HasDevicesOrSaysWhyNot) {
  EXPECT_EQ(devices.size(), plugin.numDevices);
  if (plugin.numDevices == 0) {
    EXPECT_FALSE(plugin.deviceStatus.empty())
        << "a plugin without devices must say why";
    EXPECT_EQ(plugin.deviceStatus.find('\n'), std::string::npos)
        << "the reason should be one line: " << plugin.deviceStatus;
  }
}

TEST_F(Plugin, NegotiatesTheMajorVersion) {
  DirectPlugin direct(config().pluginPath);
  ASSERT_NE(direct.getApi, nullptr) << direct.loadError;

  for (uint32_t minor : {0u, uint32_t(TG_PLUGIN_API_MINOR), 99u}) {
    SCOPED_TRACE("runtime ABI 1." + std::to_string(minor));
    const tg_plugin_api *api = direct.getApi(TG_PLUGIN_API_MAJOR, minor);
    ASSERT_NE(api, nullptr) << "no table for a runtime of the same major";
    EXPECT_EQ(api->major_version, uint32_t(TG_PLUGIN_API_MAJOR));
    EXPECT_GE(api->struct_size, TG_PLUGIN_API_1_0_SIZE);
    EXPECT_TRUE(api->error_destroy && api->error_message &&
                api->error_get_code && api->plugin_initialize &&
                api->plugin_get_info && api->plugin_get_devices)
        << "a required entry is NULL";
  }
  // A runtime of another major gets no 1.x table (NULL, or a table of that
  // major if the plugin implements it too).
  const tg_plugin_api *future = direct.getApi(TG_PLUGIN_API_MAJOR + 1, 0);
  if (future) {
    EXPECT_EQ(future->major_version, uint32_t(TG_PLUGIN_API_MAJOR + 1));
  }
}

TEST_F(Plugin, TwoInstancesCoexist) {
  guarded([&] {
    std::unique_ptr<Runtime> second = makeRuntime();
    std::vector<Device> more = second->devices();
    ASSERT_EQ(more.size(), devices.size());
    for (size_t i = 0; i < more.size(); ++i) {
      EXPECT_EQ(more[i].name(), devices[i].name());
      EXPECT_EQ(more[i].target(), devices[i].target());
    }
    second.reset();
    // The first instance is untouched by the second one's destruction.
    for (const Device &device : devices)
      EXPECT_FALSE(device.properties().name.empty());
    EXPECT_EQ(runtime->plugins().front().numDevices, devices.size());
  });
}

TEST_F(Plugin, CompileRejectsMalformedBytecode) {
  DirectPlugin direct(config().pluginPath);
  ASSERT_NE(direct.getApi, nullptr) << direct.loadError;
  const tg_plugin_api *api =
      direct.getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  ASSERT_NE(api, nullptr);
  if (!TG_API_HAS(api, plugin_compile))
    GTEST_SKIP() << "the plugin has no compile entry";

  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  init.runtime_minor = TG_PLUGIN_API_MINOR;
  auto [initCode, initMessage] =
      DirectPlugin::take(api, api->plugin_initialize(&init));
  ASSERT_EQ(initCode, TG_SUCCESS) << initMessage;

  static const char garbage[] = "this is not tile-dialect bytecode";
  for (const std::string &target : plugin.targets) {
    SCOPED_TRACE("target " + target);
    tg_plugin_compile_args compile{};
    compile.struct_size = sizeof(compile);
    compile.plugin = init.plugin;
    compile.target = target.c_str();
    compile.bytecode = garbage;
    compile.bytecode_size = sizeof(garbage) - 1;
    auto [code, message] = DirectPlugin::take(api, api->plugin_compile(&compile));
    EXPECT_NE(code, TG_SUCCESS) << "malformed bytecode compiled";
    EXPECT_FALSE(message.empty()) << "an error without a message";
    EXPECT_EQ(message.find('\n'), std::string::npos)
        << "the message should be one line: " << message;
    if (code == TG_SUCCESS && compile.image && TG_API_HAS(api, image_destroy)) {
      tg_image_destroy_args destroy{};
      destroy.struct_size = sizeof(destroy);
      destroy.image = compile.image;
      DirectPlugin::take(api, api->image_destroy(&destroy));
    }
  }

  tg_plugin_destroy_args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.plugin = init.plugin;
  if (api->plugin_destroy) {
    EXPECT_EQ(DirectPlugin::take(api, api->plugin_destroy(&destroy)).first,
              TG_SUCCESS);
  }
}

} // namespace
