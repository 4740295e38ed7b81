//===- HostCompiler.cpp - Tile bytecode to a host kernel image ------------===//

#include "HostCompiler.h"

#include "HostCodegen.h"
#include "HostTargetHooks.h"

#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/BackendKit/TileCompile.h"
#include "tegula/plugin_support.hpp"

#include "mlir/IR/MLIRContext.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
using tegula::backend::toStatus;
using tegula::plugin::CompiledImage;
using tegula::plugin::CompileRequest;
using tegula::plugin::Status;

namespace {

/// The layouts of the SIMT emulation: a GPU's coalesced blocked layouts for
/// warps of |warpSize|; dots as fused multiply-adds.
class SimtLayoutPolicy : public tegula::backend::LayoutPolicy {
public:
  explicit SimtLayoutPolicy(unsigned warpSize) : warpSize(warpSize) {}
  unsigned getWarpSize() const override { return warpSize; }
  unsigned getMaxAccessBytes() const override { return 16; }
  std::optional<tegula::backend::MatrixInstruction>
  selectMatrixInstruction(const tegula::backend::DotProblem &) const override {
    return std::nullopt;
  }

private:
  unsigned warpSize;
};

} // namespace

Status tegula::host::compileTileBytecode(const CompileRequest &request,
                                         const std::string &arch,
                                         std::unique_ptr<CompiledImage> &image) {
  if (request.target != arch)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "the host plugin compiles for " + arch + ", not '" +
                      request.target + "'");
  llvm::StringRef bytes(static_cast<const char *>(request.bytecode),
                        request.bytecode ? request.bytecodeSize : 0);
  // One context per compile: compiles run concurrently and share nothing.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  tegula::backend::prepareCompileContext(context);
  auto module = tegula::backend::readTileBytecode(bytes, context);
  if (!module)
    return toStatus(module.takeError());

  // The simt option (TEGULA_HOST_SIMT): 0 for the host's one-thread
  // programs, else the warp size of the SIMT emulation.
  unsigned warpSize = static_cast<unsigned>(request.integer("simt"));
  if (warpSize & (warpSize - 1))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  request.describe("simt") +
                      " is not a warp size: a power of 2 from 1 to 64, or 0 "
                      "for one thread per program");
  const std::string target = "host:" + arch;
  unsigned numWarps = 1;
  if (warpSize) {
    // The SIMT emulation of a GPU: the distributed lowering of GPU layouts,
    // a program's threads as OS threads (HostLauncher).
    llvm::Expected<unsigned> warps = tegula::backend::resolveNumWarps(
        **module, static_cast<unsigned>(request.integer("num_warps")),
        warpSize, /*maxThreads=*/1024, /*fallback=*/1);
    if (!warps)
      return toStatus(warps.takeError());
    numWarps = *warps;
    tegula::backend::LayoutStageOptions layouts;
    layouts.target = target;
    layouts.numWarps = numWarps;
    if (llvm::Error error = tegula::backend::runLayoutStages(
            **module, SimtLayoutPolicy(warpSize), layouts))
      return toStatus(std::move(error));
  }
  HostTargetHooks hooks(warpSize);
  // No vector math library on a CPU: polynomial exp/log/... on vectors.
  LoweringOptions options;
  options.polynomialMath = true;
  options.distributed = warpSize != 0;
  llvm::Expected<LoweredKernel> lowered =
      tegula::backend::lowerKernel(**module, hooks, options, target);
  if (!lowered)
    return toStatus(lowered.takeError());

  // The kernel's metadata, from the lowering's view of its arguments: one
  // warp (a program is one launch unit), its scratch as shared memory.
  auto result = std::make_unique<CompiledImage>();
  std::vector<uint32_t> argSizes;
  if (llvm::Error error = tegula::backend::describeKernel(
          *lowered, target, /*numWarps=*/1, tegula::backend::ScratchLimit(),
          *result, &argSizes))
    return toStatus(std::move(error));
  uint64_t argsSize = tegula::plugin::packArgumentOffsets(
      argSizes.data(), argSizes.size(), nullptr);

  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      tegula::backend::translateKernel(**module, llvmContext, lowered->name);
  if (!llvmModule)
    return toStatus(llvmModule.takeError());
  llvm::Function *body = (*llvmModule)->getFunction(lowered->name);
  if (body->arg_size() != lowered->args.size() + 1)
    return Status(TG_ERROR_INTERNAL,
                  "the lowering did not produce @" + lowered->name + " with " +
                      std::to_string(lowered->args.size()) +
                      " arguments and the program context");
  llvm::Expected<uint64_t> entryArgsSize = addHostEntry(*body, lowered->name);
  if (!entryArgsSize)
    return Status(TG_ERROR_INTERNAL, llvm::toString(entryArgsSize.takeError()));
  // The runtime packs by the metadata, the entry unpacks by the LLVM types:
  // they must agree.
  if (*entryArgsSize != argsSize)
    return Status(TG_ERROR_INTERNAL,
                  "the lowered signature of " + lowered->name + " unpacks " +
                      std::to_string(*entryArgsSize) +
                      " bytes of arguments, its metadata packs " +
                      std::to_string(argsSize));

  HostKernelInfo info;
  info.name = lowered->name;
  info.target = target;
  info.scratchBytes = lowered->scratchBytes;
  info.packedArgsSize = *entryArgsSize;
  info.simtThreads = warpSize ? uint64_t(warpSize) * numWarps : 1;
  HostOutput output = request.stage == "llvm-ir" ? HostOutput::LLVMIR
                      : request.stage == "asm"   ? HostOutput::Assembly
                      : request.stage == "object" ? HostOutput::Object
                                                  : HostOutput::Image;
  llvm::Expected<std::string> bytesOut =
      compileLLVMModuleToImage(**llvmModule, info, output);
  if (!bytesOut)
    return Status(TG_ERROR_INTERNAL, llvm::toString(bytesOut.takeError()));
  result->data = std::move(*bytesOut);
  image = std::move(result);
  return Status::success();
}
