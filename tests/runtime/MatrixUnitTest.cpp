//===- MatrixUnitTest.cpp - Matrix-unit families from outside middle/ -----===//
//
// A matrix-unit family defined here, in no plugin and unknown to middle/,
// registered the way a backend registers its own: the layout engine
// (tile::assignLayouts) gives a dot the family's #tile.matrix layout, and
// the distributed lowering (lowerTileToLLVM) distributes it with the
// family's linear layouts and builds the family's instructions; a kind
// nobody registered is a located error. Also the kit's pieces on their own:
// MatrixUnitRegistry, LinearLayout's builders, warpsForDot.
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/BackendKit/TargetHooks.h"
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

using namespace mlir;
using namespace tegula;
using namespace tegula::backend;

namespace {

/// "toy.mxu": an instruction computing a 2 x 2 x 2 f16 dot into f32 on
/// warps of 4 lanes, one element of each fragment per lane. Accumulator:
/// lane bit 0 along N, bit 1 along M; A: bit 0 along K, bit 1 along M; B:
/// bit 0 along K, bit 1 along N; repetitions cover the tile. Its
/// instruction is a call to @toy_mma(a, b, c) -> d.
class ToyUnit : public MatrixUnit {
public:
  StringRef getKind() const override { return "toy.mxu"; }

  std::optional<MatrixInstruction>
  selectInstruction(const DotProblem &dot) const override {
    if (dot.aType != TG_TYPE_F16 || dot.accType != TG_TYPE_F32 || dot.m % 2 ||
        dot.n % 2 || dot.k % 2)
      return std::nullopt;
    return MatrixInstruction{this, 7, 2, 2, 2};
  }

  FailureOr<LinearLayout> getLinearLayout(const MatrixLayout &layout,
                                          ArrayRef<int64_t> shape,
                                          int64_t opIdx, int64_t,
                                          std::string &error) const override {
    ++layoutQueries;
    if (layout.version != SmallVector<int64_t, 2>{7} || shape.size() != 2) {
      error = "toy.mxu lays out version 7, 2-D";
      return failure();
    }
    LinearLayout bases;
    bases.shape.assign(shape.begin(), shape.end());
    SmallVector<int64_t> covered(2, 1);
    // (first lane bit, second lane bit): C (N, M), A (K, M), B (K, N).
    int64_t first = opIdx == 0 ? 1 : opIdx == 1 ? 0 : 1;
    int64_t second = opIdx == 0 ? 0 : opIdx == 1 ? 1 : 0;
    bases.add(bases.lane, covered, first, 2);
    bases.add(bases.lane, covered, second, 2);
    bases.repeat(covered, {1, 0});
    return bases;
  }

  FailureOr<int64_t> getInstructionK(const MatrixLayout &, Type a, Type,
                                     Type acc,
                                     std::string &error) const override {
    if (!a.isF16() || !acc.isF32()) {
      error = "toy.mxu takes f16 into f32";
      return failure();
    }
    return 2;
  }

  FailureOr<SmallVector<Value>> buildMultiply(OpBuilder &builder, Location loc,
                                              const MatrixLayout &,
                                              ValueRange a, ValueRange b,
                                              ValueRange c) const override {
    if (a.size() != 1 || b.size() != 1 || c.size() != 1)
      return failure();
    auto module =
        builder.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    auto type = LLVM::LLVMFunctionType::get(
        builder.getF32Type(),
        {a.front().getType(), b.front().getType(), c.front().getType()});
    if (!module.lookupSymbol("toy_mma")) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(module.getBody());
      builder.create<LLVM::LLVMFuncOp>(loc, "toy_mma", type);
    }
    auto call = builder.create<LLVM::CallOp>(
        loc, TypeRange{builder.getF32Type()}, "toy_mma",
        ValueRange{a.front(), b.front(), c.front()});
    return SmallVector<Value>{call.getResult()};
  }

  mutable std::atomic<int> layoutQueries{0};
};

/// A family that reads its operands from shared memory (only that).
class ToySharedUnit : public ToyUnit {
public:
  StringRef getKind() const override { return "toy.shared"; }
  bool readsSharedOperands(const MatrixLayout &) const override { return true; }
};

/// Warps of 4 lanes, the toy family for dots.
class ToyPolicy : public LayoutPolicy {
public:
  explicit ToyPolicy(const MatrixUnit &unit) : unit(unit) {}
  unsigned getWarpSize() const override { return 4; }
  unsigned getMaxAccessBytes() const override { return 16; }
  std::optional<MatrixInstruction>
  selectMatrixInstruction(const DotProblem &dot) const override {
    return unit.selectInstruction(dot);
  }
  const MatrixUnit &unit;
};

/// The gpu dialect's primitives on warps of 4; shared memory is the
/// kernel's last parameter.
class ToyHooks : public GpuDialectTargetHooks {
public:
  ToyHooks() : GpuDialectTargetHooks(4, 1, 3) {}
  SmallVector<Type> getKernelContextTypes(MLIRContext *context) const override {
    return {LLVM::LLVMPointerType::get(context, 3)};
  }
  Value buildScratchBase(OpBuilder &builder, Location) const override {
    Operation *parent = builder.getInsertionBlock()->getParentOp();
    auto fn = isa<LLVM::LLVMFuncOp>(parent)
                  ? cast<LLVM::LLVMFuncOp>(parent)
                  : parent->getParentOfType<LLVM::LLVMFuncOp>();
    return fn.getArguments().back();
  }
};

constexpr const char *kDotKernel = R"mlir(
module attributes {tile.num_warps = 1 : i32} {
  tile.func @toy_dot(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
    %as = tile.splat %pa : !tile.ptr<f16> -> tensor<8x8x!tile.ptr<f16>>
    %a = tile.load %as : tensor<8x8x!tile.ptr<f16>>
    %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<8x8x!tile.ptr<f16>>
    %b = tile.load %bs : tensor<8x8x!tile.ptr<f16>>
    %zero = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
    %d = tile.dot %a, %b, %zero : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
    %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<8x8x!tile.ptr<f32>>
    tile.store %cs, %d : tensor<8x8x!tile.ptr<f32>>
    tile.return
  }
}
)mlir";

/// A context with what the kernel and the lowering need, collecting
/// diagnostics in |errors|.
struct Fixture {
  Fixture() {
    context.loadDialect<tile::TileDialect, arith::ArithDialect, gpu::GPUDialect,
                        LLVM::LLVMDialect>();
    registerTileToLLVMDialects(context);
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [&](Diagnostic &diagnostic) {
          std::string where;
          llvm::raw_string_ostream os(where);
          os << diagnostic.getLocation() << ": ";
          errors.push_back(where + diagnostic.str());
          return success();
        });
  }
  OwningOpRef<ModuleOp> parse() {
    return parseSourceString<ModuleOp>(kDotKernel, &context);
  }
  /// The distributed lowering of |module| on ToyHooks with |units|.
  LogicalResult lower(ModuleOp module, const MatrixUnitRegistry &units) {
    ToyHooks hooks;
    LoweringOptions options;
    options.distributed = true;
    options.matrixUnits = &units;
    return lowerTileToLLVM(module, hooks, options);
  }
  MLIRContext context;
  std::vector<std::string> errors;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
};

tile::DotOp findDot(ModuleOp module) {
  tile::DotOp dot;
  module.walk([&](tile::DotOp op) { dot = op; });
  return dot;
}

TEST(MatrixUnit, TheLayoutEngineGivesADotTheFamilysLayout) {
  Fixture f;
  OwningOpRef<ModuleOp> module = f.parse();
  ASSERT_TRUE(module);
  ToyUnit unit;
  ToyPolicy policy(unit);
  ASSERT_TRUE(succeeded(tile::assignLayouts(*module, policy)))
      << (f.errors.empty() ? "" : f.errors.front());
  tile::DotOp dot = findDot(*module);
  ASSERT_TRUE(dot);
  auto matrix = dyn_cast<tile::MatrixLayoutAttr>(dot.getType().getEncoding());
  ASSERT_TRUE(matrix) << "the dot's layout is not the family's";
  EXPECT_EQ(matrix.getKind(), "toy.mxu");
  EXPECT_EQ(matrix.getVersion(), ArrayRef<int64_t>{7});
  EXPECT_EQ(matrix.getWarpsPerCTA(), (ArrayRef<int64_t>{1, 1}));
  EXPECT_EQ(matrix.getInstrShape(), (ArrayRef<int64_t>{2, 2}));
  auto a =
      dyn_cast<tile::DotOperandLayoutAttr>(dot.getA().getType().getEncoding());
  ASSERT_TRUE(a);
  EXPECT_EQ(a.getParent(), matrix);
  EXPECT_EQ(a.getOpIdx(), 0);
}

TEST(MatrixUnit, TheLoweringDistributesWithTheFamilyAndBuildsItsInstructions) {
  Fixture f;
  OwningOpRef<ModuleOp> module = f.parse();
  ASSERT_TRUE(module);
  ToyUnit unit;
  ToyPolicy policy(unit);
  ASSERT_TRUE(succeeded(tile::assignLayouts(*module, policy)));
  MatrixUnitRegistry units;
  ASSERT_TRUE(units.add(unit));
  ASSERT_TRUE(succeeded(f.lower(*module, units)))
      << (f.errors.empty() ? "no error" : f.errors.front());
  EXPECT_GT(unit.layoutQueries.load(), 0);
  // 8x8 on 4 lanes: 16 accumulators per lane, each taking 8 / 2 K steps of
  // the family's instruction, chained through its result.
  int calls = 0;
  Value previous;
  bool chained = false;
  module->walk([&](LLVM::CallOp call) {
    if (call.getCallee() != "toy_mma")
      return;
    ++calls;
    chained |= previous && call.getOperand(2) == previous;
    previous = call.getResult();
  });
  EXPECT_EQ(calls, 16 * 4);
  EXPECT_TRUE(chained);
  EXPECT_TRUE(module->lookupSymbol<LLVM::LLVMFuncOp>("toy_mma"));
}

/// A kernel whose first tile has a toy.mxu layout, on line 5.
constexpr const char *kToyLayoutKernel = R"mlir(
#toy = #tile.matrix<{kind = "toy.mxu", version = [7], warpsPerCTA = [1, 1], instrShape = [2, 2]}>
module attributes {tile.num_warps = 1 : i32} {
  tile.func @toy_splat(%v: f32, %p: !tile.ptr<f32>) {
    %x = tile.splat %v : f32 -> tensor<8x8xf32, #toy>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<8x8x!tile.ptr<f32>, #toy>
    tile.store %ps, %x : tensor<8x8x!tile.ptr<f32>, #toy>
    tile.return
  }
}
)mlir";

TEST(MatrixUnit, AKindNobodyRegisteredIsALocatedError) {
  Fixture f;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kToyLayoutKernel, &f.context, "toy.mlir");
  ASSERT_TRUE(module);
  MatrixUnitRegistry others;
  ToySharedUnit shared;
  ASSERT_TRUE(others.add(shared));
  EXPECT_TRUE(failed(f.lower(*module, others)));
  ASSERT_FALSE(f.errors.empty());
  // At the first op with a toy.mxu layout.
  EXPECT_EQ(f.errors.front().rfind("loc(\"toy.mlir\":5:", 0), 0u)
      << f.errors.front();
  EXPECT_NE(f.errors.front().find("no matrix unit of kind 'toy.mxu' is "
                                  "registered"),
            std::string::npos)
      << f.errors.front();
  // With the family registered, the same kernel lowers.
  f.errors.clear();
  OwningOpRef<ModuleOp> again =
      parseSourceString<ModuleOp>(kToyLayoutKernel, &f.context, "toy.mlir");
  ToyUnit unit;
  ASSERT_TRUE(others.add(unit));
  EXPECT_TRUE(succeeded(f.lower(*again, others)))
      << (f.errors.empty() ? "" : f.errors.front());
}

TEST(MatrixUnit, SharedOperandsAreTheFamilysCall) {
  MLIRContext context;
  context.loadDialect<tile::TileDialect>();
  ToyUnit registers;
  ToySharedUnit shared;
  MatrixUnitRegistry units;
  ASSERT_TRUE(units.add(registers));
  ASSERT_TRUE(units.add(shared));
  auto operandOf = [&](StringRef kind) {
    auto matrix =
        tile::MatrixLayoutAttr::get(&context, kind, {7}, {1, 1}, {2, 2});
    auto operand = tile::DotOperandLayoutAttr::get(&context, 0, matrix, 2);
    return RankedTensorType::get({8, 8}, Float16Type::get(&context), operand);
  };
  EXPECT_TRUE(isSharedMatrixOperand(operandOf("toy.shared"), units));
  EXPECT_FALSE(isSharedMatrixOperand(operandOf("toy.mxu"), units));
  EXPECT_FALSE(isSharedMatrixOperand(operandOf("nobody.here"), units));
}

TEST(MatrixUnitRegistry, FindsFamiliesByKindOnce) {
  ToyUnit unit, again;
  ToySharedUnit shared;
  MatrixUnitRegistry units;
  EXPECT_EQ(units.lookup("toy.mxu"), nullptr);
  EXPECT_TRUE(units.add(unit));
  EXPECT_FALSE(units.add(again));
  EXPECT_TRUE(units.add(shared));
  EXPECT_EQ(units.lookup("toy.mxu"), &unit);
  EXPECT_EQ(units.lookup("toy.shared"), &shared);
  ASSERT_EQ(units.getUnits().size(), 2u);
  EXPECT_EQ(units.getUnits().front(), &unit);
}

TEST(LinearLayout, BasesCoverTheShapeThenReplicate) {
  LinearLayout bases;
  bases.shape = {4, 2};
  SmallVector<int64_t> covered(2, 1);
  bases.add(bases.lane, covered, 1, 4); // 2 along dim 1, then replication
  bases.addZeros(bases.warp, 2);
  bases.repeat(covered, {0, 1});
  ASSERT_EQ(bases.lane.size(), 2u);
  EXPECT_EQ(bases.lane[0], (LayoutCoords{0, 1}));
  EXPECT_EQ(bases.lane[1], (LayoutCoords{0, 0}));
  ASSERT_EQ(bases.warp.size(), 1u);
  EXPECT_EQ(bases.warp[0], (LayoutCoords{0, 0}));
  ASSERT_EQ(bases.reg.size(), 2u);
  EXPECT_EQ(bases.reg[0], (LayoutCoords{1, 0}));
  EXPECT_EQ(bases.reg[1], (LayoutCoords{2, 0}));
}

TEST(WarpsForDot, SplitsAsTritonDoes) {
  MatrixInstruction mma{nullptr, 2, 16, 8, 16};
  // Triton's warpsPerTileV2 for 4 warps: 128x128 -> [2, 2], 16x256 ->
  // [1, 4]; a batch dimension gets one warp.
  EXPECT_EQ(warpsForDot({128, 128}, mma, 4), (SmallVector<int64_t>{2, 2}));
  EXPECT_EQ(warpsForDot({16, 256}, mma, 4), (SmallVector<int64_t>{1, 4}));
  EXPECT_EQ(warpsForDot({2, 64, 64}, mma, 4), (SmallVector<int64_t>{1, 2, 2}));
}

} // namespace
