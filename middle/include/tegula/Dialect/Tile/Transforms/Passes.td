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

def TileBoundsCheck : Pass<"tile-bounds-check", "mlir::ModuleOp"> {
  let summary = "Check loads, stores and atomics against the launch's buffers";
  let description = [{
    The debug mode (`TEGULA_DEBUG=1`, `@jit(debug=True)`, `tegula compile
    --debug`). Each kernel gets two hidden `i64` arguments per pointer
    argument, after all the others and in the order of the pointers: the
    first and one past the last byte of the buffer the launch gave for it,
    as offsets in bytes from the pointer itself (`0` and the array's size
    for an array passed whole; the launcher fills them in).

    Before every `tile.load`, `tile.store`, `tile.atomic_rmw` and
    `tile.atomic_cas` through pointers (not block pointers, not tensor
    descriptors), the pass finds which pointer arguments the address may
    derive from (through `tile.addptr`, shape ops, selects and loop-carried
    values; every pointer argument when it cannot tell, as for an address
    loaded from memory) and checks every element the mask enables: its
    bytes must lie inside the buffer of one of them. The smallest offending
    element index (relative to the first such argument) goes to a
    `tile.out_of_bounds`, which fails the launch with the kernel's name, the
    access's source location and that index. The access's mask then drops
    the offending elements, so that a target which reports the failure and
    lets the program finish (the host) touches nothing outside; a
    `tile.atomic_cas` has no mask and is only reported.

    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    // becomes, with %y_ptr the only argument %p derives from:
    %bad = ... %m and (offset < begin or offset + 4 > end)
    %first = "tile.reduce"(select %bad, offset / 4, INT64_MAX) ... minsi
    tile.out_of_bounds %failed, %first, %begin4, %end4, "store to 'y_ptr'"
    tile.store %p, %v, %m_and_inside : tensor<128x!tile.ptr<f32>>
    ```
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

def TileCoalesce : Pass<"tile-coalesce", "mlir::ModuleOp"> {
  let summary = "Give loads, stores and atomics coalesced blocked layouts";
  let description = [{
    Triton's Coalesce. For every `tile.load`, `tile.store`,
    `tile.atomic_rmw` and `tile.atomic_cas` through a tensor of pointers,
    picks a `#tile.blocked` layout from the axis analysis of the pointers:

    - `order` lists the dimensions by decreasing contiguity of the pointers
      (ties keep the later, faster-varying dimension first);
    - the known contiguity along `order[0]`, limited by the alignment the
      pointers' divisibility guarantees (bytes / element bytes), bounds how
      many consecutive elements a thread accesses;
    - `defaultBlockedLayout` (`tegula/BackendKit/LayoutPolicy.h`) turns these
      into the layout, for the module's `tile.num_warps` warps (4 without
      the attribute), `warp-size` threads per warp and accesses of at most
      `max-access-bytes` bytes.

    The memory op then works in that layout: its tensor operands (pointers,
    mask, other, value) are converted to it with `tile.convert_layout` and
    its result is converted back to the type it had, so the IR around it
    is unchanged. `tile-remove-layout-conversions` cleans up.

    ```mlir
    %v = tile.load %p, %m : tensor<1024x!tile.ptr<f32>>
    // becomes, for 16-byte aligned f32 pointers and 4 warps of 32:
    %p1 = tile.convert_layout %p : tensor<1024x!tile.ptr<f32>> -> tensor<1024x!tile.ptr<f32>, #tile.blocked<{
        sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %m1 = tile.convert_layout %m : ...
    %v1 = tile.load %p1, %m1 : tensor<1024x!tile.ptr<f32>, #tile.blocked<...>>
    %v = tile.convert_layout %v1 : tensor<1024xf32, #tile.blocked<...>> -> tensor<1024xf32>
    ```
  }];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "threads per warp the layouts are built for">,
    Option<"maxAccessBytes", "max-access-bytes", "unsigned", /*default=*/"16",
           "the widest access of one thread to global memory, in bytes">,
  ];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile a layout: anchors, propagation, conversions";
  let description = [{
    The layout assignment a backend runs (`tegula::tile::assignLayouts`
    with the target's `LayoutPolicy`); this pass runs it with a generic
    GPU-like policy built from its options. Tiles that already carry an
    encoding keep it. In order:

    1. Anchors take the layouts the policy chooses: loads, stores and
       atomics through tensors of pointers the coalesced layout of
       `tile-coalesce`; `tile.dot` a `#tile.matrix` result layout when the
       policy selects a matrix instruction (its blocked default otherwise)
       and `#tile.dot_operand` operands of it.
    2. Layouts flow forward from the anchors' results through elementwise
       ops, `tile.broadcast`, `tile.expand_dims` of a `#tile.slice` (to its
       parent), `tile.reduce` (to the `#tile.slice` of its operand's layout
       along the reduced dimension), `tile.scan` and the values `scf` loops
       and branches carry; where layouts meet, the earlier anchor's wins.
       The anchors' operand layouts flow backward to the elementwise ops,
       broadcasts, expand_dims (as slices), splats, ranges, constants and
       loop-carried values computing them, so that addresses and masks are
       computed in the layout of the access.
    3. Every other tile takes its layout from its operands where the op
       dictates one, the policy's default (one element per thread,
       row-major) otherwise; a `tile.convert_layout` is inserted wherever
       an op needs an operand in a layout it does not have.
    4. `tile-remove-layout-conversions` cleans up.

    `tile.reduce` and `tile.split` infer their result types with their
    operand's encoding, which has the wrong rank; until they infer a
    `#tile.slice`, their multi-dimensional forms run on tiles without
    encoding, between conversions. Loads and stores through block pointers
    keep their unencoded tiles the same way.

    Options `warp-size`, `num-warps` (0: the module's `tile.num_warps`, or
    4) and `max-access-bytes` parameterize the policy; `matrix-unit` names
    the kind of a matrix-unit family registered with the passes
    (`registerTilePasses(units)`: the pass knows no family by name;
    tegula-opt registers those of the plugins it is built with): the dots
    that family selects take its `#tile.matrix` layout, to exercise that
    path. A kind nobody registered is an error.
  }];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "threads per warp the layouts are built for">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"0",
           "warps per program instance (0: the module's tile.num_warps, or 4)">,
    Option<"maxAccessBytes", "max-access-bytes", "unsigned", /*default=*/"16",
           "the widest access of one thread to global memory, in bytes">,
    Option<"matrixUnit", "matrix-unit", "std::string", /*default=*/"\"\"",
           "the kind of a registered matrix-unit family the policy selects "
           "dots for (empty: none)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Remove tile.convert_layout ops made redundant";
  let description = [{
    A simplified form of Triton's RemoveLayoutConversions (its backward
    rematerialization). Rewrites, to a fixed point, together with the
    canonicalization patterns of every op, then CSE:

    - a conversion of a conversion is one conversion, and none when it
      returns to the source layout (the canonicalization of
      `tile.convert_layout`);
    - a conversion to a distributed layout of a value computed by a chain
      of cheap ops - `tile.splat`, `tile.make_range`, `arith.constant`,
      elementwise ops, `tile.broadcast`, `tile.expand_dims` - becomes the
      chain computed in the target layout, when each input of the chain is
      already in the layout its use needs or a conversion from it, so that
      no conversion is added. Ops of the chain with other users stay for
      them and are duplicated.

    Loads, dots, reductions, calls and block arguments (loop-carried values
    included: loops are not rewritten) are never rematerialized.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TEGULA_TILE_PASSES
