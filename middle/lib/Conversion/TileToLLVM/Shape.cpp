//===- Shape.cpp - Ops that move elements between positions ---------------===//
//
// Tiles are row-major in scratch, so expand_dims, reshape and convert_layout
// keep the very same elements: the result is the operand's memory. The
// others copy: broadcast (rows as chunks), trans, join, split, cat, gather
// (indices clamped into range, so that a bad index reads some element of the
// tile rather than faulting) and histogram. The element semantics that the
// distributed lowering shares (gather's clamping, histogram's bins; the
// coordinate maps are templates in LoweringImpl.h) are defined here.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

RankedTensorType tileOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

Value loadOne(Lowerer &l, Location loc, Value buffer, Type elem, Value index) {
  return l.loadChunk(loc, buffer, elem, index, 1);
}

LogicalResult lowerShapeOp(Lowerer &l, tile::BroadcastOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  RankedTensorType in = tileOf(op.getSrc()), out = tileOf(op.getResult());
  Type elem = out.getElementType();
  Value src = l.lookup(op.getSrc());
  Value dst = l.allocTile(loc, out, op.getResult());
  ArrayRef<int64_t> outShape = out.getShape(), inShape = in.getShape();
  int64_t rank = out.getRank();
  int64_t row = outShape[rank - 1];
  int64_t width = Lowerer::chunkWidth(row);
  auto zero = [&] { return l.constI64(loc, 0); };
  l.forEachIndex(loc, outShape.drop_back(), [&](ArrayRef<Value> outer) {
    SmallVector<Value> outIndex(outer);
    SmallVector<Value, 4> inIndex =
        broadcastSourceCoords<Value>(outer, inShape.drop_back(), zero);
    outIndex.push_back(l.constI64(loc, 0));
    inIndex.push_back(l.constI64(loc, 0));
    Value outBase = l.linearize(loc, outIndex, outShape);
    Value inBase = l.linearize(loc, inIndex, inShape);
    bool rowBroadcast = inShape[rank - 1] == 1 && row != 1;
    Value splat;
    if (rowBroadcast)
      splat = l.splatChunk(loc, loadOne(l, loc, src, elem, inBase), width);
    l.forEachChunk(loc, row, width, [&](Value j) {
      Value chunk = rowBroadcast
                        ? splat
                        : l.loadChunk(loc, src, elem,
                                      b.create<arith::AddIOp>(loc, inBase, j),
                                      width);
      l.storeChunk(loc, dst, elem, b.create<arith::AddIOp>(loc, outBase, j),
                   chunk);
    });
  });
  l.map.map(op.getResult(), dst);
  return success();
}

LogicalResult lowerShapeOp(Lowerer &l, tile::TransOp op) {
  Location loc = op.getLoc();
  RankedTensorType in = tileOf(op.getSrc()), out = tileOf(op.getResult());
  Type elem = out.getElementType();
  Value src = l.lookup(op.getSrc());
  Value dst = l.allocTile(loc, out, op.getResult());
  ArrayRef<int32_t> order = op.getOrder();
  l.forEachIndex(loc, out.getShape(), [&](ArrayRef<Value> outIndex) {
    SmallVector<Value, 4> inIndex = transSourceCoords(outIndex, order);
    Value value =
        loadOne(l, loc, src, elem, l.linearize(loc, inIndex, in.getShape()));
    l.storeChunk(loc, dst, elem, l.linearize(loc, outIndex, out.getShape()),
                 value);
  });
  l.map.map(op.getResult(), dst);
  return success();
}

/// join and split interleave along a last dimension of 2: element i of part
/// k is element 2i+k of the joined tile. Calls |body| with i, 2i and 2i+1
/// (i64) for each i of the |n| elements of a part.
void forEachInterleaved(
    Lowerer &l, Location loc, int64_t n,
    function_ref<void(Value i, Value even, Value odd)> body) {
  OpBuilder &b = l.b;
  l.forEachChunk(loc, n, 1, [&](Value i) {
    Value even = b.create<arith::MulIOp>(loc, i, l.constI64(loc, 2));
    Value odd = b.create<arith::AddIOp>(loc, even, l.constI64(loc, 1));
    body(i, even, odd);
  });
}

LogicalResult lowerShapeOp(Lowerer &l, tile::JoinOp op) {
  Location loc = op.getLoc();
  RankedTensorType in = tileOf(op.getLhs()), out = tileOf(op.getResult());
  Type elem = out.getElementType();
  Value lhs = l.lookup(op.getLhs()), rhs = l.lookup(op.getRhs());
  Value dst = l.allocTile(loc, out, op.getResult());
  forEachInterleaved(
      l, loc, in.getNumElements(), [&](Value i, Value even, Value odd) {
        l.storeChunk(loc, dst, elem, even, loadOne(l, loc, lhs, elem, i));
        l.storeChunk(loc, dst, elem, odd, loadOne(l, loc, rhs, elem, i));
      });
  l.map.map(op.getResult(), dst);
  return success();
}

LogicalResult lowerShapeOp(Lowerer &l, tile::SplitOp op) {
  Location loc = op.getLoc();
  RankedTensorType out = tileOf(op.getOutLHS());
  Type elem = out.getElementType();
  Value src = l.lookup(op.getSrc());
  Value lhs = l.allocTile(loc, out, op.getOutLHS()),
        rhs = l.allocTile(loc, out, op.getOutRHS());
  forEachInterleaved(
      l, loc, out.getNumElements(), [&](Value i, Value even, Value odd) {
        l.storeChunk(loc, lhs, elem, i, loadOne(l, loc, src, elem, even));
        l.storeChunk(loc, rhs, elem, i, loadOne(l, loc, src, elem, odd));
      });
  l.map.map(op.getOutLHS(), lhs);
  l.map.map(op.getOutRHS(), rhs);
  return success();
}

/// cat: the elements of lhs, then those of rhs (Triton's cat may reorder).
LogicalResult lowerShapeOp(Lowerer &l, tile::CatOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  RankedTensorType out = tileOf(op.getResult());
  Type elem = out.getElementType();
  Value dst = l.allocTile(loc, out, op.getResult());
  int64_t offset = 0;
  for (Value part : {op.getLhs(), op.getRhs()}) {
    int64_t n = tileOf(part).getNumElements();
    int64_t width = Lowerer::chunkWidth(std::gcd(n, offset ? offset : n));
    Value src = l.lookup(part);
    l.forEachChunk(loc, n, width, [&](Value i) {
      l.storeChunk(loc, dst, elem,
                   b.create<arith::AddIOp>(loc, i, l.constI64(loc, offset)),
                   l.loadChunk(loc, src, elem, i, width));
    });
    offset += n;
  }
  l.map.map(op.getResult(), dst);
  return success();
}

LogicalResult lowerShapeOp(Lowerer &l, tile::GatherOp op) {
  Location loc = op.getLoc();
  RankedTensorType src = tileOf(op.getSrc()), idx = tileOf(op.getIndices());
  RankedTensorType out = tileOf(op.getResult());
  Type elem = out.getElementType();
  int64_t axis = op.getAxis();
  Value srcBuf = l.lookup(op.getSrc()), idxBuf = l.lookup(op.getIndices());
  Value dst = l.allocTile(loc, out, op.getResult());
  l.forEachIndex(loc, idx.getShape(), [&](ArrayRef<Value> index) {
    Value linear = l.linearize(loc, index, idx.getShape());
    SmallVector<Value> srcIndex(index);
    srcIndex[axis] = clampGatherIndex(
        l, loc, loadOne(l, loc, idxBuf, idx.getElementType(), linear), 64,
        src.getDimSize(axis));
    Value value = loadOne(l, loc, srcBuf, elem,
                          l.linearize(loc, srcIndex, src.getShape()));
    l.storeChunk(loc, dst, elem, linear, value);
  });
  l.map.map(op.getResult(), dst);
  return success();
}

LogicalResult lowerShapeOp(Lowerer &l, tile::HistogramOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  RankedTensorType src = tileOf(op.getSrc()), out = tileOf(op.getResult());
  Type i32 = b.getI32Type();
  Value dst = l.allocTile(loc, out, op.getResult());
  int64_t bins = out.getNumElements(), width = Lowerer::chunkWidth(bins);
  l.forEachChunk(loc, bins, width, [&](Value i) {
    l.storeChunk(loc, dst, i32, i,
                 l.constantChunk(loc, b.getI32IntegerAttr(0), width));
  });
  Value srcBuf = l.lookup(op.getSrc());
  l.forEachChunk(loc, src.getNumElements(), 1, [&](Value i) {
    Value ok;
    Value v = histogramBin(
        l, loc, loadOne(l, loc, srcBuf, src.getElementType(), i), bins, ok);
    if (op.getMask())
      ok = b.create<arith::AndIOp>(
          loc, ok, loadOne(l, loc, l.lookup(op.getMask()), b.getI1Type(), i));
    guarded(l, loc, ok, [&] {
      Value count = loadOne(l, loc, dst, i32, v);
      l.storeChunk(loc, dst, i32, v,
                   b.create<arith::AddIOp>(loc, count, l.constI32(loc, 1)));
    });
  });
  l.map.map(op.getResult(), dst);
  return success();
}

} // namespace

Value tegula::lowering::clampGatherIndex(Lowerer &l, Location loc, Value index,
                                         unsigned width, int64_t size) {
  OpBuilder &b = l.b;
  Type type = b.getIntegerType(width);
  unsigned from = index.getType().getIntOrFloatBitWidth();
  if (from < width)
    index = b.create<arith::ExtSIOp>(loc, type, index);
  else if (from > width)
    index = b.create<arith::TruncIOp>(loc, type, index);
  auto constant = [&](int64_t value) -> Value {
    return b.create<arith::ConstantIntOp>(loc, value, width);
  };
  index = b.create<arith::MaxSIOp>(loc, index, constant(0));
  return b.create<arith::MinSIOp>(loc, index, constant(size - 1));
}

Value tegula::lowering::histogramBin(Lowerer &l, Location loc, Value element,
                                     int64_t bins, Value &inRange) {
  OpBuilder &b = l.b;
  Value v = element;
  if (!v.getType().isInteger(64))
    v = b.create<arith::ExtSIOp>(loc, b.getI64Type(), v);
  inRange = b.create<arith::AndIOp>(
      loc,
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, v,
                              l.constI64(loc, 0)),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, v,
                              l.constI64(loc, bins)));
  return v;
}

std::optional<LogicalResult>
tegula::lowering::lowerShapeFamily(Lowerer &l, Operation *op) {
  if (isa<tile::ExpandDimsOp, tile::ReshapeOp, tile::ConvertLayoutOp>(op)) {
    l.map.map(op->getResult(0), l.lookup(op->getOperand(0)));
    return success();
  }
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<tile::BroadcastOp, tile::TransOp, tile::JoinOp, tile::SplitOp,
            tile::CatOp, tile::GatherOp, tile::HistogramOp>(
          [&](auto shapeOp) { return lowerShapeOp(l, shapeOp); })
      .Default([](Operation *) { return std::nullopt; });
}
