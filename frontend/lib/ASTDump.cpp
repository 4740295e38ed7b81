//===- ASTDump.cpp - S-expression dumps of the syntax tree ----------------===//
#include "tegula/Frontend/ASTDump.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace llvm;
using namespace tegula::frontend;

/// The shortest decimal form that reads back as |V|, always with a '.' or
/// exponent so that it reads as a float.
static std::string formatDouble(double V) {
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  if (std::isnan(V))
    return "nan";
  char Buf[64];
  for (int Precision = 1; Precision <= 17; ++Precision) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Precision, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

namespace {
class Dumper {
public:
  explicit Dumper(raw_ostream &OS) : OS(OS) {}

  void expr(const Expr *E);
  void stmt(const Stmt *S, unsigned Indent);
  void function(const FunctionDef *F, unsigned Indent);

private:
  void quoted(StringRef Str) {
    OS << '"';
    OS.write_escaped(Str);
    OS << '"';
  }
  void optional(const Expr *E) {
    if (E)
      expr(E);
    else
      OS << '_';
  }
  void list(StringRef Head, ArrayRef<Expr *> Elements) {
    OS << '(' << Head;
    for (const Expr *E : Elements) {
      OS << ' ';
      expr(E);
    }
    OS << ')';
  }
  /// "\n<indent>(<label>" then each statement one level deeper, then ")".
  void block(StringRef Label, ArrayRef<Stmt *> Body, unsigned Indent) {
    OS << '\n';
    OS.indent(Indent) << '(' << Label;
    for (const Stmt *S : Body) {
      OS << '\n';
      stmt(S, Indent + 2);
    }
    OS << ')';
  }

  raw_ostream &OS;
};
} // namespace

void Dumper::expr(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::Name:
    OS << cast<NameExpr>(E)->getName();
    return;
  case Expr::Kind::IntLiteral: {
    auto *I = cast<IntLiteralExpr>(E);
    if (I->isTooLarge())
      OS << "(int-too-large " << I->getSpelling() << ')';
    else
      OS << "(int " << I->getValue() << ')';
    return;
  }
  case Expr::Kind::FloatLiteral:
    OS << "(float " << formatDouble(cast<FloatLiteralExpr>(E)->getValue()) << ')';
    return;
  case Expr::Kind::StringLiteral: {
    auto *S = cast<StringLiteralExpr>(E);
    OS << '(' << (S->isBytes() ? "bytes" : S->isFormat() ? "fstr" : "str") << ' ';
    quoted(S->getValue());
    OS << ')';
    return;
  }
  case Expr::Kind::BoolLiteral:
    OS << (cast<BoolLiteralExpr>(E)->getValue() ? "True" : "False");
    return;
  case Expr::Kind::NoneLiteral:
    OS << "None";
    return;
  case Expr::Kind::EllipsisLiteral:
    OS << "...";
    return;
  case Expr::Kind::Unary: {
    auto *U = cast<UnaryExpr>(E);
    switch (U->getOp()) {
    case UnaryOp::Plus: OS << "(u+ "; break;
    case UnaryOp::Minus: OS << "(u- "; break;
    case UnaryOp::Invert: OS << "(~ "; break;
    case UnaryOp::Not: OS << "(not "; break;
    }
    expr(U->getOperand());
    OS << ')';
    return;
  }
  case Expr::Kind::Binary: {
    auto *B = cast<BinaryExpr>(E);
    OS << '(' << getSpelling(B->getOp()) << ' ';
    expr(B->getLHS());
    OS << ' ';
    expr(B->getRHS());
    OS << ')';
    return;
  }
  case Expr::Kind::BoolOp: {
    auto *B = cast<BoolOpExpr>(E);
    list(getSpelling(B->getOp()), B->getOperands());
    return;
  }
  case Expr::Kind::Compare: {
    auto *C = cast<CompareExpr>(E);
    OS << "(compare ";
    expr(C->getLHS());
    for (const Comparison &L : C->getComparisons()) {
      OS << ' ' << getSpelling(L.Op) << ' ';
      expr(L.RHS);
    }
    OS << ')';
    return;
  }
  case Expr::Kind::Conditional: {
    auto *C = cast<ConditionalExpr>(E);
    OS << "(ifexp ";
    expr(C->getCond());
    OS << ' ';
    expr(C->getThen());
    OS << ' ';
    expr(C->getElse());
    OS << ')';
    return;
  }
  case Expr::Kind::Call: {
    auto *C = cast<CallExpr>(E);
    OS << "(call ";
    expr(C->getCallee());
    for (const Expr *A : C->getArgs()) {
      OS << ' ';
      expr(A);
    }
    for (const KeywordArg &K : C->getKeywords()) {
      OS << " (kw " << K.Name << ' ';
      expr(K.Value);
      OS << ')';
    }
    OS << ')';
    return;
  }
  case Expr::Kind::Attribute: {
    auto *A = cast<AttributeExpr>(E);
    OS << "(. ";
    expr(A->getBase());
    OS << ' ' << A->getName() << ')';
    return;
  }
  case Expr::Kind::Subscript: {
    auto *S = cast<SubscriptExpr>(E);
    OS << "(subscript ";
    expr(S->getBase());
    OS << ' ';
    expr(S->getIndex());
    OS << ')';
    return;
  }
  case Expr::Kind::Slice: {
    auto *S = cast<SliceExpr>(E);
    OS << "(slice ";
    optional(S->getLower());
    OS << ' ';
    optional(S->getUpper());
    OS << ' ';
    optional(S->getStep());
    OS << ')';
    return;
  }
  case Expr::Kind::Tuple:
    list("tuple", cast<TupleExpr>(E)->getElements());
    return;
  case Expr::Kind::List:
    list("list", cast<ListExpr>(E)->getElements());
    return;
  case Expr::Kind::Starred:
    OS << "(starred ";
    expr(cast<StarredExpr>(E)->getValue());
    OS << ')';
    return;
  }
}

void Dumper::function(const FunctionDef *F, unsigned Indent) {
  OS.indent(Indent) << "(def " << F->getName();
  unsigned Inner = Indent + 2;
  for (const Decorator &D : F->getDecorators()) {
    OS << '\n';
    OS.indent(Inner);
    if (D.Expression) {
      OS << "(decorator ";
      expr(D.Expression);
    } else {
      OS << "(decorator-text ";
      quoted(D.Text);
    }
    OS << ')';
  }
  for (const Param &P : F->getParams()) {
    OS << '\n';
    OS.indent(Inner) << "(param " << P.Name;
    if (P.Annotation) {
      OS << " (ann ";
      expr(P.Annotation);
      OS << ')';
    }
    if (P.Default) {
      OS << " (default ";
      expr(P.Default);
      OS << ')';
    }
    OS << ')';
  }
  if (F->getReturns()) {
    OS << '\n';
    OS.indent(Inner) << "(returns ";
    expr(F->getReturns());
    OS << ')';
  }
  if (F->hasDocstring()) {
    OS << '\n';
    OS.indent(Inner) << "(doc ";
    quoted(F->getDocstring());
    OS << ')';
  }
  block("body", F->getBody(), Inner);
  OS << ')';
}

void Dumper::stmt(const Stmt *S, unsigned Indent) {
  unsigned Inner = Indent + 2;
  switch (S->getKind()) {
  case Stmt::Kind::Expr:
    OS.indent(Indent) << "(expr ";
    expr(cast<ExprStmt>(S)->getValue());
    OS << ')';
    return;
  case Stmt::Kind::Assign: {
    auto *A = cast<AssignStmt>(S);
    OS.indent(Indent) << "(assign";
    for (const Expr *T : A->getTargets()) {
      OS << ' ';
      expr(T);
    }
    OS << ' ';
    expr(A->getValue());
    OS << ')';
    return;
  }
  case Stmt::Kind::AnnAssign: {
    auto *A = cast<AnnAssignStmt>(S);
    OS.indent(Indent) << "(ann-assign ";
    expr(A->getTarget());
    OS << ' ';
    expr(A->getAnnotation());
    if (A->getValue()) {
      OS << ' ';
      expr(A->getValue());
    }
    OS << ')';
    return;
  }
  case Stmt::Kind::AugAssign: {
    auto *A = cast<AugAssignStmt>(S);
    OS.indent(Indent) << "(aug-assign " << getSpelling(A->getOp()) << "= ";
    expr(A->getTarget());
    OS << ' ';
    expr(A->getValue());
    OS << ')';
    return;
  }
  case Stmt::Kind::If: {
    auto *I = cast<IfStmt>(S);
    OS.indent(Indent) << "(if ";
    expr(I->getBranches()[0].Cond);
    block("then", I->getBranches()[0].Body, Inner);
    for (const IfBranch &B : I->getBranches().drop_front()) {
      OS << '\n';
      OS.indent(Inner) << "(elif ";
      expr(B.Cond);
      for (const Stmt *Child : B.Body) {
        OS << '\n';
        stmt(Child, Inner + 2);
      }
      OS << ')';
    }
    if (I->hasElse())
      block("else", I->getElseBody(), Inner);
    OS << ')';
    return;
  }
  case Stmt::Kind::For: {
    auto *F = cast<ForStmt>(S);
    OS.indent(Indent) << "(for ";
    expr(F->getTarget());
    OS << ' ';
    expr(F->getIter());
    block("body", F->getBody(), Inner);
    if (F->hasElse())
      block("else", F->getElseBody(), Inner);
    OS << ')';
    return;
  }
  case Stmt::Kind::While: {
    auto *W = cast<WhileStmt>(S);
    OS.indent(Indent) << "(while ";
    expr(W->getCond());
    block("body", W->getBody(), Inner);
    if (W->hasElse())
      block("else", W->getElseBody(), Inner);
    OS << ')';
    return;
  }
  case Stmt::Kind::Break:
    OS.indent(Indent) << "(break)";
    return;
  case Stmt::Kind::Continue:
    OS.indent(Indent) << "(continue)";
    return;
  case Stmt::Kind::Pass:
    OS.indent(Indent) << "(pass)";
    return;
  case Stmt::Kind::Return: {
    auto *R = cast<ReturnStmt>(S);
    OS.indent(Indent) << "(return";
    if (R->getValue()) {
      OS << ' ';
      expr(R->getValue());
    }
    OS << ')';
    return;
  }
  case Stmt::Kind::Assert: {
    auto *A = cast<AssertStmt>(S);
    OS.indent(Indent) << "(assert ";
    expr(A->getCond());
    if (A->getMessage()) {
      OS << ' ';
      expr(A->getMessage());
    }
    OS << ')';
    return;
  }
  case Stmt::Kind::With: {
    auto *W = cast<WithStmt>(S);
    OS.indent(Indent) << "(with";
    for (const WithItem &Item : W->getItems()) {
      OS << " (item ";
      expr(Item.Context);
      if (Item.Target) {
        OS << ' ';
        expr(Item.Target);
      }
      OS << ')';
    }
    block("body", W->getBody(), Inner);
    OS << ')';
    return;
  }
  case Stmt::Kind::FunctionDef:
    function(cast<FunctionDef>(S), Indent);
    return;
  case Stmt::Kind::Import:
  case Stmt::Kind::ImportFrom: {
    ArrayRef<ImportAlias> Names;
    OS.indent(Indent);
    if (auto *I = dyn_cast<ImportStmt>(S)) {
      OS << "(import";
      Names = I->getNames();
    } else {
      auto *F = cast<ImportFromStmt>(S);
      OS << "(from " << std::string(F->getLevel(), '.') << F->getModule();
      Names = F->getNames();
    }
    for (const ImportAlias &A : Names) {
      OS << " (alias " << A.Name;
      if (!A.AsName.empty())
        OS << ' ' << A.AsName;
      OS << ')';
    }
    OS << ')';
    return;
  }
  }
}

void tegula::frontend::dumpExpr(const Expr *E, raw_ostream &OS) { Dumper(OS).expr(E); }

void tegula::frontend::dumpStmt(const Stmt *S, raw_ostream &OS, unsigned Indent) {
  Dumper(OS).stmt(S, Indent);
  OS << '\n';
}

void tegula::frontend::dumpModule(const Module &M, raw_ostream &OS) {
  Dumper D(OS);
  for (const Stmt *S : M.getImports())
    dumpStmt(S, OS);
  for (const GlobalConstant &G : M.getGlobals()) {
    OS << "(global " << G.Name;
    if (G.IsConstexpr)
      OS << " constexpr";
    OS << ' ';
    D.expr(G.Value);
    OS << ")\n";
  }
  for (const FunctionDef *F : M.getFunctions())
    dumpStmt(F, OS);
}

std::string tegula::frontend::dumpToString(const Expr *E) {
  std::string Out;
  raw_string_ostream OS(Out);
  dumpExpr(E, OS);
  return Out;
}

std::string tegula::frontend::dumpToString(const Stmt *S) {
  std::string Out;
  raw_string_ostream OS(Out);
  dumpStmt(S, OS);
  return Out;
}

std::string tegula::frontend::dumpToString(const Module &M) {
  std::string Out;
  raw_string_ostream OS(Out);
  dumpModule(M, OS);
  return Out;
}
