//===- Token.h - tokens of the Python kernel language ------------*- C++ -*-===//
//
// The lexer turns a file into the token stream of Python's tokenizer: names,
// literals, operators and the layout tokens NEWLINE (end of a logical line),
// INDENT and DEDENT. It lexes all of Python 3 (so host code in a kernel file
// can be skipped token by token), not only what kernels may use.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_TOKEN_H
#define TEGULA_FRONTEND_TOKEN_H

#include "tegula/Frontend/Source.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tegula::frontend {

/// Python's keywords (soft keywords such as `match` are identifiers).
#define TEGULA_PY_KEYWORDS(KW)                                                 \
  KW(False) KW(None) KW(True) KW(and) KW(as) KW(assert) KW(async) KW(await)    \
  KW(break) KW(class) KW(continue) KW(def) KW(del) KW(elif) KW(else)           \
  KW(except) KW(finally) KW(for) KW(from) KW(global) KW(if) KW(import) KW(in)  \
  KW(is) KW(lambda) KW(nonlocal) KW(not) KW(or) KW(pass) KW(raise)             \
  KW(return) KW(try) KW(while) KW(with) KW(yield)

/// Python's operators and delimiters: (enumerator, spelling).
#define TEGULA_PY_PUNCTUATORS(P)                                               \
  P(LParen, "(") P(RParen, ")") P(LSquare, "[") P(RSquare, "]")                \
  P(LBrace, "{") P(RBrace, "}") P(Comma, ",") P(Colon, ":") P(Semi, ";")       \
  P(Dot, ".") P(Ellipsis, "...") P(Arrow, "->") P(At, "@") P(Equal, "=")       \
  P(ColonEqual, ":=") P(Plus, "+") P(Minus, "-") P(Star, "*") P(Slash, "/")    \
  P(DoubleSlash, "//") P(Percent, "%") P(DoubleStar, "**") P(Tilde, "~")       \
  P(Amp, "&") P(Pipe, "|") P(Caret, "^") P(LessLess, "<<")                     \
  P(GreaterGreater, ">>") P(Less, "<") P(Greater, ">") P(LessEqual, "<=")      \
  P(GreaterEqual, ">=") P(EqualEqual, "==") P(NotEqual, "!=")                  \
  P(PlusEqual, "+=") P(MinusEqual, "-=") P(StarEqual, "*=")                    \
  P(SlashEqual, "/=") P(DoubleSlashEqual, "//=") P(PercentEqual, "%=")         \
  P(AtEqual, "@=") P(AmpEqual, "&=") P(PipeEqual, "|=") P(CaretEqual, "^=")    \
  P(LessLessEqual, "<<=") P(GreaterGreaterEqual, ">>=")                        \
  P(DoubleStarEqual, "**=")

enum class TokenKind : uint8_t {
  EndOfFile,
  /// Stands where the lexer reported an error; always followed by EndOfFile.
  /// The parser must not report another error at it.
  Error,
  Newline,
  Indent,
  Dedent,
  Identifier,
  /// An integer literal, in any radix.
  Integer,
  Float,
  /// A complex literal such as `1j`.
  Imaginary,
  /// One string literal with its prefix and quotes, e.g. `rb'\d'`.
  String,
#define TEGULA_KW_ENUM(Name) kw_##Name,
  TEGULA_PY_KEYWORDS(TEGULA_KW_ENUM)
#undef TEGULA_KW_ENUM
#define TEGULA_PUNCT_ENUM(Name, Spelling) Name,
  TEGULA_PY_PUNCTUATORS(TEGULA_PUNCT_ENUM)
#undef TEGULA_PUNCT_ENUM
};

/// A short description of a kind for messages: "identifier", "newline",
/// "'+'", "'def'".
llvm::StringRef getTokenKindDescription(TokenKind Kind);
/// The fixed spelling of a keyword or punctuator ("def", "+="); empty for
/// other kinds.
llvm::StringRef getTokenSpelling(TokenKind Kind);

/// One token (24 bytes). It points into the source text, which outlives it.
struct Token {
  /// First byte of the token. INDENT and DEDENT point at the first token of
  /// their line and are empty; NEWLINE spans the line terminator (empty when
  /// the file ends without one); EndOfFile points at the end of the file.
  const char *Ptr = nullptr;
  uint32_t Length = 0;
  /// 1-based line and byte column of the first byte.
  uint32_t Line = 0;
  uint32_t Column = 0;
  TokenKind Kind = TokenKind::EndOfFile;

  llvm::StringRef getText() const { return llvm::StringRef(Ptr, Length); }
  bool is(TokenKind K) const { return Kind == K; }
  bool isNot(TokenKind K) const { return Kind != K; }
  bool isKeyword() const {
    return Kind >= TokenKind::kw_False && Kind <= TokenKind::kw_yield;
  }
  /// The location of the token in |File|, which must be the file it came
  /// from.
  SourceLocation getLocation(const SourceFile &File) const {
    return SourceLocation{&File, Line, Column,
                          static_cast<uint32_t>(Ptr - File.getText().data())};
  }
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_TOKEN_H
