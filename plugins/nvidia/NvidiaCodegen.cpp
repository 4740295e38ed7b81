//===- NvidiaCodegen.cpp - LLVM IR to PTX and cubin -----------------------===//

#include "NvidiaCodegen.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/ExternalTool.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>
#include <memory>
#include <mutex>

// LLVM's NVPTX target (libLLVM exports every built target's initializers;
// naming only these four keeps the other targets out).
extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

using namespace llvm;
using tegula::backend::oneLineError;
using namespace tegula::nvidia;

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

/// 32-bit pointers for shared, constant and local memory (LLVM's
/// -nvptx-short-ptr, as Triton sets it): shared addresses are 32 bits in
/// hardware, and with 64-bit pointers LLVM widened their arithmetic to 64
/// bits and kept hoisted 64-bit bases live (a register pair each). The
/// option is process-wide and read when a target machine computes its data
/// layout; nothing else in the process builds NVPTX code with this LLVM.
void useShortPointers() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it != options.end())
      if (auto *option = static_cast<cl::opt<bool> *>(it->second))
        option->setValue(true);
  });
}

Expected<std::unique_ptr<TargetMachine>> createMachine(StringRef arch) {
  initializeNVPTXTarget();
  useShortPointers();
  if (!getSmVersion(arch))
    return oneLineError("'" + arch +
                        "' is not an NVIDIA arch (sm_XY or sm_XYa)");
  // With fusion NVPTX emits fma.rn.f32 and plain mul/add.f32 that ptxas
  // may contract too, where strict IEEE emitted mul.rn/add.rn.f32, which
  // nothing may fuse (flash attention's softmax had 200 separate
  // mul.rn.f32). At codegen level Default the PTX of the sm_90a corpus is
  // that of Aggressive (sm_80 attention: a dozen integer ops fewer), and
  // GVN was 12% of causal attention's PTX emission.
  return tegula::backend::createTargetMachine(kTriple, arch, kPtxFeatures,
                                              "NVPTX");
}

/// |one| applied to the elements of |operands| (scalars, or fixed vectors
/// of |type|'s shape), gathered into a value of |type|; null for scalable
/// vectors.
Value *mapElements(IRBuilder<> &builder, Type *type, ArrayRef<Value *> operands,
                   function_ref<Value *(ArrayRef<Value *>)> one) {
  auto *vector = dyn_cast<FixedVectorType>(type);
  if (!vector)
    return isa<ScalableVectorType>(type) ? nullptr : one(operands);
  Value *result = PoisonValue::get(type);
  for (unsigned i = 0; i < vector->getNumElements(); ++i) {
    SmallVector<Value *, 2> elements;
    for (Value *operand : operands)
      elements.push_back(builder.CreateExtractElement(operand, i));
    result = builder.CreateInsertElement(result, one(elements), i);
  }
  return result;
}

/// f32 |x| as the NVVM approximation |id| computes it, after scaling by
/// |before| and then by |after| (1 for none).
Value *approximate(IRBuilder<> &builder, Intrinsic::ID id, Value *x,
                   float before, float after) {
  if (before != 1.0f)
    x = builder.CreateFMul(x, ConstantFP::get(builder.getFloatTy(), before));
  Value *result = builder.CreateIntrinsic(id, {}, {x});
  if (after != 1.0f)
    result = builder.CreateFMul(result,
                                ConstantFP::get(builder.getFloatTy(), after));
  return result;
}

/// Replaces calls of the exp and log intrinsics, which LLVM 19's NVPTX back
/// end can only lower to libm calls that do not exist on the GPU, with the
/// PTX approximations ex2.approx and lg2.approx.f32 (as Triton does): exp2,
/// exp, exp10, log2, log, log10 on f32, f16 and bf16 scalars and vectors
/// (f16 and bf16 through f32). exp2 flushes subnormal inputs and results to
/// zero (ex2.approx.ftz.f32, Triton's tl.exp2: one MUFU.EX2, where the
/// non-flushing form adds a compare and two multiplies around it); exp and
/// exp10 keep them. f64 calls stay (and fail later with the function's
/// name).
void lowerMathIntrinsics(Module &module) {
  constexpr float kLog2E = 1.44269504088896341f;
  constexpr float kLog2Of10 = 3.32192809488736235f;
  constexpr float kLn2 = 0.69314718055994531f;
  constexpr float kLog10Of2 = 0.30102999566398120f;
  for (Function &function : llvm::make_early_inc_range(module)) {
    Intrinsic::ID id = function.getIntrinsicID();
    Intrinsic::ID nvvm = Intrinsic::not_intrinsic;
    float before = 1.0f, after = 1.0f;
    switch (id) {
    case Intrinsic::exp2:
      nvvm = Intrinsic::nvvm_ex2_approx_ftz_f;
      break;
    case Intrinsic::exp:
      nvvm = Intrinsic::nvvm_ex2_approx_f;
      before = kLog2E;
      break;
    case Intrinsic::exp10:
      nvvm = Intrinsic::nvvm_ex2_approx_f;
      before = kLog2Of10;
      break;
    case Intrinsic::log2:
      nvvm = Intrinsic::nvvm_lg2_approx_f;
      break;
    case Intrinsic::log:
      nvvm = Intrinsic::nvvm_lg2_approx_f;
      after = kLn2;
      break;
    case Intrinsic::log10:
      nvvm = Intrinsic::nvvm_lg2_approx_f;
      after = kLog10Of2;
      break;
    default:
      continue;
    }
    Type *type = function.getReturnType();
    Type *element = type->getScalarType();
    if (!element->isFloatTy() && !element->isHalfTy() && !element->isBFloatTy())
      continue;
    for (User *user : llvm::make_early_inc_range(function.users())) {
      auto *call = dyn_cast<CallInst>(user);
      if (!call || call->getCalledFunction() != &function)
        continue;
      IRBuilder<> builder(call);
      Value *result = mapElements(
          builder, type, {call->getArgOperand(0)}, [&](ArrayRef<Value *> x) {
            Value *operand = x[0];
            if (!element->isFloatTy())
              operand = builder.CreateFPExt(operand, builder.getFloatTy());
            Value *y = approximate(builder, nvvm, operand, before, after);
            return element->isFloatTy() ? y : builder.CreateFPTrunc(y, element);
          });
      if (!result)
        continue;
      call->replaceAllUsesWith(result);
      call->eraseFromParent();
    }
    if (function.use_empty())
      function.eraseFromParent();
  }
}

/// Replaces f32 divisions marked `afn` (tl's `/`, see compileTileModule)
/// with PTX div.full.f32, the approximate full-range division Triton uses;
/// unmarked ones (tl.math.div_rn) stay IEEE div.rn.f32. Each div.rn is a
/// subroutine in SASS: attention's epilogue of 128 took ptxas 0.4 s.
void lowerApproximateDivisions(Module &module) {
  LLVMContext &context = module.getContext();
  Type *f32 = Type::getFloatTy(context);
  auto *divide = InlineAsm::get(FunctionType::get(f32, {f32, f32}, false),
                                "div.full.f32 $0, $1, $2;", "=f,f,f",
                                /*hasSideEffects=*/false);
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (Instruction &inst : llvm::make_early_inc_range(block)) {
        if (inst.getOpcode() != Instruction::FDiv || !inst.hasApproxFunc() ||
            !inst.getType()->getScalarType()->isFloatTy())
          continue;
        IRBuilder<> builder(&inst);
        Value *result = mapElements(
            builder, inst.getType(), {inst.getOperand(0), inst.getOperand(1)},
            [&](ArrayRef<Value *> xy) -> Value * {
              return builder.CreateCall(divide, {xy[0], xy[1]});
            });
        if (!result)
          continue;
        inst.replaceAllUsesWith(result);
        inst.eraseFromParent();
      }
}

/// The LLVM passes between the lowering and NVPTX: the kit's GPU kernel
/// pipeline, which was tuned on NVPTX's output, with NVVM's reflection and
/// intrinsic ranges first. TEGULA_NVIDIA_LLVM_PASSES replaces it with any
/// new-PM pipeline text ("default<O1>" or "default<O3>" for the plain
/// levels).
const std::string &nvptxPasses() {
  static const std::string passes =
      tegula::backend::getGpuKernelPipeline("nvvm-reflect,nvvm-intr-range");
  return passes;
}

} // namespace

void tegula::nvidia::initializeNVPTXTarget() {
  tegula::backend::initializeTargetOnce<
      LLVMInitializeNVPTXTargetInfo, LLVMInitializeNVPTXTarget,
      LLVMInitializeNVPTXTargetMC, LLVMInitializeNVPTXAsmPrinter>();
}

unsigned tegula::nvidia::getSmVersion(StringRef arch) {
  if (!arch.consume_front("sm_"))
    return 0;
  arch.consume_back("a");
  unsigned version = 0;
  if (arch.empty() || arch.getAsInteger(10, version) || version < 10 ||
      version > 999)
    return 0;
  return version;
}

std::string tegula::nvidia::getCodegenArch(StringRef target) {
  if (target == "sm_90")
    return "sm_90a";
  return target.str();
}

bool tegula::nvidia::isMarkedKernel(const Module &module, StringRef name) {
  const NamedMDNode *annotations = module.getNamedMetadata("nvvm.annotations");
  if (!annotations)
    return false;
  for (const MDNode *node : annotations->operands()) {
    if (node->getNumOperands() < 3)
      continue;
    auto *function =
        mdconst::dyn_extract_or_null<Function>(node->getOperand(0));
    if (!function || function->getName() != name)
      continue;
    // The operands after the function are (key, value) pairs.
    for (unsigned i = 1; i + 1 < node->getNumOperands(); i += 2) {
      auto *key = dyn_cast_or_null<MDString>(node->getOperand(i));
      auto *value =
          mdconst::dyn_extract_or_null<ConstantInt>(node->getOperand(i + 1));
      if (key && key->getString() == "kernel" && value && value->isOne())
        return true;
    }
  }
  return false;
}

Error tegula::nvidia::optimizeForNVPTX(Module &module, StringRef kernel,
                                       StringRef arch, StringRef passes) {
  Expected<std::unique_ptr<TargetMachine>> machine = createMachine(arch);
  if (!machine)
    return machine.takeError();
  if (Error error = tegula::backend::setKernelTarget(module, kernel, **machine))
    return error;
  if (!isMarkedKernel(module, kernel))
    return oneLineError(
        "@" + kernel +
        " is not marked as a kernel (nvvm.annotations \"kernel\")");
  lowerMathIntrinsics(module);
  // A GPU thread has no SIMD lanes to vectorize for (128-bit accesses come
  // from the layouts, as vector loads and stores already in the IR).
  tegula::backend::KernelPasses pipeline;
  pipeline.builtIn = nvptxPasses();
  pipeline.custom = passes;
  pipeline.customOrigin = "the compile option, or TEGULA_NVIDIA_LLVM_PASSES";
  if (Error error = tegula::backend::optimizeKernel(module, kernel,
                                                    machine->get(), pipeline))
    return error;
  // O3 may have made new calls (pow(2, x) -> exp2(x)).
  lowerMathIntrinsics(module);
  lowerApproximateDivisions(module);

  // What ptxas would reject as an unresolved extern, said here with the
  // function's name.
  for (Function &function : module) {
    if (!function.isDeclaration() || function.use_empty())
      continue;
    if (function.isIntrinsic()) {
      // Intrinsics NVPTX expands into libm calls ("no libcall available").
      switch (function.getIntrinsicID()) {
      case Intrinsic::exp:
      case Intrinsic::exp2:
      case Intrinsic::exp10:
      case Intrinsic::log:
      case Intrinsic::log2:
      case Intrinsic::log10:
      case Intrinsic::pow:
      case Intrinsic::powi:
      case Intrinsic::sin:
      case Intrinsic::cos:
        break;
      default:
        continue;
      }
    }
    StringRef name = function.getName();
    if (llvm::is_contained(kDeviceRuntimeFunctions, name))
      continue;
    return oneLineError(
        "kernel " + kernel + " calls @" + name +
        ", which has no implementation on NVIDIA GPUs (no libdevice "
        "is linked; math functions must be lowered to inline code)");
  }
  return Error::success();
}

Expected<std::string> tegula::nvidia::emitPTX(Module &module, StringRef arch) {
  Expected<std::unique_ptr<TargetMachine>> machine = createMachine(arch);
  if (!machine)
    return machine.takeError();
  return tegula::backend::emitMachineCode(module, **machine, /*assembly=*/true,
                                          "the NVPTX back end", arch);
}

std::optional<std::string>
tegula::nvidia::findPtxas(std::string &whyNot,
                          std::optional<std::string> chosen) {
  tegula::backend::ToolSearch search;
  search.chosen = std::move(chosen);
  search.name = "ptxas";
  search.variable = "TEGULA_PTXAS";
  search.homeVariables = {"CUDA_HOME", "CUDA_PATH"};
  search.fallbacks = {"/usr/local/cuda/bin/ptxas"};
  return tegula::backend::findTool(search, whyNot);
}

Expected<std::string> tegula::nvidia::assemblePTX(StringRef ptxas,
                                                  StringRef ptx, StringRef arch,
                                                  StringRef options) {
  tegula::backend::ToolRun run;
  run.program = ptxas.str();
  run.args = {("-arch=" + arch).str()};
  // -O3 unless |options| choose the optimization level (ptxas rejects -O3
  // next to -Ofc).
  SmallVector<StringRef> extra;
  SplitString(options, extra);
  bool levelChosen = llvm::any_of(extra, [](StringRef option) {
    return option.starts_with("-O") || option.starts_with("--O") ||
           option.starts_with("--opt-level");
  });
  if (!levelChosen)
    run.args.push_back("-O3");
  for (StringRef option : extra)
    run.args.push_back(option.str());
  run.args.insert(run.args.end(), {"-o", "{out}", "{in}"});
  run.input = ptx;
  run.inputSuffix = "ptx";
  run.outputSuffix = "cubin";
  return tegula::backend::runTool(run);
}
