//===- AxisInfo.cpp - divisibility, contiguity and constancy --------------===//
#include "tegula/Analysis/AxisInfo.h"
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace tegula;

namespace {
/// Divisibility of 0: large, but small enough that products of two stay
/// well inside int64.
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// The shape the analysis tracks: a tensor's, or {1} for a scalar.
SmallVector<int64_t, 4> shapeOf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 4>(t.getShape());
  return {1};
}

bool isTracked(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return isa<IntegerType, tile::PointerType, IndexType>(elem);
}

/// Bytes per element behind a pointer (for pointer divisibility).
int64_t pointeeBytes(Type ptrLike) {
  auto ptr = dyn_cast<tile::PointerType>(getElementTypeOrSelf(ptrLike));
  if (!ptr)
    return 1;
  Type pointee = ptr.getPointeeType();
  if (isa<tile::PointerType>(pointee))
    return 8;
  return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
}

/// An info with every field |value| per dimension of |shape|.
AxisInfo::Dims filled(ArrayRef<int64_t> shape, int64_t value) {
  return AxisInfo::Dims(shape.size(), value);
}

/// Elementwise ops whose result is constant wherever all operands are.
AxisInfo elementwiseConstancyOnly(ArrayRef<AxisInfo> in, ArrayRef<int64_t> shape) {
  AxisInfo::Dims constancy(shape.begin(), shape.end());
  for (const AxisInfo &i : in)
    for (size_t d = 0; d < constancy.size(); ++d)
      constancy[d] = gcd(constancy[d], i.getConstancy(d));
  return AxisInfo(filled(shape, 1), filled(shape, 1), constancy);
}
} // namespace

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(Dims contiguity, Dims divisibility, Dims constancy,
                   std::optional<int64_t> constant)
    : initialized(true), contiguity(std::move(contiguity)),
      divisibility(std::move(divisibility)), constancy(std::move(constancy)),
      constant(constant) {}

AxisInfo AxisInfo::pessimistic(int64_t rank) {
  return AxisInfo(Dims(rank, 1), Dims(rank, 1), Dims(rank, 1));
}

int64_t AxisInfo::divisibilityOf(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  uint64_t u = value < 0 ? -static_cast<uint64_t>(value) : value;
  return std::min<int64_t>(kMaxDivisibility, int64_t(1) << llvm::countr_zero(u));
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.initialized)
    return rhs;
  if (!rhs.initialized)
    return lhs;
  if (lhs.getRank() != rhs.getRank())
    return pessimistic(std::max(lhs.getRank(), rhs.getRank()));
  Dims c, v, k;
  for (int64_t d = 0; d < lhs.getRank(); ++d) {
    c.push_back(gcd(lhs.contiguity[d], rhs.contiguity[d]));
    v.push_back(gcd(lhs.divisibility[d], rhs.divisibility[d]));
    k.push_back(gcd(lhs.constancy[d], rhs.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (lhs.constant && rhs.constant && *lhs.constant == *rhs.constant)
    constant = lhs.constant;
  return AxisInfo(c, v, k, constant);
}

bool AxisInfo::operator==(const AxisInfo &other) const {
  return initialized == other.initialized && contiguity == other.contiguity &&
         divisibility == other.divisibility && constancy == other.constancy &&
         constant == other.constant;
}

void AxisInfo::print(llvm::raw_ostream &os) const {
  if (!initialized) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](const Dims &d) {
    os << "[";
    llvm::interleaveComma(d, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constant)
    os << ", constant = " << *constant;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {
/// The hints `tl.multiple_of` and friends put on an op (or a kernel argument)
/// raise what is known: knowledge only grows.
AxisInfo applyHints(AxisInfo info, DictionaryAttr attrs) {
  if (!attrs)
    return info;
  AxisInfo::Dims c = info.getContiguity(), v = info.getDivisibility(),
                 k = info.getConstancy();
  auto apply = [&](StringRef name, AxisInfo::Dims &dims) {
    Attribute a = attrs.get(name);
    if (auto i = dyn_cast_or_null<IntegerAttr>(a)) {
      for (int64_t &x : dims)
        x = std::max(x, i.getInt());
    } else if (auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(a)) {
      for (size_t d = 0; d < dims.size() && d < static_cast<size_t>(arr.size()); ++d)
        dims[d] = std::max(dims[d], arr[d]);
    }
  };
  apply(tile::kContiguityAttr, c);
  apply(tile::kDivisibilityAttr, v);
  apply(tile::kConstancyAttr, k);
  return AxisInfo(c, v, k, info.getConstantValue());
}

/// Addition (and pointer offsetting when |scale| is the pointee size).
AxisInfo addInfo(const AxisInfo &l, const AxisInfo &r, ArrayRef<int64_t> shape,
                 int64_t scale, bool isSub) {
  AxisInfo::Dims c, v, k;
  for (size_t d = 0; d < shape.size(); ++d) {
    // A run of consecutive values plus a constant stays consecutive.
    int64_t contig = gcd(l.getContiguity(d), r.getConstancy(d));
    if (!isSub)
      contig = std::max(contig, gcd(l.getConstancy(d), r.getContiguity(d)));
    c.push_back(contig);
    v.push_back(gcd(l.getDivisibility(d),
                    std::min(kMaxDivisibility, r.getDivisibility(d) * scale)));
    k.push_back(gcd(l.getConstancy(d), r.getConstancy(d)));
  }
  std::optional<int64_t> constant;
  if (l.getConstantValue() && r.getConstantValue())
    constant = isSub ? *l.getConstantValue() - *r.getConstantValue()
                     : *l.getConstantValue() + *r.getConstantValue() * scale;
  return AxisInfo(c, v, k, constant);
}

AxisInfo mulInfo(const AxisInfo &l, const AxisInfo &r, ArrayRef<int64_t> shape) {
  AxisInfo::Dims c, v, k;
  auto lc = l.getConstantValue(), rc = r.getConstantValue();
  for (size_t d = 0; d < shape.size(); ++d) {
    // x * 1 keeps x's runs.
    int64_t contig = 1;
    if (rc == 1)
      contig = l.getContiguity(d);
    else if (lc == 1)
      contig = r.getContiguity(d);
    c.push_back(contig);
    // Scaling a run [x, x+1, ...] breaks it into single elements, each of
    // which must then be divisible: only the run's start was, so a side
    // with runs longer than 1 counts as divisible by 1 (unless the other
    // side is 1, which keeps the runs).
    int64_t ld = l.getDivisibility(d), rd = r.getDivisibility(d);
    if (l.getContiguity(d) > 1 && rc != 1)
      ld = 1;
    if (r.getContiguity(d) > 1 && lc != 1)
      rd = 1;
    v.push_back(std::min(kMaxDivisibility, ld * rd));
    k.push_back(gcd(l.getConstancy(d), r.getConstancy(d)));
  }
  std::optional<int64_t> constant;
  if (lc && rc)
    constant = *lc * *rc;
  return AxisInfo(c, v, k, constant);
}

/// x % m with m the same along a dimension: a run of x keeps going until it
/// crosses a multiple of m, so runs are cut at m's divisibility.
AxisInfo remInfo(const AxisInfo &l, const AxisInfo &r, ArrayRef<int64_t> shape) {
  AxisInfo::Dims c, v, k;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool uniform = r.getConstancy(d) == shape[d];
    int64_t mDiv = r.getDivisibility(d);
    c.push_back(uniform ? gcd(l.getContiguity(d), mDiv) : 1);
    v.push_back(uniform ? gcd(l.getDivisibility(d), mDiv) : 1);
    k.push_back(gcd(l.getConstancy(d), r.getConstancy(d)));
  }
  return AxisInfo(c, v, k);
}

/// Comparisons: constant where both sides are, and `range < bound` is
/// constant over aligned runs of the range when the bound is divisible.
AxisInfo cmpInfo(arith::CmpIPredicate pred, const AxisInfo &l,
                 const AxisInfo &r, ArrayRef<int64_t> shape) {
  bool ordered = pred != arith::CmpIPredicate::eq && pred != arith::CmpIPredicate::ne;
  AxisInfo::Dims k;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t constancy = gcd(l.getConstancy(d), r.getConstancy(d));
    if (ordered && r.getConstancy(d) == shape[d])
      constancy = std::max(constancy,
                           gcd(l.getContiguity(d),
                               gcd(l.getDivisibility(d), r.getDivisibility(d))));
    if (ordered && l.getConstancy(d) == shape[d])
      constancy = std::max(constancy,
                           gcd(r.getContiguity(d),
                               gcd(r.getDivisibility(d), l.getDivisibility(d))));
    k.push_back(constancy);
  }
  return AxisInfo(filled(shape, 1), filled(shape, 1), k);
}
} // namespace

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getPoint();
  SmallVector<int64_t, 4> shape = shapeOf(value.getType());
  AxisInfo info = AxisInfo::pessimistic(shape.size());
  // Kernel arguments carry what specialization knows.
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (auto func = dyn_cast<tile::FuncOp>(arg.getOwner()->getParentOp()))
      if (arg.getOwner()->isEntryBlock())
        info = applyHints(info, func.getArgAttrDict(arg.getArgNumber()));
  propagateIfChanged(lattice, lattice->join(info));
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> argLattices, unsigned firstIndex) {
  // The induction variable of scf.for (the body's argument 0, before the
  // iter_args, when there are any): lb + i * step, so its divisibility is
  // what lb and step share.
  auto forOp = dyn_cast<scf::ForOp>(op);
  if (forOp && successor.getSuccessor() == &forOp.getRegion() &&
      !argLattices.empty() && firstIndex <= 1) {
    const AxisInfoLattice *lb =
        getLatticeElementFor(op, forOp.getLowerBound());
    const AxisInfoLattice *step =
        getLatticeElementFor(op, forOp.getStep());
    AxisInfo iv = AxisInfo::pessimistic(1);
    if (lb->getValue().isInitialized() && step->getValue().isInitialized())
      iv = AxisInfo({1},
                    {gcd(lb->getValue().getDivisibility(0),
                         step->getValue().getDivisibility(0))},
                    {1});
    propagateIfChanged(argLattices[0], argLattices[0]->join(iv));
    return;
  }
  SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
      op, successor, argLattices, firstIndex);
}

void AxisInfoAnalysis::visitOperation(Operation *op,
                                      ArrayRef<const AxisInfoLattice *> operands,
                                      ArrayRef<AxisInfoLattice *> results) {
  for (const AxisInfoLattice *o : operands)
    if (!o->getValue().isInitialized())
      return; // wait until every operand is known
  auto in = [&](unsigned i) -> const AxisInfo & { return operands[i]->getValue(); };
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    SmallVector<int64_t, 4> shape = shapeOf(result.getType());
    AxisInfo info = AxisInfo::pessimistic(shape.size());
    if (!isTracked(result.getType())) {
      propagateIfChanged(results[index], results[index]->join(info));
      continue;
    }
    IntegerAttr intAttr;
    SplatElementsAttr splat;
    if (matchPattern(result, m_Constant(&intAttr))) {
      int64_t v = intAttr.getValue().getSExtValue();
      info = AxisInfo(filled(shape, 1), filled(shape, AxisInfo::divisibilityOf(v)),
                      AxisInfo::Dims(shape.begin(), shape.end()), v);
    } else if (matchPattern(result, m_Constant(&splat)) &&
               isa<IntegerType>(splat.getElementType())) {
      int64_t v = splat.getSplatValue<APInt>().getSExtValue();
      info = AxisInfo(filled(shape, 1), filled(shape, AxisInfo::divisibilityOf(v)),
                      AxisInfo::Dims(shape.begin(), shape.end()), v);
    } else if (auto range = dyn_cast<tile::MakeRangeOp>(op)) {
      int64_t start = static_cast<int32_t>(range.getStart());
      info = AxisInfo({shape[0]}, {AxisInfo::divisibilityOf(start)}, {1});
    } else if (isa<tile::SplatOp>(op)) {
      const AxisInfo &s = in(0);
      info = AxisInfo(filled(shape, 1), filled(shape, s.getDivisibility(0)),
                      AxisInfo::Dims(shape.begin(), shape.end()),
                      s.getConstantValue());
    } else if (auto b = dyn_cast<tile::BroadcastOp>(op)) {
      const AxisInfo &s = in(0);
      auto srcShape = b.getSrc().getType().getShape();
      AxisInfo::Dims c, v, k;
      for (size_t d = 0; d < shape.size(); ++d) {
        bool stretched = srcShape[d] == 1 && shape[d] != 1;
        c.push_back(stretched ? 1 : s.getContiguity(d));
        v.push_back(s.getDivisibility(d));
        k.push_back(stretched ? shape[d] : s.getConstancy(d));
      }
      info = AxisInfo(c, v, k, s.getConstantValue());
    } else if (auto e = dyn_cast<tile::ExpandDimsOp>(op)) {
      const AxisInfo &s = in(0);
      int64_t axis = static_cast<int32_t>(e.getAxis());
      AxisInfo::Dims c = s.getContiguity(), v = s.getDivisibility(),
                     k = s.getConstancy();
      // The new dimension has size 1: its one element is a run of one.
      c.insert(c.begin() + axis, 1);
      v.insert(v.begin() + axis, 1);
      k.insert(k.begin() + axis, 1);
      info = AxisInfo(c, v, k, s.getConstantValue());
    } else if (auto t = dyn_cast<tile::TransOp>(op)) {
      const AxisInfo &s = in(0);
      AxisInfo::Dims c, v, k;
      for (int32_t d : t.getOrder()) {
        c.push_back(s.getContiguity(d));
        v.push_back(s.getDivisibility(d));
        k.push_back(s.getConstancy(d));
      }
      info = AxisInfo(c, v, k, s.getConstantValue());
    } else if (auto a = dyn_cast<tile::AddPtrOp>(op)) {
      info = addInfo(in(0), in(1), shape, pointeeBytes(a.getType()), false);
    } else if (isa<arith::AddIOp>(op)) {
      info = addInfo(in(0), in(1), shape, 1, false);
    } else if (isa<arith::SubIOp>(op)) {
      info = addInfo(in(0), in(1), shape, 1, true);
    } else if (isa<arith::MulIOp>(op)) {
      info = mulInfo(in(0), in(1), shape);
    } else if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
      info = remInfo(in(0), in(1), shape);
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      info = cmpInfo(cmp.getPredicate(), in(0), in(1), shape);
    } else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
                   tile::BitcastOp, tile::IntToPtrOp, tile::PtrToIntOp>(op)) {
      info = in(0);
    } else if (isa<arith::SelectOp>(op)) {
      info = AxisInfo::join(in(1), in(2));
      info = AxisInfo(filled(shape, 1), info.getDivisibility(),
                      elementwiseConstancyOnly({in(0), in(1), in(2)}, shape)
                          .getConstancy());
    } else if (isa<tile::LoadOp>(op)) {
      // Equal addresses read equal values.
      info = AxisInfo(filled(shape, 1), filled(shape, 1), in(0).getConstancy());
    } else if (op->hasTrait<OpTrait::Elementwise>() &&
               op->getNumOperands() > 0) {
      SmallVector<AxisInfo> ins;
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (in(i).getRank() == static_cast<int64_t>(shape.size()))
          ins.push_back(in(i));
      info = elementwiseConstancyOnly(ins, shape);
    }
    info = applyHints(info, op->getDiscardableAttrDictionary());
    propagateIfChanged(results[index], results[index]->join(info));
  }
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(Operation *root) {
  // Dead-code analysis marks blocks live; constant propagation feeds it.
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  (void)solver.initializeAndRun(root);
}

AxisInfo ModuleAxisInfo::get(Value value) const {
  SmallVector<int64_t, 4> shape = shapeOf(value.getType());
  const AxisInfoLattice *lattice = solver.lookupState<AxisInfoLattice>(value);
  if (!lattice || !lattice->getValue().isInitialized() ||
      lattice->getValue().getRank() != static_cast<int64_t>(shape.size()))
    return AxisInfo::pessimistic(shape.size());
  return lattice->getValue();
}
