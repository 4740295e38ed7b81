//===- Lowering.cpp - Tile IR to the LLVM dialect: functions, control flow --===//

#include "DistLowering.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

//===----------------------------------------------------------------------===//
// Types and building blocks
//===----------------------------------------------------------------------===//

Lowerer::Lowerer(ModuleOp module, const backend::TargetHooks &hooks,
                 const ModuleAxisInfo &axisInfo)
    : module(module), hooks(hooks), axisInfo(axisInfo),
      ctx(module.getContext()), b(module.getContext()) {}

Type Lowerer::ptrType() const {
  return LLVM::LLVMPointerType::get(ctx, hooks.getGlobalAddressSpace());
}

Type Lowerer::blockPtrType(tile::PointerType type) const {
  auto tensor = cast<RankedTensorType>(type.getPointeeType());
  unsigned rank = tensor.getRank();
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
  return LLVM::LLVMStructType::getLiteral(
      ctx, {ptrType(), LLVM::LLVMArrayType::get(i64, rank),
            LLVM::LLVMArrayType::get(i64, rank),
            LLVM::LLVMArrayType::get(i32, rank)});
}

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

Type Lowerer::scalarType(Type type) const {
  if (auto ptr = dyn_cast<tile::PointerType>(type)) {
    if (isa<RankedTensorType>(ptr.getPointeeType()))
      return blockPtrType(ptr);
    return ptrType();
  }
  if (isFp8(type))
    return IntegerType::get(ctx, 8);
  if (isa<IntegerType, FloatType, IndexType>(type))
    return type;
  return {};
}

Type Lowerer::computeType(Type elem) const {
  if (isa<tile::PointerType>(elem))
    return IntegerType::get(ctx, 64);
  if (isFp8(elem))
    return IntegerType::get(ctx, 8);
  return elem;
}

Type Lowerer::storageType(Type elem) const {
  if (elem.isInteger(1))
    return IntegerType::get(ctx, 8);
  return computeType(elem);
}

int64_t Lowerer::storageBytes(Type elem) const {
  Type storage = storageType(elem);
  return std::max<int64_t>(1, storage.getIntOrFloatBitWidth() / 8);
}

Type Lowerer::chunkType(Type elem, int64_t width) const {
  if (width == 1)
    return elem;
  return VectorType::get({width}, elem);
}

int64_t Lowerer::chunkWidth(int64_t numElements) {
  int64_t width = kMaxChunk;
  while (width > 1 && numElements % width != 0)
    width /= 2;
  return width;
}

Value Lowerer::allocTile(Location loc, RankedTensorType type, Value owner) {
  uint64_t offset;
  if (std::optional<uint64_t> planned =
          owner ? scratchPlan.offsetOf(owner) : std::nullopt) {
    offset = *planned;
  } else {
    // Not planned (a temporary of the lowering): memory of its own.
    uint64_t bytes =
        type.getNumElements() * storageBytes(type.getElementType());
    offset = std::max(scratchBytes, scratchPlan.getBytes());
    scratchBytes = llvm::alignTo(offset + bytes, 64);
  }
  return b.create<LLVM::GEPOp>(
      loc, scratchBase.getType(), b.getI8Type(), scratchBase,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

Value Lowerer::constIndex(Location loc, int64_t value) {
  return constI64(loc, value);
}

Value Lowerer::constI32(Location loc, int64_t value) {
  return b.create<arith::ConstantIntOp>(loc, value, 32);
}

Value Lowerer::constI64(Location loc, int64_t value) {
  return b.create<arith::ConstantIntOp>(loc, value, 64);
}

Value Lowerer::elementAddress(Location loc, Value base, Type elem,
                              Value index) {
  return b.create<LLVM::GEPOp>(loc, base.getType(), storageType(elem), base,
                               ValueRange{index});
}

static unsigned chunkAlignment(int64_t bytes) {
  unsigned align = 1;
  while (align < 64 && bytes % (align * 2) == 0)
    align *= 2;
  return align;
}

Value Lowerer::loadChunk(Location loc, Value base, Type elem, Value index,
                         int64_t width) {
  Type storage = storageType(elem);
  Value addr = elementAddress(loc, base, elem, index);
  Value value = b.create<LLVM::LoadOp>(
      loc, chunkType(storage, width), addr,
      chunkAlignment(width * storageBytes(elem)));
  if (elem.isInteger(1))
    value = b.create<arith::TruncIOp>(loc, chunkType(b.getI1Type(), width),
                                      value);
  return value;
}

void Lowerer::storeChunk(Location loc, Value base, Type elem, Value index,
                         Value chunk) {
  int64_t width = 1;
  if (auto vec = dyn_cast<VectorType>(chunk.getType()))
    width = vec.getNumElements();
  if (elem.isInteger(1))
    chunk = b.create<arith::ExtUIOp>(loc, chunkType(b.getI8Type(), width),
                                     chunk);
  Value addr = elementAddress(loc, base, elem, index);
  b.create<LLVM::StoreOp>(loc, chunk, addr,
                          chunkAlignment(width * storageBytes(elem)));
}

Value Lowerer::splatChunk(Location loc, Value scalar, int64_t width) {
  if (width == 1)
    return scalar;
  auto type = VectorType::get({width}, scalar.getType());
  Value poison = b.create<LLVM::PoisonOp>(loc, type);
  Value inserted = b.create<LLVM::InsertElementOp>(loc, type, poison, scalar,
                                                   constI32(loc, 0));
  SmallVector<int32_t> zeros(width, 0);
  return b.create<LLVM::ShuffleVectorOp>(loc, inserted, inserted, zeros);
}

Value Lowerer::constantChunk(Location loc, TypedAttr attr, int64_t width) {
  if (width == 1)
    return b.create<arith::ConstantOp>(loc, attr);
  auto type = VectorType::get({width}, attr.getType());
  return b.create<arith::ConstantOp>(loc,
                                     DenseElementsAttr::get(type, attr));
}

Value Lowerer::scalarToCompute(Location loc, Value scalar, Type elem) {
  if (isa<tile::PointerType>(elem))
    return b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), scalar);
  return scalar;
}

void Lowerer::forEachChunk(Location loc, int64_t numElements, int64_t width,
                           llvm::function_ref<void(Value)> body) {
  if (numElements == width) {
    body(constI64(loc, 0));
    return;
  }
  auto loop = b.create<scf::ForOp>(loc, constI64(loc, 0),
                                   constI64(loc, numElements),
                                   constI64(loc, width));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
}

void Lowerer::forEachIndex(
    Location loc, ArrayRef<int64_t> shape,
    llvm::function_ref<void(ArrayRef<Value>)> body) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> indices;
  for (int64_t size : shape) {
    if (size == 1) {
      indices.push_back(constI64(loc, 0));
      continue;
    }
    auto loop = b.create<scf::ForOp>(loc, constI64(loc, 0),
                                     constI64(loc, size), constI64(loc, 1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    indices.push_back(loop.getInductionVar());
  }
  body(indices);
}

Value Lowerer::linearize(Location loc, ArrayRef<Value> indices,
                         ArrayRef<int64_t> shape) {
  Value linear = constI64(loc, 0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      Value term = stride == 1 ? indices[d]
                               : b.create<arith::MulIOp>(
                                     loc, indices[d], constI64(loc, stride));
      linear = b.create<arith::AddIOp>(loc, linear, term);
    }
    stride *= shape[d];
  }
  return linear;
}

void Lowerer::copyTile(Location loc, RankedTensorType type, Value src,
                       Value dst) {
  if (src == dst)
    return;
  int64_t n = type.getNumElements();
  int64_t width = chunkWidth(n);
  Type elem = type.getElementType();
  forEachChunk(loc, n, width, [&](Value index) {
    storeChunk(loc, dst, elem, index, loadChunk(loc, src, elem, index, width));
  });
}

LogicalResult Lowerer::unsupported(Operation *op, const Twine &why) {
  return op->emitError() << "cannot lower '" << op->getName() << "': " << why;
}

//===----------------------------------------------------------------------===//
// Tiles across regions: in buffers
//===----------------------------------------------------------------------===//

namespace {

/// Tile results of a region op get dedicated buffers; yields copy into them.
/// When a yielded tile is itself one of the destination buffers (a swap of
/// loop-carried tiles), it is first copied aside so that the copies behave as
/// one parallel assignment.
void copyYielded(Lowerer &l, Location loc, ValueRange oldValues,
                 ArrayRef<Value> destinations) {
  SmallVector<Value> sources;
  for (Value old : oldValues)
    sources.push_back(l.lookup(old));
  for (auto [i, old] : llvm::enumerate(oldValues)) {
    auto type = dyn_cast<RankedTensorType>(old.getType());
    if (!type || sources[i] == destinations[i])
      continue;
    if (llvm::is_contained(destinations, sources[i])) {
      Value temp = l.allocTile(loc, type, Value());
      l.copyTile(loc, type, sources[i], temp);
      sources[i] = temp;
    }
  }
  for (auto [i, old] : llvm::enumerate(oldValues))
    if (auto type = dyn_cast<RankedTensorType>(old.getType()))
      l.copyTile(loc, type, sources[i], destinations[i]);
}

/// The one-thread model's carrier: a carried tile lives in a buffer of its
/// own (placed by the ScratchPlan for its owner), which every edge into the
/// region fills; the region op itself carries only the scalars.
class ScratchCarrier : public RegionCarrier {
public:
  explicit ScratchCarrier(Lowerer &l) : l(l) {}

  FailureOr<Slots> slotsFor(Location loc, ValueRange owners) override {
    Slots slots;
    for (Value owner : owners) {
      auto type = dyn_cast<RankedTensorType>(owner.getType());
      slots.buffers.push_back(type ? l.allocTile(loc, type, owner) : Value());
      if (!type)
        slots.types.push_back(l.scalarType(owner.getType()));
    }
    return slots;
  }

  SmallVector<Value> pass(Location loc, ValueRange olds,
                          const Slots &slots) override {
    copyYielded(l, loc, olds, slots.buffers);
    SmallVector<Value> scalars;
    for (Value old : olds)
      if (!isa<RankedTensorType>(old.getType()))
        scalars.push_back(l.lookup(old));
    return scalars;
  }

  void bind(ValueRange olds, const Slots &slots, ValueRange news) override {
    unsigned next = 0;
    for (auto [old, buffer] : llvm::zip(olds, slots.buffers))
      l.map.map(old, buffer ? buffer : news[next++]);
  }

  LogicalResult lowerOp(Operation *op) override { return l.lowerOp(op); }

private:
  Lowerer &l;
};

} // namespace

LogicalResult Lowerer::lowerOp(Operation *op) {
  if (lowered.contains(op))
    return success();
  b.setInsertionPointToEnd(b.getInsertionBlock());
  if (isChunkOp(op))
    return lowerChunkGroup(*this, op);
  ScratchCarrier carrier(*this);
  if (std::optional<LogicalResult> result =
          lowerControlFlow(*this, carrier, op))
    return *result;
  return lowerWithFamilies(*this, op,
                           {lowerElementwiseFamily, lowerLoadStoreFamily,
                            lowerShapeFamily, lowerReduceScanFamily,
                            lowerDotFamily, lowerAtomicFamily,
                            lowerDebugFamily},
                           "no lowering for this operation");
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

void tegula::registerTileToLLVMDialects(MLIRContext &context) {
  context.loadDialect<LLVM::LLVMDialect, arith::ArithDialect,
                      math::MathDialect, scf::SCFDialect,
                      vector::VectorDialect,
                      cf::ControlFlowDialect, index::IndexDialect,
                      func::FuncDialect>();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  context.appendDialectRegistry(registry);
}

/// Inlines every tile.call (noinline helpers): the lowering compiles one
/// function. A helper's body is one block ending in tile.return (the front
/// end compiles early returns into continuations).
static LogicalResult inlineCalls(ModuleOp module) {
  for (int round = 0;; ++round) {
    SmallVector<tile::CallOp> calls;
    module.walk([&](tile::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    if (round > 64)
      return calls.front().emitError(
          "cannot lower: calls nested more than 64 deep (recursion?)");
    for (tile::CallOp call : calls) {
      auto callee = module.lookupSymbol<tile::FuncOp>(call.getCallee());
      if (!callee || callee.getBody().empty())
        return call.emitError("cannot lower: the callee has no body");
      if (!callee.getBody().hasOneBlock())
        return call.emitError(
            "cannot lower: a callee with several blocks");
      Block &body = callee.getBody().front();
      IRMapping mapping;
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), call.getOperands()))
        mapping.map(arg, operand);
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      Operation *ret = body.getTerminator();
      for (auto [result, value] :
           llvm::zip(call.getResults(), ret->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      call.erase();
    }
  }
}

/// The one-thread lowering of |kernel| (tiles in per-program scratch);
/// returns the scratch bytes a program needs.
static FailureOr<uint64_t> lowerOneThreadKernel(Lowerer &l,
                                                tile::FuncOp kernel) {
  l.scratchBase = l.hooks.buildScratchBase(l.b, kernel.getLoc());
  bool usesTiles = false;
  kernel.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      usesTiles |= isa<RankedTensorType>(type);
  });
  if (usesTiles && !l.scratchBase)
    return kernel.emitError(
        "the target provides no scratch memory for the kernel's tiles");
  l.scratchPlan.plan(kernel, [&](RankedTensorType type) -> uint64_t {
    return type.getNumElements() * l.storageBytes(type.getElementType());
  });
  if (failed(ScratchCarrier(l).lowerBlock(kernel.getBody().front())))
    return failure();
  return std::max(l.scratchBytes, l.scratchPlan.getBytes());
}

/// Lowers what the kernel's lowering leaves in other dialects (scf, arith,
/// math, cf, index, func, vector) to the LLVM dialect. One conversion does
/// scf, arith, math, index, cf and func: a pass per dialect walked the
/// whole kernel each time (59 of flash attention's 80 ms of lowering for
/// nine passes). Vector ops, rare here, keep their pass and its preparatory
/// rewrites; math that LLVM has no intrinsic for becomes libm calls after.
static LogicalResult convertRestToLLVM(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  bool hasVector = false;
  module.walk([&](Operation *op) {
    hasVector |= isa_and_nonnull<vector::VectorDialect>(op->getDialect());
  });
  if (hasVector) {
    PassManager pm(ctx);
    pm.addPass(createConvertVectorToLLVMPass());
    if (failed(pm.run(module)))
      return failure();
  }

  // Fold the integer and address arithmetic first (5 ms for attention;
  // the conversion would leave constant adds and zero GEPs for LLVM).
  {
    SmallVector<Operation *> foldable;
    module.walk([&](Operation *op) {
      if (isa<arith::ArithDialect>(op->getDialect()) || isa<LLVM::GEPOp>(op))
        foldable.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyOpPatternsAndFold(foldable, FrozenRewritePatternSet(), config);
  }
  {
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(module);
    eliminateCommonSubExpressions(rewriter, dominance, module);
  }
  LowerToLLVMOptions llvmOptions(ctx, DataLayout(module));
  LLVMTypeConverter converter(ctx, llvmOptions);
  RewritePatternSet patterns(ctx);
  populateSCFToControlFlowConversionPatterns(patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect>();
  target.addLegalOp<ModuleOp, UnrealizedConversionCastOp>();
  target.addIllegalDialect<scf::SCFDialect, arith::ArithDialect,
                           cf::ControlFlowDialect, index::IndexDialect>();
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return failure();

  bool hasMath = false;
  module.walk([&](Operation *op) {
    hasMath |=
        isa_and_nonnull<math::MathDialect, func::FuncDialect>(op->getDialect());
  });
  PassManager pm(ctx);
  if (hasMath) {
    // Math on vectors calls libm per element, through vector.extract and
    // vector.insert.
    pm.addPass(createConvertMathToLibmPass());
    pm.addPass(createConvertVectorToLLVMPass());
    pm.addPass(createArithToLLVMConversionPass());
    pm.addPass(createConvertFuncToLLVMPass());
  }
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(module)))
    return failure();
  return success();
}

/// Applies |patterns| to |ops| and to the ops they create, and to nothing
/// else.
static LogicalResult rewriteOnly(ArrayRef<Operation *> ops,
                                 RewritePatternSet &&patterns) {
  if (ops.empty())
    return success();
  GreedyRewriteConfig config;
  config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
  return applyOpPatternsAndFold(ops, std::move(patterns), config);
}

FailureOr<LoweredKernel>
tegula::lowerTileToLLVM(ModuleOp module, const backend::TargetHooks &hooks,
                        const LoweringOptions &options) {
  MLIRContext *ctx = module.getContext();
  registerTileToLLVMDialects(*ctx);
  SmallVector<tile::FuncOp> kernels;
  for (auto func : module.getOps<tile::FuncOp>())
    if (func.isPublic())
      kernels.push_back(func);
  if (kernels.size() != 1)
    return module.emitError()
           << "expected one public tile.func (the kernel), found "
           << kernels.size();
  tile::FuncOp kernel = kernels.front();
  if (kernel.getFunctionType().getNumResults() != 0)
    return kernel.emitError("a kernel returns nothing");

  if (failed(inlineCalls(module)))
    return failure();
  ModuleAxisInfo axisInfo(module);
  LoweredKernel result;
  result.name = kernel.getSymName().str();
  if (auto warps = module->getAttrOfType<IntegerAttr>("tile.num_warps"))
    result.numWarps = warps.getInt();
  // The distributed lowerer is also the one-thread lowerer (its base).
  DistLowerer l(module, hooks, axisInfo, result.numWarps, options.matrixUnits);
  l.functionName = kernel.getSymName().str();
  l.sharedLimit = options.sharedMemoryLimit;

  // The signature: the kernel's arguments, then the target's context.
  SmallVector<Type> params;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    LoweredKernel::Arg arg;
    Type lowered = l.scalarType(type);
    if (!lowered || isa<LLVM::LLVMStructType>(lowered) ||
        isa<IndexType>(lowered))
      return kernel.emitError() << "kernel argument #" << i << " of type "
                                << type << " cannot be passed to a kernel";
    if (auto ptr = dyn_cast<tile::PointerType>(type)) {
      arg.isPointer = true;
      arg.type = ptr.getPointeeType();
    } else {
      arg.type = type;
    }
    if (auto div = kernel.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility"))
      arg.divisibility = static_cast<uint32_t>(div.getInt());
    result.args.push_back(arg);
    params.push_back(lowered);
  }
  for (Type type : hooks.getKernelContextTypes(ctx))
    params.push_back(type);

  OpBuilder &b = l.b;
  b.setInsertionPointToEnd(module.getBody());
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  auto fn = b.create<LLVM::LLVMFuncOp>(kernel.getLoc(),
                                       kernel.getSymName().str() + ".tmp",
                                       fnType);
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  for (auto [oldArg, newArg] :
       llvm::zip(kernel.getArguments(), entry->getArguments()))
    l.map.map(oldArg, newArg);
  if (options.distributed) {
    if (failed(lowerDistributedKernel(l, kernel)))
      return failure();
    result.scratchBytes =
        std::max(l.operandBytes + l.sharedBytes, l.freeStagingBytes);
  } else {
    FailureOr<uint64_t> bytes = lowerOneThreadKernel(l, kernel);
    if (failed(bytes))
      return failure();
    result.scratchBytes = *bytes;
  }

  // Only the lowered kernel remains.
  for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (isa<tile::FuncOp>(op))
      op.erase();
  fn.setSymName(result.name);

  {
    // math.fpowi has no LLVM lowering for a vector exponent: it becomes
    // multiplications (its exponent is a constant: the front end builds it
    // only for those).
    SmallVector<Operation *> powers;
    module.walk([&](math::FPowIOp op) { powers.push_back(op); });
    RewritePatternSet patterns(ctx);
    populateExpandFPowIPattern(patterns);
    if (failed(rewriteOnly(powers, std::move(patterns))))
      return failure();
  }
  if (options.polynomialMath) {
    // Only the math ops (and what their approximations make) are rewritten:
    // a greedy walk over the whole kernel folded every op once more. The
    // functions without a polynomial of their own become the ones with
    // (tan as sin / cos, the hyperbolic functions through exp and log, pow
    // as exp(y log x)); fp64 ops are left to the target's library (libm on
    // the host), which is exact where the expansions are not.
    SmallVector<Operation *> mathOps;
    module.walk([&](Operation *op) {
      if (!isa<math::MathDialect>(op->getDialect()))
        return;
      if (op->getNumResults() == 1 &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF64())
        return;
      mathOps.push_back(op);
    });
    RewritePatternSet patterns(ctx);
    populateExpandTanPattern(patterns);
    populateExpandSinhPattern(patterns);
    populateExpandCoshPattern(patterns);
    populateExpandAsinhPattern(patterns);
    populateExpandAcoshPattern(patterns);
    populateExpandAtanhPattern(patterns);
    populateExpandPowFPattern(patterns);
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(rewriteOnly(mathOps, std::move(patterns))))
      return failure();
  }
  if (failed(convertRestToLLVM(module)))
    return failure();
  return result;
}
