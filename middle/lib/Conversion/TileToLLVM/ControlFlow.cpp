//===- ControlFlow.cpp - scf.for/if/while and tile.return, both models ----===//
//
// The structure of control flow is the same in both execution models: a
// region op becomes the same region op, its regions are lowered op by op,
// and the values it carries pass through its operands, terminators and
// results. Only what stands for a carried tile differs; a RegionCarrier says
// that (Lowering.cpp for the one-thread model, DistLowering.cpp for the
// distributed one).
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

static LogicalResult lowerEach(RegionCarrier &carrier,
                               llvm::iterator_range<Block::iterator> ops) {
  for (Operation &op : ops)
    if (failed(carrier.lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult RegionCarrier::lowerBody(Block &block) {
  return lowerEach(*this, block.without_terminator());
}

LogicalResult RegionCarrier::lowerBlock(Block &block) {
  return lowerEach(*this, block.getOperations());
}

namespace {

/// Builds the scf.yield that hands the operands of |yield| (an old scf.yield)
/// over to |slots|.
void yieldInto(Lowerer &l, RegionCarrier &carrier, Operation *yield,
               const RegionCarrier::Slots &slots) {
  Location loc = yield->getLoc();
  l.b.create<scf::YieldOp>(loc, carrier.pass(loc, yield->getOperands(), slots));
}

LogicalResult lowerFor(Lowerer &l, RegionCarrier &carrier, scf::ForOp op) {
  Location loc = op.getLoc();
  FailureOr<RegionCarrier::Slots> slots =
      carrier.slotsFor(loc, op.getResults());
  if (failed(slots))
    return failure();
  SmallVector<Value> inits = carrier.pass(loc, op.getInitArgs(), *slots);
  auto loop = l.b.create<scf::ForOp>(loc, l.lookup(op.getLowerBound()),
                                     l.lookup(op.getUpperBound()),
                                     l.lookup(op.getStep()), inits);
  for (NamedAttribute attr : op->getDiscardableAttrs())
    loop->setAttr(attr.getName(), attr.getValue());
  {
    OpBuilder::InsertionGuard guard(l.b);
    Block *body = loop.getBody();
    if (!body->empty())
      body->getTerminator()->erase();
    l.b.setInsertionPointToEnd(body);
    l.map.map(op.getInductionVar(), loop.getInductionVar());
    carrier.bind(op.getRegionIterArgs(), *slots, loop.getRegionIterArgs());
    if (failed(carrier.lowerBody(*op.getBody())))
      return failure();
    yieldInto(l, carrier, op.getBody()->getTerminator(), *slots);
  }
  carrier.bind(op.getResults(), *slots, loop.getResults());
  return carrier.finishLoop(op);
}

LogicalResult lowerIf(Lowerer &l, RegionCarrier &carrier, scf::IfOp op) {
  Location loc = op.getLoc();
  FailureOr<RegionCarrier::Slots> slots =
      carrier.slotsFor(loc, op.getResults());
  if (failed(slots))
    return failure();
  auto newIf = l.b.create<scf::IfOp>(loc, slots->types,
                                     l.lookup(op.getCondition()),
                                     /*withElseRegion=*/true);
  for (auto [oldRegion, newRegion] :
       {std::pair<Region *, Region *>{&op.getThenRegion(),
                                      &newIf.getThenRegion()},
        {&op.getElseRegion(), &newIf.getElseRegion()}}) {
    OpBuilder::InsertionGuard guard(l.b);
    Block *block = &newRegion->front();
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      block->back().erase();
    l.b.setInsertionPointToEnd(block);
    if (oldRegion->empty()) {
      l.b.create<scf::YieldOp>(loc);
      continue;
    }
    Block &oldBlock = oldRegion->front();
    if (failed(carrier.lowerBody(oldBlock)))
      return failure();
    yieldInto(l, carrier, oldBlock.getTerminator(), *slots);
  }
  carrier.bind(op.getResults(), *slots, newIf.getResults());
  return success();
}

/// Lowers |oldBlock| (but its terminator) at the end of |newBlock|, whose
/// arguments carry those of |oldBlock| in |slots|; returns the old
/// terminator, or null when lowering failed.
Operation *lowerBlockInto(Lowerer &l, RegionCarrier &carrier, Block &oldBlock,
                          const RegionCarrier::Slots &slots, Block *newBlock) {
  l.b.setInsertionPointToEnd(newBlock);
  carrier.bind(oldBlock.getArguments(), slots, newBlock->getArguments());
  if (failed(carrier.lowerBody(oldBlock)))
    return nullptr;
  return oldBlock.getTerminator();
}

LogicalResult lowerWhile(Lowerer &l, RegionCarrier &carrier,
                         scf::WhileOp op) {
  Location loc = op.getLoc();
  // What enters the before region, and what the after region receives
  // (the while's results, of the after region's argument types).
  FailureOr<RegionCarrier::Slots> beforeSlots =
      carrier.slotsFor(loc, op.getBefore().getArguments());
  FailureOr<RegionCarrier::Slots> afterSlots =
      carrier.slotsFor(loc, op.getResults());
  if (failed(beforeSlots) || failed(afterSlots))
    return failure();
  SmallVector<Value> inits = carrier.pass(loc, op.getInits(), *beforeSlots);
  auto newWhile = l.b.create<scf::WhileOp>(loc, afterSlots->types, inits);
  OpBuilder::InsertionGuard outerGuard(l.b);
  Block *before = l.b.createBlock(
      &newWhile.getBefore(), {}, beforeSlots->types,
      SmallVector<Location>(beforeSlots->types.size(), loc));
  Block *after = l.b.createBlock(
      &newWhile.getAfter(), {}, afterSlots->types,
      SmallVector<Location>(afterSlots->types.size(), loc));
  {
    OpBuilder::InsertionGuard guard(l.b);
    auto cond = cast_or_null<scf::ConditionOp>(lowerBlockInto(
        l, carrier, op.getBefore().front(), *beforeSlots, before));
    if (!cond)
      return failure();
    SmallVector<Value> args =
        carrier.pass(cond.getLoc(), cond.getArgs(), *afterSlots);
    l.b.create<scf::ConditionOp>(cond.getLoc(), l.lookup(cond.getCondition()),
                                 args);
  }
  {
    OpBuilder::InsertionGuard guard(l.b);
    Operation *yield =
        lowerBlockInto(l, carrier, op.getAfter().front(), *afterSlots, after);
    if (!yield)
      return failure();
    yieldInto(l, carrier, yield, *beforeSlots);
  }
  l.b.setInsertionPointAfter(newWhile);
  carrier.bind(op.getResults(), *afterSlots, newWhile.getResults());
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerControlFlow(Lowerer &l, RegionCarrier &carrier,
                                   Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return lowerFor(l, carrier, loop);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(l, carrier, ifOp);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return lowerWhile(l, carrier, whileOp);
  if (isa<tile::ReturnOp>(op)) {
    if (op->getNumOperands() != 0)
      return l.unsupported(op, "kernels return nothing");
    l.b.create<LLVM::ReturnOp>(op->getLoc(), ValueRange{});
    return success();
  }
  return std::nullopt;
}
