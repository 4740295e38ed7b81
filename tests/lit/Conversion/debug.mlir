// print and assert (Debug.cpp) through the test hooks: print calls
// @test_print(index, value) per element (index -1 for a scalar); a failed
// assert calls @test_assert_fail(line, index) with the line of the op's
// file:line:col location.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK:       llvm.func @test_print(i64, i32)
// CHECK-LABEL: llvm.func @print_tile_and_scalar(
// CHECK-SAME:    %[[X:[^:]+]]: i32
// CHECK:         %[[N:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK:         %[[A:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[A]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @test_print(%[[I]], %[[V]]) : (i64, i32) -> ()
// CHECK:         %[[NONE:.+]] = llvm.mlir.constant(-1 : i64) : i64
// CHECK-NEXT:    llvm.call @test_print(%[[NONE]], %[[X]]) : (i64, i32) -> ()
tile.func @print_tile_and_scalar(%x: i32) {
  %a = tile.splat %x : i32 -> tensor<4xi32>
  tile.print " a: " {hex = false, is_signed = array<i32: 1>} : %a : tensor<4xi32>
  tile.print " x: " {hex = false, is_signed = array<i32: 1>} : %x : i32
  tile.return
}

// -----

// A print without operands: one call with the index only.
// CHECK:       llvm.func @test_print(i64)
// CHECK-LABEL: llvm.func @print_message(
// CHECK:         %[[NONE:.+]] = llvm.mlir.constant(-1 : i64) : i64
// CHECK-NEXT:    llvm.call @test_print(%[[NONE]]) : (i64) -> ()
tile.func @print_message() {
  tile.print "hello" {hex = false, is_signed = array<i32>}
  tile.return
}

// -----

// A tile assert checks each element: the condition is negated and a failure
// reports line 12 and the element index.
// CHECK:       llvm.func @test_assert_fail(i32, i64)
// CHECK-LABEL: llvm.func @assert_tile(
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[A:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[B:.+]] = llvm.load %[[A]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[OK:.+]] = llvm.trunc %[[B]] : i8 to i1
// CHECK-NEXT:    %[[TRUE:.+]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %[[BAD:.+]] = llvm.xor %[[OK]], %[[TRUE]] : i1
// CHECK-NEXT:    llvm.cond_br %[[BAD]], ^[[FAIL:bb[0-9]+]], ^[[CONT:bb[0-9]+]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[LINE:.+]] = llvm.mlir.constant(12 : i32) : i32
// CHECK-NEXT:    llvm.call @test_assert_fail(%[[LINE]], %[[I]]) : (i32, i64) -> ()
// CHECK-NEXT:    llvm.br ^[[CONT]]
tile.func @assert_tile(%x: i32, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %ns = tile.splat %n : i32 -> tensor<4xi32>
  %ok = arith.cmpi slt, %r, %ns : tensor<4xi32>
  tile.assert %ok, "index out of range" : tensor<4xi1> loc("file.py":12:3)
  tile.return
}

// -----

// A scalar assert reports index -1; the line is the innermost file location
// (here the callee's, through a call site).
// CHECK-LABEL: llvm.func @assert_scalar(
// CHECK-SAME:    %[[OK:[^:]+]]: i1
// CHECK:         %[[NONE:.+]] = llvm.mlir.constant(-1 : i64) : i64
// CHECK-NEXT:    %[[TRUE:.+]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %[[BAD:.+]] = llvm.xor %[[OK]], %[[TRUE]] : i1
// CHECK-NEXT:    llvm.cond_br %[[BAD]], ^[[FAIL:bb[0-9]+]], ^[[CONT:bb[0-9]+]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[LINE:.+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    llvm.call @test_assert_fail(%[[LINE]], %[[NONE]]) : (i32, i64) -> ()
// CHECK-NEXT:    llvm.br ^[[CONT]]
// CHECK-NEXT:  ^[[CONT]]:
// CHECK-NEXT:    llvm.return
tile.func @assert_scalar(%ok: i1) {
  tile.assert %ok, "scalar" : i1 loc(callsite("helper.py":7:1 at "file.py":30:5))
  tile.return
}

// -----

// Without a file location the line is 0; debug_barrier is a no-op here.
// CHECK-LABEL: llvm.func @assert_no_location(
// CHECK:         llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @test_assert_fail(
// CHECK-NEXT:    llvm.br
// CHECK-NEXT:  ^{{bb[0-9]+}}:
// CHECK-NEXT:    llvm.return
tile.func @assert_no_location(%ok: i1) {
  tile.assert %ok, "nowhere" : i1 loc(unknown)
  tile.debug_barrier
  tile.return
}
