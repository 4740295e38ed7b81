//===- BoundsCheck.cpp - the tile-bounds-check pass (debug mode) ----------===//
//
// Each pointer argument gets two hidden i64 arguments, the byte offsets (from
// the pointer) of the first and one past the last byte of its buffer; each
// access through pointers checks its enabled elements against the buffers
// of the arguments it may derive from and reports the smallest offending
// element index with tile.out_of_bounds. The check is written in tile IR, so
// every target lowers it with the ops it already has; only reporting the
// failure is a target hook (TargetHooks::buildBoundsFailure).
//
//===----------------------------------------------------------------------===//

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace tegula::tile {
#define GEN_PASS_DEF_TILEBOUNDSCHECK
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;
using namespace tegula::tile;

namespace {

/// A pointer argument and its buffer: the pointer as an integer and the
/// hidden arguments bounding its buffer (bytes from the pointer).
struct Buffer {
  Value address, begin, end;
  std::string name;
};

/// The pointee of a pointer or a tensor of pointers, or null for anything
/// else (block pointers included).
Type scalarPointee(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  auto pointer = dyn_cast<PointerType>(type);
  if (!pointer || pointer.isBlockPointer())
    return {};
  return pointer.getPointeeType();
}

/// The bytes one element of |pointee| takes in memory, or 0 when unknown.
int64_t elementBytes(Type pointee) {
  if (isa<PointerType>(pointee))
    return 8;
  if (pointee.isIntOrFloat())
    return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
  return 0;
}

/// The name the front end gave argument |arg| (a NameLoc), else "argument N".
std::string argumentName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return "'" + name.getName().str() + "'";
  return "argument " + std::to_string(arg.getArgNumber());
}

/// The kernel arguments pointer |value| may be computed from, walking back
/// through the ops that carry addresses; |unknown| is set when some path
/// leaves them (an address loaded from memory, made from an integer, ...).
class Provenance {
public:
  explicit Provenance(FuncOp kernel) : kernel(kernel) {}

  void trace(Value value, llvm::SetVector<unsigned> &args, bool &unknown) {
    llvm::DenseSet<Value> seen;
    SmallVector<Value> work{value};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (!step(v, args, work))
        unknown = true;
    }
  }

private:
  /// Pushes the values |v| comes from; false when it cannot tell.
  bool step(Value v, llvm::SetVector<unsigned> &args,
            SmallVectorImpl<Value> &work) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (parent == kernel.getOperation() &&
          arg.getOwner() == &kernel.getBody().front()) {
        args.insert(arg.getArgNumber());
        return true;
      }
      if (auto loop = dyn_cast<scf::ForOp>(parent)) {
        if (arg == loop.getInductionVar())
          return false;
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[i]);
        work.push_back(loop.getYieldedValues()[i]);
        return true;
      }
      if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
        unsigned i = arg.getArgNumber();
        if (arg.getOwner() == loop.getBeforeBody()) {
          work.push_back(loop.getInits()[i]);
          work.push_back(loop.getYieldOp().getOperand(i));
        } else {
          work.push_back(loop.getConditionOp().getArgs()[i]);
        }
        return true;
      }
      return false;
    }
    Operation *def = v.getDefiningOp();
    unsigned i = cast<OpResult>(v).getResultNumber();
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      work.push_back(loop.getInitArgs()[i]);
      work.push_back(loop.getYieldedValues()[i]);
      return true;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      work.push_back(branch.thenYield().getOperand(i));
      if (!branch.getElseRegion().empty())
        work.push_back(branch.elseYield().getOperand(i));
      return true;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(def)) {
      work.push_back(loop.getConditionOp().getArgs()[i]);
      return true;
    }
    if (auto add = dyn_cast<AddPtrOp>(def)) {
      work.push_back(add.getPtr());
      return true;
    }
    if (def->getNumRegions() || isa<LoadOp, IntToPtrOp, CallOp, AtomicRMWOp,
                                    AtomicCASOp>(def))
      return false;
    // Shape ops, selects, bitcasts, layout conversions: from their pointer
    // operands.
    bool any = false;
    for (Value operand : def->getOperands())
      if (scalarPointee(operand.getType())) {
        work.push_back(operand);
        any = true;
      }
    return any;
  }

  FuncOp kernel;
};

class Checker {
public:
  Checker(FuncOp kernel, ArrayRef<Buffer> buffers,
          ArrayRef<unsigned> pointerArgs)
      : buffers(buffers), pointerArgs(pointerArgs), provenance(kernel) {}

  /// Checks the access |op| through |ptr| under |mask| (null: every
  /// element); returns the mask it should take so that no element outside
  /// the buffers is touched (|mask| and inside), or null when unchanged.
  Value check(Operation *op, Value ptr, Value mask, llvm::StringRef verb) {
    Type pointee = scalarPointee(ptr.getType());
    int64_t size = pointee ? elementBytes(pointee) : 0;
    if (!size)
      return {};
    llvm::SetVector<unsigned> args;
    bool unknown = false;
    provenance.trace(ptr, args, unknown);
    SmallVector<const Buffer *> candidates;
    if (!unknown) // in the arguments' order: the first names the report
      for (auto [i, arg] : llvm::enumerate(pointerArgs))
        if (args.contains(arg))
          candidates.push_back(&buffers[i]);
    if (unknown || candidates.empty())
      for (const Buffer &buffer : buffers)
        candidates.push_back(&buffer);
    if (candidates.empty())
      return {};

    Location loc = op->getLoc();
    OpBuilder b(op);
    auto tensor = dyn_cast<RankedTensorType>(ptr.getType());
    Type i64 = b.getI64Type();
    Type i64Like = tensor ? Type(RankedTensorType::get(tensor.getShape(), i64))
                          : i64;
    Type i1Like = tensor ? Type(RankedTensorType::get(tensor.getShape(),
                                                      b.getI1Type()))
                         : b.getI1Type();
    auto constant = [&](int64_t value, Type type) -> Value {
      if (auto t = dyn_cast<RankedTensorType>(type))
        return b.create<arith::ConstantOp>(
            loc, DenseElementsAttr::get(t, b.getIntegerAttr(
                                               t.getElementType(), value)));
      return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, value));
    };
    auto splat = [&](Value scalar, Type type) -> Value {
      if (!tensor)
        return scalar;
      return b.create<SplatOp>(loc, type, scalar);
    };

    Value address = b.create<PtrToIntOp>(loc, i64Like, ptr);
    Value sizeValue = constant(size, i64Like);
    Value inside, firstOffset;
    for (const Buffer *buffer : candidates) {
      Value offset =
          b.create<arith::SubIOp>(loc, address, splat(buffer->address, i64Like));
      Value last = b.create<arith::SubIOp>(loc, splat(buffer->end, i64Like),
                                           sizeValue);
      Value in = b.create<arith::AndIOp>(
          loc,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, offset,
                                  splat(buffer->begin, i64Like)),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, offset, last));
      inside = inside ? b.create<arith::OrIOp>(loc, inside, in).getResult() : in;
      if (!firstOffset)
        firstOffset = offset;
    }
    Value bad = b.create<arith::XOrIOp>(loc, inside, constant(1, i1Like));
    if (mask)
      bad = b.create<arith::AndIOp>(loc, bad, mask);
    Value index = b.create<arith::DivSIOp>(loc, firstOffset, sizeValue);
    Value none = constant(std::numeric_limits<int64_t>::max(), i64Like);
    Value first = b.create<arith::SelectOp>(loc, bad, index, none);
    // The smallest offending index, one axis at a time down to a scalar.
    while (auto type = dyn_cast<RankedTensorType>(first.getType())) {
      auto reduce = b.create<ReduceOp>(loc, ValueRange{first}, 0u);
      OpBuilder::InsertionGuard guard(b);
      Block *block = b.createBlock(&reduce.getCombineOp(), {}, {i64, i64},
                                   {loc, loc});
      Value min = b.create<arith::MinSIOp>(loc, block->getArgument(0),
                                           block->getArgument(1));
      b.create<ReduceReturnOp>(loc, ValueRange{min});
      first = reduce.getResult()[0];
    }
    Value failed = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne, first,
        constant(std::numeric_limits<int64_t>::max(), i64));
    const Buffer &reported = *candidates.front();
    Value sizeScalar = constant(size, i64);
    Value begin = b.create<arith::DivSIOp>(loc, reported.begin, sizeScalar);
    Value end = b.create<arith::DivSIOp>(loc, reported.end, sizeScalar);
    std::string access = verb.str() + " " + reported.name;
    if (candidates.size() > 1)
      access += " (or " + std::to_string(candidates.size() - 1) +
                " other buffer" + (candidates.size() > 2 ? "s" : "") + ")";
    b.create<OutOfBoundsOp>(loc, failed, first, begin, end,
                            b.getStringAttr(access));
    // A target may report the failure and go on (the host finishes the
    // program): the offending elements must not be touched meanwhile.
    return mask ? b.create<arith::AndIOp>(loc, mask, inside).getResult()
                : inside;
  }

private:
  ArrayRef<Buffer> buffers;
  ArrayRef<unsigned> pointerArgs;
  Provenance provenance;
};

void checkKernel(FuncOp kernel) {
  Block &entry = kernel.getBody().front();
  SmallVector<unsigned> pointerArgs;
  for (BlockArgument arg : entry.getArguments())
    if (isa<PointerType>(arg.getType()) && scalarPointee(arg.getType()))
      pointerArgs.push_back(arg.getArgNumber());
  if (pointerArgs.empty())
    return;

  OpBuilder b(kernel.getContext());
  Type i64 = b.getI64Type();
  Location loc = kernel.getLoc();
  SmallVector<Buffer> buffers;
  for (unsigned index : pointerArgs) {
    Buffer buffer;
    buffer.name = argumentName(entry.getArgument(index));
    for (Value *bound : {&buffer.begin, &buffer.end}) {
      unsigned position = kernel.getNumArguments();
      kernel.insertArgument(position, i64, b.getDictionaryAttr({}), loc);
      *bound = entry.getArgument(position);
    }
    buffers.push_back(std::move(buffer));
  }
  b.setInsertionPointToStart(&entry);
  for (auto [buffer, index] : llvm::zip(buffers, pointerArgs))
    buffer.address =
        b.create<PtrToIntOp>(loc, i64, entry.getArgument(index));

  Checker checker(kernel, buffers, pointerArgs);
  SmallVector<Operation *> accesses;
  kernel.walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp>(op))
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (Value mask =
              checker.check(op, load.getPtr(), load.getMask(), "load from"))
        load.getMaskMutable().assign(mask);
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (Value mask =
              checker.check(op, store.getPtr(), store.getMask(), "store to"))
        store.getMaskMutable().assign(mask);
    } else if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
      if (Value mask = checker.check(op, atomic.getPtr(), atomic.getMask(),
                                     "atomic on"))
        atomic.getMaskMutable().assign(mask);
    } else if (auto cas = dyn_cast<AtomicCASOp>(op)) {
      // No mask to narrow: reported, not prevented.
      checker.check(op, cas.getPtr(), Value(), "atomic on");
    }
  }
}

struct TileBoundsCheckPass
    : public tegula::tile::impl::TileBoundsCheckBase<TileBoundsCheckPass> {
  void runOnOperation() override {
    getOperation().walk([](FuncOp fn) {
      if (fn.isKernel() && !fn.isExternal())
        checkKernel(fn);
    });
  }
};

} // namespace
