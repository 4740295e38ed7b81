//===- LoadStore.cpp - Loads, stores and block pointers -------------------===//
//
// Tiles of pointers: where the axis analysis shows runs of contiguous
// addresses as long as a chunk, a chunk is one (masked) vector load or store
// from the run's first address; otherwise a (masked) gather or scatter.
// Masked-off lanes read |other| (zero without one) and never touch memory.
// Block pointers (tl.make_block_ptr) load and store element by element with
// the bounds checks their boundary_check asks for. The address, bounds check
// and padding of a block-pointer element, and the small builders around
// conditional code, are defined here for the distributed lowering as well.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// The alignment of a run starting at a pointer with |divisibility| bytes
/// known, for |bytes| of access.
unsigned accessAlignment(int64_t divisibility, int64_t elemBytes,
                         int64_t bytes) {
  int64_t align = std::max<int64_t>(1, std::min(divisibility, bytes));
  while (align & (align - 1))
    align &= align - 1;
  return static_cast<unsigned>(std::max(align, elemBytes));
}

/// How a tile of pointers is accessed chunk by chunk.
struct Access {
  int64_t width = 1;
  bool contiguous = false;
  unsigned alignment = 1;
};

Access planAccess(Lowerer &l, Value ptrs, RankedTensorType type,
                  Type pointee) {
  Access access;
  int64_t n = type.getNumElements();
  access.width = Lowerer::chunkWidth(n);
  int64_t elemBytes = l.storageBytes(pointee);
  access.alignment = static_cast<unsigned>(elemBytes);
  AxisInfo info = l.axisInfo.get(ptrs);
  int64_t last = type.getRank() - 1;
  if (info.isInitialized() && info.getRank() == type.getRank()) {
    int64_t contiguity = info.getContiguity(last);
    if (access.width > 1 && contiguity >= access.width &&
        type.getDimSize(last) % access.width == 0) {
      access.contiguous = true;
      access.alignment = accessAlignment(info.getDivisibility(last), elemBytes,
                                         access.width * elemBytes);
    }
  }
  return access;
}

/// Whether a chunk of |width| elements through the tile of pointers |ptrs|
/// is one contiguous access (only when the plan's chunks are that wide),
/// and its alignment.
std::pair<bool, unsigned> chunkAccess(Lowerer &l, Value ptrs, Type elem,
                                      int64_t width) {
  Access access =
      planAccess(l, ptrs, cast<RankedTensorType>(ptrs.getType()), elem);
  if (access.contiguous && access.width == width)
    return {true, access.alignment};
  return {false, static_cast<unsigned>(l.storageBytes(elem))};
}

/// Whether every lane of the mask chunk |mask| is set.
Value allLanes(Lowerer &l, Location loc, Value mask) {
  return l.b.create<LLVM::vector_reduce_and>(loc, l.b.getI1Type(), mask);
}

/// The vector of pointers of an i64 address chunk.
Value addressVector(Lowerer &l, Location loc, Value addresses, int64_t width) {
  return l.b.create<LLVM::IntToPtrOp>(
      loc, LLVM::getFixedVectorType(l.ptrType(), width), addresses);
}

LogicalResult lowerScalarAccess(Lowerer &l, tile::LoadOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  Type elem = op.getType();
  // A pointer loaded as a scalar is an !llvm.ptr, not an address.
  Type memType = isa<tile::PointerType>(elem) ? l.ptrType() : l.storageType(elem);
  Value ptr = l.lookup(op.getPtr());
  auto load = [&]() -> Value {
    Value value = b.create<LLVM::LoadOp>(loc, memType, ptr,
                                         l.storageBytes(elem),
                                         op.getIsVolatile());
    if (elem.isInteger(1))
      value = b.create<arith::TruncIOp>(loc, b.getI1Type(), value);
    return value;
  };
  if (!op.getMask()) {
    l.map.map(op.getResult(), load());
    return success();
  }
  Type resultType = l.scalarType(elem);
  Value value = conditionalValue(
      l, loc, resultType, l.lookup(op.getMask()), load, [&]() -> Value {
        if (op.getOther())
          return l.lookup(op.getOther());
        if (isa<LLVM::LLVMPointerType>(resultType))
          return b.create<LLVM::ZeroOp>(loc, resultType);
        return b.create<arith::ConstantOp>(loc, b.getZeroAttr(resultType));
      });
  l.map.map(op.getResult(), value);
  return success();
}

LogicalResult lowerScalarAccess(Lowerer &l, tile::StoreOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  Type elem = op.getValue().getType();
  Value value = l.lookup(op.getValue());
  if (elem.isInteger(1))
    value = b.create<arith::ExtUIOp>(loc, b.getI8Type(), value);
  auto store = [&]() {
    b.create<LLVM::StoreOp>(loc, value, l.lookup(op.getPtr()),
                            l.storageBytes(elem));
  };
  if (!op.getMask()) {
    store();
    return success();
  }
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, l.lookup(op.getMask()),
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  store();
  return success();
}

/// One chunk of a load through a tile of pointers. |operands|: the address
/// chunk, then the mask and |other| chunks when the op has them.
Value emitTileLoad(Lowerer &l, tile::LoadOp op, ArrayRef<Value> operands,
                   int64_t width) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  Type elem = cast<RankedTensorType>(op.getType()).getElementType();
  Type memType = l.storageType(elem);
  auto [contiguous, alignment] = chunkAccess(l, op.getPtr(), elem, width);
  Value addresses = operands[0];
  Value mask = op.getMask() ? operands[1] : Value();
  Value other;
  if (op.getOther()) {
    other = operands[op.getMask() ? 2 : 1];
    if (elem.isInteger(1))
      other = b.create<arith::ExtUIOp>(loc, l.chunkType(memType, width), other);
  } else {
    other =
        l.constantChunk(loc, cast<TypedAttr>(b.getZeroAttr(memType)), width);
  }
  Value value;
  if (width == 1) {
    Value ptr = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), addresses);
    auto loadOne = [&]() -> Value {
      return b.create<LLVM::LoadOp>(loc, memType, ptr, alignment,
                                    op.getIsVolatile());
    };
    value = mask ? conditionalValue(l, loc, memType, mask, loadOne,
                                    [&] { return other; })
                 : loadOne();
  } else {
    Type vecType = l.chunkType(memType, width);
    if (contiguous) {
      Value first = b.create<LLVM::ExtractElementOp>(loc, addresses,
                                                     l.constI32(loc, 0));
      Value base = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), first);
      if (!mask) {
        value = b.create<LLVM::LoadOp>(loc, vecType, base, alignment,
                                       op.getIsVolatile());
      } else {
        // Chunks inside the bounds (all but a tile's tail) take a plain
        // vector load: masked moves are slow on several CPUs.
        value = conditionalValue(
            l, loc, vecType, allLanes(l, loc, mask),
            [&]() -> Value {
              return b.create<LLVM::LoadOp>(loc, vecType, base, alignment,
                                            op.getIsVolatile());
            },
            [&]() -> Value {
              return b.create<LLVM::MaskedLoadOp>(
                  loc, vecType, base, mask, ValueRange{other}, alignment);
            });
      }
    } else {
      if (!mask)
        mask = l.constantChunk(loc, b.getBoolAttr(true), width);
      value = b.create<LLVM::masked_gather>(
          loc, vecType, addressVector(l, loc, addresses, width), mask,
          ValueRange{other}, b.getI32IntegerAttr(alignment));
    }
  }
  if (elem.isInteger(1))
    value = b.create<arith::TruncIOp>(loc, l.chunkType(b.getI1Type(), width),
                                      value);
  return value;
}

/// One chunk of a store through a tile of pointers. |operands|: the address
/// chunk, the value chunk, then the mask chunk when the op has one.
void emitTileStore(Lowerer &l, tile::StoreOp op, ArrayRef<Value> operands,
                   int64_t width) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  Type elem = cast<RankedTensorType>(op.getValue().getType()).getElementType();
  Type memType = l.storageType(elem);
  auto [contiguous, alignment] = chunkAccess(l, op.getPtr(), elem, width);
  Value addresses = operands[0];
  Value value = operands[1];
  Value mask = op.getMask() ? operands[2] : Value();
  if (elem.isInteger(1))
    value = b.create<arith::ExtUIOp>(loc, l.chunkType(memType, width), value);
  if (width == 1) {
    Value ptr = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), addresses);
    if (!mask) {
      b.create<LLVM::StoreOp>(loc, value, ptr, alignment);
      return;
    }
    auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, mask, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    b.create<LLVM::StoreOp>(loc, value, ptr, alignment);
    return;
  }
  if (contiguous) {
    Value first = b.create<LLVM::ExtractElementOp>(loc, addresses,
                                                   l.constI32(loc, 0));
    Value base = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), first);
    if (!mask) {
      b.create<LLVM::StoreOp>(loc, value, base, alignment);
      return;
    }
    // As for loads: a plain store when every lane is active.
    auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, allLanes(l, loc, mask),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    b.create<LLVM::StoreOp>(loc, value, base, alignment);
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    b.create<LLVM::MaskedStoreOp>(loc, value, base, mask,
                                  b.getI32IntegerAttr(alignment));
    return;
  }
  if (!mask)
    mask = l.constantChunk(loc, b.getBoolAttr(true), width);
  b.create<LLVM::masked_scatter>(loc, value,
                                 addressVector(l, loc, addresses, width), mask,
                                 b.getI32IntegerAttr(alignment));
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

} // namespace

BlockPointer tegula::lowering::unpackBlockPointer(Lowerer &l, Location loc,
                                                  Value packed,
                                                  unsigned rank) {
  OpBuilder &b = l.b;
  BlockPointer bp;
  bp.base = b.create<LLVM::ExtractValueOp>(loc, packed, ArrayRef<int64_t>{0});
  for (unsigned d = 0; d < rank; ++d) {
    int64_t i = d;
    bp.shape.push_back(
        b.create<LLVM::ExtractValueOp>(loc, packed, ArrayRef<int64_t>{1, i}));
    bp.strides.push_back(
        b.create<LLVM::ExtractValueOp>(loc, packed, ArrayRef<int64_t>{2, i}));
    bp.offsets.push_back(
        b.create<LLVM::ExtractValueOp>(loc, packed, ArrayRef<int64_t>{3, i}));
  }
  return bp;
}

Value tegula::lowering::conditionalValue(Lowerer &l, Location loc, Type type,
                                         Value condition,
                                         function_ref<Value()> thenValue,
                                         function_ref<Value()> elseValue) {
  OpBuilder &b = l.b;
  auto ifOp =
      b.create<scf::IfOp>(loc, type, condition, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  b.create<scf::YieldOp>(loc, thenValue());
  b.setInsertionPointToStart(ifOp.elseBlock());
  b.create<scf::YieldOp>(loc, elseValue());
  return ifOp.getResult(0);
}

void tegula::lowering::guarded(Lowerer &l, Location loc, Value condition,
                               function_ref<void()> body) {
  if (!condition) {
    body();
    return;
  }
  OpBuilder::InsertionGuard guard(l.b);
  auto ifOp = l.b.create<scf::IfOp>(loc, TypeRange{}, condition, false);
  l.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

Value tegula::lowering::andValues(Lowerer &l, Location loc, Value a, Value b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return l.b.create<arith::AndIOp>(loc, a, b);
}

bool tegula::lowering::isBlockPointer(Value ptr) {
  auto type = dyn_cast<tile::PointerType>(ptr.getType());
  return type && isa<RankedTensorType>(type.getPointeeType());
}

SmallVector<int32_t>
tegula::lowering::boundaryChecks(std::optional<ArrayRef<int32_t>> checks) {
  if (!checks)
    return {};
  return SmallVector<int32_t>(checks->begin(), checks->end());
}

Value tegula::lowering::blockElementAddress(
    Lowerer &l, Location loc, const BlockPointer &bp, Type elem,
    ArrayRef<int32_t> boundaryCheck, function_ref<Value(int64_t d)> element,
    Value &inBounds) {
  OpBuilder &b = l.b;
  Type i64 = b.getI64Type();
  int64_t rank = bp.offsets.size();
  Value blockPart = l.constI64(loc, 0), elementPart = l.constI64(loc, 0);
  SmallVector<Value> elements;
  for (int64_t d = 0; d < rank; ++d) {
    elements.push_back(element(d));
    Value offset = b.create<arith::ExtSIOp>(loc, i64, bp.offsets[d]);
    blockPart = b.create<arith::AddIOp>(
        loc, blockPart, b.create<arith::MulIOp>(loc, offset, bp.strides[d]));
    elementPart = b.create<arith::AddIOp>(
        loc, elementPart,
        b.create<arith::MulIOp>(loc, elements.back(), bp.strides[d]));
  }
  inBounds = Value();
  for (int64_t d = 0; d < rank; ++d) {
    Value at = b.create<arith::AddIOp>(
        loc, b.create<arith::ExtSIOp>(loc, i64, bp.offsets[d]), elements[d]);
    if (llvm::is_contained(boundaryCheck, static_cast<int32_t>(d))) {
      Value low = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, at,
                                          l.constI64(loc, 0));
      Value high = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, at,
                                           bp.shape[d]);
      inBounds =
          andValues(l, loc, inBounds, b.create<arith::AndIOp>(loc, low, high));
    }
  }
  return b.create<LLVM::GEPOp>(
      loc, l.ptrType(), l.storageType(elem), bp.base,
      ValueRange{b.create<arith::AddIOp>(loc, blockPart, elementPart)});
}

FailureOr<Value> tegula::lowering::blockPadding(Lowerer &l, tile::LoadOp op,
                                                Type memType) {
  OpBuilder &b = l.b;
  Location loc = op.getLoc();
  if (!op.getPadding() || *op.getPadding() != tile::PaddingOption::nan)
    return b.create<arith::ConstantOp>(loc, b.getZeroAttr(memType)).getResult();
  auto floatType = dyn_cast<FloatType>(memType);
  if (!floatType)
    return l.unsupported(op, "NaN padding of a non-float tile");
  return b
      .create<arith::ConstantOp>(
          loc, b.getFloatAttr(floatType,
                              APFloat::getNaN(floatType.getFloatSemantics())))
      .getResult();
}

namespace {

/// For each element of the block: its address and whether the checked
/// dimensions are in bounds (null when nothing is checked).
void forEachBlockElement(
    Lowerer &l, Location loc, const BlockPointer &bp, Type elem,
    ArrayRef<int64_t> shape, ArrayRef<int32_t> boundaryCheck,
    llvm::function_ref<void(Value linear, Value address, Value inBounds)>
        body) {
  l.forEachIndex(loc, shape, [&](ArrayRef<Value> indices) {
    Value inBounds;
    Value address = blockElementAddress(
        l, loc, bp, elem, boundaryCheck,
        [&](int64_t d) -> Value { return indices[d]; }, inBounds);
    body(l.linearize(loc, indices, shape), address, inBounds);
  });
}

LogicalResult lowerBlockAccess(Lowerer &l, tile::LoadOp op) {
  auto ptrType = cast<tile::PointerType>(op.getPtr().getType());
  if (op.getMask())
    return l.unsupported(op, "a predicated block-pointer load in the "
                             "one-thread lowering");
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(ptrType.getPointeeType());
  Type elem = type.getElementType();
  Type memType = l.storageType(elem);
  Value buffer = l.allocTile(loc, type, op.getResult());
  BlockPointer bp = unpackBlockPointer(l, loc, l.lookup(op.getPtr()), type.getRank());
  SmallVector<int32_t> checks = boundaryChecks(op.getBoundaryCheck());
  FailureOr<Value> padding = blockPadding(l, op, memType);
  if (failed(padding))
    return failure();
  forEachBlockElement(
      l, loc, bp, elem, type.getShape(), checks,
      [&](Value linear, Value address, Value inBounds) {
        auto loadOne = [&]() -> Value {
          return b.create<LLVM::LoadOp>(loc, memType, address,
                                        l.storageBytes(elem),
                                        op.getIsVolatile());
        };
        Value value = inBounds
                          ? conditionalValue(l, loc, memType, inBounds, loadOne,
                                             [&] { return *padding; })
                          : loadOne();
        b.create<LLVM::StoreOp>(loc, value,
                                l.elementAddress(loc, buffer, elem, linear),
                                l.storageBytes(elem));
      });
  l.map.map(op.getResult(), buffer);
  return success();
}

LogicalResult lowerBlockAccess(Lowerer &l, tile::StoreOp op) {
  auto ptrType = cast<tile::PointerType>(op.getPtr().getType());
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto type = cast<RankedTensorType>(ptrType.getPointeeType());
  Type elem = type.getElementType();
  Type memType = l.storageType(elem);
  BlockPointer bp = unpackBlockPointer(l, loc, l.lookup(op.getPtr()), type.getRank());
  SmallVector<int32_t> checks = boundaryChecks(op.getBoundaryCheck());
  Value values = l.lookup(op.getValue());
  forEachBlockElement(
      l, loc, bp, elem, type.getShape(), checks,
      [&](Value linear, Value address, Value inBounds) {
        guarded(l, loc, inBounds, [&] {
          Value value = b.create<LLVM::LoadOp>(
              loc, memType, l.elementAddress(loc, values, elem, linear),
              l.storageBytes(elem));
          b.create<LLVM::StoreOp>(loc, value, address, l.storageBytes(elem));
        });
      });
  return success();
}

} // namespace

FailureOr<Value> tegula::lowering::emitLoadStoreChunk(Lowerer &l,
                                                     Operation *op,
                                                     ArrayRef<Value> operands,
                                                     int64_t width) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return emitTileLoad(l, load, operands, width);
  emitTileStore(l, cast<tile::StoreOp>(op), operands, width);
  return Value();
}

std::optional<LogicalResult>
tegula::lowering::lowerLoadStoreFamily(Lowerer &l, Operation *op) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  if (std::optional<LogicalResult> result = lowerLoadOrStore(
          op, [&](auto access) { return lowerBlockAccess(l, access); },
          [&](auto access) { return lowerScalarAccess(l, access); }))
    return result;
  if (auto make = dyn_cast<tile::MakeTensorPtrOp>(op)) {
    auto ptrType = cast<tile::PointerType>(make.getType());
    Value packed = b.create<LLVM::UndefOp>(loc, l.blockPtrType(ptrType));
    packed = b.create<LLVM::InsertValueOp>(loc, packed, l.lookup(make.getBase()),
                                           ArrayRef<int64_t>{0});
    for (auto [field, values] :
         llvm::enumerate(std::array<ValueRange, 3>{
             make.getShape(), make.getStrides(), make.getOffsets()}))
      for (auto [d, value] : llvm::enumerate(values))
        packed = b.create<LLVM::InsertValueOp>(
            loc, packed, l.lookup(value),
            ArrayRef<int64_t>{static_cast<int64_t>(field) + 1,
                              static_cast<int64_t>(d)});
    l.map.map(make.getResult(), packed);
    return success();
  }
  if (auto advance = dyn_cast<tile::AdvanceOp>(op)) {
    Value packed = l.lookup(advance.getPtr());
    for (auto [d, delta] : llvm::enumerate(advance.getOffsets())) {
      SmallVector<int64_t, 2> position{3, static_cast<int64_t>(d)};
      Value current = b.create<LLVM::ExtractValueOp>(loc, packed, position);
      // No signed wrap, as Triton's offsets (64-bit there) never wrap: it
      // lets LLVM see an advance in a loop as an induction variable and
      // step the addresses instead of recomputing them.
      Value next = b.create<arith::AddIOp>(loc, current, l.lookup(delta),
                                           arith::IntegerOverflowFlags::nsw);
      packed = b.create<LLVM::InsertValueOp>(loc, packed, next, position);
    }
    l.map.map(advance.getResult(), packed);
    return success();
  }
  if (isa<tile::MakeTensorDescOp, tile::DescriptorLoadOp,
          tile::DescriptorStoreOp>(op))
    return l.unsupported(op, "tensor descriptors are not supported by this "
                             "lowering yet");
  return std::nullopt;
}
