//===- Fusion.cpp - Chunk groups: several tile ops in one loop ------------===//
//
// Front-end code computes a tile through a chain of splats, ranges,
// elementwise ops, loads and stores of one shape. Lowered one op at a time,
// each op would be a loop through scratch; a chunk group runs the chain as
// one loop over chunks, keeping each chunk in registers and writing a tile to
// scratch only when an op outside the group reads it. Within a chunk the
// ops keep their order; across chunks a load may run after another chunk's
// store, which, as between the threads of a GPU program, is only visible for
// overlapping addresses.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// The number of elements a chunk op computes, or 0 when |op| is not one.
int64_t chunkCount(Operation *op) {
  auto countOf = [](Type type) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor ? tensor.getNumElements() : 0;
  };
  if (isa<tile::MakeRangeOp, tile::SplatOp>(op))
    return countOf(op->getResult(0).getType());
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    return dense && dense.isSplat() ? countOf(constant.getType()) : 0;
  }
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return isa<RankedTensorType>(load.getPtr().getType())
               ? countOf(load.getType())
               : 0;
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return isa<RankedTensorType>(store.getPtr().getType())
               ? countOf(store.getValue().getType())
               : 0;
  if (isElementwiseOp(op) && op->getNumResults() == 1 &&
      op->getNumRegions() == 0)
    return countOf(op->getResult(0).getType());
  return 0;
}

/// A scalar op without effects, which may run before the group's loop.
bool isHoistableScalar(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return false;
  auto isTile = [](Type type) { return isa<RankedTensorType>(type); };
  return llvm::none_of(op->getOperandTypes(), isTile) &&
         llvm::none_of(op->getResultTypes(), isTile);
}

} // namespace

bool tegula::lowering::isChunkOp(Operation *op) { return chunkCount(op) > 0; }

SmallVector<Operation *>
tegula::lowering::collectChunkGroup(Operation *first,
                                    SmallVectorImpl<Operation *> *scalars) {
  int64_t count = chunkCount(first);
  SmallVector<Operation *> members{first};
  for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
    if (chunkCount(op) == count) {
      members.push_back(op);
      continue;
    }
    if (!isHoistableScalar(op))
      break;
    if (scalars)
      scalars->push_back(op);
  }
  return members;
}

bool tegula::lowering::escapesChunkGroup(
    Value result, const llvm::DenseSet<Operation *> &group) {
  return llvm::any_of(result.getUsers(), [&](Operation *user) {
    return !group.contains(user);
  });
}

LogicalResult tegula::lowering::lowerChunkGroup(Lowerer &l, Operation *first) {
  int64_t count = chunkCount(first);
  SmallVector<Operation *> scalars;
  SmallVector<Operation *> members = collectChunkGroup(first, &scalars);
  llvm::DenseSet<Operation *> inGroup(members.begin(), members.end());
  for (Operation *op : scalars) {
    if (failed(l.lowerOp(op)))
      return failure();
    l.lowered.insert(op);
  }

  Location loc = first->getLoc();
  // Tiles read outside the group go to scratch.
  llvm::DenseMap<Value, Value> buffers;
  for (Operation *op : members)
    for (Value result : op->getResults()) {
      if (escapesChunkGroup(result, inGroup))
        buffers[result] = l.allocTile(
            result.getLoc(), cast<RankedTensorType>(result.getType()), result);
    }

  int64_t width = Lowerer::chunkWidth(count);
  LogicalResult status = success();
  l.forEachChunk(loc, count, width, [&](Value index) {
    llvm::DenseMap<Value, Value> chunks;
    for (Operation *op : members) {
      Location opLoc = op->getLoc();
      SmallVector<Value> operands;
      for (Value operand : op->getOperands()) {
        if (Value chunk = chunks.lookup(operand)) {
          operands.push_back(chunk);
        } else if (auto type = dyn_cast<RankedTensorType>(operand.getType())) {
          operands.push_back(l.loadChunk(opLoc, l.lookup(operand),
                                         type.getElementType(), index, width));
        } else {
          operands.push_back(l.splatChunk(
              opLoc,
              l.scalarToCompute(opLoc, l.lookup(operand), operand.getType()),
              width));
        }
      }
      FailureOr<Value> result =
          isa<tile::LoadOp, tile::StoreOp>(op)
              ? emitLoadStoreChunk(l, op, operands, width)
              : emitElementwiseChunk(l, op, operands, index, width);
      if (failed(result)) {
        status = failure();
        return;
      }
      if (op->getNumResults() == 0)
        continue;
      Value value = op->getResult(0);
      chunks[value] = *result;
      if (Value buffer = buffers.lookup(value))
        l.storeChunk(opLoc, buffer,
                     cast<RankedTensorType>(value.getType()).getElementType(),
                     index, *result);
    }
  });
  if (failed(status))
    return failure();
  for (Operation *op : members) {
    l.lowered.insert(op);
    for (Value result : op->getResults())
      if (Value buffer = buffers.lookup(result))
        l.map.map(result, buffer);
  }
  return success();
}
