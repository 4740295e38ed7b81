//===- DistDot.cpp - tl.dot in the distributed lowering -------------------===//
//
// D = A x B + C in one of three ways, by D's layout:
//  - a blocked layout: the portable dot. A and B are brought to the
//    dot-operand layouts of D's layout (through shared memory when they are
//    not already), in which a thread holds, for each of its rows of D, the
//    whole row of A, and for each of its columns, the whole column of B;
//    each accumulator register then takes K fused multiply-adds (Triton's
//    FMA dot). Operands are converted to the accumulator type first
//    (f16/bf16 to f32, i8 to i32); an f16 or bf16 result is computed in f32
//    and rounded.
//  - a `#tile.matrix` layout whose family (tegula/BackendKit/MatrixUnit.h)
//    reads its operands from registers: the operands are converted to the
//    family's operand layouts, and per instruction tile and K step the
//    fragments - each layout's registers covering one instruction tile, in
//    register order - go to MatrixUnit::buildMultiply.
//  - a `#tile.matrix` layout whose family reads its operands from shared
//    memory: each operand's conversion stores it, swizzled as the family
//    says, in an area of its own (copying a load straight from global
//    memory, asynchronously where the target has AsyncCopy, into a ring of
//    buffers when the loop is software-pipelined); the dot hands the
//    instructions of each group of warps to MatrixUnit::buildSharedMultiply.
// Which family, and everything about it, is asked of the registry of the
// compile: this file knows no family by name.
//
//===----------------------------------------------------------------------===//

#include "DistLowering.h"

#include "tegula/BackendKit/AsyncCopy.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

namespace {

/// The registers of |operand| (old value) in the dot-operand layout
/// |opIdx| of |parent|, and that layout.
FailureOr<std::pair<DistLayout, SmallVector<Value>>>
operandRegisters(DistLowerer &l, tile::DotOp op, Value operand, int64_t opIdx,
                 Attribute parent) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(operand.getType());
  FailureOr<DistLayout> from = l.layoutOf(type, loc);
  // A matrix unit's operand keeps a 32-bit register's worth of elements
  // together along K (as LayoutSelection chooses).
  int64_t kWidth = 0;
  if (isa<tile::MatrixLayoutAttr>(parent))
    kWidth = std::max<int64_t>(
        1,
        32 / std::max<int64_t>(8, l.storageBytes(type.getElementType()) * 8));
  auto wanted = RankedTensorType::get(
      type.getShape(), type.getElementType(),
      tile::DotOperandLayoutAttr::get(l.ctx, opIdx, parent, kWidth));
  FailureOr<DistLayout> to = l.layoutOf(wanted, loc);
  if (failed(from) || failed(to))
    return failure();
  SmallVector<Value> values =
      l.convert(loc, *from, l.regsOf(operand), type.getElementType(), *to);
  return std::pair{*to, values};
}

/// The first registers of |layout| (lane 0 of warp 0) that make one
/// instruction's fragment of |elements| elements per warp, or nothing when
/// the layout has fewer registers or they leave the instruction tile
/// |extent| (per dimension of the tile's last two). Lanes whose lane-id bit
/// has a zero basis hold the same elements as their partner (AMD's WMMA
/// operands: lanes 16-31 repeat lanes 0-15), so each lane holds
/// elements x 2^(zero lane bases) / warpSize of them.
std::optional<ArrayRef<Coords>> fragmentOf(const DistLowerer &l,
                                           const DistLayout &layout,
                                           int64_t elements,
                                           std::pair<int64_t, int64_t> extent) {
  int64_t copies = 1;
  for (const Coords &basis : layout.laneBases)
    if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
      copies *= 2;
  int64_t count = elements * copies / l.warpSize;
  if (count < 1 || count > layout.getNumRegs())
    return std::nullopt;
  ArrayRef<Coords> fragment =
      ArrayRef<Coords>(layout.regOffsets).take_front(count);
  int64_t rank = layout.getRank();
  for (const Coords &coords : fragment) {
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (coords[d] != 0)
        return std::nullopt;
    if (coords[rank - 2] >= extent.first || coords[rank - 1] >= extent.second)
      return std::nullopt;
  }
  return fragment;
}

/// A dot in the layout of a family that reads its operands from registers:
/// per instruction tile of the accumulator and per K step, the fragments go
/// to MatrixUnit::buildMultiply.
LogicalResult lowerMatrixDot(DistLowerer &l, tile::DotOp op,
                             tile::MatrixLayoutAttr matrix,
                             const backend::MatrixUnit &unit) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  Type aElem = aType.getElementType();
  Type bElem = cast<RankedTensorType>(op.getB().getType()).getElementType();
  Type dElem = dType.getElementType();
  backend::MatrixLayout layout = toMatrixLayout(matrix);
  std::string why;
  FailureOr<int64_t> instrK =
      unit.getInstructionK(layout, aElem, bElem, dElem, why);
  if (failed(instrK))
    return l.unsupported(op, why);
  FailureOr<DistLayout> dLayout = l.layoutOf(dType, loc);
  FailureOr<DistLayout> cLayout =
      l.layoutOf(cast<RankedTensorType>(op.getC().getType()), loc);
  if (failed(dLayout) || failed(cLayout))
    return failure();
  auto a = operandRegisters(l, op, op.getA(), 0, matrix);
  auto b = operandRegisters(l, op, op.getB(), 1, matrix);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<Value> acc = l.convert(loc, *cLayout, l.regsOf(op.getC()),
                                     dType.getElementType(), *dLayout);
  int64_t rank = dType.getRank();
  int64_t m = rank - 2, n = rank - 1;
  int64_t k = aType.getDimSize(rank - 1);
  if (k % *instrK != 0)
    return l.unsupported(op, "K must be a multiple of " +
                                 std::to_string(*instrK) + " for " +
                                 matrix.getKind());
  auto find = [&](const DistLayout &layout, Coords coords) -> int64_t {
    return layout.findReg(coords);
  };
  // One instruction's fragments: the registers of each layout that cover
  // an instruction tile (M x N for C, M x K for A, K x N for B), in register
  // order, as offsets from the tile's origin (the family's contract).
  ArrayRef<int64_t> instrShape = matrix.getInstrShape();
  if (instrShape.size() != 2)
    return l.unsupported(op, "a " + matrix.getKind() +
                                 " layout needs an M x N instruction shape");
  int64_t instrM = instrShape[0], instrN = instrShape[1];
  auto cOffsets = fragmentOf(l, *dLayout, instrM * instrN, {instrM, instrN});
  auto aOffsets = fragmentOf(l, a->first, instrM * *instrK, {instrM, *instrK});
  auto bOffsets = fragmentOf(l, b->first, *instrK * instrN, {*instrK, instrN});
  if (!cOffsets || !aOffsets || !bOffsets)
    return l.unsupported(op, "the dot's tile is smaller than an " +
                                 matrix.getKind() + " instruction");
  // A register starts an instruction tile when it has none of the bits of
  // the accumulator fragment's offsets.
  Coords tileBits(rank, 0);
  for (const Coords &offset : *cOffsets)
    for (int64_t d = 0; d < rank; ++d)
      tileBits[d] |= offset[d];
  for (auto [r, coords] : llvm::enumerate(dLayout->regOffsets)) {
    if (llvm::any_of(llvm::seq<int64_t>(0, rank),
                     [&](int64_t d) { return coords[d] & tileBits[d]; }))
      continue;
    SmallVector<int64_t> cRegs;
    for (const Coords &offset : *cOffsets) {
      Coords at(coords);
      at[m] += offset[m];
      at[n] += offset[n];
      cRegs.push_back(find(*dLayout, at));
    }
    if (llvm::is_contained(cRegs, -1))
      return l.unsupported(op, "the dot's tile is smaller than an " +
                                   matrix.getKind() + " instruction");
    SmallVector<Value> c;
    for (int64_t reg : cRegs)
      c.push_back(acc[reg]);
    for (int64_t kBase = 0; kBase < k; kBase += *instrK) {
      SmallVector<Value> aFragment, bFragment;
      for (const Coords &offset : *aOffsets) {
        Coords coordsA(coords);
        coordsA[m] += offset[m];
        coordsA[n] = kBase + offset[n];
        int64_t reg = find(a->first, coordsA);
        if (reg < 0)
          return l.unsupported(op, "dot operand A does not line up with the " +
                                       matrix.getKind() + " fragments");
        aFragment.push_back(a->second[reg]);
      }
      for (const Coords &offset : *bOffsets) {
        Coords coordsB(coords);
        coordsB[m] = kBase + offset[m];
        coordsB[n] += offset[n];
        int64_t reg = find(b->first, coordsB);
        if (reg < 0)
          return l.unsupported(op, "dot operand B does not line up with the " +
                                       matrix.getKind() + " fragments");
        bFragment.push_back(b->second[reg]);
      }
      FailureOr<SmallVector<Value>> d =
          unit.buildMultiply(l.b, loc, layout, aFragment, bFragment, c);
      if (failed(d))
        return l.unsupported(op, "the target has no " + matrix.getKind() +
                                     " instruction for these types");
      c = *d;
    }
    for (auto [i, reg] : llvm::enumerate(cRegs))
      acc[reg] = c[i];
  }
  l.setRegs(op.getD(), acc);
  return success();
}

/// The element offset (i32) of element (|contiguous|, |strided|) of a
/// shared operand from its first element, before the swizzle: atoms of
/// |atom| elements along the contiguous dimension, |rows| rows each.
Value operandElementOffset(DistLowerer &l, Location loc, Value contiguous,
                           Value strided, int64_t atom, int64_t rows) {
  OpBuilder &b = l.b;
  int64_t shift = llvm::Log2_64(atom);
  Value atomIndex =
      b.create<arith::ShRUIOp>(loc, contiguous, l.constI32(loc, shift));
  Value inAtom =
      b.create<arith::AndIOp>(loc, contiguous, l.constI32(loc, atom - 1));
  Value offset =
      b.create<arith::MulIOp>(loc, atomIndex, l.constI32(loc, atom * rows));
  offset = b.create<arith::AddIOp>(
      loc, offset,
      b.create<arith::ShLIOp>(loc, strided, l.constI32(loc, shift)));
  return b.create<arith::AddIOp>(loc, offset, inAtom);
}

/// The i32 shared-memory address of byte |offset| (an i32 value) of the
/// operand area.
Value operandAddress(DistLowerer &l, Location loc, Value offset) {
  OpBuilder &b = l.b;
  Value pointer =
      b.create<LLVM::GEPOp>(loc, l.sharedOperandBase.getType(), b.getI8Type(),
                            l.sharedOperandBase, ValueRange{offset});
  return b.create<LLVM::PtrToIntOp>(loc, b.getI32Type(), pointer);
}

/// A dot in the layout of a family that reads its operands from shared
/// memory: both operands were stored there by their convert_layout
/// (lowerSharedMatrixOperand), or A stayed in the registers of an earlier
/// dot; every group of MatrixUnit::getWarpsPerInstruction() warps issues
/// instrShape M x N x K instructions over its rows and columns of the
/// accumulator, all in one MatrixUnit::buildSharedMultiply group.
LogicalResult lowerSharedMatrixDot(DistLowerer &l, tile::DotOp op,
                                   tile::MatrixLayoutAttr matrix,
                                   const backend::MatrixUnit &unit) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  Type bElem = cast<RankedTensorType>(op.getB().getType()).getElementType();
  backend::MatrixLayout layout = toMatrixLayout(matrix);
  auto aIt = l.sharedOperands.find(op.getA());
  auto bIt = l.sharedOperands.find(op.getB());
  if (aIt == l.sharedOperands.end() || bIt == l.sharedOperands.end())
    return l.unsupported(op, "the operands of a " + matrix.getKind() +
                                 " dot must come straight from a layout "
                                 "conversion");
  const DistLowerer::SharedOperand &aShared = aIt->second,
                                   &bShared = bIt->second;
  std::string why;
  FailureOr<int64_t> instrK = unit.getInstructionK(
      layout, aType.getElementType(), bElem, dType.getElementType(), why);
  if (failed(instrK))
    return l.unsupported(op, why);
  ArrayRef<int64_t> warps = matrix.getWarpsPerCTA();
  int64_t group = unit.getWarpsPerInstruction(layout);
  if (dType.getRank() != 2 || warps.size() != 2 ||
      matrix.getInstrShape().size() != 2 || group < 1 ||
      !llvm::isPowerOf2_64(group) || warps[0] % group != 0 ||
      matrix.getInstrShape()[0] % group != 0)
    return l.unsupported(op, "a " + matrix.getKind() +
                                 " dot needs a 2-D tile, an M x N "
                                 "instruction shape and whole groups of "
                                 "warps along M");
  FailureOr<DistLayout> dLayout = l.layoutOf(dType, loc);
  FailureOr<DistLayout> cLayout =
      l.layoutOf(cast<RankedTensorType>(op.getC().getType()), loc);
  if (failed(dLayout) || failed(cLayout))
    return failure();
  SmallVector<Value> acc = l.convert(loc, *cLayout, l.regsOf(op.getC()),
                                     dType.getElementType(), *dLayout);
  int64_t wm = warps[0], wn = warps[1];
  int64_t instrM = matrix.getInstrShape()[0],
          instrN = matrix.getInstrShape()[1];
  // The rows of one instruction each warp of its group holds.
  int64_t rowsPerWarp = instrM / group;
  int64_t m = dType.getDimSize(0), n = dType.getDimSize(1),
          k = aType.getDimSize(1);
  if (m % (rowsPerWarp * wm) || n % (instrN * wn) || k % *instrK)
    return l.unsupported(op, "the dot's tile does not divide into the " +
                                 matrix.getKind() +
                                 " instructions of its groups of warps");
  // An instruction's accumulators: the registers of the accumulator layout
  // that cover one instruction's rows of this warp, in register order.
  auto accOffsets =
      fragmentOf(l, *dLayout, rowsPerWarp * instrN, {rowsPerWarp, instrN});
  if (!accOffsets)
    return l.unsupported(op, "the accumulator does not line up with the " +
                                 matrix.getKind() + " registers");
  // This warp's group: along M (|group| warps each), and along N.
  Value groupM = b.create<arith::AndIOp>(
      loc,
      b.create<arith::ShRUIOp>(loc, l.warpId,
                               l.constI32(loc, llvm::Log2_64(group))),
      l.constI32(loc, wm / group - 1));
  Value groupN = b.create<arith::ShRUIOp>(loc, l.warpId,
                                          l.constI32(loc, llvm::Log2_64(wm)));
  Value rowBase = b.create<arith::MulIOp>(loc, groupM, l.constI32(loc, instrM));
  Value colBase = b.create<arith::MulIOp>(loc, groupN, l.constI32(loc, instrN));

  // An operand's address is a root per M (A) or N (B) position plus a
  // constant per K step (arith.addi of an arith.constant): the K steps move
  // by whole 16-element slices, which the swizzle leaves linear. A target
  // can then derive every step's descriptor from the root's by an immediate
  // add instead of keeping one per step live (the Q operand of attention:
  // 16 descriptors across the whole loop).
  auto root = [&](const DistLowerer::SharedOperand &shared, int64_t kDim,
                  Value mn) {
    Value zero = l.constI32(loc, 0);
    bool kContiguous = shared.contiguousDim == kDim;
    Value element = operandElementOffset(
        l, loc, kContiguous ? zero : mn, kContiguous ? mn : zero,
        shared.swizzleBytes / shared.elementBytes, shared.rows);
    Value bytes = b.create<arith::AddIOp>(
        loc,
        b.create<arith::ShLIOp>(
            loc, element,
            l.constI32(loc, llvm::Log2_64(shared.elementBytes))),
        shared.dynamicOffset ? shared.dynamicOffset
                             : l.constI32(loc, shared.offset));
    return operandAddress(l, loc, bytes);
  };
  auto address = [&](const DistLowerer::SharedOperand &shared, int64_t kDim,
                     Value rootAddress, int64_t kk) {
    bool kContiguous = shared.contiguousDim == kDim;
    int64_t atom = shared.swizzleBytes / shared.elementBytes;
    // Element offset of (mn, kk) minus that of (mn, 0), as in
    // operandElementOffset: along the contiguous dimension whole atoms of
    // |rows| rows plus the position in the atom, else |atom| per row.
    int64_t element =
        kContiguous ? (kk / atom) * atom * shared.rows + kk % atom : kk * atom;
    backend::SharedMatrixOperand operand;
    operand.address =
        element ? b.create<arith::AddIOp>(
                      loc, rootAddress,
                      l.constI32(loc, element * shared.elementBytes))
                      .getResult()
                : rootAddress;
    operand.mnMajor = !kContiguous;
    operand.swizzleBytes = shared.swizzleBytes;
    operand.atomStrideBytes = shared.swizzleBytes * shared.rows;
    return operand;
  };

  backend::SharedMatrixMultiply instructions;
  instructions.pendingGroups = l.asyncDots.contains(op) ? 1 : 0;
  instructions.m = instrM;
  instructions.n = instrN;
  instructions.k = *instrK;
  instructions.aType = aType.getElementType();
  instructions.bType = bElem;
  // A from registers: the registers of its layout that cover one
  // instruction's rows of this warp by K, in register order, packed into
  // 32-bit registers.
  std::optional<ArrayRef<Coords>> aOffsets;
  if (aShared.registerLayout) {
    aOffsets = fragmentOf(l, *aShared.registerLayout, rowsPerWarp * *instrK,
                          {rowsPerWarp, *instrK});
    if (!aOffsets)
      return l.unsupported(op, "dot operand A does not line up with the " +
                                   matrix.getKind() + " register fragments");
  }
  for (int64_t mRep = 0; mRep < m / (rowsPerWarp * wm); ++mRep)
    for (int64_t nRep = 0; nRep < n / (instrN * wn); ++nRep) {
      int64_t row0 = mRep * rowsPerWarp * wm, col0 = nRep * instrN * wn;
      SmallVector<int64_t> accIndices;
      for (const Coords &offset : *accOffsets) {
        int64_t reg = dLayout->findReg({row0 + offset[0], col0 + offset[1]});
        if (reg < 0)
          return l.unsupported(op, "the accumulator does not line up with "
                                   "the " +
                                       matrix.getKind() + " registers");
        accIndices.push_back(reg);
      }
      Value rows = b.create<arith::AddIOp>(loc, rowBase, l.constI32(loc, row0));
      Value cols = b.create<arith::AddIOp>(loc, colBase, l.constI32(loc, col0));
      Value aRoot = aShared.registerLayout ? Value() : root(aShared, 1, rows);
      Value bRoot = root(bShared, 0, cols);
      for (int64_t kk = 0; kk < k; kk += *instrK) {
        backend::SharedMatrixMultiply::Instruction instruction;
        if (aShared.registerLayout) {
          SmallVector<Value> fragment;
          for (const Coords &offset : *aOffsets) {
            int64_t reg = aShared.registerLayout->findReg(
                {row0 + offset[0], kk + offset[1]});
            if (reg < 0)
              return l.unsupported(op, "dot operand A does not line up with "
                                       "the " +
                                           matrix.getKind() +
                                           " register fragments");
            fragment.push_back(aShared.registers[reg]);
          }
          Type elem = fragment.front().getType();
          int64_t perRegister =
              std::max<int64_t>(1, 32 / elem.getIntOrFloatBitWidth());
          auto packType = VectorType::get({perRegister}, elem);
          for (size_t i = 0; i < fragment.size(); i += perRegister) {
            Value pack = b.create<LLVM::PoisonOp>(loc, packType);
            for (int64_t e = 0; e < perRegister; ++e)
              pack = b.create<LLVM::InsertElementOp>(loc, pack, fragment[i + e],
                                                     l.constI32(loc, e));
            instruction.a.registers.push_back(
                b.create<LLVM::BitcastOp>(loc, b.getI32Type(), pack));
          }
        } else {
          instruction.a = address(aShared, 1, aRoot, kk);
        }
        instruction.b = address(bShared, 0, bRoot, kk);
        instruction.accIndices = accIndices;
        instructions.instructions.push_back(std::move(instruction));
      }
    }
  FailureOr<SmallVector<Value>> result =
      unit.buildSharedMultiply(b, loc, layout, instructions, acc);
  if (failed(result))
    return l.unsupported(op, "the target has no " + matrix.getKind() +
                                 " instruction for these types");
  l.setRegs(op.getD(), *result);
  return success();
}

LogicalResult lowerDot(DistLowerer &l, tile::DotOp op, const DotTypes &types) {
  auto [aType, bType, dType, aElem, bElem, dElem, acc] = types;
  Location loc = op.getLoc();
  Attribute parent = dType.getEncoding();
  if (!parent) {
    // No layout: the default blocked layout, spelled out.
    return l.unsupported(op, "a dot whose result has no layout (run "
                             "tile::assignLayouts first)");
  }
  if (auto matrix = dyn_cast<tile::MatrixLayoutAttr>(parent)) {
    const backend::MatrixUnit *unit = l.getMatrixUnit(matrix, loc);
    if (!unit)
      return failure();
    if (unit->readsSharedOperands(toMatrixLayout(matrix)))
      return lowerSharedMatrixDot(l, op, matrix, *unit);
    return lowerMatrixDot(l, op, matrix, *unit);
  }
  if (!isa<tile::BlockedLayoutAttr>(parent))
    return l.unsupported(op, "a dot whose result is neither blocked nor a "
                             "matrix-unit layout");
  FailureOr<DistLayout> dLayout = l.layoutOf(dType, loc);
  FailureOr<DistLayout> cLayout =
      l.layoutOf(cast<RankedTensorType>(op.getC().getType()), loc);
  if (failed(dLayout) || failed(cLayout))
    return failure();
  auto a = operandRegisters(l, op, op.getA(), 0, parent);
  auto bOperand = operandRegisters(l, op, op.getB(), 1, parent);
  if (failed(a) || failed(bOperand))
    return failure();
  SmallVector<Value> c =
      l.convert(loc, *cLayout, l.regsOf(op.getC()), dElem, *dLayout);

  int64_t rank = dType.getRank();
  int64_t k = aType.getDimSize(rank - 1);
  std::map<Coords, int64_t> aRegs, bRegs;
  for (auto [i, coords] : llvm::enumerate(a->first.regOffsets))
    aRegs[coords] = i;
  for (auto [i, coords] : llvm::enumerate(bOperand->first.regOffsets))
    bRegs[coords] = i;
  // Operands converted once each.
  DenseMap<Value, Value> converted;
  auto operand = [&](Value value, Type from) {
    auto [it, inserted] = converted.try_emplace(value, Value());
    if (inserted)
      it->second = convertDotOperand(l, loc, value, from, acc, 1);
    return it->second;
  };
  SmallVector<Value> result;
  for (auto [r, coords] : llvm::enumerate(dLayout->regOffsets)) {
    Value sum = convertDotOperand(l, loc, c[r], dElem, acc, 1);
    for (int64_t kk = 0; kk < k; ++kk) {
      Coords aAt(coords), bAt(coords);
      aAt[rank - 1] = kk;
      bAt[rank - 2] = kk;
      auto ai = aRegs.find(aAt), bi = bRegs.find(bAt);
      if (ai == aRegs.end() || bi == bRegs.end())
        return l.unsupported(op, "dot operand registers do not line up with "
                                 "the result's");
      Value x = operand(a->second[ai->second], aElem);
      Value y = operand(bOperand->second[bi->second], bElem);
      sum = multiplyAdd(l, loc, x, y, sum);
    }
    result.push_back(roundAccumulator(l, loc, sum, acc, dElem, 1));
  }
  l.setRegs(op.getD(), result);
  return success();
}

} // namespace

bool tegula::isSharedMatrixOperand(Type type,
                                   const backend::MatrixUnitRegistry &units) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto operand =
      tensor
          ? dyn_cast_or_null<tile::DotOperandLayoutAttr>(tensor.getEncoding())
          : nullptr;
  auto matrix =
      operand ? dyn_cast<tile::MatrixLayoutAttr>(operand.getParent()) : nullptr;
  if (!matrix)
    return false;
  const backend::MatrixUnit *unit = units.lookup(matrix.getKind());
  return unit && unit->readsSharedOperands(lowering::toMatrixLayout(matrix));
}

/// A layout for copying a 2-D tile of |shape| contiguous along |dim| from
/// memory: 16 bytes per thread along |dim|, lanes along it first, warps
/// along the other dimension first.
static FailureOr<DistLayout> copyLayout(DistLowerer &l, RankedTensorType type,
                                        int64_t dim, Location loc) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t other = 1 - dim;
  SmallVector<int64_t> size(2, 1), lanes(2, 1), warps(2, 1);
  size[dim] =
      std::min<int64_t>(16 / l.storageBytes(type.getElementType()), shape[dim]);
  lanes[dim] = std::min<int64_t>(l.warpSize, shape[dim] / size[dim]);
  lanes[other] = l.warpSize / lanes[dim];
  warps[other] =
      std::clamp<int64_t>(shape[other] / lanes[other], 1, l.numWarps);
  warps[dim] = l.numWarps / warps[other];
  SmallVector<int64_t> order = {dim, other};
  auto layout = tile::BlockedLayoutAttr::get(l.ctx, size, lanes, warps, order);
  return l.layoutOf(RankedTensorType::get(shape, type.getElementType(), layout),
                    loc);
}

namespace {

/// Where a shared matrix operand's elements go: the layout its registers
/// (or copies) come in, and the swizzled tile they make.
struct OperandPlacement {
  DistLayout layout;
  int64_t contiguous = 1, swizzle = 128, rows = 0;
  int64_t bytes = 0;
  /// 2 (16-bit elements) or 1 (8-bit elements, always contiguous along K).
  int64_t elementBytes = 2;
};

/// The family of the dot operand layout of |convertResult| (a conversion
/// to a shared matrix operand: isSharedMatrixOperand said its family is
/// registered) and that layout.
std::pair<const backend::MatrixUnit *, tile::MatrixLayoutAttr>
sharedOperandUnit(DistLowerer &l, Value convertResult) {
  auto matrix = cast<tile::MatrixLayoutAttr>(
      cast<tile::DotOperandLayoutAttr>(
          cast<RankedTensorType>(convertResult.getType()).getEncoding())
          .getParent());
  return {l.matrixUnits.lookup(matrix.getKind()), matrix};
}

int64_t operandIndex(Value convertResult) {
  return cast<tile::DotOperandLayoutAttr>(
             cast<RankedTensorType>(convertResult.getType()).getEncoding())
      .getOpIdx();
}

/// The placement of the operand that |convertResult| converts to shared
/// memory, a tile of |type| coming from |load| (a load copied straight to
/// shared memory, or null: registers of |type|), swizzled as its family
/// says.
FailureOr<OperandPlacement> placeOperand(DistLowerer &l, Operation *anchor,
                                         RankedTensorType type,
                                         Value convertResult,
                                         tile::LoadOp load) {
  Location loc = anchor->getLoc();
  int64_t opIdx = operandIndex(convertResult);
  int64_t elementBytes = l.storageBytes(type.getElementType());
  if (type.getRank() != 2 || (elementBytes != 2 && elementBytes != 1))
    return l.unsupported(anchor, "a shared matrix operand is a 2-D tile of "
                                 "8- or 16-bit elements");
  OperandPlacement placement;
  placement.elementBytes = elementBytes;
  int64_t kDim = opIdx == 0 ? 1 : 0;
  FailureOr<DistLayout> from = failure();
  if (load && isa<tile::PointerType>(load.getPtr().getType())) {
    int64_t dim = getBlockContiguousDim(l, load.getPtr());
    from = copyLayout(l, type, dim >= 0 ? dim : kDim, loc);
  } else {
    from = l.layoutOf(type, loc);
  }
  if (failed(from))
    return failure();
  placement.layout = *from;
  // Contiguous along the registers' run (a vector per run), else along K.
  // 8-bit operands always along K (the layout engine chose the dot's
  // instruction knowing how they are loaded; registers store in any order).
  int64_t run = from->getRunDim();
  placement.contiguous = run >= 0 ? run : kDim;
  if (elementBytes == 1 && placement.contiguous != kDim) {
    if (load)
      return l.unsupported(anchor, "an 8-bit shared matrix operand must be "
                                   "loaded from memory contiguous along K");
    placement.contiguous = kDim;
  }
  int64_t extent = type.getDimSize(placement.contiguous);
  placement.rows = type.getDimSize(1 - placement.contiguous);
  auto [unit, matrix] = sharedOperandUnit(l, convertResult);
  std::string why;
  FailureOr<int64_t> swizzle = unit->getSharedOperandSwizzle(
      toMatrixLayout(matrix), extent, placement.rows, elementBytes * 8, why);
  if (failed(swizzle))
    return l.unsupported(anchor, why);
  placement.swizzle = *swizzle;
  placement.bytes = llvm::alignTo(type.getNumElements() * elementBytes, 1024);
  return placement;
}

/// The shared address of the element at |coords| of an operand placed as
/// |placement| at byte |offset| (i32) of the operand area: its 16-byte
/// chunk within the atom's row XOR the row's phase.
Value swizzledAddress(DistLowerer &l, Location loc,
                      const OperandPlacement &placement, Value offset,
                      ArrayRef<Value> coords) {
  OpBuilder &b = l.b;
  int64_t eb = placement.elementBytes;
  int64_t atom = placement.swizzle / eb;
  int64_t perPhase = 128 / placement.swizzle, maxPhase = placement.swizzle / 16;
  Value col = coords[placement.contiguous],
        row = coords[1 - placement.contiguous];
  Value element = operandElementOffset(l, loc, col, row, atom, placement.rows);
  Value phase = b.create<arith::AndIOp>(
      loc,
      b.create<arith::ShRUIOp>(loc, row,
                               l.constI32(loc, llvm::Log2_64(perPhase))),
      l.constI32(loc, maxPhase - 1));
  // The phase permutes 16-byte chunks: 16 / eb elements each.
  element = b.create<arith::XOrIOp>(
      loc, element,
      b.create<arith::ShLIOp>(loc, phase,
                              l.constI32(loc, llvm::Log2_64(16 / eb))));
  Value bytes = b.create<arith::AddIOp>(
      loc,
      b.create<arith::ShLIOp>(loc, element,
                              l.constI32(loc, llvm::Log2_64(eb))),
      offset);
  return b.create<LLVM::GEPOp>(loc, l.sharedOperandBase.getType(),
                               b.getI8Type(), l.sharedOperandBase,
                               ValueRange{bytes});
}

/// The element offset of (|row|, |col|) (along the other and the contiguous
/// dimension) in an operand placed as |placement|: swizzledAddress's
/// arithmetic on numbers.
int64_t swizzledElement(const OperandPlacement &placement, int64_t row,
                        int64_t col) {
  int64_t eb = placement.elementBytes;
  int64_t atom = placement.swizzle / eb;
  int64_t perPhase = 128 / placement.swizzle, maxPhase = placement.swizzle / 16;
  int64_t element = (col / atom) * atom * placement.rows + row * atom +
                    col % atom;
  return element ^ (((row / perPhase) % maxPhase) * (16 / eb));
}

/// The shared addresses of the registers of |layout| in an operand placed
/// as |placement| at byte |offset| (i32) of the operand area. A register
/// whose element lies the same distance from register 0's in every thread
/// (copies 8k rows apart see the same swizzle phase) is register 0's
/// address plus that distance, an immediate of the access, instead of an
/// address computed and kept per register.
class OperandAddresses {
public:
  OperandAddresses(DistLowerer &l, Location loc,
                   const OperandPlacement &placement, Value offset,
                   const DistLayout &layout)
      : l(l), loc(loc), placement(placement), offset(offset), layout(layout) {
    int64_t threads = int64_t(1)
                      << (layout.laneBases.size() + layout.warpBases.size());
    for (int64_t t = 0; t < threads; ++t) {
      Coords coords(layout.getRank(), 0);
      for (auto [bit, basis] : llvm::enumerate(llvm::concat<const Coords>(
               layout.laneBases, layout.warpBases)))
        if (t >> bit & 1)
          for (int64_t d = 0; d < layout.getRank(); ++d)
            coords[d] ^= basis[d];
      threadCoords.push_back(std::move(coords));
    }
  }

  Value get(int64_t reg) {
    std::optional<int64_t> distance = reg ? distanceFromFirst(reg) : 0;
    if (!distance)
      return swizzledAddress(l, loc, placement, offset,
                             l.regCoords(loc, layout, reg));
    if (!first)
      first = swizzledAddress(l, loc, placement, offset,
                              l.regCoords(loc, layout, 0));
    if (*distance == 0)
      return first;
    return l.b.create<LLVM::GEPOp>(
        loc, first.getType(), l.b.getI8Type(), first,
        ArrayRef<LLVM::GEPArg>{
            static_cast<int32_t>(*distance * placement.elementBytes)});
  }

private:
  /// The element distance from register 0 to |reg|, when every thread has
  /// the same.
  std::optional<int64_t> distanceFromFirst(int64_t reg) const {
    std::optional<int64_t> distance;
    int64_t contiguous = placement.contiguous;
    for (const Coords &thread : threadCoords) {
      auto element = [&](int64_t r) {
        const Coords &at = layout.regOffsets[r];
        return swizzledElement(placement,
                               at[1 - contiguous] ^ thread[1 - contiguous],
                               at[contiguous] ^ thread[contiguous]);
      };
      int64_t d = element(reg) - element(0);
      if (distance && *distance != d)
        return std::nullopt;
      distance = d;
    }
    return distance;
  }

  DistLowerer &l;
  Location loc;
  const OperandPlacement &placement;
  Value offset;
  const DistLayout &layout;
  SmallVector<Coords> threadCoords;
  Value first;
};

/// Ends the conversion to a shared operand |result| placed as |placement|:
/// this thread's writes made visible to the matrix unit, every thread's
/// done (a barrier) unless |synchronize| is false (a later conversion does
/// both), the place recorded for the dot.
LogicalResult finishSharedOperand(DistLowerer &l, Location loc, Value result,
                                  DistLowerer::SharedOperand shared,
                                  const OperandPlacement &placement,
                                  bool synchronize = true) {
  if (synchronize) {
    sharedOperandUnit(l, result).first->buildSharedOperandFence(l.b, loc);
    l.barrier(loc);
  }
  shared.contiguousDim = placement.contiguous;
  shared.swizzleBytes = placement.swizzle;
  shared.elementBytes = placement.elementBytes;
  shared.rows = placement.rows;
  l.sharedOperands[result] = shared;
  l.setRegs(result, {});
  return success();
}

} // namespace

namespace {

/// Whether |operand|, a dot operand, is a conversion that the dot's family
/// takes from the registers of an earlier dot's accumulator layout of the
/// same family, version and warps (the probabilities of attention).
bool isRegisterOperand(DistLowerer &l, Value operand) {
  auto convert = operand.getDefiningOp<tile::ConvertLayoutOp>();
  if (!convert || !isSharedMatrixOperand(convert.getType(), l.matrixUnits))
    return false;
  auto type = cast<RankedTensorType>(convert.getSrc().getType());
  auto sourceMatrix =
      dyn_cast_or_null<tile::MatrixLayoutAttr>(type.getEncoding());
  auto [unit, dotMatrix] = sharedOperandUnit(l, convert.getResult());
  return sourceMatrix && sourceMatrix.getKind() == dotMatrix.getKind() &&
         sourceMatrix.getVersion() == dotMatrix.getVersion() &&
         sourceMatrix.getWarpsPerCTA() == dotMatrix.getWarpsPerCTA() &&
         unit->takesRegisterOperand(toMatrixLayout(dotMatrix),
                                    operandIndex(convert.getResult()),
                                    l.storageBytes(type.getElementType()) * 8);
}

/// In the body of |loop|, a pipelined loop whose asynchronous operand loads
/// are |loads|: the conversions that leave their fence and barrier to a
/// later one of the same run, and the dots that may stay in flight across
/// iterations (DistLowerer::asyncSyncDeferred, asyncDots).
void findAsyncDots(DistLowerer &l, scf::ForOp loop,
                   ArrayRef<Operation *> loads) {
  Block *body = loop.getBody();
  // A run of conversions with nothing between them that has side effects or
  // reads what an earlier one of the run converted: the last one's barrier
  // serves them all.
  Operation *previous = nullptr;
  llvm::SmallPtrSet<Operation *, 4> run;
  for (Operation &op : body->without_terminator()) {
    bool readsRun = llvm::any_of(op.getOperands(), [&](Value operand) {
      return run.contains(operand.getDefiningOp());
    });
    if (l.asyncPending.count(&op) && !readsRun) {
      if (previous)
        l.asyncSyncDeferred.insert(previous);
      previous = &op;
      run.insert(&op);
    } else if (readsRun || !isMemoryEffectFree(&op) ||
               op.getNumRegions() != 0) {
      previous = nullptr;
      run.clear();
    }
  }

  // Conversions that need no wait of their own: an earlier conversion of
  // the body already waited for at least their copies, fenced and met the
  // other threads at a barrier, and no copy was issued since (attention's
  // V, whose copies landed with K's).
  std::optional<int64_t> synced;
  for (Operation &op : body->without_terminator()) {
    if (llvm::is_contained(loads, &op) ||
        (op.getNumRegions() != 0 && !isMemoryEffectFree(&op))) {
      synced.reset();
      continue;
    }
    auto pending = l.asyncPending.find(&op);
    if (pending == l.asyncPending.end() || l.asyncSyncDeferred.contains(&op))
      continue;
    if (synced && pending->second >= *synced)
      l.asyncSyncDone.insert(&op);
    else
      synced = pending->second;
  }

  for (Operation &op : body->without_terminator()) {
    auto dot = dyn_cast<tile::DotOp>(&op);
    if (!dot)
      continue;
    auto matrix = dyn_cast_or_null<tile::MatrixLayoutAttr>(
        cast<RankedTensorType>(dot.getD().getType()).getEncoding());
    const backend::MatrixUnit *unit =
        matrix ? l.matrixUnits.lookup(matrix.getKind()) : nullptr;
    if (!unit || !unit->readsSharedOperands(toMatrixLayout(matrix)) ||
        !unit->hasAsyncGroups(toMatrixLayout(matrix)))
      continue;
    // The result goes to the next iteration alone.
    if (!dot.getD().hasOneUse() ||
        dot.getD().getUses().begin()->getOwner() != body->getTerminator())
      continue;
    unsigned index = dot.getD().getUses().begin()->getOperandNumber();
    // Operands in rings whose next buffers are filled after the dot: by
    // then the groups that read them (the previous iteration's) are
    // retired. A from registers needs no buffer (the unit keeps its
    // registers until the group retires).
    auto ringed = [&](Value operand) {
      Operation *convert = operand.getDefiningOp();
      return convert && convert->getBlock() == body &&
             l.asyncPending.count(convert);
    };
    if ((!ringed(dot.getA()) && !isRegisterOperand(l, dot.getA())) ||
        !ringed(dot.getB()) || llvm::any_of(loads, [&](Operation *load) {
          return load->isBeforeInBlock(dot);
        }))
      continue;
    // A matmul's accumulator goes around the loop through this dot alone:
    // the next iteration's dot takes it in flight. Otherwise the next
    // iteration waits for the group before it first reads the result,
    // which must be an op of the body itself.
    BlockArgument carried = body->getArgument(index + 1);
    if (dot.getC() != carried || !carried.hasOneUse()) {
      if (llvm::any_of(carried.getUsers(), [&](Operation *user) {
            return user->getBlock() != body || user == body->getTerminator() ||
                   user->getNumRegions() != 0;
          }))
        continue;
      if (!carried.use_empty())
        l.asyncCarried[carried] = dot;
    }
    l.asyncDots.insert(dot);
    l.asyncAccumulators[loop].push_back({index, dot});
  }
}

} // namespace

llvm::DenseMap<Value, int64_t>
tegula::lowering::findAsyncOperandLoads(DistLowerer &l, tile::FuncOp kernel) {
  llvm::DenseMap<Value, int64_t> buffers;
  // Per loop: its asynchronous loads in body order.
  llvm::DenseMap<Operation *, SmallVector<Operation *>> perLoop;
  kernel.walk([&](tile::ConvertLayoutOp convert) {
    if (!isSharedMatrixOperand(convert.getType(), l.matrixUnits))
      return;
    auto arg = dyn_cast<BlockArgument>(convert.getSrc());
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : scf::ForOp();
    if (!loop || arg.getArgNumber() == 0 || !convert.getSrc().hasOneUse())
      return;
    auto isCopyable = [](tile::LoadOp load) {
      return load && !load.getIsVolatile() && load.hasZeroOther();
    };
    // The chain of iter_args x0 <- x1 <- ... <- the load in the loop; each
    // x_j starts as a load of the prologue; nothing else uses them.
    SmallVector<BlockArgument> chain;
    SmallVector<tile::LoadOp> prologue;
    tile::LoadOp inLoop;
    BlockArgument current = arg;
    while (true) {
      unsigned index = current.getArgNumber() - 1;
      auto init = loop.getInitArgs()[index].getDefiningOp<tile::LoadOp>();
      if (!isCopyable(init) || !init->hasOneUse() ||
          !loop->getResult(index).use_empty() ||
          (current != arg && !current.hasOneUse()))
        return;
      chain.push_back(current);
      prologue.push_back(init);
      Value yielded = loop.getYieldedValues()[index];
      if (auto next = dyn_cast<BlockArgument>(yielded);
          next && next.getOwner() == loop.getBody() && next.getArgNumber() &&
          chain.size() < 8) {
        current = next;
        continue;
      }
      inLoop = yielded.getDefiningOp<tile::LoadOp>();
      if (!isCopyable(inLoop) || !inLoop->hasOneUse() ||
          inLoop->getBlock() != loop.getBody())
        return;
      break;
    }
    int64_t slots = static_cast<int64_t>(chain.size()) + 1;
    buffers[convert.getResult()] = slots;
    for (auto [j, load] : llvm::enumerate(prologue)) {
      DistLowerer::AsyncLoad info;
      info.convert = convert.getResult();
      info.slots = slots;
      info.slot = static_cast<int64_t>(j);
      l.asyncLoads[load] = info;
      l.asyncValues.insert(load.getResult());
    }
    DistLowerer::AsyncLoad info;
    info.convert = convert.getResult();
    info.slots = slots;
    info.loop = loop;
    info.previous = chain.back();
    l.asyncLoads[inLoop] = info;
    l.asyncValues.insert(inLoop.getResult());
    for (BlockArgument x : chain) {
      l.asyncValues.insert(x);
      l.asyncValues.insert(loop->getResult(x.getArgNumber() - 1));
    }
    perLoop[loop].push_back(inLoop);
    // Older copies in flight when the conversion reads: those of the
    // iterations in between, and those this iteration issued before it.
    l.asyncPending[convert] = static_cast<int64_t>(chain.size()) - 1;
  });
  for (auto &[loopOp, loads] : perLoop) {
    auto loop = cast<scf::ForOp>(loopOp);
    int64_t perIteration = static_cast<int64_t>(loads.size());
    Operation *first = nullptr;
    for (Operation &op : loop.getBody()->without_terminator())
      if (llvm::is_contained(loads, &op)) {
        first = &op;
        break;
      }
    l.asyncLoads[first].barrier = true;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto it = l.asyncPending.find(&op);
      if (it == l.asyncPending.end())
        continue;
      int64_t before = 0;
      for (Operation *load : loads)
        if (load->isBeforeInBlock(&op))
          ++before;
      it->second = it->second * perIteration + before;
    }
    findAsyncDots(l, loop, loads);
  }
  return buffers;
}

LogicalResult tegula::lowering::lowerAsyncOperandLoad(DistLowerer &l,
                                                      tile::LoadOp load) {
  Location loc = load.getLoc();
  OpBuilder &b = l.b;
  const DistLowerer::AsyncLoad &info = l.asyncLoads.find(load)->second;
  auto type = cast<RankedTensorType>(load.getType());
  FailureOr<OperandPlacement> placement =
      placeOperand(l, load, type, info.convert, load);
  if (failed(placement))
    return failure();
  int64_t base = l.operandOffsets.lookup(info.convert);
  Value offset;
  if (info.slot >= 0) {
    offset = l.constI32(loc, base + info.slot * placement->bytes);
  } else {
    // The buffer after the previous iteration's (the youngest the loop
    // carries), wrapping around the ring: iteration i fills buffer
    // (i + ahead) % slots without dividing.
    Value next = b.create<arith::AddIOp>(loc, l.regsOf(info.previous).front(),
                                         l.constI32(loc, placement->bytes));
    Value end = l.constI32(loc, base + info.slots * placement->bytes);
    offset = b.create<arith::SelectOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, next, end),
        l.constI32(loc, base), next);
  }
  if (info.barrier)
    l.barrier(loc);
  bool async = false;
  OperandAddresses addresses(l, loc, *placement, offset, placement->layout);
  if (failed(copyLoadToShared(l, load, placement->layout, async,
                              [&](int64_t reg) { return addresses.get(reg); })))
    return failure();
  // One group per load, whether or not the target copied asynchronously,
  // so that the conversions' counts of groups in flight hold.
  if (const backend::AsyncCopy *copies = l.hooks.getAsyncCopy())
    copies->buildCommit(b, loc);
  l.setRegs(load.getResult(), {offset});
  return success();
}

LogicalResult tegula::lowering::lowerSharedMatrixOperand(DistLowerer &l,
                                                         Operation *convert) {
  Location loc = convert->getLoc();
  OpBuilder &b = l.b;
  Value source = convert->getOperand(0), result = convert->getResult(0);
  auto type = cast<RankedTensorType>(source.getType());
  DistLowerer::SharedOperand shared;

  if (l.asyncValues.contains(source)) {
    // A software-pipelined load filled the buffer whose offset |source|
    // holds: wait for its copies, then make them visible to the matrix
    // unit and to every thread.
    auto pending = l.asyncPending.find(convert);
    if (pending == l.asyncPending.end())
      return l.unsupported(convert, "an asynchronously loaded operand read "
                                    "outside its loop");
    tile::LoadOp anyLoad;
    for (auto &[op, info] : l.asyncLoads)
      if (info.convert == result) {
        anyLoad = cast<tile::LoadOp>(op);
        break;
      }
    FailureOr<OperandPlacement> placement =
        placeOperand(l, convert, type, result, anyLoad);
    if (failed(placement))
      return failure();
    shared.dynamicOffset = l.regsOf(source).front();
    if (l.asyncSyncDone.contains(convert))
      return finishSharedOperand(l, loc, result, shared, *placement,
                                 /*synchronize=*/false);
    if (const backend::AsyncCopy *copies = l.hooks.getAsyncCopy())
      copies->buildWait(b, loc, pending->second);
    return finishSharedOperand(l, loc, result, shared, *placement,
                               !l.asyncSyncDeferred.contains(convert));
  }

  // An operand in the accumulator layout of an earlier dot of the same
  // layout, which the family takes from registers (the probabilities of
  // attention): the registers already hold its fragments.
  if (isRegisterOperand(l, result)) {
    FailureOr<DistLayout> layout = l.layoutOf(type, loc);
    if (failed(layout))
      return failure();
    shared.registerLayout = *layout;
    shared.registers = llvm::to_vector(l.regsOf(source));
    l.sharedOperands[result] = shared;
    l.setRegs(result, {});
    return success();
  }

  // A deferred load is copied from memory in a layout of its own (block
  // pointers: coalesced along the block's contiguous dimension).
  auto load = source.getDefiningOp<tile::LoadOp>();
  if (load && !l.deferredLoads.contains(load))
    load = nullptr;
  FailureOr<OperandPlacement> placement =
      placeOperand(l, convert, type, result, load);
  if (failed(placement))
    return failure();
  int64_t offset = l.operandOffsets.lookup(result);
  Value offsetValue = l.constI32(loc, offset);
  OperandAddresses addresses(l, loc, *placement, offsetValue,
                             placement->layout);
  auto addressOf = [&](int64_t reg) { return addresses.get(reg); };
  // Earlier readers of this place (the previous iteration's dot) are done.
  l.barrier(loc);
  if (load) {
    bool async = false;
    if (failed(copyLoadToShared(l, load, placement->layout, async, addressOf)))
      return failure();
    if (async) {
      const backend::AsyncCopy *copies = l.hooks.getAsyncCopy();
      copies->buildCommit(b, loc);
      copies->buildWait(b, loc, 0);
    }
  } else {
    const DistLayout &from = placement->layout;
    int64_t contiguous = placement->contiguous;
    int64_t vec =
        from.getRunDim() == contiguous ? from.getRunLength(contiguous, 8) : 1;
    ArrayRef<Value> values = l.regsOf(source);
    Type storage = l.storageType(type.getElementType());
    for (int64_t r = 0; r < from.getNumRegs(); r += vec) {
      Value pointer = addressOf(r);
      Value value = values[r];
      if (vec > 1) {
        auto vectorType = VectorType::get({vec}, storage);
        value = b.create<LLVM::PoisonOp>(loc, vectorType);
        for (int64_t i = 0; i < vec; ++i)
          value = b.create<LLVM::InsertElementOp>(loc, value, values[r + i],
                                                  l.constI32(loc, i));
      }
      b.create<LLVM::StoreOp>(loc, value, pointer,
                              /*alignment=*/vec * placement->elementBytes);
    }
  }
  shared.offset = offset;
  return finishSharedOperand(l, loc, result, shared, *placement);
}

FailureOr<SmallVector<Value>> tegula::lowering::convertToMatrixFragments(
    DistLowerer &l, Location loc, const DistLayout &from,
    ArrayRef<Value> values, Type elem, const DistLayout &to, int64_t opIdx,
    const backend::MatrixUnit &unit, const backend::MatrixLayout &layout) {
  OpBuilder &b = l.b;
  if (from.getRank() != 2 || l.storageBytes(elem) != 2 ||
      layout.instrShape.size() != 2)
    return failure();
  // An instruction's fragment covers its M (A) or N (B) by 16 along K (two
  // 8x8 matrices of 16-bit elements), the matrices in the fragment's
  // register order: along M or N first, then along K.
  int64_t mnBlock = layout.instrShape[opIdx == 0 ? 0 : 1];
  int64_t mnMatrices = mnBlock / 8;
  unsigned count = static_cast<unsigned>(mnMatrices * 2);
  if (mnBlock % 8 != 0 || mnMatrices < 1 || count > 4)
    return failure();
  {
    // Only when the family has the loads (asked on a scratch block).
    Block probe;
    OpBuilder builder(l.ctx);
    builder.setInsertionPointToStart(&probe);
    Value address = builder.create<LLVM::PoisonOp>(
        loc, l.sharedOperandBase ? l.sharedOperandBase.getType()
                                 : l.scratchBase.getType());
    bool supported = succeeded(
        unit.buildSharedMatrixLoad(builder, loc, address, count, false));
    probe.dropAllDefinedValueUses();
    probe.clear();
    if (!supported)
      return failure();
  }
  // Staged with the registers' run contiguous (K-major or MN-major), rows
  // of 128 bytes padded by 16 so that the eight rows of a matrix fall on
  // different banks.
  int64_t kDim = opIdx == 0 ? 1 : 0;
  int64_t contiguous = from.getRunDim() >= 0 ? from.getRunDim() : kDim;
  int64_t other = 1 - contiguous;
  int64_t extent = from.shape[contiguous];
  int64_t stride = extent + ((extent * 2) % 128 == 0 ? 8 : 0);
  if (extent % 8 != 0 || from.shape[other] % 8 != 0)
    return failure();
  SmallVector<int64_t> strides(2, 0);
  strides[contiguous] = 1;
  strides[other] = stride;
  l.reserveShared(stride * from.shape[other] * 2);
  l.stageRegisters(loc, from, values, elem, strides, contiguous);
  l.barrier(loc);

  // This thread's warp offsets in |to| (lanes are the matrix loads' business).
  SmallVector<Value> warpOffset(2, l.constI32(loc, 0));
  for (auto [bit, basis] : llvm::enumerate(to.warpBases))
    for (int64_t d = 0; d < 2; ++d)
      if (basis[d]) {
        Value set = b.create<arith::AndIOp>(
            loc,
            b.create<arith::ShRUIOp>(
                loc, l.warpId, l.constI32(loc, static_cast<int64_t>(bit))),
            l.constI32(loc, 1));
        warpOffset[d] = b.create<arith::AddIOp>(
            loc, warpOffset[d],
            b.create<arith::MulIOp>(loc, set, l.constI32(loc, basis[d])));
      }
  Value row = b.create<arith::AndIOp>(loc, l.laneId, l.constI32(loc, 7));
  Value matrix = b.create<arith::ShRUIOp>(loc, l.laneId, l.constI32(loc, 3));
  bool transpose = contiguous != kDim;
  int64_t mnDim = 1 - kDim;

  // The fragments: per mnBlock x 16 (K) block, |count| matrices; an i32 of
  // matrix i holds elements (g, 2t) and (g, 2t+1) of it, K along the
  // columns.
  SmallVector<Value> result(to.getNumRegs());
  for (auto [r, coords] : llvm::enumerate(to.regOffsets)) {
    if (coords[mnDim] % mnBlock != 0 || coords[kDim] % 16 != 0)
      continue;
    // Matrix i's origin relative to the block: 8 (i % mnMatrices) along M
    // or N, 8 (i / mnMatrices) along K.
    auto origin = [&](int64_t i) {
      Coords c(coords);
      c[mnDim] += 8 * (i % mnMatrices);
      c[kDim] += 8 * (i / mnMatrices);
      return c;
    };
    // This lane's row address: matrix (lane / 8)'s row (lane % 8) runs along
    // the contiguous dimension.
    Value lane[2];
    for (int64_t d = 0; d < 2; ++d) {
      SmallVector<Value> choices;
      Value pick;
      for (unsigned i = 0; i < count; ++i) {
        Value value = l.constI32(loc, origin(i)[d]);
        pick = i == 0
                   ? value
                   : b.create<arith::SelectOp>(
                          loc,
                          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                  matrix, l.constI32(loc, i)),
                          value, pick)
                         .getResult();
      }
      lane[d] = b.create<arith::AddIOp>(loc, pick, warpOffset[d]);
    }
    lane[other] = b.create<arith::AddIOp>(loc, lane[other], row);
    Value index = b.create<arith::AddIOp>(
        loc, lane[contiguous],
        b.create<arith::MulIOp>(loc, lane[other], l.constI32(loc, stride)));
    Value address = l.sharedAddress(loc, 0, elem, index);
    FailureOr<SmallVector<Value>> loaded =
        unit.buildSharedMatrixLoad(b, loc, address, count, transpose);
    if (failed(loaded))
      return failure();
    auto pairType = VectorType::get({2}, l.storageType(elem));
    for (unsigned i = 0; i < count; ++i) {
      Value pair = b.create<LLVM::BitcastOp>(loc, pairType, (*loaded)[i]);
      for (int64_t e = 0; e < 2; ++e) {
        Coords at = origin(i);
        at[kDim] += e;
        int64_t reg = to.findReg(at);
        if (reg < 0)
          return failure();
        result[reg] =
            b.create<LLVM::ExtractElementOp>(loc, pair, l.constI32(loc, e));
      }
    }
  }
  l.barrier(loc);
  for (Value value : result)
    if (!value)
      return failure();
  return result;
}

std::optional<LogicalResult> tegula::lowering::lowerDistDot(DistLowerer &l,
                                                            Operation *op) {
  return lowerDotOp(l, op, [&](tile::DotOp dot, const DotTypes &types) {
    return lowerDot(l, dot, types);
  });
}
