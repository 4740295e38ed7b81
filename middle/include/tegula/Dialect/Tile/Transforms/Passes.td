//===- Passes.td - passes over the tile dialect ------------*- tablegen -*-===//
#ifndef TEGULA_TILE_PASSES
#define TEGULA_TILE_PASSES

include "mlir/Pass/PassBase.td"

def TileCombine : Pass<"tile-combine", "mlir::ModuleOp"> {
  let summary = "Fuse tile ops into cheaper forms";
  let description = [{
    Rewrites patterns the front end produces into forms targets lower
    better:

    - `tile.dot %a, %b, zeros` followed by an add of `%d` becomes
      `tile.dot %a, %b, %d` (the accumulator operand);
    - `arith.select %m, (tile.load %p, %m), %o` becomes
      `tile.load %p, %m, %o` (the `other` operand);
    - `tile.addptr (tile.addptr %p, %a), %b` becomes
      `tile.addptr %p, (%a + %b)`;
    - elementwise ops on operands that are all `tile.splat`s (or all
      `tile.broadcast`s from one shape) run on the small operands and are
      splatted (broadcast) once afterwards.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileTestAxisInfo : Pass<"tile-test-axis-info", "mlir::ModuleOp"> {
  let summary = "Report the axis analysis of every value (for tests)";
  let description = [{
    Runs the axis analysis (`tegula/Analysis/AxisInfo.h`) and attaches a
    remark to every op with an integer or pointer result:
    `contiguity = [...], divisibility = [...], constancy = [...]`. For lit
    tests with `-verify-diagnostics`; it changes no IR.
  }];
}

#endif // TEGULA_TILE_PASSES
