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

std::vector<tegula::plugin::CompileStage>
tegula::intel::getIntelCompileStages() {
  return {
      {"llvm-ir", false,
       "the spir64 LLVM IR the SPIR-V translator reads (after the LLVM "
       "passes and the LLVM 15 bitcode rewrite)"},
      {"spirv", true, "the SPIR-V module, validated"},
      {"spirv-asm", false, "the validated SPIR-V module, disassembled"},
  };
}

std::vector<tegula::plugin::CompileOption>
tegula::intel::getIntelCompileOptions() {
  return {
      plugin::CompileOption::integer(
          "num_warps", 1, 64, "", "",
          "sub-groups per work-group (default: the kernel's, else 4)"),
      plugin::CompileOption::integer(
          "num_stages", 1, 8, "", "",
          "software-pipelining depth of loops with shared-memory operands "
          "(default: the kernel's)"),
      plugin::CompileOption::choice(
          "sub_group_size", "16|32", "", "TEGULA_INTEL_SUB_GROUP_SIZE",
          "work-items per sub-group, the warp of the layouts (default: "
          "16)"),
  };
}

llvm::Expected<tegula::backend::KernelIR>
tegula::intel::compileTileModule(ModuleOp module,
                                 const plugin::CompileRequest &request,
                                 const IntelTarget &target) {
  unsigned subGroupSize =
      static_cast<unsigned>(request.integer("sub_group_size"));
  if (!subGroupSize)
    subGroupSize = target.defaultSubGroupSize;
  if (!llvm::is_contained(target.subGroupSizes, subGroupSize)) {
    std::string sizes;
    for (unsigned size : target.subGroupSizes)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "intel:" + request.target + " has sub-groups of " +
                            sizes + " work-items, not " +
                            std::to_string(subGroupSize));
  }

  IntelLayoutPolicy policy(subGroupSize);
  std::unique_ptr<backend::TargetHooks> hooks =
      createIntelTargetHooks(subGroupSize);
  // No OpenCL math library is linked: exp, log, tanh, erf, ... are the
  // kit's polynomials (PipelineTarget's default).
  tegula::backend::PipelineTarget pipeline(request, "intel:" + request.target,
                                           subGroupSize,
                                           target.maxWorkGroupSize);
  pipeline.policy = &policy;
  pipeline.hooks = hooks.get();
  pipeline.limit = {target.sharedLocalMemory,
                    "shared local memory per work-group", pipeline.target};
  // A hook's refusal of an op this backend cannot express yet, or an op
  // the lowering has none for ("cannot lower 'tile.X': ...").
  pipeline.refusalMarkers = {kUnsupportedMarker, "cannot lower '"};
  llvm::Expected<tegula::backend::KernelIR> compiled =
      tegula::backend::compileToLLVM(module, pipeline);
  if (!compiled)
    return compiled.takeError();
  backend::KernelIR &kernel = *compiled;
  const std::string &name = kernel.name();

  SpirvKernelShape shape;
  shape.kernel = name;
  shape.subGroupSize = subGroupSize;
  shape.workGroupSize = kernel.numWarps * subGroupSize;
  shape.sharedBytes = kernel.lowered.scratchBytes;
  if (llvm::Error error = prepareForSPIRV(*kernel.llvmModule, shape))
    return compileError(TG_ERROR_INTERNAL, llvm::toString(std::move(error)));
  kernel.clock.lap("llvm-opt");
  if (request.stage == "llvm-ir") {
    kernel.setDataToLLVMIR();
    return std::move(*compiled);
  }

  std::string whyNot;
  std::optional<std::string> translator = findTranslator(whyNot);
  if (!translator)
    return compileError(TG_ERROR_UNAVAILABLE, "cannot make SPIR-V: " + whyNot);
  std::string bitcode = writeBitcode(*kernel.llvmModule);
  kernel.clock.lap("bitcode");
  IntelImage image;
  llvm::Expected<std::string> spirv = translateToSPIRV(*translator, bitcode);
  if (!spirv)
    return kernel.fail(TG_ERROR_INTERNAL, spirv.takeError());
  image.spirv = std::move(*spirv);
  kernel.clock.lap("llvm-spirv");
  if (llvm::Error error = validateSPIRV(image.spirv))
    return kernel.fail(TG_ERROR_INTERNAL, std::move(error));
  kernel.clock.lap("spirv-val");
  if (request.stage == "spirv") {
    kernel.image->data = std::move(image.spirv);
    return std::move(*compiled);
  }
  if (request.stage == "spirv-asm") {
    llvm::Expected<std::string> text = disassembleSPIRV(image.spirv);
    if (!text)
      return compileError(TG_ERROR_INTERNAL, llvm::toString(text.takeError()));
    kernel.image->data = std::move(*text);
    kernel.clock.lap("spirv-dis");
    return std::move(*compiled);
  }

  image.kernelName = name;
  image.target = pipeline.target;
  image.arch = "spirv64";
  image.numWarps = kernel.numWarps;
  image.sharedBytes = kernel.lowered.scratchBytes;
  image.argSizes = kernel.argSizes;
  image.subGroupSize = subGroupSize;
  kernel.image->data = tegula::backend::writeImage(image);
  return std::move(*compiled);
}
