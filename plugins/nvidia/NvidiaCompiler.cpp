//===- NvidiaCompiler.cpp - Tile IR to PTX and cubin ----------------------===//

#include "NvidiaCompiler.h"

#include "NvidiaCodegen.h"
#include "NvidiaDevice.h"
#include "NvidiaLayoutPolicy.h"
#include "NvidiaMatrixUnits.h"
#include "NvidiaTargetHooks.h"

#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/Conversion/TileToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"

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
  static const std::vector<std::string> targets = {"sm_75", "sm_80", "sm_86",
                                                   "sm_89", "sm_90", "sm_90a"};
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

llvm::Expected<tegula::backend::KernelIR>
tegula::nvidia::compileTileModule(ModuleOp module,
                                  const plugin::CompileRequest &request) {
  // The kit has checked the target against getNvidiaTargets().
  const bool singleThread = request.value("lowering") == "single-thread";
  MLIRContext &context = *module.getContext();
  const std::string arch = getCodegenArch(request.target);

  // mma.sync for dots unless the mma option is off (FMA, for comparison);
  // wgmma on sm_90a unless the wgmma option is off. The lowering finds the
  // matrix-unit families by the kinds of the #tile.matrix layouts chosen.
  NvidiaLayoutPolicy policy(getSmVersion(arch), request.flag("mma"),
                            llvm::StringRef(arch).ends_with("a") &&
                                request.flag("wgmma"));
  tegula::backend::MatrixUnitRegistry matrixUnits;
  addNvidiaMatrixUnits(matrixUnits);
  std::unique_ptr<backend::TargetHooks> hooks = createNvidiaTargetHooks();
  // No libdevice: exp, log, tanh, erf, sin, ... are the kit's polynomials
  // (PipelineTarget's default).
  tegula::backend::PipelineTarget pipeline(request, "nvidia:" + request.target,
                                           /*warpSize=*/32,
                                           /*maxThreads=*/1024);
  pipeline.policy = singleThread ? nullptr : &policy;
  // Loads feeding wgmma operands run num_stages - 1 iterations ahead (3
  // stages unless the option, the kernel or the loop says otherwise).
  pipeline.pipelineSharedOperands = true;
  pipeline.hooks = hooks.get();
  pipeline.lowering.matrixUnits = &matrixUnits;
  pipeline.limit = {getMaxSharedMemory(arch), "shared memory per block", arch};

  // tl's `/` on f32 is the approximate full-range division on NVIDIA, as in
  // Triton (tl.math.div_rn stays exact): marked here, emitted as
  // div.full.f32 by the code generator.
  module.walk([&](arith::DivFOp divide) {
    if (getElementTypeOrSelf(divide.getType()).isF32())
      divide.setFastmath(arith::FastMathFlags::afn);
  });

  llvm::Expected<tegula::backend::KernelIR> compiled =
      tegula::backend::compileToLLVM(
          module, pipeline, [&](ModuleOp lowered, backend::KernelIR &kernel) {
            // A __global__ function, launched with exactly num_warps x 32
            // threads.
            auto function =
                lowered.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name());
            function->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                              UnitAttr::get(&context));
            int32_t threads = static_cast<int32_t>(kernel.numWarps * 32);
            function->setAttr(
                NVVM::NVVMDialect::getMaxntidAttrName(),
                DenseI32ArrayAttr::get(&context, {threads, 1, 1}));
            // `.minnctapersm 1`: with .maxntid alone ptxas budgets registers
            // for many resident blocks (a 128x256 mma matmul got 32
            // registers and 19 KB of spills; with this, 255 registers and
            // 5 KB).
            function->setAttr(
                NVVM::NVVMDialect::getMinctasmAttrName(),
                IntegerAttr::get(IntegerType::get(&context, 32), 1));
            return llvm::Error::success();
          });
  if (!compiled)
    return compiled.takeError();
  backend::KernelIR &kernel = *compiled;
  const std::string &name = kernel.name();
  if (singleThread)
    guardThreadZero(*kernel.llvmModule->getFunction(name));

  if (llvm::Error error = optimizeForNVPTX(*kernel.llvmModule, name, arch,
                                           request.value("llvm_passes")))
    // Its errors are plain ones (TG_ERROR_INTERNAL) but for a call of a
    // function NVIDIA GPUs lack.
    return tegula::backend::unimplementedIfAny(
        std::move(error), {"has no implementation on NVIDIA GPUs"});
  kernel.clock.lap("llvm-opt");
  if (request.stage == "llvm-ir") {
    kernel.setDataToLLVMIR();
    return std::move(*compiled);
  }

  NvidiaImage image;
  llvm::Expected<std::string> ptx = emitPTX(*kernel.llvmModule, arch);
  if (!ptx)
    return compileError(TG_ERROR_INTERNAL, llvm::toString(ptx.takeError()));
  image.ptx = std::move(*ptx);
  kernel.clock.lap("ptx");
  if (request.stage == "ptx") {
    kernel.image->data = std::move(image.ptx);
    return std::move(*compiled);
  }

  std::string noCubinReason;
  if (std::optional<std::string> ptxas =
          findPtxas(noCubinReason, request.value("ptxas"))) {
    llvm::Expected<std::string> cubin =
        assemblePTX(*ptxas, image.ptx, arch, request.value("ptxas_options"));
    if (!cubin)
      return kernel.fail(TG_ERROR_INTERNAL, cubin.takeError());
    image.cubin = std::move(*cubin);
    kernel.clock.lap("ptxas");
  } else if (request.stage == "cubin") {
    return compileError(TG_ERROR_UNAVAILABLE,
                        "cannot make a cubin: " + noCubinReason);
  }
  if (request.stage == "cubin") {
    kernel.image->data = std::move(image.cubin);
    return std::move(*compiled);
  }
  image.kernelName = name;
  image.target = pipeline.target;
  image.arch = arch;
  image.numWarps = kernel.numWarps;
  image.sharedBytes = kernel.lowered.scratchBytes;
  image.argSizes = kernel.argSizes;
  kernel.image->data = tegula::backend::writeImage(image);
  return std::move(*compiled);
}
