//===- DistLayout.cpp - Layouts as linear maps; shared-memory staging -----===//

#include "DistLowering.h"

#include "tegula/BackendKit/LayoutPolicy.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

//===----------------------------------------------------------------------===//
// DistLayout
//===----------------------------------------------------------------------===//

static bool isZero(ArrayRef<int64_t> coords) {
  return llvm::all_of(coords, [](int64_t c) { return c == 0; });
}

bool DistLayout::hasReplication() const {
  return llvm::any_of(laneBases, [](const Coords &c) { return isZero(c); }) ||
         llvm::any_of(warpBases, [](const Coords &c) { return isZero(c); });
}

bool DistLayout::sameThreadPart(const DistLayout &other) const {
  return laneBases == other.laneBases && warpBases == other.warpBases;
}

std::vector<int64_t> DistLayout::threadKey() const {
  std::vector<int64_t> key(shape.begin(), shape.end());
  key.push_back(-1);
  for (const Coords &c : laneBases)
    key.insert(key.end(), c.begin(), c.end());
  key.push_back(-2);
  for (const Coords &c : warpBases)
    key.insert(key.end(), c.begin(), c.end());
  return key;
}

int64_t DistLayout::findReg(ArrayRef<int64_t> coords) const {
  for (auto [i, offsets] : llvm::enumerate(regOffsets))
    if (ArrayRef<int64_t>(offsets) == coords)
      return i;
  return -1;
}

int64_t DistLayout::getRunDim() const {
  if (getNumRegs() < 2)
    return -1;
  for (int64_t d = 0; d < getRank(); ++d) {
    Coords step(getRank(), 0);
    step[d] = 1;
    Coords diff(getRank());
    for (int64_t e = 0; e < getRank(); ++e)
      diff[e] = regOffsets[1][e] ^ regOffsets[0][e];
    if (diff == step)
      return d;
  }
  return -1;
}

int64_t DistLayout::getRunLength(int64_t dim, int64_t limit) const {
  int64_t numRegs = getNumRegs();
  auto fits = [&](int64_t width) {
    for (const SmallVector<Coords> *bases : {&laneBases, &warpBases})
      for (const Coords &basis : *bases)
        if (basis[dim] % width != 0)
          return false;
    for (int64_t r = 0; r < numRegs; ++r) {
      const Coords &first = regOffsets[r - r % width];
      if (first[dim] % width != 0)
        return false;
      Coords expected = first;
      expected[dim] += r % width;
      if (regOffsets[r] != expected)
        return false;
    }
    return true;
  };
  int64_t width = 1;
  while (width * 2 <= limit && numRegs % (width * 2) == 0 && fits(width * 2))
    width *= 2;
  return width;
}

namespace {

/// Bases of a layout under construction, before registers are expanded.
struct Bases {
  SmallVector<int64_t, 4> shape;
  SmallVector<Coords> reg, lane, warp;

  /// Appends bases for |count| (a power of 2) more elements along |dim| to
  /// |list|: the next power of two of the dimension each, or zero once the
  /// dimension is covered (replication).
  void add(SmallVector<Coords> &list, SmallVector<int64_t> &covered,
           int64_t dim, int64_t count) {
    for (int64_t i = 1; i < count; i *= 2) {
      Coords basis(shape.size(), 0);
      if (covered[dim] < shape[dim])
        basis[dim] = covered[dim];
      covered[dim] *= 2;
      list.push_back(basis);
    }
  }
};

Bases blockedBases(ArrayRef<int64_t> shape, ArrayRef<int64_t> sizePerThread,
                   ArrayRef<int64_t> threadsPerWarp,
                   ArrayRef<int64_t> warpsPerCTA, ArrayRef<int64_t> order) {
  Bases bases;
  bases.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> covered(shape.size(), 1);
  for (int64_t d : order)
    bases.add(bases.reg, covered, d, sizePerThread[d]);
  for (int64_t d : order)
    bases.add(bases.lane, covered, d, threadsPerWarp[d]);
  for (int64_t d : order)
    bases.add(bases.warp, covered, d, warpsPerCTA[d]);
  // Repetitions cover what the layout's tile does not.
  for (int64_t d : order) {
    int64_t more = covered[d] < shape[d] ? shape[d] / covered[d] : 1;
    bases.add(bases.reg, covered, d, more);
  }
  return bases;
}

/// |bases| without dimension |dim|.
void dropDim(Bases &bases, int64_t dim) {
  bases.shape.erase(bases.shape.begin() + dim);
  for (SmallVector<Coords> *list : {&bases.reg, &bases.lane, &bases.warp})
    for (Coords &c : *list)
      c.erase(c.begin() + dim);
}

/// Appends |count| (a power of 2) zero bases to |list|: threads that hold
/// the same elements.
void addZeros(Bases &bases, SmallVector<Coords> &list, int64_t count) {
  for (int64_t i = 1; i < count; i *= 2)
    list.push_back(Coords(bases.shape.size(), 0));
}

/// The "nvidia.mma" version 2 family (PTX mma.sync m16n8k16 on 16-bit
/// inputs): the accumulator (|opIdx| -1) or operand |opIdx| of a dot whose
/// accumulator spreads warps as |warps|. With g = lane / 4, t = lane % 4, a
/// warp's fragments are: C c0..c3 at (g, 2t + {0,1}), (g + 8, 2t + {0,1});
/// A a0..a7 at (g, 2t + {0,1}), (g + 8, ..), (g, 2t + 8 + {0,1}),
/// (g + 8, 2t + 8 + ..); B b0..b3 at (k = 2t + {0,1}, n = g),
/// (k = 2t + 8 + {0,1}, g). Warps tile M first, then N, then the batch;
/// repetitions cover the rest. Register order follows the fragments.
FailureOr<Bases> mmaV2Bases(ArrayRef<int64_t> shape, ArrayRef<int64_t> warps,
                            int64_t opIdx, int64_t kWidth, Location loc) {
  // |kWidth| operand elements per 32-bit register along K: 2 for 16-bit
  // types (m16n8k16), 1 for tf32 (m16n8k8), 4 for 8-bit integers
  // (m16n8k32); the instruction's K is 8 x kWidth.
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    kWidth = 2;
  int64_t rank = shape.size();
  if ((rank != 2 && rank != 3) ||
      static_cast<int64_t>(warps.size()) != rank)
    return emitError(loc) << "an nvidia.mma layout has rank 2 or 3";
  Bases bases;
  bases.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> covered(rank, 1);
  int64_t m = rank - 2, n = rank - 1, batch = rank == 3 ? 0 : -1;
  int64_t wm = warps[m], wn = warps[n], wb = batch >= 0 ? warps[batch] : 1;
  auto batchWarps = [&] {
    if (batch >= 0)
      bases.add(bases.warp, covered, batch, wb);
  };
  auto reps = [&](ArrayRef<int64_t> dims) {
    for (int64_t d : dims)
      if (covered[d] < shape[d])
        bases.add(bases.reg, covered, d, shape[d] / covered[d]);
  };
  if (opIdx < 0) {
    bases.add(bases.reg, covered, n, 2);
    bases.add(bases.lane, covered, n, 4);
    bases.add(bases.lane, covered, m, 8);
    bases.add(bases.reg, covered, m, 2);
    bases.add(bases.warp, covered, m, wm);
    bases.add(bases.warp, covered, n, wn);
    batchWarps();
    reps({n, m});
  } else if (opIdx == 0) {
    int64_t k = n; // A is [.., M, K]
    bases.add(bases.reg, covered, k, kWidth);
    bases.add(bases.lane, covered, k, 4);
    bases.add(bases.lane, covered, m, 8);
    bases.add(bases.reg, covered, m, 2);
    bases.add(bases.reg, covered, k, 2);
    bases.add(bases.warp, covered, m, wm);
    addZeros(bases, bases.warp, wn);
    batchWarps();
    reps({k, m});
  } else {
    int64_t k = m, cols = n; // B is [.., K, N]
    bases.add(bases.reg, covered, k, kWidth);
    bases.add(bases.lane, covered, k, 4);
    bases.add(bases.lane, covered, cols, 8);
    bases.add(bases.reg, covered, k, 2);
    addZeros(bases, bases.warp, wm);
    bases.add(bases.warp, covered, cols, wn);
    batchWarps();
    reps({k, cols});
  }
  if (batch >= 0)
    reps({batch});
  return bases;
}

/// The "nvidia.mma" version 3 family (PTX wgmma.mma_async m64nNk16): the
/// accumulator of a dot whose warps spread as |warps| (M a multiple of 4:
/// warp groups) with instructions |instrN| wide. A warp holds 16 rows of
/// its group's 64; within them, register 4j + {0,1,2,3} of lane (g, t) is
/// (g, 8j + 2t + {0,1}) and (g + 8, 8j + 2t + {0,1}): wgmma's own register
/// order. The warps of a group go along M, then groups along M, then N;
/// repetitions cover the rest. The operands live in shared memory.
FailureOr<Bases> mmaV3Bases(ArrayRef<int64_t> shape, ArrayRef<int64_t> warps,
                            int64_t instrN, int64_t opIdx, Location loc) {
  if (shape.size() != 2 || warps.size() != 2)
    return emitError(loc) << "an nvidia.mma v3 layout has rank 2";
  if (opIdx >= 0)
    return emitError(loc) << "the operands of an nvidia.mma v3 (wgmma) dot "
                             "live in shared memory, not in registers";
  if (warps[0] % 4 != 0 || instrN % 8 != 0)
    return emitError(loc) << "an nvidia.mma v3 layout needs warp groups "
                             "along M and instructions a multiple of 8 wide";
  Bases bases;
  bases.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> covered(2, 1);
  bases.add(bases.reg, covered, 1, 2);
  bases.add(bases.lane, covered, 1, 4);
  bases.add(bases.lane, covered, 0, 8);
  bases.add(bases.reg, covered, 0, 2);
  bases.add(bases.reg, covered, 1, instrN / 8);
  bases.add(bases.warp, covered, 0, warps[0]);
  bases.add(bases.warp, covered, 1, warps[1]);
  for (int64_t d : {1, 0})
    if (covered[d] < shape[d])
      bases.add(bases.reg, covered, d, shape[d] / covered[d]);
  return bases;
}

/// The bases of matrix layout |matrix|'s accumulator (opIdx -1) or operand.
FailureOr<Bases> matrixBases(tile::MatrixLayoutAttr matrix,
                             ArrayRef<int64_t> shape, int64_t opIdx,
                             int64_t kWidth, Location loc) {
  if (matrix.getKind() == "nvidia.mma" && !matrix.getVersion().empty() &&
      matrix.getVersion().front() == 2 &&
      matrix.getInstrShape() == ArrayRef<int64_t>{16, 8})
    return mmaV2Bases(shape, matrix.getWarpsPerCTA(), opIdx, kWidth, loc);
  if (matrix.getKind() == "nvidia.mma" && !matrix.getVersion().empty() &&
      matrix.getVersion().front() == 3 && matrix.getInstrShape().size() == 2)
    return mmaV3Bases(shape, matrix.getWarpsPerCTA(),
                      matrix.getInstrShape()[1], opIdx, loc);
  return emitError(loc) << "the generic lowering does not distribute the "
                           "matrix-unit layout "
                        << matrix << " (it knows nvidia.mma v2 16x8 and v3)";
}

FailureOr<Bases> basesOf(Attribute layout, ArrayRef<int64_t> shape,
                         Location loc) {
  if (auto blocked = dyn_cast<tile::BlockedLayoutAttr>(layout)) {
    if (blocked.getRank() != static_cast<int64_t>(shape.size()))
      return emitError(loc) << "layout rank does not match the tile's";
    return blockedBases(shape, blocked.getSizePerThread(),
                        blocked.getThreadsPerWarp(), blocked.getWarpsPerCTA(),
                        blocked.getOrder());
  }
  if (auto slice = dyn_cast<tile::SliceLayoutAttr>(layout)) {
    SmallVector<int64_t> parentShape(shape);
    int64_t dim = slice.getDim();
    if (dim > static_cast<int64_t>(shape.size()))
      return emitError(loc) << "slice dimension out of range";
    parentShape.insert(parentShape.begin() + dim, 1);
    FailureOr<Bases> parent = basesOf(slice.getParent(), parentShape, loc);
    if (failed(parent))
      return failure();
    dropDim(*parent, dim);
    return parent;
  }
  if (auto operand = dyn_cast<tile::DotOperandLayoutAttr>(layout)) {
    if (auto matrix = dyn_cast<tile::MatrixLayoutAttr>(operand.getParent()))
      return matrixBases(matrix, shape, operand.getOpIdx(),
                         operand.getKWidth(), loc);
    if (!isa<tile::BlockedLayoutAttr>(operand.getParent()))
      return emitError(loc) << "a dot operand of the parent layout "
                            << operand.getParent();
    int64_t rank = shape.size();
    if (rank < 2)
      return emitError(loc) << "a dot operand has rank 2 or 3";
    // A is [.., M, K], B is [.., K, N]: the parent places M (N) and the
    // batch; every thread holds all of K.
    int64_t kDim = operand.getOpIdx() == 0 ? rank - 1 : rank - 2;
    SmallVector<int64_t> parentShape(shape);
    parentShape[kDim] = 1;
    FailureOr<Bases> parent = basesOf(operand.getParent(), parentShape, loc);
    if (failed(parent))
      return failure();
    parent->shape[kDim] = shape[kDim];
    SmallVector<Coords> kRegs;
    for (int64_t k = 1; k < shape[kDim]; k *= 2) {
      Coords basis(rank, 0);
      basis[kDim] = k;
      kRegs.push_back(basis);
    }
    parent->reg.insert(parent->reg.begin(), kRegs.begin(), kRegs.end());
    return parent;
  }
  if (auto matrix = dyn_cast<tile::MatrixLayoutAttr>(layout))
    return matrixBases(matrix, shape, -1, 0, loc);
  return emitError(loc) << "not a distributed layout: " << layout;
}

DistLayout expand(const Bases &bases) {
  DistLayout layout;
  layout.shape = bases.shape;
  layout.laneBases = bases.lane;
  layout.warpBases = bases.warp;
  // Registers: bases that are zero would only repeat registers.
  SmallVector<Coords> regBases;
  for (const Coords &c : bases.reg)
    if (!isZero(c))
      regBases.push_back(c);
  int64_t count = int64_t(1) << regBases.size();
  for (int64_t r = 0; r < count; ++r) {
    Coords coords(bases.shape.size(), 0);
    for (auto [bit, basis] : llvm::enumerate(regBases))
      if (r & (int64_t(1) << bit))
        for (auto [d, c] : llvm::enumerate(basis))
          coords[d] ^= c;
    layout.regOffsets.push_back(coords);
  }
  return layout;
}

} // namespace

FailureOr<DistLayout> DistLowerer::layoutOf(RankedTensorType type,
                                            Location loc) {
  auto cached = layoutCache.find(type);
  if (cached != layoutCache.end())
    return cached->second;
  Attribute encoding = type.getEncoding();
  FailureOr<Bases> bases;
  if (!encoding) {
    // The default: Triton's coalesced rule over a row-major tile.
    SmallVector<unsigned> order;
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      order.push_back(d);
    Type elem = type.getElementType();
    unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64;
    backend::BlockedLayout blocked = backend::defaultBlockedLayout(
        type.getShape(), std::max(bits, 8u), order, numWarps, warpSize, 16, 1);
    auto widen = [](ArrayRef<unsigned> v) {
      return SmallVector<int64_t>(v.begin(), v.end());
    };
    bases = blockedBases(type.getShape(), widen(blocked.sizePerThread),
                         widen(blocked.threadsPerWarp),
                         widen(blocked.warpsPerBlock), widen(blocked.order));
  } else {
    bases = basesOf(encoding, type.getShape(), loc);
  }
  if (failed(bases))
    return failure();
  unsigned laneBits = llvm::Log2_32(warpSize);
  unsigned warpBits = llvm::Log2_32(numWarps);
  if (bases->lane.size() != laneBits || bases->warp.size() != warpBits)
    return emitError(loc) << "the layout " << encoding << " is for "
                          << (int64_t(1) << bases->lane.size())
                          << " threads per warp and "
                          << (int64_t(1) << bases->warp.size())
                          << " warps; the kernel runs " << warpSize
                          << " and " << numWarps;
  return layoutCache[type] = expand(*bases);
}

//===----------------------------------------------------------------------===//
// Thread coordinates
//===----------------------------------------------------------------------===//

ArrayRef<Value> DistLowerer::threadCoords(const DistLayout &layout) {
  std::vector<int64_t> key = layout.threadKey();
  auto it = threadCoordCache.find(key);
  if (it != threadCoordCache.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(prologueEnd);
  Location loc = prologueEnd->getLoc();
  SmallVector<Value> coords;
  for (int64_t d = 0; d < layout.getRank(); ++d) {
    // The coordinate is the XOR of the bases of the id's set bits. A run
    // of id bits whose bases are consecutive powers of two (the usual case:
    // lanes along a dimension) is one field, ((id >> bit) & mask) << shift,
    // instead of a shift, an and, a multiply and an xor per bit; fields
    // whose bits cannot overlap are or'ed.
    Value coord;
    int64_t covered = 0;
    auto addTerm = [&](Value term, int64_t bits) {
      if (!coord)
        coord = term;
      else if (covered & bits)
        coord = b.create<arith::XOrIOp>(loc, coord, term);
      else
        coord = b.create<arith::OrIOp>(loc, coord, term);
      covered |= bits;
    };
    auto addBits = [&](ArrayRef<Coords> bases, Value id) {
      for (size_t bit = 0; bit < bases.size();) {
        int64_t basis = bases[bit][d];
        if (basis == 0) {
          ++bit;
          continue;
        }
        size_t end = bit + 1;
        if (llvm::isPowerOf2_64(basis))
          while (end < bases.size() &&
                 bases[end][d] == basis << (end - bit))
            ++end;
        Value field = id;
        if (bit)
          field = b.create<arith::ShRUIOp>(loc, field, constI32(loc, bit));
        int64_t width = static_cast<int64_t>(end - bit);
        field = b.create<arith::AndIOp>(loc, field,
                                        constI32(loc, (int64_t(1) << width) - 1));
        if (width == 1 && !llvm::isPowerOf2_64(basis)) {
          field = b.create<arith::MulIOp>(loc, field, constI32(loc, basis));
          addTerm(field, basis);
        } else {
          int64_t shift = llvm::Log2_64(basis);
          if (shift)
            field = b.create<arith::ShLIOp>(loc, field, constI32(loc, shift));
          addTerm(field, ((int64_t(1) << width) - 1) << shift);
        }
        bit = end;
      }
    };
    addBits(layout.laneBases, laneId);
    addBits(layout.warpBases, warpId);
    coords.push_back(coord ? coord : constI32(loc, 0));
  }
  return threadCoordCache[key] = coords;
}

SmallVector<Value> DistLowerer::regCoords(Location loc,
                                          const DistLayout &layout,
                                          int64_t reg) {
  ArrayRef<Value> thread = threadCoords(layout);
  SmallVector<Value> coords;
  for (int64_t d = 0; d < layout.getRank(); ++d) {
    int64_t offset = layout.regOffsets[reg][d];
    if (offset == 0) {
      coords.push_back(thread[d]);
      continue;
    }
    // Where the thread's bits and the register's cannot overlap, XOR is an
    // addition, which folds into the address arithmetic that follows.
    int64_t threadBits = 0;
    for (const Coords &basis : layout.laneBases)
      threadBits |= basis[d];
    for (const Coords &basis : layout.warpBases)
      threadBits |= basis[d];
    Value c = constI32(loc, offset);
    coords.push_back(threadBits & offset
                         ? b.create<arith::XOrIOp>(loc, thread[d], c).getResult()
                         : b.create<arith::AddIOp>(loc, thread[d], c).getResult());
  }
  return coords;
}

Value DistLowerer::isOwner(const DistLayout &layout) {
  std::vector<int64_t> key = layout.threadKey();
  auto it = ownerCache.find(key);
  if (it != ownerCache.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(prologueEnd);
  Location loc = prologueEnd->getLoc();
  int64_t laneMask = 0, warpMask = 0;
  for (auto [bit, basis] : llvm::enumerate(layout.laneBases))
    if (isZero(basis))
      laneMask |= int64_t(1) << bit;
  for (auto [bit, basis] : llvm::enumerate(layout.warpBases))
    if (isZero(basis))
      warpMask |= int64_t(1) << bit;
  Value owner = b.create<arith::ConstantIntOp>(loc, 1, 1);
  auto require = [&](Value id, int64_t mask) {
    if (mask == 0)
      return;
    Value bits = b.create<arith::AndIOp>(loc, id, constI32(loc, mask));
    owner = b.create<arith::AndIOp>(
        loc, owner,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, bits,
                                constI32(loc, 0)));
  };
  require(laneId, laneMask);
  require(warpId, warpMask);
  return ownerCache[key] = owner;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

void DistLowerer::reserveShared(uint64_t bytes) {
  sharedBytes = std::max(sharedBytes, llvm::alignTo(bytes, 16));
}

Value DistLowerer::sharedAddress(Location loc, int64_t offset, Type elem,
                                 Value index) {
  Value base = scratchBase;
  if (offset != 0)
    base = b.create<LLVM::GEPOp>(loc, base.getType(), b.getI8Type(), base,
                                 ArrayRef<LLVM::GEPArg>{
                                     static_cast<int32_t>(offset)});
  return b.create<LLVM::GEPOp>(loc, base.getType(), storageType(elem), base,
                               ValueRange{index});
}

Value DistLowerer::loadShared(Location loc, int64_t offset, Type elem,
                              Value index) {
  Value value = b.create<LLVM::LoadOp>(loc, storageType(elem),
                                       sharedAddress(loc, offset, elem, index));
  if (elem.isInteger(1))
    value = b.create<arith::TruncIOp>(loc, b.getI1Type(), value);
  return value;
}

void DistLowerer::storeShared(Location loc, int64_t offset, Type elem,
                              Value index, Value value) {
  if (elem.isInteger(1))
    value = b.create<arith::ExtUIOp>(loc, b.getI8Type(), value);
  b.create<LLVM::StoreOp>(loc, value, sharedAddress(loc, offset, elem, index));
}

Value DistLowerer::linearIndex(Location loc, ArrayRef<Value> coords,
                               ArrayRef<int64_t> shape) {
  Value linear;
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      Value term = stride == 1 ? coords[d]
                               : b.create<arith::MulIOp>(
                                     loc, coords[d], constI32(loc, stride))
                                     .getResult();
      linear = linear ? b.create<arith::AddIOp>(loc, linear, term).getResult()
                      : term;
    }
    stride *= shape[d];
  }
  return linear ? linear : constI32(loc, 0);
}

void DistLowerer::stageOut(Location loc, const DistLayout &layout,
                           ArrayRef<Value> values, Type elem, int64_t offset) {
  int64_t numElements = 1;
  for (int64_t size : layout.shape)
    numElements *= size;
  reserveShared(offset + numElements * storageBytes(elem));
  for (auto [r, value] : llvm::enumerate(values))
    storeShared(loc, offset, elem,
                linearIndex(loc, regCoords(loc, layout, r), layout.shape),
                value);
}

SmallVector<Value>
DistLowerer::stageIn(Location loc, const DistLayout &layout, Type elem,
                     int64_t offset,
                     llvm::function_ref<Value(ArrayRef<Value>)> indexOf) {
  SmallVector<Value> values;
  for (int64_t r = 0; r < layout.getNumRegs(); ++r)
    values.push_back(
        loadShared(loc, offset, elem, indexOf(regCoords(loc, layout, r))));
  return values;
}

namespace {

/// Where a layout conversion puts a tile in shared memory: dimension
/// |fastest| contiguous, the others row-major around it; a "row" spanning a
/// multiple of 128 bytes is padded by 16 bytes, so that threads reading
/// down a column hit different banks.
struct Staging {
  SmallVector<int64_t> strides; // per dimension, in elements
  int64_t elements = 1;         // the footprint
  int64_t fastest = 0;
};

Staging planStaging(ArrayRef<int64_t> shape, int64_t fastest,
                    int64_t elemBytes) {
  int64_t rank = shape.size();
  Staging staging;
  staging.fastest = fastest;
  staging.strides.assign(rank, 0);
  SmallVector<int64_t> order{fastest};
  for (int64_t d = rank - 1; d >= 0; --d)
    if (d != fastest)
      order.push_back(d);
  int64_t stride = 1;
  for (auto [k, d] : llvm::enumerate(order)) {
    staging.strides[d] = stride;
    int64_t size = shape[d];
    if (k == 0 && rank > 1 && (size * elemBytes) % 128 == 0)
      size += 16 / elemBytes;
    stride *= size;
  }
  staging.elements = stride;
  return staging;
}

/// The accesses a thread makes to move the registers of |layout| when
/// |fastest| is contiguous in shared memory.
int64_t countAccesses(const DistLayout &layout, int64_t fastest,
                      int64_t elemBytes) {
  int64_t width = layout.getRunDim() == fastest
                      ? layout.getRunLength(fastest, 16 / elemBytes)
                      : 1;
  return layout.getNumRegs() / width;
}

} // namespace

SmallVector<Value> DistLowerer::stageRegisters(Location loc,
                                               const DistLayout &layout,
                                               ArrayRef<Value> values,
                                               Type elem,
                                               ArrayRef<int64_t> strides,
                                               int64_t fastest) {
  int64_t bytes = storageBytes(elem);
  int64_t width = 1;
  if (!elem.isInteger(1) && layout.getRunDim() == fastest)
    width = layout.getRunLength(fastest, 16 / bytes);
  Type storage = storageType(elem);
  Type memType = width == 1 ? storage : VectorType::get({width}, storage);
  SmallVector<Value> loaded;
  for (int64_t r = 0; r < layout.getNumRegs(); r += width) {
    SmallVector<Value> coords = regCoords(loc, layout, r);
    Value index;
    for (auto [d, coord] : llvm::enumerate(coords)) {
      Value term = strides[d] == 1
                       ? coord
                       : b.create<arith::MulIOp>(loc, coord,
                                                 constI32(loc, strides[d]))
                             .getResult();
      index = index ? b.create<arith::AddIOp>(loc, index, term).getResult()
                    : term;
    }
    Value address = sharedAddress(loc, 0, elem, index);
    unsigned align = static_cast<unsigned>(width * bytes);
    if (width == 1) {
      if (values.empty())
        loaded.push_back(loadShared(loc, 0, elem, index));
      else
        storeShared(loc, 0, elem, index, values[r]);
      continue;
    }
    if (values.empty()) {
      Value vector = b.create<LLVM::LoadOp>(loc, memType, address, align);
      for (int64_t i = 0; i < width; ++i)
        loaded.push_back(b.create<LLVM::ExtractElementOp>(loc, vector,
                                                          constI32(loc, i)));
      continue;
    }
    Value vector = b.create<LLVM::PoisonOp>(loc, memType);
    for (int64_t i = 0; i < width; ++i)
      vector = b.create<LLVM::InsertElementOp>(loc, memType, vector,
                                               values[r + i], constI32(loc, i));
    b.create<LLVM::StoreOp>(loc, vector, address, align);
  }
  return loaded;
}

SmallVector<Value> DistLowerer::convert(Location loc, const DistLayout &from,
                                        ArrayRef<Value> values, Type elem,
                                        const DistLayout &to) {
  if (from.sameThreadPart(to)) {
    SmallVector<Value> result;
    for (const Coords &coords : to.regOffsets) {
      int64_t reg = from.findReg(coords);
      if (reg < 0)
        break;
      result.push_back(values[reg]);
    }
    if (static_cast<int64_t>(result.size()) == to.getNumRegs())
      return result;
  }
  // Through shared memory, row-major; column-major when both sides move
  // along the first dimension of a matrix with fewer accesses. (When only
  // one side does, its scalar partner walks down columns, and a warp's
  // accesses then fall on one bank: measured 1.5x slower on a matmul.)
  int64_t rank = from.getRank(), bytes = storageBytes(elem);
  int64_t fastest = rank - 1;
  if (rank >= 2 && from.getRunDim() == rank - 2 && to.getRunDim() == rank - 2 &&
      countAccesses(from, rank - 2, bytes) + countAccesses(to, rank - 2, bytes) <
          countAccesses(from, rank - 1, bytes) +
              countAccesses(to, rank - 1, bytes))
    fastest = rank - 2;
  Staging staging = planStaging(from.shape, fastest, bytes);
  reserveShared(staging.elements * bytes);
  stageRegisters(loc, from, values, elem, staging.strides, fastest);
  barrier(loc);
  SmallVector<Value> result =
      stageRegisters(loc, to, {}, elem, staging.strides, fastest);
  barrier(loc);
  return result;
}
