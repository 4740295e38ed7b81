//===- RobustnessTest.cpp - hostile input: nesting, size, random bytes ----===//
//
// No input may crash the front end, hang it, recurse without bound or make
// it claim unbounded memory. Each test feeds one kind of hostile input and
// checks for a clean, located error (or none), quickly.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <chrono>
#include <random>

using namespace tegula::frontend;

namespace {

class RobustnessTest : public ::testing::Test {
protected:
  /// Parses |Source| with all three entry points, checks every diagnostic
  /// (see checkDiagnostics) and returns the module's.
  std::vector<std::string> parseAll(const std::string &Source) {
    std::vector<std::string> ModuleErrors;
    for (int Mode = 0; Mode < 3; ++Mode) {
      Diags.clear();
      const SourceFile &File = SM.addBuffer(Source, "fuzz.py");
      ASTContext Ctx;
      if (Mode == 0) {
        std::unique_ptr<Module> M = parseModule(File, Diags);
        (void)dumpToString(*M); // Walks every node.
      } else if (Mode == 1) {
        if (Expr *E = parseExpression(File, Ctx, Diags))
          (void)dumpToString(E);
      } else {
        llvm::SmallVector<Stmt *, 8> Stmts;
        parseStatements(File, Ctx, Diags, Stmts);
        for (Stmt *S : Stmts)
          (void)dumpToString(S);
      }
      std::vector<std::string> Errors = checkDiagnostics(File);
      if (Mode == 0)
        ModuleErrors = Errors;
    }
    return ModuleErrors;
  }

  /// Every diagnostic must point into the file, at the line and column that
  /// an independent scan gives for its offset, and render without trouble.
  std::vector<std::string> checkDiagnostics(const SourceFile &File) {
    std::vector<std::string> Out;
    for (const Diagnostic &D : Diags.getDiagnostics()) {
      EXPECT_TRUE(D.Loc.isValid()) << D.Message;
      if (!D.Loc.isValid())
        continue;
      EXPECT_EQ(D.Loc.File, &File);
      EXPECT_LE(D.Loc.Offset, File.getText().size());
      SourceLocation Scanned = File.getLocation(D.Loc.Offset);
      EXPECT_EQ(D.Loc.Line, Scanned.Line) << D.Message;
      EXPECT_EQ(D.Loc.Column, Scanned.Column) << D.Message;
      std::string Rendered = Diags.render(D);
      std::string Prefix = "fuzz.py:" + std::to_string(D.Loc.Line) + ":" +
                           std::to_string(D.Loc.Column) + ": error: ";
      EXPECT_EQ(Rendered.rfind(Prefix, 0), 0u) << Rendered;
      Out.push_back(std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) + ": " +
                    D.Message);
    }
    return Out;
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
};

using Names = std::vector<std::string>;

/// Fails the test if |Fn| takes longer than |Seconds|.
template <typename Fn> void expectFast(double Seconds, Fn &&F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  std::chrono::duration<double> Elapsed = std::chrono::steady_clock::now() - Start;
  EXPECT_LT(Elapsed.count(), Seconds);
}

TEST_F(RobustnessTest, HundredThousandOpenParentheses) {
  expectFast(2.0, [&] {
    EXPECT_EQ(parseAll("x = " + std::string(100000, '(')), Names{"1:205: too deeply nested"});
    EXPECT_EQ(parseAll(std::string(100000, '[')), Names{"1:201: too deeply nested"});
    EXPECT_EQ(parseAll("@jit\ndef k():\n    return " + std::string(100000, '(')),
              Names{"3:212: too deeply nested"});
    // The parser stops at the first brace; the lexer still finds the file
    // invalid when it skips to the next top-level statement.
    EXPECT_EQ(parseAll("@jit\ndef k():\n    return " + std::string(100000, '{')),
              (Names{"3:12: dict and set literals are not supported in kernels",
                     "3:212: too deeply nested"}));
  });
}

TEST_F(RobustnessTest, LongPrefixOperatorChains) {
  // Nested by recursion, not brackets: the parser's own depth limit.
  std::string Kernel = "@jit\ndef k(x):\n    return ";
  expectFast(2.0, [&] {
    for (std::string Op : {"-", "+", "~", "not "}) {
      std::string Chain;
      for (int I = 0; I < 100000; ++I)
        Chain += Op;
      std::vector<std::string> Errors = parseAll(Kernel + Chain + "x\n");
      ASSERT_EQ(Errors.size(), 1u) << Op;
      EXPECT_NE(Errors[0].find(": too deeply nested"), std::string::npos) << Errors[0];
    }
  });
}

TEST_F(RobustnessTest, LongRightNestedChains) {
  std::string Power = "x", Ternary;
  for (int I = 0; I < 100000; ++I) {
    Power += "**x";
    Ternary += "a if b else ";
  }
  expectFast(2.0, [&] {
    EXPECT_EQ(parseAll("@jit\ndef k(x):\n    return " + Power + "\n").size(), 1u);
    EXPECT_EQ(parseAll("@jit\ndef k(x):\n    return " + Ternary + "c\n").size(), 1u);
  });
}

TEST_F(RobustnessTest, LongLeftNestedChainsBoundTheTreeHeight) {
  // Built by loops in the parser, but they still make tall trees, which
  // later recursive walks would have to descend.
  auto Chain = [](unsigned Terms, llvm::StringRef Link) {
    std::string S = "x";
    for (unsigned I = 1; I < Terms; ++I)
      S += Link.str();
    return S;
  };
  expectFast(3.0, [&] {
    for (llvm::StringRef Link : {"+x", ".a", "()", "[0]", " - x * x"}) {
      std::vector<std::string> Errors =
          parseAll("@jit\ndef k(x):\n    return " + Chain(200000, Link) + "\n");
      ASSERT_EQ(Errors.size(), 1u) << Link.str();
      EXPECT_NE(Errors[0].find(": too deeply nested"), std::string::npos) << Errors[0];
    }
  });
  // Exactly at the limit is fine.
  Diags.clear();
  ASTContext Ctx;
  const SourceFile &File = SM.addBuffer(Chain(kMaxExprDepth, "+x") + "\n", "edge.py");
  Expr *E = parseExpression(File, Ctx, Diags);
  ASSERT_NE(E, nullptr);
  EXPECT_EQ(E->getDepth(), kMaxExprDepth);
  const SourceFile &Over = SM.addBuffer(Chain(kMaxExprDepth + 1, "+x") + "\n", "over.py");
  EXPECT_EQ(parseExpression(Over, Ctx, Diags), nullptr);
}

TEST_F(RobustnessTest, DeeplyNestedBlocks) {
  auto Nested = [](unsigned Depth) {
    std::string S = "@jit\ndef k(x):\n";
    for (unsigned I = 1; I <= Depth; ++I)
      S += std::string(I, ' ') + "if x:\n";
    return S + std::string(Depth + 1, ' ') + "pass\n";
  };
  // Fine well below the limit.
  EXPECT_EQ(parseAll(Nested(150)), Names{});
  expectFast(2.0, [&] {
    // Line 2 + I holds the I-th `if`, indented by I spaces: 200 levels of
    // indentation are allowed, so line 203 is the first too deep.
    EXPECT_EQ(parseAll(Nested(1000)),
              Names{std::to_string(3 + kMaxNestingDepth) + ":" +
                    std::to_string(2 + kMaxNestingDepth) + ": too deeply nested"});
  });
  // Blocks, brackets and unary operators together, each within its own
  // limit: the parser's limit on its recursion.
  std::string Expr = "1";
  for (int I = 0; I < 150; ++I)
    Expr = "-(" + Expr + ")";
  std::string Mixed = Nested(120);
  Mixed.insert(Mixed.rfind("pass"), "x = " + Expr + "\n" + std::string(121, ' '));
  std::vector<std::string> Errors = parseAll(Mixed);
  ASSERT_EQ(Errors.size(), 1u) << ::testing::PrintToString(Errors);
  EXPECT_NE(Errors[0].find(": too deeply nested"), std::string::npos) << Errors[0];
}

TEST_F(RobustnessTest, HugeLiterals) {
  std::string Digits(100000, '7');
  Diags.clear();
  ASTContext Ctx;
  const SourceFile &File = SM.addBuffer(Digits + "\n", "big.py");
  expectFast(1.0, [&] {
    auto *Int = llvm::dyn_cast_or_null<IntLiteralExpr>(parseExpression(File, Ctx, Diags));
    ASSERT_NE(Int, nullptr);
    EXPECT_TRUE(Int->isTooLarge());
    EXPECT_EQ(Int->getSpelling(), Digits);
  });
  expectFast(1.0, [&] {
    const SourceFile &F = SM.addBuffer("0." + std::string(1000000, '3') + "e5\n", "float.py");
    auto *Flt = llvm::dyn_cast_or_null<FloatLiteralExpr>(parseExpression(F, Ctx, Diags));
    ASSERT_NE(Flt, nullptr);
    EXPECT_DOUBLE_EQ(Flt->getValue(), 33333.333333333336);
  });
  expectFast(1.0, [&] {
    const SourceFile &F =
        SM.addBuffer("'" + std::string(1000000, 'a') + "' '''b'''\n", "string.py");
    auto *Str = llvm::dyn_cast_or_null<StringLiteralExpr>(parseExpression(F, Ctx, Diags));
    ASSERT_NE(Str, nullptr);
    EXPECT_EQ(Str->getValue().size(), 1000001u);
  });
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(RobustnessTest, FileSizeLimit) {
  std::string Big = "# " + std::string(kMaxSourceSize, 'x') + "\n";
  EXPECT_EQ(parseAll(Big), Names{"1:1: file is too large (" + std::to_string(Big.size()) +
                                 " bytes; the limit is " + std::to_string(kMaxSourceSize) +
                                 ")"});
}

TEST_F(RobustnessTest, ManyBrokenKernels) {
  std::string Source;
  for (int I = 0; I < 3000; ++I)
    Source += "@jit\ndef k" + std::to_string(I) +
              (I % 2 ? "(x):\n    return lambda: x\n" : "(x):\n    return '\\x'\n");
  expectFast(2.0, [&] {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, "many.py");
    std::unique_ptr<Module> M = parseModule(File, Diags);
    EXPECT_EQ(Diags.getNumErrors(), 3000u);
    EXPECT_EQ(Diags.getDiagnostics().size(), 1000u) << "the default storage limit";
    EXPECT_TRUE(M->getFunctions().empty());
  });
}

TEST_F(RobustnessTest, MalformedText) {
  EXPECT_EQ(parseAll("@jit\ndef k():\n    x = 1\n    y = '\xE9t\xE9'\n"),
            Names{"4:10: invalid UTF-8 byte 0xe9"});
  static const char WithNul[] = "@jit\ndef k():\n    x = 1\0\n";
  EXPECT_EQ(parseAll(std::string(WithNul, sizeof(WithNul) - 1)),
            Names{"3:10: source code cannot contain null bytes"});
  EXPECT_EQ(parseAll("@jit\ndef k():\n    x = 1\n\ty = 2\n"),
            Names{"4:2: inconsistent use of tabs and spaces in indentation"});
  EXPECT_EQ(parseAll("@jit\ndef k():\n    '''docstring\n    x = 1\n"),
            Names{"3:5: unterminated triple-quoted string literal (detected at line 4)"});
  EXPECT_EQ(parseAll("@jit\ndef k():\n    if x:\n            y\n      z\n"),
            Names{"5:7: unindent does not match any outer indentation level"});
}

/// Random bytes, biased towards what Python source is made of.
std::string randomBytes(std::mt19937 &Rng, size_t MaxLength) {
  static const char Alphabet[] = "abcxyz_019 \t\n\n\n\r()[]{}:,.;=+-*/%@&|^~<>!'\"#\\";
  std::uniform_int_distribution<size_t> Length(0, MaxLength);
  std::uniform_int_distribution<int> Pick(0, 99);
  std::uniform_int_distribution<int> Byte(0, 255);
  std::uniform_int_distribution<size_t> Char(0, sizeof(Alphabet) - 2);
  std::string S(Length(Rng), ' ');
  for (char &C : S)
    C = Pick(Rng) < 90 ? Alphabet[Char(Rng)] : static_cast<char>(Byte(Rng));
  return S;
}

TEST_F(RobustnessTest, RandomBytes) {
  std::mt19937 Rng(20261130);
  expectFast(20.0, [&] {
    for (int I = 0; I < 3000; ++I)
      parseAll(randomBytes(Rng, 300));
  });
}

/// Random sequences of Python tokens, with newlines and indentation, inside a
/// kernel so that the kernel parser (not the skipper) sees them.
std::string randomTokens(std::mt19937 &Rng, unsigned Count) {
  static const char *const Pieces[] = {
      "x", "tl", ".", "load", "(", ")", "[", "]", ",", ":", "=", "+", "-", "*", "**", "//",
      "<", "<=", "==", "is", "not", "in", "and", "or", "if", "else", "elif", "for", "while",
      "return", "pass", "break", "lambda", "def", "@", "None", "True", "1", "0x1f", "1.5e3",
      "'s'", "\"\"\"t\"\"\"", "...", "+=", ">>=", "with", "as", "assert", "{", "}", ";",
      "\n", "\n    ", "\n        ", "\n  ", "*", "yield", ":=", "import", "class", "try"};
  std::uniform_int_distribution<size_t> Pick(0, std::size(Pieces) - 1);
  std::string S = "@jit\ndef k(x):\n    ";
  for (unsigned I = 0; I < Count; ++I) {
    S += Pieces[Pick(Rng)];
    S += ' ';
  }
  return S + "\n";
}

TEST_F(RobustnessTest, RandomTokenSoup) {
  std::mt19937 Rng(7);
  expectFast(20.0, [&] {
    for (int I = 0; I < 3000; ++I)
      parseAll(randomTokens(Rng, 1 + I % 60));
  });
}

TEST_F(RobustnessTest, MutatedCorpusFiles) {
  std::error_code EC;
  std::mt19937 Rng(1234);
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(TEGULA_FRONTEND_CORPUS_DIR, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) != ".py")
      continue;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(It->path());
    ASSERT_TRUE(Buffer) << It->path();
    std::string Text = (*Buffer)->getBuffer().str();
    ++Files;
    // Every truncation point (in steps), then random edits.
    for (size_t Cut = 0; Cut < Text.size(); Cut += 97)
      parseAll(Text.substr(0, Cut));
    for (int I = 0; I < 60; ++I) {
      std::string Mutated = Text;
      std::uniform_int_distribution<size_t> At(0, Mutated.size() - 1);
      for (int Edit = 0; Edit < 4; ++Edit) {
        size_t P = At(Rng) % Mutated.size();
        switch (Rng() % 4) {
        case 0:
          Mutated.erase(P, Rng() % 40);
          break;
        case 1:
          Mutated.insert(P, randomBytes(Rng, 8));
          break;
        case 2:
          Mutated.insert(P, Mutated.substr(At(Rng) % Mutated.size(), Rng() % 80));
          break;
        default:
          Mutated[P] = static_cast<char>(Rng());
          break;
        }
        if (Mutated.empty())
          Mutated = "x";
      }
      parseAll(Mutated);
    }
  }
  EXPECT_GE(Files, 8u);
}

} // namespace
