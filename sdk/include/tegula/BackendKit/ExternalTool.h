//===- tegula/BackendKit/ExternalTool.h - Run a vendor tool -*- C++ -*-===//
//
// Some code generators end in a program of the vendor's toolchain (ptxas,
// llvm-spirv, ld.lld, spirv-val): found at compile time, given its input in
// a temporary file, its output read back, its failure turned into a
// one-line error with the first lines of what it printed. Temporary files
// are removed whatever happens; nothing runs through a shell.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_EXTERNALTOOL_H
#define TEGULA_BACKENDKIT_EXTERNALTOOL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tegula::backend {

/// Where to look for a tool, in order: the environment variable
/// |variable| (a path; "none" or "" disables the tool), each of
/// |homeVariables|' <value>/bin/<name> (e.g. CUDA_HOME), PATH, then each of
/// |fallbacks| (full paths).
struct ToolSearch {
  std::string name;
  std::string variable;
  /// |variable|'s value as the caller resolved it (a compile option the
  /// variable sets): then the environment variable is not read, and ""
  /// means "search" rather than "disabled".
  std::optional<std::string> chosen;
  std::vector<std::string> homeVariables;
  std::vector<std::string> fallbacks;
};

/// The tool's path, or nothing; then |whyNot| says that |search.variable|
/// disables it, that it names no executable, or where the tool was looked
/// for.
std::optional<std::string> findTool(const ToolSearch &search,
                                    std::string &whyNot);

/// True when |path| names an executable regular file.
bool isExecutableFile(llvm::StringRef path);

/// One run of a tool that reads a file and writes one.
struct ToolRun {
  /// The program's path.
  std::string program;
  /// Its arguments after argv[0]; "{in}" and "{out}" stand for the
  /// temporary input and output files.
  std::vector<std::string> args;
  /// What the input file holds, and the suffixes of both files (some tools
  /// choose their behaviour by them).
  llvm::StringRef input;
  std::string inputSuffix = "in";
  std::string outputSuffix = "out";
  /// What errors call the run (default: the program and its first
  /// argument).
  std::string description;
  unsigned timeoutSeconds = 300;
  /// Fail when the tool succeeds but writes nothing.
  bool requireOutput = true;
};

/// Runs |run| and returns the output file's bytes. Errors, one line each:
/// the program cannot be started, it ended with a nonzero status or a
/// signal (with its first lines of output), or it wrote no output.
llvm::Expected<std::string> runTool(const ToolRun &run);

/// The first |maxLines| non-empty lines of |text|, trimmed and joined by
/// "; ", with "; ..." when there were more.
std::string firstLines(llvm::StringRef text, size_t maxLines);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_EXTERNALTOOL_H
