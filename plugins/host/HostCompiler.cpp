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

Status
tegula::host::compileTileBytecode(const CompileRequest &request,
                                  const std::string &arch,
                                  std::unique_ptr<CompiledImage> &image) {
  // The simt option (TEGULA_HOST_SIMT): 0 for the host's one-thread
  // programs, else the warp size of the SIMT emulation.
  unsigned warpSize = static_cast<unsigned>(request.integer("simt"));
  if (warpSize & (warpSize - 1))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  request.describe("simt") +
                      " is not a warp size: a power of 2 from 1 to 64, or 0 "
                      "for one thread per program");
  return tegula::backend::compileRequest(
      request, "tegula host",
      [&](ModuleOp module) -> llvm::Expected<tegula::backend::KernelIR> {
        // The SIMT emulation of a GPU: the distributed lowering of GPU
        // layouts, a program's threads as OS threads (HostLauncher).
        SimtLayoutPolicy simt(warpSize);
        HostTargetHooks hooks(warpSize);
        // No vector math library on a CPU: exp/log/... are the kit's
        // polynomials on vectors (PipelineTarget's default).
        tegula::backend::PipelineTarget pipeline(request, "host:" + arch,
                                                 warpSize,
                                                 /*maxThreads=*/1024);
        pipeline.defaultWarps = 1;
        // num_stages is accepted, not used: the host pipelines no loops.
        pipeline.numStages = 0;
        pipeline.policy = warpSize ? &simt : nullptr;
        pipeline.hooks = &hooks;
        // One warp in the metadata (a program is one launch unit), its
        // scratch as shared memory.
        pipeline.reportedWarps = 1;
        // simt_shared_bytes (TEGULA_HOST_SIMT_SHARED_BYTES) bounds it as a
        // GPU's shared memory does, so that chunked conversions are tested.
        if (uint64_t limit = request.integer("simt_shared_bytes");
            limit && warpSize)
          pipeline.limit = {limit, "shared memory per program",
                            "simt_shared_bytes"};
        llvm::Expected<tegula::backend::KernelIR> compiled =
            tegula::backend::compileToLLVM(module, pipeline);
        if (!compiled)
          return compiled.takeError();
        tegula::backend::KernelIR &kernel = *compiled;
        const std::string &name = kernel.name();
        uint64_t argsSize = tegula::plugin::packArgumentOffsets(
            kernel.argSizes.data(), kernel.argSizes.size(), nullptr);
        llvm::Function *body = kernel.llvmModule->getFunction(name);
        if (body->arg_size() != kernel.lowered.args.size() + 1)
          return tegula::backend::compileError(
              TG_ERROR_INTERNAL, "the lowering did not produce @" + name +
                                     " with " +
                                     llvm::Twine(kernel.lowered.args.size()) +
                                     " arguments and the program context");
        llvm::Expected<uint64_t> entryArgsSize = addHostEntry(*body, name);
        if (!entryArgsSize)
          return tegula::backend::compileError(
              TG_ERROR_INTERNAL, llvm::toString(entryArgsSize.takeError()));
        // The runtime packs by the metadata, the entry unpacks by the LLVM
        // types: they must agree.
        if (*entryArgsSize != argsSize)
          return tegula::backend::compileError(
              TG_ERROR_INTERNAL,
              "the lowered signature of " + name + " unpacks " +
                  llvm::Twine(*entryArgsSize) +
                  " bytes of arguments, its metadata packs " +
                  llvm::Twine(argsSize));

        HostKernelInfo info;
        info.name = name;
        info.target = pipeline.target;
        info.scratchBytes = kernel.lowered.scratchBytes;
        info.packedArgsSize = *entryArgsSize;
        info.simtThreads = warpSize ? uint64_t(warpSize) * kernel.numWarps : 1;
        HostOutput output = request.stage == "llvm-ir"  ? HostOutput::LLVMIR
                            : request.stage == "asm"    ? HostOutput::Assembly
                            : request.stage == "object" ? HostOutput::Object
                                                        : HostOutput::Image;
        llvm::Expected<std::string> bytes =
            compileLLVMModuleToImage(*kernel.llvmModule, info, output);
        if (!bytes)
          return tegula::backend::compileError(
              TG_ERROR_INTERNAL, llvm::toString(bytes.takeError()));
        kernel.image->data = std::move(*bytes);
        return std::move(*compiled);
      },
      image);
}
