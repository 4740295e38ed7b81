//===- Parser.cpp - parser entry points and token handling ----------------===//
//
// The parser is split by what it parses: expressions (ParseExpr.cpp),
// statements and function definitions (ParseStmt.cpp), and the module level,
// which finds kernels and skips the rest (Module.cpp). This file holds the
// entry points and the token and diagnostic helpers they share.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Parser.h"
#include "tegula/Frontend/Lexer.h"

using namespace llvm;
using namespace tegula::frontend;

Parser::Parser(const SourceFile &File, ASTContext &Ctx, DiagnosticEngine &Diags)
    : File(File), Lex(File, Diags), Ctx(Ctx), Diags(&Diags) {}

const Token &Parser::tokenAt(size_t I) const {
  while (Tokens.size() <= I &&
         (Tokens.empty() || Tokens.back().isNot(TokenKind::EndOfFile)))
    Tokens.push_back(Lex.lex());
  return Tokens[std::min(I, Tokens.size() - 1)];
}

void Parser::consume() {
  if (tok().isNot(TokenKind::EndOfFile))
    ++Pos;
}

bool Parser::consumeIf(TokenKind K) {
  if (!at(K))
    return false;
  consume();
  return true;
}

void Parser::error(SourceLocation Loc, const Twine &Message) {
  if (HadError)
    return;
  HadError = true;
  Diags->error(Loc, Message);
}

void Parser::error(const Token &T, const Twine &Message) {
  if (T.is(TokenKind::Error)) {
    HadError = true; // The lexer has explained it.
    return;
  }
  if (T.is(TokenKind::Indent)) {
    error(loc(T), "unexpected indent");
    return;
  }
  error(loc(T), Message);
}

void Parser::errorExpected(const Twine &What) { error(tok(), "expected " + What); }

bool Parser::expect(TokenKind K, const Twine &What) {
  if (consumeIf(K))
    return true;
  errorExpected(What);
  return false;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Expr *Parser::parseExpressionInput() {
  HadError = false;
  Expr *E = parseTestList(/*AllowStar=*/true);
  if (!E)
    return nullptr;
  consumeIf(TokenKind::Newline);
  if (!at(TokenKind::EndOfFile)) {
    errorExpected("end of expression");
    return nullptr;
  }
  return E;
}

bool Parser::parseStatementsInput(SmallVectorImpl<Stmt *> &Out) {
  HadError = false;
  while (!at(TokenKind::EndOfFile)) {
    if (consumeIf(TokenKind::Newline))
      continue;
    if (!parseStatement(Out))
      return false;
  }
  return true;
}

Expr *tegula::frontend::parseExpression(const SourceFile &File, ASTContext &Ctx,
                                        DiagnosticEngine &Diags) {
  return Parser(File, Ctx, Diags).parseExpressionInput();
}

bool tegula::frontend::parseStatements(const SourceFile &File, ASTContext &Ctx,
                                       DiagnosticEngine &Diags,
                                       SmallVectorImpl<Stmt *> &Out) {
  return Parser(File, Ctx, Diags).parseStatementsInput(Out);
}

std::unique_ptr<Module> tegula::frontend::parseModule(const SourceFile &File,
                                                      DiagnosticEngine &Diags) {
  auto M = std::make_unique<Module>(File);
  Parser(File, M->getContext(), Diags).parseModuleInput(*M);
  return M;
}
