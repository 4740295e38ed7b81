//===- AmdCodegen.cpp - LLVM IR to AMDGPU code ----------------------------===//

#include "AmdCodegen.h"

#include "AmdTargetHooks.h"

#include "tegula/BackendKit/CompileSupport.h"

#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdlib>
#include <memory>
#include <mutex>

// LLVM's AMDGPU target (libLLVM exports every built target's initializers;
// naming only these keeps the other targets out).
extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTarget();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUAsmPrinter();
// tl.inline_asm_elementwise: the object streamer assembles inline assembly.
extern "C" void LLVMInitializeAMDGPUAsmParser();

using namespace llvm;
using tegula::backend::oneLineError;
using namespace tegula::amd;

namespace {

Expected<std::unique_ptr<TargetMachine>> createMachine(const AmdTarget &arch) {
  initializeAMDGPUTarget();
  // Multiplies and adds fuse into v_fma_f32 and v_pk_fma_f32.
  return tegula::backend::createTargetMachine(kAmdTriple, arch.name,
                                              arch.features(), "AMDGPU");
}

/// The width of the floating-point element type a call to |function|
/// computes on (its result's, else its first parameter's); 0 for none.
unsigned floatBitsOf(const Function &function) {
  Type *type = function.getReturnType();
  if (!type->getScalarType()->isFloatingPointTy() && function.arg_size() > 0)
    type = function.getArg(0)->getType();
  Type *scalar = type->getScalarType();
  return scalar->isFloatingPointTy() ? scalar->getPrimitiveSizeInBits() : 0;
}

} // namespace

void tegula::amd::initializeAMDGPUTarget() {
  tegula::backend::initializeTargetOnce<
      LLVMInitializeAMDGPUTargetInfo, LLVMInitializeAMDGPUTarget,
      LLVMInitializeAMDGPUTargetMC, LLVMInitializeAMDGPUAsmPrinter,
      LLVMInitializeAMDGPUAsmParser>();
}

Error tegula::amd::prepareForAMDGPU(Module &module, StringRef kernel,
                                    const AmdTarget &target,
                                    const AmdKernelConfig &config) {
  Expected<std::unique_ptr<TargetMachine>> machine = createMachine(target);
  if (!machine)
    return machine.takeError();
  if (Error error = tegula::backend::setKernelTarget(module, kernel, **machine))
    return error;
  Function *entry = module.getFunction(kernel);

  entry->setCallingConv(CallingConv::AMDGPU_KERNEL);
  std::string threads = std::to_string(config.threads);
  // Launched with exactly num_warps x wave size work-items in x.
  entry->addFnAttr("amdgpu-flat-work-group-size", threads + "," + threads);
  entry->addFnAttr("uniform-work-group-size", "true");
  if (config.wavesPerEu)
    entry->addFnAttr("amdgpu-waves-per-eu", std::to_string(config.wavesPerEu));
  entry->addFnAttr("target-cpu", target.name);
  entry->addFnAttr("target-features", target.features());
  module.addModuleFlag(Module::Error, "amdhsa_code_object_version",
                       config.codeObjectVersion * 100);

  // The lowering's scratch: a fixed-size LDS array, so that the code
  // object's group segment is exactly what the lowering computed.
  if (GlobalVariable *lds = module.getGlobalVariable(kLdsSymbol, true)) {
    if (lds->getAddressSpace() != 3 || !lds->isDeclaration())
      return oneLineError(Twine("the module has a symbol @") + kLdsSymbol +
                          " that is not the LDS array");
    if (config.ldsBytes > 0) {
      auto *type =
          ArrayType::get(Type::getInt8Ty(module.getContext()), config.ldsBytes);
      auto *sized = new GlobalVariable(
          module, type, /*isConstant=*/false, GlobalValue::InternalLinkage,
          UndefValue::get(type), "", nullptr, GlobalValue::NotThreadLocal,
          /*AddressSpace=*/3);
      sized->setAlignment(Align(16));
      lds->replaceAllUsesWith(sized);
      lds->eraseFromParent();
      sized->setName(kLdsSymbol);
      // Kept whole: GlobalOpt would otherwise split it into the pieces the
      // code touches, and the group segment would no longer be the LDS
      // the kernel's metadata reports (the AMDGPU back end takes it off
      // the list again when it lays out LDS).
      appendToCompilerUsed(module, {sized});
    } else if (lds->use_empty()) {
      lds->eraseFromParent();
    }
  }
  return Error::success();
}

Error tegula::amd::optimizeForAMDGPU(Module &module, StringRef kernel,
                                     const AmdTarget &target,
                                     StringRef custom) {
  if (module.getTargetTriple() != kAmdTriple)
    return oneLineError("the module is not ready for AMDGPU (triple '" +
                        module.getTargetTriple() +
                        "'): run prepareForAMDGPU first");
  Expected<std::unique_ptr<TargetMachine>> machine = createMachine(target);
  if (!machine)
    return machine.takeError();
  // The kit's GPU kernel pipeline with what AMDGPU adds to LLVM's own
  // levels: first its kernel-argument and address-space passes (the
  // launch attributes folded into loads of the work-group size), last the
  // attributor, which proves the kernel needs none of the implicit
  // arguments (else every kernel gets 256 bytes of them and their SGPRs).
  // In between, the SLP vectorizer: a lane has packed instructions
  // (v_pk_fma_f32, v_pk_add_f32 on gfx9, f16 pairs everywhere) doing two
  // elements' work each. On attention this is default<O2>'s code, in well
  // under half its time.
  static const std::string kAmdPasses =
      tegula::backend::getGpuKernelPipeline(
          "amdgpu-promote-kernel-arguments,infer-address-spaces,"
          "amdgpu-lower-kernel-attributes,amdgpu-promote-alloca-to-vector") +
      ",function(slp-vectorizer),amdgpu-attributor";
  tegula::backend::KernelPasses passes;
  passes.builtIn = kAmdPasses;
  passes.custom = custom;
  if (Error error = tegula::backend::optimizeKernel(module, kernel,
                                                    machine->get(), passes))
    return error;

  // What the optimized code calls, before the code generator sees it.
  for (Function &function : module) {
    if (!function.isDeclaration() || function.use_empty())
      continue;
    StringRef name = function.getName();
    if (!function.isIntrinsic())
      return oneLineError(
          "kernel " + kernel + " calls @" + name +
          ", which has no implementation on AMD GPUs (no device "
          "library is linked)");
    if (std::string why = checkIntrinsic(target, name, floatBitsOf(function));
        !why.empty())
      return oneLineError("kernel " + kernel + " needs @" + name + " (" + why +
                          "), which amd:" + target.name + " cannot compile");
  }
  return Error::success();
}

Expected<std::string> tegula::amd::emitAMDGPU(Module &module,
                                              const AmdTarget &target,
                                              bool assembly) {
  Expected<std::unique_ptr<TargetMachine>> machine = createMachine(target);
  if (!machine)
    return machine.takeError();
  return tegula::backend::emitMachineCode(module, **machine, assembly,
                                          "the AMDGPU back end", target.name);
}
