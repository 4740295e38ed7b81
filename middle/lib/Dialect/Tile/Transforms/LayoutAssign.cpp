//===- LayoutAssign.cpp - the tile-assign-layouts pass --------------------===//
//
// Gives every tile of a module a layout encoding, in the steps of
// LayoutAssignment::run():
//
//  1. Anchors. Loads, stores and atomics through tensors of pointers take
//     their coalesced layout and tile.dot its result and operand layouts,
//     all chosen by the target's LayoutPolicy (LayoutSelection.h). Tiles
//     that already carry an encoding keep it.
//  2. Propagation, to a map from values to layouts, before any rewriting.
//     Forward: anchors' results (and encoded tiles) give their layout to the
//     results of elementwise ops, broadcasts, expand_dims of a slice (its
//     parent), reductions (the slice of it) and scans using them, and to
//     the block arguments and results that control flow carries them to.
//     Backward: the layouts anchors want their operands in flow to the ops
//     computing those operands cheaply (elementwise ops, broadcasts,
//     expand_dims) and to loop-carried values, so that addresses and masks
//     are computed in the layout of the access. The first layout a value
//     gets wins.
//  3. Rewriting. Values the propagation did not reach take a layout from
//     their operands where the op dictates one (elementwise, broadcast,
//     expand_dims, reduce, scan, loop-carried values) and the policy's
//     default otherwise; every value is retyped, and tile.convert_layout is
//     inserted wherever an op needs an operand in another layout than the
//     one it has (placed once per value and layout, after its definition).
//  4. Cleanup: removeLayoutConversions (LayoutRemoveConversions.cpp).
//
// Triton reaches the same IR through ConvertTritonToTritonGPU (default
// layouts), Coalesce, AccelerateMatmul and RemoveLayoutConversions; here the
// steps share one propagation instead of rewriting the IR three times.
//
//===----------------------------------------------------------------------===//
#include "LayoutSelection.h"

#include "tegula/BackendKit/MatrixUnit.h"

#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace tegula::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;
using namespace tegula;
using namespace tegula::tile;

namespace {

bool isTensor(Value value) { return isa<RankedTensorType>(value.getType()); }

/// Whether any operand or result of |op| is a tensor with an encoding.
bool hasEncodedTensor(Operation *op) {
  auto encoded = [](Type type) { return static_cast<bool>(getLayout(type)); };
  return llvm::any_of(op->getOperandTypes(), encoded) ||
         llvm::any_of(op->getResultTypes(), encoded);
}

/// Whether |op| loads or stores a block through a block pointer: its tile
/// must stay the pointer's (unencoded) pointee type.
bool accessesBlockPointer(Operation *op) {
  Value ptr;
  if (auto load = dyn_cast<LoadOp>(op))
    ptr = load.getPtr();
  else if (auto store = dyn_cast<StoreOp>(op))
    ptr = store.getPtr();
  auto pointer = dyn_cast_or_null<PointerType>(ptr ? ptr.getType() : Type());
  return pointer && pointer.isBlockPointer();
}

/// Whether every tensor of |types| has an encoding the dialect accepts for
/// its rank.
bool haveWellRankedLayouts(TypeRange types) {
  return llvm::all_of(types, [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getEncoding())
      return true;
    int64_t rank = getLayoutRank(tensor.getEncoding());
    return rank < 0 || rank == tensor.getRank();
  });
}

/// The layouts an anchor op works in, one per operand and per result (null
/// for those that are not tensors).
struct AnchorLayouts {
  SmallVector<Attribute> operands;
  SmallVector<Attribute> results;
};

/// The layout assignment of one module (see the file comment for the steps).
class LayoutAssignment {
public:
  LayoutAssignment(ModuleOp module, const backend::LayoutPolicy &policy,
                   unsigned numWarps)
      : module(module), selector(policy, getNumWarps(module, numWarps)) {}

  LogicalResult run();

private:
  // Step 1: fills |anchors| and |fixedOperandTypes|.
  LogicalResult chooseAnchorLayouts();

  // Step 2: fills |chosen|.
  /// Records which operands become which block arguments and results.
  void collectControlFlow();
  /// From the anchors' results and the encoded tiles to their users.
  void propagateForward();
  /// From the anchors' operands to the ops computing them.
  void propagateBackward();
  /// Chooses |layout| for |value| and the values control flow joins with
  /// it, unless chosen before; appends what it chose for to |worklist|.
  void assign(Value value, Attribute layout, SmallVectorImpl<Value> &worklist);

  // Step 3.
  /// The layout |value| ends up with: chosen, else from its definition,
  /// else the default.
  Attribute getFinalLayout(Value value);
  /// The layout the definition of |value| gives it; null for the default.
  Attribute computeFinalLayout(Value value);
  Attribute getDefaultLayout(Value value);
  void retypeFunctionSignatures();
  void retypeValues();
  /// Converts every operand an op needs in another type than it has.
  void insertConversions();
  /// The type |operand|'s op needs it in.
  Type getRequiredType(OpOperand &operand);
  /// |value| converted to |type|, once per value and type, right after
  /// its definition.
  Value convert(Value value, Type type);
  /// Reconciles ops that infer their result types with the types assigned.
  void fixInferredResultTypes();

  /// The representative of the values control flow joins with |value|.
  Value getLeader(Value value);
  /// The values control flow joins with |value|, itself included; empty
  /// when it joins none.
  ArrayRef<Value> getJoined(Value value);

  ModuleOp module;
  LayoutSelector selector;
  bool policyFailed = false;

  /// The module's tile.funcs and their ops, parents before the ops of
  /// their regions.
  SmallVector<Operation *> ops;
  DenseMap<Operation *, AnchorLayouts> anchors;
  /// Ops whose types stay as they are: accesses through block pointers and
  /// anchors that were already laid out. Their operands are converted back
  /// to the types they had.
  DenseMap<Operation *, SmallVector<Type>> fixedOperandTypes;

  /// Control flow: operands and the block arguments or results they
  /// become, both ways.
  DenseMap<OpOperand *, SmallVector<Value, 2>> flowsTo;
  DenseMap<Value, SmallVector<OpOperand *, 2>> flowsFrom;
  /// Values one operand flows to must have one type: union-find over them.
  DenseMap<Value, Value> leaders;
  DenseMap<Value, SmallVector<Value, 2>> joined;

  /// Step 2's layouts, then step 3's.
  DenseMap<Value, Attribute> chosen;
  DenseMap<Value, Attribute> finalLayouts;
  DenseMap<RankedTensorType, Attribute> defaultLayouts;
  DenseMap<std::pair<Value, Type>, Value> conversions;
};

//===----------------------------------------------------------------------===//
// Step 1: anchors
//===----------------------------------------------------------------------===//

LogicalResult LayoutAssignment::chooseAnchorLayouts() {
  ModuleAxisInfo axis(module);
  for (Operation *op : ops) {
    bool memory = static_cast<bool>(getCoalescablePointer(op));
    auto dot = dyn_cast<DotOp>(op);
    if (!memory && !dot && !accessesBlockPointer(op))
      continue;
    if (accessesBlockPointer(op) || hasEncodedTensor(op)) {
      fixedOperandTypes[op] = llvm::to_vector(op->getOperandTypes());
      continue;
    }
    AnchorLayouts &layouts = anchors[op];
    if (memory) {
      Attribute layout = selector.getCoalescedLayout(op, axis);
      if (!layout)
        return failure();
      for (Value operand : op->getOperands())
        layouts.operands.push_back(isTensor(operand) ? layout : Attribute());
      for (Value result : op->getResults())
        layouts.results.push_back(isTensor(result) ? layout : Attribute());
      continue;
    }
    LayoutSelector::DotLayouts dotLayouts = selector.getDotLayouts(dot);
    if (!dotLayouts.result)
      return failure();
    layouts.operands = {dotLayouts.a, dotLayouts.b, dotLayouts.result};
    layouts.results = {dotLayouts.result};
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Step 2: propagation
//===----------------------------------------------------------------------===//

void LayoutAssignment::collectControlFlow() {
  auto addEdge = [&](OpOperand &from, Value to) {
    if (!isTensor(from.get()) || !isTensor(to))
      return;
    flowsTo[&from].push_back(to);
    flowsFrom[to].push_back(&from);
  };
  auto addRegionEdges = [&](MutableArrayRef<OpOperand> from, ValueRange to) {
    for (auto [operand, input] : llvm::zip(from, to))
      addEdge(operand, input);
  };

  for (Operation *op : ops) {
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
      SmallVector<RegionSuccessor> successors;
      branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
      for (RegionSuccessor &successor : successors) {
        OperandRange entry = branch.getEntrySuccessorOperands(successor);
        if (entry.empty())
          continue;
        addRegionEdges(op->getOpOperands().slice(entry.getBeginOperandIndex(),
                                                 entry.size()),
                       successor.getSuccessorInputs());
      }
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(
              block.getTerminator());
          if (!terminator)
            continue;
          SmallVector<Attribute> unknown(terminator->getNumOperands());
          successors.clear();
          terminator.getSuccessorRegions(unknown, successors);
          for (RegionSuccessor &successor : successors) {
            RegionBranchPoint point =
                successor.isParent()
                    ? RegionBranchPoint::parent()
                    : RegionBranchPoint(successor.getSuccessor());
            MutableOperandRange from =
                terminator.getMutableSuccessorOperands(point);
            for (auto [i, input] :
                 llvm::enumerate(successor.getSuccessorInputs()))
              addEdge(from[i], input);
          }
        }
    }
    if (auto branch = dyn_cast<BranchOpInterface>(op)) {
      for (unsigned i = 0, e = op->getNumSuccessors(); i < e; ++i) {
        SuccessorOperands operands = branch.getSuccessorOperands(i);
        MutableOperandRange forwarded = operands.getMutableForwardedOperands();
        Block *dest = op->getSuccessor(i);
        for (unsigned j = 0; j < forwarded.size(); ++j)
          addEdge(forwarded[j],
                  dest->getArgument(operands.getProducedOperandCount() + j));
      }
    }
  }

  // The values one operand flows to (a loop's block argument and its
  // result) get one type. Program order keeps the leaders deterministic.
  SmallVector<Value> unionOrder;
  for (Operation *op : ops)
    for (OpOperand &operand : op->getOpOperands()) {
      auto it = flowsTo.find(&operand);
      if (it == flowsTo.end())
        continue;
      for (Value to : ArrayRef<Value>(it->second).drop_front()) {
        Value a = getLeader(it->second.front()), b = getLeader(to);
        if (a == b)
          continue;
        leaders[b] = a;
        unionOrder.push_back(b);
      }
    }
  for (Value value : unionOrder) {
    SmallVector<Value, 2> &members = joined[getLeader(value)];
    if (members.empty())
      members.push_back(getLeader(value));
    members.push_back(value);
  }
}

Value LayoutAssignment::getLeader(Value value) {
  auto it = leaders.find(value);
  if (it == leaders.end() || it->second == value)
    return value;
  Value leader = getLeader(it->second);
  leaders[value] = leader;
  return leader;
}

ArrayRef<Value> LayoutAssignment::getJoined(Value value) {
  auto it = joined.find(getLeader(value));
  if (it == joined.end())
    return {};
  return it->second;
}

void LayoutAssignment::assign(Value value, Attribute layout,
                              SmallVectorImpl<Value> &worklist) {
  if (!layout || !isTensor(value) || chosen.count(value))
    return;
  ArrayRef<Value> members = getJoined(value);
  if (members.empty())
    members = value;
  for (Value member : members)
    if (chosen.try_emplace(member, layout).second)
      worklist.push_back(member);
}

void LayoutAssignment::propagateForward() {
  SmallVector<Value> worklist;
  // Seeds: tiles encoded already, then anchors' results, in program order.
  for (Operation *op : ops) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          assign(arg, getLayout(arg.getType()), worklist);
    for (Value result : op->getResults())
      assign(result, getLayout(result.getType()), worklist);
  }
  for (Operation *op : ops) {
    auto it = anchors.find(op);
    if (it != anchors.end())
      for (auto [result, layout] :
           llvm::zip_equal(op->getResults(), it->second.results))
        assign(result, layout, worklist);
  }

  // Breadth first, so that where layouts meet the one from the earlier
  // anchor wins.
  for (size_t next = 0; next < worklist.size(); ++next) {
    Value value = worklist[next];
    Attribute layout = chosen.lookup(value);
    if (!isDistributedLayout(layout))
      continue;
    for (OpOperand &use : value.getUses()) {
      for (Value to : flowsTo.lookup(&use))
        assign(to, layout, worklist);
      Operation *user = use.getOwner();
      if (anchors.count(user) || fixedOperandTypes.count(user))
        continue;
      if (isElementwise(user)) {
        for (Value result : user->getResults())
          assign(result, layout, worklist);
      } else if (isa<BroadcastOp>(user)) {
        assign(user->getResult(0), layout, worklist);
      } else if (auto expand = dyn_cast<ExpandDimsOp>(user)) {
        auto slice = dyn_cast<SliceLayoutAttr>(layout);
        if (slice && slice.getDim() == expand.getAxis())
          assign(expand.getResult(), slice.getParent(), worklist);
      } else if (auto reduce = dyn_cast<ReduceOp>(user)) {
        if (use.getOperandNumber() == 0)
          for (Value result : reduce.getResults())
            assign(result, getSliceLayout(layout, reduce.getAxis()), worklist);
      } else if (auto scan = dyn_cast<ScanOp>(user)) {
        if (use.getOperandNumber() == 0)
          for (Value result : scan.getResults())
            assign(result, layout, worklist);
      }
    }
  }
}

void LayoutAssignment::propagateBackward() {
  SmallVector<std::pair<Value, Attribute>> worklist;
  for (Operation *op : ops) {
    auto it = anchors.find(op);
    if (it == anchors.end())
      continue;
    for (auto [operand, layout] :
         llvm::zip_equal(op->getOperands(), it->second.operands))
      if (layout)
        worklist.emplace_back(operand, layout);
    // Depth first from each anchor operand, so that whole address
    // computations take the layout of their first access.
    std::reverse(worklist.begin(), worklist.end());
    while (!worklist.empty()) {
      auto [value, layout] = worklist.pop_back_val();
      // Results whose layout their op dictates keep it.
      Operation *def = value.getDefiningOp();
      if (def &&
          (isa<CallOp, ReduceOp, ScanOp>(def) || fixedOperandTypes.count(def)))
        continue;
      // A shape op does not compute in a dot's operand layout (a matrix
      // unit may read its operands from shared memory, where no thread
      // owns elements): it keeps its own, and a conversion feeds the dot.
      if (def && isa<DotOperandLayoutAttr>(layout) &&
          isa<ReshapeOp, TransOp, JoinOp, SplitOp, CatOp, GatherOp>(def))
        continue;
      SmallVector<Value> assigned;
      assign(value, layout, assigned);
      for (Value member : assigned) {
        for (OpOperand *from : flowsFrom.lookup(member))
          worklist.emplace_back(from->get(), layout);
        Operation *producer = member.getDefiningOp();
        if (!producer || anchors.count(producer) ||
            fixedOperandTypes.count(producer))
          continue;
        if (isElementwise(producer)) {
          for (Value operand : producer->getOperands())
            worklist.emplace_back(operand, layout);
        } else if (auto broadcast = dyn_cast<BroadcastOp>(producer)) {
          worklist.emplace_back(broadcast.getSrc(), layout);
        } else if (auto expand = dyn_cast<ExpandDimsOp>(producer)) {
          if (Attribute slice = getSliceLayout(layout, expand.getAxis()))
            worklist.emplace_back(expand.getSrc(), slice);
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Step 3: rewriting
//===----------------------------------------------------------------------===//

Attribute LayoutAssignment::getDefaultLayout(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto key = RankedTensorType::get(type.getShape(), type.getElementType());
  auto [it, inserted] = defaultLayouts.try_emplace(key, Attribute());
  if (inserted) {
    it->second = selector.getDefaultLayout(key, value.getLoc());
    if (!it->second)
      policyFailed = true;
  }
  return it->second;
}

Attribute LayoutAssignment::getFinalLayout(Value value) {
  if (Attribute layout = chosen.lookup(value))
    return layout;
  Value leader = getLeader(value);
  if (Attribute layout = finalLayouts.lookup(leader))
    return layout;
  Attribute layout = computeFinalLayout(leader);
  if (!layout)
    layout = getDefaultLayout(leader);
  finalLayouts[leader] = layout;
  return layout;
}

/// The layout |value| takes from its definition when the propagation did
/// not reach it; null for the policy's default.
Attribute LayoutAssignment::computeFinalLayout(Value value) {
  // A block argument or a result of a region op starts as the value that
  // enters the region op (a loop's initial value).
  for (Value member :
       getJoined(value).empty() ? ArrayRef<Value>(value) : getJoined(value)) {
    Operation *owner = isa<BlockArgument>(member)
                           ? member.getParentRegion()->getParentOp()
                           : member.getDefiningOp();
    for (OpOperand *from : flowsFrom.lookup(member))
      if (from->getOwner() == owner)
        return getFinalLayout(from->get());
  }

  Operation *op = value.getDefiningOp();
  if (!op)
    return {};
  if (fixedOperandTypes.count(op))
    return getLayout(value.getType());
  if (auto call = dyn_cast<CallOp>(op)) {
    auto callee =
        SymbolTable::lookupNearestSymbolFrom<FuncOp>(op, call.getCalleeAttr());
    if (callee)
      return getLayout(
          callee.getResultTypes()[cast<OpResult>(value).getResultNumber()]);
    return {};
  }
  auto tensorOperands = llvm::make_filter_range(op->getOperands(), isTensor);
  if (isElementwise(op)) {
    for (Value operand : tensorOperands)
      if (Attribute layout = chosen.lookup(operand))
        return layout;
    if (!tensorOperands.empty())
      return getFinalLayout(*tensorOperands.begin());
    return {};
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return getFinalLayout(broadcast.getSrc());
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    auto slice = dyn_cast<SliceLayoutAttr>(getFinalLayout(expand.getSrc()));
    if (slice && slice.getDim() == expand.getAxis())
      return slice.getParent();
    return {};
  }
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return getSliceLayout(getFinalLayout(reduce.getSrcs().front()),
                          reduce.getAxis());
  if (auto scan = dyn_cast<ScanOp>(op))
    return getFinalLayout(scan.getSrcs().front());
  return {};
}

void LayoutAssignment::retypeFunctionSignatures() {
  for (FuncOp func : module.getOps<FuncOp>()) {
    // Tensors without encoding take the default layout, or, for the
    // arguments of a function with a body, what propagation gave them.
    auto retype = [&](Type type) -> Type {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getEncoding())
        return type;
      Attribute layout = selector.getDefaultLayout(tensor, func.getLoc());
      policyFailed |= !layout;
      return withLayout(type, layout);
    };
    SmallVector<Type> inputs, results;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      inputs.push_back(
          func.isExternal() || !isa<RankedTensorType>(type)
              ? retype(type)
              : withLayout(type, getFinalLayout(func.getArgument(i))));
    for (Type type : func.getResultTypes())
      results.push_back(retype(type));
    func.setFunctionType(FunctionType::get(func.getContext(), inputs, results));
  }
}

void LayoutAssignment::retypeValues() {
  // Layouts first, from the original types, then types.
  SmallVector<std::pair<Value, Type>> types;
  auto plan = [&](Value value) {
    if (isTensor(value))
      types.emplace_back(value,
                         withLayout(value.getType(), getFinalLayout(value)));
  };
  for (Operation *op : ops) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          plan(arg);
    if (!fixedOperandTypes.count(op))
      for (Value result : op->getResults())
        plan(result);
  }
  for (auto [value, type] : types) {
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      // A constant's type is its value's: retype the value, or keep the
      // type (and convert) when it cannot be.
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        continue;
      constant.setValueAttr(dense.reshape(cast<ShapedType>(type)));
    }
    value.setType(type);
  }
}

Type LayoutAssignment::getRequiredType(OpOperand &operand) {
  Value value = operand.get();
  Operation *op = operand.getOwner();
  unsigned index = operand.getOperandNumber();
  auto resultLayout = [&] { return getLayout(op->getResult(0).getType()); };

  if (auto it = flowsTo.find(&operand); it != flowsTo.end())
    return it->second.front().getType();
  if (auto it = anchors.find(op); it != anchors.end())
    return withLayout(value.getType(), it->second.operands[index]);
  if (auto it = fixedOperandTypes.find(op); it != fixedOperandTypes.end())
    return it->second[index];
  if (isElementwise(op) || isa<BroadcastOp>(op))
    return withLayout(value.getType(), resultLayout());
  if (auto expand = dyn_cast<ExpandDimsOp>(op))
    if (Attribute slice = getSliceLayout(resultLayout(), expand.getAxis()))
      return withLayout(value.getType(), slice);
  if (isa<ReduceOp, ScanOp>(op))
    return withLayout(value.getType(), getLayout(op->getOperand(0).getType()));
  if (auto join = dyn_cast<JoinOp>(op))
    return join.getLhs().getType();
  if (auto ret = dyn_cast<ReturnOp>(op))
    return ret->getParentOfType<FuncOp>().getResultTypes()[index];
  if (auto call = dyn_cast<CallOp>(op))
    if (auto callee = SymbolTable::lookupNearestSymbolFrom<FuncOp>(
            op, call.getCalleeAttr()))
      return callee.getArgumentTypes()[index];
  return value.getType();
}

Value LayoutAssignment::convert(Value value, Type type) {
  auto [it, inserted] = conversions.try_emplace({value, type}, Value());
  if (!inserted)
    return it->second;
  OpBuilder builder(value.getContext());
  if (auto arg = dyn_cast<BlockArgument>(value))
    builder.setInsertionPointToStart(arg.getOwner());
  else
    builder.setInsertionPointAfter(value.getDefiningOp());
  it->second = builder.create<ConvertLayoutOp>(value.getLoc(), type, value);
  return it->second;
}

void LayoutAssignment::insertConversions() {
  for (Operation *op : ops) {
    if (isa<ConvertLayoutOp>(op))
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isTensor(operand.get()))
        continue;
      Type type = getRequiredType(operand);
      if (type != operand.get().getType())
        operand.set(convert(operand.get(), type));
    }
  }
}

void LayoutAssignment::fixInferredResultTypes() {
  for (Operation *op : ops) {
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer)
      continue;
    SmallVector<Type> inferred;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)) ||
        TypeRange(inferred) == op->getResultTypes())
      continue;
    // The op infers other layouts for its results than the ones assigned:
    // take what it infers, converted to the assigned layouts after it. Where
    // it infers encodings of the wrong rank (tile.reduce and tile.split give
    // their results the encoding of their operand), it runs on tiles
    // without encoding instead.
    if (!haveWellRankedLayouts(inferred)) {
      OpBuilder builder(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Type plain = withLayout(operand.get().getType(), Attribute());
        if (plain != operand.get().getType())
          operand.set(builder.create<ConvertLayoutOp>(op->getLoc(), plain,
                                                      operand.get()));
      }
      inferred.clear();
      for (Type type : op->getResultTypes())
        inferred.push_back(withLayout(type, Attribute()));
    }
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    for (auto [result, type] : llvm::zip_equal(op->getResults(), inferred)) {
      Type assigned = result.getType();
      if (type == assigned)
        continue;
      result.setType(type);
      auto back =
          builder.create<ConvertLayoutOp>(op->getLoc(), assigned, result);
      result.replaceAllUsesExcept(back, back);
    }
  }
}

LogicalResult LayoutAssignment::run() {
  // A dot of fp8 operands that the target's matrix units take only as f16
  // (exact for e4m3 and e5m2) multiplies them as f16 there, as Triton does
  // on GPUs without fp8 instructions; without a matrix instruction either
  // way the dot stays as it is (its fused multiply-adds decode fp8). Which
  // instruction a dot gets may depend on how its operands are loaded.
  selector.analyzeDotOperands(module, ModuleAxisInfo(module));
  module.walk([&](DotOp dot) {
    if (!selector.shouldUpcastFp8Operands(dot))
      return;
    OpBuilder builder(dot);
    Type f16 = builder.getF16Type();
    for (OpOperand *operand : {&dot.getAMutable(), &dot.getBMutable()}) {
      auto type = cast<RankedTensorType>(operand->get().getType());
      if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
        continue;
      operand->set(builder.create<FpToFpOp>(dot.getLoc(), type.clone(f16),
                                            operand->get(),
                                            RoundingModeAttr()));
    }
  });
  for (FuncOp func : module.getOps<FuncOp>())
    func.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });

  if (failed(chooseAnchorLayouts()))
    return failure();
  collectControlFlow();
  propagateForward();
  propagateBackward();

  retypeFunctionSignatures();
  retypeValues();
  if (policyFailed)
    return failure();
  insertConversions();
  fixInferredResultTypes();
  return removeLayoutConversions(module);
}

struct TileAssignLayoutsPass
    : public tegula::tile::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  explicit TileAssignLayoutsPass(const backend::MatrixUnitRegistry *units)
      : units(units) {}

  void runOnOperation() override {
    const backend::MatrixUnit *unit = nullptr;
    if (!matrixUnit.empty()) {
      unit = units ? units->lookup(matrixUnit) : nullptr;
      if (!unit) {
        InFlightDiagnostic diag = emitError(getOperation().getLoc())
                                  << "unknown matrix-unit '" << matrixUnit
                                  << "': no matrix unit of that kind is "
                                     "registered (registered: ";
        if (!units || units->getUnits().empty())
          diag << "none";
        else
          llvm::interleaveComma(units->getUnits(), diag,
                                [&](const backend::MatrixUnit *known) {
                                  diag << known->getKind();
                                });
        diag << ")";
        return signalPassFailure();
      }
    }
    GenericLayoutPolicy policy(warpSize, maxAccessBytes, unit);
    if (failed(assignLayouts(getOperation(), policy, numWarps)))
      signalPassFailure();
  }

  /// The families `matrix-unit` may name (null: none).
  const backend::MatrixUnitRegistry *units = nullptr;
};

} // namespace

LogicalResult tegula::tile::assignLayouts(ModuleOp module,
                                          const backend::LayoutPolicy &policy,
                                          unsigned numWarps) {
  return LayoutAssignment(module, policy, numWarps).run();
}

void tegula::tile::registerTilePasses(
    const backend::MatrixUnitRegistry &units) {
  // The generated registerTilePasses() less tile-assign-layouts, which is
  // registered with the families (a pass added to Passes.td is added here).
  registerTileBoundsCheck();
  registerTileCoalesce();
  registerTileCombine();
  registerTileRemoveLayoutConversions();
  registerTileTestAxisInfo();
  mlir::registerPass([&units]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<TileAssignLayoutsPass>(&units);
  });
}
