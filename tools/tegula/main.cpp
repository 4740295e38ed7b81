//===- main.cpp - The `tegula` command line -------------------------------===//
//
// Dispatches `tegula <command> [args...]` to one function per subcommand
// (Commands.h). Usage errors exit 2; a command's own failures exit 1.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Command {
  const char *name;
  const char *summary;
  int (*run)(const std::vector<std::string> &args);
};

const Command kCommands[] = {
    {"compile", "compile a Triton kernel to tile IR, or for targets",
     tegula::cli::runCompile},
    {"devices", "list plugins (loaded or skipped, and why) and devices",
     tegula::cli::runDevices},
    {"targets", "list the targets, stages and compile options of plugins",
     tegula::cli::runTargets},
    {"inspect", "show the images a kernel container holds",
     tegula::cli::runInspect},
    {"cache", "show the kernel cache's folder and statistics, or clear it",
     tegula::cli::runCache},
};

void printUsage(std::FILE *out) {
  std::fprintf(out, "usage: tegula <command> [options]\n\ncommands:\n");
  for (const Command &command : kCommands)
    std::fprintf(out, "  %-10s %s\n", command.name, command.summary);
  std::fprintf(out, "\n'tegula <command> --help' describes a command.\n");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(stdout);
    return 0;
  }
  for (const Command &command : kCommands)
    if (name == command.name)
      return command.run(std::vector<std::string>(argv + 2, argv + argc));
  std::fprintf(stderr, "tegula: unknown command '%s'\n\n", name.c_str());
  printUsage(stderr);
  return 2;
}
