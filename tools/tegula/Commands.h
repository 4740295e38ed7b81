//===- Commands.h - The subcommands of `tegula` -----------------*- C++ -*-===//
//
// One function per subcommand, each in its own file, each called with the
// arguments after the subcommand's name and returning the exit status. To add
// a subcommand: declare it here, define it in <Name>.cpp, list it in
// kCommands in main.cpp, and add the file to tools/CMakeLists.txt.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_TOOLS_TEGULA_COMMANDS_H
#define TEGULA_TOOLS_TEGULA_COMMANDS_H

#include <string>
#include <vector>

namespace tegula::cli {

/// `tegula devices`: every plugin found (loaded, or skipped and why) and
/// every device with its properties. Exits 0 also when there is no device.
int runDevices(const std::vector<std::string> &args);

/// `tegula compile FILE.py --kernel NAME --signature SIG ...`: compiles one
/// kernel (for --targets through their plugins) and writes what --emit asks
/// for. Exits 0 on success, 1 on a user
/// error (diagnostics on stderr), 2 on a usage error.
int runCompile(const std::vector<std::string> &args);

/// `tegula targets [--markdown]`: every target of the loaded plugins with
/// the stages and compile options it takes.
int runTargets(const std::vector<std::string> &args);

/// `tegula inspect FILE`: the images of a kernel container.
int runInspect(const std::vector<std::string> &args);

/// `tegula cache dir|stats|clear`: the on-disk kernel cache.
int runCache(const std::vector<std::string> &args);

} // namespace tegula::cli

#endif // TEGULA_TOOLS_TEGULA_COMMANDS_H
