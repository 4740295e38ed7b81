//===- ParseStmtTest.cpp - statements and function definitions ------------===//
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "gtest/gtest.h"

using namespace tegula::frontend;

namespace {

class ParseStmtTest : public ::testing::Test {
protected:
  /// The dumps of |Source| parsed as kernel statements, or "error L:C:
  /// message" for the first diagnostic.
  std::string parse(llvm::StringRef Source) {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, "stmt.py");
    Stmts.clear();
    bool Ok = parseStatements(File, Ctx, Diags, Stmts);
    if (!Diags.getDiagnostics().empty()) {
      EXPECT_FALSE(Ok);
      const Diagnostic &D = Diags.getDiagnostics()[0];
      return "error " + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) +
             ": " + D.Message;
    }
    EXPECT_TRUE(Ok);
    std::string Out;
    for (const Stmt *S : Stmts)
      Out += dumpToString(S);
    return Out;
  }

  /// The module dump of |Source| (functions, imports, globals), or the first
  /// error as above.
  std::string parseFile(llvm::StringRef Source) {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, "kernel.py");
    LastModule = parseModule(File, Diags);
    if (!Diags.getDiagnostics().empty()) {
      const Diagnostic &D = Diags.getDiagnostics()[0];
      return "error " + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) +
             ": " + D.Message;
    }
    return dumpToString(*LastModule);
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
  ASTContext Ctx;
  llvm::SmallVector<Stmt *, 8> Stmts;
  std::unique_ptr<Module> LastModule;
};

TEST_F(ParseStmtTest, Assignments) {
  EXPECT_EQ(parse("x = 1\n"), "(assign x (int 1))\n");
  EXPECT_EQ(parse("a = b = 0\n"), "(assign a b (int 0))\n");
  EXPECT_EQ(parse("x.y = z[0] = 1\n"), "(assign (. x y) (subscript z (int 0)) (int 1))\n");
  EXPECT_EQ(parse("acc = tl.zeros((BM, BN), dtype=tl.float32)\n"),
            "(assign acc (call (. tl zeros) (tuple BM BN) (kw dtype (. tl float32))))\n");
}

TEST_F(ParseStmtTest, TupleUnpacking) {
  EXPECT_EQ(parse("a, b = f()\n"), "(assign (tuple a b) (call f))\n");
  EXPECT_EQ(parse("(a, b) = t\n"), "(assign (tuple a b) t)\n");
  EXPECT_EQ(parse("[a, b] = t\n"), "(assign (list a b) t)\n");
  EXPECT_EQ(parse("a, *rest = t\n"), "(assign (tuple a (starred rest)) t)\n");
  EXPECT_EQ(parse("lo, hi = 0, n\n"), "(assign (tuple lo hi) (tuple (int 0) n))\n");
  EXPECT_EQ(parse("(a, (b, c)), d = t\n"), "(assign (tuple (tuple a (tuple b c)) d) t)\n");
  EXPECT_EQ(parse("x, = t\n"), "(assign (tuple x) t)\n");
}

TEST_F(ParseStmtTest, AnnotatedAssignments) {
  EXPECT_EQ(parse("x: tl.constexpr = 3\n"), "(ann-assign x (. tl constexpr) (int 3))\n");
  EXPECT_EQ(parse("x: int\n"), "(ann-assign x int)\n");
  EXPECT_EQ(parse("self.x: int = 1\n"), "(ann-assign (. self x) int (int 1))\n");
  EXPECT_EQ(parse("v: tl.constexpr = (0, 1) if c else (1, 0)\n"),
            "(ann-assign v (. tl constexpr) (ifexp c (tuple (int 0) (int 1)) (tuple (int 1) (int 0))))\n");
}

TEST_F(ParseStmtTest, AugmentedAssignments) {
  const char *Ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "@=",
                       "&=", "|=", "^=", "<<=", ">>=", "**="};
  for (const char *Op : Ops)
    EXPECT_EQ(parse(std::string("x ") + Op + " y\n"), std::string("(aug-assign ") + Op + " x y)\n");
  EXPECT_EQ(parse("a_ptrs += BLOCK_K * stride_ak\n"),
            "(aug-assign += a_ptrs (* BLOCK_K stride_ak))\n");
  EXPECT_EQ(parse("x[i] -= 1\n"), "(aug-assign -= (subscript x i) (int 1))\n");
  ASSERT_EQ(Stmts.size(), 1u);
  auto *Aug = llvm::cast<AugAssignStmt>(Stmts[0]);
  EXPECT_EQ(Aug->getOp(), BinaryOp::Sub);
  EXPECT_EQ(Aug->getOpLoc().Column, 6u);
}

TEST_F(ParseStmtTest, IfElifElse) {
  EXPECT_EQ(parse("if a < b:\n"
                  "    x = 1\n"
                  "elif c:\n"
                  "    x = 2\n"
                  "    y = 3\n"
                  "elif d:\n"
                  "    pass\n"
                  "else:\n"
                  "    x = 4\n"),
            "(if (compare a < b)\n"
            "  (then\n"
            "    (assign x (int 1)))\n"
            "  (elif c\n"
            "    (assign x (int 2))\n"
            "    (assign y (int 3)))\n"
            "  (elif d\n"
            "    (pass))\n"
            "  (else\n"
            "    (assign x (int 4))))\n");
  auto *If = llvm::cast<IfStmt>(Stmts[0]);
  ASSERT_EQ(If->getBranches().size(), 3u);
  EXPECT_EQ(If->getBranches()[1].Loc.Line, 3u);
  EXPECT_TRUE(If->hasElse());
  EXPECT_EQ(If->getElseLoc().Line, 8u);
  EXPECT_EQ(parse("if a:\n    pass\n"), "(if a\n  (then\n    (pass)))\n");
  EXPECT_FALSE(llvm::cast<IfStmt>(Stmts[0])->hasElse());
}

TEST_F(ParseStmtTest, NestedBlocksWithCommentsAndBlankLines) {
  EXPECT_EQ(parse("if a:\n"
                  "    # comment\n"
                  "\n"
                  "    if b:\n"
                  "        x = 1  # trailing\n"
                  "\n"
                  "    y = 2\n"
                  "z = 3\n"),
            "(if a\n"
            "  (then\n"
            "    (if b\n"
            "      (then\n"
            "        (assign x (int 1))))\n"
            "    (assign y (int 2))))\n"
            "(assign z (int 3))\n");
}

TEST_F(ParseStmtTest, SimpleStatementSuitesAndSemicolons) {
  EXPECT_EQ(parse("if x: y = 1; z = 2\n"),
            "(if x\n  (then\n    (assign y (int 1))\n    (assign z (int 2))))\n");
  EXPECT_EQ(parse("a = 1; b = 2;\n"), "(assign a (int 1))\n(assign b (int 2))\n");
  EXPECT_EQ(parse("while x: x -= 1\n"), "(while x\n  (body\n    (aug-assign -= x (int 1))))\n");
}

TEST_F(ParseStmtTest, ForLoops) {
  EXPECT_EQ(parse("for i in range(0, n, BLOCK):\n    acc += i\n"),
            "(for i (call range (int 0) n BLOCK)\n  (body\n    (aug-assign += acc i)))\n");
  EXPECT_EQ(parse("for i in tl.static_range(4):\n    pass\n"),
            "(for i (call (. tl static_range) (int 4))\n  (body\n    (pass)))\n");
  EXPECT_EQ(parse("for a, b in pairs:\n    pass\n"),
            "(for (tuple a b) pairs\n  (body\n    (pass)))\n");
  EXPECT_EQ(parse("for (a, b) in pairs:\n    pass\n"),
            "(for (tuple a b) pairs\n  (body\n    (pass)))\n");
  EXPECT_EQ(parse("for x in a, b:\n    pass\n"), "(for x (tuple a b)\n  (body\n    (pass)))\n");
  EXPECT_EQ(parse("for x in xs:\n    break\nelse:\n    continue\n"),
            "(for x xs\n  (body\n    (break))\n  (else\n    (continue)))\n");
  EXPECT_EQ(Stmts[0]->getLoc().Column, 1u);
}

TEST_F(ParseStmtTest, WhileLoops) {
  EXPECT_EQ(parse("while tl.atomic_cas(lock, 0, 1) == 1:\n    pass\n"),
            "(while (compare (call (. tl atomic_cas) lock (int 0) (int 1)) == (int 1))\n"
            "  (body\n    (pass)))\n");
  EXPECT_EQ(parse("while i < n:\n    i += 1\n    if i == 3:\n        break\n    continue\nelse:\n    pass\n"),
            "(while (compare i < n)\n"
            "  (body\n"
            "    (aug-assign += i (int 1))\n"
            "    (if (compare i == (int 3))\n"
            "      (then\n"
            "        (break)))\n"
            "    (continue))\n"
            "  (else\n"
            "    (pass)))\n");
}

TEST_F(ParseStmtTest, ReturnPassAssertAndExpressions) {
  EXPECT_EQ(parse("return\n"), "(return)\n");
  EXPECT_EQ(parse("return x\n"), "(return x)\n");
  EXPECT_EQ(parse("return a, b\n"), "(return (tuple a b))\n");
  EXPECT_EQ(parse("return (a, b)\n"), "(return (tuple a b))\n");
  EXPECT_EQ(parse("pass\n"), "(pass)\n");
  EXPECT_EQ(parse("assert x > 0\n"), "(assert (compare x > (int 0)))\n");
  EXPECT_EQ(parse("assert x > 0, 'x must be positive'\n"),
            "(assert (compare x > (int 0)) (str \"x must be positive\"))\n");
  EXPECT_EQ(parse("tl.store(p + offs, x, mask=m)\n"),
            "(expr (call (. tl store) (+ p offs) x (kw mask m)))\n");
  EXPECT_EQ(parse("'''a string statement'''\n"), "(expr (str \"a string statement\"))\n");
}

TEST_F(ParseStmtTest, WithStatementsAreParsed) {
  // Kernels cannot use `with`; semantic analysis rejects it with a message
  // of its own, so the parser keeps it.
  EXPECT_EQ(parse("with a as b, c:\n    pass\n"),
            "(with (item a b) (item c)\n  (body\n    (pass)))\n");
  EXPECT_TRUE(llvm::isa<WithStmt>(Stmts[0]));
  EXPECT_EQ(parse("with f(x) as (p, q):\n    pass\n"),
            "(with (item (call f x) (tuple p q))\n  (body\n    (pass)))\n");
}

TEST_F(ParseStmtTest, StatementLocations) {
  ASSERT_EQ(parse("x = 1\nif c:\n    y = 2\n"),
            "(assign x (int 1))\n(if c\n  (then\n    (assign y (int 2))))\n");
  EXPECT_EQ(Stmts[1]->getLoc().Line, 2u);
  auto *Inner = llvm::cast<IfStmt>(Stmts[1])->getBranches()[0].Body[0];
  EXPECT_EQ(Inner->getLoc().Line, 3u);
  EXPECT_EQ(Inner->getLoc().Column, 5u);
  EXPECT_EQ(Inner->getLoc().Offset, 16u);
}

//===----------------------------------------------------------------------===//
// Statement errors
//===----------------------------------------------------------------------===//

TEST_F(ParseStmtTest, UnsupportedStatements) {
  EXPECT_EQ(parse("x = 1\ntry:\n    pass\nexcept E:\n    pass\n"),
            "error 2:1: 'try' statements are not supported in kernels");
  EXPECT_EQ(parse("def f():\n    pass\n"),
            "error 1:1: nested function definitions are not supported in kernels");
  EXPECT_EQ(parse("@dec\ndef f():\n    pass\n"),
            "error 1:1: nested function definitions are not supported in kernels");
  EXPECT_EQ(parse("class A:\n    pass\n"), "error 1:1: class definitions are not supported in kernels");
  EXPECT_EQ(parse("global x\n"), "error 1:1: 'global' statements are not supported in kernels");
  EXPECT_EQ(parse("nonlocal x\n"), "error 1:1: 'nonlocal' statements are not supported in kernels");
  EXPECT_EQ(parse("del x\n"), "error 1:1: 'del' statements are not supported in kernels");
  EXPECT_EQ(parse("raise ValueError()\n"), "error 1:1: 'raise' statements are not supported in kernels");
  EXPECT_EQ(parse("import os\n"), "error 1:1: 'import' statements are not supported in kernels");
  EXPECT_EQ(parse("from a import b\n"), "error 1:1: 'import' statements are not supported in kernels");
  EXPECT_EQ(parse("async with a:\n    pass\n"),
            "error 1:1: 'async' statements are not supported in kernels");
  EXPECT_EQ(parse("match x:\n    case 1:\n        pass\n"),
            "error 1:1: 'match' statements are not supported in kernels");
  EXPECT_EQ(parse("match = 1\n"), "(assign match (int 1))\n") << "a soft keyword";
  EXPECT_EQ(parse("if x:\n    y = lambda v: v\n"),
            "error 2:9: lambda expressions are not supported in kernels");
  EXPECT_EQ(parse("return [x for x in y]\n"),
            "error 1:11: list comprehensions are not supported in kernels");
  EXPECT_EQ(parse("yield x\n"), "error 1:1: 'yield' expressions are not supported in kernels");
}

TEST_F(ParseStmtTest, BlockErrors) {
  EXPECT_EQ(parse("if x\n    pass\n"), "error 1:5: expected ':'");
  EXPECT_EQ(parse("if x:\npass\n"), "error 2:1: expected an indented block after 'if' statement on line 1");
  EXPECT_EQ(parse("x = 0\nfor i in range(3):\n\nx\n"),
            "error 4:1: expected an indented block after 'for' statement on line 2");
  EXPECT_EQ(parse("if a:\n    pass\nelif b:\nx\n"),
            "error 4:1: expected an indented block after 'elif' statement on line 3");
  EXPECT_EQ(parse("while a:\n    pass\nelse:\npass\n"),
            "error 4:1: expected an indented block after 'else' statement on line 3");
  EXPECT_EQ(parse("else:\n    pass\n"), "error 1:1: unexpected 'else'");
  EXPECT_EQ(parse("  x = 1\n"), "error 1:3: unexpected indent");
  EXPECT_EQ(parse("x = 1\n    y = 2\n"), "error 2:5: unexpected indent");
  EXPECT_EQ(parse("for x y:\n    pass\n"), "error 1:7: expected 'in'");
  EXPECT_EQ(parse("x = 1 2\n"), "error 1:7: expected end of statement");
  EXPECT_EQ(parse("while x: if y: pass\n"), "error 1:10: expected expression");
}

TEST_F(ParseStmtTest, InvalidTargets) {
  EXPECT_EQ(parse("f() = 1\n"), "error 1:1: cannot assign to function call");
  EXPECT_EQ(parse("1 = x\n"), "error 1:1: cannot assign to literal");
  EXPECT_EQ(parse("a + b = c\n"), "error 1:1: cannot assign to expression");
  EXPECT_EQ(parse("None = 1\n"), "error 1:1: cannot assign to None");
  EXPECT_EQ(parse("x = a < b = c\n"), "error 1:5: cannot assign to comparison");
  EXPECT_EQ(parse("(a, f()) = t\n"), "error 1:5: cannot assign to function call");
  EXPECT_EQ(parse("() = t\n"), "error 1:1: cannot assign to ()");
  EXPECT_EQ(parse("*a = t\n"), "error 1:1: starred assignment target must be in a list or tuple");
  EXPECT_EQ(parse("a, *b, *c = t\n"), "error 1:8: multiple starred expressions in assignment");
  EXPECT_EQ(parse("a, b: int = 1\n"), "error 1:1: only single target (not tuple) can be annotated");
  EXPECT_EQ(parse("[a]: int = 1\n"), "error 1:1: only single target (not list) can be annotated");
  EXPECT_EQ(parse("f(): int\n"), "error 1:1: illegal target for annotation");
  EXPECT_EQ(parse("a, b += 1\n"), "error 1:1: illegal expression for augmented assignment");
  EXPECT_EQ(parse("for f() in x:\n    pass\n"), "error 1:5: cannot assign to function call");
  EXPECT_EQ(parse("with a as 1:\n    pass\n"), "error 1:11: cannot assign to literal");
  EXPECT_EQ(parse("*a\n"), "error 1:1: cannot use starred expression here");
}

TEST_F(ParseStmtTest, OnlyTheFirstErrorIsReported) {
  EXPECT_EQ(parse("x = lambda: 0\ny = [i for i in z]\n"),
            "error 1:5: lambda expressions are not supported in kernels");
  EXPECT_EQ(Diags.getNumErrors(), 1u);
}

//===----------------------------------------------------------------------===//
// Function definitions (parsed at module level)
//===----------------------------------------------------------------------===//

TEST_F(ParseStmtTest, KernelDefinition) {
  EXPECT_EQ(parseFile("import triton\n"
                      "import triton.language as tl\n"
                      "\n"
                      "@triton.jit\n"
                      "def add(x_ptr, n, BLOCK: tl.constexpr = 128, eps: float = 1e-5) -> None:\n"
                      "    \"\"\"Adds.\n"
                      "\n"
                      "    Really.\"\"\"\n"
                      "    pid = tl.program_id(axis=0)\n"
                      "    return\n"),
            "(import (alias triton))\n"
            "(import (alias triton.language tl))\n"
            "(def add\n"
            "  (decorator (. triton jit))\n"
            "  (param x_ptr)\n"
            "  (param n)\n"
            "  (param BLOCK (ann (. tl constexpr)) (default (int 128)))\n"
            "  (param eps (ann float) (default (float 1e-05)))\n"
            "  (returns None)\n"
            "  (doc \"Adds.\\n\\n    Really.\")\n"
            "  (body\n"
            "    (assign pid (call (. tl program_id) (kw axis (int 0))))\n"
            "    (return)))\n");
  const FunctionDef *F = LastModule->lookupFunction("add");
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(F->getLoc().Line, 5u);
  EXPECT_EQ(F->getNameLoc().Column, 5u);
  ASSERT_EQ(F->getParams().size(), 4u);
  EXPECT_EQ(F->getParams()[2].Name, "BLOCK");
  EXPECT_EQ(F->getParams()[2].Loc.Column, 19u);
  EXPECT_TRUE(F->hasDocstring());
  ASSERT_EQ(F->getBody().size(), 2u) << "the docstring is not a statement";
  ASSERT_NE(F->getJitDecorator(), nullptr);
  EXPECT_EQ(F->getJitDecorator()->Name, "triton.jit");
  EXPECT_EQ(F->getJitDecorator()->Loc.Line, 4u);
}

TEST_F(ParseStmtTest, DecoratorsWithArguments) {
  EXPECT_EQ(parseFile("@triton.jit(noinline=True)\ndef f(x):\n    return x\n"),
            "(def f\n"
            "  (decorator (call (. triton jit) (kw noinline True)))\n"
            "  (param x)\n"
            "  (body\n"
            "    (return x)))\n");
  EXPECT_EQ(parseFile("@triton.jit(do_not_specialize=['n'], debug=False)\ndef f(n): pass\n"),
            "(def f\n"
            "  (decorator (call (. triton jit) (kw do_not_specialize (list (str \"n\"))) "
            "(kw debug False)))\n"
            "  (param n)\n"
            "  (body\n"
            "    (pass)))\n");
}

TEST_F(ParseStmtTest, OtherDecoratorsAreKeptAsText) {
  // autotune and heuristics arguments use dicts and lambdas, which kernels
  // cannot: they are recorded unparsed.
  EXPECT_EQ(parseFile("@triton.autotune(configs=[triton.Config({'B': 128}, num_warps=4)],\n"
                      "                 key=['n'])\n"
                      "@triton.heuristics({'EVEN': lambda args: args['n'] % 2 == 0})\n"
                      "@triton.jit\n"
                      "def k(n, B: tl.constexpr, EVEN: tl.constexpr):\n"
                      "    pass\n"),
            "(def k\n"
            "  (decorator-text \"triton.autotune(configs=[triton.Config({'B': 128}, "
            "num_warps=4)],\\n                 key=['n'])\")\n"
            "  (decorator-text \"triton.heuristics({'EVEN': lambda args: args['n'] % 2 == 0})\")\n"
            "  (decorator (. triton jit))\n"
            "  (param n)\n"
            "  (param B (ann (. tl constexpr)))\n"
            "  (param EVEN (ann (. tl constexpr)))\n"
            "  (body\n"
            "    (pass)))\n");
  const FunctionDef *F = LastModule->lookupFunction("k");
  ASSERT_NE(F, nullptr);
  ASSERT_EQ(F->getDecorators().size(), 3u);
  EXPECT_EQ(F->getDecorators()[0].Name, "triton.autotune");
  EXPECT_FALSE(F->getDecorators()[0].IsJit);
  EXPECT_EQ(F->getDecorators()[0].Expression, nullptr);
  EXPECT_EQ(F->getDecorators()[1].Name, "triton.heuristics");
  EXPECT_TRUE(F->getDecorators()[2].IsJit);
  EXPECT_EQ(F->getJitDecorator(), &F->getDecorators()[2]);
}

TEST_F(ParseStmtTest, SingleLineAndDocstringOnlyFunctions) {
  EXPECT_EQ(parseFile("@triton.jit\ndef f(x): return x * 2\n"),
            "(def f\n  (decorator (. triton jit))\n  (param x)\n  (body\n    (return (* x (int 2)))))\n");
  EXPECT_EQ(parseFile("@triton.jit\ndef g():\n    'only a docstring'\n"),
            "(def g\n  (decorator (. triton jit))\n  (doc \"only a docstring\")\n  (body))\n");
  EXPECT_EQ(parseFile("@triton.jit\ndef h(\n    a,\n    b,\n):\n    pass\n"),
            "(def h\n  (decorator (. triton jit))\n  (param a)\n  (param b)\n  (body\n    (pass)))\n");
}

TEST_F(ParseStmtTest, ParameterErrors) {
  EXPECT_EQ(parseFile("@triton.jit\ndef f(*args): pass\n"),
            "error 2:7: variadic parameters ('*args') are not supported in kernels");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a, **kw): pass\n"),
            "error 2:10: variadic keyword parameters ('**kwargs') are not supported in kernels");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a, *, b): pass\n"),
            "error 2:10: keyword-only parameters ('*') are not supported in kernels");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a, /): pass\n"),
            "error 2:10: positional-only parameters ('/') are not supported in kernels");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a, a): pass\n"),
            "error 2:10: duplicate argument 'a' in function definition");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a=1, b): pass\n"),
            "error 2:12: parameter without a default follows parameter with a default");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(a b): pass\n"), "error 2:9: expected ',' or ')'");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(1): pass\n"), "error 2:7: expected parameter name");
  EXPECT_EQ(parseFile("@triton.jit\ndef (x): pass\n"), "error 2:5: expected function name");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(x) pass\n"), "error 2:10: expected ':'");
  EXPECT_EQ(parseFile("@triton.jit\ndef f(x):\nreturn x\n"),
            "error 3:1: expected an indented block after function definition on line 2");
}

TEST_F(ParseStmtTest, NestedDefinitionsInKernels) {
  EXPECT_EQ(parseFile("@triton.jit\ndef f(x):\n    def g(y):\n        return y\n    return g(x)\n"),
            "error 3:5: nested function definitions are not supported in kernels");
  EXPECT_TRUE(LastModule->getFunctions().empty());
}

} // namespace
