//===- Lexer.h - Python tokenizer and literal decoding -----------*- C++ -*-===//
//
// The lexer follows CPython's tokenizer: INDENT/DEDENT from leading
// whitespace (tabs to multiples of 8, checked for consistent use of tabs and
// spaces), no NEWLINE inside brackets, backslash continuation, comments, and
// the literal syntax of Python 3. It lexes every Python 3 file, because the
// host code around kernels is skipped token by token.
//
// The first lexical error ends the token stream: the lexer reports it, then
// returns an Error token and EndOfFile. Python also rejects a file with a
// lexical error anywhere in it.
//
// Input limits (each reported as a located error, never a crash): the file
// must be valid UTF-8 without NUL bytes and at most kMaxSourceSize bytes;
// brackets and indentation nest at most kMaxNestingDepth deep.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_LEXER_H
#define TEGULA_FRONTEND_LEXER_H

#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Token.h"

#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tegula::frontend {

/// The deepest nesting of brackets, indented blocks and expressions that the
/// front end accepts (CPython's own bracket limit). Deeper input gets
/// "too deeply nested".
constexpr unsigned kMaxNestingDepth = 200;

/// The largest source file accepted, in bytes. This bounds the memory a
/// hostile file can claim: tokens and syntax tree together take at most
/// about 64 bytes per source byte (a file of `a,a,a,...`).
constexpr size_t kMaxSourceSize = size_t(8) << 20;

class Lexer {
public:
  /// Lexes |File|, reporting errors to |Diags|.
  Lexer(const SourceFile &File, DiagnosticEngine &Diags);

  /// Returns the next token. Once it has returned EndOfFile it keeps doing so.
  Token lex();

  /// Lexes all of |File|. The result always ends with EndOfFile; when lexing
  /// failed, the token before it is Error.
  static std::vector<Token> tokenize(const SourceFile &File,
                                     DiagnosticEngine &Diags);

private:
  struct Bracket {
    char Open;
    const char *Ptr;
    uint32_t Line, Column;
  };
  struct IndentLevel {
    /// Indentation with tabs to the next multiple of 8, and with tabs as one
    /// column: a change must move both the same way (CPython's TabError).
    unsigned Col, AltCol;
  };

  /// Checks the size limit, UTF-8 and NUL bytes once for the whole file;
  /// returns the Error token when the file fails.
  std::optional<Token> checkEncoding();
  Token lexLineStart(bool &Produced);
  Token lexIdentifierOrString();
  Token lexNumber();
  Token lexString(const char *Start, const char *Quote);
  Token lexPunctuator();
  Token lexEndOfFile();
  Token make(TokenKind Kind, const char *Start, const char *End) const;
  Token makeAt(TokenKind Kind, const char *Start, const char *End,
               uint32_t AtLine, uint32_t AtColumn) const;
  /// Reports |Message| at |At| (on the current line) and ends the stream.
  Token fail(const char *At, const llvm::Twine &Message);
  Token failAt(const char *At, uint32_t AtLine, uint32_t AtColumn,
               const llvm::Twine &Message);
  uint32_t columnOf(const char *P) const {
    return static_cast<uint32_t>(P - LineStart) + 1;
  }
  /// Consumes the line terminator at Cur and starts the next line.
  void consumeNewline();

  const SourceFile &File;
  DiagnosticEngine &Diags;
  const char *BufStart, *BufEnd;
  const char *Cur;
  const char *LineStart;
  uint32_t Line = 1;
  bool EncodingChecked = false;
  bool AtLineStart = true;
  bool Done = false;
  /// Tokens produced since the last NEWLINE; a logical line with none (a
  /// continuation line on its own) produces no NEWLINE.
  unsigned TokensOnLine = 0;
  llvm::SmallVector<Bracket, 16> Brackets;
  llvm::SmallVector<IndentLevel, 16> Indents;
  /// Tokens decided together (DEDENTs, the end of the file), returned first.
  llvm::SmallVector<Token, 8> Pending;
  size_t PendingPos = 0;
};

//===----------------------------------------------------------------------===//
// Literal decoding (for spellings the lexer accepted)
//===----------------------------------------------------------------------===//

/// The value of an integer literal's spelling (decimal, 0x, 0o or 0b, with
/// underscores). Returns false when the value does not fit in 64 bits;
/// |Value| is then unspecified.
bool decodeIntegerLiteral(llvm::StringRef Spelling, uint64_t &Value);

/// The value of a float literal's spelling, correctly rounded to double;
/// literals too large for a double are infinity, as in Python.
double decodeFloatLiteral(llvm::StringRef Spelling);

/// What a string literal's prefix says.
struct StringLiteralPrefix {
  bool Raw = false;
  bool Bytes = false;
  /// An f-string; the front end keeps its text as written, unformatted.
  bool Format = false;
};

/// Decodes one string literal token (prefix, quotes and escapes). On success
/// stores the value (UTF-8) in |Value| and the prefix in |Prefix|. On a bad
/// escape returns false with |Error| set and |ErrorOffset| the byte offset of
/// the escape within |Spelling|.
bool decodeStringLiteral(llvm::StringRef Spelling, std::string &Value,
                         StringLiteralPrefix &Prefix, std::string &Error,
                         size_t &ErrorOffset);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_LEXER_H
