//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
#ifndef TEGULA_TILE_DIALECT
#define TEGULA_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tegula::tile";
  let summary = "Target-independent tile IR of Tegula kernels";
  let description = [{
    The `tile` dialect is the intermediate representation every Tegula kernel
    passes through on its way to any target. It models the Triton language:
    a kernel is a function run by a grid of *program instances*; each
    instance computes on whole tiles (ranked tensors of scalars or of
    pointers) with no notion of threads, layouts or memory hierarchy.

    Scalars and tiles use MLIR's builtin integer, float and tensor types.
    Integers are signless, as in LLVM: signedness is carried by the choice of
    operation (`arith.divsi` vs `arith.divui`, `arith.cmpi slt` vs `ult`,
    `arith.extsi` vs `arith.extui`, `tile.umulhi`), decided once by the
    front end. Element types are i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2,
    f16, bf16, f32 and f64. The dialect adds a pointer type
    (`!tile.ptr<f32>`), block pointers (a pointer to a tensor,
    `!tile.ptr<tensor<64x64xf16>>`) and tensor descriptors
    (`!tile.tensordesc<tensor<64x64xf16>>`).

    Upstream `arith`, `math`, `scf`, `cf` and `func` ops are used wherever
    they fit; the dialect only adds what they lack.

    The dialect is versioned in MLIR bytecode (see `TileBytecode.cpp`): a
    writer records the dialect version, and a reader refuses versions it
    does not know. IR crosses the plugin boundary in that form.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let usePropertiesForAttributes = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

#endif // TEGULA_TILE_DIALECT
