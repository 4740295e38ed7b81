//===- tegula-opt.cpp - mlir-opt with Tegula's dialects and passes --------===//
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tegula::tile::registerTilePasses();
  tegula::tile::registerTilePipelines();
  tegula::registerTileToLLVMTestPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<tegula::tile::TileDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tegula optimizer driver: tile IR and every MLIR pass\n",
      registry));
}
