//===- SoftwarePipeline.cpp - Loads for later iterations of dot loops -----===//
//
// Software pipelining of the loops that feed dots from memory, in the
// manner of Triton's: a load whose only use is a conversion to a dot
// operand kept in shared memory (the target says which layouts those are)
// is issued numStages - 1 iterations ahead of its use, together with the
// address computations it needs (stage 0; after the rest of the body, the
// last stage, when a dot accumulates across the iterations). MLIR's scf
// pipeliner does the mechanics: the
// prologue issues the first numStages - 1 iterations' loads, the loop
// carries the loaded tiles in iter_args, and loads past the end are
// predicated off through their masks (a scalar mask for block pointers),
// so that no epilogue is needed. The lowering then turns such loads into
// asynchronous copies into a ring of shared-memory buffers.
//
//===----------------------------------------------------------------------===//

#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::tile;

namespace {

/// The loads of |loop|'s body that feed a shared dot operand directly.
SmallVector<LoadOp> getOperandLoads(scf::ForOp loop,
                                    function_ref<bool(Type)> isShared) {
  SmallVector<LoadOp> loads;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<LoadOp>(&op);
    if (!load || !load->hasOneUse() || load.getIsVolatile())
      continue;
    Operation *user = *load->getUsers().begin();
    if (!isa<ConvertLayoutOp>(user) || user->getBlock() != loop.getBody() ||
        !isShared(user->getResult(0).getType()))
      continue;
    // Asynchronous copies fill masked-off elements with zeros.
    if (!load.hasZeroOther())
      continue;
    loads.push_back(load);
  }
  return loads;
}

/// Stage 0 of |loop|: |loads| and, within the body, everything their
/// operands come from, following loop-carried values through the yield.
/// Fails when that needs an op with side effects or a value of a later
/// stage.
FailureOr<llvm::SetVector<Operation *>>
getFirstStage(scf::ForOp loop, ArrayRef<LoadOp> loads) {
  llvm::SetVector<Operation *> stage;
  SmallVector<Value> worklist;
  for (LoadOp load : loads) {
    stage.insert(load);
    llvm::append_range(worklist, load->getOperands());
  }
  Block *body = loop.getBody();
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != body || arg.getArgNumber() == 0)
        continue;
      worklist.push_back(loop.getYieldedValues()[arg.getArgNumber() - 1]);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body)
      continue;
    if (!stage.contains(def)) {
      if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
        return failure();
      stage.insert(def);
    }
    llvm::append_range(worklist, def->getOperands());
  }
  return stage;
}

/// |load| executed only where |predicate| (i1) holds: its mask and'ed with
/// the predicate (a scalar mask for a block pointer).
Operation *predicateLoad(RewriterBase &rewriter, LoadOp load, Value predicate) {
  Location loc = load.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(load);
  Value mask = predicate;
  if (auto tensor = dyn_cast<RankedTensorType>(load.getPtr().getType())) {
    auto maskType = RankedTensorType::get(tensor.getShape(),
                                          rewriter.getI1Type(),
                                          tensor.getEncoding());
    mask = rewriter.create<SplatOp>(loc, maskType, predicate);
  }
  if (Value old = load.getMask())
    mask = rewriter.create<arith::AndIOp>(loc, old, mask);
  rewriter.modifyOpInPlace(load, [&] { load.getMaskMutable().assign(mask); });
  return load;
}

/// Whether a dot of |loop|'s body hands its result only to the next
/// iteration (yielded and used nowhere else) and reads an operand converted
/// from |loads|: a matrix unit may then keep it in flight into the next
/// iteration when the loads come after it. Its accumulator may be an
/// iter_arg only it uses (a matmul) or anything computed in the body (the
/// rescaled output of attention).
bool hasCarriedDot(scf::ForOp loop, ArrayRef<LoadOp> loads) {
  auto fromLoad = [&](Value operand) {
    auto convert = operand.getDefiningOp<ConvertLayoutOp>();
    auto load = convert ? convert.getSrc().getDefiningOp<LoadOp>() : LoadOp();
    return load && llvm::is_contained(loads, load);
  };
  Block *body = loop.getBody();
  for (auto dot : body->getOps<DotOp>()) {
    if (!dot.getD().hasOneUse() ||
        *dot.getD().getUsers().begin() != body->getTerminator())
      continue;
    if (fromLoad(dot.getA()) || fromLoad(dot.getB()))
      return true;
  }
  return false;
}

LogicalResult pipelineLoop(scf::ForOp loop, unsigned numStages,
                           function_ref<bool(Type)> isShared) {
  SmallVector<LoadOp> loads = getOperandLoads(loop, isShared);
  if (loads.empty())
    return success();
  if (auto stages = loop->getAttrOfType<IntegerAttr>(kNumStagesAttr))
    numStages = static_cast<unsigned>(stages.getInt());
  if (numStages < 2)
    return success();
  FailureOr<llvm::SetVector<Operation *>> first = getFirstStage(loop, loads);
  if (failed(first))
    return success(); // Left as is.
  unsigned last = numStages - 1;

  scf::PipeliningOption options;
  // With a dot whose result goes to the next iteration, the body does this
  // iteration's work first and issues the later iterations' loads after it,
  // as Triton's schedule does: the buffers they fill were read by the
  // previous iteration's dots, which are retired by then, while this
  // iteration's carried dot may still be computing (findAsyncDots in the
  // lowering). Otherwise the body keeps its order, each load where it was.
  bool loadsLast = hasCarriedDot(loop, loads);
  options.getScheduleFn =
      [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &schedule) {
        for (Operation &op : loop.getBody()->without_terminator())
          if (!loadsLast || !first->contains(&op))
            schedule.emplace_back(&op, first->contains(&op) ? 0 : last);
        if (loadsLast)
          for (Operation &op : loop.getBody()->without_terminator())
            if (first->contains(&op))
              schedule.emplace_back(&op, 0);
      };
  options.peelEpilogue = false;
  options.supportDynamicLoops = true;
  options.predicateFn = [](RewriterBase &rewriter, Operation *op,
                           Value predicate) -> Operation * {
    if (auto load = dyn_cast<LoadOp>(op))
      return predicateLoad(rewriter, load, predicate);
    if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
      return op;
    return nullptr;
  };
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  bool modified = false;
  FailureOr<scf::ForOp> pipelined =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (failed(pipelined) && modified)
    return loop.emitError("software pipelining failed part way");
  return success();
}

} // namespace

LogicalResult tegula::tile::pipelineSharedOperandLoads(
    ModuleOp module, unsigned numStages, function_ref<bool(Type)> isShared) {
  if (auto stages = module->getAttrOfType<IntegerAttr>(kNumStagesAttr))
    numStages = static_cast<unsigned>(stages.getInt());
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    if (failed(pipelineLoop(loop, numStages, isShared)))
      return failure();
  return success();
}
