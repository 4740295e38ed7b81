//===- AmdLinker.h - An AMDGPU object to an hsaco ---------------*- C++ -*-===//
//
// A code object (hsaco) is the relocatable ELF object of a kernel linked as
// a shared object: `ld.lld -shared`. lld runs in process, linked in as
// static libraries (lldELF, lldCommon from liblld-19-dev), on temporary
// files that are removed afterwards. lld keeps global state, so links are
// serialized within the process.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDLINKER_H
#define TEGULA_PLUGINS_AMD_AMDLINKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tegula::amd {

/// The hsaco of the ELF relocatable |object|; an error (one line, with
/// lld's first lines of output) when lld refuses it.
llvm::Expected<std::string> linkCodeObject(llvm::StringRef object);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDLINKER_H
