//===- ReduceScan.cpp - Reductions and scans with combine regions ---------===//
//
// A tile is viewed as [outer, L, inner] around the reduced (scanned) axis of
// length L. With inner > 1 the combine region runs on chunks of the inner
// dimension (L steps of vector combines). With inner == 1 a reduction keeps a
// chunk of partial results along the axis and then halves it lane by lane
// (a tree, as a GPU reduces across threads); a scan runs element by element.
// The combine region is cloned with the chunk types, so any elementwise
// combine function (sum, max, argmax with its tie-break, ...) works.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

struct AxisView {
  int64_t outer = 1, length = 1, inner = 1;
};

AxisView viewAround(RankedTensorType type, int64_t axis) {
  AxisView view;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d < axis)
      view.outer *= type.getDimSize(d);
    else if (d == axis)
      view.length = type.getDimSize(d);
    else
      view.inner *= type.getDimSize(d);
  }
  return view;
}

/// Loads chunk |width| at element |index| of every source.
SmallVector<Value> loadAll(Lowerer &l, Location loc, ArrayRef<Value> buffers,
                           ArrayRef<Type> elems, Value index, int64_t width) {
  SmallVector<Value> chunks;
  for (auto [buffer, elem] : llvm::zip(buffers, elems))
    chunks.push_back(l.loadChunk(loc, buffer, elem, index, width));
  return chunks;
}

/// acc = combine(acc, next) for each step k in [1, length) of a loop; |at|
/// gives the element index of step k. Returns the final accumulators; calls
/// |each| (if set) with every accumulator including the first.
FailureOr<SmallVector<Value>> accumulate(
    Lowerer &l, Location loc, Region &combine, ArrayRef<Value> buffers,
    ArrayRef<Type> elems, int64_t length, int64_t width,
    llvm::function_ref<Value(Value k)> at,
    llvm::function_ref<void(Value k, ArrayRef<Value> acc)> each) {
  OpBuilder &b = l.b;
  Value zero = l.constI64(loc, 0);
  SmallVector<Value> acc = loadAll(l, loc, buffers, elems, at(zero), width);
  if (each)
    each(zero, acc);
  if (length == 1)
    return acc;
  auto loop = b.create<scf::ForOp>(loc, l.constI64(loc, 1),
                                   l.constI64(loc, length), l.constI64(loc, 1),
                                   acc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  SmallVector<Value> operands(loop.getRegionIterArgs());
  llvm::append_range(operands, loadAll(l, loc, buffers, elems, at(k), width));
  FailureOr<SmallVector<Value>> next = l.buildCombine(combine, operands, width);
  if (failed(next))
    return failure();
  if (each)
    each(k, *next);
  b.create<scf::YieldOp>(loc, *next);
  return SmallVector<Value>(loop.getResults());
}

/// Combines the lanes of |chunks| (vectors of |width|) down to scalars.
FailureOr<SmallVector<Value>> combineLanes(Lowerer &l, Location loc,
                                           Region &combine,
                                           SmallVector<Value> chunks,
                                           int64_t width) {
  OpBuilder &b = l.b;
  while (width > 1) {
    int64_t half = width / 2;
    SmallVector<Value> operands(chunks.size() * 2);
    for (auto [i, chunk] : llvm::enumerate(chunks)) {
      if (half == 1) {
        operands[i] = b.create<LLVM::ExtractElementOp>(loc, chunk,
                                                       l.constI32(loc, 0));
        operands[i + chunks.size()] = b.create<LLVM::ExtractElementOp>(
            loc, chunk, l.constI32(loc, 1));
        continue;
      }
      SmallVector<int32_t> low, high;
      for (int64_t j = 0; j < half; ++j) {
        low.push_back(static_cast<int32_t>(j));
        high.push_back(static_cast<int32_t>(j + half));
      }
      operands[i] = b.create<LLVM::ShuffleVectorOp>(loc, chunk, chunk, low);
      operands[i + chunks.size()] =
          b.create<LLVM::ShuffleVectorOp>(loc, chunk, chunk, high);
    }
    FailureOr<SmallVector<Value>> next = l.buildCombine(combine, operands, half);
    if (failed(next))
      return failure();
    chunks = *next;
    width = half;
  }
  return chunks;
}

LogicalResult lowerReduce(Lowerer &l, tile::ReduceOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
  AxisView view = viewAround(srcType, op.getAxis());
  SmallVector<Value> buffers;
  SmallVector<Type> elems;
  for (Value src : op.getSrcs()) {
    buffers.push_back(l.lookup(src));
    elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
  }
  // Results: tiles of outer x inner, or scalars for a rank-1 source.
  bool scalarResult = !isa<RankedTensorType>(op.getResult().front().getType());
  SmallVector<Value> results;
  if (!scalarResult)
    for (Value result : op.getResult())
      results.push_back(
          l.allocTile(loc, cast<RankedTensorType>(result.getType()), result));

  Region &combine = op.getCombineOp();
  LogicalResult status = success();
  if (view.inner == 1) {
    int64_t width = Lowerer::chunkWidth(view.length);
    int64_t steps = view.length / width;
    auto reduceRow = [&](Value outer) -> FailureOr<SmallVector<Value>> {
      Value base = b.create<arith::MulIOp>(loc, outer,
                                           l.constI64(loc, view.length));
      FailureOr<SmallVector<Value>> acc = accumulate(
          l, loc, combine, buffers, elems, steps, width,
          [&](Value k) -> Value {
            return b.create<arith::AddIOp>(
                loc, base,
                b.create<arith::MulIOp>(loc, k, l.constI64(loc, width)));
          },
          nullptr);
      if (failed(acc))
        return failure();
      return combineLanes(l, loc, combine, *acc, width);
    };
    if (scalarResult) {
      FailureOr<SmallVector<Value>> values = reduceRow(l.constI64(loc, 0));
      if (failed(values))
        return failure();
      for (auto [old, value] : llvm::zip(op.getResult(), *values))
        l.map.map(old, value);
      return success();
    }
    l.forEachChunk(loc, view.outer, 1, [&](Value outer) {
      FailureOr<SmallVector<Value>> values = reduceRow(outer);
      if (failed(values)) {
        status = failure();
        return;
      }
      for (auto [i, value] : llvm::enumerate(*values))
        l.storeChunk(loc, results[i], elems[i], outer, value);
    });
  } else {
    int64_t width = Lowerer::chunkWidth(view.inner);
    l.forEachChunk(loc, view.outer, 1, [&](Value outer) {
      l.forEachChunk(loc, view.inner, width, [&](Value j) {
        Value base = b.create<arith::AddIOp>(
            loc,
            b.create<arith::MulIOp>(
                loc, outer, l.constI64(loc, view.length * view.inner)),
            j);
        FailureOr<SmallVector<Value>> acc = accumulate(
            l, loc, combine, buffers, elems, view.length, width,
            [&](Value k) -> Value {
              return b.create<arith::AddIOp>(
                  loc, base,
                  b.create<arith::MulIOp>(loc, k,
                                          l.constI64(loc, view.inner)));
            },
            nullptr);
        if (failed(acc)) {
          status = failure();
          return;
        }
        Value at = b.create<arith::AddIOp>(
            loc,
            b.create<arith::MulIOp>(loc, outer, l.constI64(loc, view.inner)),
            j);
        for (auto [i, value] : llvm::enumerate(*acc))
          l.storeChunk(loc, results[i], elems[i], at, value);
      });
    });
  }
  if (failed(status))
    return failure();
  for (auto [old, buffer] : llvm::zip(op.getResult(), results))
    l.map.map(old, buffer);
  return success();
}

LogicalResult lowerScan(Lowerer &l, tile::ScanOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
  AxisView view = viewAround(srcType, op.getAxis());
  SmallVector<Value> buffers, results;
  SmallVector<Type> elems;
  for (Value src : op.getSrcs()) {
    buffers.push_back(l.lookup(src));
    elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
  }
  SmallVector<Type> resultElems;
  for (Value result : op.getResult()) {
    auto type = cast<RankedTensorType>(result.getType());
    results.push_back(l.allocTile(loc, type, result));
    resultElems.push_back(type.getElementType());
  }
  int64_t width = Lowerer::chunkWidth(view.inner);
  bool reverse = op.getReverse();
  LogicalResult status = success();
  l.forEachChunk(loc, view.outer, 1, [&](Value outer) {
    l.forEachChunk(loc, view.inner, width, [&](Value j) {
      Value base = b.create<arith::AddIOp>(
          loc,
          b.create<arith::MulIOp>(loc, outer,
                                  l.constI64(loc, view.length * view.inner)),
          j);
      auto at = [&](Value k) -> Value {
        if (reverse)
          k = b.create<arith::SubIOp>(loc, l.constI64(loc, view.length - 1), k);
        return b.create<arith::AddIOp>(
            loc, base,
            b.create<arith::MulIOp>(loc, k, l.constI64(loc, view.inner)));
      };
      FailureOr<SmallVector<Value>> acc = accumulate(
          l, loc, op.getCombineOp(), buffers, elems, view.length, width, at,
          [&](Value k, ArrayRef<Value> values) {
            Value index = at(k);
            for (auto [i, value] : llvm::enumerate(values))
              l.storeChunk(loc, results[i], resultElems[i], index, value);
          });
      if (failed(acc))
        status = failure();
    });
  });
  if (failed(status))
    return failure();
  for (auto [old, buffer] : llvm::zip(op.getResult(), results))
    l.map.map(old, buffer);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerReduceScanFamily(Lowerer &l, Operation *op) {
  return lowerOneOf<lowerReduce, lowerScan>(l, op);
}
