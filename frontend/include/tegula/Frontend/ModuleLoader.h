//===- ModuleLoader.h - the user's modules a kernel imports from -*- C++ -*-===//
//
// Kernel libraries share `@jit` helpers and constants between the modules of
// their package (`from mypkg.ops.utils import exp`, `import mypkg.utils as
// u`, `from .utils import f`). A ModuleLoader finds such modules as Python's
// import system would, reads them into the kernel's SourceManager (so that
// errors in a helper point at the helper's file) and parses them once each.
//
// A dotted name `a.b.c` is looked up under each search root in order: the
// roots the caller gives (`tegula compile -I DIR`, the importing process's
// sys.path), then the root of the package the kernel file belongs to (the
// folder above its outermost folder holding an `__init__.py`), then the
// kernel file's own folder. `a/b/c.py` is a module, `a/b/c/__init__.py` a
// package, and a folder without `__init__.py` a namespace package. A
// relative name (`.utils`, `..core`) starts at the importing module's folder,
// one folder up per dot after the first.
//
// Modules are loaded only when a kernel uses a name imported from them, so
// the rest of a file's imports (torch, numpy, ...) are never read.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_MODULELOADER_H
#define TEGULA_FRONTEND_MODULELOADER_H

#include "tegula/Frontend/AST.h"
#include "tegula/Frontend/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace tegula::frontend {

class ModuleLoader {
public:
  /// Loads modules imported by |Main| (the kernel file's parsed module) into
  /// |Sources|; syntax errors of loaded files go to |ParseDiags|.
  /// |SearchPaths| are the caller's roots, searched first.
  ModuleLoader(SourceManager &Sources, DiagnosticEngine &ParseDiags,
               Module &Main, llvm::ArrayRef<std::string> SearchPaths);
  ~ModuleLoader();
  ModuleLoader(const ModuleLoader &) = delete;
  ModuleLoader &operator=(const ModuleLoader &) = delete;

  /// The module or package named by |Dotted| (absolute, or relative to
  /// |From| with leading dots). Returns null with |Error| set to a message
  /// naming the module and where it was looked for.
  Module *load(llvm::StringRef Dotted, const Module &From, std::string &Error);
  /// The submodule |Name| of |Package|, or null, with |Error| empty, when
  /// |Package| is not a package or has no such submodule (an I/O error sets
  /// |Error|).
  Module *loadSubmodule(const Module &Package, llvm::StringRef Name,
                        std::string &Error);

  /// The dotted name |M| was loaded as ("mypkg.ops.utils"), or its file name
  /// for the kernel's module.
  llvm::StringRef getName(const Module &M) const;
  /// The files read so far, in order, without the kernel's own: what a
  /// compile depends on beside it.
  llvm::ArrayRef<std::string> getFiles() const { return Files; }
  /// The dotted name of |Name| in package |Package|: "a.b" + "c" is
  /// "a.b.c", a relative "." + "c" is ".c".
  static std::string childName(llvm::StringRef Package, llvm::StringRef Name);
  /// The roots absolute names are searched in, in order.
  llvm::ArrayRef<std::string> getSearchRoots() const { return Roots; }

private:
  struct Loaded;
  /// The module of file |Path| (a `.py` file, or a folder for a namespace
  /// package), loaded once, named |Name|.
  Module *loadFile(llvm::StringRef Path, bool IsFolder, llvm::StringRef Name,
                   std::string &Error);
  /// Finds `Name.py`, `Name/__init__.py` or the folder `Name` in |Dir|.
  /// Returns false when none exists.
  bool findIn(llvm::StringRef Dir, llvm::StringRef Name, std::string &Path,
              bool &IsFolder) const;
  /// The folder of |M|'s file: where its relative imports start.
  std::string folderOf(const Module &M) const;
  const Loaded *lookup(const Module &M) const;

  SourceManager &Sources;
  DiagnosticEngine &ParseDiags;
  std::vector<std::string> Roots;
  std::vector<std::string> Files;
  std::vector<std::unique_ptr<Loaded>> Modules;
  /// Loaded modules by the real path of their file (or folder).
  llvm::StringMap<Loaded *> ByPath;
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_MODULELOADER_H
