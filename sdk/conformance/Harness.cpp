//===- Harness.cpp - Configuration, fixtures and the runner ---------------===//

#include "Fixture.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace tegula::conformance {

namespace {

/// configure()'s configuration; unset until it is called.
std::optional<Config> &configured() {
  static std::optional<Config> value;
  return value;
}

std::string makeAbsolute(const std::string &path) {
  if (path.empty())
    return path;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

} // namespace

bool parseOptions(const std::string &text,
                  std::vector<std::pair<std::string, std::string>> &options) {
  options.clear();
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      return false;
    options.emplace_back(item.substr(0, equals), item.substr(equals + 1));
    start = end + 1;
  }
  return true;
}

bool configFromEnvironment(Config &config, std::string &error) {
  config = Config();
  const char *plugin = std::getenv("TEGULA_CONFORMANCE_PLUGIN");
  if (!plugin || !*plugin) {
    error = "no plugin under test: set TEGULA_CONFORMANCE_PLUGIN to a "
            "libtegula_plugin_<backend>.so file (or pass --plugin=PATH)";
    return false;
  }
  config.pluginPath = makeAbsolute(plugin);
  const char *strict = std::getenv("TEGULA_CONFORMANCE_STRICT");
  config.strict = strict && std::strcmp(strict, "") != 0 &&
                  std::strcmp(strict, "0") != 0;
  const char *fill = std::getenv("TEGULA_CONFORMANCE_FILL_KERNEL");
  if (fill && !parseOptions(fill, config.fillKernelOptions)) {
    error = std::string("TEGULA_CONFORMANCE_FILL_KERNEL is not a list of "
                        "key=value options: '") +
            fill + "'";
    return false;
  }
  return true;
}

void configure(Config config) {
  // Refer to every test file, so that a program linking the static library
  // gets all of its tests.
  volatile int anchors = pluginTestsAnchor + deviceTestsAnchor +
                         memoryTestsAnchor + streamTestsAnchor +
                         launchTestsAnchor;
  (void)anchors;
  config.pluginPath = makeAbsolute(config.pluginPath);
  configured() = std::move(config);
}

const Config &config() {
  if (!configured()) {
    Config fromEnvironment;
    std::string error;
    // A failure shows up in PluginTest::SetUp, through an empty path.
    if (!configFromEnvironment(fromEnvironment, error))
      fromEnvironment = Config();
    configured() = std::move(fromEnvironment);
  }
  return *configured();
}

int runMain(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Config config;
  std::string error;
  bool fromEnvironment = configFromEnvironment(config, error);
  bool listing = ::testing::GTEST_FLAG(list_tests);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--plugin=", 0) == 0) {
      config.pluginPath = arg.substr(9);
      fromEnvironment = true;
    } else if (arg == "--strict") {
      config.strict = true;
    } else if (arg.rfind("--fill-kernel=", 0) == 0) {
      if (!parseOptions(arg.substr(14), config.fillKernelOptions)) {
        std::fprintf(stderr,
                     "tegula-conformance: --fill-kernel expects "
                     "key=value[,key=value...], got '%s'\n",
                     arg.c_str() + 14);
        return 2;
      }
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: tegula-conformance [gtest flags] --plugin=PATH [--strict] "
          "[--fill-kernel=key=value,...]\n\n"
          "Runs the Tegula plugin conformance suite against one plugin.\n"
          "  --plugin=PATH        libtegula_plugin_<backend>.so to test "
          "(TEGULA_CONFORMANCE_PLUGIN)\n"
          "  --strict             fail, not skip, what the plugin does not "
          "implement (TEGULA_CONFORMANCE_STRICT=1)\n"
          "  --fill-kernel=OPTS   compile options that make the plugin build "
          "fill_u32 (TEGULA_CONFORMANCE_FILL_KERNEL)\n");
      return 0;
    } else {
      std::fprintf(stderr, "tegula-conformance: unexpected argument '%s'\n",
                   arg.c_str());
      return 2;
    }
  }
  if (!fromEnvironment && !listing)
    std::fprintf(stderr, "tegula-conformance: %s\n", error.c_str());
  configure(std::move(config));
  return RUN_ALL_TESTS();
}

//===-- Fixtures -----------------------------------------------------------------===//

std::string backendFromFileName(const std::string &path) {
  std::string file = std::filesystem::path(path).filename().string();
  const std::string prefix = "libtegula_plugin_", suffix = ".so";
  if (file.size() <= prefix.size() + suffix.size() ||
      file.compare(0, prefix.size(), prefix) != 0 ||
      file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
    return "";
  return file.substr(prefix.size(),
                     file.size() - prefix.size() - suffix.size());
}

std::unique_ptr<Runtime> makeRuntime() {
  tegula_runtime_options options{};
  options.struct_size = sizeof(options);
  options.plugin_path = config().pluginPath.c_str();
  options.visible_backends = "";
  options.default_plugin_dir = "";
  return std::make_unique<Runtime>(&options);
}

void PluginTest::SetUp() {
  const Config &c = config();
  if (c.pluginPath.empty()) {
    Config ignored;
    std::string why;
    configFromEnvironment(ignored, why);
    FAIL() << why;
  }
  ASSERT_NE(backendFromFileName(c.pluginPath), "")
      << c.pluginPath << " is not named libtegula_plugin_<backend>.so";
  try {
    runtime = makeRuntime();
    std::vector<PluginInfo> plugins = runtime->plugins();
    ASSERT_EQ(plugins.size(), 1u) << "the runtime should find exactly the "
                                     "plugin under test at "
                                  << c.pluginPath;
    plugin = plugins.front();
    ASSERT_TRUE(plugin.loaded) << "the plugin did not load: "
                               << plugin.skipMessage;
    devices = runtime->devices();
  } catch (const Error &error) {
    FAIL() << "cannot create a runtime: " << error.what();
  }
}

void PluginTest::guarded(const std::function<void()> &body) {
  try {
    body();
  } catch (const Error &error) {
    if (error.code() == TG_ERROR_UNIMPLEMENTED && !config().strict)
      GTEST_SKIP() << "not implemented by the plugin: " << error.what();
    ADD_FAILURE() << "unexpected error (" << error.code()
                  << "): " << error.what();
  }
}

void DeviceTest::SetUp() {
  PluginTest::SetUp();
  if (HasFatalFailure())
    return;
  if (devices.empty())
    GTEST_SKIP() << "the plugin has no device: "
                 << (plugin.deviceStatus.empty() ? "it gave no reason"
                                                 : plugin.deviceStatus);
}

//===-- Data --------------------------------------------------------------------===//

std::vector<uint8_t> randomBytes(std::mt19937 &rng, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (uint8_t &byte : bytes)
    byte = static_cast<uint8_t>(rng() >> 13);
  return bytes;
}

std::mt19937 seededGenerator() {
  unsigned seed = std::random_device{}();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return std::mt19937(seed);
}

long firstDifference(const std::vector<uint8_t> &got,
                     const std::vector<uint8_t> &want) {
  size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i])
      return static_cast<long>(i);
  return got.size() == want.size() ? -1 : static_cast<long>(n);
}

//===-- Direct ABI access ---------------------------------------------------------===//

DirectPlugin::DirectPlugin(const std::string &path) {
  library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loadError = why ? why : "dlopen failed";
    return;
  }
  getApi = reinterpret_cast<tg_plugin_get_api_fn *>(
      dlsym(library, TG_PLUGIN_ENTRY_SYMBOL));
  if (!getApi)
    loadError = std::string("no symbol ") + TG_PLUGIN_ENTRY_SYMBOL;
}

DirectPlugin::~DirectPlugin() {
  // Never dlclose'd: vendor plugins keep their drivers loaded for the life
  // of the process, as the runtime does.
}

std::pair<int32_t, std::string> DirectPlugin::take(const tg_plugin_api *api,
                                                   tg_error_t *error) {
  if (!error)
    return {TG_SUCCESS, ""};
  tg_error_message_args m{};
  m.struct_size = sizeof(m);
  m.error = error;
  api->error_message(&m);
  std::string message(m.message ? m.message : "", m.message ? m.message_size : 0);
  tg_error_get_code_args c{};
  c.struct_size = sizeof(c);
  c.error = error;
  api->error_get_code(&c);
  tg_error_destroy_args d{};
  d.struct_size = sizeof(d);
  d.error = error;
  api->error_destroy(&d);
  return {c.code, message};
}

} // namespace tegula::conformance
