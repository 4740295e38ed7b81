//===- DistLowering.cpp - Distributed lowering: walking, control flow -----===//

#include "DistLowering.h"

#include "tegula/BackendKit/AsyncCopy.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

/// The registry of a compile that passes none.
static const backend::MatrixUnitRegistry &noMatrixUnits() {
  static const backend::MatrixUnitRegistry none;
  return none;
}

DistLowerer::DistLowerer(ModuleOp module, const backend::TargetHooks &hooks,
                         const ModuleAxisInfo &axisInfo, unsigned numWarps,
                         const backend::MatrixUnitRegistry *matrixUnits)
    : Lowerer(module, hooks, axisInfo),
      matrixUnits(matrixUnits ? *matrixUnits : noMatrixUnits()),
      numWarps(numWarps), warpSize(hooks.getWarpSize()) {}

/// The positions of the scalar leaves of |type| (an LLVM struct or array,
/// nested), appended to |out| after |prefix|; a scalar is its own leaf.
static void aggregateLeaves(Type type, SmallVectorImpl<int64_t> &prefix,
                            SmallVectorImpl<std::pair<SmallVector<int64_t>,
                                                      Type>> &out) {
  auto visit = [&](int64_t index, Type element) {
    prefix.push_back(index);
    aggregateLeaves(element, prefix, out);
    prefix.pop_back();
  };
  if (auto structType = dyn_cast<LLVM::LLVMStructType>(type)) {
    for (auto [i, element] : llvm::enumerate(structType.getBody()))
      visit(static_cast<int64_t>(i), element);
  } else if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    for (unsigned i = 0; i < array.getNumElements(); ++i)
      visit(i, array.getElementType());
  } else {
    out.push_back({SmallVector<int64_t>(prefix.begin(), prefix.end()), type});
  }
}

static SmallVector<std::pair<SmallVector<int64_t>, Type>>
aggregateLeaves(Type type) {
  SmallVector<int64_t> prefix;
  SmallVector<std::pair<SmallVector<int64_t>, Type>> leaves;
  aggregateLeaves(type, prefix, leaves);
  return leaves;
}

// A scalar of an aggregate type (a block pointer's base, shape, strides
// and offsets) crosses region boundaries as its leaves: a loop that only
// advances the offsets then carries the rest unchanged, which LLVM sees as
// loop-invariant (a phi of a whole struct hides that from it, and the
// address arithmetic on the strides would stay in the loop).

SmallVector<Value> DistLowerer::flatten(ValueRange olds) {
  SmallVector<Value> result;
  for (Value old : olds) {
    if (isTile(old.getType())) {
      llvm::append_range(result, regsOf(old));
      continue;
    }
    Value value = lookup(old);
    if (!isa<LLVM::LLVMStructType, LLVM::LLVMArrayType>(value.getType())) {
      result.push_back(value);
      continue;
    }
    for (auto &[position, type] : aggregateLeaves(value.getType()))
      result.push_back(
          b.create<LLVM::ExtractValueOp>(value.getLoc(), value, position));
  }
  return result;
}

FailureOr<SmallVector<Type>> DistLowerer::flattenTypes(ValueRange olds,
                                                       Location loc) {
  SmallVector<Type> result;
  for (Value old : olds) {
    auto tile = dyn_cast<RankedTensorType>(old.getType());
    if (!tile) {
      for (auto &leaf : aggregateLeaves(scalarType(old.getType())))
        result.push_back(leaf.second);
      continue;
    }
    if (asyncValues.contains(old)) {
      result.push_back(b.getI32Type());
      continue;
    }
    FailureOr<DistLayout> layout = layoutOf(tile, loc);
    if (failed(layout))
      return failure();
    result.append(layout->getNumRegs(), computeType(tile.getElementType()));
  }
  return result;
}

void DistLowerer::unflatten(ValueRange olds, ValueRange news) {
  unsigned next = 0;
  for (Value old : olds) {
    auto tile = dyn_cast<RankedTensorType>(old.getType());
    if (!tile) {
      Type type = scalarType(old.getType());
      if (!isa<LLVM::LLVMStructType, LLVM::LLVMArrayType>(type)) {
        map.map(old, news[next++]);
        continue;
      }
      Location loc = old.getLoc();
      Value value = b.create<LLVM::UndefOp>(loc, type);
      for (auto &leaf : aggregateLeaves(type))
        value = b.create<LLVM::InsertValueOp>(loc, value, news[next++],
                                              leaf.first);
      map.map(old, value);
      continue;
    }
    // Layouts were computed by flattenTypes before: cannot fail here.
    int64_t count = asyncValues.contains(old)
                        ? 1
                        : layoutOf(tile, old.getLoc())->getNumRegs();
    setRegs(old, SmallVector<Value>(news.slice(next, count)));
    next += count;
  }
}

//===----------------------------------------------------------------------===//
// Tiles across regions: as their registers
//===----------------------------------------------------------------------===//

namespace {

/// The distributed model's carrier: a carried tile is its registers (or,
/// for a software-pipelined operand load, the i32 offset of its buffer),
/// each a value of the region op.
class RegisterCarrier : public RegionCarrier {
public:
  explicit RegisterCarrier(DistLowerer &l) : l(l) {}

  FailureOr<Slots> slotsFor(Location loc, ValueRange owners) override {
    FailureOr<SmallVector<Type>> types = l.flattenTypes(owners, loc);
    if (failed(types))
      return failure();
    return Slots{std::move(*types), {}};
  }

  SmallVector<Value> pass(Location, ValueRange olds, const Slots &) override {
    return l.flatten(olds);
  }

  void bind(ValueRange olds, const Slots &, ValueRange news) override {
    l.unflatten(olds, news);
  }

  LogicalResult lowerOp(Operation *op) override { return l.lowerDistOp(op); }

  /// The matrix-unit groups a pipelined loop left in flight are retired,
  /// and the copies it issued past its end (predicated off, zero filling)
  /// land, before anything reads the accumulators or uses shared memory.
  LogicalResult finishLoop(scf::ForOp loop) override {
    Location loc = loop.getLoc();
    if (auto accs = l.asyncAccumulators.find(loop);
        accs != l.asyncAccumulators.end())
      for (auto [index, dot] : accs->second)
        if (failed(l.waitForMatrixGroups(dot, loc, loop->getResult(index))))
          return failure();
    if (llvm::any_of(l.asyncLoads,
                     [&](auto &entry) { return entry.second.loop == loop; })) {
      if (const backend::AsyncCopy *copies = l.hooks.getAsyncCopy())
        copies->buildWait(l.b, loc, 0);
      l.barrier(loc);
    }
    return success();
  }

private:
  DistLowerer &l;
};

bool touchesTiles(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

/// A scalar store or atomic: one thread acts; an atomic's old value reaches
/// the others through shared memory. Barriers before and after make it
/// happen once for the whole program: every thread has done its earlier
/// loads (a thread reading the location after the write would see another
/// value than its peers and could take another branch), and every later
/// load sees it.
LogicalResult lowerScalarSideEffect(DistLowerer &l, Operation *op) {
  Location loc = op->getLoc();
  OpBuilder &b = l.b;
  l.barrier(loc);
  Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                        l.threadId, l.constI32(loc, 0));
  bool hasResult = op->getNumResults() == 1 && !op->getResult(0).use_empty();
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, first, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    if (failed(lowerWithFamilies<Lowerer>(
            l, op, {lowerLoadStoreFamily, lowerAtomicFamily},
            "no lowering for this operation")))
      return failure();
    if (hasResult) {
      Type elem = op->getResult(0).getType();
      l.reserveShared(l.storageBytes(elem));
      l.storeShared(loc, 0, elem, l.constI32(loc, 0),
                    l.scalarToCompute(loc, l.lookup(op->getResult(0)), elem));
    }
  }
  l.barrier(loc);
  if (hasResult) {
    Type elem = op->getResult(0).getType();
    Value value = l.loadShared(loc, 0, elem, l.constI32(loc, 0));
    if (isa<tile::PointerType>(elem))
      value = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), value);
    l.barrier(loc);
    l.map.map(op->getResult(0), value);
  }
  return success();
}

} // namespace

LogicalResult DistLowerer::waitForMatrixGroups(Operation *dot, Location loc,
                                               Value value) {
  auto matrix = cast<tile::MatrixLayoutAttr>(
      cast<RankedTensorType>(dot->getResult(0).getType()).getEncoding());
  FailureOr<SmallVector<Value>> waited =
      matrixUnits.lookup(matrix.getKind())
          ->buildSharedMultiplyWait(b, loc, toMatrixLayout(matrix), 0,
                                    regsOf(value));
  if (failed(waited))
    return unsupported(dot, "the target cannot wait for " + matrix.getKind() +
                                " groups");
  setRegs(value, std::move(*waited));
  return success();
}

LogicalResult DistLowerer::lowerDistOp(Operation *op) {
  b.setInsertionPointToEnd(b.getInsertionBlock());
  // The previous iteration's dot may still be computing what |op| reads.
  if (!asyncCarried.empty())
    for (Value operand : op->getOperands()) {
      auto carried = asyncCarried.find(operand);
      if (carried == asyncCarried.end())
        continue;
      Operation *dot = carried->second;
      asyncCarried.erase(carried);
      if (failed(waitForMatrixGroups(dot, op->getLoc(), operand)))
        return failure();
    }
  RegisterCarrier carrier(*this);
  if (std::optional<LogicalResult> result =
          lowerControlFlow(*this, carrier, op))
    return *result;
  if (!touchesTiles(op)) {
    if (isa<tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp>(op))
      return lowerScalarSideEffect(*this, op);
    if (isa<tile::DebugBarrierOp>(op)) {
      barrier(op->getLoc());
      return success();
    }
    return lowerWithFamilies<Lowerer>(
        *this, op,
        {lowerElementwiseFamily, lowerLoadStoreFamily, lowerShapeFamily,
         lowerReduceScanFamily, lowerAtomicFamily, lowerDebugFamily},
        "no lowering for this operation");
  }
  return lowerWithFamilies(*this, op,
                           {lowerDistElementwise, lowerDistMemory,
                            lowerDistReduceScan, lowerDistShape, lowerDistDot,
                            lowerDistDebug},
                           "no distributed lowering for this operation");
}

LogicalResult tegula::lowering::lowerDistributedKernel(DistLowerer &l,
                                                       tile::FuncOp kernel) {
  if (!llvm::isPowerOf2_32(l.numWarps) || !llvm::isPowerOf2_32(l.warpSize))
    return kernel.emitError() << "num_warps (" << l.numWarps
                              << ") and the warp size (" << l.warpSize
                              << ") must be powers of 2";
  Location loc = kernel.getLoc();
  OpBuilder &b = l.b;
  l.scratchBase = l.hooks.buildScratchBase(b, loc);
  if (!l.scratchBase)
    return kernel.emitError(
        "the target provides no shared memory for the distributed lowering");
  // Shared matrix operands first (1024-byte aligned: the swizzle repeats
  // every 8 rows of 128 bytes), then the staging area.
  llvm::DenseMap<Value, int64_t> buffers = findAsyncOperandLoads(l, kernel);
  // Conversions outside loops get places of their own; those of different
  // top-level loops (which run one after the other, each ending with its
  // copies landed) share one area.
  llvm::MapVector<Operation *, SmallVector<tile::ConvertLayoutOp>> groups;
  kernel.walk([&](tile::ConvertLayoutOp convert) {
    if (!isSharedMatrixOperand(convert.getType(), l.matrixUnits))
      return;
    Operation *outermost = nullptr;
    for (Operation *parent = convert->getParentOp(); parent != kernel;
         parent = parent->getParentOp())
      if (isa<scf::ForOp, scf::WhileOp>(parent))
        outermost = parent;
    groups[outermost].push_back(convert);
  });
  auto place = [&](ArrayRef<tile::ConvertLayoutOp> converts, uint64_t start) {
    uint64_t end = start;
    for (tile::ConvertLayoutOp convert : converts) {
      auto type = cast<RankedTensorType>(convert.getType());
      l.operandOffsets[convert.getResult()] = end;
      auto count = buffers.find(convert.getResult());
      end += (count == buffers.end() ? 1 : count->second) *
             llvm::alignTo(type.getNumElements() *
                               l.storageBytes(type.getElementType()),
                           1024);
    }
    return end;
  };
  if (auto outside = groups.find(nullptr); outside != groups.end())
    l.operandBytes = place(outside->second, 0);
  uint64_t loopsBase = l.operandBytes;
  for (auto &[loop, converts] : groups)
    if (loop)
      l.operandBytes = std::max(l.operandBytes, place(converts, loopsBase));
  // Loads used only by such a conversion, with no write between them, are
  // copied to shared memory by it.
  kernel.walk([&](tile::LoadOp load) {
    if (!load->hasOneUse())
      return;
    Operation *user = *load->getUsers().begin();
    if (!isa<tile::ConvertLayoutOp>(user) ||
        !isSharedMatrixOperand(user->getResult(0).getType(), l.matrixUnits) ||
        user->getBlock() != load->getBlock())
      return;
    for (Operation *op = load->getNextNode(); op != user;
         op = op->getNextNode())
      if (!isMemoryEffectFree(op) && !isa<tile::LoadOp>(op))
        return;
    l.deferredLoads.insert(load);
  });
  kernel.walk([&](tile::ConvertLayoutOp convert) {
    if (!convert->hasOneUse() ||
        isSharedMatrixOperand(convert.getType(), l.matrixUnits))
      return;
    auto store = dyn_cast<tile::StoreOp>(*convert->getUsers().begin());
    if (store && store.getValue() == convert.getResult() &&
        isa<tile::PointerType>(store.getPtr().getType()))
      l.deferredConverts.insert(convert);
  });
  l.sharedOperandBase = l.scratchBase;
  if (l.operandBytes)
    l.scratchBase = b.create<LLVM::GEPOp>(
        loc, l.scratchBase.getType(), b.getI8Type(), l.scratchBase,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(l.operandBytes)});
  l.threadId = l.hooks.buildThreadId(b, loc);
  l.laneId = b.create<arith::AndIOp>(loc, l.threadId,
                                     l.constI32(loc, l.warpSize - 1));
  l.warpId = l.hooks.buildWarpUniform(
      b, loc,
      b.create<arith::ShRUIOp>(loc, l.threadId,
                               l.constI32(loc, llvm::Log2_32(l.warpSize))));
  // Per-thread values computed once go before this marker.
  l.prologueEnd = b.create<arith::ConstantIntOp>(loc, 0, 32);

  // Top-level ops where no operand place is live stage at the start of the
  // operand area: a place is live from the op that writes it (its
  // conversion, or a pipelined loop's prologue load) to the op that reads it
  // last (its dot, or the loop).
  Block &body = kernel.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  auto topLevel = [&](Operation *op) {
    while (op->getBlock() != &body)
      op = op->getParentOp();
    return position.lookup(op);
  };
  SmallVector<bool> live(body.getOperations().size(), false);
  auto markLive = [&](unsigned first, unsigned last) {
    for (unsigned i = first; i <= last; ++i)
      live[i] = true;
  };
  kernel.walk([&](tile::ConvertLayoutOp convert) {
    if (!isSharedMatrixOperand(convert.getType(), l.matrixUnits))
      return;
    unsigned first = topLevel(convert), last = first;
    for (Operation *user : convert->getUsers())
      last = std::max(last, topLevel(user));
    markLive(first, last);
  });
  for (auto &[load, info] : l.asyncLoads)
    markLive(topLevel(load),
             std::max(topLevel(load), info.loop ? topLevel(info.loop)
                                                : topLevel(load)));
  RegisterCarrier carrier(l);
  Value afterOperands = l.scratchBase;
  bool usedOperands = false;
  for (auto [i, op] : llvm::enumerate(body)) {
    bool free = l.operandBytes && !live[i];
    if (free != l.stagingInOperandArea) {
      // Every reader of an operand place (the matrix unit, other threads)
      // is done before a staging overwrites it. (Stagings end with a
      // barrier, so going the other way needs none.)
      if (free && usedOperands)
        l.barrier(op.getLoc());
      l.stagingInOperandArea = free;
      l.scratchBase = free ? l.sharedOperandBase : afterOperands;
    }
    usedOperands |= live[i];
    if (failed(carrier.lowerOp(&op)))
      return failure();
  }
  return success();
}
