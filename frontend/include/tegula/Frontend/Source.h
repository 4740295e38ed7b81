//===- Source.h - source files and locations ---------------------*- C++ -*-===//
//
// A SourceManager owns the text of every file the front end reads (on top of
// an llvm::SourceMgr, which renders diagnostics). A SourceLocation names a
// byte of one of those files by line, column and offset.
//
// Lines and columns are 1-based. A column counts bytes from the start of the
// line: a tab or a multi-byte UTF-8 character advances it by its byte length.
// "\n", "\r\n" and a lone "\r" all end a line, as in Python.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_SOURCE_H
#define TEGULA_FRONTEND_SOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tegula::frontend {

class SourceFile;

/// A byte position in a SourceFile. A default-constructed location is invalid
/// (it has no file) and stands for "no location".
struct SourceLocation {
  const SourceFile *File = nullptr;
  /// 1-based line number.
  uint32_t Line = 0;
  /// 1-based column, in bytes from the start of the line.
  uint32_t Column = 0;
  /// 0-based byte offset from the start of the file.
  uint32_t Offset = 0;

  bool isValid() const { return File != nullptr; }
};

/// One file registered with a SourceManager. Its text lives, unmoved, as long
/// as the SourceManager does; tokens and AST nodes point into it.
class SourceFile {
public:
  /// The name diagnostics print (the path as given, or a buffer's name).
  llvm::StringRef getName() const { return Name; }
  /// The whole text of the file.
  llvm::StringRef getText() const { return Text; }
  /// The ID of this file's buffer in the underlying llvm::SourceMgr.
  unsigned getBufferID() const { return BufferID; }
  /// The llvm::SMLoc of byte |Offset| (which may be the end of the file).
  llvm::SMLoc getSMLoc(uint32_t Offset) const;
  /// The text of the line that contains |Loc|, without its line terminator.
  /// |Loc| must be a location in this file produced by the lexer or by
  /// getLocation (its column and offset must agree).
  llvm::StringRef getLineText(const SourceLocation &Loc) const;
  /// Computes the location of byte |Offset| by scanning the file from the
  /// start; offsets past the end are clamped to the end. Linear time, meant
  /// for tools and tests (the lexer tracks lines itself).
  SourceLocation getLocation(uint32_t Offset) const;

private:
  friend class SourceManager;
  SourceFile(std::string Name, llvm::StringRef Text, unsigned BufferID)
      : Name(std::move(Name)), Text(Text), BufferID(BufferID) {}

  std::string Name;
  llvm::StringRef Text;
  unsigned BufferID;
};

/// Owns source files. Not copyable; SourceFile references stay valid until
/// it is destroyed.
class SourceManager {
public:
  SourceManager();
  ~SourceManager();
  SourceManager(const SourceManager &) = delete;
  SourceManager &operator=(const SourceManager &) = delete;

  /// Registers a copy of |Text| as a file named |Name|.
  const SourceFile &addBuffer(llvm::StringRef Text, llvm::StringRef Name);
  /// Reads the file at |Path|. On failure returns null and sets |Error| to a
  /// message naming the path and the reason.
  const SourceFile *addFile(llvm::StringRef Path, std::string &Error);

  /// The llvm::SourceMgr that holds the buffers (diagnostics render with it).
  const llvm::SourceMgr &getLLVMSourceMgr() const { return SM; }

private:
  const SourceFile &add(std::unique_ptr<llvm::MemoryBuffer> Buffer,
                        llvm::StringRef Name);

  llvm::SourceMgr SM;
  std::vector<std::unique_ptr<SourceFile>> Files;
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_SOURCE_H
