//===- TileCompile.cpp - The kit's compile pipeline -----------------------===//

#include "tegula/BackendKit/TileCompile.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/BackendKit/TargetHooks.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"
#include "tegula/plugin_support.hpp"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;
using namespace tegula::backend;
using tegula::plugin::CompiledImage;
using tegula::plugin::CompileRequest;
using tegula::plugin::Status;

char CompileError::ID = 0;

void CompileError::log(llvm::raw_ostream &os) const { os << text; }

std::error_code CompileError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error tegula::backend::compileError(int32_t code,
                                          const llvm::Twine &message) {
  std::string text = message.str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return llvm::make_error<CompileError>(code, std::move(text));
}

std::pair<int32_t, std::string>
tegula::backend::takeCompileError(llvm::Error error) {
  int32_t code = TG_ERROR_INTERNAL;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const CompileError &failure) {
        code = failure.code();
        message = failure.message();
      },
      [&](const llvm::ErrorInfoBase &other) { message = other.message(); });
  std::replace(message.begin(), message.end(), '\n', ' ');
  return {code, message};
}

Status tegula::backend::toStatus(llvm::Error error) {
  if (!error)
    return Status::success();
  auto [code, message] = takeCompileError(std::move(error));
  return Status(code, message);
}

llvm::Error
tegula::backend::unimplementedIfAny(llvm::Error error,
                                    llvm::ArrayRef<llvm::StringRef> markers) {
  if (!error)
    return error;
  auto [code, message] = takeCompileError(std::move(error));
  if (llvm::any_of(markers, [&](llvm::StringRef marker) {
        return llvm::StringRef(message).contains(marker);
      }))
    code = TG_ERROR_UNIMPLEMENTED;
  return compileError(code, message);
}

void StageClock::lap(const char *stage) {
  auto now = std::chrono::steady_clock::now();
  seconds.emplace_back(stage,
                       std::chrono::duration<double>(now - start).count());
  start = now;
}

void StageClock::print(llvm::raw_ostream &os, llvm::StringRef who,
                       llvm::StringRef kernel) const {
  for (const auto &[stage, time] : seconds)
    os << who << " " << kernel << ": " << stage << " "
       << llvm::format("%.1f", time * 1e3) << " ms\n";
}

void tegula::backend::prepareCompileContext(MLIRContext &context) {
  context.disableMultithreading();
  // Errors are one line for the caller: no "see current operation" notes.
  context.printOpOnDiagnostic(false);
  context.getOrLoadDialect<tegula::tile::TileDialect>();
  tegula::registerTileToLLVMDialects(context);
}

llvm::Expected<OwningOpRef<ModuleOp>>
tegula::backend::readTileBytecode(llvm::StringRef bytes, MLIRContext &context) {
  llvm::MemoryBufferRef buffer(bytes, "tile-bytecode");
  DiagnosticCollector diagnostics(context);
  // Verified below, so that a verifier error is told from unreadable input.
  Block parsed;
  tegula::tile::TileBytecodeFailure why;
  if (failed(tegula::tile::readTileBytecode(
          buffer, &parsed, ParserConfig(&context, /*verifyAfterParse=*/false),
          why))) {
    if (why == tegula::tile::TileBytecodeFailure::NotBytecode)
      return compileError(TG_ERROR_INVALID_FORMAT,
                          "the input (" + llvm::Twine(bytes.size()) +
                              " bytes) is not tile-dialect MLIR bytecode: it "
                              "does not begin with the MLIR bytecode magic");
    return compileError(why == tegula::tile::TileBytecodeFailure::Version
                            ? TG_ERROR_VERSION_MISMATCH
                            : TG_ERROR_INVALID_FORMAT,
                        "cannot read the tile bytecode: " +
                            diagnostics.text("the MLIR bytecode reader "
                                             "failed"));
  }
  if (parsed.empty())
    return compileError(TG_ERROR_INVALID_FORMAT,
                        "the tile bytecode holds no module");
  OwningOpRef<ModuleOp> module = takeModule(parsed, context);
  if (failed(verify(*module)))
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "the tile IR does not verify: " +
                            diagnostics.text("the verifier failed"));
  return module;
}

llvm::Expected<unsigned>
tegula::backend::resolveNumWarps(ModuleOp module, unsigned requested,
                                 unsigned warpSize, unsigned maxThreads,
                                 unsigned fallback) {
  int64_t numWarps = requested;
  if (!numWarps) {
    numWarps = fallback;
    if (auto warps =
            module->getAttrOfType<IntegerAttr>(tegula::tile::kNumWarpsAttr))
      numWarps = warps.getInt();
  }
  unsigned maxWarps = std::max(1u, maxThreads / std::max(1u, warpSize));
  if (numWarps <= 0 || numWarps > maxWarps || (numWarps & (numWarps - 1)))
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "num_warps must be a power of 2 from 1 to " +
                            llvm::Twine(maxWarps) + " (at most " +
                            llvm::Twine(maxThreads) +
                            " threads per block), not " +
                            llvm::Twine(numWarps));
  MLIRContext *context = module.getContext();
  module->setAttr(tegula::tile::kNumWarpsAttr,
                  IntegerAttr::get(IntegerType::get(context, 32), numWarps));
  return static_cast<unsigned>(numWarps);
}

llvm::Error tegula::backend::runLayoutStages(ModuleOp module,
                                             const LayoutPolicy &policy,
                                             const LayoutStageOptions &options) {
  MLIRContext *context = module.getContext();
  DiagnosticCollector diagnostics(*context);
  // A policy may report an error and go on: any error fails the compile.
  if (failed(tegula::tile::assignLayouts(module, policy, options.numWarps)) ||
      !diagnostics.empty())
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "cannot assign layouts to the kernel for " +
                            options.target + ": " +
                            diagnostics.text("the layout assignment failed "
                                             "without a diagnostic"));
  module.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
  if (options.isSharedOperand) {
    if (options.numStages)
      module->setAttr(tegula::tile::kNumStagesAttr,
                      IntegerAttr::get(IntegerType::get(context, 32),
                                       options.numStages));
    if (failed(tegula::tile::pipelineSharedOperandLoads(
            module, options.defaultStages, options.isSharedOperand)) ||
        !diagnostics.empty())
      return compileError(TG_ERROR_INTERNAL,
                          "cannot software-pipeline the kernel: " +
                              diagnostics.text("the pipeliner failed"));
  }
  if (const char *dump = std::getenv("TEGULA_DUMP_LAYOUTS");
      dump && llvm::StringRef(dump) == "1")
    module.print(llvm::errs());
  return llvm::Error::success();
}

llvm::Expected<tegula::LoweredKernel>
tegula::backend::lowerKernel(ModuleOp module, const TargetHooks &hooks,
                             const LoweringOptions &options,
                             llvm::StringRef target) {
  DiagnosticCollector diagnostics(*module.getContext());
  FailureOr<LoweredKernel> lowered =
      tegula::lowerTileToLLVM(module, hooks, options);
  // A hook may report an error and go on: any error fails the compile.
  if (failed(lowered) || !diagnostics.empty())
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "cannot compile the kernel for " + target + ": " +
                            diagnostics.text("the tile-to-LLVM lowering "
                                             "failed without a diagnostic"));
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(lowered->name);
  if (!function || function.getBody().empty())
    return compileError(TG_ERROR_INTERNAL,
                        "the lowering did not produce @" + lowered->name);
  return std::move(*lowered);
}

llvm::Error tegula::backend::describeKernel(const LoweredKernel &kernel,
                                            llvm::StringRef target,
                                            unsigned numWarps,
                                            const ScratchLimit &limit,
                                            CompiledImage &image,
                                            std::vector<uint32_t> *packedSizes) {
  if (kernel.scratchBytes > limit.bytes)
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "kernel " + kernel.name + " needs " +
                            llvm::Twine(kernel.scratchBytes) + " bytes of " +
                            limit.what + "; " + limit.owner +
                            " allows at most " + llvm::Twine(limit.bytes));
  image.name = kernel.name;
  image.target = target.str();
  image.numWarps = numWarps;
  image.sharedMemory = static_cast<uint32_t>(kernel.scratchBytes);
  image.specialization = "";
  image.arguments.clear();
  for (auto [index, arg] : llvm::enumerate(kernel.args)) {
    CompiledImage::Argument out;
    out.name = "arg" + std::to_string(index);
    out.kind = arg.isPointer ? TG_ARG_POINTER : TG_ARG_SCALAR;
    if (!toScalarType(arg.type, out.type))
      return compileError(TG_ERROR_INVALID_ARGUMENT,
                          "argument " + llvm::Twine(index) + " of kernel " +
                              kernel.name + " has type " + typeText(arg.type) +
                              (arg.isPointer ? " (the pointee)" : "") +
                              ", which the kernel ABI cannot pass");
    out.divisibility = std::max<uint32_t>(arg.divisibility, 1);
    if (packedSizes)
      packedSizes->push_back(static_cast<uint32_t>(
          tegula::plugin::packedArgumentSize(out.kind, out.type)));
    image.arguments.push_back(std::move(out));
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tegula::backend::translateKernel(ModuleOp module, llvm::LLVMContext &context,
                                 llvm::StringRef kernel) {
  DiagnosticCollector diagnostics(*module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, kernel);
  if (!llvmModule)
    return compileError(TG_ERROR_INTERNAL,
                        "cannot translate the lowered kernel to LLVM IR: " +
                            diagnostics.text("the translation failed"));
  llvm::Function *function = llvmModule->getFunction(kernel);
  if (!function || function->isDeclaration())
    return compileError(TG_ERROR_INTERNAL,
                        "the LLVM IR of the lowered kernel defines no @" +
                            kernel);
  return llvmModule;
}

void KernelIR::setDataToLLVMIR() {
  image->data.clear();
  llvm::raw_string_ostream os(image->data);
  llvmModule->print(os, nullptr);
}

llvm::Error KernelIR::fail(int32_t code, llvm::Error cause) const {
  return compileError(code, "kernel " + name() + ": " +
                                llvm::toString(std::move(cause)));
}

llvm::Expected<KernelIR> tegula::backend::compileToLLVM(
    ModuleOp module, const PipelineTarget &target,
    llvm::function_ref<llvm::Error(ModuleOp, KernelIR &)> beforeTranslation) {
  assert(target.hooks && "the pipeline needs the target's hooks");
  target.hooks->loadDialects(*module.getContext());
  KernelIR kernel;
  if (target.warpSize) {
    llvm::Expected<unsigned> numWarps =
        resolveNumWarps(module, target.numWarps, target.warpSize,
                        target.maxThreads, target.defaultWarps);
    if (!numWarps)
      return numWarps.takeError();
    kernel.numWarps = *numWarps;
  }
  if (target.policy) {
    LayoutStageOptions layouts;
    layouts.target = target.target;
    layouts.numWarps = kernel.numWarps;
    layouts.numStages = target.numStages;
    if (target.pipelineSharedOperands && target.lowering.matrixUnits)
      layouts.isSharedOperand = [&](Type type) {
        return tegula::isSharedMatrixOperand(type,
                                             *target.lowering.matrixUnits);
      };
    if (llvm::Error error = runLayoutStages(module, *target.policy, layouts))
      return std::move(error);
    kernel.clock.lap("layouts");
  }

  LoweringOptions lowering = target.lowering;
  lowering.distributed = target.policy != nullptr;
  // Conversions that would exceed the target's shared memory go in chunks.
  if (!lowering.sharedMemoryLimit)
    lowering.sharedMemoryLimit = target.limit.bytes;
  llvm::Expected<LoweredKernel> lowered =
      lowerKernel(module, *target.hooks, lowering, target.target);
  if (!lowered)
    return unimplementedIfAny(lowered.takeError(), target.refusalMarkers);
  kernel.lowered = std::move(*lowered);
  kernel.clock.lap("lowering");
  kernel.image = std::make_unique<CompiledImage>();
  if (llvm::Error error = describeKernel(
          kernel.lowered, target.target,
          target.reportedWarps ? target.reportedWarps : kernel.numWarps,
          target.limit, *kernel.image, &kernel.argSizes))
    return std::move(error);
  if (beforeTranslation)
    if (llvm::Error error = beforeTranslation(module, kernel))
      return std::move(error);

  kernel.llvmContext = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      translateKernel(module, *kernel.llvmContext, kernel.name());
  if (!llvmModule)
    return llvmModule.takeError();
  kernel.llvmModule = std::move(*llvmModule);
  kernel.clock.lap("translation");
  return kernel;
}

Status tegula::backend::compileRequest(
    const CompileRequest &request, llvm::StringRef who,
    llvm::function_ref<llvm::Expected<KernelIR>(ModuleOp)> compileModule,
    std::unique_ptr<CompiledImage> &image) {
  // One context per compile: compiles run concurrently and share nothing.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  prepareCompileContext(context);
  llvm::StringRef bytes(static_cast<const char *>(request.bytecode),
                        request.bytecode ? request.bytecodeSize : 0);
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      readTileBytecode(bytes, context);
  if (!module)
    return toStatus(module.takeError());
  llvm::Expected<KernelIR> kernel = compileModule(**module);
  if (!kernel)
    return toStatus(kernel.takeError());
  // TEGULA_TIME_STAGES=1: each stage's time, as `tegula compile
  // --time-stages` prints it.
  if (const char *time = std::getenv("TEGULA_TIME_STAGES");
      time && llvm::StringRef(time) == "1")
    kernel->clock.print(llvm::errs(), who, kernel->name());
  image = std::move(kernel->image);
  return Status::success();
}
