// Calls of noinline helpers are inlined before lowering: one llvm.func
// remains, computing the helpers' bodies in place (tiles included), and a
// helper called twice is computed twice.

// RUN: tegula-opt %s --tile-test-lower-to-llvm | FileCheck %s

// CHECK-NOT:   llvm.func @scale
// CHECK-NOT:   llvm.func @twice
// CHECK-LABEL: llvm.func @calls_noinline
// CHECK-NOT:     llvm.call @scale
// CHECK:         llvm.fmul {{.*}} : vector<16xf32>
// CHECK:         llvm.fmul {{.*}} : vector<16xf32>
// CHECK-NOT:     llvm.call
// CHECK:         llvm.return
tile.func private @scale(%t: tensor<16xf32>, %s: f32) -> tensor<16xf32> attributes {noinline} {
  %b = tile.splat %s : f32 -> tensor<16xf32>
  %r = arith.mulf %t, %b : tensor<16xf32>
  tile.return %r : tensor<16xf32>
}

tile.func private @twice(%t: tensor<16xf32>, %s: f32) -> tensor<16xf32> attributes {noinline} {
  %a = tile.call @scale(%t, %s) : (tensor<16xf32>, f32) -> tensor<16xf32>
  %b = tile.call @scale(%a, %s) : (tensor<16xf32>, f32) -> tensor<16xf32>
  tile.return %b : tensor<16xf32>
}

tile.func @calls_noinline(%p: !tile.ptr<f32>, %s: f32) {
  %r = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %x = tile.load %a : tensor<16x!tile.ptr<f32>>
  %y = tile.call @twice(%x, %s) : (tensor<16xf32>, f32) -> tensor<16xf32>
  tile.store %a, %y : tensor<16x!tile.ptr<f32>>
  tile.return
}
