//===- Scratch.cpp - Scratch (shared-memory) allocation by liveness -------===//

#include "LoweringImpl.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

struct Numbering {
  llvm::DenseMap<Operation *, int64_t> first, last;
  /// Members of chunk groups -> the group's first op.
  llvm::DenseMap<Operation *, Operation *> leader;
  int64_t next = 0;
  void visit(Operation *op) {
    if (Operation *head = leader.lookup(op); head && head != op) {
      first[op] = last[op] = first[head];
      return;
    }
    first[op] = next++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          visit(&inner);
    last[op] = next - 1;
  }
};

/// Union-find over values.
struct Classes {
  llvm::DenseMap<Value, Value> parent;
  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end()) {
      parent[v] = v;
      return v;
    }
    if (it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }
  void unite(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent[rb] = ra;
  }
};

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

Operation *definingPoint(Value v) {
  if (Operation *op = v.getDefiningOp())
    return op;
  return cast<BlockArgument>(v).getOwner()->getParentOp();
}

} // namespace

void ScratchPlan::plan(tile::FuncOp func,
                       llvm::function_ref<uint64_t(RankedTensorType)> bytesOf) {
  offsets.clear();
  bytes = 0;
  Numbering numbering;
  // Chunk groups, formed as the lowering forms them: from each chunk op not
  // yet in a group, in block order.
  llvm::DenseSet<Operation *> groupLocal; // tiles that stay in registers
  func.walk([&](Block *block) {
    for (Operation &op : *block) {
      if (numbering.leader.contains(&op) || !isChunkOp(&op))
        continue;
      SmallVector<Operation *> members = collectChunkGroup(&op);
      llvm::DenseSet<Operation *> group(members.begin(), members.end());
      for (Operation *member : members) {
        numbering.leader[member] = &op;
        if (llvm::none_of(member->getResults(), [&](Value result) {
              return escapesChunkGroup(result, group);
            }))
          groupLocal.insert(member);
      }
    }
  });
  for (Operation &op : func.getBody().front())
    numbering.visit(&op);

  // Which values share memory, and which span a whole region op.
  Classes classes;
  llvm::SmallVector<Value> values;
  llvm::DenseMap<Value, Operation *> spans;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isTile(result) && !groupLocal.contains(op)) {
        values.push_back(result);
        classes.find(result);
      }
    if (isa<tile::ExpandDimsOp, tile::ReshapeOp, tile::ConvertLayoutOp>(op))
      classes.unite(op->getOperand(0), op->getResult(0));
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [arg, result] :
           llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
        if (isTile(result)) {
          values.push_back(arg);
          classes.unite(result, arg);
          spans[result] = op;
        }
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      for (Value result : ifOp.getResults())
        if (isTile(result))
          spans[result] = op;
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      for (BlockArgument arg : loop.getBefore().getArguments())
        if (isTile(arg)) {
          values.push_back(arg);
          classes.find(arg);
          spans[arg] = op;
        }
      for (auto [arg, result] :
           llvm::zip(loop.getAfter().getArguments(), loop.getResults()))
        if (isTile(result)) {
          values.push_back(arg);
          classes.unite(result, arg);
          spans[result] = op;
        }
    }
  });

  // The interval of each class.
  struct Interval {
    int64_t start = INT64_MAX, end = -1;
    uint64_t size = 0;
  };
  llvm::MapVector<Value, Interval> intervals;
  for (Value v : values) {
    Interval &interval = intervals[classes.find(v)];
    Operation *def = definingPoint(v);
    int64_t defAt = numbering.first.lookup(def);
    interval.start = std::min(interval.start, defAt);
    interval.end = std::max(interval.end, defAt);
    interval.size =
        std::max(interval.size, bytesOf(cast<RankedTensorType>(v.getType())));
    if (Operation *span = spans.lookup(v))
      interval.end = std::max(interval.end, numbering.last.lookup(span));
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      int64_t end = numbering.first.lookup(user);
      for (Operation *parent = user->getParentOp(); parent && parent != func;
           parent = parent->getParentOp())
        if (isa<scf::ForOp, scf::WhileOp>(parent) && !parent->isAncestor(def))
          end = std::max(end, numbering.last.lookup(parent));
      interval.end = std::max(interval.end, end);
    }
  }

  // First fit, in order of start.
  struct Placed {
    int64_t end;
    uint64_t offset, size;
  };
  // By start, then by first appearance (a deterministic order; stable_sort
  // trips a deprecation in libstdc++ 12 under clang).
  std::vector<std::pair<Value, Interval>> order(intervals.begin(),
                                                intervals.end());
  std::vector<size_t> rank(order.size());
  for (size_t i = 0; i < rank.size(); ++i)
    rank[i] = i;
  llvm::sort(rank, [&](size_t a, size_t b) {
    if (order[a].second.start != order[b].second.start)
      return order[a].second.start < order[b].second.start;
    return a < b;
  });
  std::vector<std::pair<Value, Interval>> sorted;
  for (size_t i : rank)
    sorted.push_back(order[i]);
  order = std::move(sorted);
  std::vector<Placed> active;
  llvm::DenseMap<Value, uint64_t> classOffset;
  for (auto &[root, interval] : order) {
    llvm::erase_if(active,
                   [&](const Placed &p) { return p.end < interval.start; });
    std::sort(active.begin(), active.end(),
              [](const Placed &a, const Placed &b) { return a.offset < b.offset; });
    uint64_t size = llvm::alignTo(interval.size, 64);
    uint64_t offset = 0;
    for (const Placed &p : active) {
      if (offset + size <= p.offset)
        break;
      offset = std::max(offset, p.offset + p.size);
    }
    active.push_back({interval.end, offset, size});
    classOffset[root] = offset;
    bytes = std::max(bytes, offset + size);
  }
  for (Value v : values)
    offsets[v] = classOffset.lookup(classes.find(v));
}

std::optional<uint64_t> ScratchPlan::offsetOf(Value value) const {
  auto it = offsets.find(value);
  if (it == offsets.end())
    return std::nullopt;
  return it->second;
}
