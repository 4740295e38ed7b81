// The tile-combine pass (Combine.cpp): dot accumulation, select of masked
// loads, pointer arithmetic chains and sinking of splats and broadcasts, each
// with the cases where a pattern must not fire.

// RUN: tegula-opt %s -split-input-file -tile-combine | FileCheck %s

//===----------------------------------------------------------------------===//
// add(dot(a, b, 0), d) -> dot(a, b, d)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func private @dot_addf(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xf16>, %[[B:[^:]+]]: tensor<8x16xf16>, %[[D:[^:]+]]: tensor<16x16xf32>
// CHECK-NEXT:    %[[R:.+]] = dot %[[A]], %[[B]], %[[D]] : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT:    return %[[R]]
tile.func private @dot_addf(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %d: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = tile.dot %a, %b, %z : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  %1 = arith.addf %0, %d : tensor<16x16xf32>
  tile.return %1 : tensor<16x16xf32>
}

// -----

// The dot on the right of the add; its attributes are kept.
// CHECK-LABEL: tile.func private @dot_addf_commuted(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>, %[[D:[^:]+]]: tensor<16x16xf32>
// CHECK-NEXT:    %[[R:.+]] = dot %[[A]], %[[B]], %[[D]] {input_precision = #tile<precision tf32>, max_num_imprecise_acc = 4 : i32} : tensor<16x8xf32> * tensor<8x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    return %[[R]]
tile.func private @dot_addf_commuted(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %d: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = tile.dot %a, %b, %z {input_precision = #tile<precision tf32>, max_num_imprecise_acc = 4 : i32} : tensor<16x8xf32> * tensor<8x16xf32> -> tensor<16x16xf32>
  %1 = arith.addf %d, %0 : tensor<16x16xf32>
  tile.return %1 : tensor<16x16xf32>
}

// -----

// A -0.0 accumulator counts as zero.
// CHECK-LABEL: tile.func private @dot_addf_negative_zero(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xbf16>, %[[B:[^:]+]]: tensor<8x16xbf16>, %[[D:[^:]+]]: tensor<16x16xf32>
// CHECK-NEXT:    %[[R:.+]] = dot %[[A]], %[[B]], %[[D]] :
// CHECK-NEXT:    return %[[R]]
tile.func private @dot_addf_negative_zero(%a: tensor<16x8xbf16>, %b: tensor<8x16xbf16>, %d: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant dense<-0.0> : tensor<16x16xf32>
  %0 = tile.dot %a, %b, %z : tensor<16x8xbf16> * tensor<8x16xbf16> -> tensor<16x16xf32>
  %1 = arith.addf %0, %d : tensor<16x16xf32>
  tile.return %1 : tensor<16x16xf32>
}

// -----

// arith.addi for i8 dots, on both sides.
// CHECK-LABEL: tile.func private @dot_addi(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x32xi8>, %[[B:[^:]+]]: tensor<32x16xi8>, %[[D:[^:]+]]: tensor<16x16xi32>, %[[E:[^:]+]]: tensor<16x16xi32>
// CHECK-NEXT:    %[[R:.+]] = dot %[[A]], %[[B]], %[[D]] : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
// CHECK-NEXT:    %[[S:.+]] = dot %[[A]], %[[B]], %[[E]] : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
// CHECK-NEXT:    return %[[R]], %[[S]]
tile.func private @dot_addi(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %d: tensor<16x16xi32>, %e: tensor<16x16xi32>) -> (tensor<16x16xi32>, tensor<16x16xi32>) {
  %z = arith.constant dense<0> : tensor<16x16xi32>
  %0 = tile.dot %a, %b, %z : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %1 = arith.addi %0, %d : tensor<16x16xi32>
  %2 = tile.dot %a, %b, %z : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %3 = arith.addi %e, %2 : tensor<16x16xi32>
  tile.return %1, %3 : tensor<16x16xi32>, tensor<16x16xi32>
}

// -----

// A batched dot.
// CHECK-LABEL: tile.func private @dot_addf_batched(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x16x8xf16>, %[[B:[^:]+]]: tensor<2x8x16xf16>, %[[D:[^:]+]]: tensor<2x16x16xf16>
// CHECK-NEXT:    %[[R:.+]] = dot %[[A]], %[[B]], %[[D]] : tensor<2x16x8xf16> * tensor<2x8x16xf16> -> tensor<2x16x16xf16>
// CHECK-NEXT:    return %[[R]]
tile.func private @dot_addf_batched(%a: tensor<2x16x8xf16>, %b: tensor<2x8x16xf16>, %d: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %z = arith.constant dense<0.0> : tensor<2x16x16xf16>
  %0 = tile.dot %a, %b, %z : tensor<2x16x8xf16> * tensor<2x8x16xf16> -> tensor<2x16x16xf16>
  %1 = arith.addf %0, %d : tensor<2x16x16xf16>
  tile.return %1 : tensor<2x16x16xf16>
}

// -----

// Not when the accumulator is not zero: the add stays.
// CHECK-LABEL: tile.func private @dot_add_nonzero_accumulator(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xf16>, %[[B:[^:]+]]: tensor<8x16xf16>, %[[C:[^:]+]]: tensor<16x16xf32>, %[[D:[^:]+]]: tensor<16x16xf32>
// CHECK-NEXT:    %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<16x16xf32>
// CHECK-NEXT:    %[[X:.+]] = dot %[[A]], %[[B]], %[[C]] :
// CHECK-NEXT:    %[[Y:.+]] = arith.addf %[[X]], %[[D]] : tensor<16x16xf32>
// CHECK-NEXT:    %[[Z:.+]] = dot %[[A]], %[[B]], %[[ONE]] :
// CHECK-NEXT:    %[[W:.+]] = arith.addf %[[D]], %[[Z]] : tensor<16x16xf32>
// CHECK-NEXT:    return %[[Y]], %[[W]]
tile.func private @dot_add_nonzero_accumulator(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf32>, %d: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %0 = tile.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  %1 = arith.addf %0, %d : tensor<16x16xf32>
  %2 = tile.dot %a, %b, %one : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  %3 = arith.addf %d, %2 : tensor<16x16xf32>
  tile.return %1, %3 : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Not when the dot has another use.
// CHECK-LABEL: tile.func private @dot_add_other_use(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xf16>, %[[B:[^:]+]]: tensor<8x16xf16>, %[[D:[^:]+]]: tensor<16x16xf32>
// CHECK-NEXT:    %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK-NEXT:    %[[X:.+]] = dot %[[A]], %[[B]], %[[ZERO]] :
// CHECK-NEXT:    %[[Y:.+]] = arith.addf %[[X]], %[[D]] : tensor<16x16xf32>
// CHECK-NEXT:    return %[[Y]], %[[X]]
tile.func private @dot_add_other_use(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %d: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = tile.dot %a, %b, %z : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  %1 = arith.addf %0, %d : tensor<16x16xf32>
  tile.return %1, %0 : tensor<16x16xf32>, tensor<16x16xf32>
}

//===----------------------------------------------------------------------===//
// select(m, load(p, m), o) -> load(p, m, o)
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @select_of_masked_load(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<64x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<64xi1>, %[[O:[^:]+]]: tensor<64xf32>
// CHECK-NEXT:    %[[L:.+]] = load %[[P]], %[[M]], %[[O]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    return %[[L]] : tensor<64xf32>
tile.func private @select_of_masked_load(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<64xi1>, tensor<64xf32>
  tile.return %1 : tensor<64xf32>
}

// -----

// A scalar load; an `other` it already had is replaced.
// CHECK-LABEL: tile.func private @select_of_masked_load_scalar(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<i32>, %[[M:[^:]+]]: i1, %[[A:[^:]+]]: i32, %[[B:[^:]+]]: i32
// CHECK-NEXT:    %[[L:.+]] = load %[[P]], %[[M]], %[[B]] {cache = #tile<cache ca>} : !tile.ptr<i32>
// CHECK-NEXT:    return %[[L]] : i32
tile.func private @select_of_masked_load_scalar(%p: !tile.ptr<i32>, %m: i1, %a: i32, %b: i32) -> i32 {
  %0 = tile.load %p, %m, %a {cache = #tile<cache ca>} : !tile.ptr<i32>
  %1 = arith.select %m, %0, %b : i32
  tile.return %1 : i32
}

// -----

// The select's false value is defined after the load: the load would have to
// move past other ops (possibly stores), so the pattern does not fire.
// CHECK-LABEL: tile.func private @select_other_defined_later(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<64x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<64xi1>, %[[X:[^:]+]]: f32
// CHECK-NEXT:    %[[L:.+]] = load %[[P]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[O:.+]] = splat %[[X]] : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[S:.+]] = arith.select %[[M]], %[[L]], %[[O]]
// CHECK-NEXT:    return %[[S]] : tensor<64xf32>
tile.func private @select_other_defined_later(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %x: f32) -> tensor<64xf32> {
  %0 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %o = tile.splat %x : f32 -> tensor<64xf32>
  %1 = arith.select %m, %0, %o : tensor<64xi1>, tensor<64xf32>
  tile.return %1 : tensor<64xf32>
}

// -----

// Not when the select's condition is not the load's mask.
// CHECK-LABEL: tile.func private @select_other_mask(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<64x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<64xi1>, %[[N:[^:]+]]: tensor<64xi1>, %[[O:[^:]+]]: tensor<64xf32>
// CHECK-NEXT:    %[[L:.+]] = load %[[P]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[S:.+]] = arith.select %[[N]], %[[L]], %[[O]] : tensor<64xi1>, tensor<64xf32>
// CHECK-NEXT:    return %[[S]]
tile.func private @select_other_mask(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %n: tensor<64xi1>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %1 = arith.select %n, %0, %o : tensor<64xi1>, tensor<64xf32>
  tile.return %1 : tensor<64xf32>
}

// -----

// Not when the load has no mask, when it is the select's false value, or
// when the load has another use.
// CHECK-LABEL: tile.func private @select_not_combined(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<64x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<64xi1>, %[[O:[^:]+]]: tensor<64xf32>
// CHECK-NEXT:    %[[L0:.+]] = load %[[P]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[S0:.+]] = arith.select %[[M]], %[[L0]], %[[O]] :
// CHECK-NEXT:    %[[L1:.+]] = load %[[P]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[S1:.+]] = arith.select %[[M]], %[[O]], %[[L1]] :
// CHECK-NEXT:    %[[L2:.+]] = load %[[P]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT:    %[[S2:.+]] = arith.select %[[M]], %[[L2]], %[[O]] :
// CHECK-NEXT:    return %[[S0]], %[[S1]], %[[S2]], %[[L2]] :
tile.func private @select_not_combined(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %0 = tile.load %p : tensor<64x!tile.ptr<f32>>
  %1 = arith.select %m, %0, %o : tensor<64xi1>, tensor<64xf32>
  %2 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %3 = arith.select %m, %o, %2 : tensor<64xi1>, tensor<64xf32>
  %4 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %5 = arith.select %m, %4, %o : tensor<64xi1>, tensor<64xf32>
  tile.return %1, %3, %5, %4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

//===----------------------------------------------------------------------===//
// addptr(addptr(p, a), b) -> addptr(p, a + b)
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @addptr_chain(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<f16>, %[[A:[^:]+]]: i32, %[[B:[^:]+]]: i32
// CHECK-NEXT:    %[[S:.+]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.+]] = addptr %[[P]], %[[S]] : !tile.ptr<f16>, i32
// CHECK-NEXT:    return %[[R]]
tile.func private @addptr_chain(%p: !tile.ptr<f16>, %a: i32, %b: i32) -> !tile.ptr<f16> {
  %0 = tile.addptr %p, %a : !tile.ptr<f16>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f16>, i32
  tile.return %1 : !tile.ptr<f16>
}

// -----

// Three tensor addptrs make one (the outer pair is combined first, so the
// sum is a + (b + c)).
// CHECK-LABEL: tile.func private @addptr_chain_tensor(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<8x!tile.ptr<f32>>, %[[A:[^:]+]]: tensor<8xi64>, %[[B:[^:]+]]: tensor<8xi64>, %[[C:[^:]+]]: tensor<8xi64>
// CHECK-NEXT:    %[[S:.+]] = arith.addi %[[B]], %[[C]] : tensor<8xi64>
// CHECK-NEXT:    %[[T:.+]] = arith.addi %[[A]], %[[S]] : tensor<8xi64>
// CHECK-NEXT:    %[[R:.+]] = addptr %[[P]], %[[T]] : tensor<8x!tile.ptr<f32>>, tensor<8xi64>
// CHECK-NEXT:    return %[[R]]
tile.func private @addptr_chain_tensor(%p: tensor<8x!tile.ptr<f32>>, %a: tensor<8xi64>, %b: tensor<8xi64>, %c: tensor<8xi64>) -> tensor<8x!tile.ptr<f32>> {
  %0 = tile.addptr %p, %a : tensor<8x!tile.ptr<f32>>, tensor<8xi64>
  %1 = tile.addptr %0, %b : tensor<8x!tile.ptr<f32>>, tensor<8xi64>
  %2 = tile.addptr %1, %c : tensor<8x!tile.ptr<f32>>, tensor<8xi64>
  tile.return %2 : tensor<8x!tile.ptr<f32>>
}

// -----

// Not when the offsets have different types.
// CHECK-LABEL: tile.func private @addptr_chain_offset_types(
// CHECK-SAME:    %[[P:[^:]+]]: !tile.ptr<f16>, %[[A:[^:]+]]: i32, %[[B:[^:]+]]: i64
// CHECK-NEXT:    %[[X:.+]] = addptr %[[P]], %[[A]] : !tile.ptr<f16>, i32
// CHECK-NEXT:    %[[Y:.+]] = addptr %[[X]], %[[B]] : !tile.ptr<f16>, i64
// CHECK-NEXT:    return %[[Y]]
tile.func private @addptr_chain_offset_types(%p: !tile.ptr<f16>, %a: i32, %b: i64) -> !tile.ptr<f16> {
  %0 = tile.addptr %p, %a : !tile.ptr<f16>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f16>, i64
  tile.return %1 : !tile.ptr<f16>
}

//===----------------------------------------------------------------------===//
// f(splat(x), splat(y)) -> splat(f(x, y))
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @sink_splat(
// CHECK-SAME:    %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32
// CHECK-NEXT:    %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[R:.+]] = splat %[[S]] : f32 -> tensor<128xf32>
// CHECK-NEXT:    return %[[R]] : tensor<128xf32>
tile.func private @sink_splat(%x: f32, %y: f32) -> tensor<128xf32> {
  %0 = tile.splat %x : f32 -> tensor<128xf32>
  %1 = tile.splat %y : f32 -> tensor<128xf32>
  %2 = arith.addf %0, %1 : tensor<128xf32>
  tile.return %2 : tensor<128xf32>
}

// -----

// A splat constant operand becomes a scalar constant.
// CHECK-LABEL: tile.func private @sink_splat_constant(
// CHECK-SAME:    %[[X:[^:]+]]: i32
// CHECK-NEXT:    %[[C:.+]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[S:.+]] = arith.muli %[[X]], %[[C]] : i32
// CHECK-NEXT:    %[[R:.+]] = splat %[[S]] : i32 -> tensor<8x8xi32>
// CHECK-NEXT:    return %[[R]] : tensor<8x8xi32>
tile.func private @sink_splat_constant(%x: i32) -> tensor<8x8xi32> {
  %c = arith.constant dense<4> : tensor<8x8xi32>
  %0 = tile.splat %x : i32 -> tensor<8x8xi32>
  %1 = arith.muli %0, %c : tensor<8x8xi32>
  tile.return %1 : tensor<8x8xi32>
}

// -----

// Attributes and result element types are kept: a comparison, a rounding
// float conversion and pointer arithmetic.
// CHECK-LABEL: tile.func private @sink_splat_attributes(
// CHECK-SAME:    %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %[[P:[^:]+]]: !tile.ptr<i8>, %[[O:[^:]+]]: i32
// CHECK-DAG:     %[[C:.+]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK-DAG:     %[[CS:.+]] = splat %[[C]] : i1 -> tensor<16xi1>
// CHECK-DAG:     %[[H:.+]] = fp_to_fp %[[X]], rounding = rtz : f32 -> f16
// CHECK-DAG:     %[[HS:.+]] = splat %[[H]] : f16 -> tensor<16xf16>
// CHECK-DAG:     %[[Q:.+]] = addptr %[[P]], %[[O]] : !tile.ptr<i8>, i32
// CHECK-DAG:     %[[QS:.+]] = splat %[[Q]] : !tile.ptr<i8> -> tensor<16x!tile.ptr<i8>>
// CHECK:         return %[[CS]], %[[HS]], %[[QS]] :
tile.func private @sink_splat_attributes(%x: f32, %y: f32, %p: !tile.ptr<i8>, %o: i32) -> (tensor<16xi1>, tensor<16xf16>, tensor<16x!tile.ptr<i8>>) {
  %xs = tile.splat %x : f32 -> tensor<16xf32>
  %ys = tile.splat %y : f32 -> tensor<16xf32>
  %0 = arith.cmpf olt, %xs, %ys : tensor<16xf32>
  %1 = tile.fp_to_fp %xs, rounding = rtz : tensor<16xf32> -> tensor<16xf16>
  %ps = tile.splat %p : !tile.ptr<i8> -> tensor<16x!tile.ptr<i8>>
  %os = tile.splat %o : i32 -> tensor<16xi32>
  %2 = tile.addptr %ps, %os : tensor<16x!tile.ptr<i8>>, tensor<16xi32>
  tile.return %0, %1, %2 : tensor<16xi1>, tensor<16xf16>, tensor<16x!tile.ptr<i8>>
}

// -----

// Not when an operand is neither a splat nor a splat constant.
// CHECK-LABEL: tile.func private @sink_splat_not_all_splats(
// CHECK-SAME:    %[[X:[^:]+]]: f32, %[[T:[^:]+]]: tensor<4xf32>
// CHECK-DAG:     %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG:     %[[S:.+]] = splat %[[X]] : f32 -> tensor<4xf32>
// CHECK:         %[[A:.+]] = arith.addf %[[S]], %[[T]] : tensor<4xf32>
// CHECK-NEXT:    %[[B:.+]] = arith.addf %[[S]], %[[C]] : tensor<4xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
tile.func private @sink_splat_not_all_splats(%x: f32, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = tile.splat %x : f32 -> tensor<4xf32>
  %0 = arith.addf %s, %t : tensor<4xf32>
  %1 = arith.addf %s, %c : tensor<4xf32>
  tile.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Not through ops with memory effects.
// CHECK-LABEL: tile.func private @sink_splat_not_pure(
// CHECK-SAME:    %[[X:[^:]+]]: f32
// CHECK-NEXT:    %[[S:.+]] = splat %[[X]] : f32 -> tensor<4xf32>
// CHECK-NEXT:    %[[E:.+]] = extern_elementwise %[[S]] {{.*}}pure = false{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[E]]
tile.func private @sink_splat_not_pure(%x: f32) -> tensor<4xf32> {
  %s = tile.splat %x : f32 -> tensor<4xf32>
  %0 = tile.extern_elementwise %s {libname = "m", libpath = "", symbol = "f", pure = false} : (tensor<4xf32>) -> tensor<4xf32>
  tile.return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// f(broadcast(x), broadcast(y)) -> broadcast(f(x, y))
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: tile.func private @sink_broadcast(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x64xf32>, %[[Y:[^:]+]]: tensor<1x64xf32>
// CHECK-NEXT:    %[[S:.+]] = arith.mulf %[[X]], %[[Y]] : tensor<1x64xf32>
// CHECK-NEXT:    %[[R:.+]] = broadcast %[[S]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    return %[[R]] : tensor<32x64xf32>
tile.func private @sink_broadcast(%x: tensor<1x64xf32>, %y: tensor<1x64xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  %1 = tile.broadcast %y : tensor<1x64xf32> -> tensor<32x64xf32>
  %2 = arith.mulf %0, %1 : tensor<32x64xf32>
  tile.return %2 : tensor<32x64xf32>
}

// -----

// A splat constant is taken at the sources' shape.
// CHECK-LABEL: tile.func private @sink_broadcast_constant(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8x1xi32>
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<3> : tensor<8x1xi32>
// CHECK-NEXT:    %[[S:.+]] = arith.cmpi slt, %[[X]], %[[C]] : tensor<8x1xi32>
// CHECK-NEXT:    %[[R:.+]] = broadcast %[[S]] : tensor<8x1xi1> -> tensor<8x16xi1>
// CHECK-NEXT:    return %[[R]] : tensor<8x16xi1>
tile.func private @sink_broadcast_constant(%x: tensor<8x1xi32>) -> tensor<8x16xi1> {
  %c = arith.constant dense<3> : tensor<8x16xi32>
  %0 = tile.broadcast %x : tensor<8x1xi32> -> tensor<8x16xi32>
  %1 = arith.cmpi slt, %0, %c : tensor<8x16xi32>
  tile.return %1 : tensor<8x16xi1>
}

// -----

// Not when the broadcast sources have different shapes.
// CHECK-LABEL: tile.func private @sink_broadcast_shapes_differ(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x64xf32>, %[[Y:[^:]+]]: tensor<32x1xf32>
// CHECK-NEXT:    %[[A:.+]] = broadcast %[[X]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[Y]] : tensor<32x1xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[R:.+]] = arith.addf %[[A]], %[[B]] : tensor<32x64xf32>
// CHECK-NEXT:    return %[[R]]
tile.func private @sink_broadcast_shapes_differ(%x: tensor<1x64xf32>, %y: tensor<32x1xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  %1 = tile.broadcast %y : tensor<32x1xf32> -> tensor<32x64xf32>
  %2 = arith.addf %0, %1 : tensor<32x64xf32>
  tile.return %2 : tensor<32x64xf32>
}

// -----

// Not when an operand is neither a broadcast nor a constant.
// CHECK-LABEL: tile.func private @sink_broadcast_not_all_broadcasts(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x64xf32>, %[[T:[^:]+]]: tensor<32x64xf32>
// CHECK-NEXT:    %[[A:.+]] = broadcast %[[X]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[R:.+]] = arith.addf %[[A]], %[[T]] : tensor<32x64xf32>
// CHECK-NEXT:    return %[[R]]
tile.func private @sink_broadcast_not_all_broadcasts(%x: tensor<1x64xf32>, %t: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  %1 = arith.addf %0, %t : tensor<32x64xf32>
  tile.return %1 : tensor<32x64xf32>
}

// -----

// Regressions for bugs found when this suite was first written.
// Regression: formerly bug 5: the load must still read %p before the store writes it.
// CHECK-LABEL: tile.func private @select_load_across_store(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<4xi1>, %[[X:[^:]+]]: tensor<4xf32>
// CHECK:         load %[[P]], %[[M]]
// CHECK:         store %[[P]], %[[X]]
// CHECK-NOT:     load
// CHECK:         return
tile.func private @select_load_across_store(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %v = tile.load %p, %m : tensor<4x!tile.ptr<f32>>
  tile.store %p, %x : tensor<4x!tile.ptr<f32>>
  %o = arith.negf %y : tensor<4xf32>
  %r = arith.select %m, %v, %o : tensor<4xi1>, tensor<4xf32>
  tile.return %r : tensor<4xf32>
}

// -----

// Regression: formerly bug 6: the load outside the scf.if cannot take a value defined inside it.
// CHECK-LABEL: tile.func private @select_load_other_in_region(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<4x!tile.ptr<f32>>, %[[M:[^:]+]]: tensor<4xi1>
// CHECK:         %[[V:.+]] = load %[[P]], %[[M]] : tensor<4x!tile.ptr<f32>>
// CHECK:         scf.if
// CHECK:           %[[O:.+]] = arith.negf
// CHECK:           arith.select %[[M]], %[[V]], %[[O]]
tile.func private @select_load_other_in_region(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %y: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %v = tile.load %p, %m : tensor<4x!tile.ptr<f32>>
  %r = scf.if %c -> tensor<4xf32> {
    %o = arith.negf %y : tensor<4xf32>
    %s = arith.select %m, %v, %o : tensor<4xi1>, tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    scf.yield %y : tensor<4xf32>
  }
  tile.return %r : tensor<4xf32>
}

// -----

// Regression: formerly bug 7 (SinkSplat): the pass must succeed and leave the fma alone, since
// one operand is a constant that is not a splat.
// CHECK-LABEL: tile.func private @sink_splat_non_splat_constant_last(
// CHECK:         %[[S:.+]] = splat
// CHECK:         math.fma %{{.+}}, %{{.+}}, %[[S]] : tensor<4xf32>
tile.func private @sink_splat_non_splat_constant_last(%x: f32) -> tensor<4xf32> {
  %a = arith.constant dense<2.0> : tensor<4xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = tile.splat %x : f32 -> tensor<4xf32>
  %r = math.fma %a, %b, %s : tensor<4xf32>
  tile.return %r : tensor<4xf32>
}

// -----

// Regression: formerly bug 7 (SinkBroadcast): likewise.
// CHECK-LABEL: tile.func private @sink_broadcast_non_splat_constant_last(
// CHECK:         %[[B:.+]] = broadcast
// CHECK:         math.fma %{{.+}}, %{{.+}}, %[[B]] : tensor<2x4xf32>
tile.func private @sink_broadcast_non_splat_constant_last(%x: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %a = arith.constant dense<2.0> : tensor<2x4xf32>
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %s = tile.broadcast %x : tensor<1x4xf32> -> tensor<2x4xf32>
  %r = math.fma %a, %b, %s : tensor<2x4xf32>
  tile.return %r : tensor<2x4xf32>
}
