//===- HostCompiler.cpp - Tile bytecode to a host kernel image ------------===//

#include "HostCompiler.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/plugin_support.hpp"
#include "HostCodegen.h"
#include "HostTargetHooks.h"

#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
using tegula::backend::DiagnosticCollector;
using tegula::backend::takeModule;
using tegula::backend::toScalarType;
using tegula::backend::typeText;
using tegula::plugin::CompiledImage;
using tegula::plugin::CompileRequest;
using tegula::plugin::Status;

namespace {

/// Bytes a packed argument of |arg| takes (runtime.h).
uint64_t packedSize(const CompiledImage::Argument &arg) {
  if (arg.kind == TG_ARG_POINTER)
    return 8;
  return std::max<uint64_t>(1, tegula::plugin::scalarTypeSize(arg.type));
}


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

/// TEGULA_HOST_SIMT: 0 (unset) for the host's one-thread programs, else the
/// warp size of the SIMT emulation (a power of 2 up to 64).
Status simtWarpSize(unsigned &warpSize) {
  warpSize = 0;
  const char *text = std::getenv("TEGULA_HOST_SIMT");
  if (!text || !*text || std::string(text) == "0")
    return Status::success();
  char *end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (*end || value == 0 || value > 64 || (value & (value - 1)))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  std::string("TEGULA_HOST_SIMT is '") + text +
                      "': expected a warp size, a power of 2 from 1 to 64");
  warpSize = static_cast<unsigned>(value);
  return Status::success();
}

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
  llvm::MemoryBufferRef buffer(bytes, "tile-bytecode");
  if (!isBytecode(buffer))
    return Status(TG_ERROR_INVALID_FORMAT,
                  "the input (" + std::to_string(bytes.size()) +
                      " bytes) is not tile-dialect MLIR bytecode: it does not "
                      "begin with the MLIR bytecode magic");

  // One context per compile: compiles run concurrently and share nothing.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  // Errors are one line for the caller: no "see current operation" notes.
  context.printOpOnDiagnostic(false);
  context.getOrLoadDialect<tegula::tile::TileDialect>();
  tegula::registerTileToLLVMDialects(context);
  DiagnosticCollector diagnostics(context);

  // Verified below, so that a verifier error is told from unreadable input.
  Block parsed;
  if (failed(readBytecodeFile(buffer, &parsed,
                              ParserConfig(&context,
                                           /*verifyAfterParse=*/false)))) {
    std::string why = diagnostics.text("the MLIR bytecode reader failed");
    bool version = why.find("is not supported by this reader") !=
                       std::string::npos ||
                   why.find("version") != std::string::npos;
    return Status(version ? TG_ERROR_VERSION_MISMATCH : TG_ERROR_INVALID_FORMAT,
                  "cannot read the tile bytecode: " + why);
  }
  if (parsed.empty())
    return Status(TG_ERROR_INVALID_FORMAT, "the tile bytecode holds no module");
  OwningOpRef<ModuleOp> module = takeModule(parsed, context);
  if (failed(verify(*module)))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "the tile IR does not verify: " +
                      diagnostics.text("the verifier failed"));

  unsigned warpSize = 0;
  Status simt = simtWarpSize(warpSize);
  if (!simt.ok())
    return simt;
  unsigned numWarps = 1;
  if (auto warps = (*module)->getAttrOfType<IntegerAttr>("tile.num_warps"))
    numWarps = static_cast<unsigned>(std::max<int64_t>(warps.getInt(), 1));
  if (warpSize) {
    // The SIMT emulation of a GPU: the distributed lowering of GPU layouts,
    // a program's threads as OS threads (HostLauncher).
    if (numWarps & (numWarps - 1) || numWarps * warpSize > 1024)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "num_warps " + std::to_string(numWarps) +
                        " is not a power of 2 of at most 1024 threads");
    if (failed(tegula::tile::assignLayouts(
            *module, SimtLayoutPolicy(warpSize), numWarps)))
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "cannot lay out the kernel's tiles: " +
                        diagnostics.text("the layout assignment failed"));
  }
  HostTargetHooks hooks(warpSize);
  // No vector math library on a CPU: polynomial exp/log/... on vectors.
  LoweringOptions options;
  options.polynomialMath = true;
  options.distributed = warpSize != 0;
  FailureOr<LoweredKernel> lowered = lowerTileToLLVM(*module, hooks, options);
  // A hook may report an error and go on: any error fails the compile.
  if (failed(lowered) || !diagnostics.empty())
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "cannot compile the kernel for host: " +
                      diagnostics.text("the tile-to-LLVM lowering failed "
                                       "without a diagnostic"));

  // The kernel's metadata, from the lowering's view of its arguments.
  auto result = std::make_unique<CompiledImage>();
  result->name = lowered->name;
  result->target = "host:" + arch;
  result->numWarps = 1;
  result->specialization = "";
  uint64_t argsSize = 0;
  for (auto [index, arg] : llvm::enumerate(lowered->args)) {
    CompiledImage::Argument out;
    out.name = "arg" + std::to_string(index);
    out.kind = arg.isPointer ? TG_ARG_POINTER : TG_ARG_SCALAR;
    if (!toScalarType(arg.type, out.type))
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "argument " + std::to_string(index) + " of kernel " +
                        lowered->name + " has type " + typeText(arg.type) +
                        (arg.isPointer ? " (the pointee)" : "") +
                        ", which the kernel ABI cannot pass");
    out.divisibility = arg.divisibility;
    uint64_t size = packedSize(out);
    argsSize = (argsSize + size - 1) / size * size + size;
    result->arguments.push_back(std::move(out));
  }
  if (lowered->scratchBytes > UINT32_MAX)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "kernel " + lowered->name + " needs " +
                      std::to_string(lowered->scratchBytes) +
                      " bytes of scratch per program, more than 4 GiB");
  result->sharedMemory = static_cast<uint32_t>(lowered->scratchBytes);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, lowered->name);
  if (!llvmModule)
    return Status(TG_ERROR_INTERNAL,
                  "cannot translate the lowered kernel to LLVM IR: " +
                      diagnostics.text("the translation failed"));
  llvm::Function *body = llvmModule->getFunction(lowered->name);
  if (!body || body->arg_size() != lowered->args.size() + 1)
    return Status(TG_ERROR_INTERNAL,
                  "the lowering did not produce @" + lowered->name + " with " +
                      std::to_string(lowered->args.size()) +
                      " arguments and the program context");
  llvm::Expected<uint64_t> entryArgsSize = addHostEntry(*body, lowered->name);
  if (!entryArgsSize)
    return Status(TG_ERROR_INTERNAL, llvm::toString(entryArgsSize.takeError()));
  // The runtime packs by the metadata, the entry unpacks by the LLVM types:
  // they must agree.
  if (*entryArgsSize != (argsSize + 7) / 8 * 8)
    return Status(TG_ERROR_INTERNAL,
                  "the lowered signature of " + lowered->name + " unpacks " +
                      std::to_string(*entryArgsSize) +
                      " bytes of arguments, its metadata packs " +
                      std::to_string((argsSize + 7) / 8 * 8));

  HostKernelInfo info;
  info.name = lowered->name;
  info.target = result->target;
  info.scratchBytes = lowered->scratchBytes;
  info.packedArgsSize = *entryArgsSize;
  info.simtThreads = warpSize ? uint64_t(warpSize) * numWarps : 1;
  llvm::Expected<std::string> bytesOut =
      compileLLVMModuleToImage(*llvmModule, info);
  if (!bytesOut)
    return Status(TG_ERROR_INTERNAL, llvm::toString(bytesOut.takeError()));
  result->data = std::move(*bytesOut);
  image = std::move(result);
  return Status::success();
}
