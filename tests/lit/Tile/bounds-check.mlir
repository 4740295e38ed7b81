// The tile-bounds-check pass (BoundsCheck.cpp, the debug mode): two hidden
// i64 arguments per pointer argument, and before each access the check
// against the buffers the address may come from, the smallest offending
// index reduced to a scalar, tile.out_of_bounds, and the access's mask
// narrowed to the elements inside.

// RUN: tegula-opt %s -split-input-file -tile-bounds-check | FileCheck %s

// CHECK-LABEL: tile.func @store(
// CHECK-SAME:    %[[X:[^:]+]]: !tile.ptr<f32>, %[[N:[^:]+]]: i32, %[[XB:[^:]+]]: i64, %[[XE:[^:]+]]: i64)
// CHECK:         %[[BASE:.+]] = ptr_to_int %[[X]] : !tile.ptr<f32> -> i64
// CHECK:         %[[P:.+]] = addptr
// CHECK:         %[[ADDR:.+]] = ptr_to_int %[[P]] : tensor<64x!tile.ptr<f32>> -> tensor<64xi64>
// CHECK:         %[[BASES:.+]] = splat %[[BASE]]
// CHECK:         %[[OFF:.+]] = arith.subi %[[ADDR]], %[[BASES]]
// CHECK:         %[[ENDS:.+]] = splat %[[XE]]
// CHECK:         %[[LAST:.+]] = arith.subi %[[ENDS]], %{{.+}} : tensor<64xi64>
// CHECK:         %[[BEGINS:.+]] = splat %[[XB]]
// CHECK:         arith.cmpi sge, %[[OFF]], %[[BEGINS]]
// CHECK:         arith.cmpi sle, %[[OFF]], %[[LAST]]
// CHECK:         %[[IN:.+]] = arith.andi
// CHECK:         %[[OUT:.+]] = arith.xori %[[IN]]
// CHECK:         %[[BAD:.+]] = arith.andi %[[OUT]], %[[M:[^ ]+]]
// CHECK:         %[[IDX:.+]] = arith.divsi %[[OFF]]
// CHECK:         %[[KEY:.+]] = arith.select %[[BAD]], %[[IDX]]
// CHECK:         %[[FIRST:.+]] = "tile.reduce"(%[[KEY]])
// CHECK:           arith.minsi
// CHECK:         %[[FAILED:.+]] = arith.cmpi ne, %[[FIRST]], %{{.+}} : i64
// CHECK:         %[[B4:.+]] = arith.divsi %[[XB]], %[[FOUR:[^ ]+]] : i64
// CHECK:         %[[E4:.+]] = arith.divsi %[[XE]], %[[FOUR]] : i64
// CHECK:         out_of_bounds %[[FAILED]], %[[FIRST]], %[[B4]], %[[E4]], "store to 'x_ptr'"
// CHECK:         %[[MASK:.+]] = arith.andi %[[M]], %[[IN]]
// CHECK:         store %[[P]], %{{.+}}, %[[MASK]] : tensor<64x!tile.ptr<f32>>
tile.func @store(%x: !tile.ptr<f32> loc("x_ptr"), %n: i32) {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = arith.sitofp %r : tensor<64xi32> to tensor<64xf32>
  tile.store %p, %v, %m : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// A pointer carried through a loop and chosen between two arguments: the
// loop's pointer is checked against x alone, the select's against both
// (inside either one), reported relative to the first; a kernel without
// pointer arguments and helpers are left alone.
// CHECK-LABEL: tile.func @loop_and_select(
// CHECK-SAME:    %[[X:[^:]+]]: !tile.ptr<f16>, %[[Y:[^:]+]]: !tile.ptr<f16>, %{{[^:]+}}: i1, %[[XB:[^:]+]]: i64, %[[XE:[^:]+]]: i64, %[[YB:[^:]+]]: i64, %[[YE:[^:]+]]: i64)
// CHECK:         scf.for
// CHECK:           out_of_bounds {{.*}} "load from 'x'"
// CHECK:           load %{{.+}}, %{{.+}} : tensor<32x!tile.ptr<f16>>
// CHECK:         arith.select
// CHECK:         splat %[[XE]]
// CHECK:         splat %[[YE]]
// CHECK:         out_of_bounds {{.*}} "store to 'x' (or 1 other buffer)"
tile.func @loop_and_select(%x: !tile.ptr<f16> loc("x"), %y: !tile.ptr<f16> loc("y"), %c: i1) {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %p0 = tile.addptr %xs, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %step = arith.constant dense<32> : tensor<32xi32>
  %zero = arith.constant dense<0.0> : tensor<32xf16>
  %p, %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%pi = %p0, %a = %zero) -> (tensor<32x!tile.ptr<f16>>, tensor<32xf16>) {
    %v = tile.load %pi : tensor<32x!tile.ptr<f16>>
    %s = arith.addf %a, %v : tensor<32xf16>
    %next = tile.addptr %pi, %step : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
    scf.yield %next, %s : tensor<32x!tile.ptr<f16>>, tensor<32xf16>
  }
  %q = arith.select %c, %x, %y : !tile.ptr<f16>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  tile.store %qp, %acc : tensor<32x!tile.ptr<f16>>
  tile.return
}

// CHECK-LABEL: tile.func @no_pointers(
// CHECK-SAME:    %{{[^:]+}}: i32)
// CHECK-NOT:     out_of_bounds
tile.func @no_pointers(%n: i32) {
  tile.return
}

// CHECK-LABEL: tile.func private @helper(
// CHECK-SAME:    %{{[^:]+}}: !tile.ptr<f32>)
// CHECK-NOT:     out_of_bounds
tile.func private @helper(%x: !tile.ptr<f32>) {
  %c = arith.constant 1.0 : f32
  tile.store %x, %c : !tile.ptr<f32>
  tile.return
}
