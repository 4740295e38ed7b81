//===- ParseExpr.cpp - expressions ----------------------------------------===//
//
// Python's expression grammar, lowest precedence first:
//
//   test       := or_test ['if' or_test 'else' test]
//   or_test    := and_test ('or' and_test)*
//   and_test   := not_test ('and' not_test)*
//   not_test   := 'not' not_test | comparison
//   comparison := bitwise_or (comp_op bitwise_or)*
//   bitwise_or ... term: left-associative binary operators (| ^ & << >>
//                  + - * / // % @), parsed by precedence climbing
//   factor     := ('+' | '-' | '~') factor | power
//   power      := primary ['**' factor]
//   primary    := atom ('.' NAME | '(' args ')' | '[' subscripts ']')*
//
// Every function that recurses without consuming a bracket (unary
// operators, `not`, `**`, conditional expressions) holds a DepthGuard; the
// brackets themselves are bounded by the lexer.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Lexer.h"
#include "tegula/Frontend/Parser.h"

#include <optional>

using namespace llvm;
using namespace tegula::frontend;
using TK = TokenKind;

/// Whether |T| can begin an expression (ends the elements of a list that
/// has a trailing comma).
static bool startsExpression(const Token &T) {
  switch (T.Kind) {
  case TK::Identifier: case TK::Integer: case TK::Float: case TK::Imaginary:
  case TK::String: case TK::kw_True: case TK::kw_False: case TK::kw_None:
  case TK::Ellipsis: case TK::LParen: case TK::LSquare: case TK::LBrace:
  case TK::Minus: case TK::Plus: case TK::Tilde: case TK::kw_not:
  case TK::kw_lambda: case TK::kw_await: case TK::kw_yield: case TK::Star:
    return true;
  default:
    return false;
  }
}

Expr *Parser::parseTest() {
  DepthGuard Guard(*this);
  if (!Guard.ok())
    return nullptr;
  Expr *E = parseOrTest();
  if (!E)
    return nullptr;
  if (consumeIf(TK::kw_if)) {
    Expr *Cond = parseOrTest();
    if (!Cond || !expect(TK::kw_else, "'else' in conditional expression"))
      return nullptr;
    Expr *Else = parseTest();
    if (!Else)
      return nullptr;
    E = makeExpr<ConditionalExpr>(E->getLoc(), Cond, E, Else);
    if (!E)
      return nullptr;
  }
  if (at(TK::ColonEqual)) {
    error(tok(), "assignment expressions (':=') are not supported in kernels");
    return nullptr;
  }
  return E;
}

Expr *Parser::parseOrTest() {
  Expr *First = parseAndTest();
  if (!First || !at(TK::kw_or))
    return First;
  SmallVector<Expr *, 4> Operands{First};
  while (consumeIf(TK::kw_or)) {
    Expr *Next = parseAndTest();
    if (!Next)
      return nullptr;
    Operands.push_back(Next);
  }
  return makeExpr<BoolOpExpr>(First->getLoc(), BoolOp::Or,
                              Ctx.copyArray<Expr *>(Operands));
}

Expr *Parser::parseAndTest() {
  Expr *First = parseNotTest();
  if (!First || !at(TK::kw_and))
    return First;
  SmallVector<Expr *, 4> Operands{First};
  while (consumeIf(TK::kw_and)) {
    Expr *Next = parseNotTest();
    if (!Next)
      return nullptr;
    Operands.push_back(Next);
  }
  return makeExpr<BoolOpExpr>(First->getLoc(), BoolOp::And,
                              Ctx.copyArray<Expr *>(Operands));
}

Expr *Parser::parseNotTest() {
  if (!at(TK::kw_not))
    return parseComparison();
  DepthGuard Guard(*this);
  if (!Guard.ok())
    return nullptr;
  SourceLocation Loc = loc();
  consume();
  Expr *Operand = parseNotTest();
  if (!Operand)
    return nullptr;
  return makeExpr<UnaryExpr>(Loc, UnaryOp::Not, Operand);
}

/// The comparison operator at the current token and how many tokens it
/// takes (`not in` and `is not` take two).
static std::optional<CompareOp> comparisonAt(const Token &T, const Token &Next,
                                             unsigned &Length) {
  Length = 1;
  switch (T.Kind) {
  case TK::Less: return CompareOp::Lt;
  case TK::Greater: return CompareOp::Gt;
  case TK::LessEqual: return CompareOp::LtE;
  case TK::GreaterEqual: return CompareOp::GtE;
  case TK::EqualEqual: return CompareOp::Eq;
  case TK::NotEqual: return CompareOp::NotEq;
  case TK::kw_in: return CompareOp::In;
  case TK::kw_is:
    if (Next.is(TK::kw_not)) {
      Length = 2;
      return CompareOp::IsNot;
    }
    return CompareOp::Is;
  case TK::kw_not:
    if (Next.is(TK::kw_in)) {
      Length = 2;
      return CompareOp::NotIn;
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

Expr *Parser::parseComparison() {
  Expr *LHS = parseBinary(1);
  if (!LHS)
    return nullptr;
  SmallVector<Comparison, 2> Chain;
  unsigned Length;
  while (std::optional<CompareOp> Op = comparisonAt(tok(), peek(), Length)) {
    SourceLocation OpLoc = loc();
    for (unsigned I = 0; I < Length; ++I)
      consume();
    Expr *RHS = parseBinary(1);
    if (!RHS)
      return nullptr;
    Chain.push_back(Comparison{*Op, OpLoc, RHS});
  }
  if (Chain.empty())
    return LHS;
  return makeExpr<CompareExpr>(LHS->getLoc(), LHS,
                               Ctx.copyArray<Comparison>(Chain));
}

/// Python's binary operator precedence (1 = loosest); 0 for other tokens.
static unsigned binaryPrecedence(TokenKind Kind, BinaryOp &Op) {
  switch (Kind) {
  case TK::Pipe: Op = BinaryOp::BitOr; return 1;
  case TK::Caret: Op = BinaryOp::BitXor; return 2;
  case TK::Amp: Op = BinaryOp::BitAnd; return 3;
  case TK::LessLess: Op = BinaryOp::LShift; return 4;
  case TK::GreaterGreater: Op = BinaryOp::RShift; return 4;
  case TK::Plus: Op = BinaryOp::Add; return 5;
  case TK::Minus: Op = BinaryOp::Sub; return 5;
  case TK::Star: Op = BinaryOp::Mul; return 6;
  case TK::Slash: Op = BinaryOp::Div; return 6;
  case TK::DoubleSlash: Op = BinaryOp::FloorDiv; return 6;
  case TK::Percent: Op = BinaryOp::Mod; return 6;
  case TK::At: Op = BinaryOp::MatMul; return 6;
  default: return 0;
  }
}

Expr *Parser::parseBinary(unsigned MinPrecedence) {
  // Precedence climbing: the recursion is at most one level per precedence
  // level, and chains of one level are built in this loop.
  Expr *LHS = parseFactor();
  if (!LHS)
    return nullptr;
  for (;;) {
    BinaryOp Op;
    unsigned Precedence = binaryPrecedence(tok().Kind, Op);
    if (Precedence == 0 || Precedence < MinPrecedence)
      return LHS;
    SourceLocation OpLoc = loc();
    consume();
    Expr *RHS = parseBinary(Precedence + 1);
    if (!RHS)
      return nullptr;
    LHS = makeExpr<BinaryExpr>(LHS->getLoc(), Op, OpLoc, LHS, RHS);
    if (!LHS)
      return nullptr;
  }
}

Expr *Parser::parseFactor() {
  UnaryOp Op;
  switch (tok().Kind) {
  case TK::Plus: Op = UnaryOp::Plus; break;
  case TK::Minus: Op = UnaryOp::Minus; break;
  case TK::Tilde: Op = UnaryOp::Invert; break;
  default: return parsePower();
  }
  DepthGuard Guard(*this);
  if (!Guard.ok())
    return nullptr;
  SourceLocation Loc = loc();
  consume();
  Expr *Operand = parseFactor();
  if (!Operand)
    return nullptr;
  return makeExpr<UnaryExpr>(Loc, Op, Operand);
}

Expr *Parser::parsePower() {
  Expr *Base = parsePostfix();
  if (!Base || !at(TK::DoubleStar))
    return Base;
  // `a ** b ** c` is `a ** (b ** c)` and `a ** -b` is `a ** (-b)`.
  DepthGuard Guard(*this);
  if (!Guard.ok())
    return nullptr;
  SourceLocation OpLoc = loc();
  consume();
  Expr *Exponent = parseFactor();
  if (!Exponent)
    return nullptr;
  return makeExpr<BinaryExpr>(Base->getLoc(), BinaryOp::Pow, OpLoc, Base, Exponent);
}

Expr *Parser::parsePostfix() {
  Expr *E = parseAtom();
  while (E) {
    if (at(TK::Dot)) {
      consume();
      if (!at(TK::Identifier)) {
        errorExpected("attribute name after '.'");
        return nullptr;
      }
      E = makeExpr<AttributeExpr>(E->getLoc(), E, tok().getText(), loc());
      consume();
    } else if (at(TK::LParen)) {
      E = parseCall(E);
    } else if (at(TK::LSquare)) {
      E = parseSubscript(E);
    } else {
      return E;
    }
  }
  return nullptr;
}

Expr *Parser::parseAtom() {
  const Token &T = tok();
  SourceLocation Loc = loc(T);
  switch (T.Kind) {
  case TK::Identifier:
    consume();
    return makeExpr<NameExpr>(Loc, T.getText());
  case TK::Integer:
  case TK::Float:
    return parseNumber();
  case TK::String:
    return parseStringLiterals();
  case TK::kw_True:
  case TK::kw_False:
    consume();
    return makeExpr<BoolLiteralExpr>(Loc, T.is(TK::kw_True));
  case TK::kw_None:
    consume();
    return makeExpr<NoneLiteralExpr>(Loc);
  case TK::Ellipsis:
    consume();
    return makeExpr<EllipsisExpr>(Loc);
  case TK::LParen:
    return parseParenthesized();
  case TK::LSquare:
    return parseListDisplay();
  case TK::LBrace:
    error(T, "dict and set literals are not supported in kernels");
    return nullptr;
  case TK::Imaginary:
    error(T, "complex literals are not supported in kernels");
    return nullptr;
  case TK::kw_lambda:
    error(T, "lambda expressions are not supported in kernels");
    return nullptr;
  case TK::kw_yield:
    error(T, "'yield' expressions are not supported in kernels");
    return nullptr;
  case TK::kw_await:
    error(T, "'await' expressions are not supported in kernels");
    return nullptr;
  case TK::Star:
    error(T, "cannot use starred expression here");
    return nullptr;
  default:
    errorExpected("expression");
    return nullptr;
  }
}

Expr *Parser::parseNumber() {
  const Token &T = tok();
  consume();
  if (T.is(TK::Float))
    return makeExpr<FloatLiteralExpr>(loc(T), T.getText(),
                                      decodeFloatLiteral(T.getText()));
  uint64_t Value = 0;
  bool Fits = decodeIntegerLiteral(T.getText(), Value);
  return makeExpr<IntLiteralExpr>(loc(T), T.getText(), Fits ? Value : 0, !Fits);
}

SourceLocation Parser::locationWithin(const Token &T, size_t Offset) const {
  // Walks the token (a string may span lines) rather than the file, so that
  // the cost does not depend on where the token is.
  SourceLocation Loc = loc(T);
  StringRef Text = T.getText().take_front(Offset);
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '\r' && I + 1 < Text.size() && Text[I + 1] == '\n')
      continue; // Counted at the '\n'.
    if (C == '\n' || C == '\r') {
      ++Loc.Line;
      Loc.Column = 1;
    } else {
      ++Loc.Column;
    }
  }
  Loc.Offset += static_cast<uint32_t>(Text.size());
  return Loc;
}

Expr *Parser::parseStringLiterals() {
  SourceLocation Loc = loc();
  std::string Value, Piece, Error;
  bool First = true, Bytes = false, Format = false;
  while (at(TK::String)) {
    const Token &T = tok();
    StringLiteralPrefix Prefix;
    size_t ErrorOffset = 0;
    if (!decodeStringLiteral(T.getText(), Piece, Prefix, Error, ErrorOffset)) {
      error(locationWithin(T, ErrorOffset), Error);
      return nullptr;
    }
    if (!First && Prefix.Bytes != Bytes) {
      error(T, "cannot mix bytes and nonbytes literals");
      return nullptr;
    }
    First = false;
    Bytes = Prefix.Bytes;
    Format |= Prefix.Format;
    Value += Piece;
    consume();
  }
  return makeExpr<StringLiteralExpr>(Loc, Ctx.copyString(Value), Bytes, Format);
}

Expr *Parser::parseParenthesized() {
  SourceLocation Loc = loc();
  consume(); // '('
  if (consumeIf(TK::RParen))
    return makeExpr<TupleExpr>(Loc, ArrayRef<Expr *>(), /*Parenthesized=*/true);
  Expr *First = parseStarOrTest();
  if (!First)
    return nullptr;
  if (at(TK::kw_for) || at(TK::kw_async)) {
    error(tok(), "generator expressions are not supported in kernels");
    return nullptr;
  }
  if (consumeIf(TK::RParen)) {
    if (isa<StarredExpr>(First)) {
      error(First->getLoc(), "cannot use starred expression here");
      return nullptr;
    }
    return First;
  }
  SmallVector<Expr *, 4> Elements{First};
  while (consumeIf(TK::Comma)) {
    if (at(TK::RParen))
      break;
    Expr *E = parseStarOrTest();
    if (!E)
      return nullptr;
    Elements.push_back(E);
  }
  if (!expect(TK::RParen, "',' or ')'"))
    return nullptr;
  return makeExpr<TupleExpr>(Loc, Ctx.copyArray<Expr *>(Elements),
                             /*Parenthesized=*/true);
}

Expr *Parser::parseListDisplay() {
  SourceLocation Loc = loc();
  consume(); // '['
  SmallVector<Expr *, 4> Elements;
  while (!at(TK::RSquare)) {
    Expr *E = parseStarOrTest();
    if (!E)
      return nullptr;
    if (Elements.empty() && (at(TK::kw_for) || at(TK::kw_async))) {
      error(tok(), "list comprehensions are not supported in kernels");
      return nullptr;
    }
    Elements.push_back(E);
    if (!consumeIf(TK::Comma))
      break;
  }
  if (!expect(TK::RSquare, "',' or ']'"))
    return nullptr;
  return makeExpr<ListExpr>(Loc, Ctx.copyArray<Expr *>(Elements));
}

Expr *Parser::parseCall(Expr *Callee) {
  consume(); // '('
  SmallVector<Expr *, 4> Args;
  SmallVector<KeywordArg, 4> Keywords;
  while (!at(TK::RParen)) {
    if (at(TK::DoubleStar)) {
      error(tok(), "'**' argument unpacking is not supported in kernels");
      return nullptr;
    }
    if (at(TK::Identifier) && peek().is(TK::Equal)) {
      KeywordArg K{tok().getText(), loc(), nullptr};
      for (const KeywordArg &Prev : Keywords) {
        if (Prev.Name == K.Name) {
          error(tok(), "keyword argument repeated: " + K.Name);
          return nullptr;
        }
      }
      consume();
      consume();
      K.Value = parseTest();
      if (!K.Value)
        return nullptr;
      Keywords.push_back(K);
    } else {
      const Token &Start = tok();
      Expr *Arg = parseStarOrTest();
      if (!Arg)
        return nullptr;
      if (at(TK::kw_for) || at(TK::kw_async)) {
        error(tok(), "generator expressions are not supported in kernels");
        return nullptr;
      }
      if (at(TK::Equal)) {
        error(tok(), "expression cannot contain assignment, perhaps you meant \"==\"?");
        return nullptr;
      }
      if (!Keywords.empty() && !isa<StarredExpr>(Arg)) {
        error(Start, "positional argument follows keyword argument");
        return nullptr;
      }
      Args.push_back(Arg);
    }
    if (!consumeIf(TK::Comma))
      break;
  }
  if (!expect(TK::RParen, "',' or ')'"))
    return nullptr;
  return makeExpr<CallExpr>(Callee->getLoc(), Callee, Ctx.copyArray<Expr *>(Args),
                            Ctx.copyArray<KeywordArg>(Keywords));
}

Expr *Parser::parseSubscript(Expr *Base) {
  consume(); // '['
  SmallVector<Expr *, 4> Items;
  bool SawComma = false;
  while (!at(TK::RSquare)) {
    Expr *Item = parseSubscriptItem();
    if (!Item)
      return nullptr;
    Items.push_back(Item);
    if (!consumeIf(TK::Comma))
      break;
    SawComma = true;
  }
  if (Items.empty()) {
    errorExpected("subscript");
    return nullptr;
  }
  if (!expect(TK::RSquare, "',' or ']'"))
    return nullptr;
  Expr *Index = Items[0];
  if (Items.size() > 1 || SawComma) {
    Index = makeExpr<TupleExpr>(Items[0]->getLoc(), Ctx.copyArray<Expr *>(Items),
                                /*Parenthesized=*/false);
    if (!Index)
      return nullptr;
  }
  return makeExpr<SubscriptExpr>(Base->getLoc(), Base, Index);
}

Expr *Parser::parseSubscriptItem() {
  if (at(TK::Star))
    return parseStarOrTest();
  SourceLocation Loc = loc();
  Expr *Lower = nullptr, *Upper = nullptr, *Step = nullptr;
  if (!at(TK::Colon)) {
    Lower = parseTest();
    if (!Lower || !at(TK::Colon))
      return Lower;
  }
  consume(); // ':'
  auto EndsPart = [&] { return at(TK::Colon) || at(TK::Comma) || at(TK::RSquare); };
  if (!EndsPart() && !(Upper = parseTest()))
    return nullptr;
  if (consumeIf(TK::Colon) && !at(TK::Comma) && !at(TK::RSquare) &&
      !(Step = parseTest()))
    return nullptr;
  return makeExpr<SliceExpr>(Loc, Lower, Upper, Step);
}

Expr *Parser::parseStarOrTest() {
  if (!at(TK::Star))
    return parseTest();
  SourceLocation Loc = loc();
  consume();
  Expr *Value = parseBinary(1);
  if (!Value)
    return nullptr;
  return makeExpr<StarredExpr>(Loc, Value);
}

Expr *Parser::parseTestList(bool AllowStar) {
  Expr *First = AllowStar ? parseStarOrTest() : parseTest();
  if (!First || !at(TK::Comma))
    return First;
  SmallVector<Expr *, 4> Elements{First};
  while (consumeIf(TK::Comma)) {
    if (!startsExpression(tok()))
      break; // A trailing comma.
    Expr *E = AllowStar ? parseStarOrTest() : parseTest();
    if (!E)
      return nullptr;
    Elements.push_back(E);
  }
  return makeExpr<TupleExpr>(First->getLoc(), Ctx.copyArray<Expr *>(Elements),
                             /*Parenthesized=*/false);
}

Expr *Parser::parseTargetList() {
  auto ParseOne = [&]() -> Expr * {
    if (!at(TK::Star))
      return parseBinary(1);
    SourceLocation Loc = loc();
    consume();
    Expr *Value = parseBinary(1);
    return Value ? makeExpr<StarredExpr>(Loc, Value) : nullptr;
  };
  Expr *First = ParseOne();
  if (!First || !at(TK::Comma))
    return First;
  SmallVector<Expr *, 4> Elements{First};
  while (consumeIf(TK::Comma)) {
    if (!startsExpression(tok()))
      break;
    Expr *E = ParseOne();
    if (!E)
      return nullptr;
    Elements.push_back(E);
  }
  return makeExpr<TupleExpr>(First->getLoc(), Ctx.copyArray<Expr *>(Elements),
                             /*Parenthesized=*/false);
}

/// What Python calls |E| in "cannot assign to ...".
static StringRef describeForAssignment(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::Call: return "function call";
  case Expr::Kind::IntLiteral:
  case Expr::Kind::FloatLiteral:
  case Expr::Kind::StringLiteral: return "literal";
  case Expr::Kind::BoolLiteral:
    return cast<BoolLiteralExpr>(E)->getValue() ? "True" : "False";
  case Expr::Kind::NoneLiteral: return "None";
  case Expr::Kind::EllipsisLiteral: return "ellipsis";
  case Expr::Kind::Compare: return "comparison";
  case Expr::Kind::Conditional: return "conditional expression";
  case Expr::Kind::Slice: return "slice";
  default: return "expression";
  }
}

bool Parser::checkTarget(Expr *E) {
  // Walks tuples and lists of targets; each may hold one starred target.
  struct Walker {
    Parser &P;
    bool check(Expr *E, bool InSequence) {
      switch (E->getKind()) {
      case Expr::Kind::Name:
      case Expr::Kind::Attribute:
      case Expr::Kind::Subscript:
        return true;
      case Expr::Kind::Starred:
        if (!InSequence) {
          P.error(E->getLoc(), "starred assignment target must be in a list or tuple");
          return false;
        }
        return check(cast<StarredExpr>(E)->getValue(), false);
      case Expr::Kind::Tuple:
      case Expr::Kind::List: {
        ArrayRef<Expr *> Elements = isa<TupleExpr>(E)
                                        ? cast<TupleExpr>(E)->getElements()
                                        : cast<ListExpr>(E)->getElements();
        if (Elements.empty() && isa<TupleExpr>(E)) {
          P.error(E->getLoc(), "cannot assign to ()");
          return false;
        }
        unsigned Starred = 0;
        for (Expr *Element : Elements) {
          if (isa<StarredExpr>(Element) && ++Starred > 1) {
            P.error(Element->getLoc(), "multiple starred expressions in assignment");
            return false;
          }
          if (!check(Element, true))
            return false;
        }
        return true;
      }
      default:
        P.error(E->getLoc(), "cannot assign to " + describeForAssignment(E));
        return false;
      }
    }
  };
  return Walker{*this}.check(E, false);
}
