// Atomics (Atomics.cpp): one llvm.atomicrmw or llvm.cmpxchg per active
// element, with the op's ordering (relaxed -> monotonic). Masked-off elements
// do not touch memory and read 0. Float compare-and-swap compares bits.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// A tile of pointers with a mask: a loop over elements, each one branching on
// its mask bit. A masked-off element reads the function's one i32 zero
// constant (common subexpressions are merged before the conversion).
// CHECK-LABEL: llvm.func @add_tile_masked(
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[PA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[ADDR:.+]] = llvm.load %[[PA]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[PTR:.+]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[VA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[VA]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[MA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[MB:.+]] = llvm.load %[[MA]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[M:.+]] = llvm.trunc %[[MB]] : i8 to i1
// CHECK-NEXT:    llvm.cond_br %[[M]], ^[[DO:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK-NEXT:  ^[[DO]]:
// CHECK-NEXT:    %[[OLD:.+]] = llvm.atomicrmw add %[[PTR]], %[[V]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[OLD]] : i32)
// CHECK-NEXT:  ^[[SKIP]]:
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[ZERO]] : i32)
// CHECK-NEXT:  ^[[JOIN]](%[[R:.+]]: i32):
// CHECK:         %[[RA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[R]], %[[RA]] {alignment = 4 : i64} : i32, !llvm.ptr
tile.func @add_tile_masked(%p: !tile.ptr<i32>, %v: i32, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %ns = tile.splat %n : i32 -> tensor<4xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<4xi32>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  %pa = tile.addptr %ps, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  %vs = tile.splat %v : i32 -> tensor<4xi32>
  %old = tile.atomic_rmw add, relaxed, gpu, %pa, %vs, %m : tensor<4x!tile.ptr<i32>>
  tile.print "old" {hex = false, is_signed = array<i32: 1>} : %old : tensor<4xi32>
  tile.return
}

// -----

// Scalars: the kinds and orderings.
// CHECK-LABEL: llvm.func @rmw_kinds(
// CHECK-SAME:    %[[PI:[^:]+]]: !llvm.ptr, %[[PF:[^:]+]]: !llvm.ptr, %[[I:[^:]+]]: i32, %[[F:[^:]+]]: f32, %[[M:[^:]+]]: i1
// CHECK:         llvm.atomicrmw fadd %[[PF]], %[[F]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT:    llvm.cond_br %[[M]], ^[[DO:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK-NEXT:  ^[[DO]]:
// CHECK-NEXT:    %[[OLD:.+]] = llvm.atomicrmw max %[[PI]], %[[I]] acquire : !llvm.ptr, i32
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[OLD]] : i32)
// CHECK-NEXT:  ^[[SKIP]]:
// CHECK-NEXT:    %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[ZERO]] : i32)
// CHECK:         llvm.atomicrmw xchg %[[PF]], %[[F]] release : !llvm.ptr, f32
// CHECK-NEXT:    llvm.atomicrmw min %[[PI]], %[[I]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw umax %[[PI]], %[[I]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw umin %[[PI]], %[[I]] monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw _and %[[PI]], %[[I]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw _or %[[PI]], %[[I]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw _xor %[[PI]], %[[I]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    llvm.atomicrmw xchg %[[PI]], %[[I]] acq_rel : !llvm.ptr, i32
tile.func @rmw_kinds(%pi: !tile.ptr<i32>, %pf: !tile.ptr<f32>, %i: i32, %f: f32, %m: i1) {
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %pf, %f : !tile.ptr<f32>
  %1 = tile.atomic_rmw max, acquire, gpu, %pi, %i, %m : !tile.ptr<i32>
  %2 = tile.atomic_rmw xchg, release, sys, %pf, %f : !tile.ptr<f32>
  %3 = tile.atomic_rmw min, relaxed, cta, %pi, %i : !tile.ptr<i32>
  %4 = tile.atomic_rmw umax, relaxed, gpu, %pi, %i : !tile.ptr<i32>
  %5 = tile.atomic_rmw umin, relaxed, gpu, %pi, %i : !tile.ptr<i32>
  %6 = tile.atomic_rmw and, acq_rel, gpu, %pi, %i : !tile.ptr<i32>
  %7 = tile.atomic_rmw or, acq_rel, gpu, %pi, %i : !tile.ptr<i32>
  %8 = tile.atomic_rmw xor, acq_rel, gpu, %pi, %i : !tile.ptr<i32>
  %9 = tile.atomic_rmw xchg, acq_rel, gpu, %pi, %i : !tile.ptr<i32>
  tile.return
}

// -----

// Compare-and-swap: cmpxchg with the success ordering of the op and a failure
// ordering without release; floats compare as integers of their width. The
// results here are unused, so the extraction of the old value and its bitcast
// back to f32 are dead and removed; @cas_tile below checks both where the
// result is used.
// CHECK-LABEL: llvm.func @cas(
// CHECK-SAME:    %[[PI:[^:]+]]: !llvm.ptr, %[[PF:[^:]+]]: !llvm.ptr, %[[PH:[^:]+]]: !llvm.ptr, %[[I:[^:]+]]: i32, %[[F:[^:]+]]: f32, %[[G:[^:]+]]: f32, %[[H:[^:]+]]: f16
// CHECK:         %[[CMP:.+]] = llvm.bitcast %[[F]] : f32 to i32
// CHECK-NEXT:    %[[NEW:.+]] = llvm.bitcast %[[G]] : f32 to i32
// CHECK-NEXT:    llvm.cmpxchg %[[PF]], %[[CMP]], %[[NEW]] acq_rel acquire : !llvm.ptr, i32
// CHECK-NEXT:    llvm.cmpxchg %[[PI]], %[[I]], %[[I]] monotonic monotonic : !llvm.ptr, i32
// CHECK-NEXT:    llvm.cmpxchg %[[PI]], %[[I]], %[[I]] release monotonic : !llvm.ptr, i32
// CHECK:         llvm.cmpxchg %[[PI]], %[[I]], %[[I]] acquire acquire : !llvm.ptr, i32
// CHECK:         %[[HB:.+]] = llvm.bitcast %[[H]] : f16 to i16
// CHECK:         llvm.cmpxchg %[[PH]], %[[HB]], %{{.+}} acq_rel acquire : !llvm.ptr, i16
tile.func @cas(%pi: !tile.ptr<i32>, %pf: !tile.ptr<f32>, %ph: !tile.ptr<f16>, %i: i32, %f: f32, %g: f32, %h: f16) {
  %0 = tile.atomic_cas acq_rel, gpu, %pf, %f, %g : !tile.ptr<f32>
  %1 = tile.atomic_cas relaxed, gpu, %pi, %i, %i : !tile.ptr<i32>
  %2 = tile.atomic_cas release, gpu, %pi, %i, %i : !tile.ptr<i32>
  %3 = tile.atomic_cas acquire, gpu, %pi, %i, %i : !tile.ptr<i32>
  %4 = tile.atomic_cas acq_rel, gpu, %ph, %h, %h : !tile.ptr<f16>
  tile.return
}

// -----

// A tile compare-and-swap: one cmpxchg per element, results stored.
// CHECK-LABEL: llvm.func @cas_tile(
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[PTR:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK:         %[[PAIR:.+]] = llvm.cmpxchg %[[PTR]], %{{[^ ,]+}}, %{{[^ ,]+}} acq_rel acquire : !llvm.ptr, i32
// CHECK-NEXT:    %[[OLD:.+]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    %[[OLDF:.+]] = llvm.bitcast %[[OLD]] : i32 to f32
// CHECK-NEXT:    %[[RA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[OLDF]], %[[RA]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @cas_tile(%p: !tile.ptr<f32>, %f: f32) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %pa = tile.addptr %ps, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %fs = tile.splat %f : f32 -> tensor<4xf32>
  %old = tile.atomic_cas acq_rel, gpu, %pa, %fs, %fs : tensor<4x!tile.ptr<f32>>
  tile.print "old" {hex = false, is_signed = array<i32: 0>} : %old : tensor<4xf32>
  tile.return
}
