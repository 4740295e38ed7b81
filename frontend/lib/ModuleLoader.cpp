//===- ModuleLoader.cpp - the user's modules a kernel imports from --------===//
#include "tegula/Frontend/ModuleLoader.h"

#include "tegula/Frontend/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace tegula::frontend;

struct ModuleLoader::Loaded {
  Module *M = nullptr;
  std::unique_ptr<Module> Owned;
  std::string Name;
  /// Where the module's relative imports start, and where a package's
  /// submodules live.
  std::string Folder;
  bool IsPackage = false;
};

static std::string joinPath(StringRef A, StringRef B) {
  SmallString<256> P(A);
  sys::path::append(P, B);
  return std::string(P);
}

static std::string absolute(StringRef Path) {
  SmallString<256> P(Path.empty() ? StringRef(".") : Path);
  if (sys::fs::make_absolute(P))
    return Path.str();
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

ModuleLoader::ModuleLoader(SourceManager &Sources, DiagnosticEngine &ParseDiags,
                           Module &Main, ArrayRef<std::string> SearchPaths)
    : Sources(Sources), ParseDiags(ParseDiags) {
  for (const std::string &Root : SearchPaths)
    if (sys::fs::is_directory(absolute(Root)))
      Roots.push_back(absolute(Root));
  auto MainInfo = std::make_unique<Loaded>();
  MainInfo->M = &Main;
  StringRef FileName = Main.getFile().getName();
  MainInfo->Name = sys::path::stem(FileName).str();
  if (sys::fs::is_regular_file(FileName)) {
    // The kernel file's package: its folder and the folders above it that
    // hold an `__init__.py` give it a dotted name under the package's root.
    std::string Folder = absolute(sys::path::parent_path(absolute(FileName)));
    MainInfo->Folder = Folder;
    MainInfo->IsPackage = sys::path::filename(FileName) == "__init__.py";
    std::string Name = MainInfo->IsPackage ? "" : MainInfo->Name;
    std::string Root = Folder;
    while (sys::fs::is_regular_file(joinPath(Root, "__init__.py"))) {
      StringRef Package = sys::path::filename(Root);
      Name = Name.empty() ? Package.str() : (Package + "." + Name).str();
      std::string Parent = sys::path::parent_path(Root).str();
      if (Parent.empty() || Parent == Root)
        break;
      Root = Parent;
    }
    if (!Name.empty())
      MainInfo->Name = Name;
    for (const std::string &R : {Root, Folder})
      if (!is_contained(Roots, R))
        Roots.push_back(R);
    ByPath[absolute(FileName)] = MainInfo.get();
  }
  Modules.push_back(std::move(MainInfo));
}

ModuleLoader::~ModuleLoader() = default;

std::string ModuleLoader::childName(StringRef Package, StringRef Name) {
  return Package.ends_with(".") ? (Package + Name).str()
                                : (Package + "." + Name).str();
}

const ModuleLoader::Loaded *ModuleLoader::lookup(const Module &M) const {
  for (const auto &L : Modules)
    if (L->M == &M)
      return L.get();
  return nullptr;
}

StringRef ModuleLoader::getName(const Module &M) const {
  const Loaded *L = lookup(M);
  return L ? StringRef(L->Name) : M.getFile().getName();
}

std::string ModuleLoader::folderOf(const Module &M) const {
  const Loaded *L = lookup(M);
  return L ? L->Folder : std::string();
}

bool ModuleLoader::findIn(StringRef Dir, StringRef Name, std::string &Path,
                          bool &IsFolder) const {
  std::string Folder = joinPath(Dir, Name);
  std::string Init = joinPath(Folder, "__init__.py");
  std::string File = joinPath(Dir, (Name + ".py").str());
  IsFolder = false;
  // Python's order: a regular package, then a module; a bare folder is a
  // namespace package only where neither exists.
  if (sys::fs::is_regular_file(Init)) {
    Path = Init;
    return true;
  }
  if (sys::fs::is_regular_file(File)) {
    Path = File;
    return true;
  }
  if (sys::fs::is_directory(Folder)) {
    Path = Folder;
    IsFolder = true;
    return true;
  }
  return false;
}

Module *ModuleLoader::loadFile(StringRef Path, bool IsFolder, StringRef Name,
                               std::string &Error) {
  SmallString<256> Real;
  std::string Key = sys::fs::real_path(Path, Real) ? absolute(Path)
                                                   : std::string(Real);
  if (auto It = ByPath.find(Key); It != ByPath.end())
    return It->second->M;
  auto L = std::make_unique<Loaded>();
  L->Name = Name.str();
  const SourceFile *File;
  if (IsFolder) {
    // A namespace package holds no code, only submodules.
    File = &Sources.addBuffer("", Path);
    L->Folder = Path.str();
    L->IsPackage = true;
  } else {
    File = Sources.addFile(Path, Error);
    if (!File) {
      Error = "cannot read module '" + Name.str() + "': " + Error;
      return nullptr;
    }
    Files.push_back(Path.str());
    L->Folder = sys::path::parent_path(Path).str();
    L->IsPackage = sys::path::filename(Path) == "__init__.py";
  }
  L->Owned = parseModule(*File, ParseDiags);
  L->M = L->Owned.get();
  ByPath[Key] = L.get();
  Modules.push_back(std::move(L));
  return Modules.back()->M;
}

Module *ModuleLoader::loadSubmodule(const Module &Package, StringRef Name,
                                    std::string &Error) {
  Error.clear();
  const Loaded *P = lookup(Package);
  if (!P || !P->IsPackage || P->Folder.empty())
    return nullptr;
  std::string Path;
  bool IsFolder;
  if (!findIn(P->Folder, Name, Path, IsFolder))
    return nullptr;
  return loadFile(Path, IsFolder, childName(P->Name, Name), Error);
}

Module *ModuleLoader::load(StringRef Dotted, const Module &From,
                           std::string &Error) {
  size_t Level = Dotted.find_first_not_of('.');
  if (Level == StringRef::npos)
    Level = Dotted.size();
  SmallVector<StringRef, 4> Parts;
  if (Level < Dotted.size())
    Dotted.drop_front(Level).split(Parts, '.');

  Module *Current = nullptr;
  size_t Next = 0;
  if (Level > 0) {
    const Loaded *F = lookup(From);
    if (!F || F->Folder.empty()) {
      Error = "cannot resolve the relative import '" + Dotted.str() +
              "': the kernel's file name '" +
              From.getFile().getName().str() + "' is not a path";
      return nullptr;
    }
    // The package the dots name, and its dotted name where known.
    std::string Folder = F->Folder;
    SmallVector<StringRef, 4> NameParts;
    StringRef(F->Name).split(NameParts, '.');
    if (!F->IsPackage && !NameParts.empty())
      NameParts.pop_back();
    for (size_t I = 1; I < Level; ++I) {
      Folder = sys::path::parent_path(Folder).str();
      if (!NameParts.empty())
        NameParts.pop_back();
    }
    // Outside a package the dots are all the name there is.
    std::string Name = join(NameParts, ".");
    if (Name.empty())
      Name = std::string(Level, '.');
    std::string Init = joinPath(Folder, "__init__.py");
    bool HasInit = sys::fs::is_regular_file(Init);
    Current = loadFile(HasInit ? Init : Folder, !HasInit, Name, Error);
  } else {
    if (Parts.empty()) {
      Error = "empty module name";
      return nullptr;
    }
    // A regular module or package in the first root that has one; a
    // namespace package only where no root has either.
    std::string Path, Namespace;
    for (const std::string &Root : Roots) {
      bool IsFolder;
      if (!findIn(Root, Parts[0], Path, IsFolder))
        continue;
      if (!IsFolder)
        break;
      if (Namespace.empty())
        Namespace = Path;
      Path.clear();
    }
    if (Path.empty() && !Namespace.empty())
      Current = loadFile(Namespace, /*IsFolder=*/true, Parts[0], Error);
    else if (!Path.empty())
      Current = loadFile(Path, /*IsFolder=*/false, Parts[0], Error);
    if (!Current && Error.empty()) {
      std::string Searched;
      for (const std::string &Root : Roots)
        Searched += (Searched.empty() ? "" : ", ") + Root;
      Error = "cannot find module '" + Parts[0].str() + "' (searched " +
              (Searched.empty() ? std::string("no folders") : Searched) + ")";
    }
    Next = 1;
  }
  for (; Current && Next < Parts.size(); ++Next) {
    Module *Sub = loadSubmodule(*Current, Parts[Next], Error);
    if (!Sub && Error.empty())
      Error = "cannot find module '" + childName(getName(*Current), Parts[Next]) +
              "' (no " + Parts[Next].str() + ".py or " +
              Parts[Next].str() + "/ in " + folderOf(*Current) + ")";
    Current = Sub;
  }
  return Current;
}
