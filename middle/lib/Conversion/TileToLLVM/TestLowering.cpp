//===- TestLowering.cpp - tile-test-lower-to-llvm -------------------------===//
//
// Runs lowerTileToLLVM with TestTargetHooks, for lit tests of the lowering:
// the kernel takes one extra `!llvm.ptr` (a context laid out as
// {[3 x i32] program id, [3 x i32] programs, ptr scratch}); print and assert
// call `@test_print(i64 index, ptr value-or-null)`-like declarations named
// after the hook. The module gets `lowering.scratch_bytes`.
//
// With `distributed=true` (the GPU execution model, LoweringOptions::
// distributed) the context has a fourth field, the i32 thread id; warps are
// `warp-size` threads, barriers call `@test_barrier()` and shuffles
// `@test_shuffle_xor(value, offset)` (and _up, _down, _idx), whose results
// are the exchanged values. Scratch is then the shared memory.
//
// Matrix units: the families registered with the pass
// (registerTileToLLVMTestPass; tegula-opt registers those of the plugins it
// is built with) lay out `#tile.matrix` tiles and dots as in a compile, but
// build no instruction: an instruction of the family of kind "vendor.unit"
// on register fragments is `@test_unit(a..., b..., c...)` returning the D
// fragment as a struct, and the family's other instructions (matrix loads,
// shared-operand groups) are refused, so the lowering takes its portable
// paths.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "tegula/BackendKit/MatrixUnit.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tegula;

namespace {

class TestTargetHooks : public backend::TargetHooks {
public:
  TestTargetHooks(bool distributed, unsigned warpSize)
      : distributed(distributed), warpSize(warpSize) {}
  bool distributed;
  unsigned warpSize;

  unsigned getWarpSize() const override { return warpSize; }
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

  Type contextType(MLIRContext *ctx) const {
    Type i32 = IntegerType::get(ctx, 32);
    Type i32x3 = LLVM::LLVMArrayType::get(i32, 3);
    SmallVector<Type> fields{i32x3, i32x3, LLVM::LLVMPointerType::get(ctx)};
    if (distributed)
      fields.push_back(i32);
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
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
    if (!distributed)
      return b.create<arith::ConstantIntOp>(loc, 0, 32);
    Value addr = b.create<LLVM::GEPOp>(
        loc, LLVM::LLVMPointerType::get(b.getContext()),
        contextType(b.getContext()), context(b),
        ArrayRef<LLVM::GEPArg>{0, 3});
    return b.create<LLVM::LoadOp>(loc, b.getI32Type(), addr);
  }
  void buildBarrier(OpBuilder &b, Location loc) const override {
    if (distributed)
      callHook(b, loc, "test_barrier", {}, {});
  }
  Value buildShuffle(OpBuilder &b, Location loc, Value value,
                     backend::ShuffleKind kind, Value offset) const override {
    if (!distributed)
      return value;
    static const char *names[] = {"test_shuffle_xor", "test_shuffle_up",
                                  "test_shuffle_down", "test_shuffle_idx"};
    return callHook(b, loc, names[static_cast<int>(kind)], {value, offset},
                    value.getType());
  }
  Value buildScratchBase(OpBuilder &b, Location loc) const override {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value addr = b.create<LLVM::GEPOp>(loc, ptr, contextType(b.getContext()),
                                       context(b),
                                       ArrayRef<LLVM::GEPArg>{0, 2});
    return b.create<LLVM::LoadOp>(loc, ptr, addr);
  }

  /// Calls the declaration |name| (declared on first use, a suffix
  /// telling signatures apart); returns its result when |result| is set.
  Value callHook(OpBuilder &b, Location loc, StringRef name, ValueRange args,
                 Type result = {}) const {
    auto module = b.getInsertionBlock()
                      ->getParentOp()
                      ->getParentOfType<ModuleOp>();
    SmallVector<Type> types(args.getTypes());
    auto fnType = LLVM::LLVMFunctionType::get(
        result ? result : LLVM::LLVMVoidType::get(b.getContext()), types);
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
    auto call = b.create<LLVM::CallOp>(
        loc, result ? TypeRange{result} : TypeRange{}, symbol, args);
    return result ? call.getResult() : Value();
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

/// A registered family as the tests see it: its layouts and rules (every
/// query of MatrixUnit forwarded), with its instructions on register
/// fragments replaced by calls to `@test_<unit>` (TestTargetHooks::callHook)
/// and its other instructions refused (the defaults).
class TestMatrixUnit : public backend::MatrixUnit {
public:
  TestMatrixUnit(const backend::MatrixUnit &unit, const TestTargetHooks &hooks)
      : unit(unit), hooks(hooks) {}

  StringRef getKind() const override { return unit.getKind(); }
  std::optional<backend::MatrixInstruction>
  selectInstruction(const backend::DotProblem &dot) const override {
    return unit.selectInstruction(dot);
  }
  backend::MatrixLayout getResultLayout(ArrayRef<int64_t> shape,
                                        const backend::MatrixInstruction &instr,
                                        unsigned numWarps) const override {
    return unit.getResultLayout(shape, instr, numWarps);
  }
  FailureOr<backend::LinearLayout>
  getLinearLayout(const backend::MatrixLayout &layout, ArrayRef<int64_t> shape,
                  int64_t opIdx, int64_t kWidth,
                  std::string &error) const override {
    return unit.getLinearLayout(layout, shape, opIdx, kWidth, error);
  }
  FailureOr<int64_t> getInstructionK(const backend::MatrixLayout &layout,
                                     Type a, Type b, Type acc,
                                     std::string &error) const override {
    return unit.getInstructionK(layout, a, b, acc, error);
  }
  bool readsSharedOperands(const backend::MatrixLayout &layout) const override {
    return unit.readsSharedOperands(layout);
  }
  FailureOr<int64_t>
  getSharedOperandSwizzle(const backend::MatrixLayout &layout, int64_t extent,
                          int64_t rows, unsigned elementBits,
                          std::string &error) const override {
    return unit.getSharedOperandSwizzle(layout, extent, rows, elementBits,
                                        error);
  }
  int64_t
  getWarpsPerInstruction(const backend::MatrixLayout &layout) const override {
    return unit.getWarpsPerInstruction(layout);
  }
  bool takesRegisterOperand(const backend::MatrixLayout &layout, int64_t opIdx,
                            unsigned elementBits) const override {
    return unit.takesRegisterOperand(layout, opIdx, elementBits);
  }

  /// `@test_<unit>(a..., b..., c...)`, the part of the kind after its
  /// vendor naming the call.
  FailureOr<SmallVector<Value>> buildMultiply(OpBuilder &b, Location loc,
                                              const backend::MatrixLayout &,
                                              ValueRange a, ValueRange bValues,
                                              ValueRange c) const override {
    SmallVector<Value> args(a);
    args.append(bValues.begin(), bValues.end());
    args.append(c.begin(), c.end());
    SmallVector<Type> fields(c.getTypes());
    Type result = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    std::string name = "test_" + getKind().rsplit('.').second.str();
    Value d = hooks.callHook(b, loc, name, args, result);
    SmallVector<Value> values;
    for (int64_t i = 0; i < static_cast<int64_t>(c.size()); ++i)
      values.push_back(
          b.create<LLVM::ExtractValueOp>(loc, d, ArrayRef<int64_t>{i}));
    return values;
  }

private:
  const backend::MatrixUnit &unit;
  const TestTargetHooks &hooks;
};

struct TestLowerToLLVMPass
    : public PassWrapper<TestLowerToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLowerToLLVMPass)
  explicit TestLowerToLLVMPass(const backend::MatrixUnitRegistry *units)
      : units(units) {}
  TestLowerToLLVMPass(const TestLowerToLLVMPass &other)
      : PassWrapper(other), units(other.units) {}
  /// The families registered with the pass (null: none).
  const backend::MatrixUnitRegistry *units = nullptr;
  Option<bool> polynomialMath{
      *this, "polynomial-math",
      llvm::cl::desc("f32 math as polynomial approximations "
                     "(LoweringOptions::polynomialMath)"),
      llvm::cl::init(false)};
  Option<bool> distributed{
      *this, "distributed",
      llvm::cl::desc("the GPU execution model (LoweringOptions::distributed)"),
      llvm::cl::init(false)};
  Option<unsigned> warpSize{*this, "warp-size",
                            llvm::cl::desc("threads per warp (distributed)"),
                            llvm::cl::init(32)};
  StringRef getArgument() const override { return "tile-test-lower-to-llvm"; }
  StringRef getDescription() const override {
    return "Lower a tile kernel to the LLVM dialect with test target hooks";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, arith::ArithDialect, scf::SCFDialect,
                    math::MathDialect, cf::ControlFlowDialect>();
  }
  void runOnOperation() override {
    TestTargetHooks hooks(distributed, distributed ? warpSize : 1);
    std::vector<std::unique_ptr<TestMatrixUnit>> wrapped;
    backend::MatrixUnitRegistry testUnits;
    if (units)
      for (const backend::MatrixUnit *unit : units->getUnits()) {
        wrapped.push_back(std::make_unique<TestMatrixUnit>(*unit, hooks));
        testUnits.add(*wrapped.back());
      }
    LoweringOptions options;
    options.polynomialMath = polynomialMath;
    options.distributed = distributed;
    options.matrixUnits = &testUnits;
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

void tegula::registerTileToLLVMTestPass(
    const backend::MatrixUnitRegistry *units) {
  PassRegistration<TestLowerToLLVMPass>(
      [units] { return std::make_unique<TestLowerToLLVMPass>(units); });
}
