//===- CompileSource.cpp - Source file to optimized tile IR ---------------===//

#include "tegula/Dialect/Tile/Transforms/Passes.h"
#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/ModuleLoader.h"
#include "tegula/Frontend/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace tegula::frontend;

mlir::OwningOpRef<mlir::ModuleOp> tegula::frontend::compileKernelSource(
    SourceManager &sources, const SourceFile &file,
    const CompileOptions &options, mlir::MLIRContext &context,
    DiagnosticEngine &diags, DiagnosticEngine &parseDiags, bool optimize,
    std::optional<std::string> &pipelineError,
    std::vector<std::string> *importedFiles) {
  std::unique_ptr<Module> module = parseModule(file, parseDiags);
  if (parseDiags.hasErrors() && !module->lookupFunction(options.kernelName))
    return nullptr;
  loadFrontendDialects(context);
  ModuleLoader loader(sources, parseDiags, *module, options.searchPaths);
  mlir::OwningOpRef<mlir::ModuleOp> ir =
      compileKernel(*module, options, context, diags, &loader);
  if (importedFiles)
    importedFiles->assign(loader.getFiles().begin(), loader.getFiles().end());
  if (!ir || (!optimize && !options.boundsChecks))
    return ir;
  mlir::PassManager pm(&context);
  if (optimize)
    tile::buildTileOptimizePipeline(pm);
  if (options.boundsChecks)
    pm.addPass(tile::createTileBoundsCheck());
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream(errors)
        << d.getLocation() << ": " << d.str() << "\n";
    return mlir::success();
  });
  if (mlir::failed(pm.run(*ir))) {
    pipelineError = errors;
    return nullptr;
  }
  return ir;
}
