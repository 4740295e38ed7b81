// Regression test; the bug it caught (Shape.cpp, lowerCat): tile.cat copies both operands with the element
// count and chunk width of lhs. The tile verifier lets the operands differ in
// dimension 0 (CatOp::verify), and then:
//  - rhs smaller than lhs (16 + 8 -> 24): rhs is read as 16 elements (8 past
//    its end) and written at dst[16..31], 8 elements past the end of the
//    24-element result: out-of-bounds reads and writes of scratch, which can
//    clobber another live tile (or run past the scratch size: for
//    32x4 + 16x4 -> 48x4, scratch_bytes is 1536 and the rhs copy writes up
//    to byte 1792);
//  - rhs larger than lhs (8 + 16 -> 24): only rhs[0..7] is copied, dst[16..23]
//    is never written.
// Expected: rhs copied with its own element count at offset numel(lhs).

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @cat_smaller_rhs(
// CHECK:         llvm.store %{{.+}}, %[[RHS:[^ ]+]] {alignment = 32 : i64} : vector<8xi32>, !llvm.ptr
// CHECK-NOT:     llvm.load %[[RHS]] {{.*}} -> vector<16xi32>
// CHECK:         llvm.return
tile.func @cat_smaller_rhs(%x: i32, %y: i32) {
  %a = tile.splat %x : i32 -> tensor<16xi32>
  %b = tile.splat %y : i32 -> tensor<8xi32>
  %c = tile.cat %a, %b : tensor<16xi32>, tensor<8xi32> -> tensor<24xi32>
  tile.print "c" {hex = false, is_signed = array<i32: 1>} : %c : tensor<24xi32>
  tile.return
}

// -----

// All 16 elements of rhs must be read: as one vector of 16 or through an
// indexed address.
// CHECK-LABEL: llvm.func @cat_larger_rhs(
// CHECK:         llvm.store %{{.+}}, %[[RHS:[^ ]+]] {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
// CHECK:         {{llvm.load|llvm.getelementptr}} %[[RHS]]{{( \{alignment = [0-9]+ : i64\} : !llvm.ptr -> vector<16xi32>|\[)}}
tile.func @cat_larger_rhs(%x: i32, %y: i32) {
  %a = tile.splat %x : i32 -> tensor<8xi32>
  %b = tile.splat %y : i32 -> tensor<16xi32>
  %c = tile.cat %a, %b : tensor<8xi32>, tensor<16xi32> -> tensor<24xi32>
  tile.print "c" {hex = false, is_signed = array<i32: 1>} : %c : tensor<24xi32>
  tile.return
}
