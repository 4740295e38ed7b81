//===- CodeGen.h - Triton kernels to tile IR --------------------*- C++ -*-===//
//
// Compiles one `@jit` kernel of a parsed module, specialized for a
// signature, into a tile IR module: semantic analysis (Triton 3.x rules,
// constexpr evaluation, calls to other `@jit` functions, the `tl`
// namespace) and IR generation in one walk of the AST. Errors go to the
// DiagnosticEngine with the kernel source location; IR ops carry the source
// location of the expression that made them.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_CODEGEN_H
#define TEGULA_FRONTEND_CODEGEN_H

#include "tegula/Frontend/AST.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace tegula::frontend {

/// What to compile and how to specialize it.
struct CompileOptions {
  /// The kernel: a `@jit` function of the module.
  std::string kernelName;
  /// One entry per parameter (see Signature.h), or fewer when keyword
  /// constexprs and defaults supply the rest.
  std::vector<ArgSpec> signature;
  /// Keyword constexprs: `BLOCK=128`.
  llvm::StringMap<ConstantSpec> constexprs;
  /// Launch options recorded on the module (`tile.num_warps`, ...).
  int numWarps = 4;
  int numStages = 3;
  /// Keep `tl.device_assert` and kernel `assert`s (Triton's debug mode).
  bool enableAssertions = true;
  /// Folders searched, first, for the modules of the user's package that
  /// the kernel imports helpers from (ModuleLoader.h): `tegula compile -I`,
  /// the importing process's sys.path.
  std::vector<std::string> searchPaths;
  /// Check every load, store and atomic against the buffers the launch
  /// gives (tile-bounds-check; the kernel takes two hidden i64 arguments per
  /// pointer argument). Applied after the tile-optimize pipeline.
  bool boundsChecks = false;
};

class ModuleLoader;

/// Compiles |options.kernelName| of |module| into a new tile IR module in
/// |context| (which must have the tile dialect loaded, see
/// registerFrontendDialects). Names the kernel imports from other modules
/// of the user's package are read through |loader|; without one, using
/// such a name is an error. Returns null after reporting at least one
/// error to |diags|. Never throws.
mlir::OwningOpRef<mlir::ModuleOp> compileKernel(Module &module,
                                                const CompileOptions &options,
                                                mlir::MLIRContext &context,
                                                DiagnosticEngine &diags,
                                                ModuleLoader *loader = nullptr);

/// Loads the dialects the front end emits into |context|.
void loadFrontendDialects(mlir::MLIRContext &context);

/// The whole path of `tegula compile` and of the compiler C API: parses
/// |file| (one of |sources|), compiles |options.kernelName| (loading the
/// front end's dialects into |context|, and the modules of the user's
/// package it imports helpers from into |sources|) and, when |optimize|,
/// runs the tile-optimize pipeline. |importedFiles|, when given, receives
/// the paths of the other files read, on success and on failure: with
/// |file|, everything the result depends on.
/// Syntax errors in `@jit` functions the kernel does not use do not stop it
/// (as in Triton, which compiles only what a kernel calls); they go to
/// |parseDiags|. Returns null on failure: report |diags|, then |parseDiags|;
/// when the pipeline failed (an internal error), |pipelineError| is set to
/// its messages instead.
mlir::OwningOpRef<mlir::ModuleOp>
compileKernelSource(SourceManager &sources, const SourceFile &file,
                    const CompileOptions &options, mlir::MLIRContext &context,
                    DiagnosticEngine &diags, DiagnosticEngine &parseDiags,
                    bool optimize, std::optional<std::string> &pipelineError,
                    std::vector<std::string> *importedFiles = nullptr);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_CODEGEN_H
