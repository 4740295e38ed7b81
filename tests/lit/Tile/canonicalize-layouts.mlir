// Folds and canonicalization patterns of tile.convert_layout (TileFolds.cpp),
// each with a case where it must not fire.

// RUN: tegula-opt %s -split-input-file -canonicalize | FileCheck %s

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// A conversion to the type of its input is the input.
// CHECK-LABEL: tile.func private @convert_same_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<128x64xf16, #tile.blocked<
// CHECK-NOT:     convert_layout
// CHECK:         return %[[X]] :
tile.func private @convert_same_type(%x: tensor<128x64xf16, #blocked>) -> tensor<128x64xf16, #blocked> {
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #blocked>
  tile.return %0 : tensor<128x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#mma = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>

// convert(convert(x)) is one conversion, and none when it returns to the
// type of x.
// CHECK-LABEL: tile.func private @convert_of_convert(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<128x64xf16, #tile.blocked<
// CHECK-NEXT:    %[[C:.+]] = convert_layout %[[X]] : tensor<128x64xf16, #tile.blocked<{{.*}}>> -> tensor<128x64xf16, #tile.matrix<{{.*}}>>
// CHECK-NOT:     convert_layout
// CHECK:         return %[[C]], %[[X]] :
tile.func private @convert_of_convert(%x: tensor<128x64xf16, #blocked>) -> (tensor<128x64xf16, #mma>, tensor<128x64xf16, #blocked>) {
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #shared>
  %1 = tile.convert_layout %0 : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #mma>
  %2 = tile.convert_layout %0 : tensor<128x64xf16, #shared> -> tensor<128x64xf16, #blocked>
  tile.return %1, %2 : tensor<128x64xf16, #mma>, tensor<128x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>

// A conversion of a splat is a splat in the new layout.
// CHECK-LABEL: tile.func private @convert_of_splat(
// CHECK-SAME:    %[[S:[^:]+]]: f16
// CHECK-NEXT:    %[[T:.+]] = splat %[[S]] : f16 -> tensor<128x64xf16, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-NOT:     convert_layout
// CHECK:         return %[[T]] :
tile.func private @convert_of_splat(%s: f16) -> tensor<128x64xf16, #mma> {
  %0 = tile.splat %s : f16 -> tensor<128x64xf16, #blocked>
  %1 = tile.convert_layout %0 : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #mma>
  tile.return %1 : tensor<128x64xf16, #mma>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>

// A conversion of a constant splat is the constant in the new layout.
// CHECK-LABEL: tile.func private @convert_of_constant_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<1.500000e+00> : tensor<128x64xf16, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-NOT:     convert_layout
// CHECK:         return %[[C]] :
tile.func private @convert_of_constant_splat() -> tensor<128x64xf16, #mma> {
  %c = arith.constant dense<1.5> : tensor<128x64xf16, #blocked>
  %0 = tile.convert_layout %c : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #mma>
  tile.return %0 : tensor<128x64xf16, #mma>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>

// A conversion of a value that is neither a splat nor a conversion, or of a
// constant that is not a splat, stays.
// CHECK-LABEL: tile.func private @convert_stays(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi32, #tile.blocked<
// CHECK-DAG:     %[[C:.+]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #tile.blocked<
// CHECK-DAG:     %[[A:.+]] = convert_layout %[[X]] : tensor<4xi32, #tile.blocked<{{.*}}>> -> tensor<4xi32, #tile.shared<
// CHECK-DAG:     %[[B:.+]] = convert_layout %[[C]] : tensor<4xi32, #tile.blocked<{{.*}}>> -> tensor<4xi32, #tile.shared<
// CHECK:         return %[[A]], %[[B]] :
tile.func private @convert_stays(%x: tensor<4xi32, #blocked>) -> (tensor<4xi32, #shared>, tensor<4xi32, #shared>) {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #blocked>
  %0 = tile.convert_layout %x : tensor<4xi32, #blocked> -> tensor<4xi32, #shared>
  %1 = tile.convert_layout %c : tensor<4xi32, #blocked> -> tensor<4xi32, #shared>
  tile.return %0, %1 : tensor<4xi32, #shared>, tensor<4xi32, #shared>
}
