//===- AmdLinker.cpp - An AMDGPU object to an hsaco -----------------------===//

#include "AmdLinker.h"

#include "tegula/BackendKit/CompileSupport.h"

#include "lld/Common/Driver.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace {

/// A temporary file removed when this goes out of scope.
struct TemporaryFile {
  SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      sys::fs::remove(path);
  }
};

Error fail(const Twine &message) {
  return tegula::backend::oneLineError(message);
}

} // namespace

Expected<std::string> tegula::amd::linkCodeObject(StringRef object) {
  TemporaryFile input, output;
  int fd = -1;
  if (std::error_code error =
          sys::fs::createTemporaryFile("tegula-amd", "o", fd, input.path))
    return fail("cannot create a temporary file for the AMDGPU object: " +
                error.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
    os.close();
    if (os.has_error())
      return fail("cannot write the AMDGPU object to " + input.path);
  }
  if (std::error_code error = sys::fs::createTemporaryFile(
          "tegula-amd", "hsaco", output.path))
    return fail("cannot create a temporary file for the hsaco: " +
                error.message());

  std::string messages;
  raw_string_ostream messageStream(messages);
  lld::Result result{1, true};
  {
    static std::mutex lldMutex;
    std::lock_guard<std::mutex> lock(lldMutex);
    const char *args[] = {"ld.lld", "-shared", "--no-undefined",
                          input.path.c_str(), "-o", output.path.c_str()};
    result = lld::lldMain(args, messageStream, messageStream,
                          {{lld::Gnu, &lld::elf::link}});
  }
  if (result.retCode != 0) {
    std::string text = messageStream.str();
    if (text.size() > 400)
      text = text.substr(0, 400) + "...";
    return fail("lld cannot link the AMDGPU code object (exit " +
                Twine(result.retCode) + "): " + text);
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> linked =
      MemoryBuffer::getFile(output.path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!linked)
    return fail("cannot read the hsaco lld wrote: " +
                linked.getError().message());
  return (*linked)->getBuffer().str();
}
