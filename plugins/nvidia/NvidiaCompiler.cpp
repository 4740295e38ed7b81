//===- NvidiaCompiler.cpp - Tile IR to PTX and cubin ----------------------===//

#include "NvidiaCompiler.h"

#include "NvidiaCodegen.h"
#include "NvidiaImage.h"
#include "NvidiaLayoutPolicy.h"
#include "NvidiaMatrixUnits.h"
#include "NvidiaTargetHooks.h"

#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/Conversion/TileToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"


using namespace mlir;
using namespace tegula::nvidia;
using tegula::backend::compileError;

namespace {

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

llvm::Expected<NvidiaKernel>
tegula::nvidia::compileTileModule(ModuleOp module,
                                  const NvidiaCompileOptions &options) {
  const std::vector<std::string> &targets = getNvidiaTargets();
  if (!llvm::is_contained(targets, options.target))
    return compileError(TG_ERROR_INVALID_ARGUMENT,
                        "the nvidia plugin compiles for " +
                            llvm::join(targets, ", ") + ", not '" +
                            options.target + "'");
  const bool singleThread = options.singleThread;

  MLIRContext &context = *module.getContext();
  tegula::backend::prepareCompileContext(context);
  loadNvidiaHookDialects(context);
  {
    DialectRegistry registry;
    registerNVVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
  }

  NvidiaKernel kernel;
  kernel.arch = getCodegenArch(options.target);
  const std::string target = "nvidia:" + options.target;
  llvm::Expected<unsigned> numWarps = tegula::backend::resolveNumWarps(
      module, options.numWarps, /*warpSize=*/32, /*maxThreads=*/1024);
  if (!numWarps)
    return numWarps.takeError();
  unsigned threads = *numWarps * 32;
  // The matrix-unit families middle/'s lowering finds by the kinds of the
  // #tile.matrix layouts the policy chose.
  tegula::backend::MatrixUnitRegistry matrixUnits;
  addNvidiaMatrixUnits(matrixUnits);

  if (!singleThread) {
    // mma.sync for dots unless the mma option is off (FMA, for
    // comparison); wgmma on sm_90a unless the wgmma option is off.
    NvidiaLayoutPolicy policy(getSmVersion(kernel.arch), options.mma,
                              llvm::StringRef(kernel.arch).ends_with("a") &&
                                  options.wgmma);
    tegula::backend::LayoutStageOptions layouts;
    layouts.target = target;
    layouts.numWarps = *numWarps;
    // Loads feeding wgmma operands run num_stages - 1 iterations ahead (3
    // stages unless the option, the kernel or the loop says otherwise).
    layouts.numStages = options.numStages;
    layouts.isSharedOperand = [&](Type type) {
      return tegula::isSharedMatrixOperand(type, matrixUnits);
    };
    if (llvm::Error error =
            tegula::backend::runLayoutStages(module, policy, layouts))
      return error;
    kernel.clock.lap("layouts");
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
  lowering.distributed = !singleThread;
  lowering.matrixUnits = &matrixUnits;
  llvm::Expected<LoweredKernel> lowered =
      tegula::backend::lowerKernel(module, hooks, lowering, target);
  if (!lowered)
    return lowered.takeError();
  kernel.clock.lap("lowering");
  tegula::backend::ScratchLimit limit;
  limit.bytes = getMaxSharedMemory(kernel.arch);
  limit.what = "shared memory per block";
  limit.owner = kernel.arch;
  kernel.image = std::make_unique<tegula::plugin::CompiledImage>();
  NvidiaImage image;
  if (llvm::Error error = tegula::backend::describeKernel(
          *lowered, target, *numWarps, limit, *kernel.image, &image.argSizes))
    return error;
  const std::string &name = lowered->name;

  // A __global__ function, launched with exactly num_warps x 32 threads.
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
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
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule =
      tegula::backend::translateKernel(module, llvmContext, name);
  if (!llvmModule)
    return llvmModule.takeError();
  if (singleThread)
    guardThreadZero(*(*llvmModule)->getFunction(name));
  kernel.clock.lap("translation");

  if (llvm::Error error = optimizeForNVPTX(**llvmModule, name, kernel.arch,
                                           options.llvmPasses))
    // Its errors are plain ones (TG_ERROR_INTERNAL) but for a call of a
    // function NVIDIA GPUs lack.
    return tegula::backend::unimplementedIfAny(
        std::move(error), {"has no implementation on NVIDIA GPUs"});
  kernel.clock.lap("llvm-opt");
  if (options.stage == CompileStage::LLVMIR) {
    llvm::raw_string_ostream os(kernel.llvmIR);
    (*llvmModule)->print(os, nullptr);
    return kernel;
  }

  llvm::Expected<std::string> ptx = emitPTX(**llvmModule, kernel.arch);
  if (!ptx)
    return compileError(TG_ERROR_INTERNAL, llvm::toString(ptx.takeError()));
  kernel.ptx = std::move(*ptx);
  kernel.clock.lap("ptx");
  if (options.stage == CompileStage::PTX)
    return kernel;

  if (std::optional<std::string> ptxas =
          findPtxas(kernel.noCubinReason, options.ptxas)) {
    llvm::Expected<std::string> cubin =
        assemblePTX(*ptxas, kernel.ptx, kernel.arch, options.ptxasOptions);
    if (!cubin)
      return compileError(TG_ERROR_INTERNAL, "kernel " + name + ": " +
                                                 llvm::toString(cubin.takeError()));
    kernel.cubin = std::move(*cubin);
    kernel.clock.lap("ptxas");
  } else if (options.requireCubin) {
    return compileError(TG_ERROR_UNAVAILABLE,
                        "cannot make a cubin: " + kernel.noCubinReason);
  }
  image.kernelName = name;
  image.target = target;
  image.arch = kernel.arch;
  image.numWarps = *numWarps;
  image.sharedBytes = lowered->scratchBytes;
  image.ptx = kernel.ptx;
  image.cubin = kernel.cubin;
  kernel.image->data = tegula::backend::writeImage(image);
  return kernel;
}
