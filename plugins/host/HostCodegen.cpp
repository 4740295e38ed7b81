//===- HostCodegen.cpp - LLVM IR to a host kernel image -------------------===//

#include "HostCodegen.h"
#include "HostImage.h"

#include "tegula/BackendKit/CompileSupport.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <algorithm>
#include <memory>
#include <mutex>

using namespace llvm;
using namespace tegula::host;

namespace {

/// Errors cross the plugin ABI as one line.
Error fail(const Twine &message) {
  return tegula::backend::oneLineError(message);
}

std::string typeName(Type *type) {
  std::string text;
  raw_string_ostream os(text);
  type->print(os);
  return os.str();
}

/// Bytes the packed-argument ABI gives a value of |type|; 0 when it cannot
/// pass one.
uint64_t packedSize(Type *type) {
  if (type->isPointerTy())
    return 8;
  if (type->isIntegerTy(1))
    return 1;
  if (type->isIntegerTy(8) || type->isIntegerTy(16) || type->isIntegerTy(32) ||
      type->isIntegerTy(64))
    return type->getIntegerBitWidth() / 8;
  if (type->isHalfTy() || type->isBFloatTy())
    return 2;
  if (type->isFloatTy())
    return 4;
  if (type->isDoubleTy())
    return 8;
  return 0;
}

uint64_t roundUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace

void tegula::host::initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
  });
}

const HostCpu &tegula::host::getHostCpu() {
  static const HostCpu cpu = [] {
    HostCpu result;
    result.name = sys::getHostCPUName().str();
    for (const auto &feature : sys::getHostCPUFeatures())
      result.features.push_back((feature.getValue() ? "+" : "-") +
                                feature.getKey().str());
    std::sort(result.features.begin(), result.features.end(),
              [](const std::string &a, const std::string &b) {
                return StringRef(a).drop_front() < StringRef(b).drop_front();
              });
    return result;
  }();
  return cpu;
}

std::string
tegula::host::missingHostFeatures(const std::vector<std::string> &features) {
  StringMap<bool> host;
  for (const std::string &feature : getHostCpu().features)
    host[StringRef(feature).drop_front()] = feature[0] == '+';
  std::string missing;
  for (const std::string &feature : features) {
    if (feature.size() < 2 || feature[0] != '+')
      continue;
    auto it = host.find(StringRef(feature).drop_front());
    // A feature this LLVM does not know is not held against the image.
    if (it != host.end() && !it->second)
      missing += (missing.empty() ? "" : ",") + feature.substr(1);
  }
  return missing;
}

Expected<uint64_t> tegula::host::addHostEntry(Function &body, StringRef name) {
  Module &module = *body.getParent();
  LLVMContext &context = module.getContext();
  FunctionType *bodyType = body.getFunctionType();
  if (body.isDeclaration())
    return fail("the lowered kernel @" + body.getName() + " has no body");
  if (bodyType->getNumParams() == 0 ||
      !bodyType->getParamType(bodyType->getNumParams() - 1)->isPointerTy())
    return fail("the lowered kernel @" + body.getName() +
                " does not end in the tg_host_program pointer parameter");
  if (!bodyType->getReturnType()->isVoidTy())
    return fail("the lowered kernel @" + body.getName() + " returns a value");

  std::string bodyName = (name + ".body").str();
  if (module.getFunction(bodyName) && module.getFunction(bodyName) != &body)
    return fail("the module already has a function @" + bodyName);
  body.setName(bodyName);
  if (body.getName() != bodyName || module.getNamedValue(name))
    return fail("the module already has a symbol @" + name);
  body.setLinkage(GlobalValue::InternalLinkage);
  body.removeFnAttr(Attribute::NoInline);
  body.removeFnAttr(Attribute::OptimizeNone);
  body.addFnAttr(Attribute::AlwaysInline);

  auto *ptr = PointerType::get(context, 0);
  auto *entryType =
      FunctionType::get(Type::getVoidTy(context), {ptr, ptr}, false);
  Function *entry =
      Function::Create(entryType, GlobalValue::ExternalLinkage, name, module);
  entry->addFnAttr(Attribute::NoUnwind);
  Argument *packed = entry->getArg(0);
  Argument *program = entry->getArg(1);
  packed->setName("packed_args");
  program->setName("program");
  // The packed buffer is the launcher's copy and the program record its
  // own: nothing else the kernel reaches points into either.
  entry->addParamAttr(0, Attribute::NoAlias);
  entry->addParamAttr(0, Attribute::ReadOnly);
  entry->addParamAttr(0, Attribute::NoCapture);
  entry->addParamAttr(1, Attribute::NoAlias);

  IRBuilder<> builder(BasicBlock::Create(context, "entry", entry));
  SmallVector<Value *> args;
  uint64_t offset = 0;
  for (unsigned i = 0, e = bodyType->getNumParams() - 1; i < e; ++i) {
    Type *type = bodyType->getParamType(i);
    uint64_t size = packedSize(type);
    if (!size) {
      entry->eraseFromParent();
      return fail("argument " + Twine(i) + " of kernel " + name + " has type " +
                  typeName(type) + ", which the host kernel ABI cannot pass");
    }
    offset = roundUp(offset, size);
    Value *address = builder.CreateConstInBoundsGEP1_64(
        builder.getInt8Ty(), packed, offset, "arg" + Twine(i) + ".addr");
    Value *value;
    if (type->isIntegerTy(1)) {
      // One byte, 0 or 1 (runtime.h).
      value = builder.CreateTrunc(
          builder.CreateAlignedLoad(builder.getInt8Ty(), address, Align(1)),
          type, "arg" + Twine(i));
    } else {
      value = builder.CreateAlignedLoad(type, address, Align(size),
                                        "arg" + Twine(i));
    }
    args.push_back(value);
    offset += size;
  }
  args.push_back(program);
  builder.CreateCall(&body, args);
  builder.CreateRetVoid();
  return roundUp(offset, 8);
}

Expected<std::string> tegula::host::compileLLVMModuleToImage(
    Module &module, const HostKernelInfo &kernel, HostOutput output) {
  initializeNativeTarget();
  Function *entry = module.getFunction(kernel.name);
  if (!entry || entry->isDeclaration())
    return fail("the module defines no kernel entry @" + kernel.name);
  LLVMContext &context = module.getContext();
  auto *ptr = PointerType::get(context, 0);
  if (entry->getFunctionType() !=
      FunctionType::get(Type::getVoidTy(context), {ptr, ptr}, false))
    return fail("the kernel entry @" + kernel.name +
                " is not void(ptr packed_args, ptr program)");

  std::string triple = sys::getProcessTriple();
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return fail("no LLVM target for " + triple + ": " + lookupError);
  const HostCpu &cpu = getHostCpu();
  SubtargetFeatures features;
  for (const std::string &feature : cpu.features)
    features.AddFeature(feature);
  TargetOptions options;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, cpu.name, features.getString(), options, Reloc::PIC_,
      std::nullopt, CodeGenOptLevel::Aggressive));
  if (!machine)
    return fail("cannot create an LLVM target machine for " + triple + " (" +
                cpu.name + ")");
  if (Error error =
          tegula::backend::setKernelTarget(module, kernel.name, *machine))
    return error;
  tegula::backend::KernelPasses passes;
  passes.builtIn = "default<O3>";
  passes.vectorize = true;
  if (Error error = tegula::backend::optimizeKernel(module, kernel.name,
                                                    machine.get(), passes))
    return error;

  if (output == HostOutput::LLVMIR) {
    std::string text;
    raw_string_ostream os(text);
    module.print(os, nullptr);
    return text;
  }
  Expected<std::string> object = tegula::backend::emitMachineCode(
      module, *machine, /*assembly=*/output == HostOutput::Assembly,
      "the LLVM back end", triple + " (" + cpu.name + ")");
  if (!object || output != HostOutput::Image)
    return object;

  HostImage image;
  image.kernelName = kernel.name;
  image.target = kernel.target;
  image.cpu = cpu.name;
  image.features = cpu.features;
  image.scratchBytes = roundUp(kernel.scratchBytes, 64);
  image.packedArgsSize = kernel.packedArgsSize;
  image.simtThreads = kernel.simtThreads;
  image.object = std::move(*object);
  return tegula::backend::writeImage(image);
}
