//===- DeviceTests.cpp - Device names, targets and properties -------------===//

#include "Fixture.h"

#include <cstring>
#include <regex>

namespace tegula::conformance {
int deviceTestsAnchor = 0;
} // namespace tegula::conformance

using namespace tegula;
using namespace tegula::conformance;

namespace {

using Device = DeviceTest;

TEST_F(Device, NamesAndTargetsFollowTheBackend) {
  for (size_t i = 0; i < devices.size(); ++i) {
    const tegula::Device &device = devices[i];
    EXPECT_EQ(device.name(), plugin.name + ":" + std::to_string(i));
    EXPECT_EQ(device.backend(), plugin.name);
    guarded([&] {
      std::string arch = device.properties().arch;
      EXPECT_EQ(device.target(),
                arch.empty() ? plugin.name : plugin.name + ":" + arch);
    });
  }
}

TEST_F(Device, PropertiesAreConsistent) {
  for (const tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      DeviceProperties p = device.properties();
      EXPECT_FALSE(p.name.empty()) << "no device name";
      EXPECT_TRUE(std::regex_match(p.arch, std::regex("[A-Za-z0-9_.]+")))
          << "architecture '" << p.arch << "'";
      EXPECT_GT(p.computeUnits, 0u);
      EXPECT_GT(p.warpSize, 0u);
      EXPECT_EQ(p.warpSize & (p.warpSize - 1), 0u)
          << "warp size " << p.warpSize << " is not a power of two";
      EXPECT_GE(p.maxThreadsPerBlock, p.warpSize);
      EXPECT_GT(p.globalMemory, 0u);
      EXPECT_LE(p.sharedMemoryPerBlock, p.globalMemory);
      if (p.clockKHz) {
        EXPECT_LT(p.clockKHz, 100'000'000u) << "clock is in kHz";
      }
    });
  }
}

TEST_F(Device, ShortPropertiesStructIsNotOverrun) {
  // The runtime only passes full-size structs, so this asks the plugin
  // directly: a caller compiled against an older header has a shorter struct,
  // and the plugin must not write past its struct_size.
  DirectPlugin direct(config().pluginPath);
  ASSERT_NE(direct.getApi, nullptr) << direct.loadError;
  const tg_plugin_api *api =
      direct.getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  ASSERT_NE(api, nullptr);
  if (!TG_API_HAS(api, device_get_properties))
    GTEST_SKIP() << "the plugin has no device_get_properties entry";

  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  init.runtime_minor = TG_PLUGIN_API_MINOR;
  ASSERT_EQ(DirectPlugin::take(api, api->plugin_initialize(&init)).first,
            TG_SUCCESS);
  tg_plugin_get_devices_args list{};
  list.struct_size = sizeof(list);
  list.plugin = init.plugin;
  ASSERT_EQ(DirectPlugin::take(api, api->plugin_get_devices(&list)).first,
            TG_SUCCESS);
  ASSERT_EQ(list.num_devices, devices.size());

  constexpr unsigned char kCanary = 0xA7;
  const size_t shortSize = TG_STRUCT_SIZE(tg_device_properties, arch);
  for (size_t i = 0; i < list.num_devices; ++i) {
    SCOPED_TRACE("device " + std::to_string(i));
    alignas(tg_device_properties) unsigned char
        bytes[sizeof(tg_device_properties) + 64];
    std::memset(bytes, kCanary, sizeof(bytes));
    auto *props = reinterpret_cast<tg_device_properties *>(bytes);
    props->struct_size = shortSize;
    props->extension_start = nullptr;
    tg_device_get_properties_args args{};
    args.struct_size = sizeof(args);
    args.device = list.devices[i];
    args.properties = props;
    auto [code, message] =
        DirectPlugin::take(api, api->device_get_properties(&args));
    ASSERT_EQ(code, TG_SUCCESS) << message;
    EXPECT_EQ(props->struct_size, shortSize) << "struct_size was changed";
    EXPECT_NE(props->name, nullptr);
    for (size_t b = shortSize; b < sizeof(bytes); ++b)
      ASSERT_EQ(bytes[b], kCanary)
          << "byte " << b << " written past struct_size " << shortSize;
  }

  tg_plugin_destroy_args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.plugin = init.plugin;
  if (api->plugin_destroy)
    DirectPlugin::take(api, api->plugin_destroy(&destroy));
}

} // namespace
