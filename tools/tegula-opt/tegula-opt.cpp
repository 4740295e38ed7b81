//===- tegula-opt.cpp - mlir-opt with Tegula's dialects and passes --------===//
#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#ifdef TEGULA_HAVE_NVIDIA_MATRIX_UNITS
#include "NvidiaMatrixUnits.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // The matrix-unit families of the plugins built with this tool, which
  // tile-assign-layouts' matrix-unit option and the test lowering find by
  // kind.
  static tegula::backend::MatrixUnitRegistry matrixUnits;
#ifdef TEGULA_HAVE_NVIDIA_MATRIX_UNITS
  tegula::nvidia::addNvidiaMatrixUnits(matrixUnits);
#endif

  mlir::registerAllPasses();
  tegula::tile::registerTilePasses(matrixUnits);
  tegula::tile::registerTilePipelines();
  tegula::registerTileToLLVMTestPass(&matrixUnits);

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<tegula::tile::TileDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tegula optimizer driver: tile IR and every MLIR pass\n",
      registry));
}
