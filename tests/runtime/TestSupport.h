//===- TestSupport.h - Helpers shared by the runtime tests ------*- C++ -*-===//

#ifndef TEGULA_TESTS_RUNTIME_TESTSUPPORT_H
#define TEGULA_TESTS_RUNTIME_TESTSUPPORT_H

#include "tegula/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace tegula::test {

/// The folder holding the test plugins (built by tests/runtime/).
inline const std::string kTestPluginDir = TEGULA_TEST_PLUGIN_DIR;
/// The build tree's default plugin folder (nvidia, amd, intel).
inline const std::string kBuildPluginDir = TEGULA_BUILD_PLUGIN_DIR;

/// The file of test plugin |backend|.
inline std::string testPlugin(const std::string &backend) {
  return kTestPluginDir + "/libtegula_plugin_" + backend + ".so";
}

/// A runtime that searches |path| and then |defaultDir| ("" = no default
/// folder), admitting |visible| ("" = all). The environment is not read.
inline Runtime makeRuntime(const std::string &path, const char *visible = "",
                           const char *defaultDir = "") {
  tegula_runtime_options options{};
  options.struct_size = sizeof(options);
  options.plugin_path = path.c_str();
  options.visible_backends = visible;
  options.default_plugin_dir = defaultDir;
  return Runtime(&options);
}

/// The record of the file (or folder) at |path|; fails the test if absent.
inline PluginInfo findRecord(const Runtime &runtime, const std::string &path) {
  for (const PluginInfo &info : runtime.plugins())
    if (info.path == path)
      return info;
  ADD_FAILURE() << "no plugin record for " << path;
  return PluginInfo();
}

/// The message of a C error, and the error freed.
inline std::string takeMessage(tegula_error_t *error) {
  std::string message = tegula_error_get_message(error);
  tegula_error_destroy(error);
  return message;
}

/// Runs |body| and returns the tegula::Error it throws (fails if none).
template <typename Body> Error expectError(Body &&body) {
  try {
    body();
  } catch (const Error &error) {
    return error;
  }
  ADD_FAILURE() << "expected a tegula::Error";
  return Error(TG_SUCCESS, "");
}

/// Runs |body|, which must throw an Error of |code| whose message has
/// |part|.
template <typename Body>
void expectRefusal(tg_error_code code, const std::string &part, Body &&body) {
  Error error = expectError(body);
  EXPECT_EQ(error.code(), code) << error.what();
  EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
      << error.what();
}

/// A fresh temporary folder, removed with everything in it at scope end.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tegula-test-XXXXXX")
            .string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      ADD_FAILURE() << "mkdtemp failed";
    dir = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(dir, ec);
  }
  const std::string &path() const { return dir; }
  /// Copies test plugin |backend| here as libtegula_plugin_|as|.so.
  std::string addPlugin(const std::string &backend, std::string as = "") {
    if (as.empty())
      as = backend;
    std::string target = dir + "/libtegula_plugin_" + as + ".so";
    std::filesystem::copy_file(testPlugin(backend), target);
    return target;
  }

private:
  std::string dir;
};

} // namespace tegula::test

#endif // TEGULA_TESTS_RUNTIME_TESTSUPPORT_H
