// RUN: tegula-opt %s | tegula-opt | FileCheck %s

// A reduction or split of a tile with a distributed layout yields the
// layout's slice along the removed dimension.
#bl = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func private @reduce_split_slices
tile.func private @reduce_split_slices(%x: tensor<16x32xf32, #bl>, %y: tensor<16x2xf32, #bl>) -> (tensor<16xf32, #tile.slice<{dim = 1, parent = #bl}>>, tensor<16xf32, #tile.slice<{dim = 1, parent = #bl}>>) {
  // CHECK: -> tensor<16xf32, #tile.slice<{dim = 1, parent = #{{.*}}}>>
  %0 = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : (tensor<16x32xf32, #bl>) -> tensor<16xf32, #tile.slice<{dim = 1, parent = #bl}>>
  // CHECK: split %{{.*}} : tensor<16x2xf32
  // CHECK: return %{{.*}}, %{{.*}} : tensor<16xf32, #tile.slice<{dim = 1, parent = #{{.*}}}>>, tensor<16xf32, #tile.slice<{dim = 1, parent = #{{.*}}}>>
  %l, %r = tile.split %y : tensor<16x2xf32, #bl>
  tile.return %0, %l : tensor<16xf32, #tile.slice<{dim = 1, parent = #bl}>>, tensor<16xf32, #tile.slice<{dim = 1, parent = #bl}>>
}
