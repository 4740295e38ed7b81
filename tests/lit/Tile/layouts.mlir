// The layout attributes of the tile dialect (TileLayouts.td) as encodings of
// tensor types, and tile.convert_layout between them, round-tripped through
// the textual form, bytecode and the generic form. Encodings pass through
// the verifiers of the other ops (tile.load, tile.store, tile.dot, ...).

// RUN: tegula-opt %s | tegula-opt | FileCheck %s
// RUN: tegula-opt %s --emit-bytecode | tegula-opt | FileCheck %s
// RUN: tegula-opt %s --mlir-print-op-generic | tegula-opt | FileCheck %s

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1d = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#mma = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 8}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 8}>
#opBlocked = #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 0}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Each attribute as the encoding of a function argument.
// CHECK-LABEL: tile.func private @encodings(
// CHECK-SAME:  tensor<128x64xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>,
// CHECK-SAME:  tensor<128xf16, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>,
// CHECK-SAME:  tensor<128x128xf32, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>,
// CHECK-SAME:  tensor<128x64xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 8}>>,
// CHECK-SAME:  tensor<64x128xf16, #tile.dot_operand<{opIdx = 1, parent = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 8}>>,
// CHECK-SAME:  tensor<128x64xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>, kWidth = 0}>>,
// CHECK-SAME:  tensor<64x64xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>,
// CHECK-SAME:  tensor<16x16x16xf16, #tile.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [2, 4, 4], warpsPerCTA = [1, 2, 2], order = [2, 0, 1]}>>,
// CHECK-SAME:  tensor<16x16xf16, #tile.slice<{dim = 0, parent = #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [32, 1, 1], warpsPerCTA = [1, 1, 4], order = [0, 1, 2]}>}>}>>,
// CHECK-SAME:  tensor<64x64x16xf16, #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [4, 1, 1], instrShape = [32, 32, 8]}>>)
tile.func private @encodings(
    %a: tensor<128x64xf16, #blocked>,
    %b: tensor<128xf16, #slice>,
    %c: tensor<128x128xf32, #mma>,
    %d: tensor<128x64xf16, #opA>,
    %e: tensor<64x128xf16, #opB>,
    %f: tensor<128x64xf16, #opBlocked>,
    %g: tensor<64x64xf16, #shared>,
    %h: tensor<16x16x16xf16, #tile.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [2, 4, 4], warpsPerCTA = [1, 2, 2], order = [2, 0, 1]}>>,
    %i: tensor<16x16xf16, #tile.slice<{dim = 0, parent = #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [32, 1, 1], warpsPerCTA = [1, 1, 4], order = [0, 1, 2]}>}>}>>,
    %j: tensor<64x64x16xf16, #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [4, 1, 1], instrShape = [32, 32, 8]}>>) {
  tile.return
}

// tile.convert_layout between every pair of kinds of layouts, and to and
// from a tensor without an encoding.
// CHECK-LABEL: tile.func private @convert_layout(
// CHECK-SAME:  %[[A:[^ :,)]+]]: tensor<128x64xf16, #tile.blocked<
// CHECK-SAME:  %[[B:[^ :,)]+]]: tensor<128xf16, #tile.slice<
// CHECK-SAME:  %[[C:[^ :,)]+]]: tensor<128x64xf16>)
// CHECK-NEXT:  %[[V0:[^ :,)]+]] = convert_layout %[[A]] : tensor<128x64xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<128x64xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK-NEXT:  %[[V1:[^ :,)]+]] = convert_layout %[[V0]] : tensor<128x64xf16, #tile.shared<{{.*}}>> -> tensor<128x64xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.matrix<{{.*}}>, kWidth = 8}>>
// CHECK-NEXT:  %[[V2:[^ :,)]+]] = convert_layout %[[A]] : tensor<128x64xf16, #tile.blocked<{{.*}}>> -> tensor<128x64xf16, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-NEXT:  %[[V3:[^ :,)]+]] = convert_layout %[[B]] : tensor<128xf16, #tile.slice<{{.*}}>> -> tensor<128xf16, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:  %[[V4:[^ :,)]+]] = convert_layout %[[C]] : tensor<128x64xf16> -> tensor<128x64xf16, #tile.blocked<{{.*}}>>
// CHECK-NEXT:  %[[V5:[^ :,)]+]] = convert_layout %[[A]] : tensor<128x64xf16, #tile.blocked<{{.*}}>> -> tensor<128x64xf16>
// CHECK-NEXT:  %[[V6:[^ :,)]+]] = convert_layout %[[A]] : tensor<128x64xf16, #tile.blocked<{{.*}}>> -> tensor<128x64xf16, #tile.blocked<{{.*}}>>
// CHECK-NEXT:  return %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]] :
tile.func private @convert_layout(%a: tensor<128x64xf16, #blocked>, %b: tensor<128xf16, #slice>, %c: tensor<128x64xf16>)
    -> (tensor<128x64xf16, #opA>, tensor<128x64xf16, #mma>, tensor<128xf16, #blocked1d>, tensor<128x64xf16, #blocked>, tensor<128x64xf16>, tensor<128x64xf16, #blocked>) {
  %0 = tile.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #shared>
  %1 = tile.convert_layout %0 : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #opA>
  %2 = tile.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #mma>
  %3 = tile.convert_layout %b : tensor<128xf16, #slice> -> tensor<128xf16, #blocked1d>
  %4 = tile.convert_layout %c : tensor<128x64xf16> -> tensor<128x64xf16, #blocked>
  %5 = tile.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16>
  %6 = tile.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #blocked>
  tile.return %1, %2, %3, %4, %5, %6 : tensor<128x64xf16, #opA>, tensor<128x64xf16, #mma>, tensor<128xf16, #blocked1d>, tensor<128x64xf16, #blocked>, tensor<128x64xf16>, tensor<128x64xf16, #blocked>
}

// Loads, stores, pointer arithmetic and dots verify with encoded tensors: the
// mask and pointer types keep the encoding of the value.
// CHECK-LABEL: tile.func private @encoded_memory_ops(
// CHECK:       splat {{.*}} -> tensor<128x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NEXT:  addptr {{.*}} : tensor<128x!tile.ptr<f32>, #tile.blocked<{{.*}}>>, tensor<128xi32, #tile.blocked<{{.*}}>>
// CHECK-NEXT:  load {{.*}} : tensor<128x!tile.ptr<f32>, #tile.blocked<{{.*}}>>
// CHECK-NEXT:  store {{.*}} : tensor<128x!tile.ptr<f32>, #tile.blocked<{{.*}}>>
// CHECK-NEXT:  dot {{.*}} : tensor<128x64xf16, #tile.dot_operand<{opIdx = 0, {{.*}}>> * tensor<64x128xf16, #tile.dot_operand<{opIdx = 1, {{.*}}>> -> tensor<128x128xf32, #tile.matrix<{{.*}}>>
tile.func private @encoded_memory_ops(%p: !tile.ptr<f32>, %offs: tensor<128xi32, #blocked1d>, %m: tensor<128xi1, #blocked1d>, %o: tensor<128xf32, #blocked1d>,
    %a: tensor<128x64xf16, #opA>, %b: tensor<64x128xf16, #opB>, %c: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> {
  %0 = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked1d>
  %1 = tile.addptr %0, %offs : tensor<128x!tile.ptr<f32>, #blocked1d>, tensor<128xi32, #blocked1d>
  %2 = tile.load %1, %m, %o : tensor<128x!tile.ptr<f32>, #blocked1d>
  tile.store %1, %2, %m : tensor<128x!tile.ptr<f32>, #blocked1d>
  %3 = tile.dot %a, %b, %c : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #mma>
  tile.return %3 : tensor<128x128xf32, #mma>
}
