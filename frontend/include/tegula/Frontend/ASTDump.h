//===- ASTDump.h - S-expression dumps of the syntax tree ---------*- C++ -*-===//
//
// A stable text form of the tree for tests and debugging. Expressions print
// on one line:
//
//   a + b * -c[:, None]  ->  (+ a (* b (u- (subscript c (tuple (slice _ _ _) None)))))
//
// Literals: (int 16) (value), (float 0.5) (shortest round-trip value),
// (str "a\n"), (bytes "..."), (fstr "..."), True, False, None, ...
// Names print bare. Operators print their Python spelling; unary + - are
// u+ u-; comparisons: (compare a < b is not c). Other forms: (. base name),
// (call f arg (kw name value)), (subscript x i), (slice lo hi step) with _
// for a missing part, (tuple ...), (list ...), (starred x), (and ...),
// (or ...), (not x), (ifexp cond then else).
//
// Statements print one per line, nested blocks indented by two spaces:
//
//   (if (compare i < n)
//     (then
//       (aug-assign += acc x))
//     (else
//       (pass)))
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_ASTDUMP_H
#define TEGULA_FRONTEND_ASTDUMP_H

#include "tegula/Frontend/AST.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tegula::frontend {

/// Prints |E| on one line (no newline after it).
void dumpExpr(const Expr *E, llvm::raw_ostream &OS);
/// Prints |S| (ending with a newline), indented by |Indent| spaces.
void dumpStmt(const Stmt *S, llvm::raw_ostream &OS, unsigned Indent = 0);
/// Prints the module's imports, globals `(global NAME VALUE)` and functions.
void dumpModule(const Module &M, llvm::raw_ostream &OS);

/// The dumps above, as strings.
std::string dumpToString(const Expr *E);
std::string dumpToString(const Stmt *S);
std::string dumpToString(const Module &M);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_ASTDUMP_H
