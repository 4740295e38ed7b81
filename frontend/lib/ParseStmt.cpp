//===- ParseStmt.cpp - statements and function definitions ----------------===//
//
// The statements of a kernel body. Python statements that kernels cannot
// use are errors here, at their keyword, except `with`, which is parsed into
// a WithStmt so that semantic analysis can reject it with its own message.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Parser.h"

using namespace llvm;
using namespace tegula::frontend;
using TK = TokenKind;

/// How Python names the statement a block belongs to, in "expected an
/// indented block after ...".
static std::string describeBlockOwner(const Token &Keyword) {
  if (Keyword.is(TK::kw_def))
    return "function definition";
  return ("'" + getTokenSpelling(Keyword.Kind) + "' statement").str();
}

bool Parser::atMatchStatement() const {
  // `match` starts a match statement when its logical line ends with ':'
  // and an indented block follows; otherwise it is a name.
  if (tok().isNot(TK::Identifier) || tok().getText() != "match")
    return false;
  size_t I = Pos + 1;
  while (tokenAt(I).isNot(TK::Newline) && tokenAt(I).isNot(TK::EndOfFile))
    ++I;
  return tokenAt(I).is(TK::Newline) && tokenAt(I - 1).is(TK::Colon) &&
         tokenAt(I + 1).is(TK::Indent);
}

bool Parser::parseStatement(SmallVectorImpl<Stmt *> &Out) {
  const Token &T = tok();
  Stmt *S = nullptr;
  switch (T.Kind) {
  case TK::kw_if:
    S = parseIf();
    break;
  case TK::kw_for:
    S = parseFor();
    break;
  case TK::kw_while:
    S = parseWhile();
    break;
  case TK::kw_with:
    S = parseWith();
    break;
  case TK::kw_def:
  case TK::At:
    error(T, "nested function definitions are not supported in kernels");
    return false;
  case TK::kw_class:
    error(T, "class definitions are not supported in kernels");
    return false;
  case TK::kw_try:
    error(T, "'try' statements are not supported in kernels");
    return false;
  case TK::kw_async:
    error(T, "'async' statements are not supported in kernels");
    return false;
  case TK::kw_elif:
  case TK::kw_else:
  case TK::kw_except:
  case TK::kw_finally:
    error(T, "unexpected '" + getTokenSpelling(T.Kind) + "'");
    return false;
  case TK::Identifier:
    if (atMatchStatement()) {
      error(T, "'match' statements are not supported in kernels");
      return false;
    }
    return parseSimpleStatements(Out);
  default:
    return parseSimpleStatements(Out);
  }
  if (!S)
    return false;
  Out.push_back(S);
  return true;
}

bool Parser::parseSimpleStatements(SmallVectorImpl<Stmt *> &Out) {
  for (;;) {
    Stmt *S = parseSmallStatement();
    if (!S)
      return false;
    Out.push_back(S);
    if (consumeIf(TK::Semi) && !at(TK::Newline))
      continue;
    if (consumeIf(TK::Newline))
      return true;
    errorExpected("end of statement");
    return false;
  }
}

Stmt *Parser::parseSmallStatement() {
  const Token &T = tok();
  SourceLocation Loc = loc(T);
  switch (T.Kind) {
  case TK::kw_pass:
    consume();
    return Ctx.create<PassStmt>(Loc);
  case TK::kw_break:
    consume();
    return Ctx.create<BreakStmt>(Loc);
  case TK::kw_continue:
    consume();
    return Ctx.create<ContinueStmt>(Loc);
  case TK::kw_return:
    return parseReturn();
  case TK::kw_assert:
    return parseAssert();
  case TK::kw_global:
  case TK::kw_nonlocal:
  case TK::kw_del:
  case TK::kw_raise:
    error(T, "'" + getTokenSpelling(T.Kind) + "' statements are not supported in kernels");
    return nullptr;
  case TK::kw_import:
  case TK::kw_from:
    error(T, "'import' statements are not supported in kernels");
    return nullptr;
  default:
    return parseExpressionStatement();
  }
}

Stmt *Parser::parseReturn() {
  SourceLocation Loc = loc();
  consume();
  Expr *Value = nullptr;
  if (!at(TK::Newline) && !at(TK::Semi) && !(Value = parseTestList(true)))
    return nullptr;
  return Ctx.create<ReturnStmt>(Loc, Value);
}

Stmt *Parser::parseAssert() {
  SourceLocation Loc = loc();
  consume();
  Expr *Cond = parseTest();
  if (!Cond)
    return nullptr;
  Expr *Message = nullptr;
  if (consumeIf(TK::Comma) && !(Message = parseTest()))
    return nullptr;
  return Ctx.create<AssertStmt>(Loc, Cond, Message);
}

/// The operator of an augmented assignment token.
static bool augmentedOp(TokenKind Kind, BinaryOp &Op) {
  switch (Kind) {
  case TK::PlusEqual: Op = BinaryOp::Add; return true;
  case TK::MinusEqual: Op = BinaryOp::Sub; return true;
  case TK::StarEqual: Op = BinaryOp::Mul; return true;
  case TK::SlashEqual: Op = BinaryOp::Div; return true;
  case TK::DoubleSlashEqual: Op = BinaryOp::FloorDiv; return true;
  case TK::PercentEqual: Op = BinaryOp::Mod; return true;
  case TK::AtEqual: Op = BinaryOp::MatMul; return true;
  case TK::AmpEqual: Op = BinaryOp::BitAnd; return true;
  case TK::PipeEqual: Op = BinaryOp::BitOr; return true;
  case TK::CaretEqual: Op = BinaryOp::BitXor; return true;
  case TK::LessLessEqual: Op = BinaryOp::LShift; return true;
  case TK::GreaterGreaterEqual: Op = BinaryOp::RShift; return true;
  case TK::DoubleStarEqual: Op = BinaryOp::Pow; return true;
  default: return false;
  }
}

Stmt *Parser::parseExpressionStatement() {
  SourceLocation Loc = loc();
  Expr *E = parseTestList(/*AllowStar=*/true);
  if (!E)
    return nullptr;

  if (at(TK::Colon)) {
    if (isa<TupleExpr>(E) || isa<ListExpr>(E)) {
      error(E->getLoc(), Twine("only single target (not ") +
                             (isa<TupleExpr>(E) ? "tuple" : "list") +
                             ") can be annotated");
      return nullptr;
    }
    if (!isa<NameExpr, AttributeExpr, SubscriptExpr>(E)) {
      error(E->getLoc(), "illegal target for annotation");
      return nullptr;
    }
    consume();
    Expr *Annotation = parseTest();
    if (!Annotation)
      return nullptr;
    Expr *Value = nullptr;
    if (consumeIf(TK::Equal) && !(Value = parseTestList(true)))
      return nullptr;
    return Ctx.create<AnnAssignStmt>(Loc, E, Annotation, Value);
  }

  BinaryOp Op;
  if (augmentedOp(tok().Kind, Op)) {
    if (!isa<NameExpr, AttributeExpr, SubscriptExpr>(E)) {
      error(E->getLoc(), "illegal expression for augmented assignment");
      return nullptr;
    }
    SourceLocation OpLoc = loc();
    consume();
    Expr *Value = parseTestList(true);
    if (!Value)
      return nullptr;
    return Ctx.create<AugAssignStmt>(Loc, E, Op, OpLoc, Value);
  }

  if (at(TK::Equal)) {
    SmallVector<Expr *, 2> Chain{E};
    while (consumeIf(TK::Equal)) {
      Expr *Next = parseTestList(true);
      if (!Next)
        return nullptr;
      Chain.push_back(Next);
    }
    Expr *Value = Chain.pop_back_val();
    for (Expr *Target : Chain)
      if (!checkTarget(Target))
        return nullptr;
    return Ctx.create<AssignStmt>(Loc, Ctx.copyArray<Expr *>(Chain), Value);
  }

  if (isa<StarredExpr>(E)) {
    error(E->getLoc(), "cannot use starred expression here");
    return nullptr;
  }
  return Ctx.create<ExprStmt>(Loc, E);
}

bool Parser::parseSuite(const Token &Keyword, SmallVectorImpl<Stmt *> &Out) {
  DepthGuard Guard(*this);
  if (!Guard.ok())
    return false;
  if (!at(TK::Newline))
    return parseSimpleStatements(Out); // `if x: y = 1`
  consume();
  if (!at(TK::Indent)) {
    error(tok(), "expected an indented block after " + describeBlockOwner(Keyword) +
                     " on line " + Twine(Keyword.Line));
    return false;
  }
  consume();
  while (!at(TK::Dedent)) {
    if (at(TK::EndOfFile)) { // Only after a lexical error.
      error(tok(), "unexpected end of file");
      return false;
    }
    if (!parseStatement(Out))
      return false;
  }
  consume();
  return true;
}

bool Parser::parseOptionalElse(ArrayRef<Stmt *> &ElseBody, SourceLocation &ElseLoc) {
  if (!at(TK::kw_else))
    return true;
  const Token &ElseTok = tok();
  consume();
  SmallVector<Stmt *, 8> Body;
  if (!expect(TK::Colon, "':'") || !parseSuite(ElseTok, Body))
    return false;
  ElseBody = Ctx.copyArray<Stmt *>(Body);
  ElseLoc = loc(ElseTok);
  return true;
}

Stmt *Parser::parseIf() {
  SourceLocation Loc = loc();
  SmallVector<IfBranch, 2> Branches;
  // The `if` and then each `elif`: same shape.
  do {
    const Token &Keyword = tok();
    consume();
    Expr *Cond = parseTest();
    SmallVector<Stmt *, 8> Body;
    if (!Cond || !expect(TK::Colon, "':'") || !parseSuite(Keyword, Body))
      return nullptr;
    Branches.push_back(IfBranch{loc(Keyword), Cond, Ctx.copyArray<Stmt *>(Body)});
  } while (at(TK::kw_elif));
  ArrayRef<Stmt *> ElseBody;
  SourceLocation ElseLoc;
  if (!parseOptionalElse(ElseBody, ElseLoc))
    return nullptr;
  return Ctx.create<IfStmt>(Loc, Ctx.copyArray<IfBranch>(Branches), ElseBody, ElseLoc);
}

Stmt *Parser::parseFor() {
  const Token &ForTok = tok();
  consume();
  Expr *Target = parseTargetList();
  if (!Target || !checkTarget(Target) || !expect(TK::kw_in, "'in'"))
    return nullptr;
  Expr *Iter = parseTestList(/*AllowStar=*/true);
  SmallVector<Stmt *, 8> Body;
  if (!Iter || !expect(TK::Colon, "':'") || !parseSuite(ForTok, Body))
    return nullptr;
  ArrayRef<Stmt *> ElseBody;
  SourceLocation ElseLoc;
  if (!parseOptionalElse(ElseBody, ElseLoc))
    return nullptr;
  return Ctx.create<ForStmt>(loc(ForTok), Target, Iter, Ctx.copyArray<Stmt *>(Body),
                             ElseBody, ElseLoc);
}

Stmt *Parser::parseWhile() {
  const Token &WhileTok = tok();
  consume();
  Expr *Cond = parseTest();
  SmallVector<Stmt *, 8> Body;
  if (!Cond || !expect(TK::Colon, "':'") || !parseSuite(WhileTok, Body))
    return nullptr;
  ArrayRef<Stmt *> ElseBody;
  SourceLocation ElseLoc;
  if (!parseOptionalElse(ElseBody, ElseLoc))
    return nullptr;
  return Ctx.create<WhileStmt>(loc(WhileTok), Cond, Ctx.copyArray<Stmt *>(Body),
                               ElseBody, ElseLoc);
}

Stmt *Parser::parseWith() {
  const Token &WithTok = tok();
  consume();
  SmallVector<WithItem, 2> Items;
  do {
    Expr *Context = parseTest();
    if (!Context)
      return nullptr;
    Expr *Target = nullptr;
    if (consumeIf(TK::kw_as)) {
      Target = parseBinary(1);
      if (!Target || !checkTarget(Target))
        return nullptr;
    }
    Items.push_back(WithItem{Context, Target});
  } while (consumeIf(TK::Comma));
  SmallVector<Stmt *, 8> Body;
  if (!expect(TK::Colon, "':'") || !parseSuite(WithTok, Body))
    return nullptr;
  return Ctx.create<WithStmt>(loc(WithTok), Ctx.copyArray<WithItem>(Items),
                              Ctx.copyArray<Stmt *>(Body));
}

//===----------------------------------------------------------------------===//
// Function definitions
//===----------------------------------------------------------------------===//

FunctionDef *Parser::parseFunctionDef(ArrayRef<Decorator> Decorators) {
  const Token &DefTok = tok();
  consume();
  if (!at(TK::Identifier)) {
    errorExpected("function name");
    return nullptr;
  }
  const Token &NameTok = tok();
  consume();
  SmallVector<Param, 8> Params;
  if (!expect(TK::LParen, "'('") || !parseParameters(Params))
    return nullptr;
  Expr *Returns = nullptr;
  if (consumeIf(TK::Arrow) && !(Returns = parseTest()))
    return nullptr;
  SmallVector<Stmt *, 16> Body;
  if (!expect(TK::Colon, "':'") || !parseSuite(DefTok, Body))
    return nullptr;

  StringRef Docstring;
  bool HasDocstring = false;
  if (!Body.empty())
    if (auto *First = dyn_cast<ExprStmt>(Body.front()))
      if (auto *Str = dyn_cast<StringLiteralExpr>(First->getValue()))
        if (!Str->isBytes() && !Str->isFormat()) {
          Docstring = Str->getValue();
          HasDocstring = true;
          Body.erase(Body.begin());
        }
  return Ctx.create<FunctionDef>(loc(DefTok), NameTok.getText(), loc(NameTok),
                                 Ctx.copyArray<Param>(Params), Returns,
                                 Ctx.copyArray<Decorator>(Decorators), Docstring,
                                 HasDocstring, Ctx.copyArray<Stmt *>(Body));
}

bool Parser::parseParameters(SmallVectorImpl<Param> &Params) {
  while (!at(TK::RParen)) {
    if (at(TK::DoubleStar)) {
      error(tok(), "variadic keyword parameters ('**kwargs') are not supported in kernels");
      return false;
    }
    if (at(TK::Star)) {
      error(tok(), peek().is(TK::Identifier)
                       ? "variadic parameters ('*args') are not supported in kernels"
                       : "keyword-only parameters ('*') are not supported in kernels");
      return false;
    }
    if (at(TK::Slash)) {
      error(tok(), "positional-only parameters ('/') are not supported in kernels");
      return false;
    }
    if (!at(TK::Identifier)) {
      errorExpected("parameter name");
      return false;
    }
    Param P{tok().getText(), loc(), nullptr, nullptr};
    for (const Param &Prev : Params) {
      if (Prev.Name == P.Name) {
        error(tok(), "duplicate argument '" + P.Name + "' in function definition");
        return false;
      }
    }
    consume();
    if (consumeIf(TK::Colon) && !(P.Annotation = parseTest()))
      return false;
    if (consumeIf(TK::Equal)) {
      if (!(P.Default = parseTest()))
        return false;
    } else if (!Params.empty() && Params.back().Default) {
      error(P.Loc, "parameter without a default follows parameter with a default");
      return false;
    }
    Params.push_back(P);
    if (!consumeIf(TK::Comma))
      break;
  }
  return expect(TK::RParen, "',' or ')'");
}

//===----------------------------------------------------------------------===//
// Imports (module level only)
//===----------------------------------------------------------------------===//

bool Parser::parseDottedName(StringRef &Name, SourceLocation &Loc) {
  if (!at(TK::Identifier)) {
    errorExpected("module name");
    return false;
  }
  Loc = loc();
  const char *Begin = tok().Ptr;
  std::string Joined = tok().getText().str();
  const Token *Last = &tok();
  consume();
  while (at(TK::Dot) && peek().is(TK::Identifier)) {
    consume();
    Joined += '.';
    Joined += tok().getText();
    Last = &tok();
    consume();
  }
  // Point into the source when it is written without spaces (the usual case).
  StringRef Written(Begin, Last->Ptr + Last->Length - Begin);
  Name = Written == Joined ? Written : Ctx.copyString(Joined);
  return true;
}

Stmt *Parser::parseImport() {
  SourceLocation Loc = loc();
  consume();
  SmallVector<ImportAlias, 2> Names;
  do {
    ImportAlias A{};
    if (!parseDottedName(A.Name, A.Loc))
      return nullptr;
    if (!parseOptionalAsName(A.AsName))
      return nullptr;
    Names.push_back(A);
  } while (consumeIf(TK::Comma));
  return Ctx.create<ImportStmt>(Loc, Ctx.copyArray<ImportAlias>(Names));
}

bool Parser::parseOptionalAsName(StringRef &AsName) {
  if (!consumeIf(TK::kw_as))
    return true;
  if (!at(TK::Identifier)) {
    errorExpected("name after 'as'");
    return false;
  }
  AsName = tok().getText();
  consume();
  return true;
}

Stmt *Parser::parseImportFrom() {
  SourceLocation Loc = loc();
  consume();
  unsigned Level = 0;
  for (; at(TK::Dot) || at(TK::Ellipsis); consume())
    Level += at(TK::Dot) ? 1 : 3;
  StringRef ModuleName;
  SourceLocation ModuleLoc;
  if ((Level == 0 || at(TK::Identifier)) && !parseDottedName(ModuleName, ModuleLoc))
    return nullptr;
  if (!expect(TK::kw_import, "'import'"))
    return nullptr;
  SmallVector<ImportAlias, 4> Names;
  if (at(TK::Star)) {
    Names.push_back(ImportAlias{"*", {}, loc()});
    consume();
  } else {
    bool Parenthesized = consumeIf(TK::LParen);
    do {
      if (Parenthesized && at(TK::RParen))
        break;
      if (!at(TK::Identifier)) {
        errorExpected("name to import");
        return nullptr;
      }
      ImportAlias A{tok().getText(), {}, loc()};
      consume();
      if (!parseOptionalAsName(A.AsName))
        return nullptr;
      Names.push_back(A);
    } while (consumeIf(TK::Comma));
    if (Parenthesized && !expect(TK::RParen, "')'"))
      return nullptr;
  }
  return Ctx.create<ImportFromStmt>(Loc, ModuleName, Level,
                                    Ctx.copyArray<ImportAlias>(Names));
}
