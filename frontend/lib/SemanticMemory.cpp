//===- SemanticMemory.cpp - Triton's loads, stores and atomics ------------===//
#include "tegula/Frontend/Semantic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
[[noreturn]] void fail(const std::string &message) { throw SemanticError(message); }

tile::CacheModifier loadCache(StringRef s) {
  if (s.empty())
    return tile::CacheModifier::none;
  if (s == ".ca") return tile::CacheModifier::ca;
  if (s == ".cg") return tile::CacheModifier::cg;
  if (s == ".cv") return tile::CacheModifier::cv;
  fail("cache modifier " + s.str() + " not supported");
}

tile::CacheModifier storeCache(StringRef s) {
  if (s.empty())
    return tile::CacheModifier::none;
  if (s == ".wb") return tile::CacheModifier::wb;
  if (s == ".cg") return tile::CacheModifier::cg;
  if (s == ".cs") return tile::CacheModifier::cs;
  if (s == ".wt") return tile::CacheModifier::wt;
  fail("cache modifier " + s.str() + " not supported");
}

tile::EvictionPolicy eviction(StringRef s) {
  if (s.empty())
    return tile::EvictionPolicy::normal;
  if (s == "evict_last") return tile::EvictionPolicy::evict_last;
  if (s == "evict_first") return tile::EvictionPolicy::evict_first;
  fail("eviction policy " + s.str() + " not supported");
}

tile::MemSemantic semantic(StringRef s) {
  if (s.empty() || s == "acq_rel") return tile::MemSemantic::acq_rel;
  if (s == "acquire") return tile::MemSemantic::acquire;
  if (s == "release") return tile::MemSemantic::release;
  if (s == "relaxed") return tile::MemSemantic::relaxed;
  fail("memory semantic " + s.str() + " not supported");
}

tile::MemSyncScope scope(StringRef s) {
  if (s.empty() || s == "gpu") return tile::MemSyncScope::gpu;
  if (s == "cta") return tile::MemSyncScope::cta;
  if (s == "sys") return tile::MemSyncScope::sys;
  fail("memory scope " + s.str() + " not supported");
}

/// Sorted, checked boundary_check dimensions.
SmallVector<int32_t> boundaryDims(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<int32_t> out;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      fail("boundary_check dimension " + std::to_string(d) +
           " is out of range for a block of rank " + std::to_string(rank));
    if (llvm::is_contained(out, d))
      fail("duplicate dimension in `boundary_check`");
    out.push_back(static_cast<int32_t>(d));
  }
  llvm::sort(out);
  return out;
}
} // namespace

TValue Semantic::load(const TValue &ptrIn, std::optional<TValue> mask,
                      std::optional<Operand> other,
                      ArrayRef<int64_t> boundaryCheck, StringRef padding,
                      const MemoryOptions &options) {
  auto cache = loadCache(options.cache);
  auto evict = eviction(options.eviction);
  std::optional<tile::PaddingOption> pad;
  if (padding == "zero")
    pad = tile::PaddingOption::zero;
  else if (padding == "nan")
    pad = tile::PaddingOption::nan;
  else if (!padding.empty())
    fail("padding option " + padding.str() + " not supported");

  TValue ptr = ptrIn;
  if (ptr.dtype().isBlockPtr()) {
    if (mask || other)
      fail("`mask` and `other` arguments cannot be specified for loading "
           "block pointers");
    const TType &block = ptr.dtype().pointee();
    if (block.scalar().isInt() && pad == tile::PaddingOption::nan)
      fail("padding option `nan` is not supported for integer block pointers");
    auto dims = boundaryDims(boundaryCheck, block.shape().size());
    auto op = create<tile::LoadOp>(block.toMLIR(context()), ptr.value, Value(),
                                   Value(),
                                   dims.empty() ? DenseI32ArrayAttr()
                                                : b.getDenseI32ArrayAttr(dims),
                                   pad ? tile::PaddingOptionAttr::get(context(), *pad)
                                       : tile::PaddingOptionAttr(),
                                   cache, evict, options.isVolatile);
    return wrap(op, block);
  }
  if (!ptr.dtype().isPtr())
    fail("unsupported ptr type " + ptr.type.str() + " in `tl.load`");
  if (!mask && other)
    fail("`other` cannot be provided without `mask`");
  if (pad || !boundaryCheck.empty())
    fail("`padding_option` or `boundary_check` argument is not supported for "
         "loading a tensor of pointers or loading a scalar, because the "
         "compiler does not know the boundary; please use block pointers "
         "(defined by `make_block_ptr`) instead");
  std::optional<TValue> otherV;
  if (other)
    otherV = toTensor(*other);
  if (!ptr.type.isBlock()) {
    if (mask && mask->type.isBlock())
      fail("mask argument cannot be block type if pointer argument is not a block");
    if (otherV && otherV->type.isBlock())
      fail("other argument cannot be block type if pointer argument is not a block");
  } else {
    if (mask)
      std::tie(ptr, *mask) = broadcastPair(ptr, *mask);
    if (otherV)
      std::tie(ptr, *otherV) = broadcastPair(ptr, *otherV);
    if (mask && mask->type.shape() != ptr.type.shape())
      std::tie(ptr, *mask) = broadcastPair(ptr, *mask);
  }
  if (mask && !mask->dtype().isBool())
    fail("mask must have boolean scalar type, got " + mask->dtype().str());
  DType elem = ptr.dtype().pointee().scalar();
  bool isBool = elem.isBool();
  if (isBool) {
    // Booleans live in memory as bytes.
    elem = DType::I8;
    ptr = cast(ptr, DType::pointer(elem, ptr.dtype().addressSpace()));
  }
  if (otherV)
    otherV = cast(*otherV, elem);
  TType dst = ptr.type.withScalar(elem);
  auto op = create<tile::LoadOp>(
      dst.toMLIR(context()), ptr.value, mask ? mask->value : Value(),
      otherV ? otherV->value : Value(), DenseI32ArrayAttr(),
      tile::PaddingOptionAttr(), cache, evict, options.isVolatile);
  TValue result = wrap(op, dst);
  if (isBool)
    result = cast(result, DType::I1);
  return result;
}

void Semantic::store(const TValue &ptrIn, const Operand &valueIn,
                     std::optional<TValue> mask, ArrayRef<int64_t> boundaryCheck,
                     const MemoryOptions &options) {
  auto cache = storeCache(options.cache);
  auto evict = eviction(options.eviction);
  TValue ptr = ptrIn;
  TValue value = toTensor(valueIn);
  if (ptr.dtype().isBlockPtr()) {
    if (mask)
      fail("`mask` and `other` arguments cannot be specified for loading "
           "block pointers");
    const TType &block = ptr.dtype().pointee();
    if (!value.type.isBlock())
      value = broadcastTo(value, block.shape());
    if (value.type.shape() != block.shape())
      fail("block shape (" + shapeStr(block.shape()) + ") and value shape (" +
           shapeStr(value.type.shape()) + ") mismatch");
    auto dims = boundaryDims(boundaryCheck, block.shape().size());
    value = cast(value, block.scalar());
    create<tile::StoreOp>(ptr.value, value.value, Value(),
                          dims.empty() ? DenseI32ArrayAttr()
                                       : b.getDenseI32ArrayAttr(dims),
                          cache, evict);
    return;
  }
  if (!ptr.dtype().isPtr())
    fail("unsupported ptr type " + ptr.type.str() + " in `tl.store`");
  if (!boundaryCheck.empty())
    fail("`boundary_check` argument is not supported for storing a tensor of "
         "pointers or storing a scalar, because the compiler does not know "
         "the boundary; please use block pointers (defined by "
         "`make_block_ptr`) instead");
  if (!ptr.type.isBlock()) {
    if (value.type.isBlock())
      fail("value argument cannot be block type if pointer argument is not a block");
    if (mask && mask->type.isBlock())
      fail("mask argument cannot be block type if pointer argument is not a block");
  } else {
    SmallVector<int64_t> ptrShape(ptr.type.shape());
    std::tie(ptr, value) = broadcastPair(ptr, value);
    if (mask) {
      std::tie(ptr, *mask) = broadcastPair(ptr, *mask);
      std::tie(ptr, value) = broadcastPair(ptr, value);
    }
    if (ArrayRef<int64_t>(ptrShape) != ptr.type.shape())
      fail("expected pointer argument to have shape " +
           shapeStr(ptr.type.shape()) + " but got " + shapeStr(ptrShape));
  }
  DType elem = ptr.dtype().pointee().scalar();
  if (elem.isBool()) {
    elem = DType::I8;
    ptr = cast(ptr, DType::pointer(elem, ptr.dtype().addressSpace()));
  }
  value = cast(value, elem);
  if (mask && !mask->dtype().isBool())
    fail("mask must have boolean scalar type, got " + mask->dtype().str());
  create<tile::StoreOp>(ptr.value, value.value, mask ? mask->value : Value(),
                        DenseI32ArrayAttr(), cache, evict);
}

TValue Semantic::atomicRMW(StringRef op, const TValue &ptrIn,
                           const Operand &valueIn, std::optional<TValue> mask,
                           StringRef semStr, StringRef scopeStr) {
  TValue ptr = ptrIn;
  if (!ptr.dtype().isPtr() || ptr.dtype().isBlockPtr())
    fail("pointer argument of atomic_" + op.str() + " is " + ptr.type.str());
  DType elem = ptr.dtype().pointee().scalar();
  if ((elem.kind() == DType::FP16 || elem.kind() == DType::BF16) && op != "add")
    fail("atomic_" + op.str() + " does not support " + elem.str());
  if (elem.kind() == DType::I16 || elem.kind() == DType::U16 ||
      elem.bitWidth() < 16)
    fail("atomic_" + op.str() + " does not support " + elem.str());
  TValue value = toTensor(valueIn);
  if (ptr.type.isBlock()) {
    if (mask)
      mask = broadcastTo(*mask, ptr.type.shape());
    value = broadcastTo(value, ptr.type.shape());
  }
  value = cast(value, elem);
  if (!mask)
    mask = full(ptr.type.shape(), PyNum::ofBool(true), DType::I1);
  auto sem = semantic(semStr);
  auto sc = scope(scopeStr);
  auto rmw = [&](tile::RMWKind kind, const TValue &p, const TValue &v,
                 const TValue &m) {
    TType type = p.type.withScalar(p.dtype().pointee().scalar());
    return wrap(create<tile::AtomicRMWOp>(type.toMLIR(context()), kind, sem, sc,
                                          p.value, v.value, m.value),
                type);
  };
  if (op == "add")
    return rmw(elem.isFloat() ? tile::RMWKind::fadd : tile::RMWKind::add, ptr,
               value, *mask);
  if (op == "and" || op == "or" || op == "xor") {
    if (!elem.isInt())
      fail("atomic_" + op.str() + " needs integers, got " + elem.str());
    auto kind = op == "and" ? tile::RMWKind::and_
                : op == "or" ? tile::RMWKind::or_ : tile::RMWKind::xor_;
    return rmw(kind, ptr, value, *mask);
  }
  if (op == "xchg")
    return rmw(tile::RMWKind::xchg, ptr, value, *mask);
  if (op != "max" && op != "min")
    fail("unknown atomic operation " + op.str());
  bool isMax = op == "max";
  if (elem.isInt()) {
    auto kind = elem.isUnsignedInt()
                    ? (isMax ? tile::RMWKind::umax : tile::RMWKind::umin)
                    : (isMax ? tile::RMWKind::max : tile::RMWKind::min);
    return rmw(kind, ptr, value, *mask);
  }
  if (elem.kind() != DType::FP32 && elem.kind() != DType::FP64)
    fail("atomic_" + op.str() + " not supported for dtype " + elem.str());
  // Floats as integers: for non-negative values the signed integer order is
  // the float order; for negative ones the unsigned order is its reverse.
  unsigned bits = elem.bitWidth();
  DType it = DType::integer(bits, true), ut = DType::integer(bits, false);
  TValue iv = bitcast(value, it), uv = bitcast(value, ut);
  TValue ip = bitcast(ptr, DType::pointer(it)), up = bitcast(ptr, DType::pointer(ut));
  TValue sign = cast(lshr(uv, PyNum::ofInt(bits - 1)), DType::I1);
  TValue pos = logicalNot(sign);
  TValue posRet = rmw(isMax ? tile::RMWKind::max : tile::RMWKind::min, ip, iv,
                      bitAnd(*mask, pos));
  TValue negRet = rmw(isMax ? tile::RMWKind::umin : tile::RMWKind::umax, up, uv,
                      bitAnd(*mask, sign));
  TValue ret = where(pos, posRet, bitcast(negRet, it));
  return bitcast(ret, elem);
}

TValue Semantic::atomicCAS(const TValue &ptr, const Operand &cmpIn,
                           const Operand &valueIn, StringRef semStr,
                           StringRef scopeStr) {
  if (!ptr.dtype().isPtr() || ptr.dtype().isBlockPtr())
    fail("pointer argument of atomic_cas is " + ptr.type.str());
  DType elem = ptr.dtype().pointee().scalar();
  unsigned bits = elem.bitWidth();
  if (bits != 16 && bits != 32 && bits != 64)
    fail("atomic_cas only supports elements with width {16, 32, 64}");
  TValue cmp = cast(broadcastTo(toTensor(cmpIn), ptr.type.shape()), elem);
  TValue value = cast(broadcastTo(toTensor(valueIn), ptr.type.shape()), elem);
  TType type = ptr.type.withScalar(elem);
  return wrap(create<tile::AtomicCASOp>(type.toMLIR(context()),
                                        semantic(semStr), scope(scopeStr),
                                        ptr.value, cmp.value, value.value),
              type);
}

mlir::Value Semantic::toIndexScalar(const TValue &x, bool wide) {
  if (x.type.isBlock() || !x.dtype().isInt())
    fail("expected an integer scalar in shape/strides/offsets, got " +
         x.type.str());
  DType want = wide ? DType(DType::I64) : DType(DType::I32);
  if (!wide && x.dtype().bitWidth() > 32)
    fail("block pointers only support 32 bit `offsets/block_shape`, got " +
         x.dtype().str());
  return intCast(x, want, x.dtype().isSignedInt()).value;
}

TValue Semantic::makeBlockPtr(const TValue &base, ArrayRef<TValue> shape,
                              ArrayRef<TValue> strides, ArrayRef<TValue> offsets,
                              ArrayRef<int64_t> blockShape,
                              ArrayRef<int64_t> order) {
  if (!base.dtype().isPtr() || base.type.isBlock() || base.dtype().isBlockPtr())
    fail("expected `base` to be a pointer type (but not a block pointer type "
         "or a tensor of pointers), got " + base.type.str());
  size_t rank = blockShape.size();
  if (shape.size() != rank || strides.size() != rank || offsets.size() != rank ||
      order.size() != rank)
    fail("expected shape/strides/offsets/block_shape/order to have the same "
         "length");
  SmallVector<int64_t> sorted(order);
  llvm::sort(sorted);
  for (size_t i = 0; i < rank; ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      fail("expected a permutation of (0, 1, ..., len(order)-1) in order");
  for (int64_t d : blockShape)
    if (d <= 0 || (d & (d - 1)) != 0)
      fail("block_shape dimensions must be powers of 2, got " + shapeStr(blockShape));
  DType elem = base.dtype().pointee().scalar();
  TValue ptr = base;
  if (elem.isBool()) {
    elem = DType::I8;
    ptr = cast(ptr, DType::pointer(elem, base.dtype().addressSpace()));
  }
  SmallVector<Value> s, st, o;
  for (const TValue &v : shape) s.push_back(toIndexScalar(v, true));
  for (const TValue &v : strides) st.push_back(toIndexScalar(v, true));
  for (const TValue &v : offsets) o.push_back(toIndexScalar(v, false));
  SmallVector<int32_t> ord(order.begin(), order.end());
  DType blockPtr = DType::pointer(TType(elem, blockShape), base.dtype().addressSpace());
  auto op = create<tile::MakeTensorPtrOp>(blockPtr.toMLIR(context()), ptr.value,
                                          s, st, o, ord);
  return wrap(op, blockPtr);
}

TValue Semantic::advance(const TValue &ptr, ArrayRef<TValue> offsets) {
  if (!ptr.dtype().isBlockPtr() || ptr.type.isBlock())
    fail("expected a block pointer in tl.advance, got " + ptr.type.str());
  if (offsets.size() != ptr.dtype().pointee().shape().size())
    fail("expected " + std::to_string(ptr.dtype().pointee().shape().size()) +
         " offsets in tl.advance, got " + std::to_string(offsets.size()));
  SmallVector<Value> o;
  for (const TValue &v : offsets)
    o.push_back(toIndexScalar(v, false));
  return wrap(create<tile::AdvanceOp>(ptr.value.getType(), ptr.value, o), ptr.type);
}
