//===- DevicesCommandTest.cpp - Exit statuses of `tegula` -----------------===//
//
// The output of `tegula devices` is checked with FileCheck
// (devices-*.test); this checks the command line's exit statuses.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <sys/wait.h>

#include <cstdio>

namespace {

/// Runs `tegula <args>` (stdout and stderr discarded) and returns its exit
/// status, or -1 when it did not exit normally.
int runTegula(const std::string &args) {
  std::string command = std::string("'") + TEGULA_TOOL + "' " + args +
                        " >/dev/null 2>&1";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TegulaCommand, ExitStatuses) {
  EXPECT_EQ(runTegula(""), 2);
  EXPECT_EQ(runTegula("--help"), 0);
  EXPECT_EQ(runTegula("no-such-command"), 2);
  EXPECT_EQ(runTegula("devices --help"), 0);
  EXPECT_EQ(runTegula("devices --bogus"), 2);
  EXPECT_EQ(runTegula("devices"), 0);
}

TEST(TegulaCommand, DevicesSucceedsWithoutAnyDevice) {
  std::string env = "TEGULA_PLUGIN_PATH=" + tegula::test::kTestPluginDir +
                    " TEGULA_VISIBLE_BACKENDS=no_such_backend ";
  std::string command = env + "'" + TEGULA_TOOL + "' devices 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  EXPECT_NE(output.find("Devices: none\n"), std::string::npos) << output;
}

} // namespace
