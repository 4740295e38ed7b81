//===- AmdCompilerTest.cpp - The AMD plugin's compiler, no GPU ------------===//
//
// What the AMD plugin's compiler makes, checked on any machine (no AMD GPU
// is reachable; nothing here runs on one):
//  - AmdTargets: the capability table; every matrix instruction a row lists
//    compiles for that row's architecture (an MFMA or WMMA in the object),
//    so the table cannot claim what LLVM would abort on; what a target
//    lacks (MFMA on gfx1100, WMMA on gfx942, f64 sin, an unknown amdgcn
//    intrinsic, an external call) is an error naming it, not an abort.
//  - AmdMatrixUnits: the lane maps of every MFMA and WMMA instruction the
//    units use (f16, i8, f32 and xf32 operands) as the layouts give them,
//    against a CPU model of each instruction written from the ISA
//    documents' formulas, and a CPU multiply through both that must agree
//    with a plain matrix product; which instruction each dot's types and
//    input precision select.
//  - AmdCodegen / AmdLinker: hand-written LLVM IR to an hsaco (ELF, AMDGPU
//    machine) with the kernel attributes and the code object version.
//  - AmdImage: the round trip, and bad images refused.
//
//===----------------------------------------------------------------------===//

#include "AmdCodeObject.h"
#include "AmdCompiler.h"
#include "AmdCodegen.h"
#include "AmdLinker.h"
#include "AmdMatrixUnits.h"
#include "AmdTargets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::amd;

namespace {

const AmdTarget &target(const char *name) {
  const AmdTarget *found = findAmdTarget(name);
  EXPECT_NE(found, nullptr) << name;
  return *found;
}

std::unique_ptr<llvm::Module> parseIR(const std::string &text,
                                      llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    error.print("test", os);
    ADD_FAILURE() << os.str();
  }
  return module;
}

/// Prepares, optimizes and emits |module|'s kernel @k for |arch|: the
/// assembly, or the error's message prefixed with "error: ".
std::string compileIR(llvm::Module &module, const AmdTarget &arch,
                      unsigned codeObjectVersion = 5) {
  AmdKernelConfig config;
  config.threads = 2 * arch.waveSize;
  config.codeObjectVersion = codeObjectVersion;
  if (llvm::Error error = prepareForAMDGPU(module, "k", arch, config))
    return "error: " + llvm::toString(std::move(error));
  if (llvm::Error error = optimizeForAMDGPU(module, "k", arch))
    return "error: " + llvm::toString(std::move(error));
  llvm::Expected<std::string> assembly = emitAMDGPU(module, arch, true);
  if (!assembly)
    return "error: " + llvm::toString(assembly.takeError());
  return *assembly;
}

/// A kernel @k(ptr addrspace(1) %p) calling |callee| on zeros (immediate
/// operands 0) and storing the result to %p.
std::unique_ptr<llvm::Module> callKernel(llvm::LLVMContext &context,
                                         llvm::Function *(*declare)(
                                             llvm::Module &)) {
  auto module = std::make_unique<llvm::Module>("test", context);
  llvm::Function *callee = declare(*module);
  auto *ptr = llvm::PointerType::get(context, 1);
  auto *kernel = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false),
      llvm::Function::ExternalLinkage, "k", *module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", kernel));
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Type *type : callee->getFunctionType()->params())
    args.push_back(llvm::Constant::getNullValue(type));
  llvm::Value *result = b.CreateCall(callee, args);
  b.CreateStore(result, kernel->getArg(0));
  b.CreateRetVoid();
  return module;
}

llvm::Function *declareNamed(llvm::Module &module, llvm::StringRef name,
                             llvm::ArrayRef<llvm::Type *> overloads) {
  llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
  EXPECT_NE(id, llvm::Intrinsic::not_intrinsic) << name.str();
  return llvm::Intrinsic::getDeclaration(&module, id, overloads);
}

/// The overload types of a WMMA intrinsic in its wave32 form (C/D, A/B).
llvm::SmallVector<llvm::Type *> wmmaOverloads(llvm::LLVMContext &context,
                                              llvm::StringRef name) {
  auto *f32 = llvm::Type::getFloatTy(context);
  auto *i32 = llvm::Type::getInt32Ty(context);
  if (name.ends_with(".f16"))
    return {llvm::FixedVectorType::get(f32, 8),
            llvm::FixedVectorType::get(llvm::Type::getHalfTy(context), 16)};
  if (name.ends_with(".bf16"))
    return {llvm::FixedVectorType::get(f32, 8),
            llvm::FixedVectorType::get(llvm::Type::getInt16Ty(context), 16)};
  return {llvm::FixedVectorType::get(i32, 8),
          llvm::FixedVectorType::get(i32, 4)};
}

std::string intrinsicName;
llvm::SmallVector<llvm::Type *> intrinsicOverloads;
llvm::Function *declareCurrent(llvm::Module &module) {
  return declareNamed(module, intrinsicName, intrinsicOverloads);
}

} // namespace

//===----------------------------------------------------------------------===//
// The capability table
//===----------------------------------------------------------------------===//

TEST(AmdTargets, TableRows) {
  EXPECT_EQ(getAmdTargetNames(),
            (std::vector<std::string>{"gfx90a", "gfx942", "gfx1100"}));
  EXPECT_EQ(target("gfx90a").waveSize, 64u);
  EXPECT_EQ(target("gfx942").waveSize, 64u);
  EXPECT_EQ(target("gfx1100").waveSize, 32u);
  EXPECT_TRUE(target("gfx942").mfma);
  EXPECT_FALSE(target("gfx942").wmma);
  EXPECT_TRUE(target("gfx1100").wmma);
  EXPECT_FALSE(target("gfx1100").mfma);
  EXPECT_EQ(target("gfx1100").features(), "+wavefrontsize32");
  EXPECT_EQ(findAmdTarget("gfx908"), nullptr);
  for (const AmdTarget &arch : getAmdTargets())
    EXPECT_EQ(arch.ldsBytes, 65536u) << arch.name;
}

TEST(AmdTargets, IntrinsicChecks) {
  const AmdTarget &cdna = target("gfx942"), &rdna = target("gfx1100");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.ds.bpermute", 0), "");
  EXPECT_EQ(checkIntrinsic(rdna, "llvm.amdgcn.update.dpp.i32", 0), "");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.mfma.f32.32x32x8f16", 0), "");
  EXPECT_EQ(checkIntrinsic(rdna, "llvm.amdgcn.mfma.f32.32x32x8f16", 0),
            "MFMA (a CDNA matrix unit) is not available on amd:gfx1100");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16", 0),
            "WMMA (an RDNA3 matrix unit) is not available on amd:gfx942");
  // gfx942 dropped the gfx90a i8 and old bf16 forms (llc-19: Cannot select).
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.mfma.i32.32x32x8i8", 0),
            "this MFMA instruction is not available on amd:gfx942");
  EXPECT_EQ(checkIntrinsic(target("gfx90a"), "llvm.amdgcn.mfma.i32.32x32x8i8", 0), "");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.mov.dpp8", 0),
            "DPP8 is not available on amd:gfx942");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.amdgcn.s.sendmsg", 0),
            "the intrinsic is not in the AMD plugin's capability table on "
            "amd:gfx942");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.sin.f32", 32), "");
  EXPECT_NE(checkIntrinsic(cdna, "llvm.sin.f64", 64), "");
  EXPECT_NE(checkIntrinsic(cdna, "llvm.tanh.f32", 32), "");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.sinh.f32", 32),
            "AMDGPU has no instruction or library call for it");
  EXPECT_EQ(checkIntrinsic(cdna, "llvm.fma.f64", 64), "");
}

// Every matrix instruction of a row compiles for its architecture: the
// table lists nothing LLVM 19 would abort on.
TEST(AmdTargets, EveryListedMatrixInstructionCompiles) {
  for (const AmdTarget &arch : getAmdTargets()) {
    for (const AmdMatrixShape &shape : arch.matrixShapes) {
      SCOPED_TRACE(std::string(arch.name) + " " + shape.intrinsic);
      llvm::LLVMContext context;
      intrinsicName = std::string("llvm.amdgcn.") + shape.intrinsic;
      intrinsicOverloads.clear();
      if (llvm::StringRef(shape.intrinsic).starts_with("wmma."))
        intrinsicOverloads = wmmaOverloads(context, shape.intrinsic);
      auto module = callKernel(context, declareCurrent);
      std::string assembly = compileIR(*module, arch);
      ASSERT_EQ(assembly.rfind("error: ", 0), std::string::npos) << assembly;
      EXPECT_NE(assembly.find(arch.wmma ? "v_wmma_" : "v_mfma_"),
                std::string::npos);
    }
  }
}

// What a target lacks is an error before code generation: LLVM would
// abort the process with `Cannot select`.
TEST(AmdCodegen, MissingInstructionsAreErrorsNotAborts) {
  struct Case {
    const char *arch, *intrinsic, *message;
  };
  for (const Case &c : std::initializer_list<Case>{
           {"gfx1100", "llvm.amdgcn.mfma.f32.32x32x8f16",
            "kernel k needs @llvm.amdgcn.mfma.f32.32x32x8f16 (MFMA (a CDNA "
            "matrix unit) is not available on amd:gfx1100), which "
            "amd:gfx1100 cannot compile"},
           {"gfx942", "llvm.amdgcn.mfma.f32.32x32x4.xf32", ""},
           {"gfx90a", "llvm.amdgcn.mfma.f32.32x32x4.xf32",
            "this MFMA instruction is not available on amd:gfx90a"},
           {"gfx942", "llvm.amdgcn.wmma.f32.16x16x16.f16",
            "WMMA (an RDNA3 matrix unit) is not available on amd:gfx942"},
       }) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.intrinsic);
    llvm::LLVMContext context;
    intrinsicName = c.intrinsic;
    intrinsicOverloads.clear();
    if (llvm::StringRef(c.intrinsic).contains(".wmma."))
      intrinsicOverloads = wmmaOverloads(context, c.intrinsic);
    auto module = callKernel(context, declareCurrent);
    std::string result = compileIR(*module, target(c.arch));
    if (!*c.message)
      EXPECT_EQ(result.rfind("error: ", 0), std::string::npos) << result;
    else
      EXPECT_NE(result.find(c.message), std::string::npos) << result;
  }
}

TEST(AmdCodegen, MathAndCallsTheTargetLacksAreErrors) {
  llvm::LLVMContext context;
  auto sin64 = parseIR(R"ll(
define void @k(ptr addrspace(1) %p) {
  %x = load double, ptr addrspace(1) %p
  %y = call double @llvm.sin.f64(double %x)
  store double %y, ptr addrspace(1) %p
  ret void
}
declare double @llvm.sin.f64(double)
)ll",
                       context);
  EXPECT_EQ(compileIR(*sin64, target("gfx942")),
            "error: kernel k needs @llvm.sin.f64 (AMDGPU has no f64 instruction "
            "or library call for it (no device library is linked)), which "
            "amd:gfx942 cannot compile");
  auto external = parseIR(R"ll(
define void @k(ptr addrspace(1) %p) {
  %x = load float, ptr addrspace(1) %p
  %y = call float @expf(float %x)
  store float %y, ptr addrspace(1) %p
  ret void
}
declare float @expf(float)
)ll",
                          context);
  EXPECT_EQ(compileIR(*external, target("gfx1100")),
            "error: kernel k calls @expf, which has no implementation on AMD "
            "GPUs (no device library is linked)");
}

//===----------------------------------------------------------------------===//
// Code objects
//===----------------------------------------------------------------------===//

TEST(AmdCodegen, KernelToHsaco) {
  for (unsigned version : {4u, 5u}) {
    SCOPED_TRACE(version);
    llvm::LLVMContext context;
    auto module = parseIR(R"ll(
@tegula_lds = external addrspace(3) global [0 x i8], align 16
define void @k(ptr addrspace(1) %p) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %slot = getelementptr i32, ptr addrspace(3) @tegula_lds, i32 %tid
  store i32 %tid, ptr addrspace(3) %slot
  call void @llvm.amdgcn.s.barrier()
  %v = load i32, ptr addrspace(3) @tegula_lds
  store i32 %v, ptr addrspace(1) %p
  ret void
}
define void @helper() { ret void }
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
)ll",
                          context);
    const AmdTarget &arch = target("gfx942");
    AmdKernelConfig config;
    config.threads = 128;
    config.ldsBytes = 512;
    config.codeObjectVersion = version;
    ASSERT_FALSE(bool(prepareForAMDGPU(*module, "k", arch, config)));
    llvm::Function *kernel = module->getFunction("k");
    EXPECT_EQ(kernel->getCallingConv(), llvm::CallingConv::AMDGPU_KERNEL);
    EXPECT_EQ(kernel->getFnAttribute("amdgpu-flat-work-group-size")
                  .getValueAsString(),
              "128,128");
    EXPECT_TRUE(module->getFunction("helper")->hasInternalLinkage());
    llvm::GlobalVariable *lds = module->getGlobalVariable("tegula_lds", true);
    ASSERT_NE(lds, nullptr);
    EXPECT_FALSE(lds->isDeclaration());
    EXPECT_EQ(module->getDataLayout().getTypeAllocSize(lds->getValueType()),
              512u);
    ASSERT_FALSE(bool(optimizeForAMDGPU(*module, "k", arch)));
    llvm::Expected<std::string> object = emitAMDGPU(*module, arch, false);
    ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
    llvm::Expected<std::string> hsaco = linkCodeObject(*object);
    ASSERT_TRUE(bool(hsaco)) << llvm::toString(hsaco.takeError());
    ASSERT_GT(hsaco->size(), 64u);
    EXPECT_EQ(hsaco->substr(0, 4), "\x7f" "ELF");
    // e_ident[EI_OSABI] 64 (AMDGPU HSA); EI_ABIVERSION 2 for v4, 3 for v5.
    EXPECT_EQ(static_cast<unsigned char>((*hsaco)[7]), 64u);
    EXPECT_EQ(static_cast<unsigned char>((*hsaco)[8]), version == 4 ? 2u : 3u);
    // e_type ET_DYN (a shared object), e_machine EM_AMDGPU (224).
    EXPECT_EQ(static_cast<unsigned char>((*hsaco)[16]), 3u);
    EXPECT_EQ(static_cast<unsigned char>((*hsaco)[18]), 224u);
  }
}

TEST(AmdCodeObject, ResourcesFromTheMetadataNote) {
  // A private array indexed at run time stays in scratch: 256 bytes of
  // private segment a work-item; 512 bytes of LDS; 128 work-items.
  llvm::LLVMContext context;
  auto module = parseIR(R"ll(
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
@tegula_lds = external addrspace(3) global [0 x i8], align 16
define void @pick(ptr addrspace(1) %out, i32 %k) {
entry:
  %buf = alloca [64 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %next, %fill ]
  %p = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %i
  %v = add i32 %i, %tid
  store volatile i32 %v, ptr addrspace(5) %p, align 4
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, 64
  br i1 %more, label %fill, label %read
read:
  %idx = and i32 %k, 63
  %q = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %idx
  %x = load volatile i32, ptr addrspace(5) %q, align 4
  %slot = getelementptr i32, ptr addrspace(3) @tegula_lds, i32 %tid
  store volatile i32 %x, ptr addrspace(3) %slot
  %t64 = zext i32 %tid to i64
  %dst = getelementptr i32, ptr addrspace(1) %out, i64 %t64
  store i32 %x, ptr addrspace(1) %dst, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
)ll",
                        context);
  const AmdTarget &arch = target("gfx942");
  AmdKernelConfig config;
  config.threads = 128;
  config.ldsBytes = 512;
  ASSERT_FALSE(bool(prepareForAMDGPU(*module, "pick", arch, config)));
  ASSERT_FALSE(bool(optimizeForAMDGPU(*module, "pick", arch)));
  llvm::Expected<std::string> object = emitAMDGPU(*module, arch, false);
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  llvm::Expected<std::string> hsaco = linkCodeObject(*object);
  ASSERT_TRUE(bool(hsaco)) << llvm::toString(hsaco.takeError());

  llvm::Expected<KernelResources> read = readKernelResources(*hsaco, "pick");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_TRUE(read->vgprCount && read->sgprCount);
  EXPECT_GT(*read->vgprCount, 0u);
  EXPECT_GT(*read->sgprCount, 0u);
  ASSERT_TRUE(read->privateSegmentSize);
  EXPECT_GE(*read->privateSegmentSize, 256u);
  EXPECT_EQ(read->groupSegmentSize, std::optional<uint32_t>(512));
  EXPECT_EQ(read->maxFlatWorkgroupSize, std::optional<uint32_t>(128));
  EXPECT_EQ(read->vgprSpillCount, std::optional<uint32_t>(0));
  EXPECT_EQ(read->sgprSpillCount, std::optional<uint32_t>(0));

  llvm::Expected<KernelResources> other = readKernelResources(*hsaco, "nope");
  ASSERT_FALSE(bool(other));
  EXPECT_EQ(llvm::toString(other.takeError()),
            "the code object's AMDGPU metadata has no kernel 'nope'");
  llvm::Expected<KernelResources> garbage =
      readKernelResources("not an ELF file", "pick");
  EXPECT_FALSE(bool(garbage));
  llvm::consumeError(garbage.takeError());
}

TEST(AmdLinker, NotAnObjectIsAnError) {
  llvm::Expected<std::string> hsaco = linkCodeObject("not an object");
  ASSERT_FALSE(bool(hsaco));
  EXPECT_NE(llvm::toString(hsaco.takeError()).find("lld cannot link"),
            std::string::npos);
}

TEST(AmdImage, RoundTripAndRefusals) {
  AmdImage image;
  image.kernelName = "k";
  image.target = "amd:gfx1100";
  image.arch = "gfx1100";
  image.numWarps = 4;
  image.argSizes = {8, 4};
  image.waveSize = 32;
  image.codeObjectVersion = 4;
  image.ldsBytes = 1024;
  image.hsaco = std::string("\x7f" "ELF", 4) + std::string(60, '\0');
  std::string bytes = tegula::backend::writeImage(image);
  llvm::Expected<AmdImage> read = tegula::backend::readImage<tegula::amd::AmdImage>(bytes.data(), bytes.size());
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->kernelName, "k");
  EXPECT_EQ(read->waveSize, 32u);
  EXPECT_EQ(read->codeObjectVersion, 4u);
  EXPECT_EQ(read->ldsBytes, 1024u);
  EXPECT_EQ(read->argSizes, (std::vector<uint32_t>{8, 4}));
  EXPECT_EQ(read->hsaco, image.hsaco);

  llvm::Expected<AmdImage> garbage = tegula::backend::readImage<tegula::amd::AmdImage>("garbage!", 8);
  EXPECT_FALSE(bool(garbage));
  llvm::consumeError(garbage.takeError());
  image.hsaco = "not elf";
  bytes = tegula::backend::writeImage(image);
  llvm::Expected<AmdImage> notElf = tegula::backend::readImage<tegula::amd::AmdImage>(bytes.data(), bytes.size());
  ASSERT_FALSE(bool(notElf));
  EXPECT_EQ(llvm::toString(notElf.takeError()),
            "invalid AMD kernel image: the payload is not an ELF code object");
}

//===----------------------------------------------------------------------===//
// MFMA and WMMA lane maps against CPU models of the instructions
//===----------------------------------------------------------------------===//

namespace {

using Coords = std::pair<int64_t, int64_t>;

/// The coordinates register |r| of lane |l| holds in |layout| (warp 0).
Coords elementOf(const backend::LinearLayout &layout, int64_t r, int64_t l) {
  Coords at{0, 0};
  auto apply = [&](const llvm::SmallVector<backend::LayoutCoords> &bases,
                   int64_t index) {
    for (size_t bit = 0; bit < bases.size(); ++bit)
      if (index >> bit & 1) {
        at.first ^= bases[bit][0];
        at.second ^= bases[bit][1];
      }
  };
  apply(layout.reg, r);
  apply(layout.lane, l);
  return at;
}

/// What an instruction multiplies, as tl.dot asks for it.
enum class Operands {
  Half, // f16 into f32
  Int8, // i8 into i32, signed
  F32,  // f32 into f32, exactly (input_precision "ieee")
  Xf32, // f32 into f32, operands rounded to xf32 ("tf32" on gfx942)
};

// The accumulator maps (the same for every element type).
Coords d32(int64_t l, int64_t r) {
  return Coords{8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32};
}
Coords d16(int64_t l, int64_t r) { return Coords{4 * (l / 16) + r, l % 16}; }
Coords dWmma(int64_t l, int64_t r) { return Coords{2 * r + l / 16, l % 16}; }

/// One instruction as the ISA documents place its operands: for lane |l|
/// and register |r|, the element of A (m, k), of B (k, n), of D (m, n).
struct InstructionModel {
  const char *arch;
  /// The intrinsic after `llvm.amdgcn.`.
  const char *intrinsic;
  Operands operands;
  int64_t size, k, wave, aRegs, dRegs;
  Coords (*a)(int64_t l, int64_t r);
  Coords (*b)(int64_t l, int64_t r);
  Coords (*d)(int64_t l, int64_t r);
};

const InstructionModel kModels[] = {
    // v_mfma_f32_32x32x8f16 (CDNA3 ISA, 7.1): A/B 4 halves, D 16 floats.
    {"gfx942", "mfma.f32.32x32x8f16", Operands::Half, 32, 8, 64, 4, 16,
     [](int64_t l, int64_t r) { return Coords{l % 32, 4 * (l / 32) + r}; },
     [](int64_t l, int64_t r) { return Coords{4 * (l / 32) + r, l % 32}; },
     d32},
    // v_mfma_f32_16x16x16f16: A/B 4 halves, D 4 floats.
    {"gfx90a", "mfma.f32.16x16x16f16", Operands::Half, 16, 16, 64, 4, 4,
     [](int64_t l, int64_t r) { return Coords{l % 16, 4 * (l / 16) + r}; },
     [](int64_t l, int64_t r) { return Coords{4 * (l / 16) + r, l % 16}; },
     d16},
    // v_wmma_f32_16x16x16_f16, wave32 (RDNA3 ISA, 7.9): A/B 16 halves
    // (lanes 16-31 repeat 0-15), D 8 floats, even rows in lanes 0-15.
    {"gfx1100", "wmma.f32.16x16x16.f16", Operands::Half, 16, 16, 32, 16, 8,
     [](int64_t l, int64_t r) { return Coords{l % 16, r}; },
     [](int64_t l, int64_t r) { return Coords{r, l % 16}; }, dWmma},
    // v_mfma_i32_32x32x8i8 (CDNA2 ISA): A/B 4 bytes of one register.
    {"gfx90a", "mfma.i32.32x32x8i8", Operands::Int8, 32, 8, 64, 4, 16,
     [](int64_t l, int64_t r) { return Coords{l % 32, 4 * (l / 32) + r}; },
     [](int64_t l, int64_t r) { return Coords{4 * (l / 32) + r, l % 32}; },
     d32},
    // v_mfma_i32_16x16x16i8: A/B 4 bytes.
    {"gfx90a", "mfma.i32.16x16x16i8", Operands::Int8, 16, 16, 64, 4, 4,
     [](int64_t l, int64_t r) { return Coords{l % 16, 4 * (l / 16) + r}; },
     [](int64_t l, int64_t r) { return Coords{4 * (l / 16) + r, l % 16}; },
     d16},
    // v_mfma_i32_32x32x16_i8 (CDNA3 ISA): A/B 8 bytes of a register pair.
    {"gfx942", "mfma.i32.32x32x16.i8", Operands::Int8, 32, 16, 64, 8, 16,
     [](int64_t l, int64_t r) { return Coords{l % 32, 8 * (l / 32) + r}; },
     [](int64_t l, int64_t r) { return Coords{8 * (l / 32) + r, l % 32}; },
     d32},
    // v_mfma_i32_16x16x32_i8: A/B 8 bytes.
    {"gfx942", "mfma.i32.16x16x32.i8", Operands::Int8, 16, 32, 64, 8, 4,
     [](int64_t l, int64_t r) { return Coords{l % 16, 8 * (l / 16) + r}; },
     [](int64_t l, int64_t r) { return Coords{8 * (l / 16) + r, l % 16}; },
     d16},
    // v_wmma_i32_16x16x16_iu8: A/B 16 bytes in 4 registers (lanes 16-31
    // repeat 0-15), D 8 i32 placed as the f32 accumulators.
    {"gfx1100", "wmma.i32.16x16x16.iu8", Operands::Int8, 16, 16, 32, 16, 8,
     [](int64_t l, int64_t r) { return Coords{l % 16, r}; },
     [](int64_t l, int64_t r) { return Coords{r, l % 16}; }, dWmma},
    // v_mfma_f32_32x32x4_xf32 (CDNA3 ISA): A/B 2 floats.
    {"gfx942", "mfma.f32.32x32x4.xf32", Operands::Xf32, 32, 4, 64, 2, 16,
     [](int64_t l, int64_t r) { return Coords{l % 32, 2 * (l / 32) + r}; },
     [](int64_t l, int64_t r) { return Coords{2 * (l / 32) + r, l % 32}; },
     d32},
    // v_mfma_f32_16x16x8_xf32: A/B 2 floats.
    {"gfx942", "mfma.f32.16x16x8.xf32", Operands::Xf32, 16, 8, 64, 2, 4,
     [](int64_t l, int64_t r) { return Coords{l % 16, 2 * (l / 16) + r}; },
     [](int64_t l, int64_t r) { return Coords{2 * (l / 16) + r, l % 16}; },
     d16},
    // v_mfma_f32_32x32x2f32 (CDNA2 and CDNA3 ISA): A/B one float.
    {"gfx90a", "mfma.f32.32x32x2f32", Operands::F32, 32, 2, 64, 1, 16,
     [](int64_t l, int64_t) { return Coords{l % 32, l / 32}; },
     [](int64_t l, int64_t) { return Coords{l / 32, l % 32}; }, d32},
    {"gfx942", "mfma.f32.32x32x2f32", Operands::F32, 32, 2, 64, 1, 16,
     [](int64_t l, int64_t) { return Coords{l % 32, l / 32}; },
     [](int64_t l, int64_t) { return Coords{l / 32, l % 32}; }, d32},
    // v_mfma_f32_16x16x4f32: A/B one float.
    {"gfx90a", "mfma.f32.16x16x4f32", Operands::F32, 16, 4, 64, 1, 4,
     [](int64_t l, int64_t) { return Coords{l % 16, l / 16}; },
     [](int64_t l, int64_t) { return Coords{l / 16, l % 16}; }, d16},
    {"gfx942", "mfma.f32.16x16x4f32", Operands::F32, 16, 4, 64, 1, 4,
     [](int64_t l, int64_t) { return Coords{l % 16, l / 16}; },
     [](int64_t l, int64_t) { return Coords{l / 16, l % 16}; }, d16},
};

/// |x| rounded to xf32 (8 exponent and 10 mantissa bits), to nearest even.
/// The ISA does not say how the instruction rounds; the tolerance of the
/// comparison with the unrounded product allows truncation too.
float roundToXf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits += 0xfff + ((bits >> 13) & 1);
  bits &= ~uint32_t(0x1fff);
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// A multiply on the CPU through the lane maps: each lane's fragments
/// taken from random A and B as the layouts place them (|round| applied:
/// what the instruction does to an operand), each D element computed at
/// the place the layout gives it, in |T| (f32 sums in K order), must equal
/// the plain matrix product of the same operands. Returns the D elements
/// with their sums of |a b|.
template <typename T>
std::map<Coords, std::pair<T, double>> multiplyThroughMaps(
    const InstructionModel &model, const backend::LinearLayout &a,
    const backend::LinearLayout &b, const backend::LinearLayout &d,
    const std::map<Coords, T> &A, const std::map<Coords, T> &B, T (*round)(T)) {
  // What each lane holds, by the layouts.
  std::map<Coords, T> seenA, seenB;
  for (int64_t l = 0; l < model.wave; ++l)
    for (int64_t r = 0; r < model.aRegs; ++r) {
      seenA[elementOf(a, r, l)] = round(A.at(elementOf(a, r, l)));
      seenB[elementOf(b, r, l)] = round(B.at(elementOf(b, r, l)));
    }
  EXPECT_EQ(seenA.size(), size_t(model.size * model.k));
  EXPECT_EQ(seenB.size(), size_t(model.size * model.k));
  std::map<Coords, std::pair<T, double>> result;
  for (int64_t l = 0; l < model.wave; ++l)
    for (int64_t r = 0; r < model.dRegs; ++r) {
      Coords at = elementOf(d, r, l);
      T sum = 0, expected = 0;
      double magnitude = 0;
      for (int64_t k = 0; k < model.k; ++k) {
        sum += seenA[{at.first, k}] * seenB[{k, at.second}];
        expected += round(A.at({at.first, k})) * round(B.at({k, at.second}));
        magnitude += std::fabs(double(A.at({at.first, k})) *
                               double(B.at({k, at.second})));
      }
      EXPECT_EQ(sum, expected) << "D lane " << l << " reg " << r;
      result[at] = {sum, magnitude};
    }
  EXPECT_EQ(result.size(), size_t(model.size * model.size));
  return result;
}

template <typename T> T keep(T value) { return value; }

/// Random operands of |model|'s rows and columns: A m x k, B k x n.
template <typename T, typename Distribution>
void randomOperands(const InstructionModel &model, Distribution value,
                    std::map<Coords, T> &A, std::map<Coords, T> &B) {
  std::mt19937 random(42);
  for (int64_t i = 0; i < model.size; ++i)
    for (int64_t k = 0; k < model.k; ++k) {
      A[{i, k}] = static_cast<T>(value(random));
      B[{k, i}] = static_cast<T>(value(random));
    }
}

} // namespace

TEST(AmdMatrixUnits, LaneMapsMatchTheInstructions) {
  mlir::MLIRContext context;
  mlir::Builder types(&context);
  for (const InstructionModel &model : kModels) {
    SCOPED_TRACE(std::string(model.arch) + " " + model.intrinsic);
    const AmdTarget &arch = target(model.arch);
    AmdMatrixUnit unit(arch);
    backend::DotProblem dot;
    dot.m = dot.n = model.size;
    dot.k = model.k;
    dot.numWarps = 1;
    // The operands' elements per 32-bit register: the operand layouts'
    // kWidth (LayoutSelection).
    int64_t kWidth = 2;
    mlir::Type operand = types.getF16Type(), acc = types.getF32Type();
    switch (model.operands) {
    case Operands::Half:
      break;
    case Operands::Int8:
      dot.aType = dot.bType = TG_TYPE_I8;
      dot.accType = TG_TYPE_I32;
      kWidth = 4;
      operand = types.getI8Type();
      acc = types.getI32Type();
      break;
    case Operands::F32:
    case Operands::Xf32:
      dot.aType = dot.bType = TG_TYPE_F32;
      dot.inputPrecision = model.operands == Operands::F32 ? "ieee" : "tf32";
      kWidth = 1;
      operand = types.getF32Type();
      break;
    }
    std::optional<backend::MatrixInstruction> instr =
        unit.selectInstruction(dot);
    ASSERT_TRUE(instr.has_value());
    EXPECT_EQ(instr->m, unsigned(model.size));
    EXPECT_EQ(instr->k, unsigned(model.k));
    backend::MatrixLayout layout =
        unit.getResultLayout({model.size, model.size}, *instr, 1);
    EXPECT_EQ(unit.getIntrinsic(layout, operand, acc), model.intrinsic);
    std::string error;
    mlir::FailureOr<int64_t> instrK =
        unit.getInstructionK(layout, operand, operand, acc, error);
    ASSERT_TRUE(succeeded(instrK)) << error;
    EXPECT_EQ(*instrK, model.k);
    auto d =
        unit.getLinearLayout(layout, {model.size, model.size}, -1, 0, error);
    auto a =
        unit.getLinearLayout(layout, {model.size, model.k}, 0, kWidth, error);
    auto b =
        unit.getLinearLayout(layout, {model.k, model.size}, 1, kWidth, error);
    ASSERT_TRUE(succeeded(d) && succeeded(a) && succeeded(b)) << error;
    EXPECT_EQ(int64_t(1) << d->reg.size(), model.dRegs);
    EXPECT_EQ(int64_t(1) << a->reg.size(), model.aRegs);
    EXPECT_EQ(int64_t(1) << b->reg.size(), model.aRegs);
    EXPECT_EQ(int64_t(1) << d->lane.size(), model.wave);
    for (int64_t l = 0; l < model.wave; ++l) {
      for (int64_t r = 0; r < model.dRegs; ++r)
        ASSERT_EQ(elementOf(*d, r, l), model.d(l, r)) << "D lane " << l << " reg " << r;
      for (int64_t r = 0; r < model.aRegs; ++r) {
        ASSERT_EQ(elementOf(*a, r, l), model.a(l, r)) << "A lane " << l << " reg " << r;
        ASSERT_EQ(elementOf(*b, r, l), model.b(l, r)) << "B lane " << l << " reg " << r;
      }
    }

    switch (model.operands) {
    case Operands::Half: {
      // Small integers: every f16 product and f32 sum is exact.
      std::map<Coords, double> A, B;
      randomOperands(model, std::uniform_int_distribution<int>(-4, 4), A, B);
      multiplyThroughMaps<double>(model, *a, *b, *d, A, B, keep<double>);
      break;
    }
    case Operands::Int8: {
      // The whole signed range; i32 sums of at most 32 products are exact.
      std::map<Coords, int32_t> A, B;
      randomOperands(model, std::uniform_int_distribution<int>(-128, 127), A,
                     B);
      multiplyThroughMaps<int32_t>(model, *a, *b, *d, A, B, keep<int32_t>);
      break;
    }
    case Operands::F32: {
      // Full f32 mantissas: exact against the same f32 sums.
      std::map<Coords, float> A, B;
      randomOperands(model, std::uniform_real_distribution<float>(-1, 1), A, B);
      multiplyThroughMaps<float>(model, *a, *b, *d, A, B, keep<float>);
      break;
    }
    case Operands::Xf32: {
      // Exact against the product of the xf32-rounded operands; against
      // the unrounded ones within what rounding both operands to 11
      // significant bits can cost a product (2^-10 of |a b| to nearest,
      // about 2^-9 truncated) plus the two f32 sums (K 2^-23 of |a b|).
      std::map<Coords, float> A, B;
      randomOperands(model, std::uniform_real_distribution<float>(-1, 1), A, B);
      auto rounded =
          multiplyThroughMaps<float>(model, *a, *b, *d, A, B, roundToXf32);
      auto exact =
          multiplyThroughMaps<float>(model, *a, *b, *d, A, B, keep<float>);
      int differ = 0;
      for (const auto &[at, value] : rounded) {
        float full = exact.at(at).first;
        double bound = (std::ldexp(1.0, -9) + model.k * std::ldexp(1.0, -22)) *
                       value.second;
        EXPECT_LE(std::fabs(double(value.first) - full), bound);
        differ += value.first != full;
      }
      // Random f32 operands have more than 11 significant bits: rounding
      // must show in most sums.
      EXPECT_GT(differ, model.size * model.size / 2);
      break;
    }
    }
  }
}

TEST(AmdMatrixUnits, Selection) {
  AmdMatrixUnit mfma(target("gfx942")), cdna2(target("gfx90a")),
      wmma(target("gfx1100"));
  EXPECT_EQ(mfma.getKind(), "amd.mfma");
  EXPECT_EQ(wmma.getKind(), "amd.wmma");
  backend::DotProblem dot;
  dot.m = 64;
  dot.n = 128;
  dot.k = 64;
  EXPECT_EQ(mfma.selectInstruction(dot)->m, 32u);
  EXPECT_EQ(wmma.selectInstruction(dot)->m, 16u);
  dot.m = 16;
  EXPECT_EQ(mfma.selectInstruction(dot)->m, 16u);
  dot.aType = dot.bType = TG_TYPE_BF16;
  EXPECT_TRUE(wmma.selectInstruction(dot).has_value());
  dot.k = 8;
  EXPECT_FALSE(wmma.selectInstruction(dot).has_value());

  // f32 by input precision: tf32 is xf32 (layout version 2) on gfx942 and
  // the exact instruction (version 1) on gfx90a; ieee exact; tf32x3 and
  // gfx1100 FMA.
  dot.m = dot.n = 64;
  dot.k = 32;
  dot.aType = dot.bType = TG_TYPE_F32;
  dot.accType = TG_TYPE_F32;
  dot.inputPrecision = "tf32";
  ASSERT_TRUE(mfma.selectInstruction(dot).has_value());
  EXPECT_EQ(mfma.selectInstruction(dot)->k, 4u);
  EXPECT_EQ(mfma.selectInstruction(dot)->version, 2u);
  ASSERT_TRUE(cdna2.selectInstruction(dot).has_value());
  EXPECT_EQ(cdna2.selectInstruction(dot)->k, 2u);
  EXPECT_EQ(cdna2.selectInstruction(dot)->version, 1u);
  EXPECT_FALSE(wmma.selectInstruction(dot).has_value());
  dot.inputPrecision = "ieee";
  ASSERT_TRUE(mfma.selectInstruction(dot).has_value());
  EXPECT_EQ(mfma.selectInstruction(dot)->k, 2u);
  EXPECT_EQ(mfma.selectInstruction(dot)->version, 1u);
  dot.inputPrecision = "tf32x3";
  EXPECT_FALSE(mfma.selectInstruction(dot).has_value());
  EXPECT_FALSE(cdna2.selectInstruction(dot).has_value());

  // i8 into i32 only; K per instruction by architecture.
  dot.aType = dot.bType = TG_TYPE_I8;
  dot.accType = TG_TYPE_I32;
  dot.inputPrecision = "ieee";
  EXPECT_EQ(mfma.selectInstruction(dot)->k, 16u);
  EXPECT_EQ(cdna2.selectInstruction(dot)->k, 8u);
  EXPECT_EQ(wmma.selectInstruction(dot)->k, 16u);
  dot.accType = TG_TYPE_F32;
  EXPECT_FALSE(mfma.selectInstruction(dot).has_value());
  EXPECT_FALSE(wmma.selectInstruction(dot).has_value());
  dot.aType = dot.bType = TG_TYPE_F16;
  dot.accType = TG_TYPE_I32;
  EXPECT_FALSE(mfma.selectInstruction(dot).has_value());
}
