//===- LayoutSelection.cpp - how the layout passes choose layouts ---------===//
#include "LayoutSelection.h"

#include "tegula/BackendKit/MatrixUnit.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>

using namespace mlir;
using namespace tegula;
using namespace tegula::tile;

//===----------------------------------------------------------------------===//
// GenericLayoutPolicy
//===----------------------------------------------------------------------===//

GenericLayoutPolicy::GenericLayoutPolicy(unsigned warpSize,
                                         unsigned maxAccessBytes,
                                         const backend::MatrixUnit *matrixUnit)
    : warpSize(warpSize), maxAccessBytes(maxAccessBytes),
      matrixUnit(matrixUnit) {}

std::optional<backend::MatrixInstruction>
GenericLayoutPolicy::selectMatrixInstruction(
    const backend::DotProblem &dot) const {
  if (!matrixUnit)
    return std::nullopt;
  return matrixUnit->selectInstruction(dot);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

unsigned tegula::tile::getNumWarps(ModuleOp module, unsigned requested) {
  if (requested)
    return requested;
  if (auto attr = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
    if (attr.getInt() > 0)
      return static_cast<unsigned>(attr.getInt());
  return 4;
}

Type tegula::tile::withLayout(Type type, Attribute layout) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getEncoding() == layout)
    return type;
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

Attribute tegula::tile::getLayout(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getEncoding();
  return {};
}

Attribute tegula::tile::getSliceLayout(Attribute parent, int64_t dim) {
  if (!isDistributedLayout(parent))
    return {};
  return SliceLayoutAttr::get(parent.getContext(), dim, parent);
}

Value tegula::tile::getCoalescablePointer(Operation *op) {
  Value ptr;
  if (auto load = dyn_cast<LoadOp>(op))
    ptr = load.getPtr();
  else if (auto store = dyn_cast<StoreOp>(op))
    ptr = store.getPtr();
  else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
    ptr = rmw.getPtr();
  else if (auto cas = dyn_cast<AtomicCASOp>(op))
    ptr = cas.getPtr();
  else
    return {};
  auto tensor = dyn_cast<RankedTensorType>(ptr.getType());
  if (!tensor || !isa<PointerType>(tensor.getElementType()))
    return {};
  return ptr;
}

bool tegula::tile::isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

namespace {
/// The plugin ABI's name of scalar type |type|, if it has one.
std::optional<tg_scalar_type> toScalarType(Type type) {
  if (type.isF16())
    return TG_TYPE_F16;
  if (type.isBF16())
    return TG_TYPE_BF16;
  if (type.isF32())
    return TG_TYPE_F32;
  if (type.isF64())
    return TG_TYPE_F64;
  if (type.isFloat8E4M3FN())
    return TG_TYPE_FP8E4M3;
  if (type.isFloat8E5M2())
    return TG_TYPE_FP8E5M2;
  if (type.isInteger(8))
    return TG_TYPE_I8;
  if (type.isInteger(16))
    return TG_TYPE_I16;
  if (type.isInteger(32))
    return TG_TYPE_I32;
  if (type.isInteger(64))
    return TG_TYPE_I64;
  return std::nullopt;
}

/// Dimensions from the last to the first: row-major order.
SmallVector<unsigned> getRowMajorOrder(int64_t rank) {
  SmallVector<unsigned> order;
  for (int64_t d = rank - 1; d >= 0; --d)
    order.push_back(static_cast<unsigned>(d));
  return order;
}

/// The width in bits layouts count for an element of |type| (pointers are
/// 64 bits; i1 is stored as a byte).
unsigned getElementBits(Type type) {
  return std::max(getScalarBitWidth(type), 8u);
}
} // namespace

//===----------------------------------------------------------------------===//
// LayoutSelector
//===----------------------------------------------------------------------===//

BlockedLayoutAttr LayoutSelector::toAttr(const backend::BlockedLayout &layout,
                                         RankedTensorType type,
                                         Location loc) const {
  std::string problem = layout.verify(policy.getWarpSize(), numWarps);
  if (problem.empty() &&
      layout.order.size() != static_cast<size_t>(type.getRank()))
    problem = "its rank differs from the tensor's";
  if (!problem.empty()) {
    emitError(loc) << "the layout policy chose an invalid layout for " << type
                   << ": " << problem;
    return {};
  }
  auto widen = [](ArrayRef<unsigned> values) {
    return SmallVector<int64_t>(values.begin(), values.end());
  };
  SmallVector<int64_t> sizePerThread = widen(layout.sizePerThread),
                       threadsPerWarp = widen(layout.threadsPerWarp),
                       warpsPerCTA = widen(layout.warpsPerBlock),
                       order = widen(layout.order);
  return BlockedLayoutAttr::getChecked(
      [&] {
        return emitError(loc)
               << "the layout policy chose an invalid layout for " << type
               << ": ";
      },
      type.getContext(), ArrayRef<int64_t>(sizePerThread),
      ArrayRef<int64_t>(threadsPerWarp), ArrayRef<int64_t>(warpsPerCTA),
      ArrayRef<int64_t>(order));
}

BlockedLayoutAttr LayoutSelector::getDefaultLayout(RankedTensorType type,
                                                   Location loc) const {
  backend::BlockedLayout layout = policy.getBlockedLayout(
      type.getShape(), getElementBits(type.getElementType()),
      getRowMajorOrder(type.getRank()), numWarps, /*contiguity=*/1);
  return toAttr(layout, type, loc);
}

BlockedLayoutAttr
LayoutSelector::getCoalescedLayout(Operation *op,
                                   const ModuleAxisInfo &axis) const {
  Value ptr = getCoalescablePointer(op);
  auto type = cast<RankedTensorType>(ptr.getType());
  AxisInfo info = axis.get(ptr);

  // Most contiguous dimension first; among equals the row-major order
  // (the last dimension first) wins. (std::sort with an explicit tie-break:
  // stable_sort trips a deprecation in libstdc++ 12 under clang.)
  SmallVector<unsigned> order = getRowMajorOrder(type.getRank());
  llvm::sort(order, [&](unsigned a, unsigned b) {
    if (info.getContiguity(a) != info.getContiguity(b))
      return info.getContiguity(a) > info.getContiguity(b);
    return a > b;
  });

  // A thread's vector must be contiguous and start aligned: the pointers'
  // divisibility (in bytes) along order[0] bounds it in elements.
  Type pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  unsigned bits = getElementBits(pointee);
  int64_t alignment =
      std::max<int64_t>(info.getDivisibility(order[0]) / (bits / 8), 1);
  int64_t contiguity = std::min(info.getContiguity(order[0]), alignment);

  backend::BlockedLayout layout = policy.getBlockedLayout(
      type.getShape(), bits, order, numWarps,
      static_cast<unsigned>(std::max<int64_t>(contiguity, 1)));
  return toAttr(layout, type, op->getLoc());
}

std::optional<backend::MatrixInstruction>
LayoutSelector::selectMatrixInstruction(DotOp dot, Type aElem,
                                        Type bElem) const {
  RankedTensorType a = dot.getA().getType(), d = dot.getType();
  int64_t rank = d.getRank();
  std::optional<tg_scalar_type> aType = toScalarType(aElem),
                                bType = toScalarType(bElem),
                                accType = toScalarType(d.getElementType());
  if (!aType || !bType || !accType)
    return std::nullopt;
  backend::DotProblem problem;
  problem.m = d.getDimSize(rank - 2);
  problem.n = d.getDimSize(rank - 1);
  problem.k = a.getDimSize(rank - 1);
  problem.batch = rank == 3 ? d.getDimSize(0) : 0;
  problem.aType = *aType;
  problem.bType = *bType;
  problem.accType = *accType;
  problem.numWarps = numWarps;
  problem.inputPrecision =
      stringifyInputPrecision(dot.getInputPrecision()).str();
  if (auto it = kContiguous.find(dot); it != kContiguous.end())
    std::tie(problem.aKContiguous, problem.bKContiguous) = it->second;
  return policy.selectMatrixInstruction(problem);
}

namespace {

/// The first dimension of the `order` of every tile.make_tensor_ptr that
/// |blockPointer| comes from (through tile.advance and loop-carried
/// values), or -1 when they differ or cannot be found.
int64_t blockPointerContiguousDim(Value blockPointer) {
  SmallVector<Value> worklist{blockPointer};
  llvm::SmallPtrSet<Value, 8> visited;
  int64_t dim = -1;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!visited.insert(value).second)
      continue;
    if (auto advance = value.getDefiningOp<AdvanceOp>()) {
      worklist.push_back(advance.getPtr());
    } else if (auto make = value.getDefiningOp<MakeTensorPtrOp>()) {
      ArrayRef<int32_t> order = make.getOrder();
      if (order.empty() || (dim >= 0 && dim != order.front()))
        return -1;
      dim = order.front();
    } else if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        return -1;
      unsigned index = arg.getArgNumber() - 1;
      worklist.push_back(loop.getInitArgs()[index]);
      worklist.push_back(loop.getYieldedValues()[index]);
    } else if (auto result = dyn_cast<OpResult>(value);
               result && isa<scf::ForOp>(result.getOwner())) {
      auto loop = cast<scf::ForOp>(result.getOwner());
      worklist.push_back(loop.getYieldedValues()[result.getResultNumber()]);
    } else {
      return -1;
    }
  }
  return dim;
}

} // namespace

void LayoutSelector::analyzeDotOperands(ModuleOp module,
                                        const ModuleAxisInfo &axis) {
  // Whether operand |value| (K along |kDim|) is fine K-major: anything not
  // loaded from memory is stored to shared memory from registers in any
  // order; a load keeps K-major only when K is its contiguous dimension (a
  // coalesced layout's first dimension with a vector along it) or it has
  // no contiguous dimension at all.
  auto kMajor = [&](Value value, int64_t kDim) {
    auto load = value.getDefiningOp<LoadOp>();
    if (!load)
      return true;
    if (isa<PointerType>(load.getPtr().getType())) {
      int64_t dim = blockPointerContiguousDim(load.getPtr());
      return dim < 0 || dim == kDim;
    }
    if (!getCoalescablePointer(load))
      return true;
    BlockedLayoutAttr layout = getCoalescedLayout(load, axis);
    if (!layout)
      return true;
    int64_t first = layout.getOrder().front();
    return first == kDim || layout.getSizePerThread()[first] == 1;
  };
  module.walk([&](DotOp dot) {
    int64_t rank = dot.getType().getRank();
    kContiguous[dot] = {kMajor(dot.getA(), rank - 1),
                        kMajor(dot.getB(), rank - 2)};
  });
}

bool LayoutSelector::shouldUpcastFp8Operands(DotOp dot) const {
  Type aElem = dot.getA().getType().getElementType(),
       bElem = dot.getB().getType().getElementType();
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  if (!isFp8(aElem) && !isFp8(bElem))
    return false;
  if (selectMatrixInstruction(dot, aElem, bElem))
    return false;
  Type f16 = Float16Type::get(dot.getContext());
  return selectMatrixInstruction(dot, isFp8(aElem) ? f16 : aElem,
                                 isFp8(bElem) ? f16 : bElem)
      .has_value();
}

LayoutSelector::DotLayouts LayoutSelector::getDotLayouts(DotOp dot) const {
  MLIRContext *ctx = dot.getContext();
  RankedTensorType a = dot.getA().getType(), d = dot.getType();
  std::optional<backend::MatrixInstruction> instr = selectMatrixInstruction(
      dot, a.getElementType(), dot.getB().getType().getElementType());

  DotLayouts layouts;
  int64_t kWidth = 0;
  if (instr) {
    if (!instr->unit) {
      dot.emitError() << "the layout policy selected a matrix instruction "
                         "without naming its matrix unit";
      return {};
    }
    // The family lays out the dot: its kind, its version, how it spreads
    // the warps and the shape of one instruction.
    backend::MatrixLayout chosen =
        instr->unit->getResultLayout(d.getShape(), *instr, numWarps);
    layouts.result = MatrixLayoutAttr::getChecked(
        [&] {
          return dot.emitError()
                 << "the layout policy chose an invalid matrix layout: ";
        },
        ctx, instr->unit->getKind(), ArrayRef<int64_t>(chosen.version),
        ArrayRef<int64_t>(chosen.warpsPerCTA),
        ArrayRef<int64_t>(chosen.instrShape));
    // The operand elements one thread keeps together along K: a 32-bit
    // register's worth (a simplification of the per-instruction rule).
    kWidth = std::max<int64_t>(1, 32 / getElementBits(a.getElementType()));
  } else {
    layouts.result = getDefaultLayout(d, dot.getLoc());
  }
  if (!layouts.result)
    return {};
  layouts.a = DotOperandLayoutAttr::get(ctx, 0, layouts.result, kWidth);
  layouts.b = DotOperandLayoutAttr::get(ctx, 1, layouts.result, kWidth);
  return layouts;
}
