// Regression test; the bug it caught (Elementwise.cpp, buildElementwise, tile::BitcastOp on scalars): a
// scalar bitcast between a pointer and a 64-bit value is not converted:
//  - pointer -> i64 emits arith.bitcast on an !llvm.ptr, which fails to
//    verify ("'arith.bitcast' op operand #0 must be signless-integer-or-
//    float-like ..., but got '!llvm.ptr'");
//  - f64 (or i64) -> pointer returns the f64 itself as the "pointer", and the
//    store through it fails to verify ("'llvm.store' op operand #1 must be
//    LLVM pointer type, but got 'f64'").
// Both forms are valid tile IR (BitcastOp::verify only compares widths; see
// tests/lit/Tile/ops.mlir @conversions). Expected: ptrtoint, and
// bitcast-to-i64 + inttoptr. (On tiles, where pointers are i64, both work.)

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @pointer_to_i64(
// CHECK-SAME:    %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr
// CHECK:         %[[I:.+]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK:         llvm.store %[[I]], %[[Q]] {{.*}} : i64, !llvm.ptr
tile.func @pointer_to_i64(%p: !tile.ptr<f32>, %q: !tile.ptr<i64>) {
  %0 = tile.bitcast %p : !tile.ptr<f32> -> i64
  tile.store %q, %0 : !tile.ptr<i64>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @f64_to_pointer(
// CHECK-SAME:    %[[D:[^:]+]]: f64, %[[X:[^:]+]]: f32
// CHECK:         %[[PTR:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK:         llvm.store %[[X]], %[[PTR]] {{.*}} : f32, !llvm.ptr
tile.func @f64_to_pointer(%d: f64, %x: f32) {
  %0 = tile.bitcast %d : f64 -> !tile.ptr<f32>
  tile.store %0, %x : !tile.ptr<f32>
  tile.return
}
