//===- TileOps.td - operations of the tile dialect ---------*- tablegen -*-===//
#ifndef TEGULA_TILE_OPS
#define TEGULA_TILE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tegula/Dialect/Tile/IR/TileDialect.td"
include "tegula/Dialect/Tile/IR/TileTypes.td"
include "tegula/Dialect/Tile/IR/TileAttrs.td"
include "tegula/Dialect/Tile/IR/TileLayouts.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

// Type transforms used by TypesMatchWith (defined in TileTypes.cpp).
defvar I1SameShape = "::tegula::tile::getI1SameShape($_self)";
defvar PointeeOf = "::tegula::tile::getPointeeType($_self)";

// The memory every load, store and atomic touches.
def GlobalMemory : Resource<"::tegula::tile::GlobalMemory">;

//===----------------------------------------------------------------------===//
// Program instances and ranges
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis";
  let description = [{
    `tl.program_id(axis)`: the index of the running program instance along
    grid axis `axis` (0, 1 or 2).

    ```mlir
    %pid = tile.program_id 0 : i32
    ```
  }];
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of program instances along a grid axis";
  let description = [{
    `tl.num_programs(axis)`: the size of the launch grid along `axis`.

    ```mlir
    %n = tile.num_programs 1 : i32
    ```
  }];
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "1-D tensor of consecutive i32 values";
  let description = [{
    `tl.arange(start, end)`: the values `start, start + 1, ..., end - 1` as a
    1-D i32 tensor of `end - start` elements.

    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "tensor whose elements all equal a scalar";
  let description = [{
    Broadcasts the scalar `src` to every element of the result tensor.

    ```mlir
    %t = tile.splat %x : f32 -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "stretch dimensions of size 1";
  let description = [{
    Repeats `src` along each dimension whose size is 1 in `src` to the size
    of that dimension in the result. The ranks and element types agree.

    ```mlir
    %b = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1";
  let description = [{
    `tl.expand_dims(x, axis)`: the result has a new dimension of size 1 at
    position `axis`.

    ```mlir
    %e = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterpret the shape of a tensor";
  let description = [{
    `tl.reshape(x, shape, can_reorder)`: the same elements in a new shape with
    the same number of elements. Elements keep their row-major order unless
    `allow_reorder` is set, which lets a target order them as it likes
    (`can_reorder=True`).

    ```mlir
    %r = tile.reshape %x : tensor<16x8xf32> -> tensor<128xf32>
    %s = tile.reshape %x allow_reorder : tensor<16x8xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src (`allow_reorder` $allow_reorder^)? attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    `tl.trans` / `tl.permute`: result dimension `i` is source dimension
    `order[i]`.

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "interleave two tensors along a new minor dimension";
  let description = [{
    `tl.join(a, b)`: a tensor of shape `shape(a) + [2]` whose slice `[..., 0]`
    is `a` and `[..., 1]` is `b`.

    ```mlir
    %j = tile.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "split a tensor along its minor dimension of size 2";
  let description = [{
    `tl.split(x)`: the inverse of `tile.join`. The last dimension of `src`
    has size 2; the results are its two slices.

    ```mlir
    %a, %b = tile.split %x : tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$outLHS, Tile_Tensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_CatOp : Tile_Op<"cat", [Pure]> {
  let summary = "concatenate two tensors along the first dimension";
  let description = [{
    `tl.cat(a, b, can_reorder=True)`: the elements of `lhs` followed by those
    of `rhs` along dimension 0. Other dimensions agree.

    ```mlir
    %c = tile.cat %a, %b : tensor<32xf32>, tensor<32xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "gather elements of a tensor along an axis";
  let description = [{
    `tl.gather(src, index, axis)`: `result[i...] = src[i... with index[i...]
    at axis]`. `index` has the rank of `src` and the shape of the result.

    ```mlir
    %g = tile.gather %src[%idx] {axis = 0 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_IntTensor:$indices, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// Redistributes a tensor from one layout to another.
def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "the same tensor in another layout";
  let description = [{
    Returns `src` unchanged in value but with the layout (the `encoding` of
    the tensor type, such as `#tile.blocked` or `#tile.shared`) of the
    result type. The shape and element type stay the same; each encoding,
    when present, has the rank of the tensor (a `#tile.slice` has the rank
    of its parent minus one).

    ```mlir
    %y = tile.convert_layout %x : tensor<128x64xf16, #a> -> tensor<128x64xf16, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, Elementwise,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "offset pointers by a number of elements";
  let description = [{
    `ptr + offset`: advances each pointer by `offset` elements of its
    pointee type (not bytes). `offset` is an integer of the shape of `ptr`.

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"mask has the shape of ptr, of i1", "ptr", "mask", I1SameShape,
                   "!::llvm::cast<::tegula::tile::LoadOp>(&$_op).getMask() || std::equal_to<>()">,
    TypesMatchWith<"other has the type of the result", "ptr", "other", PointeeOf,
                   "!::llvm::cast<::tegula::tile::LoadOp>(&$_op).getOther() || std::equal_to<>()">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>]> {
  let summary = "load a tensor or scalar through pointers";
  let description = [{
    `tl.load`: reads the value at each pointer of `ptr`. Where `mask` is
    false the element is not read and the result is `other` (undefined
    without `other`). A block pointer (`!tile.ptr<tensor<...>>`) loads the
    whole block; `boundary_check` names the dimensions checked against the
    tensor's bounds, and out-of-bounds elements are `padding` (zero or NaN).
    `cache`, `evict` and `is_volatile` are hints to the target.

    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>>
    %b = tile.load %bp {boundary_check = array<i32: 0, 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[Tile_PtrLike, Tile_BlockPtr]>:$ptr,
    Optional<Tile_BoolLike>:$mask,
    Optional<Tile_Type>:$other,
    OptionalAttr<DenseI32ArrayAttr>:$boundary_check,
    OptionalAttr<Tile_PaddingOptionAttr>:$padding,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::tegula::tile::CacheModifier::none">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tegula::tile::EvictionPolicy::normal">:$evict,
    UnitAttr:$is_volatile);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$mask, "::mlir::Value":$other)>
  ];
  let extraClassDeclaration = [{
    /// Whether masked-off elements read as zero: no `other`, or a constant
    /// zero one (what asynchronous copies, which zero-fill, give).
    bool hasZeroOther();
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value", PointeeOf>,
    TypesMatchWith<"mask has the shape of ptr, of i1", "ptr", "mask", I1SameShape,
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let summary = "store a tensor or scalar through pointers";
  let description = [{
    `tl.store`: writes each element of `value` to its pointer in `ptr`, where
    `mask` is true. A block pointer stores the whole block, checking the
    dimensions in `boundary_check` against the tensor's bounds.

    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[Tile_PtrLike, Tile_BlockPtr]>:$ptr,
    Tile_Type:$value,
    Optional<Tile_BoolLike>:$mask,
    OptionalAttr<DenseI32ArrayAttr>:$boundary_check,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::tegula::tile::CacheModifier::none">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tegula::tile::EvictionPolicy::normal">:$evict);
  let assemblyFormat = "$ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val", PointeeOf>,
    TypesMatchWith<"mask has the shape of ptr, of i1", "ptr", "mask", I1SameShape,
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>]> {
  let summary = "atomic read-modify-write";
  let description = [{
    `tl.atomic_add` and friends: atomically replaces each `*ptr` with
    `kind(*ptr, val)` where `mask` is true and returns the old values.
    `add`, `and`, `or`, `xor`, `umax`, `umin` take integers, `fadd` floats,
    `max` and `min` either (signed for integers), `xchg` any type. `sem` is
    the memory ordering and `scope` the set of threads it orders with.

    ```mlir
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_RMWKindAttr:$kind, Tile_MemSemanticAttr:$sem, Tile_MemSyncScopeAttr:$scope,
    Tile_PtrLike:$ptr, Tile_Type:$val, Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $kind `,` $sem `,`
    $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict
    `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"cmp is the pointee of ptr", "ptr", "cmp", PointeeOf>,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val", PointeeOf>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>]> {
  let summary = "atomic compare-and-swap";
  let description = [{
    `tl.atomic_cas`: atomically, where `*ptr == cmp`, stores `val`; returns
    the old values.

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %p, %c, %v : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins
    Tile_MemSemanticAttr:$sem, Tile_MemSyncScopeAttr:$scope,
    Tile_PtrLike:$ptr, Tile_Type:$cmp, Tile_Type:$val);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,`
    $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_MakeTensorPtrOp : Tile_Op<"make_tensor_ptr", [Pure, AttrSizedOperandSegments,
    TypesMatchWith<"base points to the block's elements", "result", "base",
                   "::tegula::tile::getBlockBaseType($_self)">]> {
  let summary = "make a block pointer";
  let description = [{
    `tl.make_block_ptr`: a pointer to the block of shape `tensor<...>` (the
    result's pointee) at `offsets` of the tensor at `base` with `shape` and
    `strides` (in elements). `order` lists the dimensions from fastest- to
    slowest-varying in memory.

    ```mlir
    %bp = tile.make_tensor_ptr %base, [%m, %k], [%sm, %c1], [%o0, %o1] {order = array<i32: 1, 0>} : !tile.ptr<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets, DenseI32ArrayAttr:$order);
  let results = (outs Tile_BlockPtr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AdvanceOp : Tile_Op<"advance", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "move a block pointer";
  let description = [{
    `tl.advance`: the block pointer `ptr` moved by `offsets` elements in each
    dimension.

    ```mlir
    %next = tile.advance %bp, [%c0, %c32] : !tile.ptr<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_BlockPtr:$ptr, Variadic<I32>:$offsets);
  let results = (outs Tile_BlockPtr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_MakeTensorDescOp : Tile_Op<"make_tensor_descriptor", [Pure, AttrSizedOperandSegments]> {
  let summary = "make a tensor descriptor";
  let description = [{
    `tl.make_tensor_descriptor`: describes the tensor at `base` with `shape`
    and `strides` (in elements; the last stride is 1), read and written in
    blocks of the result's block type.

    ```mlir
    %d = tile.make_tensor_descriptor %base, [%m, %n], [%sm, %c1] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape, Variadic<I64>:$strides);
  let results = (outs Tile_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load a block through a tensor descriptor";
  let description = [{
    `desc.load(offsets)`: the block at `indices` (element offsets) of the
    described tensor; out-of-bounds elements read as zero.

    ```mlir
    %b = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::tegula::tile::CacheModifier::none">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tegula::tile::EvictionPolicy::normal">:$evict);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store a block through a tensor descriptor";
  let description = [{
    `desc.store(offsets, value)`: writes `src` to the block at `indices` of
    the described tensor; out-of-bounds elements are not written.

    ```mlir
    tile.descriptor_store %d[%i, %j], %v : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices, Tile_Tensor:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "matrix product with accumulation";
  let description = [{
    `tl.dot(a, b, acc)`: `d = a @ b + c` for `a: MxK`, `b: KxN`,
    `c, d: MxN` (an optional leading batch dimension on all four). Inputs are
    floats of at most 32 bits (both fp8 kinds may be mixed) with a float
    accumulator, or i8 with an i32 accumulator. `input_precision` chooses how
    f32 inputs are multiplied: exactly (`ieee`), as TF32 (`tf32`), or as
    three TF32 products (`tf32x3`). `max_num_imprecise_acc` bounds how many
    fp8 products a target may accumulate at reduced precision (0: none).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c,
    DefaultValuedAttr<Tile_InputPrecisionAttr, "::tegula::tile::InputPrecision::ieee">:$input_precision,
    DefaultValuedAttr<I32Attr, "0">:$max_num_imprecise_acc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SingleBlock,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "reduce tensors along an axis with a combiner";
  let description = [{
    `tl.reduce` (and `tl.sum`, `tl.max`, `tl.argmax`, ...): reduces the
    tensors `srcs` (all of one shape) along `axis` with the combiner region.
    The region takes two values of each source's element type (the
    accumulated ones first) and yields one of each with `tile.reduce.return`.
    Reducing a 1-D tensor gives scalars. The combiner must be associative;
    the order of combination is unspecified.

    ```mlir
    %s = "tile.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce.return %r : f32
    }) : (tensor<128xf32>) -> f32
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
    let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape of each result: the sources' shape without |axis|.
    ::llvm::SmallVector<int64_t> getResultShape();
  }];
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return",
    [HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "terminator of a tile.reduce combiner";
  let description = [{
    Yields the combined values from the combiner region of `tile.reduce`.
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SingleBlock, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "inclusive scan along an axis with a combiner";
  let description = [{
    `tl.associative_scan` (and `tl.cumsum`, `tl.cumprod`): the inclusive
    prefix combination of `srcs` along `axis`, from the end when `reverse`
    is set. The combiner region has the form of `tile.reduce`'s and ends in
    `tile.scan.return`.

    ```mlir
    %c = "tile.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tile.scan.return %r : i32
    }) : (tensor<128xi32>) -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
    let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return",
    [HasParent<"ScanOp">, Pure, Terminator, ReturnLike]> {
  let summary = "terminator of a tile.scan combiner";
  let description = [{
    Yields the combined values from the combiner region of `tile.scan`.
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "histogram of integer values";
  let description = [{
    `tl.histogram(x, num_bins, mask)`: a 1-D i32 tensor of `num_bins`
    counts; bin `i` counts the elements of `src` equal to `i` (where `mask`
    is true). Values outside `[0, num_bins)` are not counted.

    ```mlir
    %h = tile.histogram %x : tensor<1024xi32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_IntTensor:$src, Optional<Tile_BoolTensor>:$mask);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $src (`,` $mask^ `:` type($mask))? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FpToFpOp : Tile_Op<"fp_to_fp", [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "convert between float formats with a rounding mode";
  let description = [{
    Converts floats, including to and from fp8. A narrowing conversion
    (one that can lose values) names its `rounding` mode, round to nearest
    even (`rtne`) or toward zero (`rtz`); a widening one names none.

    ```mlir
    %h = tile.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<64xf8E5M2>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$src, OptionalAttr<Tile_RoundingModeAttr>:$rounding);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $src (`,` `rounding` `=` $rounding^)? attr-dict
    `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "reinterpret the bits of each element";
  let description = [{
    `x.to(dtype, bitcast=True)`: the same bits read as another type of the
    same width. Pointers are 64 bits wide.

    ```mlir
    %i = tile.bitcast %x : tensor<64xf32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_Type:$src);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "convert 64-bit integers to pointers";
  let description = [{
    ```mlir
    %p = tile.int_to_ptr %i : i64 -> !tile.ptr<f32>
    ```
  }];
  let arguments = (ins Tile_I64Like:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Elementwise, SameOperandsAndResultShape]> {
  let summary = "convert pointers to 64-bit integers";
  let description = [{
    ```mlir
    %i = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_I64Like:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_PreciseSqrtOp : Tile_Op<"precise_sqrt", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded square root";
  let description = [{
    `tl.sqrt_rn`: the square root rounded to nearest even, where a target's
    `math.sqrt` may be approximate.

    ```mlir
    %r = tile.precise_sqrt %x : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Tile_PreciseDivFOp : Tile_Op<"precise_divf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded division";
  let description = [{
    `tl.div_rn`: `x / y` rounded to nearest even, where `arith.divf` may be
    approximate on a target (`tl.fdiv`).

    ```mlir
    %q = tile.precise_divf %x, %y : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$y);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def Tile_UMulHiOp : Tile_Op<"umulhi", [Pure, Elementwise, SameOperandsAndResultType, Commutative]> {
  let summary = "high half of an unsigned product";
  let description = [{
    `tl.umulhi`: the most significant half of the double-width product of two
    unsigned integers (the core of Philox).

    ```mlir
    %h = tile.umulhi %a, %b : tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_IntLike:$x, Tile_IntLike:$y);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Tile_ClampFOp : Tile_Op<"clampf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "clamp floats to a range";
  let description = [{
    `tl.clamp(x, min, max, propagate_nan)`: `min(max(x, min), max)`. With
    `propagate_nan = all` a NaN `x` gives NaN; with `none` the result for a
    NaN is unspecified (either bound or NaN), which is faster on some targets.

    ```mlir
    %c = tile.clampf %x, %lo, %hi, propagate_nan = all : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$min, Tile_FloatLike:$max,
                       Tile_PropagateNanAttr:$propagate_nan);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagate_nan` `=` $propagate_nan
    attr-dict `:` type($result)
  }];
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [Elementwise,
    SameOperandsAndResultShape, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call an external elementwise function";
  let description = [{
    `tl.extern_elementwise` (libdevice and friends): applies `symbol` of
    library `libname` (found at `libpath`) to each element of `srcs`. A
    `pure` function has no side effects.

    ```mlir
    %r = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure = true} : (tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Type>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def Tile_ElementwiseInlineAsmOp : Tile_Op<"elementwise_inline_asm", [Elementwise,
    SameOperandsAndResultShape, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "target assembly applied to each element";
  let description = [{
    `tl.inline_asm_elementwise`: runs `asm_string` with `constraints` on
    groups of `packed_element` elements of `args`, giving one element of
    each result per element. Not portable: only the targets whose assembly
    it is can lower it.

    ```mlir
    %r = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %a, %b, %c : tensor<64xi32>, tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<Tile_Type>:$args);
  let results = (outs Variadic<Tile_Type>:$result);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "print values from every program instance";
  let description = [{
    `tl.device_print(prefix, *args, hex=False)`: prints `prefix` and each
    element of `args` with its program id and index. `is_signed` says, per
    argument, whether an integer prints as signed (1) or unsigned (0).

    ```mlir
    tile.print " x: " {hex = false, is_signed = array<i32: 1>} : %x : tensor<64xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<Tile_Type>:$args,
                       DenseI32ArrayAttr:$is_signed);
  let assemblyFormat = [{
    $prefix attr-dict (`:` $args^ `:` type($args))?
  }];
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "fail the launch where a condition is false";
  let description = [{
    `tl.device_assert(cond, msg)`: where any element of `condition` is
    false, the launch fails with `message`, the op's source location and the
    failing program id.

    ```mlir
    tile.assert %ok, "index out of range" : tensor<64xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Tile_OutOfBoundsOp : Tile_Op<"out_of_bounds", [MemoryEffects<[MemWrite]>]> {
  let summary = "fail the launch for an access outside its buffer (debug mode)";
  let description = [{
    Written by `tile-bounds-check`, never by the front end. Where `failed`
    is true the launch fails: `access` (for example `store to 'y_ptr'`)
    reached element `index` of a buffer whose elements are `begin` (0 for
    an array passed whole) to `end` (exclusive), counted in elements of the
    access from the pointer the launch passed. The failure names the
    kernel, the op's source location and the program id.

    ```mlir
    tile.out_of_bounds %bad, %index, %begin, %end, "store to 'y_ptr'"
    ```
  }];
  let arguments = (ins I1:$failed, I64:$index, I64:$begin, I64:$end,
                       StrAttr:$access);
  let assemblyFormat = [{
    $failed `,` $index `,` $begin `,` $end `,` $access attr-dict
  }];
}

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier"> {
  let summary = "synchronize all threads of a program instance";
  let description = [{
    `tl.debug_barrier()`: every thread of the program instance waits here
    until all have arrived, and their memory operations are ordered.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

def Tile_FuncOp : Tile_Op<"func", [AffineScope, AutomaticAllocationScope,
    CallableOpInterface, FunctionOpInterface, IsolatedFromAbove, OpAsmOpInterface]> {
  let summary = "a kernel, or a helper function of kernels";
  let description = [{
    A public `tile.func` is a kernel: the entry of a launch, returning
    nothing. A private one is a helper called with `tile.call` (helpers are
    inlined unless marked `noinline`). Kernel arguments carry what
    specialization knows about them:

    - `tile.divisibility = N`: the integer, or the pointer's address in bytes,
      is a multiple of `N` (a power of 2);
    - `tile.contiguity = N`, `tile.constancy = N`: runs of `N` consecutive
      (respectively equal) values, for tensors of pointers or integers;
    - `tile.nonnull`: the pointer is not null.

    ```mlir
    tile.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       UnitAttr:$noinline);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type,
      CArg<"::llvm::ArrayRef<::mlir::NamedAttribute>", "{}">:$attrs,
      CArg<"::llvm::ArrayRef<::mlir::DictionaryAttr>", "{}">:$argAttrs)>];
  let extraClassDeclaration = [{
    /// A public function is a kernel: the entry point of a launch.
    bool isKernel() { return isPublic(); }

    //===------------------------------------------------------------------===//
    // CallableOpInterface
    //===------------------------------------------------------------------===//
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getCallableResults() { return getFunctionType().getResults(); }
    ::mlir::ArrayAttr getCallableArgAttrs() { return getArgAttrs().value_or(nullptr); }
    ::mlir::ArrayAttr getCallableResAttrs() { return getResAttrs().value_or(nullptr); }

    //===------------------------------------------------------------------===//
    // FunctionOpInterface
    //===------------------------------------------------------------------===//
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }

    //===------------------------------------------------------------------===//
    // SymbolOpInterface
    //===------------------------------------------------------------------===//
    bool isDeclaration() { return isExternal(); }

    //===------------------------------------------------------------------===//
    // OpAsmOpInterface
    //===------------------------------------------------------------------===//
    static ::llvm::StringRef getDefaultDialect() { return "tile"; }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_CallOp : Tile_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a helper function";
  let description = [{
    Calls the `tile.func` named `callee` with `operands` and returns its
    results.

    ```mlir
    %r = tile.call @helper(%a, %b) : (f32, f32) -> f32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>);
  let builders = [
    OpBuilder<(ins "FuncOp":$callee, CArg<"::mlir::ValueRange", "{}">:$operands), [{
      $_state.addOperands(operands);
      $_state.addAttribute("callee", ::mlir::SymbolRefAttr::get(callee));
      $_state.addTypes(callee.getFunctionType().getResults());
    }]>];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType() {
      return ::mlir::FunctionType::get(getContext(), getOperandTypes(), getResultTypes());
    }
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::mlir::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let summary = "return from a tile.func";
  let description = [{
    Returns `srcs` from the enclosing `tile.func`; their types are its
    result types.

    ```mlir
    tile.return %x : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

#endif // TEGULA_TILE_OPS
