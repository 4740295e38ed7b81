//===- Pipeline.cpp - the target-independent tile-optimize pipeline -------===//
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tegula::tile::buildTileOptimizePipeline(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSCCPPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileCombine());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void tegula::tile::registerTilePipelines() {
  PassPipelineRegistration<>(
      "tile-optimize",
      "Tegula's target-independent pipeline: inline, canonicalize, SCCP, CSE, "
      "tile-combine, LICM and symbol DCE",
      buildTileOptimizePipeline);
}
