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
using Bases = backend::LinearLayout;

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

/// The bases of matrix layout |matrix|'s accumulator (opIdx -1) or operand,
/// from the family of its kind.
FailureOr<Bases> matrixBases(const DistLowerer &l,
                             tile::MatrixLayoutAttr matrix,
                             ArrayRef<int64_t> shape, int64_t opIdx,
                             int64_t kWidth, Location loc) {
  const backend::MatrixUnit *unit = l.getMatrixUnit(matrix, loc);
  if (!unit)
    return failure();
  std::string error;
  FailureOr<Bases> bases = unit->getLinearLayout(toMatrixLayout(matrix), shape,
                                                 opIdx, kWidth, error);
  if (failed(bases))
    return emitError(loc) << "the matrix unit " << matrix.getKind()
                          << " does not distribute " << matrix << ": " << error;
  if (ArrayRef<int64_t>(bases->shape) != shape)
    return emitError(loc) << "the matrix unit " << matrix.getKind()
                          << " laid out a tile of another shape";
  return bases;
}

FailureOr<Bases> basesOf(const DistLowerer &l, Attribute layout,
                         ArrayRef<int64_t> shape, Location loc) {
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
    FailureOr<Bases> parent = basesOf(l, slice.getParent(), parentShape, loc);
    if (failed(parent))
      return failure();
    dropDim(*parent, dim);
    return parent;
  }
  if (auto operand = dyn_cast<tile::DotOperandLayoutAttr>(layout)) {
    if (auto matrix = dyn_cast<tile::MatrixLayoutAttr>(operand.getParent()))
      return matrixBases(l, matrix, shape, operand.getOpIdx(),
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
    FailureOr<Bases> parent = basesOf(l, operand.getParent(), parentShape, loc);
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
    return matrixBases(l, matrix, shape, -1, 0, loc);
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

backend::MatrixLayout
tegula::lowering::toMatrixLayout(tile::MatrixLayoutAttr matrix) {
  backend::MatrixLayout layout;
  layout.kind = matrix.getKind().str();
  layout.version.assign(matrix.getVersion().begin(), matrix.getVersion().end());
  layout.warpsPerCTA.assign(matrix.getWarpsPerCTA().begin(),
                            matrix.getWarpsPerCTA().end());
  layout.instrShape.assign(matrix.getInstrShape().begin(),
                           matrix.getInstrShape().end());
  return layout;
}

const backend::MatrixUnit *
DistLowerer::getMatrixUnit(tile::MatrixLayoutAttr matrix, Location loc) const {
  const backend::MatrixUnit *unit = matrixUnits.lookup(matrix.getKind());
  if (!unit)
    emitError(loc) << "the generic lowering does not distribute the "
                      "matrix-unit layout "
                   << matrix << ": no matrix unit of kind '" << matrix.getKind()
                   << "' is registered";
  return unit;
}

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
    return layoutCache[type] = coalescedLayout(type, order, 1);
  }
  bases = basesOf(*this, encoding, type.getShape(), loc);
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
    int64_t threadBits = layout.getThreadBits(d);
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
  uint64_t &reserved = stagingInOperandArea ? freeStagingBytes : sharedBytes;
  reserved = std::max(reserved, llvm::alignTo(bytes, 16));
}

uint64_t DistLowerer::stagingLimit() const {
  if (!sharedLimit || stagingInOperandArea)
    return sharedLimit;
  // 1 rather than 0 (no limit) when the operands take it all.
  return sharedLimit > operandBytes ? sharedLimit - operandBytes : 1;
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

/// How a conversion too large for shared memory goes in rounds: |chunks|
/// slices of |size| elements along |dim|.
struct Chunking {
  int64_t dim = -1;
  int64_t size = 0;
  int64_t chunks = 0;
  Staging staging;
};

/// The fewest slices along one dimension whose staging takes at most
/// |available| bytes, or none. A slice holds whole thread parts of both
/// layouts (every lane and warp basis is below its size along |dim|), so
/// the registers of each round are known when compiling.
std::optional<Chunking> planChunking(const DistLayout &from,
                                     const DistLayout &to, int64_t fastest,
                                     int64_t elemBytes, uint64_t available) {
  std::optional<Chunking> best;
  for (int64_t d = 0; d < from.getRank(); ++d) {
    int64_t extent = from.shape[d];
    if (extent < 2 || !llvm::isPowerOf2_64(extent))
      continue;
    int64_t threadBits = from.getThreadBits(d) | to.getThreadBits(d);
    int64_t minSize = threadBits ? int64_t(llvm::NextPowerOf2(threadBits)) : 1;
    for (int64_t size = extent / 2; size >= minSize; size /= 2) {
      SmallVector<int64_t> shape(from.shape.begin(), from.shape.end());
      shape[d] = size;
      Staging staging = planStaging(shape, fastest, elemBytes);
      if (llvm::alignTo(staging.elements * elemBytes, 16) > available)
        continue;
      if (!best || extent / size < best->chunks)
        best = Chunking{d, size, extent / size, staging};
      break;
    }
  }
  return best;
}

/// The registers of |layout| in slice |k| of |chunking| (their indices in
/// |regs|), as a layout whose register offsets are relative to the slice.
/// The shape stays the whole tile's, which keeps the thread coordinates
/// shared with other uses of |layout|.
DistLayout chunkOf(const DistLayout &layout, const Chunking &chunking,
                   int64_t k, SmallVectorImpl<int64_t> &regs) {
  DistLayout chunk = layout;
  chunk.regOffsets.clear();
  for (auto [r, offsets] : llvm::enumerate(layout.regOffsets)) {
    if (offsets[chunking.dim] / chunking.size != k)
      continue;
    regs.push_back(r);
    Coords shifted = offsets;
    shifted[chunking.dim] -= k * chunking.size;
    chunk.regOffsets.push_back(shifted);
  }
  return chunk;
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
  uint64_t available = stagingLimit();
  if (available && llvm::alignTo(staging.elements * bytes, 16) > available)
    if (std::optional<Chunking> chunking =
            planChunking(from, to, fastest, bytes, available)) {
      // Each round: the holders of the slice write it, barrier, its readers
      // read it, barrier (the next round overwrites it).
      reserveShared(chunking->staging.elements * bytes);
      SmallVector<Value> result(to.getNumRegs());
      for (int64_t k = 0; k < chunking->chunks; ++k) {
        SmallVector<int64_t> fromRegs, toRegs;
        DistLayout source = chunkOf(from, *chunking, k, fromRegs);
        DistLayout dest = chunkOf(to, *chunking, k, toRegs);
        SmallVector<Value> written;
        for (int64_t r : fromRegs)
          written.push_back(values[r]);
        if (!written.empty())
          stageRegisters(loc, source, written, elem, chunking->staging.strides,
                         fastest);
        barrier(loc);
        if (!toRegs.empty())
          for (auto [r, value] : llvm::zip_equal(
                   toRegs, stageRegisters(loc, dest, {}, elem,
                                          chunking->staging.strides, fastest)))
            result[r] = value;
        barrier(loc);
      }
      return result;
    }
  reserveShared(staging.elements * bytes);
  stageRegisters(loc, from, values, elem, staging.strides, fastest);
  barrier(loc);
  SmallVector<Value> result =
      stageRegisters(loc, to, {}, elem, staging.strides, fastest);
  barrier(loc);
  return result;
}

DistLayout DistLowerer::coalescedLayout(RankedTensorType type,
                                        ArrayRef<unsigned> order,
                                        unsigned contiguity) {
  Type elem = type.getElementType();
  unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64;
  backend::BlockedLayout blocked =
      backend::defaultBlockedLayout(type.getShape(), std::max(bits, 8u), order,
                                    numWarps, warpSize, 16, contiguity);
  auto widen = [](ArrayRef<unsigned> v) {
    return SmallVector<int64_t>(v.begin(), v.end());
  };
  return expand(blockedBases(type.getShape(), widen(blocked.sizePerThread),
                             widen(blocked.threadsPerWarp),
                             widen(blocked.warpsPerBlock),
                             widen(blocked.order)));
}

FailureOr<DistLayout> DistLowerer::layoutOfValue(Value value, Location loc) {
  auto found = valueLayouts.find(value);
  if (found != valueLayouts.end())
    return found->second;
  return layoutOf(cast<RankedTensorType>(value.getType()), loc);
}
