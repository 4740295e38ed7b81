//===- AST.cpp - syntax tree nodes and the module -------------------------===//
#include "tegula/Frontend/AST.h"

#include "llvm/Support/Casting.h"

using namespace llvm;
using namespace tegula::frontend;

StringRef tegula::frontend::getSpelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Plus: return "+";
  case UnaryOp::Minus: return "-";
  case UnaryOp::Invert: return "~";
  case UnaryOp::Not: return "not";
  }
  return "?";
}

StringRef tegula::frontend::getSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::LShift: return "<<";
  case BinaryOp::RShift: return ">>";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  }
  return "?";
}

StringRef tegula::frontend::getSpelling(BoolOp Op) {
  return Op == BoolOp::And ? "and" : "or";
}

StringRef tegula::frontend::getSpelling(CompareOp Op) {
  switch (Op) {
  case CompareOp::Lt: return "<";
  case CompareOp::Gt: return ">";
  case CompareOp::LtE: return "<=";
  case CompareOp::GtE: return ">=";
  case CompareOp::Eq: return "==";
  case CompareOp::NotEq: return "!=";
  case CompareOp::Is: return "is";
  case CompareOp::IsNot: return "is not";
  case CompareOp::In: return "in";
  case CompareOp::NotIn: return "not in";
  }
  return "?";
}

unsigned Expr::depthAbove(std::initializer_list<const Expr *> Children) {
  unsigned Max = 0;
  for (const Expr *E : Children)
    if (E)
      Max = std::max(Max, E->getDepth());
  return Max + 1;
}

unsigned Expr::depthAbove(ArrayRef<Expr *> Children) {
  unsigned Max = 0;
  for (const Expr *E : Children)
    if (E)
      Max = std::max(Max, E->getDepth());
  return Max + 1;
}

static unsigned comparisonDepth(const Expr *LHS, ArrayRef<Comparison> Comparisons) {
  unsigned Max = LHS ? LHS->getDepth() : 0;
  for (const Comparison &C : Comparisons)
    if (C.RHS)
      Max = std::max(Max, C.RHS->getDepth());
  return Max + 1;
}

CompareExpr::CompareExpr(SourceLocation Loc, Expr *LHS,
                         ArrayRef<Comparison> Comparisons)
    : Expr(Kind::Compare, Loc, comparisonDepth(LHS, Comparisons)), LHS(LHS),
      Comparisons(Comparisons) {}

static unsigned callDepth(const Expr *Callee, ArrayRef<Expr *> Args,
                          ArrayRef<KeywordArg> Keywords) {
  unsigned Max = Callee ? Callee->getDepth() : 0;
  for (const Expr *A : Args)
    if (A)
      Max = std::max(Max, A->getDepth());
  for (const KeywordArg &K : Keywords)
    if (K.Value)
      Max = std::max(Max, K.Value->getDepth());
  return Max + 1;
}

CallExpr::CallExpr(SourceLocation Loc, Expr *Callee, ArrayRef<Expr *> Args,
                   ArrayRef<KeywordArg> Keywords)
    : Expr(Kind::Call, Loc, callDepth(Callee, Args, Keywords)), Callee(Callee),
      Args(Args), Keywords(Keywords) {}

const Decorator *FunctionDef::getJitDecorator() const {
  for (const Decorator &D : Decorators)
    if (D.IsJit)
      return &D;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

const FunctionDef *Module::lookupFunction(StringRef Name) const {
  for (auto It = Functions.rbegin(); It != Functions.rend(); ++It)
    if ((*It)->getName() == Name)
      return *It;
  return nullptr;
}

const GlobalConstant *Module::lookupGlobal(StringRef Name) const {
  for (auto It = Globals.rbegin(); It != Globals.rend(); ++It)
    if (It->Name == Name)
      return &*It;
  return nullptr;
}

StringRef Module::resolveImport(StringRef Name) const {
  auto It = ImportBindings.find(Name);
  return It == ImportBindings.end() ? StringRef() : StringRef(It->second);
}

SourceLocation Module::getImportLocation(StringRef Name) const {
  auto It = ImportLocations.find(Name);
  return It == ImportLocations.end() ? SourceLocation() : It->second;
}

bool Module::isBound(StringRef Name) const {
  return ImportBindings.count(Name) || lookupGlobal(Name) ||
         lookupFunction(Name);
}

void Module::addImport(Stmt *S) {
  Imports.push_back(S);
  auto bind = [&](StringRef Name, std::string Qualified) {
    if (!(FallbackBranch && isBound(Name))) {
      ImportBindings[Name] = std::move(Qualified);
      ImportLocations[Name] = S->getLoc();
    }
  };
  if (auto *I = dyn_cast<ImportStmt>(S)) {
    for (const ImportAlias &A : I->getNames()) {
      // `import a.b` binds `a` to the package a; `import a.b as c` binds c
      // to a.b.
      if (A.AsName.empty()) {
        StringRef Top = A.Name.split('.').first;
        bind(Top, Top.str());
      } else {
        bind(A.AsName, A.Name.str());
      }
    }
    return;
  }
  auto *F = cast<ImportFromStmt>(S);
  std::string Base = std::string(F->getLevel(), '.') + F->getModule().str();
  if (F->isStar()) {
    // The names it binds are known only once the module is read.
    StarImports.push_back(Base);
    return;
  }
  for (const ImportAlias &A : F->getNames()) {
    std::string Qualified = Base;
    if (!F->getModule().empty())
      Qualified += '.';
    Qualified += A.Name.str();
    bind(A.AsName.empty() ? A.Name : A.AsName, Qualified);
  }
}
