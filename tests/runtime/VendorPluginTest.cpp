//===- VendorPluginTest.cpp - nvidia, amd, intel and host discovery -------===//
//
// The vendor plugins load their vendor's loader at run time and, where it or
// its device is missing, report no device and why. The exact reasons are
// checked where the machine is known to lack the vendor's driver (this
// project's build machines): otherwise the plugin must list devices or give
// some reason. The plugins are also driven directly through the plugin ABI,
// as the conformance suite will: nvidia's, amd's and intel's compiles
// (which need no device; covered by nvidia-plugin-tests, amd-plugin-tests
// and tests/lit/{Nvidia,Amd,Intel}) must refuse what is not tile bytecode.
// The host plugin always has its one device, host:0 (its memory, streams
// and events are covered by conformance.host.*, its compile, JIT and launch
// by host-plugin-tests).
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <dlfcn.h>
#include <unistd.h>

#include <thread>
#include <tuple>

using namespace tegula;
using namespace tegula::test;

namespace {

/// True when |library| can be opened in this process.
bool canOpen(const char *library) {
  void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

PluginInfo vendorPlugin(const Runtime &runtime, const std::string &name) {
  return findRecord(runtime,
                    kBuildPluginDir + "/libtegula_plugin_" + name + ".so");
}

class VendorPlugins : public ::testing::Test {
protected:
  Runtime runtime = makeRuntime(kBuildPluginDir);
};

TEST_F(VendorPlugins, AllThreeLoad) {
  for (const char *name : {"nvidia", "amd", "intel"}) {
    PluginInfo info = vendorPlugin(runtime, name);
    EXPECT_TRUE(info.loaded) << name << ": " << info.skipMessage;
    EXPECT_EQ(info.abiMajor, 1u);
    EXPECT_FALSE(info.targets.empty());
    if (info.numDevices == 0) {
      EXPECT_FALSE(info.deviceStatus.empty()) << name << " gave no reason";
    }
  }
}

TEST_F(VendorPlugins, NvidiaWithoutDriverSaysSo) {
  PluginInfo info = vendorPlugin(runtime, "nvidia");
  if (canOpen("libcuda.so.1"))
    GTEST_SKIP() << "a CUDA driver is installed here";
  EXPECT_EQ(info.numDevices, 0u);
  EXPECT_EQ(info.deviceStatus,
            "no CUDA driver found (libcuda.so.1: cannot open shared object "
            "file: No such file or directory)");
}

TEST_F(VendorPlugins, AmdWithoutGpuSaysSo) {
  PluginInfo info = vendorPlugin(runtime, "amd");
  if (access("/dev/kfd", F_OK) == 0)
    GTEST_SKIP() << "an AMD GPU driver is present here";
  EXPECT_EQ(info.numDevices, 0u);
  if (!canOpen("libamdhip64.so") && !canOpen("libamdhip64.so.5")) {
    EXPECT_EQ(info.deviceStatus.rfind("no HIP runtime found (", 0), 0u)
        << info.deviceStatus;
    return;
  }
  // Without a GPU hipGetDeviceCount answers 100. hipInit answers 101 on
  // Debian's ROCm 5.2 (100 with other HIP versions, or when called again in
  // one process); its part of the reason is checked only for its shape.
  const std::string &status = info.deviceStatus;
  EXPECT_EQ(status.rfind("HIP: no device (hipInit returned 10", 0), 0u)
      << status;
  const std::string tail =
      "hipGetDeviceCount returned 100 hipErrorNoDevice)";
  ASSERT_GE(status.size(), tail.size()) << status;
  EXPECT_EQ(status.substr(status.size() - tail.size()), tail) << status;
}

TEST_F(VendorPlugins, IntelWithoutDriverSaysSo) {
  PluginInfo info = vendorPlugin(runtime, "intel");
  if (info.numDevices)
    GTEST_SKIP() << "an Intel GPU is present here";
  if (!canOpen("libze_loader.so.1")) {
    EXPECT_EQ(info.deviceStatus.rfind("no Level Zero loader found (", 0), 0u)
        << info.deviceStatus;
    return;
  }
  // The loader without a GPU driver: zeInit is "uninitialized".
  EXPECT_EQ(info.deviceStatus, "Level Zero: no GPU driver (zeInit returned "
                               "0x78000001 ZE_RESULT_ERROR_UNINITIALIZED)");
}

TEST_F(VendorPlugins, DevicesThatExistHaveProperties) {
  for (const Device &device : runtime.devices()) {
    DeviceProperties p = device.properties();
    EXPECT_FALSE(p.name.empty()) << device.name();
    EXPECT_FALSE(p.arch.empty()) << device.name();
    EXPECT_GT(p.computeUnits, 0u) << device.name();
    EXPECT_GT(p.warpSize, 0u) << device.name();
    EXPECT_GT(p.globalMemory, 0u) << device.name();
    EXPECT_EQ(device.target(), device.backend() + ":" + p.arch);
  }
}

TEST(HostPlugin, HasOneDeviceDescribingThisMachine) {
  ASSERT_EQ(setenv("TEGULA_NUM_THREADS", "5", 1), 0);
  Runtime runtime = makeRuntime(kBuildPluginDir, "host");
  unsetenv("TEGULA_NUM_THREADS");
  PluginInfo info = findRecord(runtime, kBuildPluginDir + "/libtegula_plugin_host.so");
  ASSERT_TRUE(info.loaded) << info.skipMessage;
  EXPECT_EQ(info.numDevices, 1u);
  EXPECT_EQ(info.deviceStatus, "");
  std::vector<Device> devices = runtime.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name(), "host:0");
  DeviceProperties p = devices[0].properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(info.targets, std::vector<std::string>{p.arch});
  EXPECT_EQ(devices[0].target(), "host:" + p.arch);
  EXPECT_EQ(p.computeUnits, 5u) << "TEGULA_NUM_THREADS";
  EXPECT_EQ(p.warpSize, 1u);
  EXPECT_EQ(p.sharedMemoryPerBlock, 256u * 1024);
  EXPECT_EQ(p.globalMemory,
            uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE)));

  // Not a positive integer: the hardware's threads.
  for (const char *value : {"0", "-2", "four", "3x", ""}) {
    SCOPED_TRACE(std::string("TEGULA_NUM_THREADS=") + value);
    ASSERT_EQ(setenv("TEGULA_NUM_THREADS", value, 1), 0);
    Runtime other = makeRuntime(kBuildPluginDir, "host");
    unsetenv("TEGULA_NUM_THREADS");
    std::vector<Device> devs = other.devices();
    ASSERT_EQ(devs.size(), 1u);
    unsigned hardware = std::thread::hardware_concurrency();
    EXPECT_EQ(devs[0].properties().computeUnits, hardware ? hardware : 1u);
  }

  // The host compiles (host-plugin-tests covers it); one byte is no
  // bytecode.
  try {
    static const char bytecode[] = "x";
    devices[0].compile(bytecode, 1, {});
    ADD_FAILURE() << "compiling one byte for host succeeded";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT);
    EXPECT_NE(std::string(error.what()).find("not tile-dialect MLIR bytecode"),
              std::string::npos)
        << error.what();
  }
}

/// Drives a vendor plugin directly through the plugin ABI.
class DirectPlugin {
public:
  explicit DirectPlugin(const std::string &name) {
    std::string path = kBuildPluginDir + "/libtegula_plugin_" + name + ".so";
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return;
    auto getApi = reinterpret_cast<tg_plugin_get_api_fn *>(
        dlsym(library, TG_PLUGIN_ENTRY_SYMBOL));
    if (getApi)
      api = getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  }
  ~DirectPlugin() {
    if (library)
      dlclose(library);
  }
  void *library = nullptr;
  const tg_plugin_api *api = nullptr;

  /// Code and message of |error|, which is freed.
  std::pair<int32_t, std::string> take(tg_error_t *error) {
    tg_error_message_args m{};
    m.struct_size = sizeof(m);
    m.error = error;
    api->error_message(&m);
    tg_error_get_code_args c{};
    c.struct_size = sizeof(c);
    c.error = error;
    api->error_get_code(&c);
    std::string message(m.message, m.message_size);
    tg_error_destroy_args d{};
    d.struct_size = sizeof(d);
    d.error = error;
    api->error_destroy(&d);
    return {c.code, message};
  }
};

TEST(VendorPluginAbi, CompileRefusesGarbage) {
  for (const char *name : {"nvidia", "amd", "intel"}) {
    SCOPED_TRACE(name);
    DirectPlugin plugin(name);
    ASSERT_NE(plugin.api, nullptr);
    EXPECT_EQ(plugin.api->major_version, uint32_t(TG_PLUGIN_API_MAJOR));
    EXPECT_GE(plugin.api->struct_size, TG_PLUGIN_API_1_0_SIZE);

    tg_plugin_initialize_args init{};
    init.struct_size = sizeof(init);
    init.runtime_major = TG_PLUGIN_API_MAJOR;
    init.runtime_minor = TG_PLUGIN_API_MINOR;
    ASSERT_EQ(plugin.api->plugin_initialize(&init), nullptr);
    tg_plugin_get_info_args info{};
    info.struct_size = sizeof(info);
    info.plugin = init.plugin;
    ASSERT_EQ(plugin.api->plugin_get_info(&info), nullptr);
    EXPECT_STREQ(info.name, name);
    ASSERT_GT(info.num_targets, 0u);

    tg_plugin_compile_args compile{};
    compile.struct_size = sizeof(compile);
    compile.plugin = init.plugin;
    compile.target = info.targets[0];
    compile.bytecode = "x";
    compile.bytecode_size = 1;
    auto [code, message] = plugin.take(plugin.api->plugin_compile(&compile));
    EXPECT_EQ(code, TG_ERROR_INVALID_FORMAT);
    EXPECT_EQ(message, "the input (1 bytes) is not tile-dialect MLIR "
                       "bytecode: it does not begin with the MLIR bytecode "
                       "magic");
    EXPECT_EQ(compile.image, nullptr);

    // An args struct too small for the 1.0 fields is refused, not read.
    tg_plugin_compile_args tiny{};
    tiny.struct_size = sizeof(size_t);
    std::tie(code, message) = plugin.take(plugin.api->plugin_compile(&tiny));
    EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(message, "tg_plugin_compile_args.struct_size is 8, need " +
                           std::to_string(TG_STRUCT_SIZE(
                               tg_plugin_compile_args, metadata)));

    tg_plugin_destroy_args destroy{};
    destroy.struct_size = sizeof(destroy);
    destroy.plugin = init.plugin;
    EXPECT_EQ(plugin.api->plugin_destroy(&destroy), nullptr);
  }
}

} // namespace
