// Region ops (Lowering.cpp). Tile results of scf.for / scf.if / scf.while
// get dedicated buffers: the init value is copied in before the loop and each
// yield copies into them; scalar iter_args stay SSA values. A yield that
// permutes loop-carried tiles copies through temporaries first.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @for_tile_and_scalar(
// CHECK-SAME:    %[[X:[^:]+]]: f32, %[[N:[^:]+]]: i32
// The splat (the scalar constants after it are hoisted ahead of its chunk
// loop), then its copy into the loop's buffer.
// CHECK:         %[[S0:.+]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK:         llvm.store %{{.+}}, %[[INIT:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[I0:.+]] = llvm.load %[[INIT]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[I0]], %[[ACC:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// Only the scalars are block arguments.
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[S0]] : i32, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[IV:.+]]: i32, %[[S:.+]]: f32):
// CHECK-NEXT:    %[[MORE:.+]] = llvm.icmp "slt" %[[IV]], %[[N]] : i32
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// The body reads the loop's buffer (both operands of %acc + %acc are one
// load once common subexpressions are merged), computes into a new tile,
// copies it back; the scalar op comes first (hoisted ahead of the tile op's
// chunk loop).
// CHECK-NEXT:    %[[T:.+]] = llvm.fadd %[[S]], %[[X]] : f32
// CHECK:         %[[A:.+]] = llvm.load %[[ACC]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[SUM:.+]] = llvm.fadd %[[A]], %[[A]] : vector<16xf32>
// CHECK-NEXT:    llvm.store %[[SUM]], %[[NEW:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[Y:.+]] = llvm.load %[[NEW]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[Y]], %[[ACC]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.+]] = llvm.add %[[IV]], %{{.+}} : i32
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]], %[[T]] : i32, f32)
// After the loop, the result tile is the loop's buffer.
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK:         llvm.getelementptr %[[ACC]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.call @test_print(%{{.+}}, %[[S]]) : (i64, f32) -> ()
tile.func @for_tile_and_scalar(%x: f32, %n: i32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s0 = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a, %s = %s0) -> (tensor<16xf32>, f32) : i32 {
    %b = arith.addf %acc, %acc : tensor<16xf32>
    %t = arith.addf %s, %x : f32
    scf.yield %b, %t : tensor<16xf32>, f32
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0, 0>} : %r#0, %r#1 : tensor<16xf32>, f32
  tile.return
}

// -----

// Swapping two loop-carried tiles: both sources are copied to temporaries
// before either buffer is overwritten.
// CHECK-LABEL: llvm.func @for_swap(
// CHECK:         %[[PI:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[PI]], %[[P:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[QI:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[QI]], %[[Q:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](
// CHECK:       ^[[HEAD]](
// CHECK:         llvm.cond_br %{{.+}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         %[[V0:.+]] = llvm.load %[[Q]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[V0]], %[[T0:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[V1:.+]] = llvm.load %[[P]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[V1]], %[[T1:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[V2:.+]] = llvm.load %[[T0]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[V2]], %[[P]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[V3:.+]] = llvm.load %[[T1]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[V3]], %[[Q]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.add
// CHECK-NEXT:    llvm.br ^[[HEAD]](
tile.func @for_swap(%x: f32, %y: f32, %n: i32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (tensor<16xf32>, tensor<16xf32>) : i32 {
    scf.yield %q, %p : tensor<16xf32>, tensor<16xf32>
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0, 0>} : %r#0, %r#1 : tensor<16xf32>, tensor<16xf32>
  tile.return
}

// -----

// Larger tiles: each copy is a loop over chunks, so the swap adds two copy
// loops (to the temporaries) before the two copies back.
// CHECK-LABEL: llvm.func @for_swap_32(
// CHECK:         llvm.cond_br %{{.+}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-COUNT-4: llvm.store %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK:         llvm.br ^{{bb[0-9]+}}(%{{.+}} : i32)
tile.func @for_swap_32(%x: f32, %y: f32, %n: i32) {
  %a = tile.splat %x : f32 -> tensor<32xf32>
  %b = tile.splat %y : f32 -> tensor<32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (tensor<32xf32>, tensor<32xf32>) : i32 {
    scf.yield %q, %p : tensor<32xf32>, tensor<32xf32>
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0, 0>} : %r#0, %r#1 : tensor<32xf32>, tensor<32xf32>
  tile.return
}

// -----

// Yielding a loop-carried tile unchanged copies nothing. The loop is then
// empty and, having no effects, is erased with the dead code: after the init
// value's copy into the loop's buffer there is no other store and no loop
// (no i32 bound compare), and the print reads that buffer.
// CHECK-LABEL: llvm.func @for_unchanged(
// CHECK:         %[[I0:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[I0]], %[[ACC:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK-NOT:     llvm.icmp "slt" %{{.+}}, %{{.+}} : i32
// CHECK:         llvm.getelementptr %[[ACC]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.call @test_print(
tile.func @for_unchanged(%x: f32, %n: i32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a) -> (tensor<16xf32>) : i32 {
    scf.yield %p : tensor<16xf32>
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0>} : %r : tensor<16xf32>
  tile.return
}

// -----

// scf.if with a tile result: each branch copies its tile into the result's
// buffer.
// CHECK-LABEL: llvm.func @if_tile(
// CHECK-SAME:    %{{[^:]+}}: f32, %[[C:[^:]+]]: i1
// CHECK:         llvm.store %{{.+}}, %[[A:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         llvm.cond_br %[[C]], ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK:         %[[SUM:.+]] = llvm.fadd %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf32>
// CHECK-NEXT:    llvm.store %[[SUM]], %[[B:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[TB:.+]] = llvm.load %[[B]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[TB]], %[[R:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]]
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK:         %[[EA:.+]] = llvm.load %[[A]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[EA]], %[[R]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK:         llvm.getelementptr %[[R]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
tile.func @if_tile(%x: f32, %c: i1) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %r = scf.if %c -> tensor<16xf32> {
    %b = arith.addf %a, %a : tensor<16xf32>
    scf.yield %b : tensor<16xf32>
  } else {
    scf.yield %a : tensor<16xf32>
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0>} : %r : tensor<16xf32>
  tile.return
}

// -----

// scf.while: the tile entering `before` and the tile passed to `after` (the
// result) each get a buffer; scf.condition copies into the latter, the after
// region's yield into the former. The scalar stays a block argument.
// CHECK-LABEL: llvm.func @while_tile(
// CHECK-SAME:    %{{[^:]+}}: f32, %[[N:[^:]+]]: i32
// CHECK:         %[[I0:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[I0]], %[[BEFORE:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[COND:bb[0-9]+]](%{{.+}} : i32)
// CHECK-NEXT:  ^[[COND]](%[[I:.+]]: i32):
// CHECK-NEXT:    %[[GO:.+]] = llvm.icmp "slt" %[[I]], %[[N]] : i32
// CHECK:         %[[T:.+]] = llvm.load %[[BEFORE]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[T]], %[[AFTER:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.cond_br %[[GO]], ^[[DO:bb[0-9]+]](%[[I]] : i32), ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[DO]](%[[J:.+]]: i32):
// CHECK-NEXT:    %[[K:.+]] = llvm.add %[[J]], %{{.+}} : i32
// CHECK:         %[[U:.+]] = llvm.load %[[AFTER]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[V:.+]] = llvm.fmul %[[U]], %{{[^ ]+}} : vector<16xf32>
// CHECK-NEXT:    llvm.store %[[V]], %[[NEW:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[W:.+]] = llvm.load %[[NEW]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[W]], %[[BEFORE]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[COND]](%[[K]] : i32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK:         llvm.getelementptr %[[AFTER]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
tile.func @while_tile(%x: f32, %n: i32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%t = %a, %i = %c0) : (tensor<16xf32>, i32) -> (tensor<16xf32>, i32) {
    %cond = arith.cmpi slt, %i, %n : i32
    scf.condition(%cond) %t, %i : tensor<16xf32>, i32
  } do {
  ^bb0(%u: tensor<16xf32>, %j: i32):
    %v = arith.mulf %u, %u : tensor<16xf32>
    %k = arith.addi %j, %c1 : i32
    scf.yield %v, %k : tensor<16xf32>, i32
  }
  tile.print "r" {hex = false, is_signed = array<i32: 0>} : %r#0 : tensor<16xf32>
  tile.return
}

// -----

// A block pointer carried by a loop is a struct block argument.
// CHECK-LABEL: llvm.func @for_block_pointer(
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %{{.+}} : i32, !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>, array<1 x i32>)>)
// CHECK-NEXT:  ^[[HEAD]](%{{.+}}: i32, %[[BP:.+]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>, array<1 x i32>)>):
// CHECK:         llvm.extractvalue %[[BP]][0]
// CHECK:         %[[ADV:.+]] = llvm.insertvalue %{{.+}}, %[[BP]][3, 0]
// CHECK:         llvm.br ^[[HEAD]](%{{.+}}, %[[ADV]] : i32, !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>, array<1 x i32>)>)
tile.func @for_block_pointer(%base: !tile.ptr<f32>, %m: i64, %k: i64, %o: i32, %n: i32) {
  %bp = tile.make_tensor_ptr %base, [%m], [%k], [%o] {order = array<i32: 0>} : !tile.ptr<tensor<16xf32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %z = arith.constant dense<0.0> : tensor<16xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %bp, %acc = %z) -> (!tile.ptr<tensor<16xf32>>, tensor<16xf32>) : i32 {
    %v = tile.load %p {boundary_check = array<i32: 0>, padding = #tile<padding zero>} : !tile.ptr<tensor<16xf32>>
    %s = arith.addf %acc, %v : tensor<16xf32>
    %q = tile.advance %p, [%c16] : !tile.ptr<tensor<16xf32>>
    scf.yield %q, %s : !tile.ptr<tensor<16xf32>>, tensor<16xf32>
  }
  tile.store %r#0, %r#1 {boundary_check = array<i32: 0>} : !tile.ptr<tensor<16xf32>>
  tile.return
}
