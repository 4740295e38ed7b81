// tile-remove-layout-conversions: conversions disappear where the converted
// value can be computed in the target layout instead, without adding
// conversions; the others stay.

// RUN: tegula-opt %s -split-input-file -tile-remove-layout-conversions | FileCheck %s

#L = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#D = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A conversion back to the source layout is no conversion.
// CHECK-LABEL: tile.func private @round_trip(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1024xf32, #tile.blocked<
// CHECK-NOT:     convert_layout
// CHECK:         return %[[X]] :
tile.func private @round_trip(%x: tensor<1024xf32, #L>) -> tensor<1024xf32, #L> {
  %0 = tile.convert_layout %x : tensor<1024xf32, #L> -> tensor<1024xf32, #D>
  %1 = tile.convert_layout %0 : tensor<1024xf32, #D> -> tensor<1024xf32, #L>
  tile.return %1 : tensor<1024xf32, #L>
}

// A range, a splat and constants are made in the target layout.
// CHECK-LABEL: tile.func private @sources(
// CHECK-NOT:     convert_layout
// CHECK-DAG:     make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-DAG:     splat %{{.+}} : i32 -> tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-DAG:     arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-DAG:     arith.constant dense<7> : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-NOT:     convert_layout
tile.func private @sources(%s: i32) -> (tensor<1024xi32, #L>, tensor<1024xi32, #L>, tensor<4xi32, #L>, tensor<1024xi32, #L>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #D>
  %t = tile.splat %s : i32 -> tensor<1024xi32, #D>
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #D>
  %k = arith.constant dense<7> : tensor<1024xi32, #D>
  %0 = tile.convert_layout %r : tensor<1024xi32, #D> -> tensor<1024xi32, #L>
  %1 = tile.convert_layout %t : tensor<1024xi32, #D> -> tensor<1024xi32, #L>
  %2 = tile.convert_layout %c : tensor<4xi32, #D> -> tensor<4xi32, #L>
  %3 = tile.convert_layout %k : tensor<1024xi32, #D> -> tensor<1024xi32, #L>
  tile.return %0, %1, %2, %3 : tensor<1024xi32, #L>, tensor<1024xi32, #L>, tensor<4xi32, #L>, tensor<1024xi32, #L>
}

// An elementwise chain from sources is computed in the target layout.
// CHECK-LABEL: tile.func private @chain(
// CHECK-NOT:     convert_layout
// CHECK:         %[[R:.+]] = make_range {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK:         %[[O:.+]] = arith.addi %{{.+}}, %[[R]] : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK:         %[[M:.+]] = arith.cmpi slt, %[[O]], %{{.+}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-NOT:     convert_layout
// CHECK:         return %[[M]] :
tile.func private @chain(%start: i32, %n: i32) -> tensor<1024xi1, #L> {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #D>
  %s = tile.splat %start : i32 -> tensor<1024xi32, #D>
  %offs = arith.addi %s, %r : tensor<1024xi32, #D>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #D>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #D>
  %0 = tile.convert_layout %mask : tensor<1024xi1, #D> -> tensor<1024xi1, #L>
  tile.return %0 : tensor<1024xi1, #L>
}

// A chain whose inputs are conversions from the target layout: the chain
// moves into it and every conversion goes (tile-coalesce leaves this
// around a load feeding a store).
// CHECK-LABEL: tile.func private @between_conversions(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1024xf32, #tile.blocked<{sizePerThread = [4]{{.*}}>>, %[[Y:[^:]+]]: tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT:    %[[S:.+]] = arith.addf %[[X]], %[[Y]] : tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT:    return %[[S]] :
tile.func private @between_conversions(%x: tensor<1024xf32, #L>, %y: tensor<1024xf32, #L>) -> tensor<1024xf32, #L> {
  %a = tile.convert_layout %x : tensor<1024xf32, #L> -> tensor<1024xf32, #D>
  %b = tile.convert_layout %y : tensor<1024xf32, #L> -> tensor<1024xf32, #D>
  %s = arith.addf %a, %b : tensor<1024xf32, #D>
  %0 = tile.convert_layout %s : tensor<1024xf32, #D> -> tensor<1024xf32, #L>
  tile.return %0 : tensor<1024xf32, #L>
}

// An op of the chain with another user stays for it and is duplicated in
// the target layout.
// CHECK-LABEL: tile.func private @shared_op(
// CHECK-DAG:     %[[RD:.+]] = make_range {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [1]
// CHECK-DAG:     %[[RL:.+]] = make_range {{.*}} : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-DAG:     %[[SD:.+]] = arith.addi %[[RD]], %[[RD]] : tensor<1024xi32, #tile.blocked<{sizePerThread = [1]
// CHECK-DAG:     %[[SL:.+]] = arith.addi %[[RL]], %[[RL]] : tensor<1024xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-NOT:     convert_layout
// CHECK:         return %[[SL]], %[[SD]] :
tile.func private @shared_op() -> (tensor<1024xi32, #L>, tensor<1024xi32, #D>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #D>
  %s = arith.addi %r, %r : tensor<1024xi32, #D>
  %0 = tile.convert_layout %s : tensor<1024xi32, #D> -> tensor<1024xi32, #L>
  tile.return %0, %s : tensor<1024xi32, #L>, tensor<1024xi32, #D>
}

// A chain with an input in another layout would trade one conversion for
// another: it stays. So do a conversion of a loop-carried value (the loop
// is not rewritten) and one to a shared layout.
// CHECK-LABEL: tile.func private @stays(
// CHECK:         convert_layout %{{.+}} : tensor<1024xf32, #tile.blocked<{sizePerThread = [1]{{.*}}>> -> tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:[^ ]+]] = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK-NEXT:      tile.convert_layout %[[ACC]] : tensor<1024xf32, #tile.blocked<{sizePerThread = [1]{{.*}}>> -> tensor<1024xf32, #tile.blocked<{sizePerThread = [4]
// CHECK:         convert_layout %{{.+}} : tensor<1024xi32, #tile.blocked<{{.*}}>> -> tensor<1024xi32, #tile.shared<
tile.func private @stays(%x: tensor<1024xf32, #D>, %y: tensor<1024xf32, #L>, %f: f32, %n: i32) -> (tensor<1024xf32, #L>, tensor<1024xf32, #L>, tensor<1024xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>) {
  %s = tile.splat %f : f32 -> tensor<1024xf32, #D>
  %a = arith.addf %x, %s : tensor<1024xf32, #D>
  %0 = tile.convert_layout %a : tensor<1024xf32, #D> -> tensor<1024xf32, #L>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %l:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %out = %y) -> (tensor<1024xf32, #D>, tensor<1024xf32, #L>) : i32 {
    %al = tile.convert_layout %acc : tensor<1024xf32, #D> -> tensor<1024xf32, #L>
    %sum = arith.addf %al, %out : tensor<1024xf32, #L>
    %next = arith.negf %acc : tensor<1024xf32, #D>
    scf.yield %next, %sum : tensor<1024xf32, #D>, tensor<1024xf32, #L>
  }
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #D>
  %sh = tile.convert_layout %r : tensor<1024xi32, #D> -> tensor<1024xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
  tile.return %0, %l#1, %sh : tensor<1024xf32, #L>, tensor<1024xf32, #L>, tensor<1024xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
}

// -----

#L = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#D = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

// Through broadcast and expand_dims: the range is made in the slice of the
// target layout that the expand_dims gives the target layout from.
// CHECK-LABEL: tile.func private @expand_broadcast(
// CHECK-NOT:     convert_layout
// CHECK:         %[[R:.+]] = make_range {{.*}} : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-NEXT:    %[[E:.+]] = expand_dims %[[R]] {axis = 1 : i32} : {{.*}} -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[B:.+]] = broadcast %[[E]] : {{.*}} -> tensor<64x32xi32, #tile.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    return %[[B]] :
tile.func private @expand_broadcast() -> tensor<64x32xi32, #L> {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #D}>>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tile.slice<{dim = 1, parent = #D}>> -> tensor<64x1xi32, #D>
  %b = tile.broadcast %e : tensor<64x1xi32, #D> -> tensor<64x32xi32, #D>
  %0 = tile.convert_layout %b : tensor<64x32xi32, #D> -> tensor<64x32xi32, #L>
  tile.return %0 : tensor<64x32xi32, #L>
}
