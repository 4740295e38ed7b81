//===- TileTypes.td - types of the tile dialect ------------*- tablegen -*-===//
#ifndef TEGULA_TILE_TYPES
#define TEGULA_TILE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tegula/Dialect/Tile/IR/TileDialect.td"

class Tile_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PointerType : Tile_TypeDef<"Pointer", "ptr"> {
  let summary = "pointer into a memory address space";
  let description = [{
    A pointer to values of `pointeeType` in address space `addressSpace`
    (1, global memory, by default). A pointer to a ranked tensor is a
    *block pointer* (`tl.make_block_ptr`): it carries the shape, strides,
    offsets and order of a block of a larger tensor.

    ```mlir
    !tile.ptr<f32>          // global pointer to f32
    !tile.ptr<f16, 3>       // pointer to f16 in address space 3
    !tile.ptr<tensor<64x64xf16>>  // block pointer
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// True for a block pointer: a pointer to a ranked tensor.
    bool isBlockPointer() const {
      return ::mlir::isa<::mlir::RankedTensorType>(getPointeeType());
    }
  }];
}

def Tile_TensorDescType : Tile_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "descriptor of a global tensor, loaded and stored block-wise";
  let description = [{
    The value of `tl.make_tensor_descriptor`: the base, shape and strides of a
    global tensor, read and written in blocks of type `blockType`. Targets
    with tensor-memory copy engines (TMA) lower it to a hardware
    descriptor.

    ```mlir
    !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64], "floating-point">;
def Tile_FloatTensor : StaticShapeTensorOf<[Tile_Float]>;
def Tile_FloatLike : AnyTypeOf<[Tile_Float, Tile_FloatTensor]>;

def Tile_BoolTensor : StaticShapeTensorOf<[I1]>;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor]>;

def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def Tile_IntTensor : StaticShapeTensorOf<[Tile_Int]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor]>;

def Tile_I32Like : AnyTypeOf<[I32, StaticShapeTensorOf<[I32]>]>;
def Tile_I64Like : AnyTypeOf<[I64, StaticShapeTensorOf<[I64]>]>;

def Tile_Ptr : DialectType<Tile_Dialect,
    CPred<"::mlir::isa<::tegula::tile::PointerType>($_self) && "
          "!::mlir::cast<::tegula::tile::PointerType>($_self).isBlockPointer()">,
    "pointer">;
def Tile_BlockPtr : DialectType<Tile_Dialect,
    CPred<"::mlir::isa<::tegula::tile::PointerType>($_self) && "
          "::mlir::cast<::tegula::tile::PointerType>($_self).isBlockPointer()">,
    "block pointer">;
def Tile_PtrTensor : StaticShapeTensorOf<[Tile_Ptr]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;

def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_Ptr], "scalar">;
def Tile_ScalarTensor : StaticShapeTensorOf<[Tile_Float, Tile_Int, Tile_Ptr]>;
def Tile_Type : AnyTypeOf<[Tile_Scalar, Tile_ScalarTensor]>;

def Tile_Tensor : StaticShapeTensorOf<[Tile_Float, Tile_Int, Tile_Ptr]>;

#endif // TEGULA_TILE_TYPES
