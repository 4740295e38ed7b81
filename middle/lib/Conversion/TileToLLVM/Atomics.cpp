//===- Atomics.cpp - atomic_rmw and atomic_cas ----------------------------===//
//
// Element by element, in order: an LLVM atomicrmw or cmpxchg per active
// lane, with the op's memory ordering. Masked-off lanes do not touch memory
// and read 0. Float compare-and-swap compares bits, as GPUs do.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

LLVM::AtomicOrdering orderingOf(tile::MemSemantic sem) {
  switch (sem) {
  case tile::MemSemantic::relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case tile::MemSemantic::acquire:
    return LLVM::AtomicOrdering::acquire;
  case tile::MemSemantic::release:
    return LLVM::AtomicOrdering::release;
  case tile::MemSemantic::acq_rel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::acq_rel;
}

LLVM::AtomicOrdering failureOrderingOf(tile::MemSemantic sem) {
  switch (sem) {
  case tile::MemSemantic::acquire:
  case tile::MemSemantic::acq_rel:
    return LLVM::AtomicOrdering::acquire;
  default:
    return LLVM::AtomicOrdering::monotonic;
  }
}

LLVM::AtomicBinOp binOpOf(tile::RMWKind kind) {
  switch (kind) {
  case tile::RMWKind::add:
    return LLVM::AtomicBinOp::add;
  case tile::RMWKind::fadd:
    return LLVM::AtomicBinOp::fadd;
  case tile::RMWKind::and_:
    return LLVM::AtomicBinOp::_and;
  case tile::RMWKind::or_:
    return LLVM::AtomicBinOp::_or;
  case tile::RMWKind::xor_:
    return LLVM::AtomicBinOp::_xor;
  case tile::RMWKind::max:
    return LLVM::AtomicBinOp::max;
  case tile::RMWKind::min:
    return LLVM::AtomicBinOp::min;
  case tile::RMWKind::umax:
    return LLVM::AtomicBinOp::umax;
  case tile::RMWKind::umin:
    return LLVM::AtomicBinOp::umin;
  case tile::RMWKind::xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  return LLVM::AtomicBinOp::xchg;
}

/// Runs |body| (pointer, operand values, returns the old value) for each
/// element; masked-off elements read 0. Operands are old values (tiles or
/// scalars); the result goes to a new tile or a scalar.
LogicalResult forEachAtomic(
    Lowerer &l, Operation *op, Value ptrs, ArrayRef<Value> operands,
    Value mask, Type elem,
    llvm::function_ref<Value(Value ptr, ArrayRef<Value> values)> body) {
  Location loc = op->getLoc();
  OpBuilder &b = l.b;
  auto tileType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  Type valueType = tileType ? l.computeType(elem) : l.scalarType(elem);
  auto element = [&](Value index) -> Value {
    auto read = [&](Value old) -> Value {
      if (auto type = dyn_cast<RankedTensorType>(old.getType()))
        return l.loadChunk(loc, l.lookup(old), type.getElementType(), index, 1);
      return l.lookup(old);
    };
    Value ptr = read(ptrs);
    if (tileType)
      ptr = b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), ptr);
    SmallVector<Value> values;
    for (Value operand : operands)
      values.push_back(read(operand));
    if (!mask)
      return body(ptr, values);
    auto ifOp = b.create<scf::IfOp>(loc, valueType, read(mask), true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    b.create<scf::YieldOp>(loc, body(ptr, values));
    b.setInsertionPointToStart(ifOp.elseBlock());
    Value zero =
        isa<LLVM::LLVMPointerType>(valueType)
            ? b.create<LLVM::ZeroOp>(loc, valueType).getResult()
            : b.create<arith::ConstantOp>(loc, b.getZeroAttr(valueType))
                  .getResult();
    b.create<scf::YieldOp>(loc, zero);
    return ifOp.getResult(0);
  };
  if (!tileType) {
    l.map.map(op->getResult(0), element({}));
    return success();
  }
  Value buffer = l.allocTile(loc, tileType, op->getResult(0));
  l.forEachChunk(loc, tileType.getNumElements(), 1, [&](Value index) {
    l.storeChunk(loc, buffer, elem, index, element(index));
  });
  l.map.map(op->getResult(0), buffer);
  return success();
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerAtomicFamily(Lowerer &l, Operation *op) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op)) {
    Type elem = getElementTypeOrSelf(rmw.getVal().getType());
    if (isa<Float8E4M3FNType, Float8E5M2Type>(elem) || elem.isInteger(1))
      return l.unsupported(op, "atomics on this element type");
    LLVM::AtomicBinOp kind = binOpOf(rmw.getKind());
    if (isa<FloatType>(elem)) {
      // Float max/min (the front end uses integer atomics for tl.atomic_max
      // on floats; hand-written IR may not).
      if (kind == LLVM::AtomicBinOp::max || kind == LLVM::AtomicBinOp::umax)
        kind = LLVM::AtomicBinOp::fmax;
      else if (kind == LLVM::AtomicBinOp::min ||
               kind == LLVM::AtomicBinOp::umin)
        kind = LLVM::AtomicBinOp::fmin;
      else if (kind != LLVM::AtomicBinOp::fadd &&
               kind != LLVM::AtomicBinOp::xchg)
        return l.unsupported(op, "this atomic on floats");
    }
    LLVM::AtomicOrdering ordering = orderingOf(rmw.getSem());
    return forEachAtomic(l, op, rmw.getPtr(), {rmw.getVal()}, rmw.getMask(),
                         elem, [&](Value ptr, ArrayRef<Value> values) {
                           return b
                               .create<LLVM::AtomicRMWOp>(loc, kind, ptr,
                                                          values[0], ordering)
                               .getResult();
                         });
  }
  if (auto cas = dyn_cast<tile::AtomicCASOp>(op)) {
    Type elem = getElementTypeOrSelf(cas.getVal().getType());
    if (!isa<IntegerType, FloatType>(elem) || elem.isInteger(1) ||
        isa<Float8E4M3FNType, Float8E5M2Type>(elem))
      return l.unsupported(op, "compare-and-swap on this element type");
    Type bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
    LLVM::AtomicOrdering success = orderingOf(cas.getSem());
    LLVM::AtomicOrdering failure = failureOrderingOf(cas.getSem());
    return forEachAtomic(
        l, op, cas.getPtr(), {cas.getCmp(), cas.getVal()}, Value(), elem,
        [&](Value ptr, ArrayRef<Value> values) {
          Value cmp = values[0], val = values[1];
          if (cmp.getType() != bits) {
            cmp = b.create<arith::BitcastOp>(loc, bits, cmp);
            val = b.create<arith::BitcastOp>(loc, bits, val);
          }
          auto xchg = b.create<LLVM::AtomicCmpXchgOp>(loc, ptr, cmp, val,
                                                      success, failure);
          Value old = b.create<LLVM::ExtractValueOp>(loc, xchg,
                                                     ArrayRef<int64_t>{0});
          if (old.getType() != elem)
            old = b.create<arith::BitcastOp>(loc, elem, old);
          return old;
        });
  }
  return std::nullopt;
}
