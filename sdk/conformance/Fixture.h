//===- Fixture.h - What the conformance tests share -------------*- C++ -*-===//
//
// Private to the conformance library: the fixtures (a runtime that loads only
// the plugin under test), the UNIMPLEMENTED-means-skip policy, direct access
// to the plugin ABI, and data helpers.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_SDK_CONFORMANCE_FIXTURE_H
#define TEGULA_SDK_CONFORMANCE_FIXTURE_H

#include "tegula/Conformance.h"
#include "tegula/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tegula::conformance {

/// Anchors, one per test file: configure() refers to each so that linking
/// the static library pulls every test in.
extern int pluginTestsAnchor, deviceTestsAnchor, memoryTestsAnchor,
    streamTestsAnchor, launchTestsAnchor;

/// The backend named by a plugin file name (`libtegula_plugin_<name>.so`),
/// or "" when the name has another shape.
std::string backendFromFileName(const std::string &path);

/// A runtime that loads the plugin under test and nothing else.
std::unique_ptr<Runtime> makeRuntime();

/// The base fixture: the runtime, the plugin's record and its devices. A
/// plugin that does not load fails every test, with the runtime's reason.
class PluginTest : public ::testing::Test {
protected:
  void SetUp() override;

  /// Runs |body|; a tegula::Error escaping it fails the test, or skips it
  /// when its code is TG_ERROR_UNIMPLEMENTED and the run is not strict.
  void guarded(const std::function<void()> &body);

  std::unique_ptr<Runtime> runtime;
  PluginInfo plugin;
  std::vector<Device> devices;
};

/// For tests that need a device: skips, with the plugin's reason, when there
/// is none.
class DeviceTest : public PluginTest {
protected:
  void SetUp() override;
};

/// |size| random bytes from |rng|.
std::vector<uint8_t> randomBytes(std::mt19937 &rng, size_t size);

/// A generator seeded from std::random_device; the seed is recorded in the
/// test's output so a failure can be replayed.
std::mt19937 seededGenerator();

/// Index of the first byte where |got| and |want| differ, or -1.
long firstDifference(const std::vector<uint8_t> &got,
                     const std::vector<uint8_t> &want);

/// Checks |got| == |want| with a message naming the first differing byte.
#define EXPECT_BYTES_EQ(got, want)                                             \
  do {                                                                         \
    long diff_ = ::tegula::conformance::firstDifference(got, want);            \
    EXPECT_EQ(diff_, -1) << "first difference at byte " << diff_ << " of "     \
                         << (want).size();                                     \
  } while (0)

/// Calls a plugin directly through the plugin ABI, for what the runtime does
/// not let through (version negotiation, short out-structs). Opens its own
/// handle of the plugin file.
class DirectPlugin {
public:
  explicit DirectPlugin(const std::string &path);
  ~DirectPlugin();
  DirectPlugin(const DirectPlugin &) = delete;
  DirectPlugin &operator=(const DirectPlugin &) = delete;

  /// dlerror() text when the library or its entry symbol is missing.
  std::string loadError;
  void *library = nullptr;
  tg_plugin_get_api_fn *getApi = nullptr;

  /// Code and message of |error| (which is freed) from |api|.
  static std::pair<int32_t, std::string> take(const tg_plugin_api *api,
                                              tg_error_t *error);
};

} // namespace tegula::conformance

#endif // TEGULA_SDK_CONFORMANCE_FIXTURE_H
