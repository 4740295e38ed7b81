//===- CorpusTest.cpp - realistic Triton kernel files ---------------------===//
//
// tests/frontend/corpus holds Triton 3.x programs written as in Triton's
// tutorials, host code (torch, benchmarks, autograd classes, __main__
// blocks) included. Each must parse without a diagnostic, with exactly the
// expected jit functions found. (Other files there, such as kernels.txt,
// belong to other tests.)
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace tegula::frontend;

namespace {

using Names = std::vector<std::string>;

struct CorpusFile {
  const char *Name;
  std::vector<std::string> Kernels;
};

const CorpusFile Corpus[] = {
    {"vector_add.py", {"add_kernel"}},
    {"softmax.py", {"softmax_kernel", "online_softmax_kernel"}},
    {"layer_norm.py",
     {"_layer_norm_fwd_fused", "_layer_norm_bwd_dx_fused", "_layer_norm_bwd_dwdb"}},
    {"matmul.py", {"matmul_kernel", "leaky_relu"}},
    {"flash_attention.py", {"_attn_fwd_inner", "_attn_fwd"}},
    {"dropout.py", {"_dropout", "_seeded_dropout", "_seeded_dropout_rows"}},
    {"cumsum_argmax_histogram.py",
     {"_add_combine", "_max_with_index", "cumsum_kernel", "scan_kernel", "argmax_kernel",
      "histogram_kernel", "softmax_via_scan_kernel"}},
    {"atomics.py",
     {"sum_kernel", "minmax_kernel", "_acquire", "_release", "locked_accumulate_kernel",
      "ticket_kernel"}},
};

class CorpusTest : public ::testing::Test {
protected:
  Module &load(llvm::StringRef Name) {
    llvm::SmallString<256> Path(TEGULA_FRONTEND_CORPUS_DIR);
    llvm::sys::path::append(Path, Name);
    std::string Error;
    const SourceFile *File = SM.addFile(Path, Error);
    EXPECT_NE(File, nullptr) << Error;
    if (!File)
      File = &SM.addBuffer("", Name);
    Modules.push_back(parseModule(*File, Diags));
    return *Modules.back();
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
  std::vector<std::unique_ptr<Module>> Modules;
};

TEST_F(CorpusTest, EveryFileParsesWithItsKernels) {
  for (const CorpusFile &C : Corpus) {
    Diags.clear();
    Module &M = load(C.Name);
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    Diags.printAll(OS);
    EXPECT_EQ(Errors, "") << C.Name;
    Names Found;
    for (const FunctionDef *F : M.getFunctions())
      Found.push_back(F->getName().str());
    EXPECT_EQ(Found, C.Kernels) << C.Name;
    EXPECT_EQ(M.resolveImport("tl"), "triton.language") << C.Name;
    EXPECT_FALSE(dumpToString(M).empty());
  }
}

TEST_F(CorpusTest, TheCorpusIsExactlyTheseFiles) {
  Names OnDisk, Listed;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(TEGULA_FRONTEND_CORPUS_DIR, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".py")
      OnDisk.push_back(llvm::sys::path::filename(It->path()).str());
  for (const CorpusFile &C : Corpus)
    Listed.push_back(C.Name);
  std::sort(OnDisk.begin(), OnDisk.end());
  std::sort(Listed.begin(), Listed.end());
  EXPECT_EQ(OnDisk, Listed) << "list new corpus .py files in this test";
}

TEST_F(CorpusTest, MatmulKernel) {
  Module &M = load("matmul.py");
  const FunctionDef *F = M.lookupFunction("matmul_kernel");
  ASSERT_NE(F, nullptr);
  ASSERT_EQ(F->getDecorators().size(), 2u);
  EXPECT_EQ(F->getDecorators()[0].Name, "triton.autotune");
  EXPECT_TRUE(F->getDecorators()[1].IsJit);
  EXPECT_EQ(F->getParams().size(), 17u);
  unsigned Constexprs = 0;
  for (const Param &P : F->getParams())
    Constexprs += P.Annotation && dumpToString(P.Annotation) == "(. tl constexpr)";
  EXPECT_EQ(Constexprs, 5u);
  EXPECT_TRUE(F->hasDocstring());
  EXPECT_TRUE(F->getDocstring().starts_with("Kernel for computing the matmul C = A x B."));
  // The grouped ordering, as written.
  std::string Body;
  for (const Stmt *S : F->getBody())
    Body += dumpToString(S);
  EXPECT_NE(Body.find("(assign pid_m (+ first_pid_m (% (% pid num_pid_in_group) group_size_m)))"),
            std::string::npos);
  EXPECT_NE(Body.find("(assign pid_n (// (% pid num_pid_in_group) group_size_m))"),
            std::string::npos);
  EXPECT_NE(Body.find("(assign c_mask (& (compare (subscript offs_cm (tuple (slice _ _ _) None)) < M) "
                      "(compare (subscript offs_cn (tuple None (slice _ _ _))) < N)))"),
            std::string::npos);
  EXPECT_NE(Body.find("(if (compare ACTIVATION == (str \"leaky_relu\"))"), std::string::npos);

  const FunctionDef *Relu = M.lookupFunction("leaky_relu");
  ASSERT_NE(Relu, nullptr);
  EXPECT_EQ(dumpToString(Relu),
            "(def leaky_relu\n"
            "  (decorator (. triton jit))\n"
            "  (param x)\n"
            "  (body\n"
            "    (return (call (. tl where) (compare x >= (int 0)) x (* (float 0.01) x)))))\n");
}

TEST_F(CorpusTest, FlashAttentionStages) {
  Module &M = load("flash_attention.py");
  const FunctionDef *Inner = M.lookupFunction("_attn_fwd_inner");
  ASSERT_NE(Inner, nullptr);
  auto *Stage = llvm::dyn_cast<IfStmt>(Inner->getBody()[0]);
  ASSERT_NE(Stage, nullptr);
  EXPECT_EQ(Stage->getBranches().size(), 2u) << "if STAGE == 1 / elif STAGE == 2";
  EXPECT_TRUE(Stage->hasElse());
  auto *Loop = llvm::dyn_cast<ForStmt>(Inner->getBody()[3]);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(dumpToString(Loop->getIter()), "(call range lo hi BLOCK_N)");
  auto *Ret = llvm::dyn_cast<ReturnStmt>(Inner->getBody().back());
  ASSERT_NE(Ret, nullptr);
  EXPECT_EQ(dumpToString(Ret->getValue()), "(tuple acc l_i m_i)");

  const FunctionDef *Fwd = M.lookupFunction("_attn_fwd");
  ASSERT_NE(Fwd, nullptr);
  EXPECT_EQ(Fwd->getParams().back().Name, "STAGE");
  std::string Body;
  for (const Stmt *S : Fwd->getBody())
    Body += dumpToString(S);
  EXPECT_NE(Body.find("(ann-assign v_order (. tl constexpr) (ifexp (compare (. (. V dtype) "
                      "element_ty) == (. tl float8e5)) (tuple (int 0) (int 1)) (tuple (int 1) "
                      "(int 0))))"),
            std::string::npos);
  EXPECT_NE(Body.find("(if (& STAGE (int 1))"), std::string::npos);
}

TEST_F(CorpusTest, LayerNormLockLoopAndGlobals) {
  Module &M = load("layer_norm.py");
  const FunctionDef *Bwd = M.lookupFunction("_layer_norm_bwd_dx_fused");
  ASSERT_NE(Bwd, nullptr);
  std::string Body;
  for (const Stmt *S : Bwd->getBody())
    Body += dumpToString(S);
  EXPECT_NE(Body.find("(while (compare (call (. tl atomic_cas) Lock (int 0) (int 1)) == (int 1))\n"
                      "  (body\n"
                      "    (pass)))"),
            std::string::npos);
  EXPECT_NE(Body.find("(aug-assign += Lock lock_id)"), std::string::npos);
  // HAS_APEX is set in the try body and in the except clause: the try
  // body's binding (Triton's usual path) is the one kept.
  const GlobalConstant *HasApex = M.lookupGlobal("HAS_APEX");
  ASSERT_NE(HasApex, nullptr);
  EXPECT_EQ(dumpToString(HasApex->Value), "True");
  EXPECT_EQ(M.getGlobals().size(), 1u);
}

TEST_F(CorpusTest, ConstexprGlobalsAndAliases) {
  Module &M = load("cumsum_argmax_histogram.py");
  EXPECT_EQ(M.resolveImport("tlang"), "triton.language");
  const GlobalConstant *Bins = M.lookupGlobal("NUM_BINS");
  ASSERT_NE(Bins, nullptr);
  EXPECT_TRUE(Bins->IsConstexpr);
  const GlobalConstant *Rows = M.lookupGlobal("ROWS_PER_PROGRAM");
  ASSERT_NE(Rows, nullptr);
  EXPECT_TRUE(Rows->IsConstexpr);
  const GlobalConstant *Log2E = M.lookupGlobal("LOG2_E");
  ASSERT_NE(Log2E, nullptr);
  EXPECT_FALSE(Log2E->IsConstexpr);
  EXPECT_EQ(llvm::cast<FloatLiteralExpr>(Log2E->Value)->getValue(), 1.4426950408889634);
  EXPECT_EQ(M.lookupGlobal("DEVICE"), nullptr);

  Module &Atomics = load("atomics.py");
  const FunctionDef *Locked = Atomics.lookupFunction("locked_accumulate_kernel");
  ASSERT_NE(Locked, nullptr);
  EXPECT_EQ(dumpToString(Locked->getJitDecorator()->Expression),
            "(call (. triton jit) (kw noinline True))");
  EXPECT_NE(Atomics.lookupGlobal("LOCKED"), nullptr);
}

} // namespace
