//===- Lexer.cpp - Python tokenizer ---------------------------------------===//
//
// Follows CPython's Parser/tokenizer.c for layout (indentation, continuation
// lines, brackets) and its error messages, over a buffer that is checked to
// be UTF-8 without NUL bytes before any token is produced.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Lexer.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Unicode.h"

using namespace llvm;
using namespace tegula::frontend;

//===----------------------------------------------------------------------===//
// Token kinds
//===----------------------------------------------------------------------===//

// kMaxSourceSize's memory bound counts on it.
static_assert(sizeof(Token) <= 24, "tokens grew");

StringRef tegula::frontend::getTokenSpelling(TokenKind Kind) {
  switch (Kind) {
#define TEGULA_KW_CASE(Name)                                                   \
  case TokenKind::kw_##Name:                                                   \
    return #Name;
    TEGULA_PY_KEYWORDS(TEGULA_KW_CASE)
#undef TEGULA_KW_CASE
#define TEGULA_PUNCT_CASE(Name, Spelling)                                      \
  case TokenKind::Name:                                                        \
    return Spelling;
    TEGULA_PY_PUNCTUATORS(TEGULA_PUNCT_CASE)
#undef TEGULA_PUNCT_CASE
  default:
    return {};
  }
}

StringRef tegula::frontend::getTokenKindDescription(TokenKind Kind) {
  switch (Kind) {
  case TokenKind::EndOfFile:
    return "end of file";
  case TokenKind::Error:
    return "invalid token";
  case TokenKind::Newline:
    return "newline";
  case TokenKind::Indent:
    return "indent";
  case TokenKind::Dedent:
    return "dedent";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::Integer:
    return "integer literal";
  case TokenKind::Float:
    return "float literal";
  case TokenKind::Imaginary:
    return "imaginary literal";
  case TokenKind::String:
    return "string literal";
#define TEGULA_KW_CASE(Name)                                                   \
  case TokenKind::kw_##Name:                                                   \
    return "'" #Name "'";
    TEGULA_PY_KEYWORDS(TEGULA_KW_CASE)
#undef TEGULA_KW_CASE
#define TEGULA_PUNCT_CASE(Name, Spelling)                                      \
  case TokenKind::Name:                                                        \
    return "'" Spelling "'";
    TEGULA_PY_PUNCTUATORS(TEGULA_PUNCT_CASE)
#undef TEGULA_PUNCT_CASE
  }
  return "token";
}

//===----------------------------------------------------------------------===//
// Character classes
//===----------------------------------------------------------------------===//

static bool isDigit(char C) { return C >= '0' && C <= '9'; }
static bool isASCIIIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}
static bool isASCIIIdentChar(char C) { return isASCIIIdentStart(C) || isDigit(C); }

/// Decodes the UTF-8 sequence at |P| (the buffer was validated, but stay
/// within |End| regardless).
static uint32_t decodeUTF8(const char *P, const char *End, unsigned &Len) {
  unsigned char C = *P;
  Len = C < 0x80 ? 1 : getNumBytesForUTF8(C);
  if (Len < 1 || Len > 4 || Len > static_cast<size_t>(End - P)) {
    Len = 1;
    return C;
  }
  if (Len == 1)
    return C;
  uint32_t CP = C & (0x7F >> Len);
  for (unsigned I = 1; I < Len; ++I)
    CP = (CP << 6) | (static_cast<unsigned char>(P[I]) & 0x3F);
  return CP;
}

/// Whether a non-ASCII code point may appear in an identifier. Python uses
/// XID_Start/XID_Continue; without those tables this accepts printable code
/// points outside the blocks of spaces, punctuation and symbols, which is
/// exact for the letters kernels and host code use.
static bool isIdentifierCodePoint(uint32_t CP) {
  if (CP < 0x80)
    return isASCIIIdentChar(static_cast<char>(CP));
  if (!sys::unicode::isPrintable(static_cast<int>(CP)))
    return false;
  if (CP >= 0xA0 && CP <= 0xBF)
    return CP == 0xAA || CP == 0xB5 || CP == 0xBA;
  if (CP == 0xD7 || CP == 0xF7)
    return false;
  if (CP >= 0x2000 && CP <= 0x2BFF) // Punctuation, arrows, math, shapes.
    return CP >= 0x2070 && CP <= 0x218F && CP != 0x207A && CP != 0x207B;
  if ((CP >= 0x3000 && CP <= 0x303F) || (CP >= 0xFE30 && CP <= 0xFE4F) ||
      (CP >= 0xFF00 && CP <= 0xFF0F) || CP == 0xFEFF)
    return false;
  return true;
}

/// Unicode spaces and invisible formatting characters, which CPython calls
/// "non-printable" (llvm::sys::unicode::isPrintable accepts some of them).
static bool isInvisible(uint32_t CP) {
  return CP == 0xA0 || CP == 0xAD || CP == 0x1680 || (CP >= 0x2000 && CP <= 0x200F) ||
         (CP >= 0x2028 && CP <= 0x202F) || (CP >= 0x205F && CP <= 0x206F) ||
         CP == 0x3000 || CP == 0xFEFF;
}

/// "invalid character '→' (U+2192)" as CPython says it.
static std::string invalidCharacterMessage(const char *P, const char *End) {
  unsigned Len;
  uint32_t CP = decodeUTF8(P, End, Len);
  std::string Hex;
  raw_string_ostream OS(Hex);
  OS << format_hex_no_prefix(CP, 4, /*Upper=*/true);
  OS.flush();
  if (CP >= 0x20 && CP != 0x7F && !isInvisible(CP) &&
      sys::unicode::isPrintable(static_cast<int>(CP)))
    return ("invalid character '" + StringRef(P, Len) + "' (U+" + Hex + ")").str();
  return "invalid non-printable character U+" + Hex;
}

static bool isStringPrefix(StringRef Text) {
  if (Text.size() > 2)
    return false;
  std::string Lower = Text.lower();
  return StringSwitch<bool>(Lower)
      .Cases("r", "u", "b", "f", true)
      .Cases("br", "rb", "fr", "rf", true)
      .Default(false);
}

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

Lexer::Lexer(const SourceFile &File, DiagnosticEngine &Diags)
    : File(File), Diags(Diags) {
  StringRef Text = File.getText();
  BufStart = Text.data();
  BufEnd = Text.data() + Text.size();
  Cur = BufStart;
  if (Text.starts_with("\xEF\xBB\xBF"))
    Cur += 3;
  LineStart = Cur;
  Indents.push_back({0, 0});
}

std::vector<Token> Lexer::tokenize(const SourceFile &File,
                                   DiagnosticEngine &Diags) {
  Lexer L(File, Diags);
  std::vector<Token> Tokens;
  for (;;) {
    Tokens.push_back(L.lex());
    if (Tokens.back().is(TokenKind::EndOfFile))
      return Tokens;
  }
}

Token Lexer::makeAt(TokenKind Kind, const char *Start, const char *End,
                    uint32_t AtLine, uint32_t AtColumn) const {
  Token T;
  T.Kind = Kind;
  T.Ptr = Start;
  T.Length = static_cast<uint32_t>(End - Start);
  T.Line = AtLine;
  T.Column = AtColumn;
  return T;
}

Token Lexer::make(TokenKind Kind, const char *Start, const char *End) const {
  return makeAt(Kind, Start, End, Line, columnOf(Start));
}

Token Lexer::failAt(const char *At, uint32_t AtLine, uint32_t AtColumn,
                    const Twine &Message) {
  Diags.error(SourceLocation{&File, AtLine, AtColumn,
                             static_cast<uint32_t>(At - BufStart)},
              Message);
  Done = true;
  Pending.clear();
  PendingPos = 0;
  Token EndTok = makeAt(TokenKind::EndOfFile, At, At, AtLine, AtColumn);
  Pending.push_back(EndTok);
  return makeAt(TokenKind::Error, At, At, AtLine, AtColumn);
}

Token Lexer::fail(const char *At, const Twine &Message) {
  return failAt(At, Line, columnOf(At), Message);
}

void Lexer::consumeNewline() {
  if (*Cur == '\r' && Cur + 1 < BufEnd && Cur[1] == '\n')
    ++Cur;
  ++Cur;
  ++Line;
  LineStart = Cur;
}

std::optional<Token> Lexer::checkEncoding() {
  size_t Size = BufEnd - BufStart;
  if (Size > kMaxSourceSize)
    return fail(BufStart, "file is too large (" + Twine(Size) + " bytes; the limit is " +
                              Twine(kMaxSourceSize) + ")");
  for (const char *P = BufStart; P < BufEnd;) {
    unsigned char C = *P;
    if (C == 0 || C >= 0x80) {
      unsigned Len = C == 0 ? 1 : getNumBytesForUTF8(C);
      const UTF8 *U = reinterpret_cast<const UTF8 *>(P);
      if (C != 0 && Len <= static_cast<size_t>(BufEnd - P) &&
          isLegalUTF8Sequence(U, U + Len)) {
        P += Len;
        continue;
      }
      SourceLocation Loc = File.getLocation(static_cast<uint32_t>(P - BufStart));
      std::string Message;
      if (C == 0) {
        Message = "source code cannot contain null bytes";
      } else {
        raw_string_ostream OS(Message);
        OS << "invalid UTF-8 byte " << format_hex(C, 4);
      }
      return failAt(P, Loc.Line, Loc.Column, Message);
    }
    ++P;
  }
  return std::nullopt;
}

Token Lexer::lex() {
  for (;;) {
    if (PendingPos < Pending.size()) {
      Token T = Pending[PendingPos++];
      if (PendingPos == Pending.size() && !Done) {
        Pending.clear();
        PendingPos = 0;
      } else if (PendingPos == Pending.size()) {
        --PendingPos; // Keep returning the final EndOfFile.
      }
      return T;
    }
    if (Done)
      return makeAt(TokenKind::EndOfFile, BufEnd, BufEnd, Line, columnOf(BufEnd));
    if (!EncodingChecked) {
      EncodingChecked = true;
      if (std::optional<Token> Error = checkEncoding())
        return *Error;
    }
    if (AtLineStart) {
      bool Produced = false;
      Token T = lexLineStart(Produced);
      if (Produced)
        return T;
      if (PendingPos < Pending.size())
        continue; // DEDENTs were queued.
    }

    while (Cur < BufEnd && (*Cur == ' ' || *Cur == '\t' || *Cur == '\f'))
      ++Cur;
    if (Cur == BufEnd)
      return lexEndOfFile();
    char C = *Cur;
    if (C == '#') {
      while (Cur < BufEnd && *Cur != '\n' && *Cur != '\r')
        ++Cur;
      continue;
    }
    if (C == '\n' || C == '\r') {
      const char *Start = Cur;
      uint32_t AtLine = Line, AtColumn = columnOf(Cur);
      consumeNewline();
      if (!Brackets.empty())
        continue; // Implicit line joining.
      AtLineStart = true;
      if (TokensOnLine == 0)
        continue;
      TokensOnLine = 0;
      return makeAt(TokenKind::Newline, Start, Cur, AtLine, AtColumn);
    }
    if (C == '\\') {
      const char *Next = Cur + 1;
      if (Next < BufEnd && (*Next == '\n' || *Next == '\r')) {
        Cur = Next;
        consumeNewline();
        continue;
      }
      if (Next == BufEnd)
        return fail(Cur, "unexpected end of file after line continuation character");
      return fail(Cur, "unexpected character after line continuation character");
    }
    ++TokensOnLine;
    if (isASCIIIdentStart(C) || static_cast<unsigned char>(C) >= 0x80)
      return lexIdentifierOrString();
    if (isDigit(C) || (C == '.' && Cur + 1 < BufEnd && isDigit(Cur[1])))
      return lexNumber();
    if (C == '"' || C == '\'')
      return lexString(Cur, Cur);
    return lexPunctuator();
  }
}

Token Lexer::lexLineStart(bool &Produced) {
  Produced = false;
  for (;;) {
    unsigned Col = 0, AltCol = 0;
    while (Cur < BufEnd) {
      if (*Cur == ' ') {
        ++Col;
        ++AltCol;
      } else if (*Cur == '\t') {
        Col = (Col / 8 + 1) * 8;
        ++AltCol;
      } else if (*Cur == '\f') {
        Col = AltCol = 0;
      } else {
        break;
      }
      ++Cur;
    }
    if (Cur < BufEnd && *Cur == '#')
      while (Cur < BufEnd && *Cur != '\n' && *Cur != '\r')
        ++Cur;
    if (Cur == BufEnd) {
      AtLineStart = false;
      return {};
    }
    if (*Cur == '\n' || *Cur == '\r') {
      consumeNewline(); // A blank or comment-only line: no tokens at all.
      continue;
    }
    AtLineStart = false;

    auto TabError = [&] {
      Produced = true;
      return fail(Cur, "inconsistent use of tabs and spaces in indentation");
    };
    const IndentLevel &Top = Indents.back();
    if (Col == Top.Col) {
      if (AltCol != Top.AltCol)
        return TabError();
      return {};
    }
    if (Col > Top.Col) {
      if (AltCol <= Top.AltCol)
        return TabError();
      Produced = true;
      if (Indents.size() > kMaxNestingDepth)
        return fail(Cur, "too deeply nested");
      Indents.push_back({Col, AltCol});
      return make(TokenKind::Indent, Cur, Cur);
    }
    unsigned Dedents = 0;
    while (Indents.size() > 1 && Col < Indents.back().Col) {
      Indents.pop_back();
      ++Dedents;
    }
    if (Col != Indents.back().Col) {
      Produced = true;
      return fail(Cur, "unindent does not match any outer indentation level");
    }
    if (AltCol != Indents.back().AltCol)
      return TabError();
    for (unsigned I = 0; I < Dedents; ++I)
      Pending.push_back(make(TokenKind::Dedent, Cur, Cur));
    return {};
  }
}

Token Lexer::lexEndOfFile() {
  if (!Brackets.empty()) {
    const Bracket &B = Brackets.back();
    return failAt(B.Ptr, B.Line, B.Column,
                  "'" + Twine(B.Open) + "' was never closed");
  }
  if (TokensOnLine > 0)
    Pending.push_back(make(TokenKind::Newline, BufEnd, BufEnd));
  TokensOnLine = 0;
  for (size_t I = 1; I < Indents.size(); ++I)
    Pending.push_back(make(TokenKind::Dedent, BufEnd, BufEnd));
  Indents.resize(1);
  Pending.push_back(make(TokenKind::EndOfFile, BufEnd, BufEnd));
  Done = true;
  return lex();
}

Token Lexer::lexIdentifierOrString() {
  const char *Start = Cur;
  while (Cur < BufEnd) {
    if (static_cast<unsigned char>(*Cur) < 0x80) {
      if (!isASCIIIdentChar(*Cur))
        break;
      ++Cur;
      continue;
    }
    unsigned Len;
    if (!isIdentifierCodePoint(decodeUTF8(Cur, BufEnd, Len)))
      break;
    Cur += Len;
  }
  if (Cur == Start)
    return fail(Start, invalidCharacterMessage(Start, BufEnd));
  StringRef Text(Start, Cur - Start);
  if (Cur < BufEnd && (*Cur == '"' || *Cur == '\'') && isStringPrefix(Text))
    return lexString(Start, Cur);
  TokenKind Kind = StringSwitch<TokenKind>(Text)
#define TEGULA_KW_CASE(Name) .Case(#Name, TokenKind::kw_##Name)
                       TEGULA_PY_KEYWORDS(TEGULA_KW_CASE)
#undef TEGULA_KW_CASE
                           .Default(TokenKind::Identifier);
  return make(Kind, Start, Cur);
}

Token Lexer::lexString(const char *Start, const char *Quote) {
  uint32_t StartLine = Line, StartColumn = columnOf(Start);
  char Q = *Quote;
  bool Triple = Quote + 2 < BufEnd && Quote[1] == Q && Quote[2] == Q;
  Cur = Quote + (Triple ? 3 : 1);
  for (;;) {
    if (Cur == BufEnd) {
      // Python reports the start of the literal and the last line it read
      // (not the empty "line" after a final newline).
      uint32_t LastLine = Line > StartLine && Cur == LineStart ? Line - 1 : Line;
      return failAt(Start, StartLine, StartColumn,
                    Twine(Triple ? "unterminated triple-quoted string literal"
                                 : "unterminated string literal") +
                        " (detected at line " + Twine(LastLine) + ")");
    }
    char C = *Cur;
    if (C == '\\') {
      ++Cur;
      if (Cur == BufEnd)
        continue;
      if (*Cur == '\n' || *Cur == '\r')
        consumeNewline();
      else
        ++Cur;
      continue;
    }
    if (C == Q) {
      if (!Triple) {
        ++Cur;
        break;
      }
      if (Cur + 2 < BufEnd && Cur[1] == Q && Cur[2] == Q) {
        Cur += 3;
        break;
      }
      ++Cur;
      continue;
    }
    if (C == '\n' || C == '\r') {
      if (!Triple)
        return failAt(Start, StartLine, StartColumn,
                      "unterminated string literal (detected at line " +
                          Twine(Line) + ")");
      consumeNewline();
      continue;
    }
    ++Cur;
  }
  return makeAt(TokenKind::String, Start, Cur, StartLine, StartColumn);
}

static bool isDigitInRadix(char C, unsigned Radix) {
  if (Radix == 16)
    return isDigit(C) || (C >= 'a' && C <= 'f') || (C >= 'A' && C <= 'F');
  return C >= '0' && C < static_cast<char>('0' + Radix);
}

Token Lexer::lexNumber() {
  const char *Start = Cur;
  const char *P = Cur;
  // A number may be followed directly by one of these keywords (`1if x else
  // 2`); CPython accepts that with a warning. Anything else that could
  // continue an identifier makes the literal invalid.
  auto Finish = [&](TokenKind Kind, StringRef What) -> Token {
    if (P < BufEnd && (isASCIIIdentChar(*P) || static_cast<unsigned char>(*P) >= 0x80)) {
      StringRef Rest(P, std::min<size_t>(BufEnd - P, 4));
      bool Keyword = false;
      for (StringRef KW : {"and", "else", "for", "if", "in", "is", "not", "or"})
        Keyword |= Rest.starts_with(KW);
      if (!Keyword)
        return fail(Start, "invalid " + What + " literal");
    }
    Cur = P;
    return make(Kind, Start, P);
  };

  if (*P == '0' && P + 1 < BufEnd && StringRef("xXoObB").contains(P[1])) {
    char R = static_cast<char>(P[1] | 0x20);
    unsigned Radix = R == 'x' ? 16 : R == 'o' ? 8 : 2;
    StringRef What = R == 'x' ? "hexadecimal" : R == 'o' ? "octal" : "binary";
    P += 2;
    bool AnyDigit = false;
    for (;;) {
      if (P < BufEnd && *P == '_' && P + 1 < BufEnd && isDigitInRadix(P[1], Radix)) {
        P += 2;
      } else if (P < BufEnd && isDigitInRadix(*P, Radix)) {
        ++P;
      } else {
        break;
      }
      AnyDigit = true;
    }
    if (P < BufEnd && Radix != 16 && isDigit(*P))
      return fail(P, "invalid digit '" + Twine(*P) + "' in " + What + " literal");
    if (!AnyDigit || (P < BufEnd && *P == '_'))
      return fail(Start, "invalid " + What + " literal");
    return Finish(TokenKind::Integer, What);
  }

  // digitpart: digit (["_"] digit)*; false on an underscore not followed by
  // a digit.
  auto DigitPart = [&]() -> bool {
    ++P;
    while (P < BufEnd) {
      if (isDigit(*P)) {
        ++P;
      } else if (*P == '_') {
        if (P + 1 >= BufEnd || !isDigit(P[1]))
          return false;
        P += 2;
      } else {
        break;
      }
    }
    return true;
  };
  bool IsFloat = false;
  if (*P != '.' && !DigitPart())
    return fail(Start, "invalid decimal literal");
  const char *IntEnd = P;
  if (P < BufEnd && *P == '.') {
    IsFloat = true;
    ++P;
    if (P < BufEnd && isDigit(*P) && !DigitPart())
      return fail(Start, "invalid decimal literal");
  }
  if (P < BufEnd && (*P == 'e' || *P == 'E')) {
    const char *Exponent = P++;
    if (P < BufEnd && (*P == '+' || *P == '-'))
      ++P;
    if (P < BufEnd && isDigit(*P)) {
      if (!DigitPart())
        return fail(Start, "invalid decimal literal");
      IsFloat = true;
    } else {
      P = Exponent; // Maybe `1else`; Finish decides.
    }
  }
  if (P < BufEnd && (*P == 'j' || *P == 'J')) {
    ++P;
    return Finish(TokenKind::Imaginary, "imaginary");
  }
  if (!IsFloat) {
    StringRef Digits(Start, IntEnd - Start);
    if (Digits.size() > 1 && Digits[0] == '0' &&
        Digits.find_first_not_of("0_") != StringRef::npos)
      return fail(Start, "leading zeros in decimal integer literals are not "
                         "permitted; use an 0o prefix for octal integers");
  }
  return Finish(IsFloat ? TokenKind::Float : TokenKind::Integer, "decimal");
}

Token Lexer::lexPunctuator() {
  const char *Start = Cur;
  auto Next = [&](size_t I) -> char { return Start + I < BufEnd ? Start[I] : '\0'; };
  char C0 = Next(0), C1 = Next(1), C2 = Next(2);
  TokenKind Kind;
  unsigned Len = 1;
  auto Pick = [&](TokenKind K, unsigned L) {
    Kind = K;
    Len = L;
  };
  switch (C0) {
  case '(':
  case '[':
  case '{': {
    if (Brackets.size() >= kMaxNestingDepth)
      return fail(Start, "too deeply nested");
    Brackets.push_back({C0, Start, Line, columnOf(Start)});
    Pick(C0 == '(' ? TokenKind::LParen
         : C0 == '[' ? TokenKind::LSquare
                     : TokenKind::LBrace,
         1);
    break;
  }
  case ')':
  case ']':
  case '}': {
    if (Brackets.empty())
      return fail(Start, "unmatched '" + Twine(C0) + "'");
    const Bracket &Open = Brackets.back();
    char Expected = Open.Open == '(' ? ')' : Open.Open == '[' ? ']' : '}';
    if (C0 != Expected) {
      std::string Where =
          Open.Line == Line ? "" : " on line " + std::to_string(Open.Line);
      return fail(Start, "closing parenthesis '" + Twine(C0) +
                             "' does not match opening parenthesis '" +
                             Twine(Open.Open) + "'" + Where);
    }
    Brackets.pop_back();
    Pick(C0 == ')' ? TokenKind::RParen
         : C0 == ']' ? TokenKind::RSquare
                     : TokenKind::RBrace,
         1);
    break;
  }
  case ',': Pick(TokenKind::Comma, 1); break;
  case ';': Pick(TokenKind::Semi, 1); break;
  case '~': Pick(TokenKind::Tilde, 1); break;
  case ':': C1 == '=' ? Pick(TokenKind::ColonEqual, 2) : Pick(TokenKind::Colon, 1); break;
  case '.':
    C1 == '.' && C2 == '.' ? Pick(TokenKind::Ellipsis, 3) : Pick(TokenKind::Dot, 1);
    break;
  case '=': C1 == '=' ? Pick(TokenKind::EqualEqual, 2) : Pick(TokenKind::Equal, 1); break;
  case '!':
    if (C1 != '=')
      return fail(Start, "invalid character '!' (U+0021)");
    Pick(TokenKind::NotEqual, 2);
    break;
  case '+': C1 == '=' ? Pick(TokenKind::PlusEqual, 2) : Pick(TokenKind::Plus, 1); break;
  case '-':
    C1 == '=' ? Pick(TokenKind::MinusEqual, 2)
    : C1 == '>' ? Pick(TokenKind::Arrow, 2)
                : Pick(TokenKind::Minus, 1);
    break;
  case '%': C1 == '=' ? Pick(TokenKind::PercentEqual, 2) : Pick(TokenKind::Percent, 1); break;
  case '@': C1 == '=' ? Pick(TokenKind::AtEqual, 2) : Pick(TokenKind::At, 1); break;
  case '&': C1 == '=' ? Pick(TokenKind::AmpEqual, 2) : Pick(TokenKind::Amp, 1); break;
  case '|': C1 == '=' ? Pick(TokenKind::PipeEqual, 2) : Pick(TokenKind::Pipe, 1); break;
  case '^': C1 == '=' ? Pick(TokenKind::CaretEqual, 2) : Pick(TokenKind::Caret, 1); break;
  case '*':
    if (C1 == '*')
      C2 == '=' ? Pick(TokenKind::DoubleStarEqual, 3) : Pick(TokenKind::DoubleStar, 2);
    else
      C1 == '=' ? Pick(TokenKind::StarEqual, 2) : Pick(TokenKind::Star, 1);
    break;
  case '/':
    if (C1 == '/')
      C2 == '=' ? Pick(TokenKind::DoubleSlashEqual, 3) : Pick(TokenKind::DoubleSlash, 2);
    else
      C1 == '=' ? Pick(TokenKind::SlashEqual, 2) : Pick(TokenKind::Slash, 1);
    break;
  case '<':
    if (C1 == '<')
      C2 == '=' ? Pick(TokenKind::LessLessEqual, 3) : Pick(TokenKind::LessLess, 2);
    else
      C1 == '=' ? Pick(TokenKind::LessEqual, 2) : Pick(TokenKind::Less, 1);
    break;
  case '>':
    if (C1 == '>')
      C2 == '=' ? Pick(TokenKind::GreaterGreaterEqual, 3)
                : Pick(TokenKind::GreaterGreater, 2);
    else
      C1 == '=' ? Pick(TokenKind::GreaterEqual, 2) : Pick(TokenKind::Greater, 1);
    break;
  default:
    return fail(Start, invalidCharacterMessage(Start, BufEnd));
  }
  Cur = Start + Len;
  return make(Kind, Start, Cur);
}

//===----------------------------------------------------------------------===//
// Literal decoding
//===----------------------------------------------------------------------===//

bool tegula::frontend::decodeIntegerLiteral(StringRef Spelling, uint64_t &Value) {
  unsigned Radix = 10;
  if (Spelling.size() > 1 && Spelling[0] == '0') {
    char R = static_cast<char>(Spelling[1] | 0x20);
    if (R == 'x' || R == 'o' || R == 'b') {
      Radix = R == 'x' ? 16 : R == 'o' ? 8 : 2;
      Spelling = Spelling.drop_front(2);
    }
  }
  Value = 0;
  for (char C : Spelling) {
    if (C == '_')
      continue;
    unsigned Digit = isDigit(C) ? C - '0' : (C | 0x20) - 'a' + 10;
    if (Value > (UINT64_MAX - Digit) / Radix)
      return false;
    Value = Value * Radix + Digit;
  }
  return true;
}

double tegula::frontend::decodeFloatLiteral(StringRef Spelling) {
  // Rewrites the literal as <digits>e<exponent> with at most kKeptDigits
  // significant digits (plus a sticky nonzero digit standing for any that
  // were dropped). A double never needs more than 767 significant digits to
  // round correctly, and this keeps APFloat's conversion cheap on literals of
  // any length.
  constexpr size_t kKeptDigits = 800;
  std::string Digits;
  int64_t Exponent = 0;
  bool SeenDot = false, Sticky = false;
  size_t I = 0;
  for (; I < Spelling.size(); ++I) {
    char C = Spelling[I];
    if (C == '_')
      continue;
    if (C == '.') {
      SeenDot = true;
      continue;
    }
    if (!isDigit(C))
      break;
    if (Digits.empty() && C == '0') {
      Exponent -= SeenDot;
      continue;
    }
    if (Digits.size() < kKeptDigits) {
      Digits += C;
      Exponent -= SeenDot;
    } else {
      Sticky |= C != '0';
      Exponent += !SeenDot;
    }
  }
  if (I < Spelling.size() && (Spelling[I] == 'e' || Spelling[I] == 'E')) {
    ++I;
    bool Negative = false;
    if (I < Spelling.size() && (Spelling[I] == '+' || Spelling[I] == '-'))
      Negative = Spelling[I++] == '-';
    int64_t E = 0;
    for (; I < Spelling.size() && (isDigit(Spelling[I]) || Spelling[I] == '_'); ++I)
      if (Spelling[I] != '_' && E < 100000000)
        E = E * 10 + (Spelling[I] - '0');
    Exponent += Negative ? -E : E;
  }
  if (Digits.empty())
    return 0.0;
  if (Sticky) {
    Digits += '1';
    --Exponent;
  }
  Exponent = std::clamp<int64_t>(Exponent, -100000000, 100000000);
  std::string Normalized = Digits + "e" + std::to_string(Exponent);
  APFloat Value(APFloat::IEEEdouble());
  Expected<APFloat::opStatus> Status =
      Value.convertFromString(Normalized, APFloat::rmNearestTiesToEven);
  if (!Status) {
    consumeError(Status.takeError());
    return 0.0;
  }
  return Value.convertToDouble();
}

/// Appends code point |CP| to |Out| as UTF-8; false for surrogates and
/// values beyond U+10FFFF.
static bool appendCodePoint(uint32_t CP, std::string &Out) {
  if (CP > 0x10FFFF || (CP >= 0xD800 && CP <= 0xDFFF))
    return false;
  char Buf[4];
  char *Ptr = Buf;
  if (!ConvertCodePointToUTF8(CP, Ptr))
    return false;
  Out.append(Buf, Ptr);
  return true;
}

bool tegula::frontend::decodeStringLiteral(StringRef Spelling, std::string &Value,
                                           StringLiteralPrefix &Prefix,
                                           std::string &Error,
                                           size_t &ErrorOffset) {
  Prefix = StringLiteralPrefix();
  size_t QuotePos = Spelling.find_first_of("'\"");
  if (QuotePos == StringRef::npos || Spelling.size() < QuotePos + 2) {
    Error = "malformed string literal";
    ErrorOffset = 0;
    return false;
  }
  for (char C : Spelling.take_front(QuotePos)) {
    char L = static_cast<char>(C | 0x20);
    Prefix.Raw |= L == 'r';
    Prefix.Bytes |= L == 'b';
    Prefix.Format |= L == 'f';
  }
  char Q = Spelling[QuotePos];
  bool Triple = Spelling.size() >= QuotePos + 6 &&
                Spelling.substr(QuotePos, 3) == std::string(3, Q) &&
                Spelling.ends_with(std::string(3, Q));
  size_t QuoteLen = Triple ? 3 : 1;
  size_t BodyStart = QuotePos + QuoteLen;
  StringRef Body = Spelling.slice(BodyStart, Spelling.size() - QuoteLen);
  Value.clear();
  auto Fail = [&](size_t At, const Twine &Message) {
    Error = Message.str();
    ErrorOffset = BodyStart + At;
    return false;
  };
  if (Prefix.Bytes) {
    for (size_t I = 0; I < Body.size(); ++I)
      if (static_cast<unsigned char>(Body[I]) >= 0x80)
        return Fail(I, "bytes can only contain ASCII literal characters");
  }
  if (Prefix.Raw) {
    Value = Body.str();
    return true;
  }
  auto HexValue = [&](size_t At, unsigned Count, uint32_t &Out) {
    if (At + Count > Body.size())
      return false;
    Out = 0;
    for (unsigned K = 0; K < Count; ++K) {
      char C = Body[At + K];
      if (!isDigitInRadix(C, 16))
        return false;
      Out = Out * 16 + (isDigit(C) ? C - '0' : (C | 0x20) - 'a' + 10);
    }
    return true;
  };
  for (size_t I = 0; I < Body.size();) {
    char C = Body[I];
    if (C != '\\' || I + 1 == Body.size()) {
      Value += C;
      ++I;
      continue;
    }
    size_t EscapeStart = I;
    char E = Body[I + 1];
    I += 2;
    switch (E) {
    case '\n':
      break;
    case '\r':
      if (I < Body.size() && Body[I] == '\n')
        ++I;
      break;
    case '\\': case '\'': case '"':
      Value += E;
      break;
    case 'a': Value += '\a'; break;
    case 'b': Value += '\b'; break;
    case 'f': Value += '\f'; break;
    case 'n': Value += '\n'; break;
    case 'r': Value += '\r'; break;
    case 't': Value += '\t'; break;
    case 'v': Value += '\v'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      uint32_t Octal = E - '0';
      for (unsigned K = 0; K < 2 && I < Body.size() && Body[I] >= '0' && Body[I] <= '7'; ++K)
        Octal = Octal * 8 + (Body[I++] - '0');
      if (Prefix.Bytes)
        Value += static_cast<char>(Octal & 0xFF);
      else
        appendCodePoint(Octal, Value);
      break;
    }
    case 'x': {
      uint32_t Hex;
      if (!HexValue(I, 2, Hex))
        return Fail(EscapeStart, "truncated \\xXX escape");
      I += 2;
      if (Prefix.Bytes)
        Value += static_cast<char>(Hex);
      else
        appendCodePoint(Hex, Value);
      break;
    }
    case 'u':
    case 'U':
    case 'N': {
      if (Prefix.Bytes) { // Not escapes in bytes literals.
        Value += '\\';
        Value += E;
        break;
      }
      uint32_t CP;
      if (E == 'N') {
        size_t Close = Body.find('}', I);
        if (I >= Body.size() || Body[I] != '{' || Close == StringRef::npos)
          return Fail(EscapeStart, "malformed \\N character escape");
        std::optional<char32_t> Named =
            sys::unicode::nameToCodepointStrict(Body.slice(I + 1, Close));
        if (!Named)
          return Fail(EscapeStart, "unknown Unicode character name");
        CP = *Named;
        I = Close + 1;
      } else {
        unsigned Count = E == 'u' ? 4 : 8;
        if (!HexValue(I, Count, CP))
          return Fail(EscapeStart, E == 'u' ? "truncated \\uXXXX escape"
                                            : "truncated \\UXXXXXXXX escape");
        I += Count;
      }
      if (!appendCodePoint(CP, Value))
        return Fail(EscapeStart, "invalid Unicode code point in escape");
      break;
    }
    default: // Python keeps unknown escapes as written (with a warning).
      Value += '\\';
      Value += E;
      break;
    }
  }
  return true;
}
