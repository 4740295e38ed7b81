//===- NvidiaCompilerTest.cpp - The NVIDIA plugin's compiler, no GPU ------===//
//
// What the NVIDIA plugin's compiler makes, checked on any machine:
//  - NvidiaCodegen: hand-written LLVM IR kernels become PTX (ISA 8.5, the
//    right target, the launch bound); what the GPU lacks (libm calls) is an
//    error naming the function, exp and log become PTX approximations, and a
//    code generation error is an error, never an exit of the process;
//    ptxas, when present, assembles the PTX.
//  - NvidiaTargetHooks: every hook built into a kernel and compiled: the
//    special registers, bar.sync, the four shfl.sync modes with PTX's
//    clamps, one dynamic shared array, vprintf lines, __assertfail.
//  - NvidiaImage: the round trip, and bad images refused.
//  - The plugin's compile through the plugin ABI (no device needed):
//    metadata, options, errors.
// With a CUDA device, the vector add compiled from tile bytecode runs
// through the runtime (NvidiaDeviceTest.cpp has the other device tests).
//
//===----------------------------------------------------------------------===//

#include "NvidiaCodegen.h"
#include "NvidiaDevice.h"
#include "NvidiaMatrixUnits.h"
#include "NvidiaTargetHooks.h"
#include "NvidiaTestSupport.h"
#include "TileBytecodeSupport.h"

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/plugin.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::nvidia;
using namespace tegula::test;

namespace {

/// scale(float *out, const float *in, float a, i32 n): out[i] = a * in[i]
/// for the i < n of block ctaid.x, 128 threads a block.
constexpr const char *kScale = R"ll(
define void @scale(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, 128
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %done
body:
  %i64 = sext i32 %i to i64
  %src = getelementptr float, ptr addrspace(1) %in, i64 %i64
  %x = load float, ptr addrspace(1) %src, align 4
  %y = fmul float %x, %a
  %dst = getelementptr float, ptr addrspace(1) %out, i64 %i64
  store float %y, ptr addrspace(1) %dst, align 4
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @scale, !"kernel", i32 1}
!1 = !{ptr @scale, !"maxntidx", i32 128}
)ll";

std::unique_ptr<llvm::Module> parseIR(const std::string &text,
                                      llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    error.print("kernel.ll", os);
    ADD_FAILURE() << os.str();
  }
  return module;
}

/// The PTX of kernel |name| in |ir| for |arch|, or "" (with a failure).
std::string ptxOf(const std::string &ir, const std::string &name,
                  const std::string &arch = "sm_90a") {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(ir, context);
  if (!module)
    return "";
  if (llvm::Error error = optimizeForNVPTX(*module, name, arch)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return "";
  }
  llvm::Expected<std::string> ptx = emitPTX(*module, arch);
  if (!ptx) {
    ADD_FAILURE() << llvm::toString(ptx.takeError());
    return "";
  }
  return *ptx;
}

/// The error optimizeForNVPTX gives kernel |name| in |ir|, or "".
std::string optimizeError(const std::string &ir, const std::string &name) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(ir, context);
  if (!module)
    return "";
  llvm::Error error = optimizeForNVPTX(*module, name, "sm_90a");
  return error ? llvm::toString(std::move(error)) : "";
}

/// The lines of |text| that contain |needle|.
std::vector<std::string> linesWith(const std::string &text,
                                   const std::string &needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos)
      lines.push_back(line);
  return lines;
}

bool contains(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}

//===-- NvidiaCodegen -------------------------------------------------------===//

TEST(NvidiaCodegen, HandWrittenKernelBecomesPtx) {
  std::string ptx = ptxOf(kScale, "scale");
  EXPECT_TRUE(contains(ptx, ".version 8.5\n")) << ptx;
  EXPECT_TRUE(contains(ptx, ".target sm_90a\n")) << ptx;
  EXPECT_TRUE(contains(ptx, ".visible .entry scale(")) << ptx;
  EXPECT_TRUE(contains(ptx, ".maxntid 128, 1, 1")) << ptx;
  EXPECT_EQ(linesWith(ptx, "ld.global").size(), 1u) << ptx;
  EXPECT_EQ(linesWith(ptx, "st.global").size(), 1u) << ptx;
  EXPECT_TRUE(contains(ptx, "%tid.x")) << ptx;

  std::string sm80 = ptxOf(kScale, "scale", "sm_80");
  EXPECT_TRUE(contains(sm80, ".target sm_80\n")) << sm80;
}

TEST(NvidiaCodegen, ArchNames) {
  EXPECT_EQ(getSmVersion("sm_90a"), 90u);
  EXPECT_EQ(getSmVersion("sm_80"), 80u);
  EXPECT_EQ(getSmVersion("sm_"), 0u);
  EXPECT_EQ(getSmVersion("gfx942"), 0u);
  EXPECT_EQ(getCodegenArch("sm_90"), "sm_90a");
  EXPECT_EQ(getCodegenArch("sm_89"), "sm_89");
}

TEST(NvidiaCodegen, PtxasAssemblesTheKernel) {
  std::string whyNot;
  std::optional<std::string> ptxas = findPtxas(whyNot);
  if (!ptxas)
    GTEST_SKIP() << "cannot assemble: " << whyNot;
  std::string ptx = ptxOf(kScale, "scale");
  ASSERT_FALSE(ptx.empty());
  llvm::Expected<std::string> cubin = assemblePTX(*ptxas, ptx, "sm_90a");
  ASSERT_TRUE(bool(cubin)) << llvm::toString(cubin.takeError());
  ASSERT_GT(cubin->size(), 64u);
  EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");

  // ptxas's own complaint, on one line, for PTX it refuses.
  llvm::Expected<std::string> bad =
      assemblePTX(*ptxas, ".version 8.5\n.target sm_90a\nnonsense\n", "sm_90a");
  ASSERT_FALSE(bool(bad));
  std::string message = llvm::toString(bad.takeError());
  EXPECT_TRUE(contains(message, "-arch=sm_90a failed (exit status ")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(NvidiaCodegen, DisabledPtxasIsSaid) {
  const char *saved = std::getenv("TEGULA_PTXAS");
  std::string old = saved ? saved : "";
  setenv("TEGULA_PTXAS", "none", 1);
  std::string whyNot;
  EXPECT_FALSE(findPtxas(whyNot).has_value());
  EXPECT_EQ(whyNot, "ptxas is disabled (TEGULA_PTXAS=none)");
  setenv("TEGULA_PTXAS", "/nonexistent/ptxas", 1);
  EXPECT_FALSE(findPtxas(whyNot).has_value());
  EXPECT_EQ(whyNot, "TEGULA_PTXAS=/nonexistent/ptxas is not an executable file");
  if (saved)
    setenv("TEGULA_PTXAS", old.c_str(), 1);
  else
    unsetenv("TEGULA_PTXAS");
}

TEST(NvidiaCodegen, UnmarkedKernelIsRefused) {
  std::string ir = kScale;
  ir = ir.substr(0, ir.find("!nvvm.annotations"));
  EXPECT_EQ(optimizeError(ir, "scale"),
            "@scale is not marked as a kernel (nvvm.annotations \"kernel\")");
  EXPECT_EQ(optimizeError(kScale, "missing"),
            "the module defines no kernel @missing");
}

constexpr const char *kMath = R"ll(
define void @math(ptr addrspace(1) %out, float %x, half %h, <2 x float> %v) {
  %e = call float @llvm.exp.f32(float %x)
  %l = call float @llvm.log.f32(float %x)
  %e2 = call half @llvm.exp2.f16(half %h)
  %lv = call <2 x float> @llvm.log2.v2f32(<2 x float> %v)
  %l0 = extractelement <2 x float> %lv, i32 0
  %l1 = extractelement <2 x float> %lv, i32 1
  %e2f = fpext half %e2 to float
  %s0 = fadd float %e, %l
  %s1 = fadd float %s0, %e2f
  %s2 = fadd float %s1, %l0
  %s3 = fadd float %s2, %l1
  store float %s3, ptr addrspace(1) %out
  ret void
}
declare float @llvm.exp.f32(float)
declare float @llvm.log.f32(float)
declare half @llvm.exp2.f16(half)
declare <2 x float> @llvm.log2.v2f32(<2 x float>)
!nvvm.annotations = !{!0}
!0 = !{ptr @math, !"kernel", i32 1}
)ll";

TEST(NvidiaCodegen, ExpAndLogBecomePtxApproximations) {
  std::string ptx = ptxOf(kMath, "math");
  // exp keeps subnormals; exp2 flushes them, as Triton's tl.exp2.
  EXPECT_EQ(linesWith(ptx, "ex2.approx.f32").size(), 1u) << ptx;
  EXPECT_EQ(linesWith(ptx, "ex2.approx.ftz.f32").size(), 1u) << ptx;
  EXPECT_EQ(linesWith(ptx, "lg2.approx.f32").size(), 3u) << ptx;
  EXPECT_FALSE(contains(ptx, "expf")) << ptx;
}

TEST(NvidiaCodegen, WhatTheGpuLacksIsAnErrorNamingIt) {
  constexpr const char *libm = R"ll(
define void @k(ptr addrspace(1) %out, float %x) {
  %y = call float @erff(float %x)
  store float %y, ptr addrspace(1) %out
  ret void
}
declare float @erff(float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
)ll";
  EXPECT_EQ(optimizeError(libm, "k"),
            "kernel k calls @erff, which has no implementation on NVIDIA "
            "GPUs (no libdevice is linked; math functions must be lowered "
            "to inline code)");

  constexpr const char *pow = R"ll(
define void @k(ptr addrspace(1) %out, float %x, float %y) {
  %z = call float @llvm.pow.f32(float %x, float %y)
  store float %z, ptr addrspace(1) %out
  ret void
}
declare float @llvm.pow.f32(float, float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
)ll";
  EXPECT_TRUE(contains(optimizeError(pow, "k"), "calls @llvm.pow.f32, which "
                                                "has no implementation"));
}

/// Code generation errors (here: exp on f64, which needs a libm call) are
/// reported, not printed with the process exiting (LLVM's default).
TEST(NvidiaCodegen, CodeGenerationErrorIsReturned) {
  constexpr const char *f64 = R"ll(
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr addrspace(1) %out, double %x) {
  %y = call double @llvm.exp.f64(double %x)
  store double %y, ptr addrspace(1) %out
  ret void
}
declare double @llvm.exp.f64(double)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
)ll";
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(f64, context);
  ASSERT_TRUE(module);
  llvm::Expected<std::string> ptx = emitPTX(*module, "sm_90a");
  ASSERT_FALSE(bool(ptx));
  std::string message = llvm::toString(ptx.takeError());
  EXPECT_TRUE(contains(message, "the NVPTX back end cannot compile the kernel "
                                "for sm_90a: "))
      << message;
  EXPECT_TRUE(contains(message, "no libcall available")) << message;
}

//===-- NvidiaTargetHooks ----------------------------------------------------===//

/// A kernel `hooks(i32 *out)` that uses every hook, lowered to LLVM IR and
/// optimized; errors the hooks reported are in |errors|.
std::string hooksKernelPtx(std::vector<std::string> &errors,
                           std::string *llvmIR = nullptr) {
  using namespace mlir;
  MLIRContext context;
  createNvidiaTargetHooks()->loadDialects(context);
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  context.appendDialectRegistry(registry);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    errors.push_back(diagnostic.str());
    return success();
  });

  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  auto global = LLVM::LLVMPointerType::get(&context, 1);
  auto fn = b.create<LLVM::LLVMFuncOp>(
      loc, "hooks",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&context),
                                  {global}));
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
              b.getDenseI32ArrayAttr({128, 1, 1}));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  std::unique_ptr<backend::TargetHooks> hooksOwner = createNvidiaTargetHooks();
  const backend::TargetHooks &hooks = *hooksOwner;
  using backend::Axis;
  using backend::ShuffleKind;
  auto constant = [&](Type type, int64_t value) -> Value {
    return b.create<LLVM::ConstantOp>(loc, type, b.getIntegerAttr(type, value));
  };

  Value tid = hooks.buildThreadId(b, loc);
  SmallVector<Value> values = {
      hooks.buildProgramId(b, loc, Axis::X),
      hooks.buildProgramId(b, loc, Axis::Y),
      hooks.buildProgramId(b, loc, Axis::Z),
      hooks.buildNumPrograms(b, loc, Axis::X),
      hooks.buildNumPrograms(b, loc, Axis::Y),
      hooks.buildNumPrograms(b, loc, Axis::Z)};
  // shared[tid] = tid; barrier; shared[(tid + 1) % 128] (two bases, one
  // array).
  Value base = hooks.buildScratchBase(b, loc);
  Value slot = b.create<LLVM::GEPOp>(loc, base.getType(), i32, base,
                                     ValueRange{tid});
  b.create<LLVM::StoreOp>(loc, tid, slot);
  hooks.buildBarrier(b, loc);
  Value next = b.create<LLVM::URemOp>(
      loc, b.create<LLVM::AddOp>(loc, tid, constant(i32, 1)),
      constant(i32, 128));
  Value again = hooks.buildScratchBase(b, loc);
  Value other = b.create<LLVM::GEPOp>(loc, again.getType(), i32, again,
                                      ValueRange{next});
  values.push_back(b.create<LLVM::LoadOp>(loc, i32, other));
  for (ShuffleKind kind : {ShuffleKind::Xor, ShuffleKind::Up,
                           ShuffleKind::Down, ShuffleKind::Index})
    values.push_back(hooks.buildShuffle(b, loc, tid, kind, constant(i32, 3)));
  Value asFloat = b.create<LLVM::SIToFPOp>(loc, f32, tid);
  values.push_back(b.create<LLVM::FPToSIOp>(
      loc, i32,
      hooks.buildShuffle(b, loc, asFloat, ShuffleKind::Xor, constant(i32, 16))));

  // One mma.sync m16n8k16 (the nvidia.mma family) on f16 fragments made
  // of the thread id.
  Value half = b.create<LLVM::FPTruncOp>(loc, b.getF16Type(), asFloat);
  SmallVector<Value> fragmentA(8, half), fragmentB(4, half),
      fragmentC(4, asFloat);
  backend::MatrixLayout mmaLayout{"nvidia.mma", {2}, {2, 2}, {16, 8}};
  FailureOr<SmallVector<Value>> d = getNvidiaMmaUnit().buildMultiply(
      b, loc, mmaLayout, fragmentA, fragmentB, fragmentC);
  if (failed(d) || d->size() != 4) {
    ADD_FAILURE() << "nvidia.mma refused an f16 m16n8k16";
    return "";
  }
  // The asynchronous copies the hooks offer: a group closed and waited for.
  const backend::AsyncCopy *copies = hooks.getAsyncCopy();
  if (!copies) {
    ADD_FAILURE() << "the NVIDIA hooks offer no asynchronous copies";
    return "";
  }
  copies->buildCommit(b, loc);
  copies->buildWait(b, loc, 0);
  for (Value element : *d)
    values.push_back(b.create<LLVM::FPToSIOp>(loc, i32, element));

  Value index = b.create<LLVM::ZExtOp>(loc, i64, tid);
  (void)hooks.buildPrint(b, loc, " v: ", constant(i64, -1), tid, true, false);
  (void)hooks.buildPrint(b, loc, "w", index, tid, false, true);
  (void)hooks.buildPrint(b, loc, " f: ", index, asFloat, true, false);
  (void)hooks.buildPrint(b, loc, " p: ", constant(i64, -1), entry->getArgument(0),
                         false, false);
  (void)hooks.buildPrint(b, loc, "hello 100% ", constant(i64, -1), Value(),
                         false, false);
  (void)hooks.buildAssertFailure(b, loc, "x > 0", "k.py", 7, "hooks", index);

  Value sum = values.front();
  for (Value value : ArrayRef<Value>(values).drop_front())
    sum = b.create<LLVM::AddOp>(loc, sum, value);
  Value out = b.create<LLVM::GEPOp>(loc, global, i32, entry->getArgument(0),
                                    ValueRange{tid});
  b.create<LLVM::StoreOp>(loc, sum, out);
  b.create<LLVM::ReturnOp>(loc, ValueRange{});
  if (failed(verify(*module))) {
    ADD_FAILURE() << "the hooks made IR that does not verify";
    return "";
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "hooks");
  if (!llvmModule) {
    ADD_FAILURE() << "translation to LLVM IR failed";
    return "";
  }
  if (llvm::Error error = optimizeForNVPTX(*llvmModule, "hooks", "sm_90a")) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return "";
  }
  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }
  llvm::Expected<std::string> ptx = emitPTX(*llvmModule, "sm_90a");
  if (!ptx) {
    ADD_FAILURE() << llvm::toString(ptx.takeError());
    return "";
  }
  return *ptx;
}

TEST(NvidiaTargetHooks, EveryHookCompilesToItsPtx) {
  std::vector<std::string> errors;
  std::string ir;
  std::string ptx = hooksKernelPtx(errors, &ir);
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_FALSE(ptx.empty());
  for (const char *reg : {"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x",
                          "%nctaid.y", "%nctaid.z", "%tid.x"})
    EXPECT_TRUE(contains(ptx, reg)) << reg;
  EXPECT_EQ(linesWith(ptx, "bar.sync").size(), 1u) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.sync \t0;") || contains(ptx, "bar.sync 0;"))
      << ptx;
  // One array, 1024-byte aligned (wgmma's 128-byte swizzle repeats every
  // 1024 bytes), however many times the base was asked for.
  EXPECT_EQ(linesWith(ptx, ".extern .shared .align 1024 .b8 tegula_shared[];")
                .size(),
            1u)
      << ptx;

  // shfl.sync.MODE.b32 d, a, b (the offset), c (the clamp), membermask.
  struct Expected {
    const char *mode;
    const char *tail;
  };
  for (Expected want : {Expected{"shfl.sync.bfly.b32", ", 3, 31, -1;"},
                        Expected{"shfl.sync.up.b32", ", 3, 0, -1;"},
                        Expected{"shfl.sync.down.b32", ", 3, 31, -1;"},
                        Expected{"shfl.sync.idx.b32", ", 3, 31, -1;"}}) {
    std::vector<std::string> lines = linesWith(ptx, want.mode);
    bool found = false;
    for (const std::string &line : lines)
      found |= contains(line, want.tail);
    EXPECT_TRUE(found) << want.mode << " with" << want.tail << " in\n" << ptx;
  }
  bool floatShuffle = false;
  for (const std::string &line : linesWith(ptx, "shfl.sync.bfly.b32"))
    floatShuffle |= contains(line, "%f") && contains(line, ", 16, 31, -1;");
  EXPECT_TRUE(floatShuffle) << ptx;

  // Print: the host plugin's lines; assert: the line, then __assertfail.
  for (const char *format :
       {"c\"pid (%u, %u, %u) v: %lld\\0A\\00\"",
        "c\"pid (%u, %u, %u) idx (%lld) w 0x%08llx\\0A\\00\"",
        "c\"pid (%u, %u, %u) idx (%lld) f: %f\\0A\\00\"",
        "c\"pid (%u, %u, %u) p: 0x%llx\\0A\\00\"",
        "c\"pid (%u, %u, %u) hello 100%%\\0A\\00\"",
        "c\"device_assert failed at k.py:7 in hooks: x > 0 (program (%u, "
        "%u, %u), element %lld)\\0A\\00\"",
        "c\"x > 0\\00\"", "c\"k.py\\00\""})
    EXPECT_TRUE(contains(ir, format)) << format << " not in\n" << ir;
  EXPECT_EQ(linesWith(ptx, "vprintf,").size(), 6u) << ptx;
  EXPECT_EQ(linesWith(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
                .size(),
            1u)
      << ptx;
  EXPECT_EQ(linesWith(ptx, "__assertfail,").size(), 1u) << ptx;
  EXPECT_EQ(linesWith(ptx, "cp.async.commit_group;").size(), 1u) << ptx;
  EXPECT_EQ(linesWith(ptx, "cp.async.wait_group 0;").size(), 1u) << ptx;

  std::string whyNot;
  if (std::optional<std::string> ptxas = findPtxas(whyNot)) {
    llvm::Expected<std::string> cubin = assemblePTX(*ptxas, ptx, "sm_90a");
    EXPECT_TRUE(bool(cubin)) << llvm::toString(cubin.takeError());
  }
}

TEST(NvidiaTargetHooks, BadRequestsAreErrors) {
  using namespace mlir;
  MLIRContext context;
  createNvidiaTargetHooks()->loadDialects(context);
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    errors.push_back(diagnostic.str());
    return success();
  });
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  // A function named like the shared array.
  b.create<LLVM::LLVMFuncOp>(
      loc, kSharedMemorySymbol,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&context), {}));
  auto fn = b.create<LLVM::LLVMFuncOp>(
      loc, "k",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&context), {}));
  b.setInsertionPointToStart(fn.addEntryBlock(b));
  std::unique_ptr<backend::TargetHooks> hooksOwner = createNvidiaTargetHooks();
  const backend::TargetHooks &hooks = *hooksOwner;
  Value wide = b.create<LLVM::ConstantOp>(loc, b.getI64Type(),
                                          b.getI64IntegerAttr(1));
  Value offset = b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                            b.getI32IntegerAttr(1));
  EXPECT_TRUE(hooks.buildShuffle(b, loc, wide, backend::ShuffleKind::Xor,
                                 offset));
  EXPECT_TRUE(hooks.buildScratchBase(b, loc));
  // Matrix instructions it does not have: failure, no error (the lowering
  // says which dot it cannot lower).
  Value f16 = b.create<LLVM::ConstantOp>(loc, b.getF16Type(),
                                         b.getF16FloatAttr(1.0));
  Value f32 = b.create<LLVM::ConstantOp>(loc, b.getF32Type(),
                                         b.getF32FloatAttr(1.0));
  SmallVector<Value> a(8, f16), bf(4, f16), c(4, f32);
  const backend::MatrixUnit &mma = getNvidiaMmaUnit();
  backend::MatrixLayout v2{"nvidia.mma", {2}, {2, 2}, {16, 8}};
  backend::MatrixLayout v3 = v2, big = v2;
  v3.version = {3};
  big.instrShape = {32, 32};
  EXPECT_TRUE(failed(mma.buildMultiply(b, loc, v3, a, bf, c)));
  EXPECT_TRUE(failed(mma.buildMultiply(b, loc, big, a, bf, c)));
  EXPECT_TRUE(failed(mma.buildMultiply(b, loc, v2, c, bf, c)));
  EXPECT_TRUE(failed(
      mma.buildMultiply(b, loc, v2, a, ArrayRef<Value>(bf).take_front(2), c)));
  // Nor does the wgmma family take registers or other types.
  EXPECT_TRUE(failed(getNvidiaWgmmaUnit().buildMultiply(b, loc, v2, a, bf, c)));
  backend::SharedMatrixMultiply i8Group;
  i8Group.m = 64;
  i8Group.n = 64;
  i8Group.k = 16;
  i8Group.aType = i8Group.bType = b.getI8Type();
  EXPECT_TRUE(failed(getNvidiaWgmmaUnit().buildSharedMultiply(
      b, loc, backend::MatrixLayout{"nvidia.wgmma", {1}, {4, 1}, {64, 64}},
      i8Group, c)));
  // Groups left in flight: at most one (the previous iteration's); the wait
  // takes f32 accumulators only, and a family without async groups has none.
  backend::MatrixLayout wgmma{"nvidia.wgmma", {1}, {4, 1}, {64, 64}};
  backend::SharedMatrixMultiply twoPending;
  twoPending.m = 64;
  twoPending.n = 64;
  twoPending.k = 16;
  twoPending.aType = twoPending.bType = b.getF16Type();
  twoPending.pendingGroups = 2;
  EXPECT_TRUE(failed(getNvidiaWgmmaUnit().buildSharedMultiply(
      b, loc, wgmma, twoPending, SmallVector<Value>(32, f32))));
  EXPECT_TRUE(getNvidiaWgmmaUnit().hasAsyncGroups(wgmma));
  EXPECT_FALSE(mma.hasAsyncGroups(v2));
  EXPECT_TRUE(
      failed(mma.buildSharedMultiplyWait(b, loc, v2, 0, ValueRange(c))));
  EXPECT_TRUE(failed(getNvidiaWgmmaUnit().buildSharedMultiplyWait(
      b, loc, wgmma, 0, ValueRange(a))));
  FailureOr<SmallVector<Value>> waited =
      getNvidiaWgmmaUnit().buildSharedMultiplyWait(b, loc, wgmma, 1,
                                                   ValueRange(c));
  ASSERT_TRUE(succeeded(waited));
  ASSERT_EQ(waited->size(), c.size());
  auto wait = (*waited)[0].getDefiningOp<LLVM::ExtractValueOp>()
                  .getContainer()
                  .getDefiningOp<LLVM::InlineAsmOp>();
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait.getAsmString(), "wgmma.wait_group.sync.aligned 1;");
  EXPECT_EQ(wait.getConstraints(), "=f,=f,=f,=f,0,1,2,3");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "nvidia shuffle: cannot shuffle a value of type 'i64' "
                       "(i32 or f32 only; the caller splits wider values)");
  EXPECT_EQ(errors[1], "nvidia target hooks: the module already has a symbol "
                       "@tegula_shared that is not the shared memory array");
}

//===-- NvidiaImage ----------------------------------------------------------===//

TEST(NvidiaImage, RoundTripsAndRefusesBadImages) {
  NvidiaImage image;
  image.kernelName = "scale";
  image.target = "nvidia:sm_90";
  image.arch = "sm_90a";
  image.numWarps = 4;
  image.sharedBytes = 1234;
  image.argSizes = {8, 8, 4, 4};
  image.ptx = ".version 8.5";
  image.cubin = std::string("\x7f" "ELF\0\1", 6);
  std::string bytes = tegula::backend::writeImage(image);
  llvm::Expected<NvidiaImage> read = tegula::backend::readImage<tegula::nvidia::NvidiaImage>(bytes.data(), bytes.size());
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->kernelName, "scale");
  EXPECT_EQ(read->target, "nvidia:sm_90");
  EXPECT_EQ(read->arch, "sm_90a");
  EXPECT_EQ(read->numWarps, 4u);
  EXPECT_EQ(read->sharedBytes, 1234u);
  EXPECT_EQ(read->argSizes, (std::vector<uint32_t>{8, 8, 4, 4}));
  EXPECT_EQ(read->ptx, image.ptx);
  EXPECT_EQ(read->cubin, image.cubin);

  auto error = [](const std::string &bytes) {
    llvm::Expected<NvidiaImage> read =
        tegula::backend::readImage<tegula::nvidia::NvidiaImage>(bytes.data(), bytes.size());
    return read ? std::string("accepted")
                : llvm::toString(read.takeError());
  };
  EXPECT_EQ(error(bytes.substr(0, 10)),
            "invalid NVIDIA kernel image: it is 10 bytes, shorter than the "
            "32-byte header");
  EXPECT_EQ(error(bytes.substr(0, bytes.size() - 1)).rfind(
                "invalid NVIDIA kernel image: the header announces", 0),
            0u);
  std::string other = bytes;
  other[0] = 'X';
  EXPECT_EQ(error(other), "invalid NVIDIA kernel image: no TGNVPTX magic (not "
                          "made by the nvidia plugin)");
  std::string future = bytes;
  future[8] = 2;
  EXPECT_EQ(error(future), "NVIDIA kernel image format version 2 is not "
                           "supported (this plugin reads version 1)");
}

//===-- The plugin's compile, through the plugin ABI --------------------------===//

const std::string kVectorAdd = vectorAddIR(1024);

/// The built nvidia plugin, opened directly (no runtime, no device).
class NvidiaPluginAbi : public ::testing::Test {
protected:
  void SetUp() override {
    std::string path = nvidiaPluginDir() + "/libtegula_plugin_nvidia.so";
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    auto getApi = reinterpret_cast<tg_plugin_get_api_fn *>(
        dlsym(library, TG_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(getApi, nullptr);
    api = getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
    ASSERT_NE(api, nullptr);
    tg_plugin_initialize_args init{};
    init.struct_size = sizeof(init);
    init.runtime_major = TG_PLUGIN_API_MAJOR;
    init.runtime_minor = TG_PLUGIN_API_MINOR;
    ASSERT_EQ(api->plugin_initialize(&init), nullptr);
    plugin = init.plugin;
  }
  void TearDown() override {
    if (api && plugin) {
      tg_plugin_destroy_args destroy{};
      destroy.struct_size = sizeof(destroy);
      destroy.plugin = plugin;
      EXPECT_EQ(api->plugin_destroy(&destroy), nullptr);
    }
    // The plugin stays loaded: the CUDA driver it may have opened does.
  }

  /// Code and message of |error| (freed); TG_SUCCESS, "" for none.
  std::pair<int32_t, std::string> take(tg_error_t *error) {
    if (!error)
      return {TG_SUCCESS, ""};
    tg_error_message_args m{};
    m.struct_size = sizeof(m);
    m.error = error;
    api->error_message(&m);
    tg_error_get_code_args c{};
    c.struct_size = sizeof(c);
    c.error = error;
    api->error_get_code(&c);
    std::string message(m.message, m.message_size);
    tg_error_destroy_args d{};
    d.struct_size = sizeof(d);
    d.error = error;
    api->error_destroy(&d);
    return {c.code, message};
  }

  /// Compiles |bytes| for |target| with |options|; the image (to destroy
  /// with destroyImage) in |args| on success.
  std::pair<int32_t, std::string>
  compile(const std::string &bytes, const char *target,
          const std::vector<tg_compile_option> &options,
          tg_plugin_compile_args &args) {
    args = tg_plugin_compile_args{};
    args.struct_size = sizeof(args);
    args.plugin = plugin;
    args.target = target;
    args.bytecode = bytes.data();
    args.bytecode_size = bytes.size();
    args.options = options.data();
    args.num_options = options.size();
    return take(api->plugin_compile(&args));
  }
  void destroyImage(tg_image_t *image) {
    tg_image_destroy_args destroy{};
    destroy.struct_size = sizeof(destroy);
    destroy.image = image;
    EXPECT_EQ(api->image_destroy(&destroy), nullptr);
  }

  void *library = nullptr;
  const tg_plugin_api *api = nullptr;
  tg_plugin_t *plugin = nullptr;
};

TEST_F(NvidiaPluginAbi, CompilesVectorAddWithoutADevice) {
  std::string bytes = tileBytecode(kVectorAdd);
  ASSERT_FALSE(bytes.empty());
  tg_plugin_compile_args args;
  auto [code, message] = compile(bytes, "sm_90", {}, args);
  ASSERT_EQ(code, TG_SUCCESS) << message;
  const tg_kernel_metadata *meta = args.metadata;
  ASSERT_NE(meta, nullptr);
  EXPECT_STREQ(meta->name, "add_kernel");
  EXPECT_STREQ(meta->target, "nvidia:sm_90");
  EXPECT_EQ(meta->num_warps, 4u);
  ASSERT_EQ(meta->num_args, 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(meta->args[i].kind, uint32_t(TG_ARG_POINTER));
    EXPECT_EQ(meta->args[i].type, uint32_t(TG_TYPE_F32));
    EXPECT_EQ(meta->args[i].divisibility, 16u);
  }
  EXPECT_EQ(meta->args[3].kind, uint32_t(TG_ARG_SCALAR));
  EXPECT_EQ(meta->args[3].type, uint32_t(TG_TYPE_I32));

  llvm::Expected<NvidiaImage> image =
      tegula::backend::readImage<tegula::nvidia::NvidiaImage>(args.image_data, args.image_size);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  EXPECT_EQ(image->kernelName, "add_kernel");
  EXPECT_EQ(image->target, "nvidia:sm_90");
  EXPECT_EQ(image->arch, "sm_90a");
  EXPECT_EQ(image->numWarps, 4u);
  EXPECT_EQ(image->sharedBytes, meta->shared_memory);
  EXPECT_EQ(image->argSizes, (std::vector<uint32_t>{8, 8, 8, 4}));
  EXPECT_TRUE(contains(image->ptx, ".visible .entry add_kernel(")) << image->ptx;
  EXPECT_TRUE(contains(image->ptx, ".maxntid 128, 1, 1")) << image->ptx;
  std::string whyNot;
  EXPECT_EQ(image->cubin.empty(), !findPtxas(whyNot).has_value());
  destroyImage(args.image);
}

TEST_F(NvidiaPluginAbi, NumWarpsOptionSetsTheBlock) {
  std::string bytes = tileBytecode(kVectorAdd);
  tg_plugin_compile_args args;
  auto [code, message] =
      compile(bytes, "sm_80", {{"num_warps", "8"}}, args);
  ASSERT_EQ(code, TG_SUCCESS) << message;
  EXPECT_EQ(args.metadata->num_warps, 8u);
  EXPECT_STREQ(args.metadata->target, "nvidia:sm_80");
  llvm::Expected<NvidiaImage> image =
      tegula::backend::readImage<tegula::nvidia::NvidiaImage>(args.image_data, args.image_size);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  EXPECT_EQ(image->arch, "sm_80");
  EXPECT_TRUE(contains(image->ptx, ".maxntid 256, 1, 1")) << image->ptx;
  destroyImage(args.image);
}

TEST_F(NvidiaPluginAbi, CompileErrorsAreOneLineWithTheirCode) {
  std::string bytes = tileBytecode(kVectorAdd);
  tg_plugin_compile_args args;
  auto [code, message] = compile(bytes, "sm_90", {{"num_warps", "3"}}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "num_warps must be a power of 2 from 1 to 32 (at most "
                     "1024 threads per block), not 3");
  std::tie(code, message) = compile(bytes, "sm_90", {{"num_warps", "x"}}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "compile option num_warps=x is not an integer from 1 to 32");
  // The plugin takes only the options it declares, and says which.
  std::tie(code, message) =
      compile(bytes, "sm_90", {{"kernel", "add_kernel"}}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "no compile option 'kernel' (options: num_warps, "
                     "num_stages, mma, wgmma, lowering, llvm_passes, ptxas, "
                     "ptxas_options)");
  std::tie(code, message) = compile(bytes, "sm_90", {{"wgmma", "2"}}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "compile option wgmma=2 is not 1 or 0");
  std::tie(code, message) = compile(bytes, "sm_42", {}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "the nvidia plugin compiles for sm_75, sm_80, sm_86, "
                     "sm_89, sm_90, sm_90a, not 'sm_42'");
  std::tie(code, message) = compile("garbage", "sm_90", {}, args);
  EXPECT_EQ(code, TG_ERROR_INVALID_FORMAT);
  EXPECT_EQ(args.image, nullptr);
}

//===-- With a device: compiled from tile bytecode, through the runtime --------===//

TEST(NvidiaCompiledKernels, VectorAddRunsOnTheDevice) {
  Runtime runtime = makeNvidiaRuntime();
  std::vector<Device> devices = runtime.devices();
  if (devices.empty())
    GTEST_SKIP() << noDeviceReason(runtime);
  Device device = devices.front();
  std::string bytes = tileBytecode(kVectorAdd);
  Image image = device.compile(bytes.data(), bytes.size(), {});
  const tg_kernel_metadata *meta = image.metadata();
  EXPECT_EQ(std::string(meta->target), device.target());
  Kernel kernel = device.loadKernel(image.data(), image.size(), "add_kernel");
  const int32_t n = 5000, slack = 40;
  std::vector<float> x(n + slack), y(n + slack);
  for (int32_t i = 0; i < n + slack; ++i) {
    x[i] = 0.25f * float(i);
    y[i] = 3.0f - float(i % 77);
  }
  Buffer bx = device.allocate(x.size() * 4), by = device.allocate(y.size() * 4),
         bo = device.allocate(x.size() * 4);
  bx.write(x);
  by.write(y);
  bo.write(std::vector<float>(x.size(), -1.0f));
  ArgPack args(meta);
  args.add(bx).add(by).add(bo).add(n);
  kernel.launch({(n + 1023) / 1024, 1, 1}, {meta->num_warps * 32, 1, 1}, args);
  std::vector<float> got = bo.read<float>(x.size());
  for (int32_t i = 0; i < n + slack; ++i)
    ASSERT_EQ(got[i], i < n ? x[i] + y[i] : -1.0f) << "element " << i;
}

/// tl.device_print of a tile, a scalar and nothing, compiled from tile IR.
constexpr const char *kPrintKernel = R"mlir(
module {
  tile.func @print_kernel(%arg0: i32) {
    %r = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    tile.print " r: " {hex = false, is_signed = array<i32: 1>} : %r : tensor<4xi32>
    %pid = tile.program_id 0 : i32
    tile.print " pid: " {hex = false, is_signed = array<i32: 1>} : %pid : i32
    tile.print "hello" {hex = false, is_signed = array<i32>}
    tile.return
  }
}
)mlir";

TEST(NvidiaCompiledKernels, PrintWritesTheHostPluginsLines) {
  Runtime runtime = makeNvidiaRuntime();
  std::vector<Device> devices = runtime.devices();
  if (devices.empty())
    GTEST_SKIP() << noDeviceReason(runtime);
  Device device = devices.front();
  std::string bytes = tileBytecode(kPrintKernel);
  Image image = device.compile(bytes.data(), bytes.size(), {{"num_warps", "1"}});
  Kernel kernel = device.loadKernel(image.data(), image.size(), "print_kernel");
  ArgPack args(image.metadata());
  args.add(int32_t(0));

  // The device's printf buffer reaches the process's stdout when the
  // launch is synchronized: catch it in a file.
  std::fflush(stdout);
  FILE *capture = std::tmpfile();
  ASSERT_NE(capture, nullptr);
  int saved = dup(1);
  ASSERT_GE(saved, 0);
  dup2(fileno(capture), 1);
  kernel.launch({2, 1, 1}, {32, 1, 1}, args);
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::rewind(capture);
  std::string text;
  char chunk[4096];
  for (size_t got; (got = std::fread(chunk, 1, sizeof(chunk), capture)) > 0;)
    text.append(chunk, got);
  std::fclose(capture);

  // Every thread holding a replica prints it, as on Triton: compare the set.
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.insert(line);
  std::set<std::string> want;
  for (int pid = 0; pid < 2; ++pid) {
    std::string ids = "pid (" + std::to_string(pid) + ", 0, 0)";
    for (int i = 0; i < 4; ++i)
      want.insert(ids + " idx (" + std::to_string(i) + ") r: " +
                  std::to_string(i));
    want.insert(ids + " pid: " + std::to_string(pid));
    want.insert(ids + " hello");
  }
  EXPECT_EQ(lines, want) << text;
}

} // namespace
