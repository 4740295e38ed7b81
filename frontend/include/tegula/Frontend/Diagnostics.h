//===- Diagnostics.h - located errors of the front end -----------*- C++ -*-===//
//
// The front end reports problems to a DiagnosticEngine, which keeps them in
// order (tests inspect message text and locations) and renders them like a
// compiler, through llvm::SMDiagnostic:
//
//   add.py:3:17: error: lambda expressions are not supported in kernels
//       y = tl.map(lambda v: v, x)
//                  ^
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_DIAGNOSTICS_H
#define TEGULA_FRONTEND_DIAGNOSTICS_H

#include "tegula/Frontend/Source.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tegula::frontend {

enum class DiagSeverity { Error, Warning, Note };

/// One reported problem.
struct Diagnostic {
  DiagSeverity Severity = DiagSeverity::Error;
  /// Where it is; invalid for problems that concern no position (a file that
  /// cannot be read).
  SourceLocation Loc;
  std::string Message;
};

/// Collects diagnostics in the order they are reported.
class DiagnosticEngine {
public:
  /// |SM| must own every file that reported locations refer to, and outlive
  /// the engine.
  explicit DiagnosticEngine(const SourceManager &SM) : SM(SM) {}

  void report(DiagSeverity Severity, SourceLocation Loc,
              const llvm::Twine &Message);
  void error(SourceLocation Loc, const llvm::Twine &Message) {
    report(DiagSeverity::Error, Loc, Message);
  }
  void warning(SourceLocation Loc, const llvm::Twine &Message) {
    report(DiagSeverity::Warning, Loc, Message);
  }
  void note(SourceLocation Loc, const llvm::Twine &Message) {
    report(DiagSeverity::Note, Loc, Message);
  }

  /// The number of errors reported, including any beyond the storage limit.
  unsigned getNumErrors() const { return NumErrors; }
  bool hasErrors() const { return NumErrors != 0; }
  /// The stored diagnostics, in report order.
  llvm::ArrayRef<Diagnostic> getDiagnostics() const { return Diags; }
  /// Forgets every diagnostic and resets the error count.
  void clear();

  /// Stores at most |Limit| diagnostics (0: no limit; the default is 1000) so
  /// that hostile input cannot grow memory without bound. Errors past the
  /// limit are still counted.
  void setStorageLimit(unsigned Limit) { StorageLimit = Limit; }

  /// When set, each diagnostic is also printed to |OS| as it is reported.
  void setEchoStream(llvm::raw_ostream *OS) { Echo = OS; }

  /// Renders |D| as "file:line:col: error: message", the source line and a
  /// caret line under the column (tabs expanded). Control characters and
  /// bytes that are not valid UTF-8 show as '?' in the source line.
  void print(const Diagnostic &D, llvm::raw_ostream &OS) const;
  /// print() into a string.
  std::string render(const Diagnostic &D) const;
  /// Prints every stored diagnostic in order.
  void printAll(llvm::raw_ostream &OS) const;

  const SourceManager &getSourceManager() const { return SM; }

private:
  const SourceManager &SM;
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  unsigned StorageLimit = 1000;
  llvm::raw_ostream *Echo = nullptr;
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_DIAGNOSTICS_H
