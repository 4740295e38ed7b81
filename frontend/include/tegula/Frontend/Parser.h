//===- Parser.h - parser of Triton kernel files ------------------*- C++ -*-===//
//
// A recursive-descent parser for the Python that kernels use, with Python's
// precedence and associativity. Within a kernel, syntax outside that subset
// (lambda, comprehensions, dict literals, try, class, ...) is an error at its
// exact location. At module level the parser keeps only jit functions,
// imports and constant assignments; every other top-level statement is
// skipped by indentation (its logical line and indented block) without being
// examined, so host code can use any Python syntax.
//
// After the first error inside a function the parser abandons that function
// and resumes at the next top-level statement. Recursion is bounded
// (kMaxParserRecursion) and so is the height of the tree (kMaxExprDepth):
// no input crashes it.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_PARSER_H
#define TEGULA_FRONTEND_PARSER_H

#include "tegula/Frontend/AST.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Lexer.h"
#include "tegula/Frontend/Token.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <memory>

namespace tegula::frontend {

/// The parser's own recursion limit. It is above the lexer's bracket and
/// indentation limits (kMaxNestingDepth), so that input nested only by
/// brackets or only by blocks gets the lexer's one error; it catches what
/// the lexer cannot see: chains of unary operators, `not`, `**` and
/// conditional expressions, and mixtures of everything.
constexpr unsigned kMaxParserRecursion = 2 * kMaxNestingDepth;

/// The greatest height of an expression tree (left-nested chains such as
/// `a + b + ... + z` grow it without recursion in the parser). Taller
/// expressions get "too deeply nested", so that recursive walks over any
/// tree stay shallow.
constexpr unsigned kMaxExprDepth = 1000;

/// Parses a whole kernel file (see the file comment). Never returns null;
/// problems are reported to |Diags|. The module refers to |File|'s text.
std::unique_ptr<Module> parseModule(const SourceFile &File,
                                    DiagnosticEngine &Diags);

/// Parses |File| as one expression (a comma-separated list is a tuple), with
/// the kernel subset's rules. Returns null after reporting an error.
Expr *parseExpression(const SourceFile &File, ASTContext &Ctx,
                      DiagnosticEngine &Diags);

/// Parses |File| as a sequence of statements of a kernel body (so `def`,
/// `class`, `import` are errors). Returns false after reporting an error;
/// |Out| then holds the statements parsed before it.
bool parseStatements(const SourceFile &File, ASTContext &Ctx,
                     DiagnosticEngine &Diags, llvm::SmallVectorImpl<Stmt *> &Out);

/// The parser of one file. It lexes on demand, so lexical and syntax errors
/// are reported in source order. Use the functions above; the class is
/// public for tools that want the entry points one by one.
class Parser {
public:
  /// Nodes are allocated in |Ctx|; errors, lexical ones included, go to
  /// |Diags|.
  Parser(const SourceFile &File, ASTContext &Ctx, DiagnosticEngine &Diags);

  /// Parses the tokens as one expression followed by the end of input.
  Expr *parseExpressionInput();
  /// Parses the tokens as kernel statements up to the end of input.
  bool parseStatementsInput(llvm::SmallVectorImpl<Stmt *> &Out);
  /// Parses the tokens as a module into |M|, whose context must be the one
  /// this parser allocates in.
  void parseModuleInput(Module &M);

private:
  class DepthGuard;

  //===--- Tokens and diagnostics (Parser.cpp) ---------------------------===//
  /// Token |I| of the file (the EndOfFile token for any I past it), lexing
  /// up to it on first use. References stay valid for the parser's life.
  const Token &tokenAt(size_t I) const;
  const Token &tok() const { return tokenAt(Pos); }
  const Token &peek(unsigned N = 1) const { return tokenAt(Pos + N); }
  bool at(TokenKind K) const { return tok().Kind == K; }
  void consume();
  bool consumeIf(TokenKind K);
  SourceLocation loc(const Token &T) const { return T.getLocation(File); }
  SourceLocation loc() const { return loc(tok()); }
  /// The location of byte |Offset| of token |T|.
  SourceLocation locationWithin(const Token &T, size_t Offset) const;
  /// Reports |Message| at |T| unless an error was already reported for the
  /// current unit, or |T| is the lexer's Error token (its error is out).
  void error(const Token &T, const llvm::Twine &Message);
  void error(SourceLocation Loc, const llvm::Twine &Message);
  /// Reports "expected X" at the current token.
  void errorExpected(const llvm::Twine &What);
  /// Consumes a |K| token, or reports "expected <what>".
  bool expect(TokenKind K, const llvm::Twine &What);
  /// Creates a node, reporting "too deeply nested" (and returning null) when
  /// the tree gets taller than kMaxExprDepth.
  template <typename T, typename... ArgTs> T *makeExpr(ArgTs &&...Args);

  //===--- Expressions (ParseExpr.cpp) -----------------------------------===//
  Expr *parseTest();
  Expr *parseOrTest();
  Expr *parseAndTest();
  Expr *parseNotTest();
  Expr *parseComparison();
  Expr *parseBinary(unsigned MinPrecedence);
  Expr *parseFactor();
  Expr *parsePower();
  Expr *parsePostfix();
  Expr *parseAtom();
  Expr *parseParenthesized();
  Expr *parseListDisplay();
  Expr *parseStringLiterals();
  Expr *parseNumber();
  Expr *parseCall(Expr *Callee);
  Expr *parseSubscript(Expr *Base);
  Expr *parseSubscriptItem();
  /// `*bitwise_or` or a test.
  Expr *parseStarOrTest();
  /// A comma-separated list of parseStarOrTest (or parseTest when
  /// !AllowStar); a single element without comma is returned as is.
  Expr *parseTestList(bool AllowStar);
  /// Assignment targets of `for` and `as`: bitwise_or-level expressions, so
  /// that `in` ends them.
  Expr *parseTargetList();
  /// Reports an error and returns false if |E| cannot be assigned to.
  bool checkTarget(Expr *E);

  //===--- Statements (ParseStmt.cpp) ------------------------------------===//
  bool parseStatement(llvm::SmallVectorImpl<Stmt *> &Out);
  /// Whether the statement at Pos is a `match` statement (a soft keyword).
  bool atMatchStatement() const;
  bool parseSimpleStatements(llvm::SmallVectorImpl<Stmt *> &Out);
  Stmt *parseSmallStatement();
  Stmt *parseExpressionStatement();
  Stmt *parseReturn();
  Stmt *parseAssert();
  Stmt *parseIf();
  Stmt *parseFor();
  Stmt *parseWhile();
  Stmt *parseWith();
  /// The block after ':' of a compound statement whose keyword is |Keyword|
  /// (for "expected an indented block after 'if' statement on line N").
  bool parseSuite(const Token &Keyword, llvm::SmallVectorImpl<Stmt *> &Out);
  bool parseOptionalElse(llvm::ArrayRef<Stmt *> &ElseBody, SourceLocation &ElseLoc);
  /// `def` ... with |Decorators| already parsed.
  FunctionDef *parseFunctionDef(llvm::ArrayRef<Decorator> Decorators);
  bool parseParameters(llvm::SmallVectorImpl<Param> &Params);
  Stmt *parseImport();
  Stmt *parseImportFrom();
  bool parseDottedName(llvm::StringRef &Name, SourceLocation &Loc);
  /// Parses `as NAME` if present into |AsName|; false after an error.
  bool parseOptionalAsName(llvm::StringRef &AsName);

  //===--- Module level (Module.cpp) -------------------------------------===//
  void parseModuleStatement(Module &M);
  void parseModuleSimpleLine(Module &M);
  /// A module-level `if` or `try` statement (see Module.cpp).
  void parseModuleBranches(Module &M);
  void parseDecoratedDefinition(Module &M);
  bool parseModuleAssignment(Module &M);
  bool isJitDecoratorName(const Module &M, llvm::StringRef Dotted) const;
  /// Skips the logical line at Pos and, when an indented block follows it,
  /// that block.
  void skipStatement();
  /// Skips to the end of the current small statement (';' or NEWLINE),
  /// leaving that token.
  void skipSmallStatement();
  void skipIndentedBlock();

  const SourceFile &File;
  /// Lexed tokens; a deque, so that growing it keeps references valid.
  mutable Lexer Lex;
  mutable std::deque<Token> Tokens;
  size_t Pos = 0;
  ASTContext &Ctx;
  /// Where errors go; module-level speculation points it at a scratch engine.
  DiagnosticEngine *Diags;
  unsigned Depth = 0;
  /// An error was reported in the current unit (expression, statement list,
  /// function, top-level statement); later ones would be consequences.
  bool HadError = false;
};

/// Counts one level of recursion for as long as it lives.
class Parser::DepthGuard {
public:
  explicit DepthGuard(Parser &P) : P(P) { ++P.Depth; }
  ~DepthGuard() { --P.Depth; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;
  /// False, after reporting "too deeply nested" at the current token, when
  /// the recursion is deeper than kMaxParserRecursion.
  bool ok() {
    if (P.Depth <= kMaxParserRecursion)
      return true;
    P.error(P.tok(), "too deeply nested");
    return false;
  }

private:
  Parser &P;
};

template <typename T, typename... ArgTs>
T *Parser::makeExpr(ArgTs &&...Args) {
  T *E = Ctx.create<T>(std::forward<ArgTs>(Args)...);
  if (E->getDepth() <= kMaxExprDepth)
    return E;
  error(E->getLoc(), "too deeply nested");
  return nullptr;
}

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_PARSER_H
