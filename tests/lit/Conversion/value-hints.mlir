// Hints on tile values (tile.divisibility / tile.contiguity, from
// tl.multiple_of and tl.max_contiguous) on ops the lowering turns into
// per-chunk ops: arith (1-D and 2-D), select (tl.where) and a load of
// pointers. They are consumed by the axis analysis and left off the lowered
// ops, where they would describe a chunk as if it were the whole tile (and
// fail to verify on a vector or a scalar).

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// The hinted offsets make the load and the store full-width vector accesses
// aligned to 16 bytes.
// CHECK-LABEL: llvm.func @hinted_select(
// CHECK-NOT:     tile.
// CHECK:         llvm.select %{{.+}} : vector<16xi1>, vector<16xi32>
// CHECK-NOT:     tile.
// CHECK:         llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NOT:     tile.
tile.func @hinted_select(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %m: i32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ms = tile.splat %m : i32 -> tensor<16xi32>
  %lt = arith.cmpi slt, %r, %ms : tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %offs = arith.select %lt, %r, %zero {tile.contiguity = array<i64: 16>, tile.divisibility = array<i64: 16>} : tensor<16xi1>, tensor<16xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %xp : tensor<16x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %yp, %v : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @hinted_add_2d(
// CHECK-NOT:     tile.
// CHECK:         llvm.add
// CHECK-NOT:     tile.
tile.func @hinted_add_2d(%y: !tile.ptr<i32>, %m: i32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %r2 = tile.reshape %r : tensor<16xi32> -> tensor<4x4xi32>
  %ms = tile.splat %m : i32 -> tensor<4x4xi32>
  %s = arith.addi %r2, %ms {tile.contiguity = array<i64: 1, 4>, tile.divisibility = array<i64: 4, 4>} : tensor<4x4xi32>
  %q = arith.muli %s, %ms {tile.constancy = array<i64: 1, 1>} : tensor<4x4xi32>
  %ys = tile.splat %y : !tile.ptr<i32> -> tensor<4x4x!tile.ptr<i32>>
  %yp = tile.addptr %ys, %r2 : tensor<4x4x!tile.ptr<i32>>, tensor<4x4xi32>
  tile.store %yp, %q : tensor<4x4x!tile.ptr<i32>>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @hinted_pointer_load(
// CHECK-NOT:     tile.
// CHECK:         llvm.return
tile.func @hinted_pointer_load(%t: !tile.ptr<!tile.ptr<f32>>, %y: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ts = tile.splat %t : !tile.ptr<!tile.ptr<f32>> -> tensor<16x!tile.ptr<!tile.ptr<f32>>>
  %tp = tile.addptr %ts, %r : tensor<16x!tile.ptr<!tile.ptr<f32>>>, tensor<16xi32>
  %p = tile.load %tp {tile.divisibility = array<i64: 16>} : tensor<16x!tile.ptr<!tile.ptr<f32>>>
  %q = tile.addptr %p, %r {tile.contiguity = array<i64: 16>} : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %q : tensor<16x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %yp, %v : tensor<16x!tile.ptr<f32>>
  tile.return
}
