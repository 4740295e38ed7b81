// Folds and canonicalization patterns of tile ops (TileFolds.cpp), each with
// a case where it must not fire.

// RUN: tegula-opt %s -split-input-file -canonicalize | FileCheck %s

//===----------------------------------------------------------------------===//
// tile.splat
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func private @splat_of_constant()
// CHECK-DAG:     %[[F:.+]] = arith.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-DAG:     %[[I:.+]] = arith.constant dense<-7> : tensor<2x2xi32>
// CHECK-DAG:     %[[B:.+]] = arith.constant dense<true> : tensor<8xi1>
// CHECK-NOT:     splat
// CHECK:         return %[[F]], %[[I]], %[[B]] :
tile.func private @splat_of_constant() -> (tensor<4xf32>, tensor<2x2xi32>, tensor<8xi1>) {
  %c = arith.constant 1.5 : f32
  %i = arith.constant -7 : i32
  %b = arith.constant true
  %0 = tile.splat %c : f32 -> tensor<4xf32>
  %1 = tile.splat %i : i32 -> tensor<2x2xi32>
  %2 = tile.splat %b : i1 -> tensor<8xi1>
  tile.return %0, %1, %2 : tensor<4xf32>, tensor<2x2xi32>, tensor<8xi1>
}

// -----

// A splat of a value that is not constant stays.
// CHECK-LABEL: tile.func private @splat_not_constant(
// CHECK-SAME:    %[[X:[^:]+]]: f32
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : f32 -> tensor<4xf32>
// CHECK-NEXT:    return %[[S]]
tile.func private @splat_not_constant(%x: f32) -> tensor<4xf32> {
  %0 = tile.splat %x : f32 -> tensor<4xf32>
  tile.return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @broadcast_of_constant_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<2.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT:    return %[[C]] : tensor<8x4xf32>
tile.func private @broadcast_of_constant_splat() -> tensor<8x4xf32> {
  %c = arith.constant dense<2.0> : tensor<1x4xf32>
  %0 = tile.broadcast %c : tensor<1x4xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

// -----

// A constant that is not a splat is not folded.
// CHECK-LABEL: tile.func private @broadcast_of_constant_not_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<{{\[\[}}1, 2, 3, 4]]> : tensor<1x4xi32>
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[C]] : tensor<1x4xi32> -> tensor<8x4xi32>
// CHECK-NEXT:    return %[[B]]
tile.func private @broadcast_of_constant_not_splat() -> tensor<8x4xi32> {
  %d = arith.constant dense<[[1, 2, 3, 4]]> : tensor<1x4xi32>
  %0 = tile.broadcast %d : tensor<1x4xi32> -> tensor<8x4xi32>
  tile.return %0 : tensor<8x4xi32>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_same_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8x4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<8x4xf32>
tile.func private @broadcast_same_type(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = tile.broadcast %x : tensor<8x4xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_of_splat(
// CHECK-SAME:    %[[X:[^:]+]]: f16
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : f16 -> tensor<8x4xf16>
// CHECK-NEXT:    return %[[S]] : tensor<8x4xf16>
tile.func private @broadcast_of_splat(%x: f16) -> tensor<8x4xf16> {
  %0 = tile.splat %x : f16 -> tensor<1x4xf16>
  %1 = tile.broadcast %0 : tensor<1x4xf16> -> tensor<8x4xf16>
  tile.return %1 : tensor<8x4xf16>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_of_broadcast(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x1xi32>
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[X]] : tensor<1x1xi32> -> tensor<8x4xi32>
// CHECK-NEXT:    return %[[B]] : tensor<8x4xi32>
tile.func private @broadcast_of_broadcast(%x: tensor<1x1xi32>) -> tensor<8x4xi32> {
  %0 = tile.broadcast %x : tensor<1x1xi32> -> tensor<1x4xi32>
  %1 = tile.broadcast %0 : tensor<1x4xi32> -> tensor<8x4xi32>
  tile.return %1 : tensor<8x4xi32>
}

// -----

// A single broadcast of an argument stays.
// CHECK-LABEL: tile.func private @broadcast_stays(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[X]] : tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[B]]
tile.func private @broadcast_stays(%x: tensor<1x4xf32>) -> tensor<8x4xf32> {
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

//===----------------------------------------------------------------------===//
// tile.expand_dims
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @expand_dims_of_splat(
// CHECK-SAME:    %[[X:[^:]+]]: f32
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : f32 -> tensor<1x128xf32>
// CHECK-NEXT:    return %[[S]] : tensor<1x128xf32>
tile.func private @expand_dims_of_splat(%x: f32) -> tensor<1x128xf32> {
  %0 = tile.splat %x : f32 -> tensor<128xf32>
  %1 = tile.expand_dims %0 {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  tile.return %1 : tensor<1x128xf32>
}

// -----

// CHECK-LABEL: tile.func private @expand_dims_of_constant_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<3> : tensor<128x1xi64>
// CHECK-NEXT:    return %[[C]] : tensor<128x1xi64>
tile.func private @expand_dims_of_constant_splat() -> tensor<128x1xi64> {
  %c = arith.constant dense<3> : tensor<128xi64>
  %0 = tile.expand_dims %c {axis = 1 : i32} : tensor<128xi64> -> tensor<128x1xi64>
  tile.return %0 : tensor<128x1xi64>
}

// -----

// CHECK-LABEL: tile.func private @expand_dims_stays(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<128xf32>
// CHECK-NEXT:    %[[E:.+]] = expand_dims %[[X]] {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
// CHECK-NEXT:    return %[[E]]
tile.func private @expand_dims_stays(%x: tensor<128xf32>) -> tensor<1x128xf32> {
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  tile.return %0 : tensor<1x128xf32>
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @reshape_same_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    return %[[X]] : tensor<16x8xf32>
tile.func private @reshape_same_type(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = tile.reshape %x allow_reorder : tensor<16x8xf32> -> tensor<16x8xf32>
  tile.return %0 : tensor<16x8xf32>
}

// -----

// Two plain reshapes make one plain reshape.
// CHECK-LABEL: tile.func private @reshape_of_reshape(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    %[[R:.+]] = reshape %[[X]] : tensor<16x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x32xf32>
tile.func private @reshape_of_reshape(%x: tensor<16x8xf32>) -> tensor<4x32xf32> {
  %0 = tile.reshape %x : tensor<16x8xf32> -> tensor<128xf32>
  %1 = tile.reshape %0 : tensor<128xf32> -> tensor<4x32xf32>
  tile.return %1 : tensor<4x32xf32>
}

// -----

// The merged reshape may reorder when the inner one may.
// CHECK-LABEL: tile.func private @reshape_of_reshape_inner_reorder(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    %[[R:.+]] = reshape %[[X]] allow_reorder : tensor<16x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x32xf32>
tile.func private @reshape_of_reshape_inner_reorder(%x: tensor<16x8xf32>) -> tensor<4x32xf32> {
  %0 = tile.reshape %x allow_reorder : tensor<16x8xf32> -> tensor<128xf32>
  %1 = tile.reshape %0 : tensor<128xf32> -> tensor<4x32xf32>
  tile.return %1 : tensor<4x32xf32>
}

// -----

// ... and when the outer one may.
// CHECK-LABEL: tile.func private @reshape_of_reshape_outer_reorder(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    %[[R:.+]] = reshape %[[X]] allow_reorder : tensor<16x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x32xf32>
tile.func private @reshape_of_reshape_outer_reorder(%x: tensor<16x8xf32>) -> tensor<4x32xf32> {
  %0 = tile.reshape %x : tensor<16x8xf32> -> tensor<128xf32>
  %1 = tile.reshape %0 allow_reorder : tensor<128xf32> -> tensor<4x32xf32>
  tile.return %1 : tensor<4x32xf32>
}

// -----

// Reshaping back to the original shape leaves the original value.
// CHECK-LABEL: tile.func private @reshape_round_trip(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    return %[[X]] : tensor<16x8xf32>
tile.func private @reshape_round_trip(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = tile.reshape %x : tensor<16x8xf32> -> tensor<128xf32>
  %1 = tile.reshape %0 : tensor<128xf32> -> tensor<16x8xf32>
  tile.return %1 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_of_splat(
// CHECK-SAME:    %[[X:[^:]+]]: i32
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : i32 -> tensor<128xi32>
// CHECK-NEXT:    return %[[S]] : tensor<128xi32>
tile.func private @reshape_of_splat(%x: i32) -> tensor<128xi32> {
  %0 = tile.splat %x : i32 -> tensor<16x8xi32>
  %1 = tile.reshape %0 : tensor<16x8xi32> -> tensor<128xi32>
  tile.return %1 : tensor<128xi32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_of_constant_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<5.000000e-01> : tensor<4x32xbf16>
// CHECK-NEXT:    return %[[C]] : tensor<4x32xbf16>
tile.func private @reshape_of_constant_splat() -> tensor<4x32xbf16> {
  %c = arith.constant dense<0.5> : tensor<128xbf16>
  %0 = tile.reshape %c : tensor<128xbf16> -> tensor<4x32xbf16>
  tile.return %0 : tensor<4x32xbf16>
}

// -----

// A reshape of a constant that is not a splat is not folded.
// CHECK-LABEL: tile.func private @reshape_of_constant_not_splat()
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-NEXT:    %[[R:.+]] = reshape %[[C]] : tensor<4xi32> -> tensor<2x2xi32>
// CHECK-NEXT:    return %[[R]]
tile.func private @reshape_of_constant_not_splat() -> tensor<2x2xi32> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = tile.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  tile.return %0 : tensor<2x2xi32>
}

//===----------------------------------------------------------------------===//
// tile.trans
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @trans_identity(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4x8xf16>
// CHECK-NEXT:    return %[[X]] : tensor<2x4x8xf16>
tile.func private @trans_identity(%x: tensor<2x4x8xf16>) -> tensor<2x4x8xf16> {
  %0 = tile.trans %x {order = array<i32: 0, 1, 2>} : tensor<2x4x8xf16> -> tensor<2x4x8xf16>
  tile.return %0 : tensor<2x4x8xf16>
}

// -----

// A transpose that is its own inverse, applied twice, disappears.
// CHECK-LABEL: tile.func private @trans_of_trans_inverse(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    return %[[X]] : tensor<16x8xf32>
tile.func private @trans_of_trans_inverse(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %1 = tile.trans %0 {order = array<i32: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  tile.return %1 : tensor<16x8xf32>
}

// -----

// inner [1, 0, 2] then outer [2, 0, 1] is x permuted by [2, 1, 0].
// CHECK-LABEL: tile.func private @trans_of_trans(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4x8xf16>
// CHECK-NEXT:    %[[T:.+]] = trans %[[X]] {order = array<i32: 2, 1, 0>} : tensor<2x4x8xf16> -> tensor<8x4x2xf16>
// CHECK-NEXT:    return %[[T]] : tensor<8x4x2xf16>
tile.func private @trans_of_trans(%x: tensor<2x4x8xf16>) -> tensor<8x4x2xf16> {
  %0 = tile.trans %x {order = array<i32: 1, 0, 2>} : tensor<2x4x8xf16> -> tensor<4x2x8xf16>
  %1 = tile.trans %0 {order = array<i32: 2, 0, 1>} : tensor<4x2x8xf16> -> tensor<8x4x2xf16>
  tile.return %1 : tensor<8x4x2xf16>
}

// -----

// Composed rotations [2, 0, 1] and [1, 2, 0] are the identity.
// CHECK-LABEL: tile.func private @trans_of_trans_identity(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4x8xf16>
// CHECK-NEXT:    return %[[X]] : tensor<2x4x8xf16>
tile.func private @trans_of_trans_identity(%x: tensor<2x4x8xf16>) -> tensor<2x4x8xf16> {
  %0 = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
  %1 = tile.trans %0 {order = array<i32: 1, 2, 0>} : tensor<8x2x4xf16> -> tensor<2x4x8xf16>
  tile.return %1 : tensor<2x4x8xf16>
}

// -----

// CHECK-LABEL: tile.func private @trans_of_splat(
// CHECK-SAME:    %[[X:[^:]+]]: f32
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : f32 -> tensor<8x16xf32>
// CHECK-NEXT:    return %[[S]] : tensor<8x16xf32>
tile.func private @trans_of_splat(%x: f32) -> tensor<8x16xf32> {
  %0 = tile.splat %x : f32 -> tensor<16x8xf32>
  %1 = tile.trans %0 {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return %1 : tensor<8x16xf32>
}

// -----

// A single transpose that is not the identity stays.
// CHECK-LABEL: tile.func private @trans_stays(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x8xf32>
// CHECK-NEXT:    %[[T:.+]] = trans %[[X]] {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    return %[[T]]
tile.func private @trans_stays(%x: tensor<16x8xf32>) -> tensor<8x16xf32> {
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return %0 : tensor<8x16xf32>
}

//===----------------------------------------------------------------------===//
// tile.addptr and tile.advance
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @addptr_zero(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<f32>, %[[PS:[^:]+]]: tensor<4x!tile.ptr<f16>>
// CHECK-NEXT:    return %[[P]], %[[PS]] :
tile.func private @addptr_zero(%p: !tile.ptr<f32>, %ps: tensor<4x!tile.ptr<f16>>) -> (!tile.ptr<f32>, tensor<4x!tile.ptr<f16>>) {
  %z = arith.constant 0 : i32
  %0 = tile.addptr %p, %z : !tile.ptr<f32>, i32
  %zs = arith.constant dense<0> : tensor<4xi64>
  %1 = tile.addptr %ps, %zs : tensor<4x!tile.ptr<f16>>, tensor<4xi64>
  tile.return %0, %1 : !tile.ptr<f32>, tensor<4x!tile.ptr<f16>>
}

// -----

// CHECK-LABEL: tile.func private @addptr_not_zero(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<f32>, %[[O:[^:]+]]: i32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[A:.+]] = addptr %[[P]], %[[ONE]] : !tile.ptr<f32>, i32
// CHECK-DAG:     %[[B:.+]] = addptr %[[P]], %[[O]] : !tile.ptr<f32>, i32
// CHECK:         return %[[A]], %[[B]] :
tile.func private @addptr_not_zero(%p: !tile.ptr<f32>, %o: i32) -> (!tile.ptr<f32>, !tile.ptr<f32>) {
  %one = arith.constant 1 : i32
  %0 = tile.addptr %p, %one : !tile.ptr<f32>, i32
  %1 = tile.addptr %p, %o : !tile.ptr<f32>, i32
  tile.return %0, %1 : !tile.ptr<f32>, !tile.ptr<f32>
}

// -----

// CHECK-LABEL: tile.func private @advance_zero(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<tensor<64x32xf16>>
// CHECK-NEXT:    return %[[P]] : !tile.ptr<tensor<64x32xf16>>
tile.func private @advance_zero(%p: !tile.ptr<tensor<64x32xf16>>) -> !tile.ptr<tensor<64x32xf16>> {
  %z = arith.constant 0 : i32
  %0 = tile.advance %p, [%z, %z] : !tile.ptr<tensor<64x32xf16>>
  tile.return %0 : !tile.ptr<tensor<64x32xf16>>
}

// -----

// CHECK-LABEL: tile.func private @advance_not_zero(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<tensor<64x32xf16>>, %[[O:[^:]+]]: i32
// CHECK-DAG:     %[[Z:.+]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C:.+]] = arith.constant 32 : i32
// CHECK-DAG:     %[[A:.+]] = advance %[[P]], [%[[Z]], %[[C]]] : !tile.ptr<tensor<64x32xf16>>
// CHECK-DAG:     %[[B:.+]] = advance %[[P]], [%[[O]], %[[Z]]] : !tile.ptr<tensor<64x32xf16>>
// CHECK:         return %[[A]], %[[B]] :
tile.func private @advance_not_zero(%p: !tile.ptr<tensor<64x32xf16>>, %o: i32) -> (!tile.ptr<tensor<64x32xf16>>, !tile.ptr<tensor<64x32xf16>>) {
  %z = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %0 = tile.advance %p, [%z, %c32] : !tile.ptr<tensor<64x32xf16>>
  %1 = tile.advance %p, [%o, %z] : !tile.ptr<tensor<64x32xf16>>
  tile.return %0, %1 : !tile.ptr<tensor<64x32xf16>>, !tile.ptr<tensor<64x32xf16>>
}

//===----------------------------------------------------------------------===//
// tile.load and tile.store with constant masks
//===----------------------------------------------------------------------===//

// -----

// An all-false mask: the load is its `other`.
// CHECK-LABEL: tile.func private @load_false_mask_other(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[O:[^:]+]]: tensor<4xf32>
// CHECK-NOT:     load
// CHECK:         return %[[O]] : tensor<4xf32>
tile.func private @load_false_mask_other(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %f = arith.constant dense<false> : tensor<4xi1>
  %0 = tile.load %p, %f, %o : tensor<4x!tile.ptr<f32>>
  tile.return %0 : tensor<4xf32>
}

// -----

// An all-false mask without `other`: zero, for tensors and scalars. The mask
// is a splat of `false`, folded first.
// CHECK-LABEL: tile.func private @load_false_mask_zero(
// CHECK-DAG:     %[[ZT:.+]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG:     %[[ZS:.+]] = arith.constant 0 : i32
// CHECK-NOT:     load
// CHECK:         return %[[ZT]], %[[ZS]] : tensor<4xf32>, i32
tile.func private @load_false_mask_zero(%p: tensor<4x!tile.ptr<f32>>, %s: !tile.ptr<i32>) -> (tensor<4xf32>, i32) {
  %false = arith.constant false
  %f = tile.splat %false : i1 -> tensor<4xi1>
  %0 = tile.load %p, %f : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %s, %false : !tile.ptr<i32>
  tile.return %0, %1 : tensor<4xf32>, i32
}

// -----

// Pointers have no zero constant: a load of pointers with an all-false mask
// and no `other` stays.
// CHECK-LABEL: tile.func private @load_false_mask_pointers(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<4x!tile.ptr<!tile.ptr<f32>>>
// CHECK-NEXT:    %[[F:.+]] = arith.constant dense<false> : tensor<4xi1>
// CHECK-NEXT:    %[[L:.+]] = load %[[Q]], %[[F]] : tensor<4x!tile.ptr<!tile.ptr<f32>>>
// CHECK-NEXT:    return %[[L]]
tile.func private @load_false_mask_pointers(%q: tensor<4x!tile.ptr<!tile.ptr<f32>>>) -> tensor<4x!tile.ptr<f32>> {
  %f = arith.constant dense<false> : tensor<4xi1>
  %0 = tile.load %q, %f : tensor<4x!tile.ptr<!tile.ptr<f32>>>
  tile.return %0 : tensor<4x!tile.ptr<f32>>
}

// -----

// An all-true mask is dropped with its `other`; other attributes stay.
// CHECK-LABEL: tile.func private @load_true_mask(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[O:[^:]+]]: tensor<4xf32>, %[[S:[^:]+]]: !tile.ptr<f64>
// CHECK-NEXT:    %[[A:.+]] = load %[[P]] {cache = #tile<cache cg>, is_volatile} : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT:    %[[B:.+]] = load %[[S]] : !tile.ptr<f64>
// CHECK-NEXT:    return %[[A]], %[[B]]
tile.func private @load_true_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>, %s: !tile.ptr<f64>) -> (tensor<4xf32>, f64) {
  %t = arith.constant dense<true> : tensor<4xi1>
  %st = arith.constant true
  %0 = tile.load %p, %t, %o {cache = #tile<cache cg>, is_volatile} : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %s, %st : !tile.ptr<f64>
  tile.return %0, %1 : tensor<4xf32>, f64
}

// -----

// Masks that are not constant, or not all one value, stay.
// CHECK-LABEL: tile.func private @load_mask_stays(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<4xi1>, %[[O:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT:    %[[A:.+]] = load %[[P]], %[[M]], %[[O]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT:    %[[B:.+]] = load %[[P]], %[[C]], %[[O]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT:    return %[[A]], %[[B]]
tile.func private @load_mask_stays(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = tile.load %p, %m, %o : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %p, %c, %o : tensor<4x!tile.ptr<f32>>
  tile.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An all-false mask: the store is erased.
// CHECK-LABEL: tile.func private @store_false_mask(
// CHECK-NOT:     store
// CHECK:         return
tile.func private @store_false_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %s: !tile.ptr<i8>, %b: i8) {
  %f = arith.constant dense<false> : tensor<4xi1>
  %sf = arith.constant false
  tile.store %p, %v, %f : tensor<4x!tile.ptr<f32>>
  tile.store %s, %b, %sf : !tile.ptr<i8>
  tile.return
}

// -----

// An all-true mask is dropped.
// CHECK-LABEL: tile.func private @store_true_mask(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[V:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:    store %[[P]], %[[V]] {evict = #tile<evict evict_last>} : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT:    return
tile.func private @store_true_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>) {
  %t = arith.constant dense<true> : tensor<4xi1>
  tile.store %p, %v, %t {evict = #tile<evict evict_last>} : tensor<4x!tile.ptr<f32>>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @store_mask_stays(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[V:[^:]+]]: tensor<4xf32>, %[[M:[^:]+]]: tensor<4xi1>
// CHECK-NEXT:    store %[[P]], %[[V]], %[[M]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT:    return
tile.func private @store_mask_stays(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi1>) {
  tile.store %p, %v, %m : tensor<4x!tile.ptr<f32>>
  tile.return
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @bitcast_same_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<4xf32>
tile.func private @bitcast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tile.bitcast %x : tensor<4xf32> -> tensor<4xf32>
  tile.return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: tile.func private @bitcast_of_bitcast(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[P:[^:]+]]: !tile.ptr<f16>
// CHECK-NEXT:    return %[[X]], %[[P]] : tensor<4xf32>, !tile.ptr<f16>
tile.func private @bitcast_of_bitcast(%x: tensor<4xf32>, %p: !tile.ptr<f16>) -> (tensor<4xf32>, !tile.ptr<f16>) {
  %0 = tile.bitcast %x : tensor<4xf32> -> tensor<4xi32>
  %1 = tile.bitcast %0 : tensor<4xi32> -> tensor<4xf32>
  %2 = tile.bitcast %p : !tile.ptr<f16> -> i64
  %3 = tile.bitcast %2 : i64 -> !tile.ptr<f16>
  tile.return %1, %3 : tensor<4xf32>, !tile.ptr<f16>
}

// -----

// f16 -> i16 -> bf16 does not come back to f16: both bitcasts stay.
// CHECK-LABEL: tile.func private @bitcast_of_bitcast_other_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf16>
// CHECK-NEXT:    %[[A:.+]] = bitcast %[[X]] : tensor<4xf16> -> tensor<4xi16>
// CHECK-NEXT:    %[[B:.+]] = bitcast %[[A]] : tensor<4xi16> -> tensor<4xbf16>
// CHECK-NEXT:    return %[[B]]
tile.func private @bitcast_of_bitcast_other_type(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = tile.bitcast %x : tensor<4xf16> -> tensor<4xi16>
  %1 = tile.bitcast %0 : tensor<4xi16> -> tensor<4xbf16>
  tile.return %1 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: tile.func private @fp_to_fp_same_type(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xbf16>
// CHECK-NEXT:    return %[[X]] : tensor<4xbf16>
tile.func private @fp_to_fp_same_type(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tile.fp_to_fp %x : tensor<4xbf16> -> tensor<4xbf16>
  tile.return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: tile.func private @fp_to_fp_stays(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf16>
// CHECK-NEXT:    %[[A:.+]] = fp_to_fp %[[X]] : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.+]] = fp_to_fp %[[A]], rounding = rtne : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:    return %[[B]]
tile.func private @fp_to_fp_stays(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tile.fp_to_fp %x : tensor<4xf16> -> tensor<4xf32>
  %1 = tile.fp_to_fp %0, rounding = rtne : tensor<4xf32> -> tensor<4xf16>
  tile.return %1 : tensor<4xf16>
}

//===----------------------------------------------------------------------===//
// tile.umulhi
//===----------------------------------------------------------------------===//

// -----

// umulhi(0xFFFFFFFF, 2) = 1; umulhi(0xFFFFFFFF, 0xFFFFFFFF) = 0xFFFFFFFE;
// umulhi(2^64 - 1, 3) = 2; umulhi(2^16, 2^16) = 1.
// CHECK-LABEL: tile.func private @umulhi_constants()
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[M2:.+]] = arith.constant -2 : i32
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2 : i64
// CHECK-NOT:     umulhi
// CHECK:         return %[[ONE]], %[[M2]], %[[TWO]], %[[ONE]] : i32, i32, i64, i32
tile.func private @umulhi_constants() -> (i32, i32, i64, i32) {
  %a = arith.constant 0xFFFFFFFF : i32
  %b = arith.constant 2 : i32
  %0 = tile.umulhi %a, %b : i32
  %1 = tile.umulhi %a, %a : i32
  %c = arith.constant -1 : i64
  %d = arith.constant 3 : i64
  %2 = tile.umulhi %c, %d : i64
  %e = arith.constant 65536 : i32
  %3 = tile.umulhi %e, %e : i32
  tile.return %0, %1, %2, %3 : i32, i32, i64, i32
}

// -----

// By zero, on either side, for scalars and tensors.
// CHECK-LABEL: tile.func private @umulhi_zero(
// CHECK-DAG:     %[[Z:.+]] = arith.constant 0 : i32
// CHECK-DAG:     %[[ZT:.+]] = arith.constant dense<0> : tensor<4xi32>
// CHECK-NOT:     umulhi
// CHECK:         return %[[Z]], %[[Z]], %[[ZT]] : i32, i32, tensor<4xi32>
tile.func private @umulhi_zero(%x: i32, %t: tensor<4xi32>) -> (i32, i32, tensor<4xi32>) {
  %z = arith.constant 0 : i32
  %0 = tile.umulhi %x, %z : i32
  %1 = tile.umulhi %z, %x : i32
  %zt = arith.constant dense<0> : tensor<4xi32>
  %2 = tile.umulhi %t, %zt : tensor<4xi32>
  tile.return %0, %1, %2 : i32, i32, tensor<4xi32>
}

// -----

// Not constant: stays (a constant operand goes to the right: umulhi is
// commutative).
// CHECK-LABEL: tile.func private @umulhi_stays(
// CHECK-SAME:    %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32
// CHECK-DAG:     %[[SEVEN:.+]] = arith.constant 7 : i32
// CHECK-DAG:     %[[A:.+]] = umulhi %[[X]], %[[Y]] : i32
// CHECK-DAG:     %[[B:.+]] = umulhi %[[X]], %[[SEVEN]] : i32
// CHECK:         return %[[A]], %[[B]]
tile.func private @umulhi_stays(%x: i32, %y: i32) -> (i32, i32) {
  %c7 = arith.constant 7 : i32
  %0 = tile.umulhi %x, %y : i32
  %1 = tile.umulhi %c7, %x : i32
  tile.return %0, %1 : i32, i32
}
