//===- Diagnostics.cpp - source files and located diagnostics -------------===//
//
// Source.h and Diagnostics.h: the SourceManager (the layout of the library
// has no separate Source.cpp; source files exist to be reported on) and the
// DiagnosticEngine that renders through llvm::SMDiagnostic.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Source.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Unicode.h"

using namespace llvm;
using namespace tegula::frontend;

//===----------------------------------------------------------------------===//
// SourceFile and SourceManager
//===----------------------------------------------------------------------===//

/// Bytes of a UTF-8 byte order mark at the start of |Text|: the lexer skips
/// it, and line 1 starts after it.
static size_t bomLength(StringRef Text) {
  return Text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
}

SMLoc SourceFile::getSMLoc(uint32_t Offset) const {
  return SMLoc::getFromPointer(Text.data() + std::min<size_t>(Offset, Text.size()));
}

StringRef SourceFile::getLineText(const SourceLocation &Loc) const {
  size_t At = std::min<size_t>(Loc.Offset, Text.size());
  size_t Start = At >= Loc.Column - 1 ? At - (Loc.Column - 1) : 0;
  size_t End = Start;
  while (End < Text.size() && Text[End] != '\n' && Text[End] != '\r')
    ++End;
  return Text.slice(Start, End);
}

SourceLocation SourceFile::getLocation(uint32_t Offset) const {
  size_t Target = std::min<size_t>(Offset, Text.size());
  size_t LineStart = bomLength(Text);
  uint32_t Line = 1;
  for (size_t I = LineStart; I < Target; ++I) {
    char C = Text[I];
    if (C == '\r' && I + 1 < Text.size() && Text[I + 1] == '\n') {
      if (I + 1 == Target)
        break; // Inside a CRLF: the location of the '\r' line.
      ++I;
    } else if (C != '\n' && C != '\r') {
      continue;
    }
    ++Line;
    LineStart = I + 1;
  }
  if (Target < LineStart) // Inside the byte order mark.
    Target = LineStart;
  return SourceLocation{this, Line, static_cast<uint32_t>(Target - LineStart + 1),
                        static_cast<uint32_t>(Target)};
}

SourceManager::SourceManager() = default;
SourceManager::~SourceManager() = default;

const SourceFile &SourceManager::add(std::unique_ptr<MemoryBuffer> Buffer,
                                     StringRef Name) {
  StringRef Text = Buffer->getBuffer();
  unsigned ID = SM.AddNewSourceBuffer(std::move(Buffer), SMLoc());
  Files.push_back(std::unique_ptr<SourceFile>(new SourceFile(Name.str(), Text, ID)));
  return *Files.back();
}

const SourceFile &SourceManager::addBuffer(StringRef Text, StringRef Name) {
  return add(MemoryBuffer::getMemBufferCopy(Text, Name), Name);
}

const SourceFile *SourceManager::addFile(StringRef Path, std::string &Error) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer) {
    Error = ("cannot read '" + Path + "': " + Buffer.getError().message()).str();
    return nullptr;
  }
  return &add(std::move(*Buffer), Path);
}

//===----------------------------------------------------------------------===//
// DiagnosticEngine
//===----------------------------------------------------------------------===//

void DiagnosticEngine::report(DiagSeverity Severity, SourceLocation Loc,
                              const Twine &Message) {
  if (Severity == DiagSeverity::Error)
    ++NumErrors;
  if (StorageLimit != 0 && Diags.size() >= StorageLimit)
    return;
  Diags.push_back(Diagnostic{Severity, Loc, Message.str()});
  if (Echo)
    print(Diags.back(), *Echo);
}

void DiagnosticEngine::clear() {
  Diags.clear();
  NumErrors = 0;
}

/// The source line as shown under a message: control characters and bytes
/// that are not UTF-8 become '?' (byte for byte, so columns still match),
/// keeping the terminal and the caret line sane.
static std::string sanitizeLine(StringRef Line) {
  std::string Out;
  Out.reserve(Line.size());
  const UTF8 *P = reinterpret_cast<const UTF8 *>(Line.begin());
  const UTF8 *End = reinterpret_cast<const UTF8 *>(Line.end());
  while (P < End) {
    if (*P < 0x80) {
      bool Control = (*P < 0x20 && *P != '\t') || *P == 0x7F;
      Out += Control ? '?' : static_cast<char>(*P);
      ++P;
      continue;
    }
    unsigned Len = getNumBytesForUTF8(*P);
    if (Len <= static_cast<unsigned>(End - P) && isLegalUTF8Sequence(P, P + Len)) {
      Out.append(reinterpret_cast<const char *>(P), Len);
      P += Len;
    } else {
      Out += '?';
      ++P;
    }
  }
  return Out;
}

/// The terminal column at which byte |Column| (0-based) of |Line| appears
/// once SMDiagnostic has printed the line: it expands tabs to the next
/// multiple of 8 bytes, and characters take their display width.
static unsigned displayColumn(StringRef Line, unsigned Column) {
  unsigned ByteCol = 0, Display = 0;
  size_t I = 0;
  while (I < Line.size() && I < Column) {
    unsigned char C = Line[I];
    if (C == '\t') {
      unsigned Spaces = 8 - ByteCol % 8;
      ByteCol += Spaces;
      Display += Spaces;
      ++I;
      continue;
    }
    unsigned Len = C < 0x80 ? 1 : getNumBytesForUTF8(C);
    Len = std::max(1u, std::min<unsigned>(Len, Line.size() - I));
    int Width = sys::unicode::columnWidthUTF8(Line.substr(I, Len));
    Display += Width < 0 ? 1 : static_cast<unsigned>(Width);
    ByteCol += Len;
    I += Len;
  }
  return Display + static_cast<unsigned>(Column > I ? Column - I : 0);
}

void DiagnosticEngine::print(const Diagnostic &D, raw_ostream &OS) const {
  SourceMgr::DiagKind Kind = D.Severity == DiagSeverity::Error ? SourceMgr::DK_Error
                             : D.Severity == DiagSeverity::Warning
                                 ? SourceMgr::DK_Warning
                                 : SourceMgr::DK_Note;
  if (!D.Loc.isValid()) {
    SMDiagnostic(/*filename=*/"", Kind, D.Message).print(nullptr, OS, false);
    return;
  }
  const SourceFile &F = *D.Loc.File;
  std::string Line = sanitizeLine(F.getLineText(D.Loc));
  unsigned Column = D.Loc.Column - 1;
  SMDiagnostic Diag(SM.getLLVMSourceMgr(), F.getSMLoc(D.Loc.Offset), F.getName(),
                    static_cast<int>(D.Loc.Line), static_cast<int>(Column), Kind,
                    D.Message, Line, std::nullopt);
  Diag.print(nullptr, OS, /*ShowColors=*/false);
  // SMDiagnostic prints no caret under a line with non-ASCII characters (it
  // cannot tell their width); add it here.
  if (llvm::any_of(Line, [](char C) { return static_cast<unsigned char>(C) >= 0x80; }))
    OS.indent(displayColumn(Line, Column)) << "^\n";
}

std::string DiagnosticEngine::render(const Diagnostic &D) const {
  std::string Out;
  raw_string_ostream OS(Out);
  print(D, OS);
  return Out;
}

void DiagnosticEngine::printAll(raw_ostream &OS) const {
  for (const Diagnostic &D : Diags)
    print(D, OS);
}
