//===- Compile.cpp - `tegula compile` -------------------------------------===//
//
// tegula compile FILE.py --kernel NAME --signature SIG [--constexpr K=V]...
//                [--target TARGET] [--emit tile-ir|tile-ir-raw|tile-bytecode|
//                                          llvm-ir|ptx|cubin]
//                [--num-warps N] [--num-stages N] [--locations]
//                [--time-stages] [-o OUT]
//
// Target code comes from the compilers of the plugins this build has, linked
// in (not loaded through the runtime, which compiles for devices present):
// `--target nvidia:<arch>` (plugins/nvidia/NvidiaCompiler.h) emits the
// optimized LLVM IR, PTX, or a cubin (ptxas needed).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Signature.h"
#ifdef TEGULA_HAVE_NVIDIA_COMPILER
#include "NvidiaCompiler.h"
#endif

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <tuple>

using namespace tegula;
using namespace tegula::frontend;

namespace {
const char *kUsage =
    "usage: tegula compile FILE.py --kernel NAME --signature SIG\n"
    "                      [--constexpr NAME=VALUE]... [--target TARGET]\n"
    "                      [--emit tile-ir|tile-ir-raw|tile-bytecode|\n"
    "                              llvm-ir|ptx|cubin]\n"
    "                      [--num-warps N] [--num-stages N] [--no-assert]\n"
    "                      [--locations] [--time-stages] [-o OUT]\n"
    "\n"
    "Compiles the @jit function NAME of FILE.py for SIG, a signature in the\n"
    "format of Triton's AOT tool (\"*fp32:16, *fp32:16, i32, 1024\").\n"
    "  --emit tile-ir       verified tile IR after the target-independent\n"
    "                       pipeline (the default)\n"
    "  --emit tile-ir-raw   tile IR as the front end made it\n"
    "  --emit tile-bytecode versioned MLIR bytecode (what plugins receive)\n"
    "  --target nvidia:ARCH compile for NVIDIA ARCH (sm_75, sm_80, sm_86,\n"
    "                       sm_89, sm_90, sm_90a); then --emit llvm-ir (the\n"
    "                       optimized LLVM IR), ptx (the default) or cubin\n"
    "                       (needs ptxas: TEGULA_PTXAS, CUDA_HOME, PATH or\n"
    "                       /usr/local/cuda)\n"
    "  --time-stages        print the wall-clock time of each target\n"
    "                       compile stage to stderr\n"
    "Exit status: 0 success, 1 error in the kernel or its options, 2 usage.\n";

int usageError(const std::string &message) {
  std::fprintf(stderr, "tegula compile: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}
} // namespace

int tegula::cli::runCompile(const std::vector<std::string> &args) {
  std::string file, kernel, signature, target, output = "-", emit = "tile-ir";
  bool haveSignature = false, locations = false, emitGiven = false,
       timeStages = false;
  CompileOptions options;
  std::vector<std::pair<std::string, std::string>> constexprs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const char *flag) -> const std::string * {
      if (i + 1 >= args.size())
        return nullptr;
      (void)flag;
      return &args[++i];
    };
    auto flagValue = [&](llvm::StringRef flag, std::string &out) -> int {
      // --flag VALUE or --flag=VALUE; returns 1 if matched, -1 if no value.
      llvm::StringRef s(a);
      if (s == flag) {
        const std::string *v = value(flag.data());
        if (!v)
          return -1;
        out = *v;
        return 1;
      }
      if (s.starts_with(flag.str() + "=")) {
        out = s.drop_front(flag.size() + 1).str();
        return 1;
      }
      return 0;
    };
    std::string v;
    int r;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((r = flagValue("--kernel", v))) {
      if (r < 0) return usageError("--kernel needs a name");
      kernel = v;
    } else if ((r = flagValue("--signature", v))) {
      if (r < 0) return usageError("--signature needs a value");
      signature = v;
      haveSignature = true;
    } else if ((r = flagValue("--constexpr", v))) {
      if (r < 0) return usageError("--constexpr needs NAME=VALUE");
      auto [name, val] = llvm::StringRef(v).split('=');
      if (name.empty() || !llvm::StringRef(v).contains('='))
        return usageError("--constexpr needs NAME=VALUE, got '" + v + "'");
      constexprs.emplace_back(name.str(), val.str());
    } else if ((r = flagValue("--target", v))) {
      if (r < 0) return usageError("--target needs a value");
      target = v;
    } else if ((r = flagValue("--emit", v))) {
      if (r < 0) return usageError("--emit needs a value");
      emit = v;
      emitGiven = true;
    } else if ((r = flagValue("--num-warps", v))) {
      if (r < 0 || llvm::StringRef(v).getAsInteger(10, options.numWarps) ||
          options.numWarps <= 0 || (options.numWarps & (options.numWarps - 1)))
        return usageError("--num-warps needs a power of 2");
    } else if ((r = flagValue("--num-stages", v))) {
      if (r < 0 || llvm::StringRef(v).getAsInteger(10, options.numStages) ||
          options.numStages < 0)
        return usageError("--num-stages needs a non-negative integer");
    } else if ((r = flagValue("-o", v))) {
      if (r < 0) return usageError("-o needs a path");
      output = v;
    } else if (a == "--no-assert") {
      options.enableAssertions = false;
    } else if (a == "--time-stages") {
      timeStages = true;
    } else if (a == "--locations") {
      locations = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usageError("unexpected argument '" + a + "'");
    }
  }
  if (file.empty())
    return usageError("no input file");
  if (kernel.empty())
    return usageError("--kernel is required");
  if (!haveSignature)
    return usageError("--signature is required");
  bool targetCode = emit == "llvm-ir" || emit == "ptx" || emit == "cubin";
  if (!targetCode && emit != "tile-ir" && emit != "tile-ir-raw" &&
      emit != "tile-bytecode") {
    std::fprintf(stderr,
                 "tegula compile: --emit %s is not one of tile-ir, "
                 "tile-ir-raw, tile-bytecode, llvm-ir, ptx, cubin\n",
                 emit.c_str());
    return 1;
  }
  if (target == "none")
    target.clear();
  std::string nvidiaArch;
  if (!target.empty()) {
    llvm::StringRef backend, arch;
    std::tie(backend, arch) = llvm::StringRef(target).split(':');
#ifdef TEGULA_HAVE_NVIDIA_COMPILER
    if (backend != "nvidia" || arch.empty()) {
      std::fprintf(stderr,
                   "tegula compile: target '%s' is not available in this "
                   "build; it compiles for nvidia:<arch> (nvidia:sm_90a, ...), "
                   "and tile IR is target-independent\n",
                   target.c_str());
      return 1;
    }
    nvidiaArch = arch.str();
#else
    (void)backend;
    (void)arch;
    std::fprintf(stderr,
                 "tegula compile: target '%s' is not available in this build "
                 "(it has no backend compiler); tile IR is "
                 "target-independent, so omit --target\n",
                 target.c_str());
    return 1;
#endif
    if (!emitGiven)
      emit = "ptx";
    targetCode = emit == "llvm-ir" || emit == "ptx" || emit == "cubin";
  }
  if (targetCode && target.empty()) {
    std::fprintf(stderr,
                 "tegula compile: --emit %s is target code: name the target, "
                 "e.g. --target nvidia:sm_90a\n",
                 emit.c_str());
    return 1;
  }

  options.kernelName = kernel;
  auto specs = parseSignature(signature);
  if (!specs) {
    std::fprintf(stderr, "tegula compile: error: invalid signature: %s\n",
                 llvm::toString(specs.takeError()).c_str());
    return 1;
  }
  options.signature = std::move(*specs);
  for (auto &[name, text] : constexprs) {
    auto c = parseConstant(text);
    if (!c) {
      std::fprintf(stderr, "tegula compile: error: --constexpr %s: %s\n",
                   name.c_str(), llvm::toString(c.takeError()).c_str());
      return 1;
    }
    options.constexprs[name] = *c;
  }

  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setEchoStream(&llvm::errs());
  std::string readError;
  const SourceFile *source = sources.addFile(file, readError);
  if (!source) {
    std::fprintf(stderr, "tegula compile: error: %s\n", readError.c_str());
    return 1;
  }
  DiagnosticEngine parseDiags(sources);
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::optional<std::string> pipelineError;
  mlir::OwningOpRef<mlir::ModuleOp> ir = compileKernelSource(
      *source, options, context, diags, parseDiags,
      /*optimize=*/emit != "tile-ir-raw", pipelineError);
  if (pipelineError) {
    std::fprintf(stderr, "tegula compile: internal error: the tile-optimize "
                         "pipeline failed:\n%s", pipelineError->c_str());
    return 1;
  }
  if (!ir) {
    // |diags| was echoed as it came.
    parseDiags.printAll(llvm::errs());
    return 1;
  }

  std::string code;
  (void)timeStages; // Without a backend compiler there is nothing to time.
#ifdef TEGULA_HAVE_NVIDIA_COMPILER
  if (targetCode) {
    nvidia::NvidiaCompileOptions nvOptions;
    nvOptions.target = nvidiaArch;
    // The module's tile.num_warps, from --num-warps.
    nvOptions.numWarps = 0;
    nvOptions.stage = emit == "llvm-ir" ? nvidia::CompileStage::LLVMIR
                      : emit == "ptx"   ? nvidia::CompileStage::PTX
                                        : nvidia::CompileStage::Image;
    nvOptions.requireCubin = emit == "cubin";
    llvm::Expected<nvidia::NvidiaKernel> compiled =
        nvidia::compileTileModule(*ir, nvOptions);
    if (!compiled) {
      auto [errorCode, message] =
          backend::takeCompileError(compiled.takeError());
      (void)errorCode;
      std::fprintf(stderr, "tegula compile: error: %s\n", message.c_str());
      return 1;
    }
    if (timeStages)
      for (const auto &[stage, seconds] : compiled->clock.stages())
        std::fprintf(stderr, "%-12s %8.1f ms\n", stage.c_str(),
                     seconds * 1000);
    code = emit == "llvm-ir" ? std::move(compiled->llvmIR)
           : emit == "ptx"   ? std::move(compiled->ptx)
                             : std::move(compiled->cubin);
  }
#endif

  std::string openError;
  auto out = mlir::openOutputFile(output, &openError);
  if (!out) {
    std::fprintf(stderr, "tegula compile: error: %s\n", openError.c_str());
    return 1;
  }
  if (targetCode) {
    out->os() << code;
  } else if (emit == "tile-bytecode") {
    if (mlir::failed(tile::writeTileBytecode(*ir, out->os())))
      return 1;
  } else {
    mlir::OpPrintingFlags flags;
    if (locations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    ir->print(out->os(), flags);
    out->os() << "\n";
  }
  out->keep();
  return 0;
}
