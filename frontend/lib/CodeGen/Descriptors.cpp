//===- Descriptors.cpp - tl.make_tensor_descriptor and its methods --------===//
//
// A tensor descriptor (`tl.make_tensor_descriptor(base, shape, strides,
// block_shape)`) names a row-major tensor in global memory and the block a
// load or store moves. Its loads and stores are block-pointer loads and
// stores with every dimension bounds-checked (out-of-bounds elements read as
// the padding: zero, or NaN), which every target lowers: the distributed
// lowering reads them in coalesced layouts, and a target with a tensor-copy
// engine may map them onto it. Atomics go through a tensor of pointers
// masked to the tensor's bounds. The checks and messages are Triton's.
//
//===----------------------------------------------------------------------===//
#include "CodeGenImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
/// The parts of a descriptor value.
struct Descriptor {
  TValue base;
  std::vector<TValue> shape, strides;
  std::vector<int64_t> blockShape;
  std::string padding;
};

Descriptor unpack(const PyValue &desc) {
  Descriptor d;
  size_t rank = desc.blockShape.size();
  const PyTuple &items = desc.tupleItems();
  d.base = items[0].tensor;
  for (size_t i = 0; i < rank; ++i) {
    d.shape.push_back(items[1 + i].tensor);
    d.strides.push_back(items[1 + rank + i].tensor);
  }
  d.blockShape = desc.blockShape;
  d.padding = desc.str;
  return d;
}

/// Row-major: the last dimension is the contiguous one.
std::vector<int64_t> rowMajorOrder(size_t rank) {
  std::vector<int64_t> order;
  for (size_t i = rank; i-- > 0;)
    order.push_back(static_cast<int64_t>(i));
  return order;
}
} // namespace

PyValue CodeGen::makeTensorDescriptor(const BoundArgs &b, SourceLocation loc) {
  TValue base = tensor(b.get("base"), loc, "'base'");
  if (!base.dtype().isPtr() || base.type.isBlock() || base.dtype().isBlockPtr())
    error(loc, "the base of a tensor descriptor must be a pointer (not a block "
               "pointer or a tensor of pointers), got " + base.type.str());
  const PyValue &shapeArg = b.get("shape"), &stridesArg = b.get("strides");
  std::vector<TValue> shape = tensorList(*this, shapeArg, loc, "shape");
  std::vector<TValue> strides = tensorList(*this, stridesArg, loc, "strides");
  std::vector<int64_t> block = constShape(b.get("block_shape"), loc, "block_shape");
  size_t rank = shape.size();
  if (rank < 1 || rank > 5)
    error(loc, "Expected 1 <= ndim <= 5 but got " + std::to_string(rank) +
                   " dimensions");
  if (strides.size() != rank)
    error(loc, "Expected " + std::to_string(rank) + " strides but got " +
                   std::to_string(strides.size()));
  if (block.size() != rank)
    error(loc, "Expected block_shape to have " + std::to_string(rank) +
                   " dimensions but got " + std::to_string(block.size()));
  DType elem = base.dtype().pointee().scalar();
  int64_t elemBytes = std::max<int64_t>(1, elem.bitWidth() / 8);
  if (block.back() * elemBytes < 16)
    error(loc, "Descriptor block shape must have at least 16 bytes in the last "
               "dimension, but got " + std::to_string(block.back()) + " * " +
               std::to_string(elemBytes) + " = " +
               std::to_string(block.back() * elemBytes) + " bytes");
  for (int64_t d : block)
    if (d <= 0 || (d & (d - 1)) != 0)
      error(loc, "block_shape dimensions must be powers of 2, got " +
                     describe(b.get("block_shape")));
  const PyValue &lastStride = stridesArg.tupleItems().back();
  if (!lastStride.isInt() || lastStride.num.i != 1)
    error(loc, "Tensor descriptor last dim must be 1 but got " +
                   describe(lastStride));
  std::string padding = constString(b.get("padding_option"), loc, "padding_option");
  if (padding != "zero" && padding != "nan")
    error(loc, "padding_option must be 'zero' or 'nan', got '" + padding + "'");
  if (padding == "nan" && !elem.isFloat())
    error(loc, "Padding option `nan` is not supported for integer blocks");

  PyTuple items{PyValue::ofTensor(base)};
  for (const TValue &t : shape)
    items.push_back(PyValue::ofTensor(t));
  for (const TValue &t : strides)
    items.push_back(PyValue::ofTensor(t));
  PyValue desc = PyValue::tuple(std::move(items));
  desc.kind = PyValue::TensorDesc;
  desc.blockShape = std::move(block);
  desc.str = padding;
  return desc;
}

PyValue CodeGen::descriptorAttr(const PyValue &desc, llvm::StringRef name,
                                SourceLocation loc) {
  Descriptor d = unpack(desc);
  if (name == "load" || name == "store" || name.starts_with("atomic_"))
    return PyValue::method(desc, name.str());
  if (name == "block_shape") {
    PyTuple dims;
    for (int64_t n : d.blockShape)
      dims.push_back(PyValue::ofInt(n));
    return PyValue::tuple(dims);
  }
  if (name == "dtype")
    return PyValue::ofDType(d.base.dtype().pointee().scalar());
  if (name == "shape" || name == "strides") {
    PyTuple values;
    for (const TValue &t : name == "shape" ? d.shape : d.strides)
      values.push_back(PyValue::ofTensor(t));
    return PyValue::tuple(values);
  }
  error(loc, "tensor descriptor has no attribute '" + name.str() + "'");
}

PyValue CodeGen::callDescriptorMethod(const PyValue &desc,
                                      const std::string &name, CallArgs &args,
                                      SourceLocation loc) {
  if (desc.kind != PyValue::TensorDesc)
    error(loc, "expected a tensor descriptor, got " + describe(desc));
  Descriptor d = unpack(desc);
  size_t rank = d.blockShape.size();
  bool isStore = name == "store";
  bool isAtomic = llvm::StringRef(name).starts_with("atomic_");
  if (name != "load" && !isStore && !isAtomic)
    error(loc, "tensor descriptor has no method '" + name + "'");
  std::vector<std::string> params = {"offsets"};
  if (isStore || isAtomic)
    params.push_back("value");
  BoundArgs b = bind(args, params, loc, "tensor_descriptor." + name);
  std::vector<TValue> offsets = tensorList(*this, b.get("offsets"), loc, "offsets");
  if (offsets.size() != rank)
    error(loc, "expected " + std::to_string(rank) + " offsets for a " +
                   std::to_string(rank) + "-D tensor descriptor, got " +
                   std::to_string(offsets.size()));
  for (const TValue &o : offsets)
    if (o.type.isBlock() || !o.dtype().isInt())
      error(loc, "descriptor offsets must be integer scalars, got " + o.type.str());
  DType elem = d.base.dtype().pointee().scalar();
  TType blockType(elem, d.blockShape);
  at(loc);

  std::vector<int64_t> allDims;
  for (size_t i = 0; i < rank; ++i)
    allDims.push_back(static_cast<int64_t>(i));
  if (name == "load") {
    TValue ptr = sem.makeBlockPtr(d.base, d.shape, d.strides, offsets,
                                  d.blockShape, rowMajorOrder(rank));
    return PyValue::ofTensor(sem.load(ptr, std::nullopt, std::nullopt, allDims,
                                      d.padding, MemoryOptions{}));
  }

  // The stored value: a number fills the block; a tensor must be the block.
  const PyValue &v = b.get("value");
  TValue value = v.isNumber() ? sem.full(d.blockShape, v.num, elem)
                              : tensor(v, loc, "the value");
  if (value.type.shape() != llvm::ArrayRef<int64_t>(d.blockShape))
    error(loc, "the value's shape " + shapeStr(value.type.shape()) +
                   " does not match the descriptor's block shape " +
                   shapeStr(d.blockShape));
  if (value.dtype() != elem)
    error(loc, "the value's dtype " + value.dtype().str() +
                   " does not match the descriptor's dtype " + elem.str());
  if (isStore) {
    TValue ptr = sem.makeBlockPtr(d.base, d.shape, d.strides, offsets,
                                  d.blockShape, rowMajorOrder(rank));
    sem.store(ptr, value, std::nullopt, allDims, MemoryOptions{});
    return PyValue::none();
  }

  // Atomics: the block's element pointers, masked to the tensor's bounds.
  TValue pointers = d.base;
  std::optional<TValue> mask;
  for (size_t i = 0; i < rank; ++i) {
    std::vector<int64_t> along(rank, 1);
    along[i] = d.blockShape[i];
    TValue index = sem.add(sem.arange(0, d.blockShape[i]),
                           sem.cast(offsets[i], DType::I32));
    index = sem.reshape(index, along, /*canReorder=*/false);
    TValue inside = sem.logicalAnd(sem.compare(">=", index, PyNum::ofInt(0)),
                                   sem.compare("<", index, d.shape[i]));
    mask = mask ? sem.logicalAnd(*mask, inside) : inside;
    pointers = sem.add(pointers, sem.mul(sem.cast(index, DType::I64),
                                         sem.cast(d.strides[i], DType::I64)));
  }
  pointers = sem.broadcastTo(pointers, d.blockShape);
  mask = sem.broadcastTo(*mask, d.blockShape);
  return PyValue::ofTensor(sem.atomicRMW(llvm::StringRef(name).drop_front(7),
                                         pointers, value, mask, "", ""));
}
