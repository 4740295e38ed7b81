//===- ExternalTool.cpp - Run a vendor tool -------------------------------===//

#include "tegula/BackendKit/ExternalTool.h"
#include "tegula/BackendKit/CompileSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;
using namespace tegula::backend;

bool tegula::backend::isExecutableFile(StringRef path) {
  return !path.empty() && sys::fs::can_execute(path) &&
         !sys::fs::is_directory(path);
}

std::optional<std::string> tegula::backend::findTool(const ToolSearch &search,
                                                     std::string &whyNot) {
  const char *given = nullptr;
  if (search.chosen)
    given = search.chosen->empty() ? nullptr : search.chosen->c_str();
  else if (!search.variable.empty())
    given = std::getenv(search.variable.c_str());
  if (given) {
    std::string chosen = given;
    if (chosen == "none" || chosen.empty()) {
      whyNot = search.name + " is disabled (" + search.variable + "=" +
               chosen + ")";
      return std::nullopt;
    }
    if (isExecutableFile(chosen))
      return chosen;
    whyNot = search.variable + "=" + chosen + " is not an executable file";
    return std::nullopt;
  }
  std::vector<std::string> searched;
  for (const std::string &variable : search.homeVariables)
    if (const char *home = std::getenv(variable.c_str()); home && *home) {
      SmallString<256> path(home);
      sys::path::append(path, "bin", search.name);
      if (isExecutableFile(path))
        return std::string(path);
      searched.push_back("$" + variable + "/bin");
    }
  if (ErrorOr<std::string> onPath = sys::findProgramByName(search.name))
    return *onPath;
  searched.push_back("PATH");
  for (const std::string &fallback : search.fallbacks) {
    if (isExecutableFile(fallback))
      return fallback;
    searched.push_back(sys::path::parent_path(fallback).str());
  }
  std::string hint;
  if (!search.variable.empty())
    hint = "; set " + search.variable;
  if (!search.homeVariables.empty())
    hint += (hint.empty() ? "; set " : " or ") + search.homeVariables.front();
  whyNot = "no " + search.name + " found (looked in " +
           llvm::join(searched, ", ") + hint + ")";
  return std::nullopt;
}

std::string tegula::backend::firstLines(StringRef text, size_t maxLines) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string out;
  for (size_t i = 0; i < lines.size() && i < maxLines; ++i)
    out += (out.empty() ? "" : "; ") + lines[i].trim().str();
  if (lines.size() > maxLines)
    out += "; ...";
  return out;
}

Expected<std::string> tegula::backend::runTool(const ToolRun &run) {
  std::string name = sys::path::filename(run.program).str();
  auto temporary = [&](StringRef suffix, SmallString<128> &path,
                       int *fd) -> Error {
    std::error_code ec =
        fd ? sys::fs::createTemporaryFile("tegula-" + name, suffix, *fd, path)
           : sys::fs::createTemporaryFile("tegula-" + name, suffix, path);
    if (ec)
      return oneLineError("cannot create a temporary file for " + name + ": " +
                          ec.message());
    return Error::success();
  };
  SmallString<128> inPath, outPath, logPath;
  int inFd = -1;
  if (Error error = temporary(run.inputSuffix, inPath, &inFd))
    return error;
  FileRemover removeIn(inPath);
  {
    raw_fd_ostream in(inFd, /*shouldClose=*/true);
    in << run.input;
    in.close();
    if (in.has_error())
      return oneLineError("cannot write " + inPath + ": " +
                          in.error().message());
  }
  if (Error error = temporary(run.outputSuffix, outPath, nullptr))
    return error;
  FileRemover removeOut(outPath);
  if (Error error = temporary("log", logPath, nullptr))
    return error;
  FileRemover removeLog(logPath);

  std::vector<std::string> argv = {run.program};
  for (const std::string &arg : run.args) {
    std::string expanded = arg;
    for (auto [key, value] : {std::pair<StringRef, StringRef>{"{in}", inPath},
                              {"{out}", outPath}})
      for (size_t at = expanded.find(key.str()); at != std::string::npos;
           at = expanded.find(key.str(), at + value.size()))
        expanded.replace(at, key.size(), value.str());
    argv.push_back(std::move(expanded));
  }
  SmallVector<StringRef> argRefs(argv.begin(), argv.end());
  std::string what = run.description;
  if (what.empty())
    what = run.program + (run.args.empty() ? "" : " " + run.args.front());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string execError;
  bool failedToRun = false;
  int status = sys::ExecuteAndWait(run.program, argRefs, /*Env=*/std::nullopt,
                                   redirects, run.timeoutSeconds,
                                   /*MemoryLimit=*/0, &execError, &failedToRun);
  if (failedToRun)
    return oneLineError("cannot run " + run.program + ": " + execError);
  if (status != 0) {
    std::string log;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> text =
            MemoryBuffer::getFile(logPath))
      log = firstLines((*text)->getBuffer(), 8);
    return oneLineError(what + " failed (" +
                        (status < 0 ? execError
                                    : "exit status " + std::to_string(status)) +
                        ")" + (log.empty() ? "" : ": " + log));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> output =
      MemoryBuffer::getFile(outPath, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!output)
    return oneLineError("cannot read " + name + "'s output " + outPath + ": " +
                        output.getError().message());
  if (run.requireOutput && (*output)->getBufferSize() == 0)
    return oneLineError(what + " wrote no output");
  return (*output)->getBuffer().str();
}
