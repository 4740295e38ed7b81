//===- TileLayouts.td - layout encodings of tile tensors ---*- tablegen -*-===//
//
// Layout attributes of the layout engine, modeled on TritonGPU's encodings:
// attached as the `encoding` of a RankedTensorType, they say how the
// elements of a tile are distributed over the threads, warps and CTAs of a
// program instance (distributed layouts) or laid out in shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_TILE_LAYOUTS
#define TEGULA_TILE_LAYOUTS

include "mlir/IR/AttrTypeBase.td"
include "tegula/Dialect/Tile/IR/TileDialect.td"

/// An array of int64_t written `[a, b, ...]`.
class Tile_LayoutArrayParameter<string desc>
    : ArrayRefParameter<"int64_t", desc> {
  let parser = "::tegula::tile::parseLayoutArray($_parser)";
  let printer = "::tegula::tile::printLayoutArray($_printer, $_self)";
}

/// Base class of the layout attributes: `#tile.<mnemonic><{key = value, ...}>`.
class Tile_LayoutAttr<string name, string attrMnemonic>
    : AttrDef<Tile_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

/// A blocked distributed layout: each thread holds `sizePerThread` contiguous
/// elements, a warp tiles `threadsPerWarp` threads, a CTA `warpsPerCTA` warps.
def Tile_BlockedLayoutAttr : Tile_LayoutAttr<"BlockedLayout", "blocked"> {
  let summary = "blocked distributed layout of a tensor";
  let description = [{
    A distributed layout (TritonGPU's `#blocked`): the tensor is tiled by a
    block of `sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d]` elements
    along each dimension `d`; each thread owns `sizePerThread[d]` contiguous
    elements of the block, the threads of a warp are spread as
    `threadsPerWarp`, the warps of a CTA as `warpsPerCTA`, and the block
    repeats to cover the tensor. `order` lists the dimensions from the
    fastest-varying to the slowest. All four arrays have the tensor's rank;
    entries are positive powers of 2 and `order` is a permutation.

    ```mlir
    tensor<128x64xf16, #tile.blocked<{sizePerThread = [1, 4],
        threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
    ```
  }];
  let parameters = (ins
    Tile_LayoutArrayParameter<"elements per thread">:$sizePerThread,
    Tile_LayoutArrayParameter<"threads per warp">:$threadsPerWarp,
    Tile_LayoutArrayParameter<"warps per CTA">:$warpsPerCTA,
    Tile_LayoutArrayParameter<"dimensions, fastest-varying first">:$order);
  let extraClassDeclaration = [{
    /// The rank of the tensors this layout applies to.
    int64_t getRank() const { return getOrder().size(); }
    /// The number of threads of a warp: the product of `threadsPerWarp`.
    int64_t getTotalThreadsPerWarp() const;
    /// The number of warps of a CTA: the product of `warpsPerCTA`.
    int64_t getTotalWarps() const;
  }];
}

/// A slice of a distributed layout: the parent with dimension `dim` removed.
def Tile_SliceLayoutAttr : Tile_LayoutAttr<"SliceLayout", "slice"> {
  let summary = "distributed layout of a parent layout with one dimension removed";
  let description = [{
    The layout of a tensor obtained by reducing (or before expanding) the
    dimension `dim` of a tensor of layout `parent` (TritonGPU's `#slice`):
    element `i` lives where element `i` with `dim` inserted lives in the
    parent. `parent` is a distributed layout and `dim` is less than its rank;
    the slice has rank one less than the parent.

    ```mlir
    tensor<128xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{
        sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
        order = [1, 0]}>}>>
    ```
  }];
  let parameters = (ins "int64_t":$dim, "::mlir::Attribute":$parent);
}

/// The output layout of a matrix unit; `kind` names the plugin's family.
def Tile_MatrixLayoutAttr : Tile_LayoutAttr<"MatrixLayout", "matrix"> {
  let summary = "accumulator layout of a matrix-multiply unit";
  let description = [{
    The layout of the accumulator of a matrix-multiply instruction (the
    matrix-unit encodings of TritonGPU), parameterized by the target plugin:
    `kind` is the name of the instruction family, "vendor.unit", that a
    plugin's matrix-unit family answers to (MatrixUnit::getKind() in
    tegula/BackendKit/MatrixUnit.h; the lowering finds the family by it and
    rejects a kind nobody registered), `version` the family's version of
    its layouts, `warpsPerCTA` the arrangement of warps over the tensor
    (powers of 2, one entry per dimension) and `instrShape` the shape one
    instruction computes. What the layout means - which thread holds which
    element - is the family's to say: the dialect knows no family.

    ```mlir
    tensor<128x128xf32, #tile.matrix<{kind = "acme.matrix", version = [1],
        warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"instruction family, named by the plugin">:$kind,
    Tile_LayoutArrayParameter<"version of the family">:$version,
    Tile_LayoutArrayParameter<"warps per CTA">:$warpsPerCTA,
    Tile_LayoutArrayParameter<"shape of one instruction">:$instrShape);
  let extraClassDeclaration = [{
    /// The rank of the tensors this layout applies to.
    int64_t getRank() const { return getWarpsPerCTA().size(); }
  }];
}

/// The layout of operand `opIdx` of a dot whose result has layout `parent`.
def Tile_DotOperandLayoutAttr : Tile_LayoutAttr<"DotOperandLayout", "dot_operand"> {
  let summary = "layout of an operand of a dot";
  let description = [{
    The layout of the A (`opIdx = 0`) or B (`opIdx = 1`) operand of a
    `tile.dot` whose result has layout `parent` (TritonGPU's
    `#dot_op`). `parent` is a `#tile.matrix` or a `#tile.blocked` layout;
    `kWidth` is the number of consecutive elements along K a thread holds,
    a power of 2 (0, meaning unspecified, is allowed for a blocked parent).
    The layout has the rank of its parent.

    ```mlir
    tensor<128x64xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.matrix<{
        kind = "acme.matrix", version = [1], warpsPerCTA = [2, 2],
        instrShape = [16, 8]}>, kWidth = 8}>>
    ```
  }];
  let parameters = (ins "int64_t":$opIdx, "::mlir::Attribute":$parent,
                        "int64_t":$kWidth);
}

/// A swizzled shared-memory layout.
def Tile_SharedLayoutAttr : Tile_LayoutAttr<"SharedLayout", "shared"> {
  let summary = "swizzled layout of a tensor in shared memory";
  let description = [{
    The layout of a tensor in shared memory (TritonGPU's `#shared`), with
    XOR swizzling to avoid bank conflicts: rows are stored in groups of `vec`
    elements, `perPhase` rows share a swizzle phase and there are
    `maxPhase` phases. `order` lists the dimensions from the fastest-varying
    to the slowest and has the tensor's rank; `vec`, `perPhase` and
    `maxPhase` are positive powers of 2.

    ```mlir
    tensor<64x64xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8,
        order = [1, 0]}>>
    ```
  }];
  let parameters = (ins "int64_t":$vec, "int64_t":$perPhase,
                        "int64_t":$maxPhase,
                        Tile_LayoutArrayParameter<"dimensions, fastest-varying first">:$order);
  let extraClassDeclaration = [{
    /// The rank of the tensors this layout applies to.
    int64_t getRank() const { return getOrder().size(); }
  }];
}

#endif // TEGULA_TILE_LAYOUTS
