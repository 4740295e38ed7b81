//===- TileDialect.cpp - the tile dialect ---------------------------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace tegula::tile;

#include "tegula/Dialect/Tile/IR/TileDialect.cpp.inc"

namespace tegula::tile {
void addTileBytecodeInterface(TileDialect *dialect);
} // namespace tegula::tile

namespace {
/// Lets the inliner inline `tile.call`s of `tile.func`s and move tile ops
/// between regions. Functions marked `noinline` stay calls.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    auto func = dyn_cast<FuncOp>(callable);
    return !func || !func.getNoinline();
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  /// A `tile.return` in a block with a single-block body becomes the values
  /// it returns.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto returnOp = cast<ReturnOp>(op);
    for (auto [from, to] : llvm::zip(valuesToRepl, returnOp.getSrcs()))
      from.replaceAllUsesWith(to);
  }
  /// A `tile.return` in a multi-block body branches to the continuation.
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto returnOp = dyn_cast<ReturnOp>(op);
    if (!returnOp)
      return;
    OpBuilder builder(op);
    builder.create<cf::BranchOp>(op->getLoc(), newDest, returnOp.getSrcs());
    op->erase();
  }
};

/// Checks an integer attribute that must be a positive power of 2.
LogicalResult verifyPowerOfTwoAttr(function_ref<InFlightDiagnostic()> emitError,
                                   NamedAttribute attr) {
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || value.getType().isInteger(1))
    return emitError() << "'" << attr.getName().strref()
                       << "' must be an integer attribute";
  int64_t v = value.getValue().getSExtValue();
  if (v <= 0 || !llvm::isPowerOf2_64(static_cast<uint64_t>(v)))
    return emitError() << "'" << attr.getName().strref()
                       << "' must be a positive power of 2, got " << v;
  return success();
}

/// Checks one of the `tile.*` attributes describing a value: on a kernel
/// argument or on an op result (from `tl.multiple_of` and friends).
LogicalResult verifyValueInfoAttr(function_ref<InFlightDiagnostic()> emitError,
                                  NamedAttribute attr, Type type) {
  StringRef name = attr.getName().strref();
  Type elem = getElementTypeOrSelf(type);
  bool isPtr = isa<PointerType>(elem);
  bool isInt = elem.isInteger(32) || elem.isInteger(64);
  if (name == kNonNullAttr) {
    if (!isa<UnitAttr>(attr.getValue()))
      return emitError() << "'" << name << "' must be a unit attribute";
    if (!isPtr)
      return emitError() << "'" << name << "' applies to pointers, not " << type;
    return success();
  }
  if (name == kDivisibilityAttr || name == kContiguityAttr ||
      name == kConstancyAttr) {
    if (!isPtr && !isInt)
      return emitError() << "'" << name
                         << "' applies to pointers and i32/i64 integers, not "
                         << type;
    if (auto arr = dyn_cast<DenseI64ArrayAttr>(attr.getValue())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || static_cast<int64_t>(arr.size()) != tensor.getRank())
        return emitError() << "'" << name
                           << "' as an array needs one entry per dimension of a tensor";
      for (int64_t v : arr.asArrayRef())
        if (v <= 0 || !llvm::isPowerOf2_64(static_cast<uint64_t>(v)))
          return emitError() << "'" << name
                             << "' must hold positive powers of 2, got " << v;
      return success();
    }
    return verifyPowerOfTwoAttr(emitError, attr);
  }
  return emitError() << "unknown tile attribute '" << name << "'";
}
} // namespace

void TileDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tegula/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
  addTileBytecodeInterface(this);
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  auto func = dyn_cast<FuncOp>(op);
  if (!func)
    return op->emitOpError() << "'" << attr.getName().strref()
                             << "' is only allowed on tile.func arguments";
  Type type = func.getArgumentTypes()[argIndex];
  return verifyValueInfoAttr(
      [&] { return op->emitOpError() << "argument " << argIndex << ": "; },
      attr, type);
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  // Launch options on the module, and pipelining hints on loops.
  bool onModule = isa<ModuleOp>(op);
  bool onLoop = isa<LoopLikeOpInterface>(op);
  if (name == kNumWarpsAttr || name == kNumStagesAttr ||
      name == kLoopUnrollFactorAttr) {
    bool placed = name == kNumWarpsAttr     ? onModule
                  : name == kNumStagesAttr ? (onModule || onLoop)
                                           : onLoop;
    if (!placed)
      return op->emitOpError() << "'" << name << "' belongs on "
                               << (name == kNumWarpsAttr
                                       ? "the module"
                                       : name == kNumStagesAttr
                                             ? "the module or a loop"
                                             : "a loop");
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getType().isInteger(1) || value.getInt() < 0)
      return op->emitOpError() << "'" << name
                               << "' must be a non-negative integer";
    if (name == kNumWarpsAttr &&
        (value.getInt() == 0 || !llvm::isPowerOf2_64(value.getInt())))
      return op->emitOpError() << "'" << name << "' must be a power of 2, got "
                               << value.getInt();
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitOpError() << "'" << attr.getName().strref()
                             << "' needs an op with exactly one result";
  return verifyValueInfoAttr([&] { return op->emitOpError(); }, attr,
                             op->getResult(0).getType());
}
