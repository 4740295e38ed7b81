//===- ArgWrites.cpp - Which kernel arguments a kernel writes through -----===//
//
// A forward taint analysis of the optimized tile IR, one argument at a time:
// every value computed from a tainted value is tainted (results, the block
// arguments of the regions and successors it flows into, the results of the
// op a terminator yields to), except the result of a load through a tainted
// pointer, which is data read from memory, not an address. The argument is
// written when a tainted value reaches a store, an atomic, a descriptor
// store, a call or an op that may write memory (or whose effects are not
// known). Over-approximate by design: a false "written" refuses a read-only
// input, a false "read only" would let a kernel write into one.
//
//===----------------------------------------------------------------------===//

#include "ArgWrites.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace tegula;

namespace {

/// What the use of a tainted value by |op| means.
enum class UseKind { Writes, Reads, Flows };

UseKind classify(Operation *op, Value tainted) {
  // Through the pointer, or pointer bits stored (which a later load could
  // bring back): written. A mask or an index only selects elements.
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return store.getPtr() == tainted || store.getValue() == tainted
               ? UseKind::Writes
               : UseKind::Reads;
  if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
    return atomic.getPtr() == tainted || atomic.getVal() == tainted
               ? UseKind::Writes
               : UseKind::Reads;
  if (isa<tile::AtomicCASOp>(op))
    return UseKind::Writes;
  if (auto store = dyn_cast<tile::DescriptorStoreOp>(op))
    return store.getDesc() == tainted || store.getSrc() == tainted
               ? UseKind::Writes
               : UseKind::Reads;
  // The pointer is read through; a mask only selects which elements are
  // read (the debug mode's masks come from every pointer's bounds): the
  // result is memory or `other`, never the mask's bits.
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return load.getPtr() == tainted ||
                   (load.getMask() == tainted && load.getOther() != tainted)
               ? UseKind::Reads
               : UseKind::Flows;
  if (auto load = dyn_cast<tile::DescriptorLoadOp>(op))
    return load.getDesc() == tainted ? UseKind::Reads : UseKind::Flows;
  if (isa<tile::PrintOp, tile::AssertOp, tile::OutOfBoundsOp>(op))
    return UseKind::Reads; // shows the value, writes nothing through it
  if (isa<CallOpInterface>(op))
    return UseKind::Writes; // a helper left uninlined: not looked into
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    if (effects.hasEffect<MemoryEffects::Write>())
      return UseKind::Writes;
  } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    return UseKind::Writes; // unknown effects
  }
  return UseKind::Flows;
}

/// The point a region successor stands for.
RegionBranchPoint pointOf(const RegionSuccessor &successor) {
  if (Region *region = successor.getSuccessor())
    return region;
  return RegionBranchPoint::parent();
}

/// Taints what operand |use| of |op| flows into: for region-branching ops
/// (scf.for, scf.if, scf.while and their terminators) exactly the region
/// arguments or results it is forwarded to; for any other op every result,
/// every argument of its regions and successors and, for a terminator,
/// every result and region argument of its parent.
template <typename Taint>
void flow(Operation *op, OpOperand &use, Operation *kernel, Taint &&taint) {
  unsigned index = use.getOperandNumber();
  auto forwardTo = [&](OperandRange forwarded, ValueRange inputs) {
    if (forwarded.empty())
      return false;
    unsigned begin = forwarded.getBeginOperandIndex();
    if (index < begin || index >= begin + forwarded.size())
      return false;
    if (forwarded.size() != inputs.size())
      return false; // not understood: the caller over-approximates
    taint(inputs[index - begin]);
    return true;
  };
  auto everything = [&](Operation *target) {
    for (Value result : target->getResults())
      taint(result);
    for (Region &region : target->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          taint(a);
  };

  if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
    bool forwarded = false, isForwarded = false;
    for (const RegionSuccessor &s : successors) {
      OperandRange operands = branch.getEntrySuccessorOperands(pointOf(s));
      unsigned begin = operands.empty() ? 0 : operands.getBeginOperandIndex();
      if (!operands.empty() && index >= begin && index < begin + operands.size())
        isForwarded = true;
      forwarded |= forwardTo(operands, s.getSuccessorInputs());
    }
    if (!isForwarded || !forwarded)
      everything(op); // a bound, a condition: over-approximated
    return;
  }
  // (ReturnLike terminators implement the interface too, relying on a
  // RegionBranchOpInterface parent: tile.return, tile.reduce.return have
  // none.)
  auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(op);
  if (terminator && op->getParentOp() &&
      isa<RegionBranchOpInterface>(op->getParentOp())) {
    SmallVector<Attribute> constants(op->getNumOperands(), nullptr);
    SmallVector<RegionSuccessor> successors;
    terminator.getSuccessorRegions(constants, successors);
    bool isForwarded = false, forwarded = false;
    for (const RegionSuccessor &s : successors) {
      OperandRange operands =
          terminator.getMutableSuccessorOperands(pointOf(s));
      unsigned begin = operands.empty() ? 0 : operands.getBeginOperandIndex();
      if (!operands.empty() && index >= begin && index < begin + operands.size())
        isForwarded = true;
      forwarded |= forwardTo(operands, s.getSuccessorInputs());
    }
    if (isForwarded && !forwarded && op->getParentOp() != kernel)
      everything(op->getParentOp());
    return; // scf.condition's condition only steers
  }

  everything(op);
  for (Block *successor : op->getSuccessors())
    for (BlockArgument a : successor->getArguments())
      taint(a);
  if (op->hasTrait<OpTrait::IsTerminator>()) {
    Operation *parent = op->getParentOp();
    if (parent && parent != kernel)
      everything(parent); // tile.reduce.return, tile.scan.return, ...
  }
}

/// Whether |arg| of the kernel may be written through.
bool writesThrough(BlockArgument arg, Operation *kernel) {
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work;
  auto taint = [&](Value v) {
    if (seen.insert(v).second)
      work.push_back(v);
  };
  taint(arg);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *op = use.getOwner();
      switch (classify(op, v)) {
      case UseKind::Writes:
        return true;
      case UseKind::Reads:
        continue;
      case UseKind::Flows:
        flow(op, use, kernel, taint);
        break;
      }
    }
  }
  return false;
}

} // namespace

std::vector<uint8_t>
tegula::compiler::argumentWrites(ModuleOp module, llvm::StringRef kernelName) {
  tile::FuncOp kernel, only;
  unsigned kernels = 0;
  module.walk([&](tile::FuncOp fn) {
    if (!fn.isKernel())
      return;
    ++kernels;
    only = fn;
    if (fn.getSymName() == kernelName)
      kernel = fn;
  });
  if (!kernel && kernels == 1)
    kernel = only; // the one kernel, whatever its symbol
  if (!kernel || kernel.isExternal())
    return {};
  std::vector<uint8_t> out;
  for (BlockArgument arg : kernel.getBody().front().getArguments())
    out.push_back(writesThrough(arg, kernel) ? 1 : 0);
  return out;
}
