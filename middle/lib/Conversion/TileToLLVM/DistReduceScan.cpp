//===- DistReduceScan.cpp - Reductions and scans across threads -----------===//
//
// reduce: registers of one thread first (in order along the axis), then the
// lanes along the axis by butterfly shuffles, then the warps along the axis
// through shared memory (each warp's partial result in its slot, combined in
// slot order by every thread). The combined values land in the registers of
// the result's slice layout.
//
// scan: through shared memory - the tile is written row-major, each thread
// scans whole lines along the axis (line t, t + threads, ...), and the
// registers are read back.
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// |value| from lane `lane ^ offset`, for any scalar type: narrower values
/// travel as i32, 64-bit ones as two i32 halves.
Value shuffleXor(DistLowerer &l, Location loc, Value value, int64_t offset) {
  OpBuilder &b = l.b;
  Type type = value.getType();
  Type i32 = b.getI32Type();
  Value offsetValue = l.constI32(loc, offset);
  auto shuffle = [&](Value v) {
    return l.hooks.buildShuffle(b, loc, v, backend::ShuffleKind::Xor,
                                offsetValue);
  };
  if (type.isF32() || type.isInteger(32))
    return shuffle(value);
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? b.create<arith::BitcastOp>(loc, intType, value).getResult()
                    : value;
  Value result;
  if (bits < 32) {
    Value wide = b.create<arith::ExtUIOp>(loc, i32, asInt);
    result = b.create<arith::TruncIOp>(loc, intType, shuffle(wide));
  } else {
    Type i64 = b.getI64Type();
    Value low = b.create<arith::TruncIOp>(loc, i32, asInt);
    Value high = b.create<arith::TruncIOp>(
        loc, i32,
        b.create<arith::ShRUIOp>(loc, asInt, l.constI64(loc, 32)));
    Value newLow = b.create<arith::ExtUIOp>(loc, i64, shuffle(low));
    Value newHigh = b.create<arith::ShLIOp>(
        loc, b.create<arith::ExtUIOp>(loc, i64, shuffle(high)),
        l.constI64(loc, 32));
    result = b.create<arith::OrIOp>(loc, newLow, newHigh);
  }
  if (isa<FloatType>(type))
    result = b.create<arith::BitcastOp>(loc, type, result);
  return result;
}

/// Combines |lhs| and |rhs| (one value per operand) with the combine region.
FailureOr<SmallVector<Value>> combine(DistLowerer &l, Region &region,
                                      ArrayRef<Value> lhs,
                                      ArrayRef<Value> rhs) {
  SmallVector<Value> operands(lhs);
  operands.append(rhs.begin(), rhs.end());
  return l.buildCombine(region, operands, 1);
}

/// Whether |basis| is zero outside dimension |dim|.
bool onlyAlong(ArrayRef<int64_t> basis, int64_t dim) {
  for (auto [d, c] : llvm::enumerate(basis))
    if (static_cast<int64_t>(d) != dim && c != 0)
      return false;
  return true;
}

Coords dropDim(ArrayRef<int64_t> coords, int64_t dim) {
  Coords result(coords);
  result.erase(result.begin() + dim);
  return result;
}

LogicalResult lowerReduce(DistLowerer &l, tile::ReduceOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
  int64_t axis = op.getAxis();
  FailureOr<DistLayout> layout = l.layoutOf(srcType, loc);
  if (failed(layout))
    return failure();
  for (Value src : op.getSrcs()) {
    FailureOr<DistLayout> other =
        l.layoutOf(cast<RankedTensorType>(src.getType()), loc);
    if (failed(other))
      return failure();
    if (!(*other == *layout))
      return l.unsupported(op, "operands in different layouts");
  }
  Region &region = op.getCombineOp();

  // 1. Registers of a thread that differ only along the axis.
  struct Group {
    Coords key; // the register's coordinates without the axis
    int64_t firstReg;
    SmallVector<Value> acc;
  };
  SmallVector<Group> groups;
  std::map<Coords, size_t> groupOf;
  for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
    Coords key = dropDim(layout->regOffsets[r], axis);
    SmallVector<Value> values;
    for (Value src : op.getSrcs())
      values.push_back(l.regsOf(src)[r]);
    auto [it, inserted] = groupOf.try_emplace(key, groups.size());
    if (inserted) {
      groups.push_back({key, r, values});
      continue;
    }
    FailureOr<SmallVector<Value>> next =
        combine(l, region, groups[it->second].acc, values);
    if (failed(next))
      return failure();
    groups[it->second].acc = *next;
  }

  // 2. Lanes along the axis.
  for (auto [bit, basis] : llvm::enumerate(layout->laneBases)) {
    if (basis[axis] == 0)
      continue;
    if (!onlyAlong(basis, axis))
      return l.unsupported(op, "a layout whose lanes mix the reduced "
                               "dimension with others");
    for (Group &group : groups) {
      SmallVector<Value> others;
      for (Value value : group.acc)
        others.push_back(shuffleXor(l, loc, value, int64_t(1) << bit));
      FailureOr<SmallVector<Value>> next =
          combine(l, region, group.acc, others);
      if (failed(next))
        return failure();
      group.acc = *next;
    }
  }

  // 3. Warps along the axis, through shared memory.
  SmallVector<int64_t> axisWarpBits;
  for (auto [bit, basis] : llvm::enumerate(layout->warpBases)) {
    if (basis[axis] == 0)
      continue;
    if (!onlyAlong(basis, axis))
      return l.unsupported(op, "a layout whose warps mix the reduced "
                               "dimension with others");
    axisWarpBits.push_back(bit);
  }
  SmallVector<int64_t> outShape = dropDim(layout->shape, axis);
  int64_t numOut = 1;
  for (int64_t size : outShape)
    numOut *= size;
  if (!axisWarpBits.empty()) {
    int64_t numSlots = int64_t(1) << axisWarpBits.size();
    Value slot = l.constI32(loc, 0);
    for (auto [i, bit] : llvm::enumerate(axisWarpBits)) {
      Value set = b.create<arith::AndIOp>(
          loc, b.create<arith::ShRUIOp>(loc, l.warpId, l.constI32(loc, bit)),
          l.constI32(loc, 1));
      slot = b.create<arith::OrIOp>(
          loc, slot,
          b.create<arith::ShLIOp>(loc, set, l.constI32(loc, i)));
    }
    SmallVector<int64_t> offsets;
    int64_t bytes = 0;
    for (Value src : op.getSrcs()) {
      offsets.push_back(bytes);
      Type elem = cast<RankedTensorType>(src.getType()).getElementType();
      bytes = llvm::alignTo(bytes + numSlots * numOut * l.storageBytes(elem),
                            16);
    }
    l.reserveShared(bytes);
    SmallVector<Value> outIndex;
    for (Group &group : groups) {
      SmallVector<Value> coords = l.regCoords(loc, *layout, group.firstReg);
      coords.erase(coords.begin() + axis);
      outIndex.push_back(l.linearIndex(loc, coords, outShape));
    }
    for (auto [g, group] : llvm::enumerate(groups)) {
      Value at = b.create<arith::AddIOp>(
          loc, b.create<arith::MulIOp>(loc, slot, l.constI32(loc, numOut)),
          outIndex[g]);
      for (auto [j, src] : llvm::enumerate(op.getSrcs()))
        l.storeShared(loc, offsets[j],
                      cast<RankedTensorType>(src.getType()).getElementType(),
                      at, group.acc[j]);
    }
    l.barrier(loc);
    for (auto [g, group] : llvm::enumerate(groups)) {
      auto read = [&](int64_t s) {
        SmallVector<Value> values;
        Value at = b.create<arith::AddIOp>(loc, outIndex[g],
                                           l.constI32(loc, s * numOut));
        for (auto [j, src] : llvm::enumerate(op.getSrcs()))
          values.push_back(l.loadShared(
              loc, offsets[j],
              cast<RankedTensorType>(src.getType()).getElementType(), at));
        return values;
      };
      group.acc = read(0);
      for (int64_t s = 1; s < numSlots; ++s) {
        FailureOr<SmallVector<Value>> next =
            combine(l, region, group.acc, read(s));
        if (failed(next))
          return failure();
        group.acc = *next;
      }
    }
    l.barrier(loc);
  }

  // 4. The results.
  if (!isTile(op.getResult().front().getType())) {
    if (groups.size() != 1)
      return l.unsupported(op, "a scalar result from several groups");
    for (auto [j, result] : llvm::enumerate(op.getResult())) {
      Value value = groups.front().acc[j];
      if (isa<tile::PointerType>(result.getType()))
        value = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), value);
      l.map.map(result, value);
    }
    return success();
  }
  DistLayout reduced;
  reduced.shape.assign(outShape.begin(), outShape.end());
  for (Group &group : groups)
    reduced.regOffsets.push_back(group.key);
  for (const Coords &basis : layout->laneBases)
    reduced.laneBases.push_back(basis[axis] ? Coords(outShape.size(), 0)
                                            : dropDim(basis, axis));
  for (const Coords &basis : layout->warpBases)
    reduced.warpBases.push_back(basis[axis] ? Coords(outShape.size(), 0)
                                            : dropDim(basis, axis));
  for (auto [j, result] : llvm::enumerate(op.getResult())) {
    auto type = cast<RankedTensorType>(result.getType());
    FailureOr<DistLayout> target = l.layoutOf(type, loc);
    if (failed(target))
      return failure();
    SmallVector<Value> values;
    for (Group &group : groups)
      values.push_back(group.acc[j]);
    l.setRegs(result, l.convert(loc, reduced, values, type.getElementType(),
                                *target));
  }
  return success();
}

LogicalResult lowerScan(DistLowerer &l, tile::ScanOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> shape = srcType.getShape();
  int64_t length = shape[axis], inner = 1;
  for (int64_t d = axis + 1; d < srcType.getRank(); ++d)
    inner *= shape[d];
  int64_t numLines = srcType.getNumElements() / length;
  SmallVector<int64_t> offsets;
  SmallVector<Type> elems;
  int64_t bytes = 0;
  for (Value src : op.getSrcs()) {
    auto type = cast<RankedTensorType>(src.getType());
    FailureOr<DistLayout> layout = l.layoutOf(type, loc);
    if (failed(layout))
      return failure();
    offsets.push_back(bytes);
    elems.push_back(type.getElementType());
    l.stageOut(loc, *layout, l.regsOf(src), type.getElementType(), bytes);
    bytes = llvm::alignTo(
        bytes + type.getNumElements() * l.storageBytes(type.getElementType()),
        16);
  }
  l.reserveShared(bytes);
  l.barrier(loc);

  int64_t numThreads = l.numWarps * l.warpSize;
  auto lines = b.create<scf::ForOp>(loc, l.threadId,
                                    l.constI32(loc, numLines),
                                    l.constI32(loc, numThreads));
  LogicalResult status = success();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(lines.getBody()->getTerminator());
    Value line = lines.getInductionVar();
    Value base = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(
            loc, b.create<arith::DivUIOp>(loc, line, l.constI32(loc, inner)),
            l.constI32(loc, length * inner)),
        b.create<arith::RemUIOp>(loc, line, l.constI32(loc, inner)));
    auto at = [&](Value k) -> Value {
      if (op.getReverse())
        k = b.create<arith::SubIOp>(loc, l.constI32(loc, length - 1), k);
      return b.create<arith::AddIOp>(
          loc, base, b.create<arith::MulIOp>(loc, k, l.constI32(loc, inner)));
    };
    auto readAll = [&](Value index) {
      SmallVector<Value> values;
      for (auto [j, elem] : llvm::enumerate(elems))
        values.push_back(l.loadShared(loc, offsets[j], elem, index));
      return values;
    };
    SmallVector<Value> first = readAll(at(l.constI32(loc, 0)));
    auto steps = b.create<scf::ForOp>(loc, l.constI32(loc, 1),
                                      l.constI32(loc, length),
                                      l.constI32(loc, 1), first);
    b.setInsertionPointToEnd(steps.getBody());
    Value index = at(steps.getInductionVar());
    FailureOr<SmallVector<Value>> next =
        combine(l, op.getCombineOp(),
                SmallVector<Value>(steps.getRegionIterArgs()), readAll(index));
    if (failed(next)) {
      status = failure();
    } else {
      for (auto [j, elem] : llvm::enumerate(elems))
        l.storeShared(loc, offsets[j], elem, index, (*next)[j]);
      b.create<scf::YieldOp>(loc, *next);
    }
  }
  if (failed(status))
    return failure();
  l.barrier(loc);
  for (auto [j, result] : llvm::enumerate(op.getResult())) {
    auto type = cast<RankedTensorType>(result.getType());
    FailureOr<DistLayout> layout = l.layoutOf(type, loc);
    if (failed(layout))
      return failure();
    l.setRegs(result, l.stageIn(loc, *layout, type.getElementType(),
                                offsets[j], [&](ArrayRef<Value> coords) {
                                  return l.linearIndex(loc, coords, shape);
                                }));
  }
  l.barrier(loc);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDistReduceScan(DistLowerer &l, Operation *op) {
  return lowerOneOf<lowerReduce, lowerScan>(l, op);
}
