//===- IntelCompiler.cpp - Tile IR to SPIR-V ------------------------------===//

#include "IntelCompiler.h"

#include "IntelCodegen.h"
#include "IntelImage.h"
#include "IntelLayoutPolicy.h"
#include "IntelTargetHooks.h"
#include "IntelTargets.h"
#include "SpirvTools.h"

#include "tegula/Conversion/TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tegula::intel;
using tegula::backend::compileError;

namespace {

/// |error| with its code made TG_ERROR_UNIMPLEMENTED when a hook refused an
/// op this backend cannot express yet, or the lowering found none for it
/// ("cannot lower 'tile.X': ..."); the message keeps the op's location.
llvm::Error markUnimplemented(llvm::Error error) {
  return tegula::backend::unimplementedIfAny(
      std::move(error), {kUnsupportedMarker, "cannot lower '"});
}

} // namespace

llvm::Expected<IntelKernel>
tegula::intel::compileTileModule(ModuleOp module,
                                 const IntelCompileOptions &options) {
  const IntelTarget *target = findIntelTarget(options.target);
  if (!target)
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "the intel plugin compiles for " +
                            llvm::join(getIntelTargetNames(), ", ") +
                            ", not '" + options.target + "'");
  unsigned subGroupSize =
      options.subGroupSize ? options.subGroupSize : target->defaultSubGroupSize;
  if (!llvm::is_contained(target->subGroupSizes, subGroupSize)) {
    std::string sizes;
    for (unsigned size : target->subGroupSizes)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "intel:" + options.target + " has sub-groups of " +
                            sizes + " work-items, not " +
                            std::to_string(subGroupSize));
  }

  MLIRContext &context = *module.getContext();
  tegula::backend::prepareCompileContext(context);
  loadIntelHookDialects(context);

  IntelKernel kernel;
  kernel.subGroupSize = subGroupSize;
  const std::string targetName = "intel:" + options.target;
  llvm::Expected<unsigned> numWarps = tegula::backend::resolveNumWarps(
      module, options.numWarps, subGroupSize, target->maxWorkGroupSize);
  if (!numWarps)
    return numWarps.takeError();
  const unsigned workGroupSize = *numWarps * subGroupSize;

  IntelLayoutPolicy policy(subGroupSize);
  tegula::backend::LayoutStageOptions layouts;
  layouts.target = targetName;
  layouts.numWarps = *numWarps;
  layouts.numStages = options.numStages;
  if (llvm::Error error =
          tegula::backend::runLayoutStages(module, policy, layouts))
    return error;
  kernel.clock.lap("layouts");

  IntelTargetHooks hooks(subGroupSize);
  tegula::LoweringOptions lowering;
  // No OpenCL math library is linked: exp, log, tanh, erf, ... as
  // polynomials, as on NVIDIA.
  lowering.polynomialMath = true;
  lowering.distributed = true;
  llvm::Expected<LoweredKernel> lowered =
      tegula::backend::lowerKernel(module, hooks, lowering, targetName);
  if (!lowered)
    return markUnimplemented(lowered.takeError());
  kernel.clock.lap("lowering");

  tegula::backend::ScratchLimit limit;
  limit.bytes = target->sharedLocalMemory;
  limit.what = "shared local memory per work-group";
  limit.owner = targetName;
  kernel.image = std::make_unique<tegula::plugin::CompiledImage>();
  IntelImage image;
  if (llvm::Error error = tegula::backend::describeKernel(
          *lowered, targetName, *numWarps, limit, *kernel.image,
          &image.argSizes))
    return error;
  const std::string &name = lowered->name;

  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      tegula::backend::translateKernel(module, llvmContext, name);
  if (!llvmModule)
    return llvmModule.takeError();
  kernel.clock.lap("translation");

  SpirvKernelShape shape;
  shape.kernel = name;
  shape.subGroupSize = subGroupSize;
  shape.workGroupSize = workGroupSize;
  shape.sharedBytes = lowered->scratchBytes;
  if (llvm::Error error = prepareForSPIRV(**llvmModule, shape))
    return compileError(TG_ERROR_INTERNAL,
                        llvm::toString(std::move(error)));
  kernel.clock.lap("llvm-opt");
  if (options.stage == IntelStage::LLVMIR) {
    llvm::raw_string_ostream os(kernel.llvmIR);
    (*llvmModule)->print(os, nullptr);
    return kernel;
  }

  std::string whyNot;
  std::optional<std::string> translator = findTranslator(whyNot);
  if (!translator)
    return compileError(TG_ERROR_UNAVAILABLE,
                        "cannot make SPIR-V: " + whyNot);
  std::string bitcode = writeBitcode(**llvmModule);
  kernel.clock.lap("bitcode");
  llvm::Expected<std::string> spirv = translateToSPIRV(*translator, bitcode);
  if (!spirv)
    return compileError(TG_ERROR_INTERNAL, "kernel " + name + ": " +
                                               llvm::toString(spirv.takeError()));
  kernel.spirv = std::move(*spirv);
  kernel.clock.lap("llvm-spirv");
  if (llvm::Error error = validateSPIRV(kernel.spirv))
    return compileError(TG_ERROR_INTERNAL, "kernel " + name + ": " +
                                               llvm::toString(std::move(error)));
  kernel.clock.lap("spirv-val");
  if (options.stage == IntelStage::SPIRV)
    return kernel;
  if (options.stage == IntelStage::SPIRVAssembly) {
    llvm::Expected<std::string> text = disassembleSPIRV(kernel.spirv);
    if (!text)
      return compileError(TG_ERROR_INTERNAL, llvm::toString(text.takeError()));
    kernel.spirvAssembly = std::move(*text);
    kernel.clock.lap("spirv-dis");
    return kernel;
  }

  image.kernelName = name;
  image.target = targetName;
  image.arch = "spirv64";
  image.numWarps = *numWarps;
  image.sharedBytes = lowered->scratchBytes;
  image.subGroupSize = subGroupSize;
  image.spirv = kernel.spirv;
  kernel.image->data = tegula::backend::writeImage(image);
  return kernel;
}
