//===- AST.h - syntax tree of Triton kernel files ----------------*- C++ -*-===//
//
// The syntax tree of the Python subset that kernels use, close to Python's
// own `ast` module: comparisons keep their chain (`a < b < c` is one
// CompareExpr), `and`/`or` chains are flat, subscripts hold a TupleExpr of
// their items. Two deliberate differences: an if/elif chain is one IfStmt
// with a list of branches, and a function's docstring is a field, not the
// first statement of its body.
//
// Nodes are allocated in an ASTContext arena and never destroyed one by one;
// they are trivially destructible and refer to each other with raw pointers.
// Names and other spellings point into the source text, so the
// SourceManager must outlive the tree. Node kinds use LLVM-style RTTI
// (llvm::isa / cast / dyn_cast).
//
// Every node records the location of its first token. Operators also record
// the location of the operator (what a diagnostic about the operation should
// point at).
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_AST_H
#define TEGULA_FRONTEND_AST_H

#include "tegula/Frontend/Source.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tegula::frontend {

/// Owns the nodes of one tree (an arena).
class ASTContext {
public:
  ASTContext() = default;
  ASTContext(const ASTContext &) = delete;
  ASTContext &operator=(const ASTContext &) = delete;

  /// Allocates a node; it lives until the context is destroyed.
  template <typename T, typename... ArgTs> T *create(ArgTs &&...Args) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "arena nodes are never destroyed");
    return new (Alloc.Allocate(sizeof(T), alignof(T)))
        T(std::forward<ArgTs>(Args)...);
  }
  /// Copies |Elements| into the arena.
  template <typename T> llvm::ArrayRef<T> copyArray(llvm::ArrayRef<T> Elements) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (Elements.empty())
      return {};
    T *Mem = static_cast<T *>(
        Alloc.Allocate(sizeof(T) * Elements.size(), alignof(T)));
    std::uninitialized_copy(Elements.begin(), Elements.end(), Mem);
    return llvm::ArrayRef<T>(Mem, Elements.size());
  }
  /// Copies |Str| into the arena.
  llvm::StringRef copyString(llvm::StringRef Str) {
    if (Str.empty())
      return {};
    char *Mem = static_cast<char *>(Alloc.Allocate(Str.size(), 1));
    std::memcpy(Mem, Str.data(), Str.size());
    return llvm::StringRef(Mem, Str.size());
  }
  size_t getBytesAllocated() const { return Alloc.getBytesAllocated(); }

private:
  llvm::BumpPtrAllocator Alloc;
};

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

enum class UnaryOp : uint8_t { Plus, Minus, Invert, Not };
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  LShift, RShift, BitAnd, BitOr, BitXor
};
enum class BoolOp : uint8_t { And, Or };
enum class CompareOp : uint8_t { Lt, Gt, LtE, GtE, Eq, NotEq, Is, IsNot, In, NotIn };

/// Python spellings: "-", "not", "//", "is not", "and".
llvm::StringRef getSpelling(UnaryOp Op);
llvm::StringRef getSpelling(BinaryOp Op);
llvm::StringRef getSpelling(BoolOp Op);
llvm::StringRef getSpelling(CompareOp Op);

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind : uint8_t {
    Name, IntLiteral, FloatLiteral, StringLiteral, BoolLiteral, NoneLiteral,
    EllipsisLiteral, Unary, Binary, BoolOp, Compare, Conditional, Call,
    Attribute, Subscript, Slice, Tuple, List, Starred
  };

  Kind getKind() const { return TheKind; }
  /// The location of the expression's first token.
  SourceLocation getLoc() const { return Loc; }
  /// The height of the tree under this node (1 for a leaf). The parser
  /// bounds it, so recursive walks over the tree are safe.
  unsigned getDepth() const { return Depth; }

protected:
  Expr(Kind K, SourceLocation Loc, unsigned Depth)
      : TheKind(K), Depth(Depth), Loc(Loc) {}
  /// One more than the deepest of |Children| (null children are ignored).
  static unsigned depthAbove(std::initializer_list<const Expr *> Children);
  static unsigned depthAbove(llvm::ArrayRef<Expr *> Children);

private:
  Kind TheKind;
  unsigned Depth;
  SourceLocation Loc;
};

/// An identifier: `x`, `tl`.
class NameExpr : public Expr {
public:
  NameExpr(SourceLocation Loc, llvm::StringRef Name)
      : Expr(Kind::Name, Loc, 1), Name(Name) {}
  llvm::StringRef getName() const { return Name; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Name; }

private:
  llvm::StringRef Name;
};

/// An integer literal in any radix. Values beyond 64 bits are kept as text
/// and flagged; whether they are an error is for semantic analysis.
class IntLiteralExpr : public Expr {
public:
  IntLiteralExpr(SourceLocation Loc, llvm::StringRef Spelling, uint64_t Value,
                 bool TooLarge)
      : Expr(Kind::IntLiteral, Loc, 1), Spelling(Spelling), Value(Value),
        TooLarge(TooLarge) {}
  /// The literal as written (`0x_ff`).
  llvm::StringRef getSpelling() const { return Spelling; }
  /// The value; meaningless when isTooLarge().
  uint64_t getValue() const { return Value; }
  /// True when the value does not fit in 64 unsigned bits.
  bool isTooLarge() const { return TooLarge; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::IntLiteral; }

private:
  llvm::StringRef Spelling;
  uint64_t Value;
  bool TooLarge;
};

class FloatLiteralExpr : public Expr {
public:
  FloatLiteralExpr(SourceLocation Loc, llvm::StringRef Spelling, double Value)
      : Expr(Kind::FloatLiteral, Loc, 1), Spelling(Spelling), Value(Value) {}
  llvm::StringRef getSpelling() const { return Spelling; }
  double getValue() const { return Value; }
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::FloatLiteral;
  }

private:
  llvm::StringRef Spelling;
  double Value;
};

/// A string literal, after implicit concatenation of adjacent literals
/// (`"a" 'b'`) and escape decoding. F-strings keep their text unformatted.
class StringLiteralExpr : public Expr {
public:
  StringLiteralExpr(SourceLocation Loc, llvm::StringRef Value, bool IsBytes,
                    bool IsFormat)
      : Expr(Kind::StringLiteral, Loc, 1), Value(Value), IsBytes(IsBytes),
        IsFormat(IsFormat) {}
  /// The decoded value (UTF-8 for str literals, raw bytes for bytes).
  llvm::StringRef getValue() const { return Value; }
  bool isBytes() const { return IsBytes; }
  /// True when any of the concatenated pieces was an f-string.
  bool isFormat() const { return IsFormat; }
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::StringLiteral;
  }

private:
  llvm::StringRef Value;
  bool IsBytes;
  bool IsFormat;
};

class BoolLiteralExpr : public Expr {
public:
  BoolLiteralExpr(SourceLocation Loc, bool Value)
      : Expr(Kind::BoolLiteral, Loc, 1), Value(Value) {}
  bool getValue() const { return Value; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::BoolLiteral; }

private:
  bool Value;
};

class NoneLiteralExpr : public Expr {
public:
  explicit NoneLiteralExpr(SourceLocation Loc)
      : Expr(Kind::NoneLiteral, Loc, 1) {}
  static bool classof(const Expr *E) { return E->getKind() == Kind::NoneLiteral; }
};

/// `...`
class EllipsisExpr : public Expr {
public:
  explicit EllipsisExpr(SourceLocation Loc)
      : Expr(Kind::EllipsisLiteral, Loc, 1) {}
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::EllipsisLiteral;
  }
};

/// `-x`, `+x`, `~x`, `not x`. The location is the operator's.
class UnaryExpr : public Expr {
public:
  UnaryExpr(SourceLocation Loc, UnaryOp Op, Expr *Operand)
      : Expr(Kind::Unary, Loc, depthAbove({Operand})), Op(Op),
        Operand(Operand) {}
  UnaryOp getOp() const { return Op; }
  Expr *getOperand() const { return Operand; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Unary; }

private:
  UnaryOp Op;
  Expr *Operand;
};

/// An arithmetic or bitwise binary operation.
class BinaryExpr : public Expr {
public:
  BinaryExpr(SourceLocation Loc, BinaryOp Op, SourceLocation OpLoc, Expr *LHS,
             Expr *RHS)
      : Expr(Kind::Binary, Loc, depthAbove({LHS, RHS})), Op(Op), OpLoc(OpLoc),
        LHS(LHS), RHS(RHS) {}
  BinaryOp getOp() const { return Op; }
  SourceLocation getOpLoc() const { return OpLoc; }
  Expr *getLHS() const { return LHS; }
  Expr *getRHS() const { return RHS; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Binary; }

private:
  BinaryOp Op;
  SourceLocation OpLoc;
  Expr *LHS, *RHS;
};

/// `a and b and c` (one node, two or more operands).
class BoolOpExpr : public Expr {
public:
  BoolOpExpr(SourceLocation Loc, BoolOp Op, llvm::ArrayRef<Expr *> Operands)
      : Expr(Kind::BoolOp, Loc, depthAbove(Operands)), Op(Op),
        Operands(Operands) {}
  BoolOp getOp() const { return Op; }
  llvm::ArrayRef<Expr *> getOperands() const { return Operands; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::BoolOp; }

private:
  BoolOp Op;
  llvm::ArrayRef<Expr *> Operands;
};

/// One link of a comparison chain: the operator and its right operand.
struct Comparison {
  CompareOp Op;
  SourceLocation OpLoc;
  Expr *RHS;
};

/// `a < b`, or a chain `a < b <= c` (meaning `a < b and b <= c`, with `b`
/// evaluated once).
class CompareExpr : public Expr {
public:
  CompareExpr(SourceLocation Loc, Expr *LHS,
              llvm::ArrayRef<Comparison> Comparisons);
  Expr *getLHS() const { return LHS; }
  /// One or more links, in source order.
  llvm::ArrayRef<Comparison> getComparisons() const { return Comparisons; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Compare; }

private:
  Expr *LHS;
  llvm::ArrayRef<Comparison> Comparisons;
};

/// `Then if Cond else Else`.
class ConditionalExpr : public Expr {
public:
  ConditionalExpr(SourceLocation Loc, Expr *Cond, Expr *Then, Expr *Else)
      : Expr(Kind::Conditional, Loc, depthAbove({Cond, Then, Else})),
        Cond(Cond), Then(Then), Else(Else) {}
  Expr *getCond() const { return Cond; }
  Expr *getThen() const { return Then; }
  Expr *getElse() const { return Else; }
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::Conditional;
  }

private:
  Expr *Cond, *Then, *Else;
};

/// `name=value` in a call.
struct KeywordArg {
  llvm::StringRef Name;
  SourceLocation NameLoc;
  Expr *Value;
};

/// `f(a, *b, k=v)`. Positional arguments (possibly StarredExpr) come first in
/// Python, and keywords after them.
class CallExpr : public Expr {
public:
  CallExpr(SourceLocation Loc, Expr *Callee, llvm::ArrayRef<Expr *> Args,
           llvm::ArrayRef<KeywordArg> Keywords);
  Expr *getCallee() const { return Callee; }
  llvm::ArrayRef<Expr *> getArgs() const { return Args; }
  llvm::ArrayRef<KeywordArg> getKeywords() const { return Keywords; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Call; }

private:
  Expr *Callee;
  llvm::ArrayRef<Expr *> Args;
  llvm::ArrayRef<KeywordArg> Keywords;
};

/// `base.name`.
class AttributeExpr : public Expr {
public:
  AttributeExpr(SourceLocation Loc, Expr *Base, llvm::StringRef Name,
                SourceLocation NameLoc)
      : Expr(Kind::Attribute, Loc, depthAbove({Base})), Base(Base),
        Name(Name), NameLoc(NameLoc) {}
  Expr *getBase() const { return Base; }
  llvm::StringRef getName() const { return Name; }
  SourceLocation getNameLoc() const { return NameLoc; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Attribute; }

private:
  Expr *Base;
  llvm::StringRef Name;
  SourceLocation NameLoc;
};

/// `base[index]`. With several items (`x[:, None]`) the index is a TupleExpr
/// that is not parenthesized.
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(SourceLocation Loc, Expr *Base, Expr *Index)
      : Expr(Kind::Subscript, Loc, depthAbove({Base, Index})), Base(Base),
        Index(Index) {}
  Expr *getBase() const { return Base; }
  Expr *getIndex() const { return Index; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Subscript; }

private:
  Expr *Base, *Index;
};

/// `lower:upper:step` inside a subscript; each part may be absent (null).
class SliceExpr : public Expr {
public:
  SliceExpr(SourceLocation Loc, Expr *Lower, Expr *Upper, Expr *Step)
      : Expr(Kind::Slice, Loc, depthAbove({Lower, Upper, Step})), Lower(Lower),
        Upper(Upper), Step(Step) {}
  Expr *getLower() const { return Lower; }
  Expr *getUpper() const { return Upper; }
  Expr *getStep() const { return Step; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Slice; }

private:
  Expr *Lower, *Upper, *Step;
};

/// `a, b`, `(a, b)`, `(a,)`, `()`.
class TupleExpr : public Expr {
public:
  TupleExpr(SourceLocation Loc, llvm::ArrayRef<Expr *> Elements,
            bool Parenthesized)
      : Expr(Kind::Tuple, Loc, depthAbove(Elements)), Elements(Elements),
        Parenthesized(Parenthesized) {}
  llvm::ArrayRef<Expr *> getElements() const { return Elements; }
  /// True when written in parentheses; its location is then the '('.
  bool isParenthesized() const { return Parenthesized; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Tuple; }

private:
  llvm::ArrayRef<Expr *> Elements;
  bool Parenthesized;
};

/// `[a, b]` (kernels use lists for shapes).
class ListExpr : public Expr {
public:
  ListExpr(SourceLocation Loc, llvm::ArrayRef<Expr *> Elements)
      : Expr(Kind::List, Loc, depthAbove(Elements)), Elements(Elements) {}
  llvm::ArrayRef<Expr *> getElements() const { return Elements; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::List; }

private:
  llvm::ArrayRef<Expr *> Elements;
};

/// `*value`, in a call's arguments, a tuple or list, or an assignment target.
class StarredExpr : public Expr {
public:
  StarredExpr(SourceLocation Loc, Expr *Value)
      : Expr(Kind::Starred, Loc, depthAbove({Value})), Value(Value) {}
  Expr *getValue() const { return Value; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Starred; }

private:
  Expr *Value;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind : uint8_t {
    Expr, Assign, AnnAssign, AugAssign, If, For, While, Break, Continue, Pass,
    Return, Assert, With, FunctionDef, Import, ImportFrom
  };
  Kind getKind() const { return TheKind; }
  /// The location of the statement's first token.
  SourceLocation getLoc() const { return Loc; }

protected:
  Stmt(Kind K, SourceLocation Loc) : TheKind(K), Loc(Loc) {}

private:
  Kind TheKind;
  SourceLocation Loc;
};

/// An expression evaluated for its effect: `tl.store(p, x)`.
class ExprStmt : public Stmt {
public:
  ExprStmt(SourceLocation Loc, Expr *Value) : Stmt(Kind::Expr, Loc), Value(Value) {}
  Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Expr; }

private:
  Expr *Value;
};

/// `t1 = t2 = value`. Targets are names, attributes, subscripts, and tuples
/// or lists of targets (possibly with one StarredExpr).
class AssignStmt : public Stmt {
public:
  AssignStmt(SourceLocation Loc, llvm::ArrayRef<Expr *> Targets, Expr *Value)
      : Stmt(Kind::Assign, Loc), Targets(Targets), Value(Value) {}
  /// One or more targets, left to right.
  llvm::ArrayRef<Expr *> getTargets() const { return Targets; }
  Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Assign; }

private:
  llvm::ArrayRef<Expr *> Targets;
  Expr *Value;
};

/// `target: annotation [= value]`, e.g. `BLOCK: tl.constexpr = 128`.
class AnnAssignStmt : public Stmt {
public:
  AnnAssignStmt(SourceLocation Loc, Expr *Target, Expr *Annotation, Expr *Value)
      : Stmt(Kind::AnnAssign, Loc), Target(Target), Annotation(Annotation),
        Value(Value) {}
  Expr *getTarget() const { return Target; }
  Expr *getAnnotation() const { return Annotation; }
  /// Null for a bare annotation `x: int`.
  Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::AnnAssign; }

private:
  Expr *Target, *Annotation, *Value;
};

/// `target op= value`.
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(SourceLocation Loc, Expr *Target, BinaryOp Op,
                SourceLocation OpLoc, Expr *Value)
      : Stmt(Kind::AugAssign, Loc), Target(Target), Op(Op), OpLoc(OpLoc),
        Value(Value) {}
  Expr *getTarget() const { return Target; }
  BinaryOp getOp() const { return Op; }
  SourceLocation getOpLoc() const { return OpLoc; }
  Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::AugAssign; }

private:
  Expr *Target;
  BinaryOp Op;
  SourceLocation OpLoc;
  Expr *Value;
};

/// One `if` or `elif` clause.
struct IfBranch {
  /// The `if` or `elif` keyword.
  SourceLocation Loc;
  Expr *Cond;
  llvm::ArrayRef<Stmt *> Body;
};

/// `if c1: ... elif c2: ... else: ...` as one node.
class IfStmt : public Stmt {
public:
  IfStmt(SourceLocation Loc, llvm::ArrayRef<IfBranch> Branches,
         llvm::ArrayRef<Stmt *> ElseBody, SourceLocation ElseLoc)
      : Stmt(Kind::If, Loc), Branches(Branches), ElseBody(ElseBody),
        ElseLoc(ElseLoc) {}
  /// The `if` branch, then each `elif`.
  llvm::ArrayRef<IfBranch> getBranches() const { return Branches; }
  bool hasElse() const { return ElseLoc.isValid(); }
  llvm::ArrayRef<Stmt *> getElseBody() const { return ElseBody; }
  SourceLocation getElseLoc() const { return ElseLoc; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::If; }

private:
  llvm::ArrayRef<IfBranch> Branches;
  llvm::ArrayRef<Stmt *> ElseBody;
  SourceLocation ElseLoc;
};

/// `for target in iter: body [else: ...]` (any iterable; semantic analysis
/// decides which are allowed).
class ForStmt : public Stmt {
public:
  ForStmt(SourceLocation Loc, Expr *Target, Expr *Iter,
          llvm::ArrayRef<Stmt *> Body, llvm::ArrayRef<Stmt *> ElseBody,
          SourceLocation ElseLoc)
      : Stmt(Kind::For, Loc), Target(Target), Iter(Iter), Body(Body),
        ElseBody(ElseBody), ElseLoc(ElseLoc) {}
  Expr *getTarget() const { return Target; }
  Expr *getIter() const { return Iter; }
  llvm::ArrayRef<Stmt *> getBody() const { return Body; }
  bool hasElse() const { return ElseLoc.isValid(); }
  llvm::ArrayRef<Stmt *> getElseBody() const { return ElseBody; }
  SourceLocation getElseLoc() const { return ElseLoc; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::For; }

private:
  Expr *Target, *Iter;
  llvm::ArrayRef<Stmt *> Body, ElseBody;
  SourceLocation ElseLoc;
};

class WhileStmt : public Stmt {
public:
  WhileStmt(SourceLocation Loc, Expr *Cond, llvm::ArrayRef<Stmt *> Body,
            llvm::ArrayRef<Stmt *> ElseBody, SourceLocation ElseLoc)
      : Stmt(Kind::While, Loc), Cond(Cond), Body(Body), ElseBody(ElseBody),
        ElseLoc(ElseLoc) {}
  Expr *getCond() const { return Cond; }
  llvm::ArrayRef<Stmt *> getBody() const { return Body; }
  bool hasElse() const { return ElseLoc.isValid(); }
  llvm::ArrayRef<Stmt *> getElseBody() const { return ElseBody; }
  SourceLocation getElseLoc() const { return ElseLoc; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::While; }

private:
  Expr *Cond;
  llvm::ArrayRef<Stmt *> Body, ElseBody;
  SourceLocation ElseLoc;
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(SourceLocation Loc) : Stmt(Kind::Break, Loc) {}
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Break; }
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(SourceLocation Loc) : Stmt(Kind::Continue, Loc) {}
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Continue; }
};

class PassStmt : public Stmt {
public:
  explicit PassStmt(SourceLocation Loc) : Stmt(Kind::Pass, Loc) {}
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Pass; }
};

/// `return`, `return x`, `return a, b` (a TupleExpr).
class ReturnStmt : public Stmt {
public:
  ReturnStmt(SourceLocation Loc, Expr *Value) : Stmt(Kind::Return, Loc), Value(Value) {}
  /// Null for a bare `return`.
  Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Return; }

private:
  Expr *Value;
};

/// `assert cond[, message]`.
class AssertStmt : public Stmt {
public:
  AssertStmt(SourceLocation Loc, Expr *Cond, Expr *Message)
      : Stmt(Kind::Assert, Loc), Cond(Cond), Message(Message) {}
  Expr *getCond() const { return Cond; }
  /// Null when absent.
  Expr *getMessage() const { return Message; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Assert; }

private:
  Expr *Cond, *Message;
};

/// `context [as target]` in a with statement.
struct WithItem {
  Expr *Context;
  /// Null when there is no `as`.
  Expr *Target;
};

/// `with a as b, c: ...`. Kernels may not use it; the parser keeps it so
/// that semantic analysis can say so.
class WithStmt : public Stmt {
public:
  WithStmt(SourceLocation Loc, llvm::ArrayRef<WithItem> Items,
           llvm::ArrayRef<Stmt *> Body)
      : Stmt(Kind::With, Loc), Items(Items), Body(Body) {}
  llvm::ArrayRef<WithItem> getItems() const { return Items; }
  llvm::ArrayRef<Stmt *> getBody() const { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::With; }

private:
  llvm::ArrayRef<WithItem> Items;
  llvm::ArrayRef<Stmt *> Body;
};

/// One parameter: `name[: annotation][= default]`.
struct Param {
  llvm::StringRef Name;
  SourceLocation Loc;
  /// Null when absent.
  Expr *Annotation;
  /// Null when absent.
  Expr *Default;
};

/// One decorator line `@expr`.
struct Decorator {
  /// The '@'.
  SourceLocation Loc;
  /// The dotted name when the decorator is `a.b.c` or a call `a.b.c(...)`
  /// ("triton.autotune"), and the dotted name a jit decorator starts with
  /// whatever follows it; empty otherwise.
  llvm::StringRef Name;
  /// The source text after '@' up to the end of the line (which may span
  /// lines inside brackets).
  llvm::StringRef Text;
  /// The parsed expression. Only jit decorators are parsed (others, such as
  /// `@triton.autotune(configs=[...])`, may use syntax kernels cannot); null
  /// for the rest.
  Expr *Expression;
  /// True for `@triton.jit`, `@tegula.jit`, `@jit` and their calls and
  /// import aliases.
  bool IsJit;
};

/// `def name(params) [-> returns]: body` with its decorators.
class FunctionDef : public Stmt {
public:
  FunctionDef(SourceLocation Loc, llvm::StringRef Name, SourceLocation NameLoc,
              llvm::ArrayRef<Param> Params, Expr *Returns,
              llvm::ArrayRef<Decorator> Decorators, llvm::StringRef Docstring,
              bool HasDocstring, llvm::ArrayRef<Stmt *> Body)
      : Stmt(Kind::FunctionDef, Loc), Name(Name), NameLoc(NameLoc),
        Params(Params), Returns(Returns), Decorators(Decorators),
        Docstring(Docstring), HasDocstring(HasDocstring), Body(Body) {}
  llvm::StringRef getName() const { return Name; }
  SourceLocation getNameLoc() const { return NameLoc; }
  llvm::ArrayRef<Param> getParams() const { return Params; }
  /// The return annotation, or null.
  Expr *getReturns() const { return Returns; }
  /// In source order (the outermost first).
  llvm::ArrayRef<Decorator> getDecorators() const { return Decorators; }
  /// The first jit decorator, or null.
  const Decorator *getJitDecorator() const;
  bool hasDocstring() const { return HasDocstring; }
  /// The decoded docstring (empty when there is none).
  llvm::StringRef getDocstring() const { return Docstring; }
  /// The body without the docstring.
  llvm::ArrayRef<Stmt *> getBody() const { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::FunctionDef; }

private:
  llvm::StringRef Name;
  SourceLocation NameLoc;
  llvm::ArrayRef<Param> Params;
  Expr *Returns;
  llvm::ArrayRef<Decorator> Decorators;
  llvm::StringRef Docstring;
  bool HasDocstring;
  llvm::ArrayRef<Stmt *> Body;
};

/// `a.b.c [as name]` in an import.
struct ImportAlias {
  /// A dotted module name in `import`, a plain name (or "*") in `from`.
  llvm::StringRef Name;
  /// Empty when there is no `as`.
  llvm::StringRef AsName;
  SourceLocation Loc;
};

/// `import a.b as c, d`.
class ImportStmt : public Stmt {
public:
  ImportStmt(SourceLocation Loc, llvm::ArrayRef<ImportAlias> Names)
      : Stmt(Kind::Import, Loc), Names(Names) {}
  llvm::ArrayRef<ImportAlias> getNames() const { return Names; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Import; }

private:
  llvm::ArrayRef<ImportAlias> Names;
};

/// `from ..a.b import c as d, e` or `from a import *`.
class ImportFromStmt : public Stmt {
public:
  ImportFromStmt(SourceLocation Loc, llvm::StringRef Module, unsigned Level,
                 llvm::ArrayRef<ImportAlias> Names)
      : Stmt(Kind::ImportFrom, Loc), Module(Module), Level(Level),
        Names(Names) {}
  /// The dotted module name; empty in `from . import x`.
  llvm::StringRef getModule() const { return Module; }
  /// The number of leading dots (0 for an absolute import).
  unsigned getLevel() const { return Level; }
  /// The imported names; a single "*" for a star import.
  llvm::ArrayRef<ImportAlias> getNames() const { return Names; }
  bool isStar() const { return Names.size() == 1 && Names[0].Name == "*"; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::ImportFrom; }

private:
  llvm::StringRef Module;
  unsigned Level;
  llvm::ArrayRef<ImportAlias> Names;
};

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A module-level constant a kernel may read: `BLOCK: tl.constexpr = 128`,
/// `BLOCK = tl.constexpr(128)`, `EPS = 1e-5`, `N = BLOCK * 2`.
struct GlobalConstant {
  llvm::StringRef Name;
  SourceLocation Loc;
  /// Null when not annotated.
  Expr *Annotation;
  Expr *Value;
  /// True when annotated with, or wrapped in, `constexpr`.
  bool IsConstexpr;
  /// The AssignStmt or AnnAssignStmt it came from.
  Stmt *Definition;
};

/// What the front end keeps of a kernel file: its jit functions, imports and
/// constant globals. Everything else at module level (host code, classes,
/// other functions) was skipped unexamined.
class Module {
public:
  explicit Module(const SourceFile &File) : File(File) {}
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const SourceFile &getFile() const { return File; }
  /// The arena of this module's nodes.
  ASTContext &getContext() { return Ctx; }

  /// The jit functions that parsed without error, in source order.
  llvm::ArrayRef<FunctionDef *> getFunctions() const { return Functions; }
  /// Module-level `import` and `from ... import` statements, in order.
  llvm::ArrayRef<Stmt *> getImports() const { return Imports; }
  /// Module-level constants, in order.
  llvm::ArrayRef<GlobalConstant> getGlobals() const { return Globals; }

  /// The jit function bound to |Name| (the last definition wins, as in
  /// Python), or null.
  const FunctionDef *lookupFunction(llvm::StringRef Name) const;
  /// The constant bound to |Name| (the last assignment wins), or null.
  const GlobalConstant *lookupGlobal(llvm::StringRef Name) const;
  /// The qualified name a module-level import binds to |Name|: "tl" ->
  /// "triton.language" after `import triton.language as tl`, "triton" after
  /// `import triton`, "triton.jit" after `from triton import jit`. Empty when
  /// no import binds it.
  llvm::StringRef resolveImport(llvm::StringRef Name) const;
  /// The import statement that binds |Name|; invalid when none does.
  SourceLocation getImportLocation(llvm::StringRef Name) const;
  /// The modules of `from M import *` statements, in order ("mypkg.utils",
  /// ".utils"): names found nowhere else may come from them.
  llvm::ArrayRef<std::string> getStarImports() const { return StarImports; }

  void addFunction(FunctionDef *F) {
    if (!(FallbackBranch && isBound(F->getName())))
      Functions.push_back(F);
  }
  /// Records a module-level function that is not @jit (host code), so that
  /// a kernel calling it gets a clear error.
  void addHostFunction(llvm::StringRef Name) { HostFunctions[Name] = true; }
  bool isHostFunction(llvm::StringRef Name) const {
    return HostFunctions.count(Name) != 0;
  }
  /// Records a @jit function that did not parse (the parser reported why);
  /// only kernels that use it fail.
  void addBrokenFunction(llvm::StringRef Name, SourceLocation Loc) {
    BrokenFunctions[Name] = Loc;
  }
  /// Where the broken @jit function |Name| is defined, or null.
  const SourceLocation *lookupBrokenFunction(llvm::StringRef Name) const {
    auto It = BrokenFunctions.find(Name);
    return It == BrokenFunctions.end() ? nullptr : &It->second;
  }
  void addGlobal(const GlobalConstant &G) {
    if (!(FallbackBranch && isBound(G.Name)))
      Globals.push_back(G);
  }
  /// While set, the statements read are a later branch of a module-level
  /// `if`/`try`: imports and constants bind only names still unbound.
  void setFallbackBranch(bool Fallback) { FallbackBranch = Fallback; }
  bool isFallbackBranch() const { return FallbackBranch; }
  /// Whether an import, a constant or a function binds |Name|.
  bool isBound(llvm::StringRef Name) const;
  /// Records an ImportStmt or ImportFromStmt and the names it binds.
  void addImport(Stmt *S);

private:
  const SourceFile &File;
  ASTContext Ctx;
  std::vector<FunctionDef *> Functions;
  std::vector<Stmt *> Imports;
  std::vector<GlobalConstant> Globals;
  llvm::StringMap<std::string> ImportBindings;
  llvm::StringMap<SourceLocation> ImportLocations;
  std::vector<std::string> StarImports;
  bool FallbackBranch = false;
  llvm::StringMap<bool> HostFunctions;
  llvm::StringMap<SourceLocation> BrokenFunctions;
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_AST_H
