//===- TestLowering.cpp - tile-test-lower-to-llvm -------------------------===//
//
// Runs lowerTileToLLVM with TestTargetHooks, for lit tests of the lowering:
// the kernel takes one extra `!llvm.ptr` (a context laid out as
// {[3 x i32] program id, [3 x i32] programs, ptr scratch}); print and assert
// call `@test_print(i64 index, ptr value-or-null)`-like declarations named
// after the hook. The module gets `lowering.scratch_bytes`.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tegula;

namespace {

class TestTargetHooks : public backend::TargetHooks {
public:
  unsigned getWarpSize() const override { return 1; }
  unsigned getGlobalAddressSpace() const override { return 0; }
  unsigned getSharedAddressSpace() const override { return 0; }

  SmallVector<Type> getKernelContextTypes(MLIRContext *ctx) const override {
    return {LLVM::LLVMPointerType::get(ctx)};
  }

  static Value context(OpBuilder &b) {
    Operation *parent = b.getInsertionBlock()->getParentOp();
    auto fn = isa<LLVM::LLVMFuncOp>(parent)
                  ? cast<LLVM::LLVMFuncOp>(parent)
                  : parent->getParentOfType<LLVM::LLVMFuncOp>();
    return fn.getArguments().back();
  }

  static Type contextType(MLIRContext *ctx) {
    Type i32x3 = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 32), 3);
    return LLVM::LLVMStructType::getLiteral(
        ctx, {i32x3, i32x3, LLVM::LLVMPointerType::get(ctx)});
  }

  Value field(OpBuilder &b, Location loc, int32_t index, int32_t axis) const {
    Value addr = b.create<LLVM::GEPOp>(
        loc, LLVM::LLVMPointerType::get(b.getContext()),
        contextType(b.getContext()), context(b),
        ArrayRef<LLVM::GEPArg>{0, index, axis});
    return b.create<LLVM::LoadOp>(loc, b.getI32Type(), addr);
  }

  Value buildProgramId(OpBuilder &b, Location loc,
                       backend::Axis axis) const override {
    return field(b, loc, 0, static_cast<int32_t>(axis));
  }
  Value buildNumPrograms(OpBuilder &b, Location loc,
                         backend::Axis axis) const override {
    return field(b, loc, 1, static_cast<int32_t>(axis));
  }
  Value buildThreadId(OpBuilder &b, Location loc) const override {
    return b.create<arith::ConstantIntOp>(loc, 0, 32);
  }
  void buildBarrier(OpBuilder &, Location) const override {}
  Value buildShuffle(OpBuilder &, Location, Value value, backend::ShuffleKind,
                     Value) const override {
    return value;
  }
  Value buildScratchBase(OpBuilder &b, Location loc) const override {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value addr = b.create<LLVM::GEPOp>(loc, ptr, contextType(b.getContext()),
                                       context(b),
                                       ArrayRef<LLVM::GEPArg>{0, 2});
    return b.create<LLVM::LoadOp>(loc, ptr, addr);
  }

  void callHook(OpBuilder &b, Location loc, StringRef name,
                ValueRange args) const {
    auto module = b.getInsertionBlock()
                      ->getParentOp()
                      ->getParentOfType<ModuleOp>();
    SmallVector<Type> types(args.getTypes());
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(b.getContext()), types);
    std::string symbol = name.str();
    int suffix = 0;
    while (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol)) {
      if (existing.getFunctionType() == fnType)
        break;
      symbol = name.str() + "_" + std::to_string(++suffix);
    }
    if (!module.lookupSymbol(symbol)) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      b.create<LLVM::LLVMFuncOp>(loc, symbol, fnType);
    }
    b.create<LLVM::CallOp>(loc, TypeRange{}, symbol, args);
  }

  LogicalResult buildPrint(OpBuilder &b, Location loc, StringRef,
                           Value index, Value value, bool,
                           bool) const override {
    SmallVector<Value> args{index};
    if (value)
      args.push_back(value);
    callHook(b, loc, "test_print", args);
    return success();
  }
  LogicalResult buildAssertFailure(OpBuilder &b, Location loc, StringRef,
                                   StringRef, unsigned line, StringRef,
                                   Value index) const override {
    callHook(b, loc, "test_assert_fail",
             {b.create<arith::ConstantIntOp>(loc, line, 32), index});
    return success();
  }
};

struct TestLowerToLLVMPass
    : public PassWrapper<TestLowerToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLowerToLLVMPass)
  TestLowerToLLVMPass() = default;
  TestLowerToLLVMPass(const TestLowerToLLVMPass &other)
      : PassWrapper(other) {}
  Option<bool> polynomialMath{
      *this, "polynomial-math",
      llvm::cl::desc("f32 math as polynomial approximations "
                     "(LoweringOptions::polynomialMath)"),
      llvm::cl::init(false)};
  StringRef getArgument() const override { return "tile-test-lower-to-llvm"; }
  StringRef getDescription() const override {
    return "Lower a tile kernel to the LLVM dialect with test target hooks";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, arith::ArithDialect, scf::SCFDialect,
                    math::MathDialect, cf::ControlFlowDialect>();
  }
  void runOnOperation() override {
    TestTargetHooks hooks;
    LoweringOptions options;
    options.polynomialMath = polynomialMath;
    FailureOr<LoweredKernel> kernel =
        lowerTileToLLVM(getOperation(), hooks, options);
    if (failed(kernel))
      return signalPassFailure();
    Builder b(&getContext());
    getOperation()->setAttr("lowering.scratch_bytes",
                            b.getI64IntegerAttr(kernel->scratchBytes));
  }
};

} // namespace

void tegula::registerTileToLLVMTestPass() {
  PassRegistration<TestLowerToLLVMPass>();
}
