//===- AmdCompiler.cpp - Tile IR to AMDGPU code objects -------------------===//

#include "AmdCompiler.h"

#include "AmdCodegen.h"
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

/// The words of the refusals of a feature the plugin or the target lacks
/// (kAmdRefusalMarker and the capability checks').
const std::vector<llvm::StringRef> kRefusals = {
    kAmdRefusalMarker, "which amd:", "no implementation on AMD GPUs"};

} // namespace

llvm::Expected<tegula::backend::KernelIR>
tegula::amd::compileTileModule(ModuleOp module,
                               const plugin::CompileRequest &request,
                               const AmdTarget &arch) {
  // 4 or 5: the kit refuses other values of the option.
  const unsigned codeObjectVersion = static_cast<unsigned>(
      std::atoi(request.value("code_object_version").c_str()));

  // The matrix unit middle/'s lowering finds by the kind of the
  // #tile.matrix layouts the policy chose.
  AmdMatrixUnit unit(arch);
  bool useUnit = request.flag("matrix_units") && (arch.mfma || arch.wmma);
  tegula::backend::MatrixUnitRegistry matrixUnits;
  if (useUnit)
    matrixUnits.add(unit);
  AmdLayoutPolicy policy(arch, useUnit ? &unit : nullptr);
  std::unique_ptr<backend::TargetHooks> hooks = createAmdTargetHooks(arch);
  // No device library: exp, log, tanh, erf, sin, ... are the kit's
  // polynomials (PipelineTarget's default).
  tegula::backend::PipelineTarget pipeline(
      request, std::string("amd:") + arch.name, arch.waveSize, arch.maxThreads);
  pipeline.lowering.matrixUnits = &matrixUnits;
  pipeline.policy = &policy;
  pipeline.hooks = hooks.get();
  pipeline.limit = {arch.ldsBytes, "LDS per workgroup", arch.name};
  pipeline.refusalMarkers = kRefusals;
  llvm::Expected<tegula::backend::KernelIR> compiled =
      tegula::backend::compileToLLVM(
          module, pipeline, [&](ModuleOp lowered, backend::KernelIR &) {
            return checkLoweredIntrinsics(lowered, arch);
          });
  if (!compiled)
    return compiled.takeError();
  backend::KernelIR &kernel = *compiled;
  const std::string &name = kernel.name();

  AmdKernelConfig config;
  config.threads = kernel.numWarps * arch.waveSize;
  config.ldsBytes = kernel.lowered.scratchBytes;
  config.codeObjectVersion = codeObjectVersion;
  config.wavesPerEu = static_cast<unsigned>(request.integer("waves_per_eu"));
  if (llvm::Error error =
          prepareForAMDGPU(*kernel.llvmModule, name, arch, config))
    return compileError(TG_ERROR_INTERNAL, llvm::toString(std::move(error)));
  if (llvm::Error error = optimizeForAMDGPU(*kernel.llvmModule, name, arch,
                                            request.value("llvm_passes"))) {
    auto [code, message] = takeCompileError(std::move(error));
    return tegula::backend::unimplementedIfAny(
        compileError(TG_ERROR_INTERNAL, message), kRefusals);
  }
  kernel.clock.lap("llvm-opt");
  if (request.stage == "llvm-ir") {
    kernel.setDataToLLVMIR();
    return std::move(*compiled);
  }

  bool assembly = request.stage == "asm";
  llvm::Expected<std::string> code =
      emitAMDGPU(*kernel.llvmModule, arch, assembly);
  if (!code)
    return kernel.fail(TG_ERROR_INTERNAL, code.takeError());
  kernel.clock.lap("codegen");
  if (assembly) {
    kernel.image->data = std::move(*code);
    return std::move(*compiled);
  }
  llvm::Expected<std::string> hsaco = linkCodeObject(*code);
  if (!hsaco)
    return kernel.fail(TG_ERROR_INTERNAL, hsaco.takeError());
  kernel.clock.lap("link");
  if (request.stage == "hsaco") {
    kernel.image->data = std::move(*hsaco);
    return std::move(*compiled);
  }
  AmdImage image;
  image.kernelName = name;
  image.target = pipeline.target;
  image.arch = arch.name;
  image.numWarps = kernel.numWarps;
  // The LDS is allocated statically by the code object: a launch adds
  // none.
  image.sharedBytes = 0;
  image.argSizes = kernel.argSizes;
  image.waveSize = arch.waveSize;
  image.codeObjectVersion = codeObjectVersion;
  image.ldsBytes = kernel.lowered.scratchBytes;
  image.hsaco = std::move(*hsaco);
  kernel.image->data = tegula::backend::writeImage(image);
  return std::move(*compiled);
}
