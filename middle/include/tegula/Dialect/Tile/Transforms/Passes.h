//===- Passes.h - passes over the tile dialect ------------------*- C++ -*-===//
#ifndef TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tegula::backend {
class LayoutPolicy;
class MatrixUnitRegistry;
} // namespace tegula::backend

namespace tegula::tile {

#define GEN_PASS_DECL
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"

/// Adds Tegula's target-independent pipeline to |pm|: inline, canonicalize,
/// CSE, LICM, SCCP, tile-combine and symbol DCE, in the order that lets each
/// feed the next. Registered as `tile-optimize`.
void buildTileOptimizePipeline(mlir::OpPassManager &pm);

/// Registers the `tile-optimize` pipeline with MLIR's global registry (for
/// tegula-opt and PassManager::parsePassPipeline). The generated
/// registerTilePasses() registers the individual passes.
void registerTilePipelines();

/// Gives every load, store and atomic through a tensor of pointers in
/// |module| the blocked layout |policy| chooses for it from the axis
/// analysis (tile-coalesce), converting its operands to that layout and its
/// results back. |numWarps| 0 means the module's `tile.num_warps` (4 when
/// absent).
mlir::LogicalResult coalesceMemoryOps(mlir::ModuleOp module,
                                      const backend::LayoutPolicy &policy,
                                      unsigned numWarps = 0);

/// Removes the tile.convert_layout ops of |module| that rematerializing
/// their sources makes redundant, then canonicalizes and CSEs
/// (tile-remove-layout-conversions).
mlir::LogicalResult removeLayoutConversions(mlir::ModuleOp module);

/// Gives every tile (ranked tensor) of |module| a layout encoding: anchors
/// (loads, stores, atomics, dots) take what |policy| chooses, layouts
/// propagate from them, other tiles take |policy|'s default, conversions
/// join different layouts and redundant ones are removed
/// (tile-assign-layouts). Encodings already present are kept. |numWarps|
/// 0 means the module's `tile.num_warps` (4 when absent). Fails, with a
/// diagnostic, when |policy| returns a layout the dialect rejects.
mlir::LogicalResult assignLayouts(mlir::ModuleOp module,
                                  const backend::LayoutPolicy &policy,
                                  unsigned numWarps = 0);

/// Software-pipelines the loops of |module| whose loads feed dot operands
/// that |isShared| says live in shared memory: those loads (and their
/// address computations) run numStages - 1 iterations ahead, predicated
/// off past the end (SoftwarePipeline.cpp). |numStages| is the default;
/// the module's and each loop's `tile.num_stages` override it; below 2
/// nothing changes.
mlir::LogicalResult
pipelineSharedOperandLoads(mlir::ModuleOp module, unsigned numStages,
                           llvm::function_ref<bool(mlir::Type)> isShared);

#define GEN_PASS_REGISTRATION
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"

/// Registers the tile passes as the generated registerTilePasses() does,
/// with |units| the matrix-unit families whose kinds tile-assign-layouts'
/// `matrix-unit` option may name (middle/ knows none by name: a tool
/// registers those of the backends it is built with). |units| must outlive
/// the registrations.
void registerTilePasses(const backend::MatrixUnitRegistry &units);

} // namespace tegula::tile

#endif // TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H
