//===- ParseExprTest.cpp - expressions: forms, precedence, errors ---------===//
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "gtest/gtest.h"

using namespace tegula::frontend;

namespace {

class ParseExprTest : public ::testing::Test {
protected:
  /// The dump of |Source| parsed as an expression, or "error L:C: message"
  /// for the first diagnostic.
  std::string parse(llvm::StringRef Source) {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, "expr.py");
    LastExpr = parseExpression(File, Ctx, Diags);
    if (!Diags.getDiagnostics().empty()) {
      EXPECT_EQ(LastExpr, nullptr) << "an error must fail the parse";
      const Diagnostic &D = Diags.getDiagnostics()[0];
      return "error " + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) +
             ": " + D.Message;
    }
    EXPECT_NE(LastExpr, nullptr);
    return LastExpr ? dumpToString(LastExpr) : "null without an error";
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
  ASTContext Ctx;
  Expr *LastExpr = nullptr;
};

TEST_F(ParseExprTest, Atoms) {
  EXPECT_EQ(parse("x"), "x");
  EXPECT_EQ(parse("True"), "True");
  EXPECT_EQ(parse("False"), "False");
  EXPECT_EQ(parse("None"), "None");
  EXPECT_EQ(parse("..."), "...");
  EXPECT_EQ(parse("_private"), "_private");
}

TEST_F(ParseExprTest, IntegerLiterals) {
  EXPECT_EQ(parse("42"), "(int 42)");
  EXPECT_EQ(parse("0x1F"), "(int 31)");
  EXPECT_EQ(parse("0o17"), "(int 15)");
  EXPECT_EQ(parse("0b1010"), "(int 10)");
  EXPECT_EQ(parse("1_000_000"), "(int 1000000)");
  EXPECT_EQ(parse("18446744073709551615"), "(int 18446744073709551615)");
  EXPECT_EQ(parse("18446744073709551616"), "(int-too-large 18446744073709551616)");
  auto *Big = llvm::cast<IntLiteralExpr>(LastExpr);
  EXPECT_TRUE(Big->isTooLarge());
  EXPECT_EQ(Big->getSpelling(), "18446744073709551616");
  EXPECT_EQ(parse("0x_ff"), "(int 255)");
  EXPECT_EQ(llvm::cast<IntLiteralExpr>(LastExpr)->getSpelling(), "0x_ff");
}

TEST_F(ParseExprTest, FloatLiterals) {
  EXPECT_EQ(parse("1.0"), "(float 1.0)");
  EXPECT_EQ(parse("1e-3"), "(float 0.001)");
  EXPECT_EQ(parse(".5"), "(float 0.5)");
  EXPECT_EQ(parse("1."), "(float 1.0)");
  EXPECT_EQ(parse("1.44269504"), "(float 1.44269504)");
  EXPECT_EQ(parse("1e400"), "(float inf)");
  EXPECT_EQ(llvm::cast<FloatLiteralExpr>(LastExpr)->getSpelling(), "1e400");
  // inf is just a call.
  EXPECT_EQ(parse("float('inf')"), "(call float (str \"inf\"))");
}

TEST_F(ParseExprTest, StringLiterals) {
  EXPECT_EQ(parse("'a'"), "(str \"a\")");
  EXPECT_EQ(parse("\"a\\tb\""), "(str \"a\\tb\")");
  EXPECT_EQ(parse("'''multi\nline'''"), "(str \"multi\\nline\")");
  EXPECT_EQ(parse("'con' \"cat\" '''enation'''"), "(str \"concatenation\")");
  EXPECT_EQ(parse("r'\\d+'"), "(str \"\\\\d+\")");
  EXPECT_EQ(parse("b'\\x00\\xff'"), "(bytes \"\\000\\377\")");
  EXPECT_EQ(parse("f'{x}' 'y'"), "(fstr \"{x}y\")");
  EXPECT_EQ(parse("('a'\n 'b')"), "(str \"ab\")");
  EXPECT_EQ(parse("'a' b'b'"), "error 1:5: cannot mix bytes and nonbytes literals");
  EXPECT_EQ(parse("x + '''\nab\\x4'''"), "error 2:3: truncated \\xXX escape");
  EXPECT_EQ(parse("x + '''a\r\n\r\\N{x}'''"), "error 3:1: unknown Unicode character name");
  ASSERT_EQ(Diags.getDiagnostics().size(), 1u);
  EXPECT_EQ(Diags.getDiagnostics()[0].Loc.Offset, 11u);
}

TEST_F(ParseExprTest, ArithmeticPrecedence) {
  EXPECT_EQ(parse("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(parse("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(parse("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(parse("a + b % c // d"), "(+ a (// (% b c) d))");
  EXPECT_EQ(parse("a @ b + c"), "(+ (@ a b) c)");
  EXPECT_EQ(parse("a * b ** c"), "(* a (** b c))");
}

TEST_F(ParseExprTest, LeftAssociativity) {
  EXPECT_EQ(parse("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(parse("a / b / c"), "(/ (/ a b) c)");
  EXPECT_EQ(parse("a // b * c % d"), "(% (* (// a b) c) d)");
  EXPECT_EQ(parse("a @ b @ c"), "(@ (@ a b) c)");
  EXPECT_EQ(parse("a << b >> c"), "(>> (<< a b) c)");
  EXPECT_EQ(parse("a | b | c"), "(| (| a b) c)");
}

TEST_F(ParseExprTest, PowerIsRightAssociativeAndBindsTighterThanUnary) {
  EXPECT_EQ(parse("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(parse("-a ** b"), "(u- (** a b))");
  EXPECT_EQ(parse("a ** -b"), "(** a (u- b))");
  EXPECT_EQ(parse("a ** -b ** c"), "(** a (u- (** b c)))");
  EXPECT_EQ(parse("2 ** x.y[0]"), "(** (int 2) (subscript (. x y) (int 0)))");
}

TEST_F(ParseExprTest, UnaryOperators) {
  EXPECT_EQ(parse("-x"), "(u- x)");
  EXPECT_EQ(parse("+x"), "(u+ x)");
  EXPECT_EQ(parse("~x"), "(~ x)");
  EXPECT_EQ(parse("--x"), "(u- (u- x))");
  EXPECT_EQ(parse("-x * y"), "(* (u- x) y)");
  EXPECT_EQ(parse("~a + b"), "(+ (~ a) b)");
  EXPECT_EQ(parse("-1"), "(u- (int 1))");
  EXPECT_EQ(parse("-f(x).y"), "(u- (. (call f x) y))");
}

TEST_F(ParseExprTest, BitwisePrecedence) {
  EXPECT_EQ(parse("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(parse("a + b << c & d ^ e | f"), "(| (^ (& (<< (+ a b) c) d) e) f)");
  EXPECT_EQ(parse("(rows[:, None] < M) & (cols[None, :] < N)"),
            "(& (compare (subscript rows (tuple (slice _ _ _) None)) < M) "
            "(compare (subscript cols (tuple None (slice _ _ _))) < N))");
  EXPECT_EQ(parse("a & b == c"), "(compare (& a b) == c)")
      << "bitwise operators bind tighter than comparisons";
}

TEST_F(ParseExprTest, Comparisons) {
  EXPECT_EQ(parse("a < b"), "(compare a < b)");
  EXPECT_EQ(parse("a > b"), "(compare a > b)");
  EXPECT_EQ(parse("a <= b >= c"), "(compare a <= b >= c)");
  EXPECT_EQ(parse("a == b != c"), "(compare a == b != c)");
  EXPECT_EQ(parse("a < b < c"), "(compare a < b < c)");
  EXPECT_EQ(parse("0 <= i < n"), "(compare (int 0) <= i < n)");
  EXPECT_EQ(parse("a is b"), "(compare a is b)");
  EXPECT_EQ(parse("a is not None"), "(compare a is not None)");
  EXPECT_EQ(parse("a in b"), "(compare a in b)");
  EXPECT_EQ(parse("a not in b"), "(compare a not in b)");
  EXPECT_EQ(parse("a < b + c"), "(compare a < (+ b c))");
  EXPECT_EQ(parse("a is not b in c"), "(compare a is not b in c)");
}

TEST_F(ParseExprTest, ComparisonChainKeepsEachOperator) {
  EXPECT_EQ(parse("(x <\n 1)"), "(compare x < (int 1))");
  EXPECT_EQ(parse("x <\n 1"), "error 1:4: expected expression")
      << "outside brackets a newline ends the expression";
  parse("a < b is not c");
  auto *C = llvm::cast<CompareExpr>(LastExpr);
  ASSERT_EQ(C->getComparisons().size(), 2u);
  EXPECT_EQ(C->getComparisons()[0].Op, CompareOp::Lt);
  EXPECT_EQ(C->getComparisons()[1].Op, CompareOp::IsNot);
  EXPECT_EQ(C->getComparisons()[1].OpLoc.Column, 7u);
  EXPECT_EQ(getSpelling(C->getComparisons()[1].Op), "is not");
}

TEST_F(ParseExprTest, BooleanOperators) {
  EXPECT_EQ(parse("a or b or c"), "(or a b c)");
  EXPECT_EQ(parse("a and b and c"), "(and a b c)");
  EXPECT_EQ(parse("a and b or c and d"), "(or (and a b) (and c d))");
  EXPECT_EQ(parse("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(parse("not a"), "(not a)");
  EXPECT_EQ(parse("not not a"), "(not (not a))");
  EXPECT_EQ(parse("not a and b"), "(and (not a) b)");
  EXPECT_EQ(parse("not a in b"), "(not (compare a in b))");
  EXPECT_EQ(parse("a < b and b < c"), "(and (compare a < b) (compare b < c))");
}

TEST_F(ParseExprTest, ConditionalExpressions) {
  EXPECT_EQ(parse("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(parse("a if b else c if d else e"), "(ifexp b a (ifexp d c e))");
  EXPECT_EQ(parse("(a if b else c) if d else e"), "(ifexp d (ifexp b a c) e)");
  EXPECT_EQ(parse("a or b if c and d else e"), "(ifexp (and c d) (or a b) e)");
  EXPECT_EQ(parse("4 if SIZE > 200000 else 2"),
            "(ifexp (compare SIZE > (int 200000)) (int 4) (int 2))");
}

TEST_F(ParseExprTest, AttributesCallsAndSubscriptsChain) {
  EXPECT_EQ(parse("tl.math.exp2"), "(. (. tl math) exp2)");
  EXPECT_EQ(parse("f()"), "(call f)");
  EXPECT_EQ(parse("f(x)(y)"), "(call (call f x) y)");
  EXPECT_EQ(parse("x[i][j]"), "(subscript (subscript x i) j)");
  EXPECT_EQ(parse("x.to(tl.float16)"), "(call (. x to) (. tl float16))");
  EXPECT_EQ(parse("a.b(c)[d].e"), "(. (subscript (call (. a b) c) d) e)");
  EXPECT_EQ(parse("pid.to(tl.int64) * stride"), "(* (call (. pid to) (. tl int64)) stride)");
}

TEST_F(ParseExprTest, CallArguments) {
  EXPECT_EQ(parse("tl.load(p + o, mask=m, other=0.0)"),
            "(call (. tl load) (+ p o) (kw mask m) (kw other (float 0.0)))");
  EXPECT_EQ(parse("f(a,)"), "(call f a)");
  EXPECT_EQ(parse("f(\n  a,\n  b,\n)"), "(call f a b)");
  EXPECT_EQ(parse("f(*args)"), "(call f (starred args))");
  EXPECT_EQ(parse("f(a, *b, k=1)"), "(call f a (starred b) (kw k (int 1)))");
  EXPECT_EQ(parse("f(k=1, *b)"), "(call f (starred b) (kw k (int 1)))");
  EXPECT_EQ(parse("f(x == 1, y=z if c else w)"),
            "(call f (compare x == (int 1)) (kw y (ifexp c z w)))");
  parse("f(a, k=v)");
  auto *Call = llvm::cast<CallExpr>(LastExpr);
  ASSERT_EQ(Call->getKeywords().size(), 1u);
  EXPECT_EQ(Call->getKeywords()[0].Name, "k");
  EXPECT_EQ(Call->getKeywords()[0].NameLoc.Column, 6u);
}

TEST_F(ParseExprTest, SubscriptsWithSlicesAndNone) {
  EXPECT_EQ(parse("x[:, None]"), "(subscript x (tuple (slice _ _ _) None))");
  EXPECT_EQ(parse("x[None, :]"), "(subscript x (tuple None (slice _ _ _)))");
  EXPECT_EQ(parse("x[1:2:3]"), "(subscript x (slice (int 1) (int 2) (int 3)))");
  EXPECT_EQ(parse("x[::2]"), "(subscript x (slice _ _ (int 2)))");
  EXPECT_EQ(parse("x[:]"), "(subscript x (slice _ _ _))");
  EXPECT_EQ(parse("x[::]"), "(subscript x (slice _ _ _))");
  EXPECT_EQ(parse("x[a:]"), "(subscript x (slice a _ _))");
  EXPECT_EQ(parse("x[:b]"), "(subscript x (slice _ b _))");
  EXPECT_EQ(parse("x[a:b, ::-1]"), "(subscript x (tuple (slice a b _) (slice _ _ (u- (int 1)))))");
  EXPECT_EQ(parse("x[i, j]"), "(subscript x (tuple i j))");
  EXPECT_EQ(parse("x[i,]"), "(subscript x (tuple i))");
  EXPECT_EQ(parse("x[..., None]"), "(subscript x (tuple ... None))");
  EXPECT_EQ(parse("x[i + 1]"), "(subscript x (+ i (int 1)))");
  ASSERT_EQ(parse("x[a, b]"), "(subscript x (tuple a b))");
  auto *Index = llvm::cast<TupleExpr>(llvm::cast<SubscriptExpr>(LastExpr)->getIndex());
  EXPECT_FALSE(Index->isParenthesized());
}

TEST_F(ParseExprTest, TuplesAndLists) {
  EXPECT_EQ(parse("a, b"), "(tuple a b)");
  EXPECT_EQ(parse("a, b,"), "(tuple a b)");
  EXPECT_EQ(parse("(a, b)"), "(tuple a b)");
  EXPECT_EQ(parse("(a,)"), "(tuple a)");
  EXPECT_EQ(parse("()"), "(tuple)");
  EXPECT_EQ(parse("(a)"), "a");
  EXPECT_EQ(parse("((a, b))"), "(tuple a b)");
  EXPECT_EQ(parse("[a, b]"), "(list a b)");
  EXPECT_EQ(parse("[]"), "(list)");
  EXPECT_EQ(parse("[BLOCK_M, BLOCK_N,]"), "(list BLOCK_M BLOCK_N)");
  EXPECT_EQ(parse("[[1, 2], (3,)]"), "(list (list (int 1) (int 2)) (tuple (int 3)))");
  EXPECT_EQ(parse("(*a, b)"), "(tuple (starred a) b)");
  EXPECT_EQ(parse("[*a]"), "(list (starred a))");
  parse("(a, b)");
  EXPECT_TRUE(llvm::cast<TupleExpr>(LastExpr)->isParenthesized());
  EXPECT_EQ(LastExpr->getLoc().Column, 1u) << "a parenthesized tuple starts at '('";
  parse("a, b");
  EXPECT_FALSE(llvm::cast<TupleExpr>(LastExpr)->isParenthesized());
}

TEST_F(ParseExprTest, Locations) {
  ASSERT_EQ(parse("(\nfoo + bar * baz)"), "(+ foo (* bar baz))");
  // A parenthesized expression starts at its first token inside.
  auto *Add = llvm::cast<BinaryExpr>(LastExpr);
  EXPECT_EQ(Add->getLoc().Line, 2u);
  EXPECT_EQ(Add->getLoc().Column, 1u);
  EXPECT_EQ(Add->getLoc().Offset, 2u);
  EXPECT_EQ(Add->getOpLoc().Column, 5u);
  auto *Mul = llvm::cast<BinaryExpr>(Add->getRHS());
  EXPECT_EQ(Mul->getLoc().Column, 7u);
  EXPECT_EQ(Mul->getOpLoc().Column, 11u);
  EXPECT_EQ(Add->getLoc().File->getName(), "expr.py");

  ASSERT_EQ(parse("tl.load(x)"), "(call (. tl load) x)");
  auto *Call = llvm::cast<CallExpr>(LastExpr);
  auto *Attr = llvm::cast<AttributeExpr>(Call->getCallee());
  EXPECT_EQ(Call->getLoc().Column, 1u);
  EXPECT_EQ(Attr->getNameLoc().Column, 4u);
  EXPECT_EQ(Call->getArgs()[0]->getLoc().Column, 9u);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(ParseExprTest, UnsupportedForms) {
  EXPECT_EQ(parse("tl.reduce(x, 0, lambda a, b: a + b)"),
            "error 1:17: lambda expressions are not supported in kernels");
  EXPECT_EQ(parse("[i * 2 for i in range(4)]"),
            "error 1:8: list comprehensions are not supported in kernels");
  EXPECT_EQ(parse("(i for i in x)"), "error 1:4: generator expressions are not supported in kernels");
  EXPECT_EQ(parse("sum(i for i in x)"),
            "error 1:7: generator expressions are not supported in kernels");
  EXPECT_EQ(parse("{'a': 1}"), "error 1:1: dict and set literals are not supported in kernels");
  EXPECT_EQ(parse("f({1, 2})"), "error 1:3: dict and set literals are not supported in kernels");
  EXPECT_EQ(parse("(n := 10)"),
            "error 1:4: assignment expressions (':=') are not supported in kernels");
  EXPECT_EQ(parse("x + (yield)"), "error 1:6: 'yield' expressions are not supported in kernels");
  EXPECT_EQ(parse("await f()"), "error 1:1: 'await' expressions are not supported in kernels");
  EXPECT_EQ(parse("1 + 2j"), "error 1:5: complex literals are not supported in kernels");
  EXPECT_EQ(parse("f(**kw)"), "error 1:3: '**' argument unpacking is not supported in kernels");
}

TEST_F(ParseExprTest, SyntaxErrors) {
  EXPECT_EQ(parse("a +"), "error 1:4: expected expression");
  EXPECT_EQ(parse("a + * b"), "error 1:5: cannot use starred expression here");
  EXPECT_EQ(parse("a if b"), "error 1:7: expected 'else' in conditional expression");
  EXPECT_EQ(parse("(a b)"), "error 1:4: expected ',' or ')'");
  EXPECT_EQ(parse("f(a b)"), "error 1:5: expected ',' or ')'");
  EXPECT_EQ(parse("[a b]"), "error 1:4: expected ',' or ']'");
  EXPECT_EQ(parse("x[a b]"), "error 1:5: expected ',' or ']'");
  EXPECT_EQ(parse("x[]"), "error 1:3: expected subscript");
  EXPECT_EQ(parse("a b"), "error 1:3: expected end of expression");
  EXPECT_EQ(parse("a.1"), "error 1:2: expected end of expression");
  EXPECT_EQ(parse("a.if"), "error 1:3: expected attribute name after '.'");
  EXPECT_EQ(parse("(*a)"), "error 1:2: cannot use starred expression here");
  EXPECT_EQ(parse("a + not b"), "error 1:5: expected expression");
  EXPECT_EQ(parse("  x"), "error 1:3: unexpected indent");
  EXPECT_EQ(parse(""), "error 1:1: expected expression");
}

TEST_F(ParseExprTest, CallArgumentErrors) {
  EXPECT_EQ(parse("f(a=1, a=2)"), "error 1:8: keyword argument repeated: a");
  EXPECT_EQ(parse("f(a=1, b)"), "error 1:8: positional argument follows keyword argument");
  EXPECT_EQ(parse("f(a.b=1)"),
            "error 1:6: expression cannot contain assignment, perhaps you meant \"==\"?");
}

TEST_F(ParseExprTest, LexicalErrorsAreReportedOnce) {
  EXPECT_EQ(parse("f(a, 'abc)"), "error 1:6: unterminated string literal (detected at line 1)");
  EXPECT_EQ(Diags.getDiagnostics().size(), 1u);
  EXPECT_EQ(parse("a + $"), "error 1:5: invalid character '$' (U+0024)");
  EXPECT_EQ(Diags.getDiagnostics().size(), 1u);
}

} // namespace
