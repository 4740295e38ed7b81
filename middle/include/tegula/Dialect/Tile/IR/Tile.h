//===- Tile.h - the tile dialect --------------------------------*- C++ -*-===//
//
// The tile dialect: Tegula's target-independent tile IR. Include this header
// to use the dialect's types, attributes and operations.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_DIALECT_TILE_IR_TILE_H
#define TEGULA_DIALECT_TILE_IR_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tegula/Dialect/Tile/IR/TileDialect.h.inc"
#include "tegula/Dialect/Tile/IR/TileEnums.h.inc"

namespace tegula::tile {
/// Parses the `[a, b, ...]` arrays of the layout attributes.
mlir::FailureOr<llvm::SmallVector<int64_t>>
parseLayoutArray(mlir::AsmParser &parser);
/// Prints the `[a, b, ...]` arrays of the layout attributes.
void printLayoutArray(mlir::AsmPrinter &printer, llvm::ArrayRef<int64_t> values);
} // namespace tegula::tile

#define GET_ATTRDEF_CLASSES
#include "tegula/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tegula/Dialect/Tile/IR/TileTypes.h.inc"

namespace tegula::tile {

/// The memory resource that loads, stores and atomics read and write.
struct GlobalMemory : public mlir::SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};

/// The version of the tile dialect this build writes into MLIR bytecode.
/// Readers accept every version with the same major and a minor up to this.
struct TileDialectVersion {
  static constexpr uint32_t kMajor = 1;
  static constexpr uint32_t kMinor = 0;
};

/// `i1` of the shape of |type|: i1 for a scalar, tensor<...xi1> for a tensor.
mlir::Type getI1SameShape(mlir::Type type);
/// The type a load through |type| gives: the pointee of a pointer, a tensor
/// of pointees for a tensor of pointers, the block of a block pointer.
/// Returns |type| unchanged when it is not a pointer or tensor of pointers,
/// so that parsing malformed IR reaches the verifier instead of failing.
mlir::Type getPointeeType(mlir::Type type);
/// The pointer to one element of the block of block pointer |type|
/// (`!tile.ptr<tensor<8xf16>, 1>` gives `!tile.ptr<f16, 1>`); |type| itself
/// when it is not a block pointer.
mlir::Type getBlockBaseType(mlir::Type type);
/// Bit width of a scalar type; pointers are 64 bits.
unsigned getScalarBitWidth(mlir::Type type);

/// The rank of the tensors layout attribute |layout| (`#tile.blocked`,
/// `#tile.slice`, `#tile.matrix`, `#tile.dot_operand`, `#tile.shared`)
/// applies to; -1 when |layout| is null or not a tile layout.
int64_t getLayoutRank(mlir::Attribute layout);
/// True for the distributed layouts: every tile layout but `#tile.shared`.
bool isDistributedLayout(mlir::Attribute layout);

/// Names of the argument attributes a kernel's arguments may carry.
inline constexpr llvm::StringLiteral kDivisibilityAttr = "tile.divisibility";
inline constexpr llvm::StringLiteral kContiguityAttr = "tile.contiguity";
inline constexpr llvm::StringLiteral kConstancyAttr = "tile.constancy";
inline constexpr llvm::StringLiteral kNonNullAttr = "tile.nonnull";
/// Launch options on the module (`tile.num_warps`, `tile.num_stages`) and
/// loop hints on scf.for (`tile.num_stages`, `tile.loop_unroll_factor`).
inline constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
inline constexpr llvm::StringLiteral kLoopUnrollFactorAttr =
    "tile.loop_unroll_factor";

} // namespace tegula::tile

#define GET_OP_CLASSES
#include "tegula/Dialect/Tile/IR/TileOps.h.inc"

#endif // TEGULA_DIALECT_TILE_IR_TILE_H
