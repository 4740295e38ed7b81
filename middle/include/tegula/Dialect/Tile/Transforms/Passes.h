//===- Passes.h - passes over the tile dialect ------------------*- C++ -*-===//
#ifndef TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

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

#define GEN_PASS_REGISTRATION
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tegula::tile

#endif // TEGULA_DIALECT_TILE_TRANSFORMS_PASSES_H
