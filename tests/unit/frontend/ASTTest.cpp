//===- ASTTest.cpp - nodes, RTTI, arena, operator spellings, dumps --------===//
#include "tegula/Frontend/AST.h"
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "gtest/gtest.h"

using namespace tegula::frontend;

namespace {

// The arena never runs destructors.
static_assert(std::is_trivially_destructible_v<BinaryExpr>);
static_assert(std::is_trivially_destructible_v<CallExpr>);
static_assert(std::is_trivially_destructible_v<FunctionDef>);
static_assert(std::is_trivially_destructible_v<IfStmt>);

TEST(ASTTest, LLVMStyleRTTI) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  ASTContext Ctx;
  const SourceFile &File = SM.addBuffer("f(a.b, -c)[0]\n", "rtti.py");
  Expr *E = parseExpression(File, Ctx, Diags);
  ASSERT_NE(E, nullptr);
  EXPECT_TRUE(llvm::isa<SubscriptExpr>(E));
  EXPECT_FALSE(llvm::isa<CallExpr>(E));
  auto *Call = llvm::dyn_cast<CallExpr>(llvm::cast<SubscriptExpr>(E)->getBase());
  ASSERT_NE(Call, nullptr);
  EXPECT_TRUE(llvm::isa<NameExpr>(Call->getCallee()));
  EXPECT_TRUE(llvm::isa<AttributeExpr>(Call->getArgs()[0]));
  auto *Neg = llvm::dyn_cast<UnaryExpr>(Call->getArgs()[1]);
  ASSERT_NE(Neg, nullptr);
  EXPECT_EQ(Neg->getOp(), UnaryOp::Minus);
  EXPECT_EQ(llvm::dyn_cast<BinaryExpr>(Call->getArgs()[1]), nullptr);
  EXPECT_TRUE((llvm::isa<NameExpr, AttributeExpr>(Call->getArgs()[0])));
}

TEST(ASTTest, DepthIsTheHeightOfTheTree) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  ASTContext Ctx;
  EXPECT_EQ(parseExpression(SM.addBuffer("x\n", "a.py"), Ctx, Diags)->getDepth(), 1u);
  EXPECT_EQ(parseExpression(SM.addBuffer("a + b * c\n", "b.py"), Ctx, Diags)->getDepth(), 3u);
  EXPECT_EQ(parseExpression(SM.addBuffer("f(x, y=g(z))\n", "c.py"), Ctx, Diags)->getDepth(), 3u);
  EXPECT_EQ(parseExpression(SM.addBuffer("a < b < -c\n", "d.py"), Ctx, Diags)->getDepth(), 3u);
}

TEST(ASTTest, ArenaCopies) {
  ASTContext Ctx;
  size_t Before = Ctx.getBytesAllocated();
  std::string Temp = "temporary";
  llvm::StringRef Copy = Ctx.copyString(Temp);
  Temp = "changed!!";
  EXPECT_EQ(Copy, "temporary");
  EXPECT_TRUE(Ctx.copyString("").empty());
  int Values[] = {1, 2, 3};
  llvm::ArrayRef<int> Array = Ctx.copyArray<int>(Values);
  Values[0] = 9;
  EXPECT_EQ(Array.size(), 3u);
  EXPECT_EQ(Array[0], 1);
  EXPECT_TRUE(Ctx.copyArray<int>({}).empty());
  auto *N = Ctx.create<NameExpr>(SourceLocation(), "n");
  EXPECT_EQ(N->getName(), "n");
  EXPECT_GT(Ctx.getBytesAllocated(), Before);
}

TEST(ASTTest, OperatorSpellings) {
  EXPECT_EQ(getSpelling(BinaryOp::FloorDiv), "//");
  EXPECT_EQ(getSpelling(BinaryOp::MatMul), "@");
  EXPECT_EQ(getSpelling(BinaryOp::Pow), "**");
  EXPECT_EQ(getSpelling(BinaryOp::BitXor), "^");
  EXPECT_EQ(getSpelling(UnaryOp::Invert), "~");
  EXPECT_EQ(getSpelling(UnaryOp::Not), "not");
  EXPECT_EQ(getSpelling(BoolOp::And), "and");
  EXPECT_EQ(getSpelling(CompareOp::NotIn), "not in");
  EXPECT_EQ(getSpelling(CompareOp::IsNot), "is not");
  EXPECT_EQ(getSpelling(CompareOp::GtE), ">=");
}

TEST(ASTTest, HandBuiltNodesAndDumps) {
  ASTContext Ctx;
  SourceLocation L;
  Expr *A = Ctx.create<NameExpr>(L, "a");
  Expr *One = Ctx.create<IntLiteralExpr>(L, "1", 1, false);
  Expr *Sum = Ctx.create<BinaryExpr>(L, BinaryOp::Add, L, A, One);
  EXPECT_EQ(dumpToString(Sum), "(+ a (int 1))");
  Stmt *Ret = Ctx.create<ReturnStmt>(L, Sum);
  Stmt *Body[] = {Ret};
  auto *F = Ctx.create<FunctionDef>(L, "f", L, llvm::ArrayRef<Param>(), nullptr,
                                    llvm::ArrayRef<Decorator>(), "", false,
                                    Ctx.copyArray<Stmt *>(Body));
  EXPECT_EQ(F->getJitDecorator(), nullptr);
  EXPECT_FALSE(F->hasDocstring());
  EXPECT_EQ(dumpToString(F), "(def f\n  (body\n    (return (+ a (int 1)))))\n");
  std::string Indented;
  llvm::raw_string_ostream OS(Indented);
  dumpStmt(Ret, OS, 4);
  EXPECT_EQ(Indented, "    (return (+ a (int 1)))\n");
}

TEST(ASTTest, ModuleImportBindings) {
  SourceManager SM;
  Module M(SM.addBuffer("", "m.py"));
  ASTContext &Ctx = M.getContext();
  SourceLocation L;
  ImportAlias Plain[] = {{"triton.language", "", L}, {"numpy", "np", L}};
  M.addImport(Ctx.create<ImportStmt>(L, Ctx.copyArray<ImportAlias>(Plain)));
  ImportAlias From[] = {{"jit", "kernel", L}};
  M.addImport(Ctx.create<ImportFromStmt>(L, "tegula", 0, Ctx.copyArray<ImportAlias>(From)));
  EXPECT_EQ(M.resolveImport("triton"), "triton") << "`import a.b` binds a";
  EXPECT_EQ(M.resolveImport("np"), "numpy");
  EXPECT_EQ(M.resolveImport("kernel"), "tegula.jit");
  EXPECT_EQ(M.resolveImport("jit"), "");
  EXPECT_EQ(M.getImports().size(), 2u);
  EXPECT_EQ(M.getFile().getName(), "m.py");
}

TEST(ASTTest, EveryNodeCarriesItsFileAndPosition) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  const SourceFile &File = SM.addBuffer("import triton\n"
                                        "@triton.jit\n"
                                        "def k(p, n: int = 4):\n"
                                        "    for i in range(n):\n"
                                        "        tl.store(p + i, i)\n",
                                        "where.py");
  std::unique_ptr<Module> M = parseModule(File, Diags);
  ASSERT_EQ(M->getFunctions().size(), 1u);
  const FunctionDef *F = M->getFunctions()[0];
  auto Check = [&](SourceLocation Loc, unsigned Line, unsigned Column) {
    EXPECT_EQ(Loc.File, &File);
    EXPECT_EQ(Loc.Line, Line);
    EXPECT_EQ(Loc.Column, Column);
    SourceLocation Scanned = File.getLocation(Loc.Offset);
    EXPECT_EQ(Scanned.Line, Line);
    EXPECT_EQ(Scanned.Column, Column);
  };
  Check(F->getLoc(), 3, 1);
  Check(F->getNameLoc(), 3, 5);
  Check(F->getParams()[1].Loc, 3, 10);
  Check(F->getParams()[1].Annotation->getLoc(), 3, 13);
  Check(F->getParams()[1].Default->getLoc(), 3, 19);
  Check(F->getDecorators()[0].Loc, 2, 1);
  Check(F->getDecorators()[0].Expression->getLoc(), 2, 2);
  auto *For = llvm::cast<ForStmt>(F->getBody()[0]);
  Check(For->getLoc(), 4, 5);
  Check(For->getTarget()->getLoc(), 4, 9);
  Check(For->getIter()->getLoc(), 4, 14);
  auto *Store = llvm::cast<CallExpr>(llvm::cast<ExprStmt>(For->getBody()[0])->getValue());
  Check(Store->getLoc(), 5, 9);
  auto *Add = llvm::cast<BinaryExpr>(Store->getArgs()[0]);
  Check(Add->getLoc(), 5, 18);
  Check(Add->getOpLoc(), 5, 20);
  Check(M->getImports()[0]->getLoc(), 1, 1);
}

} // namespace
