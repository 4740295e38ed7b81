//===- HostTargetHooksTest.cpp - The host's TargetHooks, run on the CPU ---===//
//
// An llvm.func built only from HostTargetHooks (program ids, grid, thread
// id, barrier, shuffle, scratch, print, assert), in the shape middle/'s
// lowering gives a kernel (its own arguments, then the program context), is
// translated to LLVM IR, wrapped by addHostEntry, compiled by
// compileLLVMModuleToImage and run by the built host plugin through the
// runtime: what the lowering will emit through the hooks works end to end
// before the lowering itself does.
//
//===----------------------------------------------------------------------===//

#include "HostTargetHooks.h"
#include "HostCodegen.h"
#include "TestSupport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

using namespace mlir;
using namespace tegula;
using namespace tegula::test;
using tegula::backend::Axis;
using tegula::backend::ShuffleKind;
using tegula::host::HostTargetHooks;

namespace {

/// Slots each program writes: x, y, z, nx, ny, nz, thread id, shuffled x,
/// the value read back from scratch, the scratch address.
constexpr int kSlots = 10;

class HostTargetHooksTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { setenv("TEGULA_NUM_THREADS", "3", 1); }
  static void TearDownTestSuite() { unsetenv("TEGULA_NUM_THREADS"); }

  HostTargetHooksTest()
      : runtime(makeRuntime(kBuildPluginDir, "host")),
        device(runtime.device("host:0")), loc(FileLineColLoc::get(
                                               &context, "hooks.py", 7, 3)) {
    context.loadDialect<LLVM::LLVMDialect>();
    registerBuiltinDialectTranslation(context);
    registerLLVMDialectTranslation(context);
  }

  Value i32(OpBuilder &b, int32_t value) {
    return b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                      b.getI32IntegerAttr(value));
  }
  Value i64(OpBuilder &b, int64_t value) {
    return b.create<LLVM::ConstantOp>(loc, b.getI64Type(),
                                      b.getI64IntegerAttr(value));
  }

  /// hooks_kernel(i64 *out, i32 failing, program *ctx), from the hooks.
  OwningOpRef<ModuleOp> buildKernel() {
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    OpBuilder b(module->getBodyRegion());
    Type ptr = LLVM::LLVMPointerType::get(&context);
    SmallVector<Type> params = {ptr, b.getI32Type()};
    for (Type type : hooks.getKernelContextTypes(&context))
      params.push_back(type);
    auto func = b.create<LLVM::LLVMFuncOp>(
        loc, "hooks_kernel",
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&context),
                                    params));
    Block *entry = func.addEntryBlock(b);
    Block *bad = func.addBlock();
    Block *done = func.addBlock();
    b.setInsertionPointToStart(entry);

    Value x = hooks.buildProgramId(b, loc, Axis::X);
    Value y = hooks.buildProgramId(b, loc, Axis::Y);
    Value z = hooks.buildProgramId(b, loc, Axis::Z);
    Value nx = hooks.buildNumPrograms(b, loc, Axis::X);
    Value ny = hooks.buildNumPrograms(b, loc, Axis::Y);
    Value nz = hooks.buildNumPrograms(b, loc, Axis::Z);
    Value tid = hooks.buildThreadId(b, loc);
    hooks.buildBarrier(b, loc);
    Value shuffled =
        hooks.buildShuffle(b, loc, x, ShuffleKind::Xor, i32(b, 1));
    Value scratch = hooks.buildScratchBase(b, loc);

    Value row = b.create<LLVM::AddOp>(loc, y, b.create<LLVM::MulOp>(loc, ny, z));
    Value linear =
        b.create<LLVM::AddOp>(loc, x, b.create<LLVM::MulOp>(loc, nx, row));
    Value first = b.create<LLVM::MulOp>(loc, linear, i32(b, kSlots));
    Value out = entry->getArgument(0);
    auto store = [&](int slot, Value value) {
      Value wide = value;
      if (value.getType() != b.getI64Type())
        wide = b.create<LLVM::ZExtOp>(loc, b.getI64Type(), value);
      Value index = b.create<LLVM::AddOp>(loc, first, i32(b, slot));
      Value address = b.create<LLVM::GEPOp>(loc, ptr, b.getI64Type(), out,
                                            ValueRange{index});
      b.create<LLVM::StoreOp>(loc, wide, address);
    };
    Value values[] = {x, y, z, nx, ny, nz, tid, shuffled};
    for (int slot = 0; slot < 8; ++slot)
      store(slot, values[slot]);
    b.create<LLVM::StoreOp>(loc, linear, scratch, /*alignment=*/4,
                            /*isVolatile=*/true);
    store(8, b.create<LLVM::LoadOp>(loc, b.getI32Type(), scratch, 4,
                                    /*isVolatile=*/true));
    store(9, b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), scratch));

    EXPECT_TRUE(succeeded(
        hooks.buildPrint(b, loc, "x:", i64(b, -1), x, true, false)));
    Value f32 = b.create<LLVM::ConstantOp>(loc, b.getF32Type(),
                                           b.getF32FloatAttr(2.5f));
    EXPECT_TRUE(succeeded(
        hooks.buildPrint(b, loc, " val: ", i64(b, 5), f32, false, false)));
    Value i16 = b.create<LLVM::ConstantOp>(loc, b.getI16Type(),
                                           b.getI16IntegerAttr(0xab));
    EXPECT_TRUE(succeeded(
        hooks.buildPrint(b, loc, " h: ", i32(b, 2), i16, false, true)));
    Value yes = b.create<LLVM::ConstantOp>(loc, b.getI1Type(),
                                           b.getBoolAttr(true));
    EXPECT_TRUE(
        succeeded(hooks.buildPrint(b, loc, " b: ", i64(b, -1), yes, true, false)));
    Value minus3 = b.create<LLVM::ConstantOp>(loc, b.getI8Type(),
                                              b.getI8IntegerAttr(-3));
    EXPECT_TRUE(succeeded(
        hooks.buildPrint(b, loc, " n: ", i64(b, -1), minus3, true, false)));
    Value one = b.create<LLVM::ConstantOp>(loc, b.getF16Type(),
                                           b.getF16FloatAttr(1.0f));
    EXPECT_TRUE(
        succeeded(hooks.buildPrint(b, loc, " hf: ", i64(b, -1), one, false, true)));
    // The same prefix again: its string constant is reused.
    EXPECT_TRUE(succeeded(
        hooks.buildPrint(b, loc, "x:", i64(b, -1), z, false, false)));

    Value hit = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, x,
                                       entry->getArgument(1));
    b.create<LLVM::CondBrOp>(loc, hit, bad, done);
    b.setInsertionPointToStart(bad);
    EXPECT_TRUE(succeeded(hooks.buildAssertFailure(
        b, loc, "x != failing", "hooks.py", 42, "hooks_kernel", i64(b, 9))));
    b.create<LLVM::BrOp>(loc, done);
    b.setInsertionPointToStart(done);
    b.create<LLVM::ReturnOp>(loc, ValueRange{});
    return module;
  }

  /// The image of |module| with entry "hooks_kernel".
  std::string compile(ModuleOp module, uint64_t scratchBytes) {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, llvmContext, "hooks");
    if (!llvmModule) {
      ADD_FAILURE() << "translation to LLVM IR failed";
      return "";
    }
    llvm::Expected<uint64_t> argsSize = tegula::host::addHostEntry(
        *llvmModule->getFunction("hooks_kernel"), "hooks_kernel");
    if (!argsSize) {
      ADD_FAILURE() << llvm::toString(argsSize.takeError());
      return "";
    }
    EXPECT_EQ(*argsSize, 16u);
    tegula::host::HostKernelInfo info;
    info.name = "hooks_kernel";
    info.target = device.target();
    info.scratchBytes = scratchBytes;
    info.packedArgsSize = *argsSize;
    llvm::Expected<std::string> image =
        tegula::host::compileLLVMModuleToImage(*llvmModule, info);
    if (!image) {
      ADD_FAILURE() << llvm::toString(image.takeError());
      return "";
    }
    return *image;
  }

  Runtime runtime;
  Device device;
  MLIRContext context;
  Location loc;
  HostTargetHooks hooks;
};

TEST_F(HostTargetHooksTest, AnswersForOneThreadPerProgram) {
  EXPECT_EQ(hooks.getWarpSize(), 1u);
  EXPECT_EQ(hooks.getGlobalAddressSpace(), 0u);
  EXPECT_EQ(hooks.getSharedAddressSpace(), 0u);
  SmallVector<Type> context = hooks.getKernelContextTypes(&this->context);
  ASSERT_EQ(context.size(), 1u);
  EXPECT_TRUE(isa<LLVM::LLVMPointerType>(context[0]));
}

TEST_F(HostTargetHooksTest, KernelBuiltFromTheHooksRuns) {
  OwningOpRef<ModuleOp> module = buildKernel();
  ASSERT_TRUE(succeeded(verify(*module)));
  int strings = 0, printDecls = 0, assertDecls = 0;
  module->walk([&](Operation *op) {
    if (auto global = dyn_cast<LLVM::GlobalOp>(op))
      strings += global.getSymName().starts_with("tegula_str_");
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      printDecls += func.getSymName() == "tegula_host_print";
      assertDecls += func.getSymName() == "tegula_host_assert_fail";
    }
  });
  // Six print prefixes ("x:" twice) and the assert's message, file and
  // function.
  EXPECT_EQ(strings, 9);
  EXPECT_EQ(printDecls, 1);
  EXPECT_EQ(assertDecls, 1);

  std::string image = compile(*module, 64);
  ASSERT_FALSE(image.empty());
  Kernel kernel = device.loadKernel(image.data(), image.size(), "hooks_kernel");

  const Dim3 grid = {3, 2, 2};
  const uint32_t programs = grid[0] * grid[1] * grid[2];
  Buffer out = device.allocate(programs * kSlots * 8);
  out.memset(0xff, programs * kSlots * 8);
  ArgPack args;
  args.add(out).add(int32_t(-1));
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  kernel.launch(grid, {1, 1, 1}, args);
  std::string printed = ::testing::internal::GetCapturedStdout();

  std::vector<uint64_t> got = out.read<uint64_t>(programs * kSlots);
  std::vector<std::string> want;
  for (uint32_t z = 0; z < grid[2]; ++z)
    for (uint32_t y = 0; y < grid[1]; ++y)
      for (uint32_t x = 0; x < grid[0]; ++x) {
        uint32_t l = x + grid[0] * (y + grid[1] * z);
        const uint64_t *slot = &got[l * kSlots];
        SCOPED_TRACE("program " + std::to_string(l));
        EXPECT_EQ(slot[0], x);
        EXPECT_EQ(slot[1], y);
        EXPECT_EQ(slot[2], z);
        EXPECT_EQ(slot[3], grid[0]);
        EXPECT_EQ(slot[4], grid[1]);
        EXPECT_EQ(slot[5], grid[2]);
        EXPECT_EQ(slot[6], 0u) << "thread id";
        EXPECT_EQ(slot[7], x) << "shuffle of one lane";
        EXPECT_EQ(slot[8], l) << "scratch read back";
        EXPECT_NE(slot[9], 0u);
        EXPECT_EQ(slot[9] % 64, 0u) << "scratch alignment";
        std::string pid = "pid (" + std::to_string(x) + ", " +
                          std::to_string(y) + ", " + std::to_string(z) + ")";
        want.push_back(pid + " x: " + std::to_string(x));
        want.push_back(pid + " idx (5) val: 2.500000");
        want.push_back(pid + " idx (2) h: 0x00ab");
        want.push_back(pid + " b: 1");
        want.push_back(pid + " n: -3");
        want.push_back(pid + " hf: 0x3c00");
        want.push_back(pid + " x: " + std::to_string(z));
      }
  std::sort(want.begin(), want.end());
  std::vector<std::string> lines;
  std::istringstream in(printed);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, want) << printed;

  // The assert, for program (4, 0, 0) of five.
  ArgPack failing;
  failing.add(out).add(int32_t(4));
  ::testing::internal::CaptureStdout();
  Error error = expectError([&] { kernel.launch({5, 1, 1}, {1, 1, 1}, failing); });
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(error.code(), TG_ERROR_DEVICE);
  EXPECT_EQ(std::string(error.what()),
            "host: device_assert failed at hooks.py:42 in hooks_kernel: "
            "x != failing (program (4, 0, 0), element 9)");
}

TEST_F(HostTargetHooksTest, OutsideAKernelFunctionIsAnError) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(module->getBodyRegion());
  auto func = b.create<LLVM::LLVMFuncOp>(
      loc, "no_context",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&context),
                                  {b.getI32Type()}));
  b.setInsertionPointToStart(func.addEntryBlock(b));
  Value id = hooks.buildProgramId(b, loc, Axis::X);
  ASSERT_TRUE(id);
  EXPECT_TRUE(isa<LLVM::PoisonOp>(id.getDefiningOp()));
  EXPECT_EQ(message, "host target hooks: @no_context does not end in the "
                     "!llvm.ptr program context argument");
  EXPECT_TRUE(failed(hooks.buildPrint(b, loc, "x", i64(b, -1), id, true,
                                      false)));
}

} // namespace
