//===- IntelCodegen.cpp - LLVM IR to validated SPIR-V ---------------------===//

#include "IntelCodegen.h"

#include "TranslatorCompat.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/ExternalTool.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;
using tegula::backend::oneLineError;
using namespace tegula::intel;

namespace {

/// The shared local memory array IntelTargetHooks declares.
constexpr const char *kSharedArray = "tegula_shared";

/// The LLVM passes between the lowering and the translator: inlining,
/// SROA, EarlyCSE, one InstCombine round, SimplifyCFG, LICM, ADCE. The
/// lowering emits straight-line SIMT code whose vectors the layouts chose,
/// and Intel's GPU compiler optimizes the SPIR-V again, so this only
/// cleans up what the translator would otherwise carry. LLVM's
/// default<O1> took 98 s on flash attention's 66,000 FMAs (an FMA dot of
/// 128x128x64 over 64 work-items) and left a larger module; this takes
/// 0.8 s there. TEGULA_INTEL_LLVM_PASSES replaces it with any new-PM
/// pipeline text ("default<O3>"; "verify" for none).
constexpr const char *kSpirvPasses =
    "always-inline,function(sroa,early-cse,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(licm),early-cse<memssa>,adce,simplifycfg)";

/// Sizes the shared local memory array: an internal [bytes x i8] Workgroup
/// variable (undef, as OpenCL C's `local` arrays), or nothing when unused.
void sizeSharedArray(Module &module, uint64_t bytes) {
  GlobalVariable *declared = module.getGlobalVariable(kSharedArray, true);
  if (!declared)
    return;
  if (declared->use_empty()) {
    declared->eraseFromParent();
    return;
  }
  Type *type = ArrayType::get(Type::getInt8Ty(module.getContext()),
                              std::max<uint64_t>(bytes, 16));
  auto *sized = new GlobalVariable(
      module, type, /*isConstant=*/false, GlobalValue::InternalLinkage,
      UndefValue::get(type), "", nullptr, GlobalValue::NotThreadLocal,
      declared->getAddressSpace());
  sized->setAlignment(Align(16));
  sized->takeName(declared);
  declared->replaceAllUsesWith(sized);
  declared->eraseFromParent();
}

/// spir_kernel for the kernel, spir_func for every other function and for
/// every call of one (a call whose convention differs from its callee's is
/// undefined, and LLVM's optimizer deletes it).
void setCallingConventions(Module &module, Function &kernel) {
  for (Function &function : module) {
    if (function.isIntrinsic())
      continue;
    function.setCallingConv(&function == &kernel ? CallingConv::SPIR_KERNEL
                                                 : CallingConv::SPIR_FUNC);
  }
  for (Function &function : module)
    for (Instruction &inst : instructions(function))
      if (auto *call = dyn_cast<CallBase>(&inst))
        if (Function *callee = call->getCalledFunction())
          if (!callee->isIntrinsic())
            call->setCallingConv(callee->getCallingConv());
}

MDNode *i32Node(LLVMContext &context, ArrayRef<unsigned> values) {
  SmallVector<Metadata *, 3> operands;
  for (unsigned value : values)
    operands.push_back(ConstantAsMetadata::get(
        ConstantInt::get(Type::getInt32Ty(context), value)));
  return MDNode::get(context, operands);
}

/// Gives each printf call its format as an i8 pointer instruction
/// (getelementptr [N x i8], @str, 0, 0): with opaque pointers the
/// translator takes a global's own type, [N x i8], as the format's, which
/// OpExtInst printf refuses; LLVM folds such GEPs away, so this runs after
/// the optimizer.
void pointPrintfFormatsAtChars(Module &module) {
  Function *printf = module.getFunction("_Z18__spirv_ocl_printfPU3AS2cz");
  if (!printf)
    return;
  for (User *user : printf->users()) {
    auto *call = dyn_cast<CallInst>(user);
    if (!call || call->arg_size() == 0)
      continue;
    auto *global = dyn_cast<GlobalVariable>(call->getArgOperand(0));
    if (!global)
      continue;
    Type *i64 = Type::getInt64Ty(module.getContext());
    Value *zero = ConstantInt::get(i64, 0);
    call->setArgOperand(0, GetElementPtrInst::CreateInBounds(
                               global->getValueType(), global, {zero, zero},
                               "format", call->getIterator()));
  }
}

/// True for the functions a SPIR-V consumer provides: OpenCL C builtins
/// (Itanium-mangled, "_Z...") and the __spirv_ builtins.
bool isProvidedBuiltin(StringRef name) {
  return name.starts_with("_Z") || name.starts_with("__spirv_");
}

/// Marks what must not be moved across divergent control flow convergent,
/// as OpenCL C compilers do: every function the module defines, and the
/// builtins that synchronize or exchange values between work-items
/// (barriers, sub-group and work-group functions). Without it the optimizer
/// duplicated a barrier into both arms of a branch on the local id, and the
/// work-items of a group waited at different barriers.
void markConvergent(Module &module) {
  for (Function &function : module) {
    StringRef name = function.getName();
    bool synchronizes = name.contains("barrier") ||
                        name.contains("sub_group") ||
                        name.contains("work_group") ||
                        name.contains("SubgroupShuffle") ||
                        name.contains("Group");
    if (!function.isDeclaration() || synchronizes)
      function.addFnAttr(Attribute::Convergent);
  }
}

} // namespace

Error tegula::intel::prepareForSPIRV(Module &module,
                                     const SpirvKernelShape &shape) {
  Function *kernel = module.getFunction(shape.kernel);
  if (!kernel || kernel->isDeclaration())
    return oneLineError("the module defines no kernel @" + shape.kernel);
  LLVMContext &context = module.getContext();
  module.setTargetTriple(kSpirTriple);
  module.setDataLayout(kSpirDataLayout);
  sizeSharedArray(module, shape.sharedBytes);
  setCallingConventions(module, *kernel);
  kernel->setMetadata("intel_reqd_sub_group_size",
                      i32Node(context, {shape.subGroupSize}));
  kernel->setMetadata("reqd_work_group_size",
                      i32Node(context, {shape.workGroupSize, 1, 1}));
  if (!module.getNamedMetadata("opencl.ocl.version"))
    module.getOrInsertNamedMetadata("opencl.ocl.version")
        ->addOperand(i32Node(context, {2, 0}));
  tegula::backend::internalizeAllBut(module, shape.kernel);
  splitAggregatePhis(module);
  markConvergent(module);

  tegula::backend::KernelPasses passes;
  passes.builtIn = kSpirvPasses;
  const char *custom = std::getenv("TEGULA_INTEL_LLVM_PASSES");
  passes.custom = custom ? custom : "";
  passes.customName = "TEGULA_INTEL_LLVM_PASSES";
  if (Error error = tegula::backend::optimizeKernel(module, shape.kernel,
                                                    nullptr, passes))
    return error;
  // Inlining may have left calls whose convention the optimizer changed.
  setCallingConventions(module, *kernel);
  makeTranslatorCompatible(module);
  std::string bfloatProblem = lowerBFloat(module);
  if (!bfloatProblem.empty())
    return oneLineError("kernel " + shape.kernel + ": " + bfloatProblem);
  pointPrintfFormatsAtChars(module);
  if (const GlobalVariable *global = findUnreadableInitializer(module))
    return oneLineError("the initializer of @" + global->getName() +
                        " holds a getelementptr constant expression, which "
                        "the SPIR-V translator would read as undef");

  for (Function &function : module) {
    if (!function.isDeclaration() || function.use_empty() ||
        function.isIntrinsic())
      continue;
    if (!isProvidedBuiltin(function.getName()))
      return oneLineError(
          "kernel " + shape.kernel + " calls @" + function.getName() +
          ", which no SPIR-V consumer provides (only OpenCL C and "
          "__spirv_ builtins are resolved)");
  }
  std::string problems;
  raw_string_ostream problemStream(problems);
  if (verifyModule(module, &problemStream))
    return oneLineError("the SPIR-V-ready LLVM IR of kernel " + shape.kernel +
                        " is invalid: " + problemStream.str());
  return Error::success();
}

std::string tegula::intel::writeBitcode(const Module &module) {
  std::string bytes;
  raw_string_ostream os(bytes);
  WriteBitcodeToFile(module, os);
  os.flush();
  return bytes;
}

std::optional<std::string> tegula::intel::findTranslator(std::string &whyNot) {
  tegula::backend::ToolSearch search;
  search.name = "llvm-spirv-15";
  search.variable = "TEGULA_LLVM_SPIRV";
  search.fallbacks = {"/usr/bin/llvm-spirv-15",
                      "/usr/lib/llvm-15/bin/llvm-spirv"};
  return tegula::backend::findTool(search, whyNot);
}

Expected<std::string> tegula::intel::translateToSPIRV(StringRef translator,
                                                      StringRef bitcode) {
  tegula::backend::ToolRun run;
  run.program = translator.str();
  // SPIR-V 1.4 at most: what Intel's runtimes accept (the OpenCL CPU
  // runtime reads IL 1.0-1.4).
  // Multiplies and adds may fuse into FMAs, as Triton's enable_fp_fusion
  // (on by default) and the NVIDIA plugin allow: without it the translator
  // marks kernels ContractionOff, which forbids Intel's compiler to fuse.
  run.args = {"--spirv-max-version=1.4", "--spirv-fp-contract=fast", "{in}",
              "-o", "{out}"};
  run.input = bitcode;
  run.inputSuffix = "bc";
  run.outputSuffix = "spv";
  run.description = "the SPIR-V translator (" + translator.str() + ")";
  return tegula::backend::runTool(run);
}
