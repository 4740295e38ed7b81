//===- TileOps.cpp - verifiers and interfaces of tile ops -----------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tegula::tile;

#define GET_OP_CLASSES
#include "tegula/Dialect/Tile/IR/TileOps.cpp.inc"

namespace {
/// The shape of a tensor type, or the empty shape of a scalar.
ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

/// Prints a shape as `[16, 32]`, the way Triton users read shapes.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

LogicalResult verifyGridAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError() << "axis must be 0, 1 or 2, got " << axis;
  return success();
}

/// Checks that |order| is a permutation of [0, rank).
LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> order,
                                int64_t rank, StringRef what) {
  if (static_cast<int64_t>(order.size()) != rank)
    return op->emitOpError() << what << " must have " << rank
                             << " entries, got " << order.size();
  llvm::SmallVector<bool> seen(rank, false);
  for (int32_t d : order) {
    if (d < 0 || d >= rank || seen[d])
      return op->emitOpError() << what << " must be a permutation of [0, "
                               << rank << "), got " << shapeStr(llvm::to_vector_of<int64_t>(order));
    seen[d] = true;
  }
  return success();
}

void addGlobalRead(SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}
void addGlobalWrite(SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}
} // namespace

//===----------------------------------------------------------------------===//
// Program instances and ranges
//===----------------------------------------------------------------------===//

// I32Attr getters return unsigned values; attributes are read as int32_t so
// that negative values are reported as written.
LogicalResult ProgramIdOp::verify() {
  return verifyGridAxis(*this, static_cast<int32_t>(getAxis()));
}
LogicalResult NumProgramsOp::verify() {
  return verifyGridAxis(*this, static_cast<int32_t>(getAxis()));
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = static_cast<int32_t>(getStart());
  int64_t end = static_cast<int32_t>(getEnd());
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be a 1-D tensor, got " << type;
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  if (type.getDimSize(0) != end - start)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range [" << start << ", " << end
                         << ") has " << end - start;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the splatted value's type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "element types differ: " << src.getElementType()
                         << " and " << dst.getElementType();
  if (src.getRank() != dst.getRank())
    return emitOpError() << "source and result ranks differ: "
                         << src.getRank() << " and " << dst.getRank();
  for (auto [i, s, d] : llvm::enumerate(src.getShape(), dst.getShape()))
    if (s != d && s != 1)
      return emitOpError() << "cannot broadcast dimension " << i << " of size "
                           << s << " to " << d << " (shapes "
                           << shapeStr(src.getShape()) << " and "
                           << shapeStr(dst.getShape()) << ")";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a tensor of rank "
                         << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (dst.getShape() != ArrayRef<int64_t>(expected) ||
      dst.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << shapeStr(expected) << " of "
                         << src.getElementType() << ", got " << dst;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "element types differ: " << src.getElementType()
                         << " and " << dst.getElementType();
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError() << "cannot reshape " << shapeStr(src.getShape())
                         << " (" << src.getNumElements() << " elements) to "
                         << shapeStr(dst.getShape()) << " ("
                         << dst.getNumElements() << " elements)";
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (failed(verifyPermutation(*this, getOrder(), src.getRank(), "order")))
    return failure();
  SmallVector<int64_t> expected;
  for (int32_t d : getOrder())
    expected.push_back(src.getDimSize(d));
  if (dst.getShape() != ArrayRef<int64_t>(expected) ||
      dst.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << shapeStr(expected) << " of "
                         << src.getElementType() << ", got " << dst;
  return success();
}

LogicalResult JoinOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType(), dst = getType();
  if (lhs != rhs)
    return emitOpError() << "operands must have the same type, got " << lhs
                         << " and " << rhs;
  SmallVector<int64_t> expected(lhs.getShape());
  expected.push_back(2);
  if (dst.getShape() != ArrayRef<int64_t>(expected) ||
      dst.getElementType() != lhs.getElementType())
    return emitOpError() << "result must be " << shapeStr(expected) << " of "
                         << lhs.getElementType() << ", got " << dst;
  return success();
}

LogicalResult SplitOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto src = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!src || src.getRank() < 2 || src.getShape().back() != 2)
    return emitOptionalError(location,
                             "'tile.split' op the last dimension of the source "
                             "must be 2 and the source must be at least 2-D, got ",
                             operands[0].getType());
  // A distributed encoding loses the split dimension: the halves are its
  // slice (other encodings pass through).
  Attribute encoding = src.getEncoding();
  if (encoding && isDistributedLayout(encoding))
    encoding = SliceLayoutAttr::get(context, src.getRank() - 1, encoding);
  auto half = RankedTensorType::get(src.getShape().drop_back(),
                                    src.getElementType(), encoding);
  inferredReturnTypes.assign({half, half});
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getRank() == 0 || src.getShape().back() != 2)
    return emitOpError() << "the last dimension of the source must be 2, got "
                         << shapeStr(src.getShape());
  auto expected = src.getShape().drop_back();
  for (Type t : {getOutLHS().getType(), getOutRHS().getType()}) {
    auto r = cast<RankedTensorType>(t);
    if (r.getShape() != expected || r.getElementType() != src.getElementType())
      return emitOpError() << "results must be " << shapeStr(expected) << " of "
                           << src.getElementType() << ", got " << r;
  }
  return success();
}

LogicalResult CatOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType(), dst = getType();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != dst.getElementType())
    return emitOpError() << "element types must agree, got " << lhs << ", "
                         << rhs << " and " << dst;
  if (lhs.getRank() != rhs.getRank() || lhs.getRank() != dst.getRank())
    return emitOpError() << "ranks must agree, got " << lhs << ", " << rhs
                         << " and " << dst;
  if (lhs.getShape().drop_front() != rhs.getShape().drop_front())
    return emitOpError() << "operands may differ only in dimension 0, got "
                         << shapeStr(lhs.getShape()) << " and "
                         << shapeStr(rhs.getShape());
  SmallVector<int64_t> expected(lhs.getShape());
  expected[0] += rhs.getDimSize(0);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeStr(expected)
                         << ", got " << shapeStr(dst.getShape());
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), idx = getIndices().getType(), dst = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (src.getRank() != idx.getRank())
    return emitOpError() << "source and indices must have the same rank, got "
                         << src.getRank() << " and " << idx.getRank();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis
                         << " is out of range for a tensor of rank "
                         << src.getRank();
  if (dst.getShape() != idx.getShape() ||
      dst.getElementType() != src.getElementType())
    return emitOpError() << "result must have the shape of the indices and "
                            "the element type of the source, got "
                         << dst;
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "indices and source differ in dimension " << d
                           << ", which is not the gather axis";
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  if (shapeOf(getPtr().getType()) != shapeOf(getOffset().getType()) ||
      isa<RankedTensorType>(getPtr().getType()) !=
          isa<RankedTensorType>(getOffset().getType()))
    return emitOpError() << "offset must have the shape of the pointer, got "
                         << getOffset().getType() << " for "
                         << getPtr().getType();
  return success();
}

/// Checks `boundary_check` dimensions against a block pointer's rank.
static LogicalResult verifyBoundaryCheck(Operation *op, Type ptrType,
                                         std::optional<ArrayRef<int32_t>> dims) {
  auto ptr = dyn_cast<PointerType>(ptrType);
  bool isBlock = ptr && ptr.isBlockPointer();
  if (!dims)
    return success();
  if (!isBlock)
    return op->emitOpError("boundary_check requires a block pointer");
  int64_t rank = cast<RankedTensorType>(ptr.getPointeeType()).getRank();
  llvm::SmallVector<bool> seen(rank, false);
  for (int32_t d : *dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << "boundary_check dimension " << d
                               << " is out of range for a block of rank "
                               << rank;
    if (seen[d])
      return op->emitOpError() << "boundary_check lists dimension " << d
                               << " twice";
    seen[d] = true;
  }
  return success();
}

static bool isBlockPointerType(Type t) {
  auto ptr = dyn_cast<PointerType>(t);
  return ptr && ptr.isBlockPointer();
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other) {
  build(builder, state, getPointeeType(ptr.getType()), ptr, mask, other,
        /*boundary_check=*/nullptr, /*padding=*/nullptr, CacheModifier::none,
        EvictionPolicy::normal, /*is_volatile=*/false);
}

bool LoadOp::hasZeroOther() {
  Value other = getOther();
  // A float zero stays zero in every float format (`other=0.0` of an fp8
  // load is an f32 zero converted).
  while (other)
    if (auto convert = other.getDefiningOp<FpToFpOp>())
      other = convert.getSrc();
    else if (auto extend = other.getDefiningOp<arith::ExtFOp>())
      other = extend.getIn();
    else if (auto truncate = other.getDefiningOp<arith::TruncFOp>())
      other = truncate.getIn();
    else
      break;
  return !other || matchPattern(other, m_Zero()) ||
         matchPattern(other, m_AnyZeroFloat());
}

LogicalResult LoadOp::verify() {
  bool isBlock = isBlockPointerType(getPtr().getType());
  // A block-pointer load may be predicated as a whole (software
  // pipelining does that), with an i1; out-of-bounds elements are
  // boundary_check's business.
  if (isBlock && getOther())
    return emitOpError("a load through a block pointer takes no 'other'; "
                       "use boundary_check and padding");
  if (!isBlock && getPadding())
    return emitOpError("padding requires a block pointer");
  if (getOther() && !getMask())
    return emitOpError("'other' requires a mask");
  return verifyBoundaryCheck(*this, getPtr().getType(), getBoundaryCheck());
}

void LoadOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalRead(effects);
  // A volatile load must neither be removed nor reordered with other memory
  // operations.
  if (getIsVolatile())
    addGlobalWrite(effects);
}

LogicalResult StoreOp::verify() {
  if (isBlockPointerType(getPtr().getType()) && getMask())
    return emitOpError("a store through a block pointer takes no mask; use "
                       "boundary_check");
  return verifyBoundaryCheck(*this, getPtr().getType(), getBoundaryCheck());
}

void StoreOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalWrite(effects);
}

LogicalResult AtomicRMWOp::verify() {
  Type elem = getElementTypeOrSelf(getVal().getType());
  switch (getKind()) {
  case RMWKind::add:
  case RMWKind::and_:
  case RMWKind::or_:
  case RMWKind::xor_:
  case RMWKind::umax:
  case RMWKind::umin:
    if (!isa<IntegerType>(elem) || elem.isInteger(1))
      return emitOpError() << "atomic " << stringifyRMWKind(getKind())
                           << " needs integers of 8 bits or more, got " << elem;
    break;
  case RMWKind::fadd:
    if (!isa<FloatType>(elem))
      return emitOpError() << "atomic fadd needs floats, got " << elem;
    break;
  case RMWKind::max:
  case RMWKind::min:
    if (!elem.isIntOrFloat() || elem.isInteger(1))
      return emitOpError() << "atomic " << stringifyRMWKind(getKind())
                           << " needs integers or floats, got " << elem;
    break;
  case RMWKind::xchg:
    break;
  }
  return success();
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalRead(effects);
  addGlobalWrite(effects);
}

LogicalResult AtomicCASOp::verify() {
  Type elem = getElementTypeOrSelf(getVal().getType());
  unsigned bits = getScalarBitWidth(elem);
  if (bits != 16 && bits != 32 && bits != 64)
    return emitOpError() << "atomic_cas needs 16-, 32- or 64-bit values, got "
                         << elem;
  return success();
}

void AtomicCASOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalRead(effects);
  addGlobalWrite(effects);
}

LogicalResult MakeTensorPtrOp::verify() {
  auto block = cast<RankedTensorType>(cast<PointerType>(getType()).getPointeeType());
  auto base = cast<PointerType>(getBase().getType());
  if (base.getPointeeType() != block.getElementType())
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << block.getElementType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank ||
      getOffsets().size() != rank)
    return emitOpError() << "shape, strides and offsets need " << rank
                         << " values each (the block's rank), got "
                         << getShape().size() << ", " << getStrides().size()
                         << " and " << getOffsets().size();
  return verifyPermutation(*this, getOrder(), rank, "order");
}

LogicalResult AdvanceOp::verify() {
  int64_t rank =
      cast<RankedTensorType>(cast<PointerType>(getPtr().getType()).getPointeeType())
          .getRank();
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "needs " << rank << " offsets (the block's rank), got "
                         << getOffsets().size();
  return success();
}

LogicalResult MakeTensorDescOp::verify() {
  auto block = getType().getBlockType();
  auto base = cast<PointerType>(getBase().getType());
  if (base.getPointeeType() != block.getElementType())
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << block.getElementType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "shape and strides need " << rank
                         << " values each (the block's rank), got "
                         << getShape().size() << " and " << getStrides().size();
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  auto block = getDesc().getType().getBlockType();
  if (getIndices().size() != static_cast<size_t>(block.getRank()))
    return emitOpError() << "needs " << block.getRank()
                         << " indices (the block's rank), got "
                         << getIndices().size();
  if (getType().getShape() != block.getShape() ||
      getType().getElementType() != block.getElementType())
    return emitOpError() << "result type " << getType()
                         << " differs from the descriptor's block " << block;
  return success();
}

void DescriptorLoadOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalRead(effects);
}

LogicalResult DescriptorStoreOp::verify() {
  auto block = getDesc().getType().getBlockType();
  if (getIndices().size() != static_cast<size_t>(block.getRank()))
    return emitOpError() << "needs " << block.getRank()
                         << " indices (the block's rank), got "
                         << getIndices().size();
  if (getSrc().getType().getShape() != block.getShape() ||
      getSrc().getType().getElementType() != block.getElementType())
    return emitOpError() << "stored type " << getSrc().getType()
                         << " differs from the descriptor's block " << block;
  return success();
}

void DescriptorStoreOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalWrite(effects);
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  int64_t rank = a.getRank();
  if ((rank != 2 && rank != 3) || b.getRank() != rank || c.getRank() != rank)
    return emitOpError() << "operands must all be 2-D (or 3-D with a batch "
                            "dimension), got ranks "
                         << a.getRank() << ", " << b.getRank() << " and "
                         << c.getRank();
  auto as = a.getShape(), bs = b.getShape(), cs = c.getShape();
  if (rank == 3 && (as[0] != bs[0] || as[0] != cs[0]))
    return emitOpError() << "batch dimensions differ: " << shapeStr(as)
                         << ", " << shapeStr(bs) << " and " << shapeStr(cs);
  int64_t m = as[rank - 2], k = as[rank - 1], k2 = bs[rank - 2],
          n = bs[rank - 1];
  if (k != k2)
    return emitOpError() << "inner dimensions differ: a is " << shapeStr(as)
                         << " and b is " << shapeStr(bs);
  if (cs[rank - 2] != m || cs[rank - 1] != n)
    return emitOpError() << "accumulator must be " << m << "x" << n << ", got "
                         << shapeStr(cs);
  Type ae = a.getElementType(), be = b.getElementType(),
       ce = c.getElementType();
  bool aF8 = ae.isFloat8E4M3FN() || ae.isFloat8E5M2();
  bool bF8 = be.isFloat8E4M3FN() || be.isFloat8E5M2();
  if (ae != be && !(aF8 && bF8))
    return emitOpError() << "operand element types differ: " << ae << " and "
                         << be;
  if (isa<FloatType>(ae)) {
    bool ok = ae.isF64() ? ce.isF64()
                         : isa<FloatType>(ce) && !ce.isF64() &&
                               ce.getIntOrFloatBitWidth() >=
                                   std::max(ae.getIntOrFloatBitWidth(),
                                            be.getIntOrFloatBitWidth());
    if (!ok)
      return emitOpError() << "a dot of " << ae
                           << " needs a float accumulator of its width or "
                              "more (f64 only with f64), got "
                           << ce;
  } else if (ae.isInteger(8)) {
    if (!ce.isInteger(32))
      return emitOpError() << "a dot of i8 needs an i32 accumulator, got " << ce;
  } else {
    return emitOpError() << "operands must be floats or i8, got " << ae;
  }
  if (getInputPrecision() != InputPrecision::ieee && !ae.isF32())
    return emitOpError() << "input precision "
                         << stringifyInputPrecision(getInputPrecision())
                         << " applies only to f32 operands, got " << ae;
  if (static_cast<int32_t>(getMaxNumImpreciseAcc()) < 0)
    return emitOpError() << "max_num_imprecise_acc must not be negative, got "
                         << static_cast<int32_t>(getMaxNumImpreciseAcc());
  return success();
}

/// The sources of a reduce or scan have one shape; the combiner takes two
/// values of each element type and returns one of each.
static LogicalResult verifyCombiner(Operation *op, ValueRange srcs,
                                    Region &region, int32_t axis) {
  if (srcs.empty())
    return op->emitOpError("needs at least one operand");
  auto first = cast<RankedTensorType>(srcs[0].getType());
  for (Value v : srcs.drop_front())
    if (cast<RankedTensorType>(v.getType()).getShape() != first.getShape())
      return op->emitOpError() << "operands must have the same shape, got "
                               << shapeStr(first.getShape()) << " and "
                               << shapeStr(cast<RankedTensorType>(v.getType()).getShape());
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError() << "axis " << axis
                             << " is out of range for a tensor of rank "
                             << first.getRank();
  Block &block = region.front();
  size_t n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError() << "combiner must take " << 2 * n
                             << " arguments, got " << block.getNumArguments();
  for (size_t i = 0; i < n; ++i) {
    Type elem = cast<RankedTensorType>(srcs[i].getType()).getElementType();
    if (block.getArgument(i).getType() != elem ||
        block.getArgument(i + n).getType() != elem)
      return op->emitOpError() << "combiner arguments " << i << " and " << i + n
                               << " must be " << elem;
  }
  Operation *term = block.getTerminator();
  if (term->getNumOperands() != n)
    return op->emitOpError() << "combiner must return " << n
                             << " values, got " << term->getNumOperands();
  for (size_t i = 0; i < n; ++i) {
    Type elem = cast<RankedTensorType>(srcs[i].getType()).getElementType();
    if (term->getOperand(i).getType() != elem)
      return op->emitOpError() << "combiner result " << i << " must be " << elem
                               << ", got " << term->getOperand(i).getType();
  }
  return success();
}

SmallVector<int64_t> ReduceOp::getResultShape() {
  auto src = cast<RankedTensorType>(getSrcs()[0].getType());
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + getAxis());
  return shape;
}

LogicalResult ReduceOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Adaptor adaptor(operands, attributes, properties, regions);
  int64_t axis = static_cast<int32_t>(adaptor.getAxis());
  for (Value v : operands) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    if (!tensor || axis < 0 || axis >= tensor.getRank())
      return emitOptionalError(location, "tile.reduce: axis ", axis,
                               " is out of range for operand type ",
                               v.getType());
    SmallVector<int64_t> shape(tensor.getShape());
    shape.erase(shape.begin() + axis);
    // A distributed encoding loses the reduced dimension: the result is its
    // slice along |axis|.
    Attribute encoding = tensor.getEncoding();
    if (encoding && isDistributedLayout(encoding))
      encoding = SliceLayoutAttr::get(context, axis, encoding);
    if (shape.empty())
      inferredReturnTypes.push_back(tensor.getElementType());
    else
      inferredReturnTypes.push_back(
          RankedTensorType::get(shape, tensor.getElementType(), encoding));
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner(*this, getSrcs(), getCombineOp(),
                        static_cast<int32_t>(getAxis()));
}

LogicalResult ScanOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value v : operands)
    inferredReturnTypes.push_back(v.getType());
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner(*this, getSrcs(), getCombineOp(),
                        static_cast<int32_t>(getAxis()));
}

LogicalResult HistogramOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getRank() != 1 || dst.getRank() != 1)
    return emitOpError() << "source and result must be 1-D, got " << src
                         << " and " << dst;
  if (getMask() && getMask().getType().getShape() != src.getShape())
    return emitOpError() << "mask must have the shape of the source, got "
                         << getMask().getType();
  return success();
}

LogicalResult FpToFpOp::verify() {
  Type src = getElementTypeOrSelf(getSrc().getType());
  Type dst = getElementTypeOrSelf(getType());
  bool narrowing = dst.getIntOrFloatBitWidth() <= src.getIntOrFloatBitWidth() &&
                   src != dst;
  if (narrowing && !getRounding())
    return emitOpError() << "a narrowing conversion from " << src << " to "
                         << dst << " needs a rounding mode";
  if (!narrowing && getRounding())
    return emitOpError() << "a rounding mode applies only to narrowing "
                            "conversions, not from "
                         << src << " to " << dst;
  return success();
}

LogicalResult BitcastOp::verify() {
  Type src = getElementTypeOrSelf(getSrc().getType());
  Type dst = getElementTypeOrSelf(getType());
  if (getScalarBitWidth(src) != getScalarBitWidth(dst))
    return emitOpError() << "cannot bitcast " << src << " ("
                         << getScalarBitWidth(src) << " bits) to " << dst
                         << " (" << getScalarBitWidth(dst) << " bits)";
  return success();
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  int32_t packed = static_cast<int32_t>(getPackedElement());
  if (packed < 1)
    return emitOpError() << "packed_element must be at least 1, got " << packed;
  return success();
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  if (getPure())
    return;
  addGlobalRead(effects);
  addGlobalWrite(effects);
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  if (getPure())
    return;
  addGlobalRead(effects);
  addGlobalWrite(effects);
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError() << "is_signed needs one entry per argument ("
                         << getArgs().size() << "), got "
                         << getIsSigned().size();
  return success();
}

void PrintOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalWrite(effects);
}

void AssertOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  addGlobalWrite(effects);
}
