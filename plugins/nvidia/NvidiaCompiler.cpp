//===- NvidiaCompiler.cpp - Tile IR to PTX and cubin ----------------------===//

#include "NvidiaCompiler.h"

#include "NvidiaCodegen.h"
#include "NvidiaImage.h"
#include "NvidiaLayoutPolicy.h"
#include "NvidiaMatrixUnits.h"
#include "NvidiaTargetHooks.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"
#include "tegula/plugin_support.hpp"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using tegula::backend::DiagnosticCollector;
using tegula::backend::takeModule;
using tegula::backend::toScalarType;
using tegula::backend::typeText;
using namespace tegula::nvidia;

char CompileError::ID = 0;

void CompileError::log(llvm::raw_ostream &os) const { os << text; }

std::error_code CompileError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error tegula::nvidia::compileError(int32_t code,
                                         const llvm::Twine &message) {
  std::string text = message.str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return llvm::make_error<CompileError>(code, std::move(text));
}

std::pair<int32_t, std::string>
tegula::nvidia::takeCompileError(llvm::Error error) {
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

namespace {


/// Records the wall-clock time from its creation (or the last lap) to each
/// lap() in |kernel|'s stageSeconds.
class StageClock {
public:
  explicit StageClock(NvidiaKernel &kernel)
      : kernel(kernel), start(std::chrono::steady_clock::now()) {}
  void lap(const char *stage) {
    auto now = std::chrono::steady_clock::now();
    kernel.stageSeconds.emplace_back(
        stage, std::chrono::duration<double>(now - start).count());
    start = now;
  }

private:
  NvidiaKernel &kernel;
  std::chrono::steady_clock::time_point start;
};

/// True when TEGULA_NVIDIA_LOWERING asks for the one-thread interim model.
llvm::Expected<bool> singleThreadLowering() {
  const char *mode = std::getenv("TEGULA_NVIDIA_LOWERING");
  if (!mode || !*mode || llvm::StringRef(mode) == "distributed")
    return false;
  if (llvm::StringRef(mode) == "single-thread")
    return true;
  return compileError(TG_ERROR_INVALID_ARGUMENT,
                      "TEGULA_NVIDIA_LOWERING=" + llvm::Twine(mode) +
                          " is neither 'distributed' nor 'single-thread'");
}

/// Makes every thread but thread 0 of a block return at once from
/// |kernel| (the single-thread model). Static allocas stay in the entry
/// block, where NVPTX keeps them in the frame.
void guardThreadZero(llvm::Function &kernel) {
  llvm::LLVMContext &context = kernel.getContext();
  llvm::BasicBlock &body = kernel.getEntryBlock();
  llvm::BasicBlock *guard =
      llvm::BasicBlock::Create(context, "thread0.guard", &kernel, &body);
  llvm::BasicBlock *idle =
      llvm::BasicBlock::Create(context, "thread0.other", &kernel);
  for (llvm::Instruction &inst : llvm::make_early_inc_range(body))
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
      if (alloca->isStaticAlloca())
        alloca->moveBefore(*guard, guard->end());
  llvm::IRBuilder<> builder(guard);
  llvm::Value *tid = builder.CreateIntrinsic(
      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  builder.CreateCondBr(builder.CreateICmpEQ(tid, builder.getInt32(0)), &body,
                       idle);
  llvm::IRBuilder<>(idle).CreateRetVoid();
}

} // namespace

const std::vector<std::string> &tegula::nvidia::getNvidiaTargets() {
  static const std::vector<std::string> targets = {
      "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
  return targets;
}

uint64_t tegula::nvidia::getMaxSharedMemory(llvm::StringRef arch) {
  // The CUDA programming guide's per-block opt-in limits.
  switch (getSmVersion(arch)) {
  case 75:
    return 64 * 1024;
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
    return 99 * 1024;
  case 90:
    return 227 * 1024;
  default:
    return 0;
  }
}

llvm::Expected<OwningOpRef<ModuleOp>>
tegula::nvidia::readTileBytecode(llvm::StringRef bytes, MLIRContext &context) {
  llvm::MemoryBufferRef buffer(bytes, "tile-bytecode");
  if (!isBytecode(buffer))
    return compileError(TG_ERROR_INVALID_FORMAT,
                        "the input (" + llvm::Twine(bytes.size()) +
                            " bytes) is not tile-dialect MLIR bytecode: it "
                            "does not begin with the MLIR bytecode magic");
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
    return compileError(version ? TG_ERROR_VERSION_MISMATCH
                                : TG_ERROR_INVALID_FORMAT,
                        "cannot read the tile bytecode: " + why);
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

llvm::Expected<NvidiaKernel>
tegula::nvidia::compileTileModule(ModuleOp module,
                                  const NvidiaCompileOptions &options) {
  const std::vector<std::string> &targets = getNvidiaTargets();
  if (!llvm::is_contained(targets, options.target))
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "the nvidia plugin compiles for " +
                            llvm::join(targets, ", ") + ", not '" +
                            options.target + "'");
  llvm::Expected<bool> singleThread = singleThreadLowering();
  if (!singleThread)
    return singleThread.takeError();

  MLIRContext &context = *module.getContext();
  // Errors are one line for the caller: no "see current operation" notes.
  context.printOpOnDiagnostic(false);
  loadNvidiaHookDialects(context);
  tegula::registerTileToLLVMDialects(context);
  {
    DialectRegistry registry;
    registerNVVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
  }
  DiagnosticCollector diagnostics(context);

  NvidiaKernel kernel;
  kernel.target = options.target;
  kernel.arch = getCodegenArch(options.target);
  unsigned numWarps = options.numWarps;
  if (!numWarps) {
    numWarps = 4;
    if (auto warps =
            module->getAttrOfType<IntegerAttr>(tegula::tile::kNumWarpsAttr))
      numWarps = static_cast<unsigned>(warps.getInt());
  }
  if (numWarps == 0 || numWarps > 32 || (numWarps & (numWarps - 1)))
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "num_warps must be a power of 2 from 1 to 32 (at most "
                        "1024 threads per block), not " +
                            llvm::Twine(numWarps));
  module->setAttr(tegula::tile::kNumWarpsAttr,
                  IntegerAttr::get(IntegerType::get(&context, 32), numWarps));
  kernel.numWarps = numWarps;
  unsigned threads = numWarps * 32;
  StageClock clock(kernel);
  // The matrix-unit families middle/'s lowering finds by the kinds of the
  // #tile.matrix layouts the policy chose.
  tegula::backend::MatrixUnitRegistry matrixUnits;
  addNvidiaMatrixUnits(matrixUnits);

  if (!*singleThread) {
    // mma.sync for dots unless TEGULA_NVIDIA_MMA=0 (FMA, for comparison).
    const char *mma = std::getenv("TEGULA_NVIDIA_MMA");
    // wgmma on sm_90a unless TEGULA_NVIDIA_WGMMA=0 (mma.sync then).
    const char *wgmma = std::getenv("TEGULA_NVIDIA_WGMMA");
    NvidiaLayoutPolicy policy(getSmVersion(kernel.arch),
                              !(mma && llvm::StringRef(mma) == "0"),
                              llvm::StringRef(kernel.arch).ends_with("a") &&
                                  !(wgmma && llvm::StringRef(wgmma) == "0"));
    if (failed(tegula::tile::assignLayouts(module, policy, numWarps)) ||
        !diagnostics.empty())
      return compileError(TG_ERROR_INVALID_ARGUMENT,
                          "cannot assign layouts to the kernel for nvidia:" +
                              options.target + ": " +
                              diagnostics.text("the layout assignment failed "
                                               "without a diagnostic"));
    // Conversions of loop-invariant tiles leave their loops (a wgmma
    // operand such as attention's Q is then stored to shared memory once).
    module.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    // Loads feeding wgmma operands run num_stages - 1 iterations ahead
    // (3 stages unless the kernel or the loop says otherwise).
    if (options.numStages)
      module->setAttr(tegula::tile::kNumStagesAttr,
                      IntegerAttr::get(IntegerType::get(&context, 32),
                                       options.numStages));
    if (failed(tegula::tile::pipelineSharedOperandLoads(
            module, 3,
            [&](Type type) {
              return tegula::isSharedMatrixOperand(type, matrixUnits);
            })) ||
        !diagnostics.empty())
      return compileError(TG_ERROR_INTERNAL,
                          "cannot software-pipeline the kernel: " +
                              diagnostics.text("the pipeliner failed"));
    if (const char *dump = std::getenv("TEGULA_NVIDIA_DUMP_LAYOUTS");
        dump && llvm::StringRef(dump) == "1")
      module.print(llvm::errs());
    clock.lap("layouts");
  }

  // tl's `/` on f32 is the approximate full-range division on NVIDIA, as in
  // Triton (tl.math.div_rn stays exact): marked here, emitted as
  // div.full.f32 by the code generator.
  module.walk([&](arith::DivFOp divide) {
    if (getElementTypeOrSelf(divide.getType()).isF32())
      divide.setFastmath(arith::FastMathFlags::afn);
  });

  NvidiaTargetHooks hooks;
  tegula::LoweringOptions lowering;
  // No libdevice: exp, log, tanh, erf, sin, ... as polynomials.
  lowering.polynomialMath = true;
  lowering.distributed = !*singleThread;
  lowering.matrixUnits = &matrixUnits;
  FailureOr<LoweredKernel> lowered =
      tegula::lowerTileToLLVM(module, hooks, lowering);
  // A hook may report an error and go on: any error fails the compile.
  if (failed(lowered) || !diagnostics.empty())
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "cannot compile the kernel for nvidia:" +
                            options.target + ": " +
                            diagnostics.text("the tile-to-LLVM lowering "
                                             "failed without a diagnostic"));
  clock.lap("lowering");
  kernel.name = lowered->name;
  kernel.sharedBytes = lowered->scratchBytes;
  uint64_t maxShared = getMaxSharedMemory(kernel.arch);
  if (kernel.sharedBytes > maxShared)
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "kernel " + kernel.name + " needs " +
                            llvm::Twine(kernel.sharedBytes) +
                            " bytes of shared memory per block; " +
                            kernel.arch + " has at most " +
                            llvm::Twine(maxShared));
  for (auto [index, arg] : llvm::enumerate(lowered->args)) {
    NvidiaKernelArg out;
    out.isPointer = arg.isPointer;
    if (!toScalarType(arg.type, out.type))
      return compileError(TG_ERROR_INVALID_ARGUMENT,
                          "argument " + llvm::Twine(index) + " of kernel " +
                              kernel.name + " has type " + typeText(arg.type) +
                              (arg.isPointer ? " (the pointee)" : "") +
                              ", which the kernel ABI cannot pass");
    out.divisibility = std::max<uint32_t>(arg.divisibility, 1);
    out.packedSize = arg.isPointer
                        ? 8
                        : static_cast<uint32_t>(
                              tegula::plugin::scalarTypeSize(out.type));
    kernel.args.push_back(out);
  }

  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name);
  if (!function || function.getBody().empty())
    return compileError(TG_ERROR_INTERNAL, "the lowering did not produce @" +
                                               kernel.name);
  if (function.getNumArguments() != kernel.args.size())
    return compileError(TG_ERROR_INTERNAL,
                        "the lowered @" + kernel.name + " takes " +
                            llvm::Twine(function.getNumArguments()) +
                            " arguments, the kernel has " +
                            llvm::Twine(kernel.args.size()));
  // A __global__ function, launched with exactly num_warps x 32 threads.
  function->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    UnitAttr::get(&context));
  function->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                    DenseI32ArrayAttr::get(
                        &context, {static_cast<int32_t>(threads), 1, 1}));
  // `.minnctapersm 1`: with .maxntid alone ptxas budgets registers for many
  // resident blocks (a 128x256 mma matmul got 32 registers and 19 KB of
  // spills; with this, 255 registers and 5 KB).
  function->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    IntegerAttr::get(IntegerType::get(&context, 32), 1));

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, kernel.name);
  if (!llvmModule)
    return compileError(TG_ERROR_INTERNAL,
                        "cannot translate the lowered kernel to LLVM IR: " +
                            diagnostics.text("the translation failed"));
  if (*singleThread)
    guardThreadZero(*llvmModule->getFunction(kernel.name));
  clock.lap("translation");

  if (llvm::Error error =
          optimizeForNVPTX(*llvmModule, kernel.name, kernel.arch)) {
    auto [code, message] = takeCompileError(std::move(error));
    bool missingFunction =
        message.find("has no implementation on NVIDIA GPUs") !=
        std::string::npos;
    return compileError(missingFunction ? TG_ERROR_UNIMPLEMENTED
                                        : TG_ERROR_INTERNAL,
                        message);
  }
  clock.lap("llvm-opt");
  if (options.stage == CompileStage::LLVMIR) {
    llvm::raw_string_ostream os(kernel.llvmIR);
    llvmModule->print(os, nullptr);
    return kernel;
  }

  llvm::Expected<std::string> ptx = emitPTX(*llvmModule, kernel.arch);
  if (!ptx)
    return compileError(TG_ERROR_INTERNAL, llvm::toString(ptx.takeError()));
  kernel.ptx = std::move(*ptx);
  clock.lap("ptx");
  if (options.stage == CompileStage::PTX)
    return kernel;

  std::optional<std::string> ptxas = findPtxas(kernel.noCubinReason);
  if (!ptxas) {
    if (options.requireCubin)
      return compileError(TG_ERROR_UNAVAILABLE,
                          "cannot make a cubin: " + kernel.noCubinReason);
    return kernel;
  }
  llvm::Expected<std::string> cubin =
      assemblePTX(*ptxas, kernel.ptx, kernel.arch);
  if (!cubin)
    return compileError(TG_ERROR_INTERNAL, "kernel " + kernel.name + ": " +
                                               llvm::toString(cubin.takeError()));
  kernel.cubin = std::move(*cubin);
  clock.lap("ptxas");
  return kernel;
}

std::string tegula::nvidia::writeKernelImage(const NvidiaKernel &kernel) {
  NvidiaImage image;
  image.kernelName = kernel.name;
  image.target = "nvidia:" + kernel.target;
  image.arch = kernel.arch;
  image.numWarps = kernel.numWarps;
  image.sharedBytes = kernel.sharedBytes;
  for (const NvidiaKernelArg &arg : kernel.args)
    image.argSizes.push_back(arg.packedSize);
  image.ptx = kernel.ptx;
  image.cubin = kernel.cubin;
  return writeNvidiaImage(image);
}
