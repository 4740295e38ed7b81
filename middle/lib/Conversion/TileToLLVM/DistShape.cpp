//===- DistShape.cpp - Layout conversions and shape ops -------------------===//
//
// Each op says which source element a result element holds (a map of
// coordinates). When every thread already holds, in its registers, the
// source elements of its result registers, the result is those registers;
// otherwise the source goes through shared memory (write row-major,
// barrier, each result register reads its element, barrier).
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

using CoordMap = llvm::function_ref<Coords(ArrayRef<int64_t>)>;

/// The registers of a result of layout |to| whose element c is the source
/// element regMap(c), when the source's registers (layout |from|) already
/// hold them in every thread: the thread parts must correspond through
/// baseMap, the linear part of regMap.
std::optional<SmallVector<Value>> mapRegisters(const DistLayout &from,
                                               ArrayRef<Value> values,
                                               const DistLayout &to,
                                               CoordMap baseMap,
                                               CoordMap regMap) {
  for (auto [toBases, fromBases] :
       {std::pair{&to.laneBases, &from.laneBases},
        std::pair{&to.warpBases, &from.warpBases}})
    for (auto [toBasis, fromBasis] : llvm::zip(*toBases, *fromBases))
      if (baseMap(toBasis) != fromBasis)
        return std::nullopt;
  SmallVector<Value> result;
  for (const Coords &coords : to.regOffsets) {
    int64_t reg = from.findReg(regMap(coords));
    if (reg < 0)
      return std::nullopt;
    result.push_back(values[reg]);
  }
  return result;
}

/// Source coordinates as i32 values, from result coordinates.
using ValueCoordMap =
    llvm::function_ref<SmallVector<Value, 4>(ArrayRef<Value>)>;

/// |layout| with its dimensions in |order| (result dimension k is source
/// dimension order[k]): the layout of a transposed tile in the same
/// registers.
DistLayout transposeLayout(const DistLayout &layout, ArrayRef<int32_t> order) {
  auto permute = [&](ArrayRef<int64_t> c) {
    Coords result(c.size());
    for (auto [k, d] : llvm::enumerate(order))
      result[k] = c[d];
    return result;
  };
  DistLayout result = layout;
  for (auto [k, d] : llvm::enumerate(order))
    result.shape[k] = layout.shape[d];
  for (SmallVector<Coords> *list :
       {&result.regOffsets, &result.laneBases, &result.warpBases})
    for (Coords &c : *list)
      c = permute(c);
  return result;
}

/// The result of a one-source shape op: registers when they line up, else
/// through shared memory. |transOrder|: the permutation of a trans, which,
/// when its row-major staging would exceed the shared memory limit, is a
/// relabeling of the registers and a layout conversion (in chunks where it
/// must be).
LogicalResult lowerMapped(DistLowerer &l, Operation *op, Value src,
                          Value result, CoordMap map, ValueCoordMap valueMap,
                          ArrayRef<int32_t> transOrder = {}) {
  Location loc = op->getLoc();
  auto srcType = cast<RankedTensorType>(src.getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  FailureOr<DistLayout> from = l.layoutOf(srcType, loc);
  FailureOr<DistLayout> to = l.layoutOf(resultType, loc);
  if (failed(from) || failed(to))
    return failure();
  if (std::optional<SmallVector<Value>> direct =
          mapRegisters(*from, l.regsOf(src), *to, map, map)) {
    l.setRegs(result, *direct);
    return success();
  }
  Type elem = srcType.getElementType();
  uint64_t bytes = srcType.getNumElements() * l.storageBytes(elem);
  if (!transOrder.empty() && l.stagingLimit() &&
      llvm::alignTo(bytes, 16) > l.stagingLimit()) {
    l.setRegs(result, l.convert(loc, transposeLayout(*from, transOrder),
                                l.regsOf(src), elem, *to));
    return success();
  }
  l.stageOut(loc, *from, l.regsOf(src), elem, 0);
  l.barrier(loc);
  l.setRegs(result, l.stageIn(loc, *to, elem, 0, [&](ArrayRef<Value> coords) {
    return l.linearIndex(loc, valueMap(coords), srcType.getShape());
  }));
  l.barrier(loc);
  return success();
}

/// Row-major coordinates of linear index |linear| in |shape|.
Coords delinearize(int64_t linear, ArrayRef<int64_t> shape) {
  Coords coords(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coords[d] = linear % shape[d];
    linear /= shape[d];
  }
  return coords;
}

int64_t linearize(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [c, size] : llvm::zip(coords, shape))
    linear = linear * size + c;
  return linear;
}

LogicalResult lowerReshape(DistLowerer &l, Operation *op) {
  Location loc = op->getLoc();
  Value src = op->getOperand(0);
  ArrayRef<int64_t> in = cast<RankedTensorType>(src.getType()).getShape();
  ArrayRef<int64_t> out =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  // Tile shapes are powers of two: the map relabels the bits of the linear
  // index, so it is linear over GF(2) as mapRegisters needs.
  return lowerMapped(
      l, op, src, op->getResult(0),
      [&](ArrayRef<int64_t> c) { return delinearize(linearize(c, out), in); },
      [&](ArrayRef<Value> coords) {
        Value linear = l.linearIndex(loc, coords, out);
        SmallVector<Value, 4> result(in.size());
        for (int64_t d = static_cast<int64_t>(in.size()) - 1; d >= 0; --d) {
          result[d] = l.b.create<arith::RemUIOp>(loc, linear,
                                                 l.constI32(loc, in[d]));
          linear = l.b.create<arith::DivUIOp>(loc, linear,
                                              l.constI32(loc, in[d]));
        }
        return result;
      });
}

LogicalResult lowerShapeOp(DistLowerer &l, tile::JoinOp op) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getLhs().getType());
  auto type = cast<RankedTensorType>(op.getResult().getType());
  FailureOr<DistLayout> from = l.layoutOf(srcType, loc);
  FailureOr<DistLayout> to = l.layoutOf(type, loc);
  if (failed(from) || failed(to))
    return failure();
  int64_t last = type.getRank() - 1;
  auto drop = [&](ArrayRef<int64_t> c) {
    Coords result(c);
    result.pop_back();
    return result;
  };
  bool lastInRegisters = llvm::all_of(to->laneBases, [&](const Coords &c) {
    return c[last] == 0;
  }) && llvm::all_of(to->warpBases, [&](const Coords &c) {
    return c[last] == 0;
  });
  if (lastInRegisters) {
    SmallVector<Value> result;
    bool ok = true;
    for (const Coords &coords : to->regOffsets) {
      DistLayout one = *to;
      one.regOffsets = {coords};
      Value part = coords[last] ? op.getRhs() : op.getLhs();
      std::optional<SmallVector<Value>> value =
          mapRegisters(*from, l.regsOf(part), one, drop, drop);
      if (!value) {
        ok = false;
        break;
      }
      result.push_back(value->front());
    }
    if (ok) {
      l.setRegs(op.getResult(), result);
      return success();
    }
  }
  Type elem = srcType.getElementType();
  int64_t n = srcType.getNumElements();
  l.stageOut(loc, *from, l.regsOf(op.getLhs()), elem, 0);
  l.stageOut(loc, *from, l.regsOf(op.getRhs()), elem, n * l.storageBytes(elem));
  l.barrier(loc);
  l.setRegs(op.getResult(),
            l.stageIn(loc, *to, elem, 0, [&](ArrayRef<Value> coords) {
              Value inner = l.linearIndex(loc, coords.drop_back(),
                                          srcType.getShape());
              return l.b.create<arith::AddIOp>(
                  loc, inner,
                  l.b.create<arith::MulIOp>(loc, coords.back(),
                                            l.constI32(loc, n)));
            }));
  l.barrier(loc);
  return success();
}

LogicalResult lowerShapeOp(DistLowerer &l, tile::SplitOp op) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  FailureOr<DistLayout> from = l.layoutOf(srcType, loc);
  if (failed(from))
    return failure();
  bool staged = false;
  for (auto [k, result] : llvm::enumerate(op.getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    FailureOr<DistLayout> to = l.layoutOf(type, loc);
    if (failed(to))
      return failure();
    auto base = [](ArrayRef<int64_t> c) {
      Coords result(c);
      result.push_back(0);
      return result;
    };
    auto withK = [&](ArrayRef<int64_t> c) {
      Coords result(c);
      result.push_back(k);
      return result;
    };
    if (std::optional<SmallVector<Value>> direct =
            mapRegisters(*from, l.regsOf(op.getSrc()), *to, base, withK)) {
      l.setRegs(result, *direct);
      continue;
    }
    Type elem = srcType.getElementType();
    if (!staged) {
      l.stageOut(loc, *from, l.regsOf(op.getSrc()), elem, 0);
      l.barrier(loc);
      staged = true;
    }
    l.setRegs(result, l.stageIn(loc, *to, elem, 0, [&](ArrayRef<Value> c) {
      SmallVector<Value> coords(c);
      coords.push_back(l.constI32(loc, k));
      return l.linearIndex(loc, coords, srcType.getShape());
    }));
  }
  if (staged)
    l.barrier(loc);
  return success();
}

LogicalResult lowerShapeOp(DistLowerer &l, tile::CatOp op) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getResult().getType());
  Type elem = type.getElementType();
  FailureOr<DistLayout> to = l.layoutOf(type, loc);
  if (failed(to))
    return failure();
  // Row-major concatenation: the parts one after the other.
  int64_t offset = 0;
  for (Value part : {op.getLhs(), op.getRhs()}) {
    auto partType = cast<RankedTensorType>(part.getType());
    FailureOr<DistLayout> from = l.layoutOf(partType, loc);
    if (failed(from))
      return failure();
    l.stageOut(loc, *from, l.regsOf(part), elem, offset);
    offset += partType.getNumElements() * l.storageBytes(elem);
  }
  l.barrier(loc);
  l.setRegs(op.getResult(),
            l.stageIn(loc, *to, elem, 0, [&](ArrayRef<Value> coords) {
              return l.linearIndex(loc, coords, type.getShape());
            }));
  l.barrier(loc);
  return success();
}

LogicalResult lowerShapeOp(DistLowerer &l, tile::GatherOp op) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto idxType = cast<RankedTensorType>(op.getIndices().getType());
  auto type = cast<RankedTensorType>(op.getResult().getType());
  FailureOr<DistLayout> from = l.layoutOf(srcType, loc);
  FailureOr<DistLayout> idxLayout = l.layoutOf(idxType, loc);
  FailureOr<DistLayout> to = l.layoutOf(type, loc);
  if (failed(from) || failed(idxLayout) || failed(to))
    return failure();
  SmallVector<Value> indices =
      l.convert(loc, *idxLayout, l.regsOf(op.getIndices()),
                idxType.getElementType(), *to);
  Type elem = srcType.getElementType();
  int64_t axis = op.getAxis();
  l.stageOut(loc, *from, l.regsOf(op.getSrc()), elem, 0);
  l.barrier(loc);
  SmallVector<Value> result;
  for (int64_t r = 0; r < to->getNumRegs(); ++r) {
    SmallVector<Value> coords = l.regCoords(loc, *to, r);
    coords[axis] =
        clampGatherIndex(l, loc, indices[r], 32, srcType.getDimSize(axis));
    result.push_back(l.loadShared(
        loc, 0, elem, l.linearIndex(loc, coords, srcType.getShape())));
  }
  l.barrier(loc);
  l.setRegs(op.getResult(), result);
  return success();
}

LogicalResult lowerShapeOp(DistLowerer &l, tile::HistogramOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto type = cast<RankedTensorType>(op.getResult().getType());
  FailureOr<DistLayout> from = l.layoutOf(srcType, loc);
  FailureOr<DistLayout> to = l.layoutOf(type, loc);
  if (failed(from) || failed(to))
    return failure();
  Type i32 = b.getI32Type();
  int64_t bins = type.getNumElements();
  l.reserveShared(bins * 4);
  {
    auto zero = b.create<scf::ForOp>(loc, l.threadId, l.constI32(loc, bins),
                                     l.constI32(loc, l.numWarps * l.warpSize));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(zero.getBody()->getTerminator());
    l.storeShared(loc, 0, i32, zero.getInductionVar(), l.constI32(loc, 0));
  }
  l.barrier(loc);
  Value owner = from->hasReplication() ? l.isOwner(*from) : Value();
  for (int64_t r = 0; r < from->getNumRegs(); ++r) {
    Value ok;
    Value v = histogramBin(l, loc, l.regsOf(op.getSrc())[r], bins, ok);
    if (op.getMask())
      ok = b.create<arith::AndIOp>(loc, ok, l.regsOf(op.getMask())[r]);
    if (owner)
      ok = b.create<arith::AndIOp>(loc, ok, owner);
    guarded(l, loc, ok, [&] {
      Value index = b.create<arith::TruncIOp>(loc, i32, v);
      // The bins are in the block's shared memory: only its threads
      // need to see the increments.
      b.create<LLVM::AtomicRMWOp>(
          loc, LLVM::AtomicBinOp::add, l.sharedAddress(loc, 0, i32, index),
          l.constI32(loc, 1), LLVM::AtomicOrdering::monotonic,
          l.hooks.getAtomicSyncScope(backend::MemoryScope::Block));
    });
  }
  l.barrier(loc);
  l.setRegs(op.getResult(),
            l.stageIn(loc, *to, i32, 0, [&](ArrayRef<Value> coords) {
              return coords.front();
            }));
  l.barrier(loc);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDistShape(DistLowerer &l, Operation *op) {
  Location loc = op->getLoc();
  if (isa<tile::ConvertLayoutOp>(op)) {
    if (isSharedMatrixOperand(op->getResult(0).getType(), l.matrixUnits))
      return lowerSharedMatrixOperand(l, op);
    if (l.deferredConverts.contains(op)) {
      // Its block-pointer store takes the source's registers.
      l.setRegs(op->getResult(0), {});
      return success();
    }
    auto srcType = cast<RankedTensorType>(op->getOperand(0).getType());
    FailureOr<DistLayout> from = l.layoutOfValue(op->getOperand(0), loc);
    FailureOr<DistLayout> to =
        l.layoutOf(cast<RankedTensorType>(op->getResult(0).getType()), loc);
    if (failed(from) || failed(to))
      return failure();
    // Register operands of a matrix unit, 16-bit elements: whole fragments
    // with the family's matrix loads where it has them and the registers do
    // not line up already.
    auto operand = dyn_cast_or_null<tile::DotOperandLayoutAttr>(
        cast<RankedTensorType>(op->getResult(0).getType()).getEncoding());
    auto matrix = operand ? dyn_cast<tile::MatrixLayoutAttr>(operand.getParent())
                          : nullptr;
    // (layoutOf(to) succeeded: the family is registered.)
    const backend::MatrixUnit *unit =
        matrix ? l.matrixUnits.lookup(matrix.getKind()) : nullptr;
    backend::MatrixLayout layout;
    if (unit)
      layout = toMatrixLayout(matrix);
    if (unit && !from->sameThreadPart(*to) &&
        !unit->readsSharedOperands(layout)) {
      FailureOr<SmallVector<Value>> fragments = convertToMatrixFragments(
          l, loc, *from, l.regsOf(op->getOperand(0)), srcType.getElementType(),
          *to, operand.getOpIdx(), *unit, layout);
      if (succeeded(fragments)) {
        l.setRegs(op->getResult(0), *fragments);
        return success();
      }
    }
    l.setRegs(op->getResult(0),
              l.convert(loc, *from, l.regsOf(op->getOperand(0)),
                        srcType.getElementType(), *to));
    return success();
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(broadcast.getSrc().getType()).getShape();
    return lowerMapped(
        l, op, broadcast.getSrc(), broadcast.getResult(),
        [&](ArrayRef<int64_t> c) {
          return broadcastSourceCoords<int64_t>(c, in, [] { return 0; });
        },
        [&](ArrayRef<Value> c) {
          return broadcastSourceCoords<Value>(
              c, in, [&] { return l.constI32(loc, 0); });
        });
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    int64_t axis = expand.getAxis();
    return lowerMapped(
        l, op, expand.getSrc(), expand.getResult(),
        [&](ArrayRef<int64_t> c) { return expandDimsSourceCoords(c, axis); },
        [&](ArrayRef<Value> c) { return expandDimsSourceCoords(c, axis); });
  }
  if (isa<tile::ReshapeOp>(op))
    return lowerReshape(l, op);
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    ArrayRef<int32_t> order = trans.getOrder();
    return lowerMapped(
        l, op, trans.getSrc(), trans.getResult(),
        [&](ArrayRef<int64_t> c) { return transSourceCoords(c, order); },
        [&](ArrayRef<Value> c) { return transSourceCoords(c, order); }, order);
  }
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<tile::JoinOp, tile::SplitOp, tile::CatOp, tile::GatherOp,
            tile::HistogramOp>(
          [&](auto shapeOp) { return lowerShapeOp(l, shapeOp); })
      .Default([](Operation *) { return std::nullopt; });
}
