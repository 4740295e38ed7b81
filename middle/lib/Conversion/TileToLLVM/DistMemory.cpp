//===- DistMemory.cpp - Loads, stores and atomics of distributed tiles ----===//
//
// Each thread accesses its own registers. Registers that the layout makes
// consecutive along one dimension, and that the axis analysis proves
// contiguous and aligned in memory (with a mask constant over them), are one
// vector access of up to 16 bytes (one 128-bit load); a masked access
// is a branch around it, masked-off loads reading |other| (zero without
// one). Stores and atomics act in one thread of each group of replicas.
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

#include "tegula/BackendKit/AsyncCopy.h"

#include "llvm/ADT/bit.h"

#include <numeric>

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// How many consecutive registers form one vector access (1: none).
int64_t vectorWidth(DistLowerer &l, const DistLayout &layout, Value ptrs,
                    Value mask, int64_t elemBytes) {
  int64_t dim = layout.getRunDim();
  if (dim < 0)
    return 1;
  AxisInfo info = l.axisInfo.get(ptrs);
  if (!info.isInitialized() || info.getRank() != layout.getRank())
    return 1;
  int64_t limit = 16 / elemBytes;
  limit = std::min(limit, info.getContiguity(dim));
  limit = std::min(limit, info.getDivisibility(dim) / elemBytes);
  if (mask) {
    AxisInfo maskInfo = l.axisInfo.get(mask);
    if (!maskInfo.isInitialized() || maskInfo.getRank() != layout.getRank())
      return 1;
    limit = std::min(limit, maskInfo.getConstancy(dim));
  }
  return layout.getRunLength(dim, limit);
}

/// |values| (scalars in chunk form) as one value in memory form: a vector
/// when there are several.
Value packForMemory(DistLowerer &l, Location loc, ArrayRef<Value> values,
                    Type elem) {
  OpBuilder &b = l.b;
  auto toMemory = [&](Value v) -> Value {
    if (elem.isInteger(1))
      return b.create<arith::ExtUIOp>(loc, b.getI8Type(), v);
    return v;
  };
  if (values.size() == 1)
    return toMemory(values.front());
  Type storage = l.storageType(elem);
  auto type = VectorType::get({static_cast<int64_t>(values.size())}, storage);
  Value vector = b.create<LLVM::PoisonOp>(loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    vector = b.create<LLVM::InsertElementOp>(loc, type, vector, toMemory(v),
                                             l.constI32(loc, i));
  return vector;
}

/// The inverse of packForMemory for |width| values.
SmallVector<Value> unpackFromMemory(DistLowerer &l, Location loc, Value packed,
                                    Type elem, int64_t width) {
  OpBuilder &b = l.b;
  SmallVector<Value> values;
  for (int64_t i = 0; i < width; ++i) {
    Value v = width == 1 ? packed
                         : b.create<LLVM::ExtractElementOp>(
                               loc, packed, l.constI32(loc, i))
                               .getResult();
    if (elem.isInteger(1))
      v = b.create<arith::TruncIOp>(loc, b.getI1Type(), v);
    values.push_back(v);
  }
  return values;
}

Value zeroOf(DistLowerer &l, Location loc, Type type) {
  return l.b.create<arith::ConstantOp>(loc, l.b.getZeroAttr(type));
}

LogicalResult lowerTileAccess(DistLowerer &l, tile::LoadOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(op.getType());
  Type elem = type.getElementType();
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout))
    return failure();
  int64_t elemBytes = l.storageBytes(elem);
  int64_t width = vectorWidth(l, *layout, op.getPtr(), op.getMask(), elemBytes);
  Type storage = l.storageType(elem);
  Type memType =
      width == 1 ? storage : VectorType::get({width}, storage);
  ArrayRef<Value> ptrs = l.regsOf(op.getPtr());
  SmallVector<Value> result;
  for (int64_t r = 0; r < layout->getNumRegs(); r += width) {
    Value address = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), ptrs[r]);
    auto load = [&]() -> Value {
      return b.create<LLVM::LoadOp>(loc, memType, address,
                                    static_cast<unsigned>(width * elemBytes),
                                    op.getIsVolatile());
    };
    Value packed;
    if (op.getMask()) {
      packed = conditionalValue(
          l, loc, memType, l.regsOf(op.getMask())[r], load, [&] {
            if (op.getOther())
              return packForMemory(
                  l, loc, l.regsOf(op.getOther()).slice(r, width), elem);
            return zeroOf(l, loc, memType);
          });
    } else {
      packed = load();
    }
    llvm::append_range(result, unpackFromMemory(l, loc, packed, elem, width));
  }
  l.setRegs(op.getResult(), result);
  return success();
}

LogicalResult lowerTileAccess(DistLowerer &l, tile::StoreOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(op.getValue().getType());
  Type elem = type.getElementType();
  FailureOr<DistLayout> layout =
      l.layoutOf(cast<RankedTensorType>(op.getPtr().getType()), loc);
  if (failed(layout))
    return failure();
  int64_t elemBytes = l.storageBytes(elem);
  int64_t width = vectorWidth(l, *layout, op.getPtr(), op.getMask(), elemBytes);
  Value owner = layout->hasReplication() ? l.isOwner(*layout) : Value();
  ArrayRef<Value> ptrs = l.regsOf(op.getPtr());
  ArrayRef<Value> values = l.regsOf(op.getValue());
  for (int64_t r = 0; r < layout->getNumRegs(); r += width) {
    Value mask = op.getMask() ? l.regsOf(op.getMask())[r] : Value();
    guarded(l, loc, andValues(l, loc, mask, owner), [&] {
      Value address = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), ptrs[r]);
      b.create<LLVM::StoreOp>(loc,
                              packForMemory(l, loc, values.slice(r, width), elem),
                              address, static_cast<unsigned>(width * elemBytes));
    });
  }
  return success();
}

/// The block pointers |value| can be (the tile.make_tensor_ptr ops it comes
/// from, through advances, loops and their results), with the gcd of the
/// divisibility of every offset along |dim| on the way in |offsetDiv|.
/// False when some origin is not visible.
bool traceBlockPointer(DistLowerer &l, Value value, int64_t dim,
                       int64_t &offsetDiv,
                       SmallVectorImpl<tile::MakeTensorPtrOp> &origins,
                       llvm::DenseSet<Value> &visited) {
  if (!visited.insert(value).second)
    return true;
  auto divisibility = [&](Value scalar) {
    AxisInfo info = l.axisInfo.get(scalar);
    return info.isInitialized() ? info.getDivisibility(0) : int64_t(1);
  };
  if (auto make = value.getDefiningOp<tile::MakeTensorPtrOp>()) {
    origins.push_back(make);
    offsetDiv = std::gcd(offsetDiv, divisibility(make.getOffsets()[dim]));
    return true;
  }
  if (auto advance = value.getDefiningOp<tile::AdvanceOp>()) {
    offsetDiv = std::gcd(offsetDiv, divisibility(advance.getOffsets()[dim]));
    return traceBlockPointer(l, advance.getPtr(), dim, offsetDiv, origins,
                             visited);
  }
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return false;
    unsigned index = arg.getArgNumber() - 1;
    return traceBlockPointer(l, loop.getInitArgs()[index], dim, offsetDiv,
                             origins, visited) &&
           traceBlockPointer(l, loop.getYieldedValues()[index], dim,
                             offsetDiv, origins, visited);
  }
  if (auto loop = value.getDefiningOp<scf::ForOp>()) {
    unsigned index = cast<OpResult>(value).getResultNumber();
    return traceBlockPointer(l, loop.getInitArgs()[index], dim, offsetDiv,
                             origins, visited) &&
           traceBlockPointer(l, loop.getYieldedValues()[index], dim,
                             offsetDiv, origins, visited);
  }
  return false;
}

/// How many consecutive registers of a block pointer's tile form one vector
/// access: the registers run along a dimension whose stride is the
/// constant 1 in every block pointer the value can be, that is not
/// bounds-checked, and along which the base, the other strides and the
/// offsets keep vectors aligned.
int64_t blockVectorWidth(DistLowerer &l, const DistLayout &layout, Value ptr,
                         int64_t elemBytes, ArrayRef<int32_t> boundaryCheck) {
  int64_t dim = layout.getRunDim();
  if (dim < 0 || llvm::is_contained(boundaryCheck, static_cast<int32_t>(dim)))
    return 1;
  int64_t limit = 16 / elemBytes;
  int64_t offsetDiv = limit;
  SmallVector<tile::MakeTensorPtrOp> origins;
  llvm::DenseSet<Value> visited;
  if (!traceBlockPointer(l, ptr, dim, offsetDiv, origins, visited) ||
      origins.empty())
    return 1;
  limit = std::min(limit, offsetDiv);
  for (tile::MakeTensorPtrOp make : origins) {
    if (static_cast<int64_t>(make.getStrides().size()) != layout.getRank())
      return 1;
    AxisInfo base = l.axisInfo.get(make.getBase());
    if (!base.isInitialized())
      return 1;
    limit = std::min(limit, base.getDivisibility(0) / elemBytes);
    for (auto [d, stride] : llvm::enumerate(make.getStrides())) {
      AxisInfo info = l.axisInfo.get(stride);
      if (!info.isInitialized())
        return 1;
      if (static_cast<int64_t>(d) == dim) {
        if (info.getConstantValue() != 1)
          return 1;
      } else {
        limit = std::min(limit, info.getDivisibility(0));
      }
    }
  }
  if (limit < 2)
    return 1;
  return layout.getRunLength(dim, llvm::bit_floor(static_cast<uint64_t>(limit)));
}

/// Per |step|-th register of a block pointer's tile: its address and
/// whether the checked dimensions are in bounds (null when nothing is
/// checked).
void forEachBlockRegister(
    DistLowerer &l, Location loc, const DistLayout &layout, Value packed,
    Type elem, ArrayRef<int32_t> boundaryCheck, int64_t step,
    llvm::function_ref<void(int64_t reg, Value address, Value inBounds)> body) {
  OpBuilder &b = l.b;
  BlockPointer bp = unpackBlockPointer(l, loc, packed, layout.getRank());
  ArrayRef<Value> thread = l.threadCoords(layout);
  SmallVector<int64_t> threadBits;
  for (int64_t d = 0; d < layout.getRank(); ++d)
    threadBits.push_back(layout.getThreadBits(d));
  for (int64_t r = 0; r < layout.getNumRegs(); r += step) {
    SmallVector<Value> coords = l.regCoords(loc, layout, r);
    Value inBounds;
    Value address = blockElementAddress(
        l, loc, bp, elem, boundaryCheck,
        [&](int64_t d) -> Value {
          // The thread's coordinate plus the register's, in 64 bits where
          // their bits do not overlap: LLVM then sees every register's
          // address as one per thread plus a constant times the strides,
          // and keeps one address per thread instead of one per register.
          int64_t offset = layout.regOffsets[r][d];
          if (offset != 0 && !(threadBits[d] & offset))
            return b.create<arith::AddIOp>(
                loc, b.create<arith::ExtSIOp>(loc, b.getI64Type(), thread[d]),
                l.constI64(loc, offset));
          return b.create<arith::ExtSIOp>(loc, b.getI64Type(), coords[d]);
        },
        inBounds);
    body(r, address, inBounds);
  }
}

/// The layout block-pointer load |op| reads its tile in. Its type has no
/// encoding (it is the pointer's pointee), so by default the tile is
/// row-major with one element per thread in a row: scalar accesses, and
/// strided ones when the block's unit-stride dimension is another. When
/// only register conversions read the tile (they take any source layout),
/// it is read in Triton's coalesced layout along the block pointer's order
/// instead, vectors along a dimension of unit stride.
FailureOr<DistLayout> blockLoadLayout(DistLowerer &l, tile::LoadOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  Value result = op.getResult();
  bool convertedOnly =
      !result.use_empty() &&
      llvm::all_of(result.getUsers(), [&](Operation *user) {
        return isa<tile::ConvertLayoutOp>(user) &&
               !l.deferredConverts.contains(user) &&
               !isSharedMatrixOperand(user->getResult(0).getType(),
                                      l.matrixUnits);
      });
  int64_t dim = convertedOnly ? getBlockContiguousDim(l, op.getPtr()) : -1;
  if (dim < 0)
    return l.layoutOf(type, op.getLoc());
  SmallVector<tile::MakeTensorPtrOp> origins;
  llvm::DenseSet<Value> visited;
  int64_t unusedDivisibility = 1;
  traceBlockPointer(l, op.getPtr(), dim, unusedDivisibility, origins, visited);
  bool unitStride = llvm::all_of(origins, [&](tile::MakeTensorPtrOp make) {
    AxisInfo stride = l.axisInfo.get(make.getStrides()[dim]);
    return stride.isInitialized() && stride.getConstantValue() == 1;
  });
  SmallVector<unsigned> order{static_cast<unsigned>(dim)};
  for (int64_t d = type.getRank() - 1; d >= 0; --d)
    if (d != dim)
      order.push_back(d);
  DistLayout layout = l.coalescedLayout(
      type, order, unitStride ? static_cast<unsigned>(type.getShape()[dim]) : 1);
  l.valueLayouts[result] = layout;
  return layout;
}

LogicalResult lowerBlockAccess(DistLowerer &l, tile::LoadOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(op.getType());
  Type elem = type.getElementType();
  Type memType = l.storageType(elem);
  FailureOr<DistLayout> layout = blockLoadLayout(l, op);
  if (failed(layout))
    return failure();
  FailureOr<Value> padding = blockPadding(l, op, memType);
  if (failed(padding))
    return failure();
  // A predicate on the whole block (software pipelining).
  Value predicate = op.getMask() ? l.lookup(op.getMask()) : Value();
  SmallVector<int32_t> checks = boundaryChecks(op.getBoundaryCheck());
  int64_t elemBytes = l.storageBytes(elem);
  int64_t width =
      blockVectorWidth(l, *layout, op.getPtr(), elemBytes, checks);
  Type vectorType = width == 1 ? memType : VectorType::get({width}, memType);
  Value vectorPadding = *padding;
  if (width > 1)
    vectorPadding = b.create<LLVM::PoisonOp>(loc, vectorType);
  for (int64_t i = 0; width > 1 && i < width; ++i)
    vectorPadding = b.create<LLVM::InsertElementOp>(
        loc, vectorPadding, *padding, l.constI32(loc, i));
  SmallVector<Value> result;
  forEachBlockRegister(
      l, loc, *layout, l.lookup(op.getPtr()), elem, checks, width,
      [&](int64_t, Value address, Value inBounds) {
        inBounds = andValues(l, loc, inBounds, predicate);
        auto load = [&]() -> Value {
          return b.create<LLVM::LoadOp>(loc, vectorType, address,
                                        static_cast<unsigned>(width * elemBytes),
                                        op.getIsVolatile());
        };
        Value value = inBounds
                          ? conditionalValue(l, loc, vectorType, inBounds, load,
                                             [&] { return vectorPadding; })
                          : load();
        llvm::append_range(result,
                           unpackFromMemory(l, loc, value, elem, width));
      });
  l.setRegs(op.getResult(), result);
  return success();
}

LogicalResult lowerBlockAccess(DistLowerer &l, tile::StoreOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  // A block pointer addresses every element itself: the tile is stored
  // from the registers of the layout it was converted from (the
  // conversion was not lowered: DistLowerer::deferredConverts).
  Value stored = op.getValue();
  if (auto convert = stored.getDefiningOp<tile::ConvertLayoutOp>();
      convert && l.deferredConverts.contains(convert))
    stored = convert.getSrc();
  Type elem = cast<RankedTensorType>(stored.getType()).getElementType();
  FailureOr<DistLayout> layout = l.layoutOfValue(stored, loc);
  if (failed(layout))
    return failure();
  Value owner = layout->hasReplication() ? l.isOwner(*layout) : Value();
  ArrayRef<Value> values = l.regsOf(stored);
  SmallVector<int32_t> checks = boundaryChecks(op.getBoundaryCheck());
  int64_t elemBytes = l.storageBytes(elem);
  int64_t width =
      blockVectorWidth(l, *layout, op.getPtr(), elemBytes, checks);
  forEachBlockRegister(
      l, loc, *layout, l.lookup(op.getPtr()), elem, checks, width,
      [&](int64_t r, Value address, Value inBounds) {
        guarded(l, loc, andValues(l, loc, inBounds, owner), [&] {
          b.create<LLVM::StoreOp>(
              loc, packForMemory(l, loc, values.slice(r, width), elem),
              address, static_cast<unsigned>(width * elemBytes));
        });
      });
  return success();
}

LogicalResult lowerAtomic(DistLowerer &l, Operation *op, Value ptrs,
                          ArrayRef<Value> operands, Value mask) {
  Location loc = op->getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Type elem = type.getElementType();
  FailureOr<DistLayout> layout = l.layoutOf(type, loc);
  if (failed(layout))
    return failure();
  bool replicated = layout->hasReplication();
  Value owner = replicated ? l.isOwner(*layout) : Value();
  Type valueType = l.computeType(elem);
  SmallVector<Value> result;
  for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
    Value condition =
        andValues(l, loc, mask ? l.regsOf(mask)[r] : Value(), owner);
    SmallVector<Value> values;
    for (Value operand : operands)
      values.push_back(l.regsOf(operand)[r]);
    Value address = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(),
                                               l.regsOf(ptrs)[r]);
    if (!condition) {
      FailureOr<Value> old = buildAtomic(l, op, address, values);
      if (failed(old))
        return failure();
      result.push_back(*old);
      continue;
    }
    auto ifOp = b.create<scf::IfOp>(loc, valueType, condition, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      FailureOr<Value> old = buildAtomic(l, op, address, values);
      if (failed(old))
        return failure();
      b.create<scf::YieldOp>(loc, *old);
      b.setInsertionPointToStart(ifOp.elseBlock());
      b.create<scf::YieldOp>(loc, zeroOf(l, loc, valueType));
    }
    result.push_back(ifOp.getResult(0));
  }
  if (replicated && !op->getResult(0).use_empty()) {
    // The replicas read the old values the owners saw.
    OpBuilder::InsertionGuard guard(b);
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      Value index =
          l.linearIndex(loc, l.regCoords(loc, *layout, r), layout->shape);
      guarded(l, loc, owner,
              [&] { l.storeShared(loc, 0, elem, index, result[r]); });
    }
    l.reserveShared(type.getNumElements() * l.storageBytes(elem));
    l.barrier(loc);
    result = l.stageIn(loc, *layout, elem, 0, [&](ArrayRef<Value> coords) {
      return l.linearIndex(loc, coords, layout->shape);
    });
    l.barrier(loc);
  }
  l.setRegs(op->getResult(0), result);
  return success();
}

} // namespace

int64_t tegula::lowering::getBlockContiguousDim(DistLowerer &l,
                                                Value blockPointer) {
  // The order of every origin; the offsets' divisibility is not needed.
  SmallVector<tile::MakeTensorPtrOp> origins;
  llvm::DenseSet<Value> visited;
  int64_t unusedDivisibility = 1;
  if (!traceBlockPointer(l, blockPointer, 0, unusedDivisibility, origins,
                         visited) ||
      origins.empty())
    return -1;
  int64_t dim = -1;
  for (tile::MakeTensorPtrOp make : origins) {
    ArrayRef<int32_t> order = make.getOrder();
    if (order.empty() || (dim >= 0 && dim != order.front()))
      return -1;
    dim = order.front();
  }
  return dim;
}

LogicalResult tegula::lowering::copyLoadToShared(
    DistLowerer &l, tile::LoadOp op, const DistLayout &layout, bool &async,
    function_ref<Value(int64_t)> sharedAddress) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(op.getType());
  Type elem = type.getElementType();
  Type storage = l.storageType(elem);
  int64_t elemBytes = l.storageBytes(elem);
  bool block = isa<tile::PointerType>(op.getPtr().getType());
  SmallVector<int32_t> checks = boundaryChecks(op.getBoundaryCheck());
  if (block && op.getPadding() &&
      *op.getPadding() == tile::PaddingOption::nan)
    return l.unsupported(op, "NaN padding of a tile copied to shared memory");
  int64_t width =
      block ? blockVectorWidth(l, layout, op.getPtr(), elemBytes, checks)
            : vectorWidth(l, layout, op.getPtr(), op.getMask(), elemBytes);
  Type memType = width == 1 ? storage : VectorType::get({width}, storage);
  // Asynchronous copies zero-fill masked-off elements: only without
  // |other| (or with a zero one).
  const backend::AsyncCopy *copies = l.hooks.getAsyncCopy();
  async = copies && op.hasZeroOther() && !op.getIsVolatile();
  auto copy = [&](int64_t r, Value address, Value mask) -> LogicalResult {
    Value destination = sharedAddress(r);
    if (async && succeeded(copies->buildCopy(b, loc, destination, address,
                                             width * elemBytes, mask)))
      return success();
    if (async && r != 0)
      return l.unsupported(op, "the target's asynchronous copies failed "
                               "part way");
    async = false;
    auto load = [&]() -> Value {
      return b.create<LLVM::LoadOp>(loc, memType, address,
                                    static_cast<unsigned>(width * elemBytes),
                                    op.getIsVolatile());
    };
    Value packed;
    if (!mask)
      packed = load();
    else
      packed = conditionalValue(l, loc, memType, mask, load, [&] {
        if (op.getOther() && !block)
          return packForMemory(l, loc, l.regsOf(op.getOther()).slice(r, width),
                               elem);
        return zeroOf(l, loc, memType);
      });
    b.create<LLVM::StoreOp>(loc, packed, destination,
                            static_cast<unsigned>(width * elemBytes));
    return success();
  };
  LogicalResult result = success();
  if (block) {
    forEachBlockRegister(l, loc, layout, l.lookup(op.getPtr()), elem, checks,
                         width, [&](int64_t r, Value address, Value inBounds) {
                           if (succeeded(result))
                             result = copy(
                                 r, address,
                                 andValues(l, loc, inBounds,
                                           op.getMask() ? l.lookup(op.getMask())
                                                        : Value()));
                         });
    return result;
  }
  ArrayRef<Value> ptrs = l.regsOf(op.getPtr());
  for (int64_t r = 0; r < layout.getNumRegs() && succeeded(result);
       r += width) {
    Value address = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), ptrs[r]);
    result = copy(r, address, op.getMask() ? l.regsOf(op.getMask())[r]
                                           : Value());
  }
  return result;
}

std::optional<LogicalResult>
tegula::lowering::lowerDistMemory(DistLowerer &l, Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op); load && l.asyncLoads.count(op))
    return lowerAsyncOperandLoad(l, load);
  if (auto load = dyn_cast<tile::LoadOp>(op);
      load && l.deferredLoads.contains(op)) {
    // Copied to shared memory by its conversion (copyLoadToShared).
    l.setRegs(load.getResult(), {});
    return success();
  }
  if (std::optional<LogicalResult> result = lowerLoadOrStore(
          op, [&](auto access) { return lowerBlockAccess(l, access); },
          [&](auto access) { return lowerTileAccess(l, access); }))
    return result;
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
    return lowerAtomic(l, op, rmw.getPtr(), {rmw.getVal()}, rmw.getMask());
  if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
    return lowerAtomic(l, op, cas.getPtr(), {cas.getCmp(), cas.getVal()},
                       Value());
  return std::nullopt;
}
