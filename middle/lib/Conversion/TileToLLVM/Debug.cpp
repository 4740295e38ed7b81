//===- Debug.cpp - device_print, device_assert, debug_barrier -------------===//
//
// Element by element through the target's print and assert hooks. An assert
// reports the first file:line:col location of the op (the kernel source
// line) and the kernel's name; the target decides how the launch fails.
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// The innermost file:line:col of |loc| (through call sites, names and
/// fusions), if any.
std::optional<FileLineColLoc> fileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// The file and line an op's failure report names ("<unknown>", 0 without
/// a file location).
std::pair<std::string, unsigned> reportedLine(Location loc) {
  if (std::optional<FileLineColLoc> where = fileLocation(loc))
    return {where->getFilename().str(), where->getLine()};
  return {"<unknown>", 0};
}

} // namespace

LogicalResult tegula::lowering::lowerPrintOp(Lowerer &l, tile::PrintOp op,
                                             ElementVisitor forEachElement) {
  Location loc = op.getLoc();
  std::string prefix = op.getPrefix().str();
  if (op.getArgs().empty()) {
    if (failed(l.hooks.buildPrint(l.b, loc, prefix, l.constI64(loc, -1),
                                  Value(), false, false)))
      return l.unsupported(op, "the target cannot print");
    return success();
  }
  for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
    std::string text = prefix;
    if (op.getArgs().size() > 1)
      text += " (operand " + std::to_string(k) + ")";
    bool isSigned = k < op.getIsSigned().size() && op.getIsSigned()[k] != 0;
    LogicalResult status = success();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      status = l.hooks.buildPrint(l.b, loc, text, l.constI64(loc, -1),
                                  l.lookup(arg), isSigned, op.getHex());
    } else {
      forEachElement(arg, [&](Value value, Value index) {
        if (isa<tile::PointerType>(type.getElementType()))
          value = l.b.create<LLVM::IntToPtrOp>(loc, l.ptrType(), value);
        if (failed(l.hooks.buildPrint(l.b, loc, text, index, value, isSigned,
                                      op.getHex())))
          status = failure();
      });
    }
    if (failed(status))
      return l.unsupported(op, "the target cannot print these values");
  }
  return success();
}

LogicalResult tegula::lowering::lowerAssertOp(Lowerer &l, tile::AssertOp op,
                                              ElementVisitor forEachElement) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto [file, line] = reportedLine(loc);
  LogicalResult status = success();
  auto check = [&](Value condition, Value index) {
    Value failedCond = b.create<arith::XOrIOp>(
        loc, condition, b.create<arith::ConstantIntOp>(loc, 1, 1));
    auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, failedCond, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    if (failed(l.hooks.buildAssertFailure(b, loc, op.getMessage(), file, line,
                                          l.functionName, index)))
      status = failure();
  };
  Value condition = op.getCondition();
  if (isa<RankedTensorType>(condition.getType())) {
    forEachElement(condition, check);
  } else {
    check(l.lookup(condition), l.constI64(loc, -1));
  }
  if (failed(status))
    return l.unsupported(op, "the target cannot report failed assertions");
  return success();
}

LogicalResult tegula::lowering::lowerOutOfBoundsOp(Lowerer &l,
                                                   tile::OutOfBoundsOp op) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto [file, line] = reportedLine(loc);
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, l.lookup(op.getFailed()),
                                  false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  if (failed(l.hooks.buildBoundsFailure(
          b, loc, op.getAccess(), file, line, l.functionName,
          l.lookup(op.getIndex()), l.lookup(op.getBegin()),
          l.lookup(op.getEnd()))))
    return l.unsupported(op, "the target cannot report out-of-bounds accesses");
  return success();
}

namespace {

/// The elements of a tile in scratch, in order.
void forEachScratchElement(Lowerer &l, Value tile,
                           llvm::function_ref<void(Value, Value)> body) {
  auto type = cast<RankedTensorType>(tile.getType());
  Location loc = tile.getLoc();
  l.forEachChunk(loc, type.getNumElements(), 1, [&](Value index) {
    body(l.loadChunk(loc, l.lookup(tile), type.getElementType(), index, 1),
         index);
  });
}

} // namespace

std::optional<LogicalResult>
tegula::lowering::lowerDebugFamily(Lowerer &l, Operation *op) {
  if (auto print = dyn_cast<tile::PrintOp>(op))
    return lowerPrintOp(l, print, [&](Value tile, auto body) {
      forEachScratchElement(l, tile, body);
    });
  if (auto assertOp = dyn_cast<tile::AssertOp>(op))
    return lowerAssertOp(l, assertOp, [&](Value tile, auto body) {
      forEachScratchElement(l, tile, body);
    });
  if (auto outOfBounds = dyn_cast<tile::OutOfBoundsOp>(op))
    return lowerOutOfBoundsOp(l, outOfBounds);
  if (isa<tile::DebugBarrierOp>(op)) {
    l.hooks.buildBarrier(l.b, op->getLoc());
    return success();
  }
  return std::nullopt;
}
