// tile-assign-layouts: anchors (loads, stores, dots) take the policy's
// layouts, layouts propagate from them, every other tile takes the default
// layout and conversions join different layouts (then
// tile-remove-layout-conversions). The last RUN lines run it over real
// front-end kernels: every tile gets an encoding, the IR verifies and the
// host lowering (which ignores encodings) still takes it.

// RUN: tegula-opt %s -split-input-file -tile-assign-layouts | FileCheck %s
// RUN: tegula-opt %s -split-input-file -tile-assign-layouts=matrix-unit=nvidia.mma | FileCheck %s --check-prefix=MMA

// Vector add: the loads' and the store's coalesced layout reaches the
// address and mask computations and the add; no conversion is needed.
// CHECK-LABEL: tile.func @vector_add(
// CHECK-NOT:     convert_layout
// CHECK:         make_range {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         arith.cmpi slt, {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK:         load {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// CHECK:         arith.addf {{.*}} : tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK:         store {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// CHECK-NOT:     convert_layout
// CHECK:         return
tile.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %s = tile.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %px = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %px, %mask : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %py = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %b = tile.load %py, %mask : tensor<1024x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<1024xf32>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %pz = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %pz, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// A row maximum: the reduction's result is the slice of its operand's
// layout along the reduced dimension, expand_dims of it gives back the
// parent, and the subtraction stays in the load's layout. The row offsets
// are computed in the slice layout the expand_dims needs. A 1-D reduction
// to a scalar reduces in its operand's layout.
// CHECK-LABEL: tile.func @row_max(
// CHECK:         make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK:         %[[X:.+]] = load {{.*}} : tensor<64x32x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         "tile.reduce"
// CHECK:         %[[E:.+]] = expand_dims %{{.+}} {axis = 1 : i32} : tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<64x1xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[E]]
// CHECK-NEXT:    %[[Y:.+]] = arith.subf %[[X]], %[[B]] : tensor<64x32xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT:    store %{{.+}}, %[[Y]] :
// CHECK-LABEL: tile.func @total(
// CHECK:         "tile.reduce"
// CHECK:         }) : (tensor<1024xf32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> f32
tile.func @row_max(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %st = tile.splat %stride : i32 -> tensor<64x1xi32>
  %rowoff = arith.muli %rows, %st : tensor<64x1xi32>
  %rowb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x32xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %colb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rowb, %colb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %p = tile.addptr %as, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %x = tile.load %p : tensor<64x32x!tile.ptr<f32>>
  %m = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %mx = arith.maxnumf %l, %rr : f32
    tile.reduce.return %mx : f32
  }) : (tensor<64x32xf32>) -> tensor<64xf32>
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x32xf32>
  %y = arith.subf %x, %mb : tensor<64x32xf32>
  tile.store %p, %y : tensor<64x32x!tile.ptr<f32>>
  tile.return
}
tile.func @total(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %out: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %as, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %x = tile.load %p : tensor<1024x!tile.ptr<f32>>
  %s = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %sum = arith.addf %l, %rr : f32
    tile.reduce.return %sum : f32
  }) : (tensor<1024xf32>) -> f32
  tile.store %out, %s : !tile.ptr<f32>
  tile.return
}

// -----

// A dot in a loop. Without a matrix unit the result takes the policy's
// default blocked layout and the operands #tile.dot_operand of it; with
// nvidia.mma (MMA) a #tile.matrix layout. The loads' results are converted
// to the operand layouts; the loop carries the pointers in the loads'
// layouts and the accumulator in the dot's, whose zero start is a constant
// in that layout. The result is converted once, to the store's layout.
// CHECK-LABEL: tile.func @dot_loop(
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// CHECK:         scf.for {{.*}} iter_args(%[[AP:.+]] = %{{.+}}, %[[BP:.+]] = %{{.+}}, %[[ACC:.+]] = %[[ZERO]]) -> (tensor<64x32x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<32x64x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>)
// CHECK-NEXT:      %[[X:.+]] = tile.load %[[AP]] :
// CHECK-NEXT:      %[[XO:.+]] = tile.convert_layout %[[X]] : tensor<64x32xf16, #tile.blocked<{{.*}}>> -> tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>, kWidth = 0}>>
// CHECK-NEXT:      %[[Y:.+]] = tile.load %[[BP]] :
// CHECK-NEXT:      %[[YO:.+]] = tile.convert_layout %[[Y]] : tensor<32x64xf16, #tile.blocked<{{.*}}>> -> tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>, kWidth = 0}>>
// CHECK-NEXT:      tile.dot %[[XO]], %[[YO]], %[[ACC]] : {{.*}} -> tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// CHECK-NOT:       convert_layout
// CHECK:           scf.yield
// CHECK:         %[[C:.+]] = convert_layout %{{.+}}#2 : tensor<64x64xf32, #tile.blocked<{{.*}}>> -> tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NOT:     convert_layout
// CHECK:         store %{{.+}}, %[[C]] : tensor<64x64x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// MMA-LABEL:   tile.func @dot_loop(
// MMA:           %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.matrix<{kind = "nvidia.mma", version = [2], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// MMA:           scf.for {{.*}} iter_args({{.*}}, %[[ACC:.+]] = %[[ZERO]])
// MMA:             tile.convert_layout {{.*}} -> tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.matrix<{kind = "nvidia.mma", version = [2], warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
// MMA:             tile.convert_layout {{.*}} -> tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #tile.matrix<{{.*}}>, kWidth = 2}>>
// MMA:             tile.dot {{.*}}, %[[ACC]] : {{.*}} -> tensor<64x64xf32, #tile.matrix<{kind = "nvidia.mma", version = [2], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// MMA:           convert_layout %{{.+}}#2 : tensor<64x64xf32, #tile.matrix<{{.*}}>> -> tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 4]
tile.func @dot_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A: 64x32, row stride 32.
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %am = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  // B: 32x64, row stride 64.
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = tile.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bko = arith.muli %bk, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %stepA = arith.constant dense<32> : tensor<64x32xi32>
  %stepB = arith.constant dense<2048> : tensor<32x64xi32>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%ap = %ap0, %bp = %bp0, %acc = %zero) -> (tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>, tensor<64x64xf32>) : i32 {
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap, %stepA : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp, %stepB : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %ap2, %bp2, %d : tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>, tensor<64x64xf32>
  }
  // C: 64x64, row stride 64.
  %cm = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64b = arith.constant dense<64> : tensor<64x1xi32>
  %cmo = arith.muli %cm, %c64b : tensor<64x1xi32>
  %cmb = tile.broadcast %cmo : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cmb, %cnb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %r#2 : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Two layouts meet: a tile loaded by rows plus one loaded by columns. The
// sum takes the first operand's layout; the other operand is converted,
// and that is the only conversion.
// CHECK-LABEL: tile.func @rows_plus_columns(
// CHECK:         %[[R:.+]] = load {{.*}} : tensor<64x32x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         %[[C:.+]] = load {{.*}} : tensor<64x32x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NEXT:    %[[CR:.+]] = convert_layout %[[C]] : tensor<64x32xf32, #tile.blocked<{{.*}}order = [0, 1]}>> -> tensor<64x32xf32, #tile.blocked<{{.*}}order = [1, 0]}>>
// CHECK-NEXT:    %[[S:.+]] = arith.addf %[[R]], %[[CR]] : tensor<64x32xf32, #tile.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    store %{{.+}}, %[[S]] :
// CHECK-NOT:     convert_layout
tile.func @rows_plus_columns(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<1x32xi32>
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // Row-major: i * 32 + j.
  %ri = arith.muli %rows, %c32 : tensor<64x1xi32>
  %rib = tile.broadcast %ri : tensor<64x1xi32> -> tensor<64x32xi32>
  %cjb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %roff = arith.addi %rib, %cjb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %pa = tile.addptr %as, %roff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %x = tile.load %pa : tensor<64x32x!tile.ptr<f32>>
  // Column-major: i + j * 64.
  %cj = arith.muli %cols, %c64 : tensor<1x32xi32>
  %cjb2 = tile.broadcast %cj : tensor<1x32xi32> -> tensor<64x32xi32>
  %rib2 = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  %coff = arith.addi %rib2, %cjb2 : tensor<64x32xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %pb = tile.addptr %bs, %coff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %y = tile.load %pb : tensor<64x32x!tile.ptr<f32>>
  %s = arith.addf %x, %y : tensor<64x32xf32>
  tile.store %pa, %s : tensor<64x32x!tile.ptr<f32>>
  tile.return
}

// -----

// Tiles nothing constrains take the default layout, one element per thread
// (here a helper's result); encodings already present are kept (the
// helper's argument) and propagate (the helper's add).
// CHECK-LABEL: tile.func @calls_helper(
// CHECK:         %[[X:.+]] = load
// CHECK-NEXT:    %[[XE:.+]] = convert_layout %[[X]] : tensor<256xf32, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>
// CHECK-NEXT:    %[[Y:.+]] = call @helper(%[[XE]]) : (tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16]{{.*}}>>) -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    %[[YS:.+]] = convert_layout %[[Y]] : {{.*}} -> tensor<256xf32, #tile.blocked<{sizePerThread = [2]
// CHECK-NEXT:    store %{{.+}}, %[[YS]] :
// CHECK-LABEL: tile.func private @helper(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>)
// CHECK-SAME:    -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    %[[S:.+]] = arith.addf %[[A]], %[[A]] : tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>
// CHECK-NEXT:    %[[D:.+]] = convert_layout %[[S]] : {{.*}} -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    return %[[D]] :
tile.func @calls_helper(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %p = tile.addptr %as, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %p : tensor<256x!tile.ptr<f32>>
  %xe = tile.convert_layout %x : tensor<256xf32> -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>
  %y = tile.call @helper(%xe) : (tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>) -> tensor<256xf32>
  tile.store %p, %y : tensor<256x!tile.ptr<f32>>
  tile.return
}
tile.func private @helper(%x: tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>) -> tensor<256xf32> {
  %y = arith.addf %x, %x : tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>>
  %z = tile.convert_layout %y : tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [8], order = [0]}>> -> tensor<256xf32>
  tile.return %z : tensor<256xf32>
}

// -----

// Real front-end kernels: no tile is left without an encoding, and the host
// lowering still takes the result.
// RUN: tegula compile %tegula_src/tests/frontend/corpus/matmul.py --kernel matmul_kernel \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 256, 64, 8, "leaky_relu"' \
// RUN:   | tegula-opt -tile-assign-layouts | tee %t.matmul.mlir | FileCheck %s --check-prefix=MATMUL
// RUN: tegula-opt %t.matmul.mlir -tile-test-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// MATMUL-LABEL: tile.func @matmul_kernel(
// MATMUL-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// MATMUL:         tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// MATMUL-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// MATMUL:         tile.dot {{.*}} -> tensor<128x256xf32, #tile.blocked<
// MATMUL-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// MATMUL:         store
// MATMUL-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// MATMUL:         return
// LOWERED:        llvm.func @matmul_kernel(

// RUN: tegula compile %tegula_src/tests/frontend/corpus/softmax.py --kernel softmax_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4' \
// RUN:   | tegula-opt -tile-assign-layouts | tee %t.softmax.mlir | FileCheck %s --check-prefix=SOFTMAX
// RUN: tegula-opt %t.softmax.mlir -tile-test-lower-to-llvm | FileCheck %s --check-prefix=LOWERED-SOFTMAX
// SOFTMAX-LABEL: tile.func @softmax_kernel(
// SOFTMAX-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// SOFTMAX-NOT:     convert_layout
// SOFTMAX:         }) : (tensor<1024xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> f32
// SOFTMAX-NOT:     {{tensor<[0-9x]+(!tile\.ptr<[a-z0-9]+>|[a-z0-9]+)>}}
// SOFTMAX-NOT:     convert_layout
// SOFTMAX:         return
// LOWERED-SOFTMAX: llvm.func @softmax_kernel(

// -----

// fp8 operands (e4m3 and e5m2): nvidia.mma has no fp8 instruction but an
// f16 one, so both become f16 before the dot (MMA). Without a matrix unit
// the dot keeps its fp8 operands (its fused multiply-adds decode them).
// CHECK-LABEL: tile.func @dot_fp8(
// CHECK-NOT:     fp_to_fp
// CHECK:         = dot {{.*}} : tensor<32x32xf8E4M3FN, {{.*}}> * tensor<32x32xf8E5M2, {{.*}}> -> tensor<32x32xf32
// MMA-LABEL:   tile.func @dot_fp8(
// MMA-DAG:       fp_to_fp %{{.+}} : tensor<32x32xf8E4M3FN, {{.*}}> -> tensor<32x32xf16
// MMA-DAG:       fp_to_fp %{{.+}} : tensor<32x32xf8E5M2, {{.*}}> -> tensor<32x32xf16
// MMA:           = dot {{.*}} : tensor<32x32xf16, #tile.dot_operand<{{.*}}>> * tensor<32x32xf16, #tile.dot_operand<{{.*}}>> -> tensor<32x32xf32, #tile.matrix<{kind = "nvidia.mma"
tile.func @dot_fp8(%a: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %as = tile.splat %a : !tile.ptr<f8E4M3FN> -> tensor<32x32x!tile.ptr<f8E4M3FN>>
  %bs = tile.splat %b : !tile.ptr<f8E5M2> -> tensor<32x32x!tile.ptr<f8E5M2>>
  %x = tile.load %as : tensor<32x32x!tile.ptr<f8E4M3FN>>
  %y = tile.load %bs : tensor<32x32x!tile.ptr<f8E5M2>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %zero : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E5M2> -> tensor<32x32xf32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %cs, %d : tensor<32x32x!tile.ptr<f32>>
  tile.return
}
