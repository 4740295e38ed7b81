//===- FrontendFuzzer.cpp - libFuzzer target over the whole front end -----===//
//
// Feeds arbitrary bytes through lexing, parsing, semantic analysis and tile
// IR generation. Every @jit function found is compiled with a signature
// derived from its parameters (names containing "ptr" or starting with an
// upper-case letter become `*fp32` pointers, `tl.constexpr` ones get 16,
// others `i32`), or with the signature on a first line `#sig: ...`. Errors
// are expected; crashes, hangs and runaway memory are findings.
//
//===----------------------------------------------------------------------===//
#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Parser.h"
#include "tegula/Frontend/Signature.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace tegula::frontend;

static std::string signatureFor(const FunctionDef &f) {
  std::string sig;
  for (const Param &p : f.getParams()) {
    if (!sig.empty())
      sig += ", ";
    llvm::StringRef ann;
    if (p.Annotation)
      ann = "x";
    if (p.Annotation && llvm::isa<AttributeExpr>(p.Annotation) &&
        llvm::cast<AttributeExpr>(p.Annotation)->getName() == "constexpr")
      sig += "16";
    else if (p.Name.contains_insensitive("ptr") ||
             (!p.Name.empty() && isupper(static_cast<unsigned char>(p.Name[0]))))
      sig += "*fp32:16";
    else
      sig += "i32";
  }
  return sig;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 64 * 1024)
    return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  SourceManager sources;
  DiagnosticEngine diags(sources);
  const SourceFile &file = sources.addBuffer(text, "fuzz.py");
  std::unique_ptr<Module> module = parseModule(file, diags);
  if (!module)
    return 0;
  std::string explicitSig;
  if (llvm::StringRef(text).starts_with("#sig:"))
    explicitSig = llvm::StringRef(text).drop_front(5).split('\n').first.trim().str();
  static mlir::MLIRContext *context = [] {
    auto *c = new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
    loadFrontendDialects(*c);
    return c;
  }();
  unsigned compiled = 0;
  for (const FunctionDef *f : module->getFunctions()) {
    if (++compiled > 4)
      break;
    CompileOptions options;
    options.kernelName = f->getName().str();
    auto specs = parseSignature(explicitSig.empty() ? signatureFor(*f) : explicitSig);
    if (!specs) {
      llvm::consumeError(specs.takeError());
      continue;
    }
    options.signature = std::move(*specs);
    DiagnosticEngine kernelDiags(sources);
    auto ir = compileKernel(*module, options, *context, kernelDiags);
    (void)ir;
  }
  return 0;
}
