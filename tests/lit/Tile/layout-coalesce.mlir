// tile-coalesce: loads, stores and atomics through tensors of pointers work
// in the blocked layout the axis analysis makes coalesced; conversions take
// their operands into it and their results back. With
// tile-remove-layout-conversions the address computation moves into the
// layout and no conversion is left (CLEAN).

// RUN: tegula-opt %s -split-input-file -tile-coalesce | FileCheck %s
// RUN: tegula-opt %s -split-input-file -tile-coalesce="warp-size=64 max-access-bytes=8" | FileCheck %s --check-prefix=OPTS
// RUN: tegula-opt %s -split-input-file -tile-coalesce -tile-remove-layout-conversions | FileCheck %s --check-prefix=CLEAN

// Vector add: 1024 consecutive f32 at 16-byte aligned addresses, 4 warps of
// 32 threads: each thread accesses 4 elements (16 bytes); with warps of 64
// and accesses of at most 8 bytes, 2.
// CHECK-LABEL: tile.func @vector_add(
// CHECK:         %[[P:.+]] = convert_layout %{{.+}} : tensor<1024x!tile.ptr<f32>> -> tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    %[[M:.+]] = convert_layout %{{.+}} : tensor<1024xi1> -> tensor<1024xi1, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    %[[V:.+]] = load %[[P]], %[[M]] : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:    %[[W:.+]] = convert_layout %[[V]] : tensor<1024xf32, #tile.blocked<{{.*}}>> -> tensor<1024xf32>
// CHECK:         %[[Q:.+]] = convert_layout %{{.+}} : tensor<1024x!tile.ptr<f32>> -> tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT:    %[[X:.+]] = convert_layout %[[W]] : tensor<1024xf32> -> tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT:    %[[N:.+]] = convert_layout %{{.+}} : tensor<1024xi1> -> tensor<1024xi1, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT:    store %[[Q]], %[[X]], %[[N]] : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// OPTS-LABEL:  tile.func @vector_add(
// OPTS:          load {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>>
// CLEAN-LABEL: tile.func @vector_add(
// CLEAN-NOT:     convert_layout
// CLEAN:         make_range {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CLEAN-NOT:     convert_layout
// CLEAN:         load {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// CLEAN-NOT:     convert_layout
// CLEAN:         store {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4]
// CLEAN-NOT:     convert_layout
// CLEAN:         return
tile.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
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
  %v = tile.load %px, %mask : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %py = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %py, %v, %mask : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// A row-major block of f16 with 16-byte aligned rows: contiguous along the
// columns, the fastest dimension (order [1, 0]); 8 f16 make 16 bytes.
// CHECK-LABEL: tile.func @rows(
// CHECK:         load {{.*}} : tensor<64x32x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
tile.func @rows(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %st = tile.splat %stride : i32 -> tensor<64x1xi32>
  %rowoff = arith.muli %rows, %st : tensor<64x1xi32>
  %rowb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x32xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %colb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rowb, %colb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %p = tile.addptr %as, %off : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %v = tile.load %p : tensor<64x32x!tile.ptr<f16>>
  tile.store %p, %v : tensor<64x32x!tile.ptr<f16>>
  tile.return
}

// -----

// Element (i, j) at i + j * stride: contiguous down the columns, so
// dimension 0 comes first in the order.
// CHECK-LABEL: tile.func @columns(
// CHECK:         load {{.*}} : tensor<64x32x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
tile.func @columns(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rowb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %st = tile.splat %stride : i32 -> tensor<1x32xi32>
  %coloff = arith.muli %cols, %st : tensor<1x32xi32>
  %colb = tile.broadcast %coloff : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rowb, %colb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %p = tile.addptr %as, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %v = tile.load %p : tensor<64x32x!tile.ptr<f32>>
  tile.store %p, %v : tensor<64x32x!tile.ptr<f32>>
  tile.return
}

// -----

// Nothing is known of the base pointer's alignment: one element per access,
// however contiguous.
// CHECK-LABEL: tile.func @unaligned(
// CHECK:         load {{.*}} : tensor<1024x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tile.func @unaligned(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %px = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %px : tensor<1024x!tile.ptr<f32>>
  tile.store %px, %v : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// The module's tile.num_warps sets the warps; an atomic is laid out like a
// load (256 elements over 8 warps of 32: one per thread).
// CHECK-LABEL: tile.func @atomic(
// CHECK-SAME:    %[[V:[^:]+]]: tensor<256xf32>
// CHECK:         %[[VL:.+]] = convert_layout %[[V]] : tensor<256xf32> -> tensor<256xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// CHECK-NEXT:    %[[OLD:.+]] = atomic_rmw {{.*}}, %[[VL]] : tensor<256x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// CHECK-NEXT:    convert_layout %[[OLD]] : tensor<256xf32, #tile.blocked<{{.*}}>> -> tensor<256xf32>
module attributes {tile.num_warps = 8 : i32} {
  tile.func @atomic(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %v: tensor<256xf32>) {
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
    %px = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %px, %v : tensor<256x!tile.ptr<f32>>
    tile.return
  }
}

// -----

// Accesses through a scalar or a block pointer are left alone.
// CHECK-LABEL: tile.func @untouched(
// CHECK-NOT:     convert_layout
// CHECK:         return
tile.func @untouched(%x: !tile.ptr<f32>, %bp: !tile.ptr<tensor<64x64xf16>>) {
  %v = tile.load %x : !tile.ptr<f32>
  %b = tile.load %bp : !tile.ptr<tensor<64x64xf16>>
  tile.store %x, %v : !tile.ptr<f32>
  tile.store %bp, %b : !tile.ptr<tensor<64x64xf16>>
  tile.return
}
