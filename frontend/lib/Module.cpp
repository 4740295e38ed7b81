//===- Module.cpp - finding kernels in a Python module --------------------===//
//
// A kernel file is an ordinary Python module. Its top-level statements are
// sorted by their first tokens:
//
//  - decorators: when one of them is a jit decorator (`@triton.jit`,
//    `@tegula.jit`, `@jit`, a call of one, or an import alias of one), the
//    function is parsed as a kernel; otherwise the definition is skipped;
//  - `import` / `from ... import`: parsed and recorded, with the names they
//    bind (so `@tl_jit` after `from triton import jit as tl_jit` counts);
//  - `NAME = value` / `NAME: annotation = value`: parsed speculatively, with
//    errors discarded, and kept when it is a constant (see isConstant);
//  - `if` and `try` statements: each branch's statements are sorted the
//    same way (imports guarded by a version, a vendor or an ImportError);
//    the first branch binds its names, later branches (`elif`, `else`,
//    `except`) only the names no earlier branch bound, since which branch
//    Python runs is not known here and the first is Triton's usual path;
//  - anything else: skipped by indentation, unexamined.
//
// Skipping works on tokens, so it cannot fail on valid Python, whatever
// syntax the skipped code uses.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Parser.h"

using namespace llvm;
using namespace tegula::frontend;
using TK = TokenKind;

void Parser::parseModuleInput(Module &M) {
  while (!at(TK::EndOfFile) && !at(TK::Error)) {
    HadError = false;
    Depth = 0;
    parseModuleStatement(M);
  }
}

void Parser::parseModuleStatement(Module &M) {
  switch (tok().Kind) {
  case TK::Newline:
  case TK::Dedent:
    consume();
    return;
  case TK::Indent:
    error(tok(), "unexpected indent");
    skipIndentedBlock();
    return;
  case TK::At:
    parseDecoratedDefinition(M);
    return;
  case TK::kw_def:
    if (peek().is(TK::Identifier))
      M.addHostFunction(peek().getText());
    skipStatement();
    return;
  case TK::kw_if:
  case TK::kw_try:
    // `if __name__ == "__main__":` is the script's host code, which does
    // not run when the module is imported.
    if (at(TK::kw_if) && peek().is(TK::Identifier) &&
        peek().getText() == "__name__") {
      skipStatement();
      while (at(TK::kw_elif) || at(TK::kw_else))
        skipStatement();
      return;
    }
    parseModuleBranches(M);
    return;
  case TK::kw_for:
  case TK::kw_while:
  case TK::kw_with:
  case TK::kw_class:
  case TK::kw_async:
    skipStatement();
    return;
  default:
    parseModuleSimpleLine(M);
    return;
  }
}

void Parser::parseModuleBranches(Module &M) {
  bool WasFallback = M.isFallbackBranch();
  bool First = true;
  for (;;) {
    // The clause's header, up to the colon that ends its line.
    unsigned Nesting = 0;
    while (!at(TK::EndOfFile) && !at(TK::Error) && !at(TK::Newline) &&
           !(Nesting == 0 && at(TK::Colon) && peek().is(TK::Newline))) {
      if (at(TK::LParen) || at(TK::LSquare) || at(TK::LBrace))
        ++Nesting;
      else if ((at(TK::RParen) || at(TK::RSquare) || at(TK::RBrace)) && Nesting)
        --Nesting;
      consume();
    }
    if (!at(TK::Colon) || !peek(2).is(TK::Indent)) {
      // A body on the header's line: not read.
      skipStatement();
      break;
    }
    consume();
    consume();
    consume();
    M.setFallbackBranch(WasFallback || !First);
    while (!at(TK::Dedent) && !at(TK::EndOfFile) && !at(TK::Error)) {
      HadError = false;
      parseModuleStatement(M);
    }
    consumeIf(TK::Dedent);
    First = false;
    if (!at(TK::kw_elif) && !at(TK::kw_else) && !at(TK::kw_except) &&
        !at(TK::kw_finally))
      break;
  }
  M.setFallbackBranch(WasFallback);
}

void Parser::parseModuleSimpleLine(Module &M) {
  bool SkippedAny = false;
  for (;;) {
    if (at(TK::kw_import) || at(TK::kw_from)) {
      Stmt *S = at(TK::kw_import) ? parseImport() : parseImportFrom();
      if (S && !at(TK::Semi) && !at(TK::Newline) && !at(TK::EndOfFile)) {
        errorExpected("end of statement");
        S = nullptr;
      }
      if (S)
        M.addImport(S);
      else
        skipSmallStatement();
    } else if (at(TK::Identifier) && (peek().is(TK::Equal) || peek().is(TK::Colon))) {
      if (!parseModuleAssignment(M)) {
        skipSmallStatement();
        SkippedAny = true;
      }
    } else {
      skipSmallStatement();
      SkippedAny = true;
    }
    if (consumeIf(TK::Semi) && !at(TK::Newline) && !at(TK::EndOfFile) &&
        !at(TK::Error))
      continue;
    consumeIf(TK::Newline);
    break;
  }
  if (!at(TK::Indent))
    return;
  // A skipped line followed by a block is a compound statement introduced by
  // a soft keyword (`match x:`), which we do not parse; after a line we
  // understood, the indentation is wrong.
  if (!SkippedAny)
    error(tok(), "unexpected indent");
  skipIndentedBlock();
}

/// |E| is `constexpr`, `tl.constexpr`, `triton.language.constexpr`, or a
/// string annotation naming one of them.
static bool isConstexprName(const Expr *E) {
  if (auto *Str = dyn_cast<StringLiteralExpr>(E)) {
    StringRef V = Str->getValue().trim();
    return V == "constexpr" || V.ends_with(".constexpr");
  }
  if (auto *A = dyn_cast<AttributeExpr>(E))
    return A->getName() == "constexpr";
  if (auto *N = dyn_cast<NameExpr>(E))
    return N->getName() == "constexpr";
  return false;
}

/// |E| is a value kernels can read as a compile-time constant: literals,
/// operators over constants, tuples of constants, and earlier constants.
static bool isConstant(const Module &M, const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::IntLiteral:
  case Expr::Kind::FloatLiteral:
  case Expr::Kind::StringLiteral:
  case Expr::Kind::BoolLiteral:
  case Expr::Kind::NoneLiteral:
    return true;
  case Expr::Kind::Name:
    return M.lookupGlobal(cast<NameExpr>(E)->getName()) != nullptr;
  case Expr::Kind::Unary:
    return isConstant(M, cast<UnaryExpr>(E)->getOperand());
  case Expr::Kind::Binary: {
    auto *B = cast<BinaryExpr>(E);
    return isConstant(M, B->getLHS()) && isConstant(M, B->getRHS());
  }
  case Expr::Kind::BoolOp:
    return llvm::all_of(cast<BoolOpExpr>(E)->getOperands(),
                        [&](const Expr *O) { return isConstant(M, O); });
  case Expr::Kind::Compare: {
    auto *C = cast<CompareExpr>(E);
    return isConstant(M, C->getLHS()) &&
           llvm::all_of(C->getComparisons(),
                        [&](const Comparison &L) { return isConstant(M, L.RHS); });
  }
  case Expr::Kind::Conditional: {
    auto *C = cast<ConditionalExpr>(E);
    return isConstant(M, C->getCond()) && isConstant(M, C->getThen()) &&
           isConstant(M, C->getElse());
  }
  case Expr::Kind::Tuple:
    return llvm::all_of(cast<TupleExpr>(E)->getElements(),
                        [&](const Expr *O) { return isConstant(M, O); });
  default:
    return false;
  }
}

bool Parser::parseModuleAssignment(Module &M) {
  // Speculate: host code assigns all sorts of things (lambdas, dicts,
  // comprehensions) that are not errors, only not ours.
  size_t Start = Pos;
  DiagnosticEngine Scratch(Diags->getSourceManager());
  DiagnosticEngine *Saved = Diags;
  Diags = &Scratch;
  HadError = false;
  Stmt *S = parseExpressionStatement();
  Diags = Saved;
  bool Parsed = S && !HadError &&
                (at(TK::Semi) || at(TK::Newline) || at(TK::EndOfFile));
  HadError = false;

  Expr *Target = nullptr, *Annotation = nullptr, *Value = nullptr;
  if (Parsed) {
    if (auto *A = dyn_cast<AssignStmt>(S); A && A->getTargets().size() == 1) {
      Target = A->getTargets()[0];
      Value = A->getValue();
    } else if (auto *AA = dyn_cast<AnnAssignStmt>(S)) {
      Target = AA->getTarget();
      Annotation = AA->getAnnotation();
      Value = AA->getValue();
    }
  }
  auto *Name = dyn_cast_or_null<NameExpr>(Target);
  bool IsConstexpr = false;
  if (Name && Value) {
    auto *Call = dyn_cast<CallExpr>(Value);
    IsConstexpr = (Annotation && isConstexprName(Annotation)) ||
                  (Call && isConstexprName(Call->getCallee()) &&
                   Call->getArgs().size() == 1 && Call->getKeywords().empty());
  }
  if (!Name || !Value || (!IsConstexpr && !isConstant(M, Value))) {
    Pos = Start;
    return false;
  }
  M.addGlobal(GlobalConstant{Name->getName(), Name->getLoc(), Annotation, Value,
                             IsConstexpr, S});
  return true;
}

bool Parser::isJitDecoratorName(const Module &M, StringRef Dotted) const {
  auto [Head, Rest] = Dotted.split('.');
  StringRef Bound = M.resolveImport(Head);
  if (Bound.empty())
    return Dotted == "jit" || Dotted == "triton.jit" || Dotted == "tegula.jit";
  std::string Full = Bound.str();
  if (!Rest.empty())
    Full += ("." + Rest).str();
  return Full == "triton.jit" || Full == "tegula.jit" ||
         Full == "triton.runtime.jit.jit";
}

void Parser::parseDecoratedDefinition(Module &M) {
  SmallVector<Decorator, 4> Decorators;
  int FirstJit = -1; // Index of the first jit decorator.
  bool Ok = true;
  while (at(TK::At)) {
    Decorator D{};
    D.Loc = loc();
    consume();
    size_t ExprStart = Pos, End = Pos;
    while (tokenAt(End).isNot(TK::Newline) && tokenAt(End).isNot(TK::EndOfFile) &&
           tokenAt(End).isNot(TK::Error))
      ++End;
    if (End > ExprStart) {
      const Token &First = tokenAt(ExprStart), &Last = tokenAt(End - 1);
      D.Text = StringRef(First.Ptr, Last.Ptr + Last.Length - First.Ptr);
    }
    // Recognize `a.b.c` and `a.b.c(...)` from the tokens alone: other
    // decorators are not ours to parse.
    std::string Dotted;
    size_t I = ExprStart;
    if (tokenAt(I).is(TK::Identifier)) {
      Dotted = tokenAt(I++).getText().str();
      while (tokenAt(I).is(TK::Dot) && tokenAt(I + 1).is(TK::Identifier)) {
        Dotted += "." + tokenAt(I + 1).getText().str();
        I += 2;
      }
    }
    D.IsJit = !Dotted.empty() && isJitDecoratorName(M, Dotted);
    // A jit decorator is parsed (and reported) whatever follows its name.
    if (D.IsJit || (!Dotted.empty() && (tokenAt(I).is(TK::Newline) ||
                                        tokenAt(I).is(TK::LParen))))
      D.Name = Ctx.copyString(Dotted);
    if (D.IsJit && Ok) {
      D.Expression = parseTest();
      if (D.Expression && !at(TK::Newline))
        errorExpected("newline after decorator");
      Ok = D.Expression && at(TK::Newline);
    }
    Pos = End;
    consumeIf(TK::Newline);
    if (D.IsJit && FirstJit < 0)
      FirstJit = static_cast<int>(Decorators.size());
    Decorators.push_back(D);
  }
  if (FirstJit < 0 || !Ok) {
    if (at(TK::kw_def) && peek().is(TK::Identifier)) {
      if (FirstJit < 0)
        M.addHostFunction(peek().getText());
      else
        M.addBrokenFunction(peek().getText(), loc(peek()));
    }
    skipStatement();
    return;
  }
  if (at(TK::kw_async)) {
    error(tok(), "async functions are not supported in kernels");
    skipStatement();
    return;
  }
  if (!at(TK::kw_def)) {
    std::string Name = Decorators[FirstJit].Name.str();
    error(tok(), "'@" + Name + "' must decorate a function definition");
    skipStatement();
    return;
  }
  size_t DefStart = Pos;
  if (FunctionDef *F = parseFunctionDef(Decorators)) {
    M.addFunction(F);
    return;
  }
  if (tokenAt(DefStart + 1).is(TK::Identifier))
    M.addBrokenFunction(tokenAt(DefStart + 1).getText(),
                        loc(tokenAt(DefStart + 1)));
  // Resume after the function, whatever state the error left us in.
  Pos = DefStart;
  skipStatement();
}

void Parser::skipStatement() {
  while (!at(TK::Newline) && !at(TK::EndOfFile) && !at(TK::Error))
    consume();
  consumeIf(TK::Newline);
  if (at(TK::Indent))
    skipIndentedBlock();
}

void Parser::skipSmallStatement() {
  while (!at(TK::Semi) && !at(TK::Newline) && !at(TK::EndOfFile) && !at(TK::Error))
    consume();
}

void Parser::skipIndentedBlock() {
  unsigned Level = 0;
  do {
    if (at(TK::Indent))
      ++Level;
    else if (at(TK::Dedent))
      --Level;
    else if (at(TK::EndOfFile) || at(TK::Error))
      return;
    consume();
  } while (Level > 0);
}
