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

namespace {

/// The LLVM operation of an atomic_rmw on |elem|, or failure (reported).
FailureOr<LLVM::AtomicBinOp> rmwKindOf(Lowerer &l, tile::AtomicRMWOp rmw) {
  Type elem = getElementTypeOrSelf(rmw.getVal().getType());
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elem) || elem.isInteger(1))
    return l.unsupported(rmw, "atomics on this element type");
  LLVM::AtomicBinOp kind = binOpOf(rmw.getKind());
  if (!isa<FloatType>(elem))
    return kind;
  // Float max/min (the front end uses integer atomics for tl.atomic_max on
  // floats; hand-written IR may not).
  if (kind == LLVM::AtomicBinOp::max || kind == LLVM::AtomicBinOp::umax)
    return LLVM::AtomicBinOp::fmax;
  if (kind == LLVM::AtomicBinOp::min || kind == LLVM::AtomicBinOp::umin)
    return LLVM::AtomicBinOp::fmin;
  if (kind != LLVM::AtomicBinOp::fadd && kind != LLVM::AtomicBinOp::xchg)
    return l.unsupported(rmw, "this atomic on floats");
  return kind;
}

LogicalResult checkCAS(Lowerer &l, tile::AtomicCASOp cas) {
  Type elem = getElementTypeOrSelf(cas.getVal().getType());
  if (!isa<IntegerType, FloatType>(elem) || elem.isInteger(1) ||
      isa<Float8E4M3FNType, Float8E5M2Type>(elem))
    return l.unsupported(cas, "compare-and-swap on this element type");
  return success();
}

backend::MemoryOrder memoryOrderOf(tile::MemSemantic sem) {
  switch (sem) {
  case tile::MemSemantic::relaxed:
    return backend::MemoryOrder::Relaxed;
  case tile::MemSemantic::acquire:
    return backend::MemoryOrder::Acquire;
  case tile::MemSemantic::release:
    return backend::MemoryOrder::Release;
  case tile::MemSemantic::acq_rel:
    return backend::MemoryOrder::AcquireRelease;
  }
  return backend::MemoryOrder::AcquireRelease;
}

backend::MemoryScope memoryScopeOf(tile::MemSyncScope scope) {
  switch (scope) {
  case tile::MemSyncScope::cta:
    return backend::MemoryScope::Block;
  case tile::MemSyncScope::sys:
    return backend::MemoryScope::System;
  default:
    return backend::MemoryScope::Device;
  }
}

Value buildUnfenced(Lowerer &l, Operation *op, LLVM::AtomicBinOp kind,
                    Value ptr, ArrayRef<Value> values,
                    backend::MemoryScope scope);

/// Builds the atomic of |op| on |ptr| once its checks passed, with the
/// target's fences around it.
Value buildChecked(Lowerer &l, Operation *op, LLVM::AtomicBinOp kind,
                   Value ptr, ArrayRef<Value> values) {
  tile::MemSemantic sem;
  tile::MemSyncScope scope;
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op)) {
    sem = rmw.getSem();
    scope = rmw.getScope();
  } else {
    auto cas = cast<tile::AtomicCASOp>(op);
    sem = cas.getSem();
    scope = cas.getScope();
  }
  l.hooks.buildAtomicFence(l.b, op->getLoc(), /*before=*/true,
                           memoryOrderOf(sem), memoryScopeOf(scope));
  Value old = buildUnfenced(l, op, kind, ptr, values, memoryScopeOf(scope));
  l.hooks.buildAtomicFence(l.b, op->getLoc(), /*before=*/false,
                           memoryOrderOf(sem), memoryScopeOf(scope));
  return old;
}

/// The atomic operation of |op| alone, in the target's synchronization
/// scope for |scope|.
Value buildUnfenced(Lowerer &l, Operation *op, LLVM::AtomicBinOp kind,
                    Value ptr, ArrayRef<Value> values,
                    backend::MemoryScope scope) {
  OpBuilder &b = l.b;
  Location loc = op->getLoc();
  StringRef syncScope = l.hooks.getAtomicSyncScope(scope);
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
    return b.create<LLVM::AtomicRMWOp>(loc, kind, ptr, values[0],
                                       orderingOf(rmw.getSem()), syncScope);
  auto cas = cast<tile::AtomicCASOp>(op);
  Type elem = getElementTypeOrSelf(cas.getVal().getType());
  Type bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
  Value cmp = values[0], val = values[1];
  if (cmp.getType() != bits) {
    cmp = b.create<arith::BitcastOp>(loc, bits, cmp);
    val = b.create<arith::BitcastOp>(loc, bits, val);
  }
  auto xchg = b.create<LLVM::AtomicCmpXchgOp>(
      loc, ptr, cmp, val, orderingOf(cas.getSem()),
      failureOrderingOf(cas.getSem()), syncScope);
  Value old = b.create<LLVM::ExtractValueOp>(loc, xchg, ArrayRef<int64_t>{0});
  if (old.getType() != elem)
    old = b.create<arith::BitcastOp>(loc, elem, old);
  return old;
}

/// The checks of |op| (atomic_rmw or atomic_cas) and its LLVM operation.
FailureOr<LLVM::AtomicBinOp> checkAtomic(Lowerer &l, Operation *op) {
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
    return rmwKindOf(l, rmw);
  if (failed(checkCAS(l, cast<tile::AtomicCASOp>(op))))
    return failure();
  return LLVM::AtomicBinOp::xchg;
}

} // namespace

FailureOr<Value> tegula::lowering::buildAtomic(Lowerer &l, Operation *op,
                                               Value ptr,
                                               ArrayRef<Value> values) {
  FailureOr<LLVM::AtomicBinOp> kind = checkAtomic(l, op);
  if (failed(kind))
    return failure();
  return buildChecked(l, op, *kind, ptr, values);
}

std::optional<LogicalResult>
tegula::lowering::lowerAtomicFamily(Lowerer &l, Operation *op) {
  if (!isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
    return std::nullopt;
  FailureOr<LLVM::AtomicBinOp> kind = checkAtomic(l, op);
  if (failed(kind))
    return failure();
  auto body = [&](Value ptr, ArrayRef<Value> values) {
    return buildChecked(l, op, *kind, ptr, values);
  };
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
    return forEachAtomic(l, op, rmw.getPtr(), {rmw.getVal()}, rmw.getMask(),
                         getElementTypeOrSelf(rmw.getVal().getType()), body);
  auto cas = cast<tile::AtomicCASOp>(op);
  return forEachAtomic(l, op, cas.getPtr(), {cas.getCmp(), cas.getVal()},
                       Value(), getElementTypeOrSelf(cas.getVal().getType()),
                       body);
}
