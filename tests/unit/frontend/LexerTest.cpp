//===- LexerTest.cpp - tokens, layout, literals and lexical errors --------===//
#include "tegula/Frontend/Lexer.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace tegula::frontend;

namespace {

/// Lexes a buffer and renders the tokens compactly: identifiers and
/// keywords as written, literals as kind:spelling, layout tokens in capitals.
class LexerTest : public ::testing::Test {
protected:
  std::vector<Token> lex(llvm::StringRef Source) {
    const SourceFile &File = SM.addBuffer(Source, "lex.py");
    return Lexer::tokenize(File, Diags);
  }

  std::string kinds(llvm::StringRef Source) {
    std::string Out;
    for (const Token &T : lex(Source)) {
      if (!Out.empty())
        Out += ' ';
      switch (T.Kind) {
      case TokenKind::EndOfFile: Out += "EOF"; break;
      case TokenKind::Error: Out += "ERROR"; break;
      case TokenKind::Newline: Out += "NL"; break;
      case TokenKind::Indent: Out += "INDENT"; break;
      case TokenKind::Dedent: Out += "DEDENT"; break;
      case TokenKind::Integer: Out += "int:" + T.getText().str(); break;
      case TokenKind::Float: Out += "float:" + T.getText().str(); break;
      case TokenKind::Imaginary: Out += "imag:" + T.getText().str(); break;
      case TokenKind::String: Out += "str:" + T.getText().str(); break;
      default: Out += T.getText().str(); break;
      }
    }
    return Out;
  }

  /// "line:col: message" of the only diagnostic, after checking that the
  /// stream ends with Error, EndOfFile.
  std::string lexError(llvm::StringRef Source) {
    Diags.clear();
    std::vector<Token> Tokens = lex(Source);
    EXPECT_GE(Tokens.size(), 2u);
    EXPECT_TRUE(Tokens.back().is(TokenKind::EndOfFile));
    EXPECT_TRUE(Tokens[Tokens.size() - 2].is(TokenKind::Error));
    if (Diags.getDiagnostics().size() != 1)
      return "expected one diagnostic, got " +
             std::to_string(Diags.getDiagnostics().size());
    const Diagnostic &D = Diags.getDiagnostics()[0];
    return std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) + ": " +
           D.Message;
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
};

TEST_F(LexerTest, SimpleStatement) {
  EXPECT_EQ(kinds("x = a + 1\n"), "x = a + int:1 NL EOF");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, EmptyAndBlankFiles) {
  EXPECT_EQ(kinds(""), "EOF");
  EXPECT_EQ(kinds("\n\n   \n# only a comment\n"), "EOF");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, NewlineAtEndOfFileWithoutTerminator) {
  EXPECT_EQ(kinds("pass"), "pass NL EOF");
  EXPECT_EQ(kinds("if x:\n    y"), "if x : NL INDENT y NL DEDENT EOF");
}

TEST_F(LexerTest, OperatorsUseLongestMatch) {
  EXPECT_EQ(kinds("a **= b //= c >>= d <<= e\n"), "a **= b //= c >>= d <<= e NL EOF");
  EXPECT_EQ(kinds("** // << >> <= >= == != -> := ...\n"),
            "** // << >> <= >= == != -> := ... NL EOF");
  EXPECT_EQ(kinds("+= -= *= /= %= @= &= |= ^=\n"), "+= -= *= /= %= @= &= |= ^= NL EOF");
  EXPECT_EQ(kinds("+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . =\n"),
            "+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . = NL EOF");
  EXPECT_EQ(kinds("a.b\n"), "a . b NL EOF");
}

TEST_F(LexerTest, KeywordsAndSoftKeywords) {
  std::vector<Token> Tokens = lex("def match case _ lambda None True not in is\n");
  ASSERT_EQ(Tokens.size(), 12u);
  EXPECT_TRUE(Tokens[0].is(TokenKind::kw_def));
  EXPECT_TRUE(Tokens[1].is(TokenKind::Identifier)); // match
  EXPECT_TRUE(Tokens[2].is(TokenKind::Identifier)); // case
  EXPECT_TRUE(Tokens[3].is(TokenKind::Identifier)); // _
  EXPECT_TRUE(Tokens[4].is(TokenKind::kw_lambda));
  EXPECT_TRUE(Tokens[5].is(TokenKind::kw_None));
  EXPECT_TRUE(Tokens[6].is(TokenKind::kw_True));
  EXPECT_TRUE(Tokens[7].is(TokenKind::kw_not));
  EXPECT_TRUE(Tokens[8].is(TokenKind::kw_in));
  EXPECT_TRUE(Tokens[9].is(TokenKind::kw_is));
  EXPECT_TRUE(Tokens[0].isKeyword());
  EXPECT_FALSE(Tokens[1].isKeyword());
}

TEST_F(LexerTest, TokenKindDescriptions) {
  EXPECT_EQ(getTokenKindDescription(TokenKind::kw_def), "'def'");
  EXPECT_EQ(getTokenKindDescription(TokenKind::DoubleStarEqual), "'**='");
  EXPECT_EQ(getTokenKindDescription(TokenKind::Newline), "newline");
  EXPECT_EQ(getTokenKindDescription(TokenKind::Identifier), "identifier");
  EXPECT_EQ(getTokenSpelling(TokenKind::GreaterGreaterEqual), ">>=");
  EXPECT_EQ(getTokenSpelling(TokenKind::Identifier), "");
}

TEST_F(LexerTest, IndentAndDedent) {
  EXPECT_EQ(kinds("if a:\n"
                  "    if b:\n"
                  "        x\n"
                  "    y\n"
                  "z\n"),
            "if a : NL INDENT if b : NL INDENT x NL DEDENT y NL DEDENT z NL EOF");
  // Several levels close at once, and at the end of the file.
  EXPECT_EQ(kinds("if a:\n  if b:\n    x\ny\n"),
            "if a : NL INDENT if b : NL INDENT x NL DEDENT DEDENT y NL EOF");
  EXPECT_EQ(kinds("if a:\n  if b:\n    x\n"),
            "if a : NL INDENT if b : NL INDENT x NL DEDENT DEDENT EOF");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, BlankAndCommentLinesDoNotAffectIndentation) {
  EXPECT_EQ(kinds("if a:\n"
                  "    x\n"
                  "\n"
                  "  # a comment at another indentation\n"
                  "            \n"
                  "    y  # trailing comment\n"),
            "if a : NL INDENT x NL y NL DEDENT EOF");
}

TEST_F(LexerTest, TabsCountToMultiplesOfEight) {
  // A tab and eight spaces are the same indentation only if used
  // consistently; a tab then a tab is one level.
  EXPECT_EQ(kinds("if a:\n\tx\n\ty\n"), "if a : NL INDENT x NL y NL DEDENT EOF");
  EXPECT_EQ(kinds("if a:\n \tx\n \ty\n"), "if a : NL INDENT x NL y NL DEDENT EOF");
  EXPECT_FALSE(Diags.hasErrors());
  // Column 8 both times, but with different mixes of tabs and spaces.
  EXPECT_EQ(kinds("if a:\n  \tx\n\ty\n"), "if a : NL INDENT x NL ERROR EOF");
  EXPECT_TRUE(Diags.hasErrors());
}

TEST_F(LexerTest, ImplicitLineJoiningInsideBrackets) {
  EXPECT_EQ(kinds("x = f(a,\n"
                  "  b,\n"
                  "        # comment\n"
                  "\n"
                  "c)\n"
                  "y = [1,\n"
                  "     2]\n"),
            "x = f ( a , b , c ) NL y = [ int:1 , int:2 ] NL EOF");
}

TEST_F(LexerTest, BackslashContinuation) {
  EXPECT_EQ(kinds("x = a + \\\n    b\ny\n"), "x = a + b NL y NL EOF");
  EXPECT_EQ(kinds("if a:\n    x = 1 + \\\n2\n    y\n"),
            "if a : NL INDENT x = int:1 + int:2 NL y NL DEDENT EOF")
      << "a continuation line's indentation is not significant";
}

TEST_F(LexerTest, LineEndings) {
  std::vector<Token> Tokens = lex("a\r\nb\rc\n");
  ASSERT_EQ(Tokens.size(), 7u);
  EXPECT_EQ(Tokens[0].Line, 1u);
  EXPECT_EQ(Tokens[1].getText(), "\r\n");
  EXPECT_EQ(Tokens[2].Line, 2u);
  EXPECT_EQ(Tokens[4].Line, 3u);
  EXPECT_EQ(Tokens[4].getText(), "c");
}

TEST_F(LexerTest, LocationsAreOneBasedByteColumns) {
  std::vector<Token> Tokens = lex("def f(x):\n\treturn  x\n");
  // def f ( x ) : NL INDENT return x NL DEDENT EOF
  ASSERT_EQ(Tokens.size(), 13u);
  EXPECT_EQ(Tokens[1].Line, 1u);
  EXPECT_EQ(Tokens[1].Column, 5u);
  EXPECT_EQ(Tokens[8].getText(), "return");
  EXPECT_EQ(Tokens[8].Line, 2u);
  EXPECT_EQ(Tokens[8].Column, 2u); // After one tab byte.
  EXPECT_EQ(Tokens[9].Column, 10u);
}

TEST_F(LexerTest, TokenLocationHasOffsetAndFile) {
  const SourceFile &File = SM.addBuffer("a\n  \nbc = 1\n", "loc.py");
  std::vector<Token> Tokens = Lexer::tokenize(File, Diags);
  SourceLocation Loc = Tokens[2].getLocation(File); // bc
  EXPECT_EQ(Loc.File, &File);
  EXPECT_EQ(Loc.Line, 3u);
  EXPECT_EQ(Loc.Column, 1u);
  EXPECT_EQ(Loc.Offset, 5u);
  EXPECT_EQ(File.getLineText(Loc), "bc = 1");
}

TEST_F(LexerTest, UnicodeIdentifiersAndByteOrderMark) {
  std::vector<Token> Tokens = lex("\xEF\xBB\xBF\xCF\x80 = r\xC3\xA9sum\xC3\xA9\n");
  ASSERT_EQ(Tokens.size(), 5u);
  EXPECT_TRUE(Tokens[0].is(TokenKind::Identifier));
  EXPECT_EQ(Tokens[0].getText(), "\xCF\x80");
  EXPECT_EQ(Tokens[0].Column, 1u) << "line 1 starts after the byte order mark";
  EXPECT_EQ(Tokens[2].getText(), "r\xC3\xA9sum\xC3\xA9");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, StringLiterals) {
  EXPECT_EQ(kinds("'a' \"b\" r'\\d' b'x' f\"{y}\" rb'z' BR'z' Rb\"z\" u'q'\n"),
            "str:'a' str:\"b\" str:r'\\d' str:b'x' str:f\"{y}\" str:rb'z' "
            "str:BR'z' str:Rb\"z\" str:u'q' NL EOF");
  EXPECT_EQ(kinds("'it\\'s' \"say \\\"hi\\\"\"\n"), "str:'it\\'s' str:\"say \\\"hi\\\"\" NL EOF");
  EXPECT_EQ(kinds("ab'x'\n"), "ab str:'x' NL EOF") << "'ab' is not a string prefix";
}

TEST_F(LexerTest, TripleQuotedStringsSpanLines) {
  std::vector<Token> Tokens = lex("x = '''a\n'b'\n\"\"\"\n''' + y\n");
  ASSERT_EQ(Tokens.size(), 7u);
  EXPECT_TRUE(Tokens[2].is(TokenKind::String));
  EXPECT_EQ(Tokens[2].getText(), "'''a\n'b'\n\"\"\"\n'''");
  EXPECT_EQ(Tokens[2].Line, 1u);
  EXPECT_EQ(Tokens[2].Column, 5u);
  EXPECT_EQ(Tokens[4].getText(), "y");
  EXPECT_EQ(Tokens[4].Line, 4u);
  EXPECT_EQ(Tokens[4].Column, 7u);
}

TEST_F(LexerTest, NumberLiterals) {
  EXPECT_EQ(kinds("0 7 1_000 0x1F 0XdeadBEEF 0o17 0O7 0b1010 0B1 0x_ff 00 0_0\n"),
            "int:0 int:7 int:1_000 int:0x1F int:0XdeadBEEF int:0o17 int:0O7 "
            "int:0b1010 int:0B1 int:0x_ff int:00 int:0_0 NL EOF");
  EXPECT_EQ(kinds("1.0 1e-3 .5 1. 1E10 1_0.2_5e+1_0 012.5 0.0\n"),
            "float:1.0 float:1e-3 float:.5 float:1. float:1E10 float:1_0.2_5e+1_0 "
            "float:012.5 float:0.0 NL EOF");
  EXPECT_EQ(kinds("1j 2.5J 1e3j\n"), "imag:1j imag:2.5J imag:1e3j NL EOF");
  EXPECT_EQ(kinds("x[1:2]\n"), "x [ int:1 : int:2 ] NL EOF");
  EXPECT_EQ(kinds("1..real\n"), "float:1. . real NL EOF");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, NumberDirectlyBeforeKeyword) {
  // CPython accepts these (with a warning).
  EXPECT_EQ(kinds("1if x else 2\n"), "int:1 if x else int:2 NL EOF");
  EXPECT_EQ(kinds("0x1for\n"), "int:0x1f or NL EOF");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, DecodeIntegerLiterals) {
  uint64_t V = 0;
  EXPECT_TRUE(decodeIntegerLiteral("1_000", V));
  EXPECT_EQ(V, 1000u);
  EXPECT_TRUE(decodeIntegerLiteral("0x_fF", V));
  EXPECT_EQ(V, 255u);
  EXPECT_TRUE(decodeIntegerLiteral("0o17", V));
  EXPECT_EQ(V, 15u);
  EXPECT_TRUE(decodeIntegerLiteral("0B101", V));
  EXPECT_EQ(V, 5u);
  EXPECT_TRUE(decodeIntegerLiteral("18446744073709551615", V));
  EXPECT_EQ(V, UINT64_MAX);
  EXPECT_FALSE(decodeIntegerLiteral("18446744073709551616", V));
  EXPECT_TRUE(decodeIntegerLiteral("0xFFFFFFFFFFFFFFFF", V));
  EXPECT_FALSE(decodeIntegerLiteral("0x1_0000_0000_0000_0000", V));
  EXPECT_FALSE(decodeIntegerLiteral(std::string(5000, '9'), V));
}

TEST_F(LexerTest, DecodeFloatLiterals) {
  EXPECT_EQ(decodeFloatLiteral("1e-3"), 0.001);
  EXPECT_EQ(decodeFloatLiteral(".5"), 0.5);
  EXPECT_EQ(decodeFloatLiteral("1."), 1.0);
  EXPECT_EQ(decodeFloatLiteral("1_0.2_5"), 10.25);
  EXPECT_EQ(decodeFloatLiteral("0.1"), 0.1);
  EXPECT_EQ(decodeFloatLiteral("1.44269504"), 1.44269504);
  EXPECT_EQ(decodeFloatLiteral("2.2250738585072014e-308"), 2.2250738585072014e-308);
  EXPECT_TRUE(std::isinf(decodeFloatLiteral("1e400")));
  EXPECT_EQ(decodeFloatLiteral("1e-400"), 0.0);
  EXPECT_EQ(decodeFloatLiteral("0e999999999999999999999"), 0.0);
  // Thousands of digits: still exact, and fast.
  EXPECT_EQ(decodeFloatLiteral("1" + std::string(3000, '0') + "e-3000"), 1.0);
  EXPECT_EQ(decodeFloatLiteral("0." + std::string(3000, '0') + "1e3001"), 1.0);
  // Halfway between 1 and the next double, plus a far-away digit that must
  // round up: the dropped digits must still count.
  std::string Halfway = "1.00000000000000011102230246251565404236316680908203125";
  EXPECT_EQ(decodeFloatLiteral(Halfway), 1.0) << "ties to even";
  EXPECT_EQ(decodeFloatLiteral(Halfway + std::string(2000, '0') + "1"),
            std::nextafter(1.0, 2.0));
}

TEST_F(LexerTest, DecodeStringLiterals) {
  auto Decode = [](llvm::StringRef Spelling) {
    std::string Value, Error;
    StringLiteralPrefix Prefix;
    size_t Offset = 0;
    if (!decodeStringLiteral(Spelling, Value, Prefix, Error, Offset))
      return "error@" + std::to_string(Offset) + ": " + Error;
    return Value;
  };
  EXPECT_EQ(Decode("'a\\nb\\tc'"), "a\nb\tc");
  EXPECT_EQ(Decode("'\\x41\\101\\u00e9\\U0001F600'"), "AA\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(Decode("'\\N{BULLET}'"), "\xE2\x80\xA2");
  EXPECT_EQ(Decode("'\\\\ \\' \\\" \\a\\b\\f\\v\\r\\0'"), "\\ ' \" \a\b\f\v\r" + std::string(1, '\0'));
  EXPECT_EQ(Decode("'a\\\nb'"), "ab") << "backslash-newline joins lines";
  EXPECT_EQ(Decode("'\\d'"), "\\d") << "unknown escapes stay as written";
  EXPECT_EQ(Decode("r'\\d\\n'"), "\\d\\n");
  EXPECT_EQ(Decode("'''a\nb'''"), "a\nb");
  EXPECT_EQ(Decode("\"\""), "");
  EXPECT_EQ(Decode("b'\\x80\\u1234'"), "\x80\\u1234") << "no \\u escapes in bytes";
  EXPECT_EQ(Decode("'\\x4'"), "error@1: truncated \\xXX escape");
  EXPECT_EQ(Decode("'ab\\u12'"), "error@3: truncated \\uXXXX escape");
  EXPECT_EQ(Decode("'\\U00110000'"), "error@1: invalid Unicode code point in escape");
  EXPECT_EQ(Decode("'\\N{NO SUCH NAME}'"), "error@1: unknown Unicode character name");
  EXPECT_EQ(Decode("b'\xC3\xA9'"), "error@2: bytes can only contain ASCII literal characters");

  std::string Value, Error;
  StringLiteralPrefix Prefix;
  size_t Offset;
  ASSERT_TRUE(decodeStringLiteral("Rb'x'", Value, Prefix, Error, Offset));
  EXPECT_TRUE(Prefix.Raw);
  EXPECT_TRUE(Prefix.Bytes);
  EXPECT_FALSE(Prefix.Format);
  ASSERT_TRUE(decodeStringLiteral("f'{x}'", Value, Prefix, Error, Offset));
  EXPECT_TRUE(Prefix.Format);
  EXPECT_EQ(Value, "{x}");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(LexerTest, UnterminatedStrings) {
  EXPECT_EQ(lexError("x = 'abc\ny\n"), "1:5: unterminated string literal (detected at line 1)");
  EXPECT_EQ(lexError("x = \"abc"), "1:5: unterminated string literal (detected at line 1)");
}

TEST_F(LexerTest, UnterminatedTripleQuotedString) {
  EXPECT_EQ(lexError("a = 1\nx = \"\"\"abc\n\ny\n"),
            "2:5: unterminated triple-quoted string literal (detected at line 4)");
  EXPECT_EQ(lexError("x = '''abc\n\ny"),
            "1:5: unterminated triple-quoted string literal (detected at line 3)");
}

TEST_F(LexerTest, Brackets) {
  EXPECT_EQ(lexError("a)\n"), "1:2: unmatched ')'");
  EXPECT_EQ(lexError("f(a]\n"),
            "1:4: closing parenthesis ']' does not match opening parenthesis '('");
  EXPECT_EQ(lexError("f(a,\n  b]\n"),
            "2:4: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  EXPECT_EQ(lexError("x = [1,\n  (2,\n"), "2:3: '(' was never closed");
}

TEST_F(LexerTest, Indentation) {
  EXPECT_EQ(lexError("if x:\n    a\n  b\n"),
            "3:3: unindent does not match any outer indentation level");
  EXPECT_EQ(lexError("if x:\n\ta\n        b\n"),
            "3:9: inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(lexError("if x:\n        a\n\tb\n"),
            "3:2: inconsistent use of tabs and spaces in indentation");
}

TEST_F(LexerTest, InvalidCharacters) {
  EXPECT_EQ(lexError("x = $\n"), "1:5: invalid character '$' (U+0024)");
  EXPECT_EQ(lexError("x = a ? b\n"), "1:7: invalid character '?' (U+003F)");
  EXPECT_EQ(lexError("x = a \xE2\x86\x92 b\n"), "1:7: invalid character '\xE2\x86\x92' (U+2192)");
  EXPECT_EQ(lexError("x\xC2\xA0= 1\n"), "1:2: invalid non-printable character U+00A0");
  EXPECT_EQ(lexError("x = \x01\n"), "1:5: invalid non-printable character U+0001");
  EXPECT_EQ(lexError("x = !a\n"), "1:5: invalid character '!' (U+0021)");
}

TEST_F(LexerTest, InvalidNumbers) {
  EXPECT_EQ(lexError("x = 012\n"), "1:5: leading zeros in decimal integer literals are "
                                   "not permitted; use an 0o prefix for octal integers");
  EXPECT_EQ(lexError("0x\n"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(lexError("0b12\n"), "1:4: invalid digit '2' in binary literal");
  EXPECT_EQ(lexError("0o8\n"), "1:3: invalid digit '8' in octal literal");
  EXPECT_EQ(lexError("1__0\n"), "1:1: invalid decimal literal");
  EXPECT_EQ(lexError("1_\n"), "1:1: invalid decimal literal");
  EXPECT_EQ(lexError("1abc\n"), "1:1: invalid decimal literal");
  EXPECT_EQ(lexError("1.5x\n"), "1:1: invalid decimal literal");
  EXPECT_EQ(lexError("1jx\n"), "1:1: invalid imaginary literal");
  EXPECT_EQ(lexError("0x1g\n"), "1:1: invalid hexadecimal literal");
}

TEST_F(LexerTest, BadContinuation) {
  EXPECT_EQ(lexError("x = \\ y\n"),
            "1:5: unexpected character after line continuation character");
  EXPECT_EQ(lexError("x = 1 \\"),
            "1:7: unexpected end of file after line continuation character");
}

TEST_F(LexerTest, EncodingErrors) {
  EXPECT_EQ(lexError("a = 1\nb = \xFF\n"), "2:5: invalid UTF-8 byte 0xff");
  EXPECT_EQ(lexError("a = 'x\xC3'\n"), "1:7: invalid UTF-8 byte 0xc3") << "truncated sequence";
  EXPECT_EQ(lexError("\xC0\xAF\n"), "1:1: invalid UTF-8 byte 0xc0") << "overlong encoding";
  EXPECT_EQ(lexError("'\xED\xA0\x80'\n"), "1:2: invalid UTF-8 byte 0xed") << "surrogate";
  EXPECT_EQ(lexError(std::string("x = 1\n# \n  a\0b\n", 14)),
            "3:4: source code cannot contain null bytes");
  EXPECT_EQ(lexError(std::string("s = '\0'\n", 8)), "1:6: source code cannot contain null bytes")
      << "even in a string, like CPython";
}

TEST_F(LexerTest, TooDeeplyNestedBrackets) {
  std::string Ok(kMaxNestingDepth, '[');
  Ok += std::string(kMaxNestingDepth, ']') + "\n";
  EXPECT_EQ(lex(Ok).size(), 2 * kMaxNestingDepth + 2);
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_EQ(lexError("x = " + std::string(kMaxNestingDepth + 1, '(')),
            "1:" + std::to_string(5 + kMaxNestingDepth) + ": too deeply nested");
}

TEST_F(LexerTest, TooDeeplyNestedIndentation) {
  // Line I+1 is indented by I spaces: kMaxNestingDepth levels are fine.
  auto Nested = [](unsigned Levels) {
    std::string Source;
    for (unsigned I = 0; I < Levels; ++I)
      Source += std::string(I, ' ') + "if x:\n";
    return Source + std::string(Levels, ' ') + "pass\n";
  };
  std::vector<Token> Tokens = lex(Nested(kMaxNestingDepth));
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_EQ(std::count_if(Tokens.begin(), Tokens.end(),
                          [](const Token &T) { return T.is(TokenKind::Dedent); }),
            static_cast<long>(kMaxNestingDepth));
  std::string Deepest = std::to_string(kMaxNestingDepth + 2);
  EXPECT_EQ(lexError(Nested(kMaxNestingDepth + 1)),
            Deepest + ":" + Deepest + ": too deeply nested");
}

TEST_F(LexerTest, StreamEndsAfterFirstError) {
  const SourceFile &File = SM.addBuffer("a = $ + $\n", "err.py");
  Lexer L(File, Diags);
  EXPECT_TRUE(L.lex().is(TokenKind::Identifier));
  EXPECT_TRUE(L.lex().is(TokenKind::Equal));
  EXPECT_TRUE(L.lex().is(TokenKind::Error));
  for (int I = 0; I < 3; ++I)
    EXPECT_TRUE(L.lex().is(TokenKind::EndOfFile));
  EXPECT_EQ(Diags.getNumErrors(), 1u);
}

TEST_F(LexerTest, EndOfFileRepeats) {
  const SourceFile &File = SM.addBuffer("x\n", "eof.py");
  Lexer L(File, Diags);
  EXPECT_TRUE(L.lex().is(TokenKind::Identifier));
  EXPECT_TRUE(L.lex().is(TokenKind::Newline));
  for (int I = 0; I < 3; ++I)
    EXPECT_TRUE(L.lex().is(TokenKind::EndOfFile));
}

} // namespace
