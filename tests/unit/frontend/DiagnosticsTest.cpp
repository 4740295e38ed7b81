//===- DiagnosticsTest.cpp - located messages and their rendering ---------===//
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace tegula::frontend;

namespace {

class DiagnosticsTest : public ::testing::Test {
protected:
  /// Parses |Source| as a module named |Name| and renders every diagnostic.
  std::string renderModule(llvm::StringRef Source, llvm::StringRef Name = "file.py") {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, Name);
    parseModule(File, Diags);
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    Diags.printAll(OS);
    return Out;
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
};

TEST_F(DiagnosticsTest, RendersFileLineColumnSourceAndCaret) {
  EXPECT_EQ(renderModule("import triton\n"
                         "@triton.jit\n"
                         "def k(x):\n"
                         "    y = tl.map(lambda v: v, x)\n"),
            "file.py:4:16: error: lambda expressions are not supported in kernels\n"
            "    y = tl.map(lambda v: v, x)\n"
            "               ^\n");
}

TEST_F(DiagnosticsTest, EveryErrorIsRenderedInSourceOrder) {
  EXPECT_EQ(renderModule("@jit\ndef a():\n    with x:\n        pass\n    try: pass\n"
                         "@jit\ndef b(): return {}\n"
                         "host = $\n",
                         "multi.py"),
            "multi.py:5:5: error: 'try' statements are not supported in kernels\n"
            "    try: pass\n"
            "    ^\n"
            "multi.py:7:17: error: dict and set literals are not supported in kernels\n"
            "def b(): return {}\n"
            "                ^\n"
            "multi.py:8:8: error: invalid character '$' (U+0024)\n"
            "host = $\n"
            "       ^\n");
  EXPECT_EQ(Diags.getNumErrors(), 3u);
}

TEST_F(DiagnosticsTest, TabsAreExpandedUnderTheCaret) {
  EXPECT_EQ(renderModule("@jit\ndef k():\n\tx = (y := 1)\n"),
            "file.py:3:9: error: assignment expressions (':=') are not supported in kernels\n"
            "        x = (y := 1)\n"
            "               ^\n");
}

TEST_F(DiagnosticsTest, CaretUnderLinesWithWideCharacters) {
  // SMDiagnostic prints no caret for non-ASCII lines; the engine adds one
  // at the display column (é is one column wide, 中 two).
  EXPECT_EQ(renderModule("@jit\ndef k(x):\n    y = \"\xC3\xA9\xE4\xB8\xAD\" + (lambda: 0)\n"),
            "file.py:3:20: error: lambda expressions are not supported in kernels\n"
            "    y = \"\xC3\xA9\xE4\xB8\xAD\" + (lambda: 0)\n"
            "                 ^\n");
}

TEST_F(DiagnosticsTest, InvalidBytesShowAsQuestionMarks) {
  EXPECT_EQ(renderModule("x = 'a\xFF'\n"),
            "file.py:1:7: error: invalid UTF-8 byte 0xff\n"
            "x = 'a?'\n"
            "      ^\n");
  EXPECT_EQ(renderModule(std::string("x = 1 \0 2\n", 10)),
            "file.py:1:7: error: source code cannot contain null bytes\n"
            "x = 1 ? 2\n"
            "      ^\n");
}

TEST_F(DiagnosticsTest, ErrorsAtTheEndOfTheFile) {
  EXPECT_EQ(renderModule("@jit\ndef k():\n"),
            "file.py:3:1: error: expected an indented block after function definition on line 2\n"
            "\n"
            "^\n");
  EXPECT_EQ(renderModule("x = (1,\n  2"),
            "file.py:1:5: error: '(' was never closed\n"
            "x = (1,\n"
            "    ^\n");
}

TEST_F(DiagnosticsTest, LineTextStopsAtAnyLineTerminator) {
  EXPECT_EQ(renderModule("a = 1\r\n@jit\r\ndef k(): return $\r\nb = 2\r\n"),
            "file.py:3:17: error: invalid character '$' (U+0024)\n"
            "def k(): return $\n"
            "                ^\n");
  EXPECT_EQ(renderModule("a = 1\r@jit\rdef k(): yield\rb = 2\r"),
            "file.py:3:10: error: 'yield' expressions are not supported in kernels\n"
            "def k(): yield\n"
            "         ^\n");
}

TEST_F(DiagnosticsTest, SeveritiesAndLocationlessDiagnostics) {
  const SourceFile &File = SM.addBuffer("abc\n", "sev.py");
  SourceLocation Loc = File.getLocation(1);
  Diags.warning(Loc, "a warning");
  Diags.note(Loc, "a note");
  Diags.error(SourceLocation(), "no location");
  ASSERT_EQ(Diags.getDiagnostics().size(), 3u);
  EXPECT_EQ(Diags.getNumErrors(), 1u);
  EXPECT_EQ(Diags.render(Diags.getDiagnostics()[0]), "sev.py:1:2: warning: a warning\nabc\n ^\n");
  EXPECT_EQ(Diags.render(Diags.getDiagnostics()[1]), "sev.py:1:2: note: a note\nabc\n ^\n");
  EXPECT_EQ(Diags.render(Diags.getDiagnostics()[2]), "error: no location\n");
  EXPECT_EQ(Diags.getDiagnostics()[0].Severity, DiagSeverity::Warning);
}

TEST_F(DiagnosticsTest, ClearAndStorageLimit) {
  const SourceFile &File = SM.addBuffer("x\n", "lim.py");
  Diags.setStorageLimit(2);
  for (int I = 0; I < 5; ++I)
    Diags.error(File.getLocation(0), "error " + llvm::Twine(I));
  EXPECT_EQ(Diags.getNumErrors(), 5u);
  ASSERT_EQ(Diags.getDiagnostics().size(), 2u);
  EXPECT_EQ(Diags.getDiagnostics()[1].Message, "error 1");
  Diags.clear();
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_TRUE(Diags.getDiagnostics().empty());
}

TEST_F(DiagnosticsTest, EchoStreamPrintsAsReported) {
  std::string Echoed;
  llvm::raw_string_ostream OS(Echoed);
  Diags.setEchoStream(&OS);
  renderModule("@jit\ndef k(): del x\n", "echo.py");
  EXPECT_EQ(Echoed, "echo.py:2:10: error: 'del' statements are not supported in kernels\n"
                    "def k(): del x\n"
                    "         ^\n");
}

TEST_F(DiagnosticsTest, SourceFileLocations) {
  const SourceFile &File = SM.addBuffer("ab\r\ncd\ref\n\ngh", "locs.py");
  auto Where = [&](uint32_t Offset) {
    SourceLocation L = File.getLocation(Offset);
    return std::to_string(L.Line) + ":" + std::to_string(L.Column) + " '" +
           File.getLineText(L).str() + "'";
  };
  EXPECT_EQ(Where(0), "1:1 'ab'");
  EXPECT_EQ(Where(2), "1:3 'ab'") << "the '\\r' of a CRLF";
  EXPECT_EQ(Where(3), "1:4 'ab'") << "the '\\n' of a CRLF";
  EXPECT_EQ(Where(4), "2:1 'cd'");
  EXPECT_EQ(Where(7), "3:1 'ef'");
  EXPECT_EQ(Where(10), "4:1 ''");
  EXPECT_EQ(Where(12), "5:2 'gh'");
  EXPECT_EQ(Where(13), "5:3 'gh'") << "the end of the file";
  EXPECT_EQ(Where(1000), "5:3 'gh'") << "clamped";
  EXPECT_EQ(File.getLocation(4).Offset, 4u);
  EXPECT_EQ(File.getLocation(4).File, &File);

  const SourceFile &Bom = SM.addBuffer("\xEF\xBB\xBFxy", "bom.py");
  EXPECT_EQ(Bom.getLocation(3).Column, 1u) << "line 1 starts after the byte order mark";
  EXPECT_EQ(Bom.getLocation(0).Column, 1u);
}

TEST_F(DiagnosticsTest, ReadingFiles) {
  std::string Error;
  EXPECT_EQ(SM.addFile("/nonexistent/dir/kernel.py", Error), nullptr);
  EXPECT_EQ(Error.rfind("cannot read '/nonexistent/dir/kernel.py': ", 0), 0u) << Error;

  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("tegula-frontend", "py", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "@jit\ndef k(): pass\n";
  }
  const SourceFile *File = SM.addFile(Path, Error);
  ASSERT_NE(File, nullptr) << Error;
  EXPECT_EQ(File->getName(), Path.str());
  EXPECT_EQ(File->getText(), "@jit\ndef k(): pass\n");
  EXPECT_EQ(parseModule(*File, Diags)->getFunctions().size(), 1u);
  llvm::sys::fs::remove(Path);
}

} // namespace
