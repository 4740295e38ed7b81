//===- DiscoveryTest.cpp - Plugin discovery, loading and bad plugins ------===//
//
// The test plugin folder holds one plugin per way of being broken, next to
// two good ones (testdev, all_errors) and one from a newer minor version.
// Every broken one must be skipped with one line naming its file and the
// reason, and the good ones must load anyway.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace tegula;
using namespace tegula::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> deviceNames(const Runtime &runtime) {
  std::vector<std::string> names;
  for (const Device &device : runtime.devices())
    names.push_back(device.name());
  return names;
}

void expectSkipped(const Runtime &runtime, const std::string &path,
                   const std::string &reason) {
  PluginInfo info = findRecord(runtime, path);
  EXPECT_FALSE(info.loaded) << path;
  EXPECT_EQ(info.skipReason, reason) << path;
  EXPECT_EQ(info.skipMessage, path + ": " + reason);
  EXPECT_EQ(info.skipMessage.find('\n'), std::string::npos);
}

TEST(Discovery, BadPluginsAreSkippedWithTheirReasonOthersLoad) {
  Runtime runtime = makeRuntime(kTestPluginDir);
  std::vector<PluginInfo> plugins = runtime.plugins();
  // Sorted by file name: discovery order is reproducible.
  std::vector<std::string> names;
  for (const PluginInfo &info : plugins)
    names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "all_errors", "bad_major", "bad_missing_entry",
                       "failing_init", "newer_minor", "not_a_library",
                       "testdev"}));

  expectSkipped(runtime, testPlugin("bad_missing_entry"),
                "no entry symbol tg_plugin_get_api");
  expectSkipped(runtime, testPlugin("bad_major"),
                "plugin ABI version 2.0 is incompatible with the runtime's "
                "1.2 (major versions differ)");
  expectSkipped(runtime, testPlugin("failing_init"),
                "initialization failed: simulated initialization failure");
  expectSkipped(runtime, testPlugin("not_a_library"),
                "not a loadable shared library: invalid ELF header");

  for (const char *good : {"testdev", "all_errors", "newer_minor"}) {
    PluginInfo info = findRecord(runtime, testPlugin(good));
    EXPECT_TRUE(info.loaded) << good << ": " << info.skipMessage;
  }
  EXPECT_EQ(deviceNames(runtime),
            (std::vector<std::string>{"all_errors:0", "newer_minor:0",
                                      "testdev:0", "testdev:1"}));
}

TEST(Discovery, NewerMinorVersionLoadsAndIsUsable) {
  Runtime runtime = makeRuntime(testPlugin("newer_minor"));
  PluginInfo info = findRecord(runtime, testPlugin("newer_minor"));
  ASSERT_TRUE(info.loaded) << info.skipMessage;
  EXPECT_EQ(info.abiMajor, 1u);
  EXPECT_EQ(info.abiMinor, 99u);
  EXPECT_EQ(info.numDevices, 1u);
  Device device = runtime.device("newer_minor:0");
  EXPECT_EQ(device.target(), "newer_minor:future_arch");
  DeviceProperties props = device.properties();
  EXPECT_EQ(props.name, "Future device");
  EXPECT_EQ(props.computeUnits, 7u);
  // Entries a 1.0 table has but this plugin left out answer UNIMPLEMENTED.
  Error error = expectError([&] { device.allocate(16); });
  EXPECT_EQ(error.code(), TG_ERROR_UNIMPLEMENTED);
  EXPECT_STREQ(error.what(), "newer_minor: buffer_alloc is not implemented");
}

TEST(Discovery, OlderRuntimeStructsAreFilledOnlyAsFarAsTheyGo) {
  Runtime runtime = makeRuntime(kTestPluginDir);
  // A caller built against a header where tegula_plugin_info ended at
  // |device_status| must not see bytes written past it.
  struct {
    tegula_plugin_info info;
    uint64_t canary;
  } wrapped;
  std::memset(&wrapped, 0xAB, sizeof(wrapped));
  wrapped.info.struct_size = sizeof(tegula_plugin_info);
  tegula_error_t *error =
      tegula_runtime_get_plugin_info(runtime.get(), 0, &wrapped.info);
  ASSERT_EQ(error, nullptr) << takeMessage(error);
  EXPECT_EQ(wrapped.canary, 0xABABABABABABABABull);
  EXPECT_EQ(wrapped.info.struct_size, sizeof(tegula_plugin_info));

  tegula_plugin_info tooSmall{};
  tooSmall.struct_size = sizeof(size_t);
  error = tegula_runtime_get_plugin_info(runtime.get(), 0, &tooSmall);
  EXPECT_EQ(tegula_error_get_code(error), TG_ERROR_INVALID_ARGUMENT);
  tegula_error_destroy(error);
}

TEST(Discovery, VisibleBackendsRestrictWhatLoads) {
  Runtime runtime = makeRuntime(kTestPluginDir, "testdev");
  EXPECT_EQ(deviceNames(runtime),
            (std::vector<std::string>{"testdev:0", "testdev:1"}));
  expectSkipped(runtime, testPlugin("all_errors"),
                "not in TEGULA_VISIBLE_BACKENDS (testdev)");
  // Filtered plugins are not even opened: a broken one gives no other reason.
  expectSkipped(runtime, testPlugin("bad_major"),
                "not in TEGULA_VISIBLE_BACKENDS (testdev)");
}

TEST(Discovery, EnvironmentVariablesAreRead) {
  ::setenv("TEGULA_PLUGIN_PATH", kTestPluginDir.c_str(), 1);
  ::setenv("TEGULA_VISIBLE_BACKENDS", " TestDev , newer_minor", 1);
  tegula_runtime_options options{};
  options.struct_size = sizeof(options);
  options.default_plugin_dir = ""; // Only the environment's path.
  Runtime runtime(&options);
  ::unsetenv("TEGULA_PLUGIN_PATH");
  ::unsetenv("TEGULA_VISIBLE_BACKENDS");
  EXPECT_EQ(deviceNames(runtime),
            (std::vector<std::string>{"newer_minor:0", "testdev:0",
                                      "testdev:1"}));
  expectSkipped(runtime, testPlugin("all_errors"),
                "not in TEGULA_VISIBLE_BACKENDS (testdev,newer_minor)");
}

TEST(Discovery, EarlierPathEntriesWin) {
  TempDir first, second;
  std::string fromFirst = first.addPlugin("testdev");
  std::string fromSecond = second.addPlugin("testdev");
  {
    Runtime runtime = makeRuntime(first.path() + ":" + second.path());
    EXPECT_TRUE(findRecord(runtime, fromFirst).loaded);
    expectSkipped(runtime, fromSecond,
                  "backend 'testdev' already loaded from " + fromFirst);
    EXPECT_EQ(runtime.searchDirs(),
              (std::vector<std::string>{first.path(), second.path()}));
  }
  {
    Runtime runtime = makeRuntime(second.path() + ":" + first.path());
    EXPECT_TRUE(findRecord(runtime, fromSecond).loaded);
    expectSkipped(runtime, fromFirst,
                  "backend 'testdev' already loaded from " + fromSecond);
  }
}

TEST(Discovery, PathEntriesMayNameFilesAndOtherFilesAreIgnored) {
  TempDir dir;
  std::ofstream(dir.path() + "/README") << "not a plugin\n";
  std::ofstream(dir.path() + "/libsomething_else.so") << "not a plugin\n";
  std::string plugin = dir.addPlugin("testdev");
  Runtime runtime = makeRuntime(dir.path());
  ASSERT_EQ(runtime.plugins().size(), 1u);
  EXPECT_TRUE(findRecord(runtime, plugin).loaded);

  Runtime byFile = makeRuntime(testPlugin("testdev"));
  ASSERT_EQ(byFile.plugins().size(), 1u);
  EXPECT_TRUE(byFile.plugins()[0].loaded);
  EXPECT_TRUE(byFile.searchDirs().empty());
}

TEST(Discovery, MissingAndMisnamedEntriesAreReported) {
  TempDir dir;
  std::string renamed = dir.addPlugin("testdev", "renamed");
  std::ofstream(dir.path() + "/plugin.so") << "x";
  Runtime runtime = makeRuntime("/no/such/folder:" + dir.path() + ":" +
                                dir.path() + "/plugin.so");
  expectSkipped(runtime, "/no/such/folder", "no such file or folder");
  expectSkipped(runtime, renamed,
                "reports backend name 'testdev', but its file is named for "
                "'renamed'");
  expectSkipped(runtime, dir.path() + "/plugin.so",
                "file name does not follow libtegula_plugin_<backend>.so");
  EXPECT_TRUE(runtime.devices().empty());
}

TEST(Discovery, CurrentDirectoryIsNeverSearched) {
  TempDir cwd;
  cwd.addPlugin("testdev");
  fs::create_directory(cwd.path() + "/plugins");
  std::filesystem::copy_file(testPlugin("testdev"),
                             cwd.path() + "/plugins/libtegula_plugin_testdev.so");
  fs::path saved = fs::current_path();
  fs::current_path(cwd.path());
  // An empty entry means "current directory" to a shell; "." and relative
  // names resolve against it. None of them may find the plugins here.
  for (const char *path : {"", ":", ".", "plugins", ":.:plugins:"}) {
    Runtime runtime = makeRuntime(path);
    EXPECT_TRUE(runtime.devices().empty()) << "path '" << path << "'";
    for (const PluginInfo &info : runtime.plugins()) {
      EXPECT_FALSE(info.loaded) << info.path;
      EXPECT_EQ(info.skipReason, "relative entry in the plugin path ignored "
                                 "(the current directory is never searched)");
    }
  }
  // Not from the environment either, with the default folder in play.
  ::setenv("TEGULA_PLUGIN_PATH", ".", 1);
  Runtime fromEnv((const tegula_runtime_options *)nullptr);
  ::unsetenv("TEGULA_PLUGIN_PATH");
  for (const Device &device : fromEnv.devices())
    EXPECT_NE(device.backend(), "testdev");
  fs::current_path(saved);
}

TEST(Discovery, DefaultFolderIsBesideTheLibrary) {
  tegula_runtime_options options{};
  options.struct_size = sizeof(options);
  options.plugin_path = "";
  options.visible_backends = "";
  Runtime runtime(&options); // default_plugin_dir NULL: beside the library.
  EXPECT_EQ(runtime.searchDirs(),
            (std::vector<std::string>{
                fs::weakly_canonical(kBuildPluginDir).string()}));
  std::vector<std::string> loaded;
  for (const PluginInfo &info : runtime.plugins())
    if (info.loaded)
      loaded.push_back(info.name);
  EXPECT_EQ(loaded,
            (std::vector<std::string>{"amd", "host", "intel", "nvidia"}));
}

TEST(Discovery, PathComesBeforeTheDefaultFolder) {
  tegula_runtime_options options{};
  options.struct_size = sizeof(options);
  options.plugin_path = kTestPluginDir.c_str();
  options.visible_backends = "";
  Runtime runtime(&options);
  std::vector<std::string> dirs = runtime.searchDirs();
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], kTestPluginDir);
  std::vector<PluginInfo> plugins = runtime.plugins();
  ASSERT_GE(plugins.size(), 10u);
  EXPECT_EQ(plugins.front().name, "all_errors");
  EXPECT_EQ(plugins.back().name, "nvidia");
}

/// Runs |check| in a child process as user nobody (root reads any folder, so
/// a permission test as root must drop root). Returns the child's failure
/// text, "" on success.
template <typename Check> std::string runAsNobody(Check check) {
  int fds[2];
  if (pipe(fds) != 0)
    return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string failure;
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
      failure = "cannot drop root";
    else
      failure = check();
    if (!failure.empty() && write(fds[1], failure.data(), failure.size()) < 0)
      _exit(2);
    _exit(failure.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string output;
  char buffer[512];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    output.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status))
    return "child crashed";
  if (WEXITSTATUS(status) != 0 && output.empty())
    return "child failed";
  return output;
}

TEST(Discovery, UnreadableFolderIsSkippedOthersLoad) {
  TempDir locked;
  locked.addPlugin("testdev", "locked_copy");
  fs::permissions(locked.path(), fs::perms::none);
  // The readable folder is a fresh one under the temp folder rather than the
  // build tree, which user nobody may not be able to reach (a checkout
  // below a 0700 folder).
  TempDir readable;
  readable.addPlugin("testdev");
  fs::permissions(readable.path(), fs::perms::owner_all | fs::perms::group_read |
                                       fs::perms::group_exec |
                                       fs::perms::others_read |
                                       fs::perms::others_exec);
  std::string path = locked.path() + ":" + readable.path();
  std::string failure = runAsNobody([&]() -> std::string {
    Runtime runtime = makeRuntime(path);
    std::vector<PluginInfo> plugins = runtime.plugins();
    auto it = std::find_if(plugins.begin(), plugins.end(),
                           [&](const PluginInfo &p) {
                             return p.path == locked.path();
                           });
    if (it == plugins.end())
      return "no record for the locked folder";
    if (it->loaded ||
        it->skipMessage != locked.path() +
                               ": cannot read plugin folder: Permission denied")
      return "unexpected record: " + it->skipMessage;
    if (runtime.devices().size() != 2)
    {
      std::string why;
      for (const PluginInfo &p : plugins)
        why += " [" + p.path + ": " + (p.loaded ? "loaded" : p.skipMessage) + "]";
      return "expected the 2 testdev devices of the readable folder, got " +
             std::to_string(runtime.devices().size()) + why;
    }
    return "";
  });
  EXPECT_EQ(failure, "");
}

TEST(Discovery, RepeatedCreationAndDestructionIsClean) {
  for (int i = 0; i < 20; ++i) {
    Runtime runtime = makeRuntime(kTestPluginDir);
    EXPECT_EQ(runtime.devices().size(), 4u);
  }
}

TEST(Discovery, CreateRejectsBadArguments) {
  tegula_error_t *noOut = tegula_runtime_create(nullptr, nullptr);
  EXPECT_EQ(tegula_error_get_code(noOut), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(takeMessage(noOut), "tegula_runtime_create: out is NULL");
  tegula_runtime_options options{};
  options.struct_size = 4;
  tegula_runtime_t *rt = nullptr;
  tegula_error_t *error = tegula_runtime_create(&options, &rt);
  EXPECT_EQ(tegula_error_get_code(error), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(rt, nullptr);
  tegula_error_destroy(error);
}

} // namespace
