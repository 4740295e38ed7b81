//===- AmdCompiler.cpp - Tile IR to AMDGPU code objects -------------------===//

#include "AmdCompiler.h"

#include "AmdCodegen.h"
#include "AmdImage.h"
#include "AmdLayoutPolicy.h"
#include "AmdLinker.h"
#include "AmdMatrixUnits.h"
#include "AmdTargetHooks.h"
#include "AmdTargets.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/Conversion/TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tegula::amd;
using tegula::backend::compileError;
using tegula::backend::takeCompileError;

namespace {

/// The width of the floating-point element type |op| computes on (its
/// first result's, else its first operand's); 0 for none.
unsigned floatBitsOf(Operation *op) {
  auto bits = [](Type type) -> unsigned {
    Type element = getElementTypeOrSelf(type);
    if (auto vector = dyn_cast<LLVM::LLVMFixedVectorType>(type))
      element = vector.getElementType();
    return isa<FloatType>(element) ? element.getIntOrFloatBitWidth() : 0;
  };
  if (op->getNumResults())
    if (unsigned width = bits(op->getResult(0).getType()))
      return width;
  return op->getNumOperands() ? bits(op->getOperand(0).getType()) : 0;
}

/// Checks every intrinsic of the lowered |module| against |target|'s row
/// of the capability table; the first it lacks is an error at the op's
/// file:line:col (TG_ERROR_UNIMPLEMENTED).
llvm::Error checkLoweredIntrinsics(ModuleOp module, const AmdTarget &target) {
  tegula::backend::DiagnosticCollector diagnostics(*module.getContext());
  WalkResult walk = module.walk([&](Operation *op) {
    std::string name;
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
      name = call.getIntrin().str();
    else if (llvm::StringRef opName = op->getName().getStringRef();
             opName.consume_front("llvm.intr."))
      name = ("llvm." + opName).str();
    else
      return WalkResult::advance();
    unsigned floatBits = floatBitsOf(op);
    std::string why = checkIntrinsic(target, name, floatBits);
    if (why.empty())
      return WalkResult::advance();
    InFlightDiagnostic error = op->emitError();
    error << name;
    if (floatBits)
      error << " on f" << floatBits;
    error << " " << kAmdRefusalMarker << ": " << why;
    return WalkResult::interrupt();
  });
  if (!walk.wasInterrupted())
    return llvm::Error::success();
  return compileError(TG_ERROR_UNIMPLEMENTED,
                      diagnostics.text("an intrinsic the target lacks"));
}

/// |error| as TG_ERROR_UNIMPLEMENTED when it is a refusal of a feature the
/// plugin or the target lacks (kAmdRefusalMarker), else unchanged.
llvm::Error classify(llvm::Error error) {
  return tegula::backend::unimplementedIfAny(
      std::move(error),
      {kAmdRefusalMarker, "which amd:", "no implementation on AMD GPUs"});
}

} // namespace

llvm::Expected<AmdKernel>
tegula::amd::compileTileModule(ModuleOp module,
                               const AmdCompileOptions &options) {
  const AmdTarget *arch = findAmdTarget(options.target);
  if (!arch)
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "the amd plugin compiles for " +
                            llvm::join(getAmdTargetNames(), ", ") + ", not '" +
                            options.target + "'");
  if (options.codeObjectVersion != 4 && options.codeObjectVersion != 5)
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "code object version " +
                            llvm::Twine(options.codeObjectVersion) +
                            " is not 4 or 5");

  MLIRContext &context = *module.getContext();
  tegula::backend::prepareCompileContext(context);
  loadAmdHookDialects(context);

  AmdKernel kernel;
  const std::string target = std::string("amd:") + arch->name;
  llvm::Expected<unsigned> numWarps = tegula::backend::resolveNumWarps(
      module, options.numWarps, arch->waveSize, arch->maxThreads);
  if (!numWarps)
    return numWarps.takeError();
  unsigned threads = *numWarps * arch->waveSize;

  // The matrix unit middle/'s lowering finds by the kind of the
  // #tile.matrix layouts the policy chose.
  AmdMatrixUnit unit(*arch);
  bool useUnit = options.matrixUnits && (arch->mfma || arch->wmma);
  tegula::backend::MatrixUnitRegistry matrixUnits;
  if (useUnit)
    matrixUnits.add(unit);
  AmdLayoutPolicy policy(*arch, useUnit ? &unit : nullptr);
  tegula::backend::LayoutStageOptions layouts;
  layouts.target = target;
  layouts.numWarps = *numWarps;
  layouts.numStages = options.numStages;
  if (llvm::Error error =
          tegula::backend::runLayoutStages(module, policy, layouts))
    return error;
  kernel.clock.lap("layouts");

  AmdTargetHooks hooks(*arch);
  tegula::LoweringOptions lowering;
  // No device library: exp, log, tanh, erf, sin, ... as polynomials.
  lowering.polynomialMath = true;
  lowering.distributed = true;
  lowering.matrixUnits = &matrixUnits;
  llvm::Expected<LoweredKernel> lowered =
      tegula::backend::lowerKernel(module, hooks, lowering, target);
  if (!lowered)
    return classify(lowered.takeError());
  if (llvm::Error error = checkLoweredIntrinsics(module, *arch))
    return error;
  kernel.clock.lap("lowering");

  tegula::backend::ScratchLimit limit;
  limit.bytes = arch->ldsBytes;
  limit.what = "LDS per workgroup";
  limit.owner = arch->name;
  kernel.image = std::make_unique<tegula::plugin::CompiledImage>();
  AmdImage image;
  if (llvm::Error error = tegula::backend::describeKernel(
          *lowered, target, *numWarps, limit, *kernel.image, &image.argSizes))
    return error;
  const std::string &name = lowered->name;
  kernel.ldsBytes = lowered->scratchBytes;

  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      tegula::backend::translateKernel(module, llvmContext, name);
  if (!llvmModule)
    return llvmModule.takeError();
  kernel.clock.lap("translation");

  AmdKernelConfig config;
  config.threads = threads;
  config.ldsBytes = lowered->scratchBytes;
  config.codeObjectVersion = options.codeObjectVersion;
  config.wavesPerEu = options.wavesPerEu;
  if (llvm::Error error =
          prepareForAMDGPU(**llvmModule, name, *arch, config))
    return compileError(TG_ERROR_INTERNAL, llvm::toString(std::move(error)));
  if (llvm::Error error = optimizeForAMDGPU(**llvmModule, name, *arch,
                                            options.llvmPasses)) {
    auto [code, message] = takeCompileError(std::move(error));
    return classify(compileError(TG_ERROR_INTERNAL, message));
  }
  kernel.clock.lap("llvm-opt");
  if (options.stage == AmdStage::LLVMIR) {
    llvm::raw_string_ostream os(kernel.output);
    (*llvmModule)->print(os, nullptr);
    return kernel;
  }

  bool assembly = options.stage == AmdStage::Assembly;
  llvm::Expected<std::string> code = emitAMDGPU(**llvmModule, *arch, assembly);
  if (!code)
    return compileError(TG_ERROR_INTERNAL,
                        "kernel " + name + ": " +
                            llvm::toString(code.takeError()));
  kernel.clock.lap("codegen");
  if (assembly) {
    kernel.output = std::move(*code);
    return kernel;
  }
  llvm::Expected<std::string> hsaco = linkCodeObject(*code);
  if (!hsaco)
    return compileError(TG_ERROR_INTERNAL,
                        "kernel " + name + ": " +
                            llvm::toString(hsaco.takeError()));
  kernel.clock.lap("link");
  if (options.stage == AmdStage::CodeObject) {
    kernel.output = std::move(*hsaco);
    return kernel;
  }
  image.kernelName = name;
  image.target = target;
  image.arch = arch->name;
  image.numWarps = *numWarps;
  // The LDS is allocated statically by the code object: a launch adds
  // none.
  image.sharedBytes = 0;
  image.waveSize = arch->waveSize;
  image.codeObjectVersion = options.codeObjectVersion;
  image.ldsBytes = lowered->scratchBytes;
  image.hsaco = std::move(*hsaco);
  kernel.image->data = tegula::backend::writeImage(image);
  return kernel;
}
