// tl.dot (Dot.cpp): D = A x B + C as fused multiply-adds on vectors. Rows of
// D go four at a time, columns a chunk at a time; per k, one chunk of B's
// row k times four broadcast elements of A. f16 operands are extended to f32;
// i8 operands to i32 with integer multiply and add.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @dot_f32(
// Four accumulator rows, initialized from C.
// CHECK:         %[[C0:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[C1:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[C2:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[C3:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[K:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[C0]], %[[C1]], %[[C2]], %[[C3]] : i64, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NEXT:  ^[[HEAD]](%[[KK:.+]]: i64, %[[A0:.+]]: vector<16xf32>, %[[A1:.+]]: vector<16xf32>, %[[A2:.+]]: vector<16xf32>, %[[A3:.+]]: vector<16xf32>):
// CHECK-NEXT:    llvm.icmp "slt" %[[KK]], %[[K]] : i64
// B's row k, a vector.
// CHECK:         %[[BROW:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// A's element (row, k), broadcast.
// CHECK:         %[[A:.+]] = llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[A]], %{{.+}} : vector<16xf32>
// CHECK-NEXT:    %[[ASPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK-NEXT:    %[[N0:.+]] = llvm.intr.fma(%[[ASPLAT]], %[[BROW]], %[[A0]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         %[[N1:.+]] = llvm.intr.fma(%{{[^ ,]+}}, %[[BROW]], %[[A1]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         %[[N2:.+]] = llvm.intr.fma(%{{[^ ,]+}}, %[[BROW]], %[[A2]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         %[[N3:.+]] = llvm.intr.fma(%{{[^ ,]+}}, %[[BROW]], %[[A3]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         llvm.br ^[[HEAD]](%{{.+}}, %[[N0]], %[[N1]], %[[N2]], %[[N3]] : i64, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// The accumulators are stored to D.
// CHECK:         llvm.store %[[A0]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         llvm.store %[[A1]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         llvm.store %[[A2]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         llvm.store %[[A3]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
tile.func @dot_f32(%x: f32, %y: f32, %z: f32) {
  %a = tile.splat %x : f32 -> tensor<4x8xf32>
  %b = tile.splat %y : f32 -> tensor<8x16xf32>
  %c = tile.splat %z : f32 -> tensor<4x16xf32>
  %d = tile.dot %a, %b, %c : tensor<4x8xf32> * tensor<8x16xf32> -> tensor<4x16xf32>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<4x16xf32>
  tile.return
}

// -----

// f16 operands are extended to f32 before the fma.
// CHECK-LABEL: llvm.func @dot_f16(
// CHECK:         %[[BH:.+]] = llvm.load %{{.+}} {alignment = 32 : i64} : !llvm.ptr -> vector<16xf16>
// CHECK-NEXT:    %[[BROW:.+]] = llvm.fpext %[[BH]] : vector<16xf16> to vector<16xf32>
// CHECK:         %[[AH:.+]] = llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[A:.+]] = llvm.fpext %[[AH]] : f16 to f32
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[A]], %{{.+}} : vector<16xf32>
// CHECK-NEXT:    %[[ASPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK-NEXT:    llvm.intr.fma(%[[ASPLAT]], %[[BROW]], %{{[^ ,]+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-NOT:     llvm.intr.fma({{.*}}) : (vector<16xf16>
tile.func @dot_f16(%x: f16, %z: f32) {
  %a = tile.splat %x : f16 -> tensor<4x8xf16>
  %b = tile.splat %x : f16 -> tensor<8x16xf16>
  %c = tile.splat %z : f32 -> tensor<4x16xf32>
  %d = tile.dot %a, %b, %c : tensor<4x8xf16> * tensor<8x16xf16> -> tensor<4x16xf32>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<4x16xf32>
  tile.return
}

// -----

// An f16 accumulator is computed in f32 and truncated when stored.
// CHECK-LABEL: llvm.func @dot_f16_acc(
// CHECK:         %[[CH:.+]] = llvm.load %{{.+}} {alignment = 32 : i64} : !llvm.ptr -> vector<16xf16>
// CHECK-NEXT:    llvm.fpext %[[CH]] : vector<16xf16> to vector<16xf32>
// CHECK:         llvm.intr.fma(%{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         %[[D:.+]] = llvm.fptrunc %{{.+}} : vector<16xf32> to vector<16xf16>
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    llvm.store %[[D]], %{{.+}} {alignment = 32 : i64} : vector<16xf16>, !llvm.ptr
tile.func @dot_f16_acc(%x: f16) {
  %a = tile.splat %x : f16 -> tensor<4x8xf16>
  %b = tile.splat %x : f16 -> tensor<8x16xf16>
  %c = tile.splat %x : f16 -> tensor<4x16xf16>
  %d = tile.dot %a, %b, %c : tensor<4x8xf16> * tensor<8x16xf16> -> tensor<4x16xf16>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<4x16xf16>
  tile.return
}

// -----

// i8 x i8 + i32: sign-extended to i32, multiply and add (no fma).
// CHECK-LABEL: llvm.func @dot_i8(
// CHECK:         %[[BB:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK-NEXT:    %[[BROW:.+]] = llvm.sext %[[BB]] : vector<16xi8> to vector<16xi32>
// CHECK:         %[[AB:.+]] = llvm.load %{{.+}} {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[A:.+]] = llvm.sext %[[AB]] : i8 to i32
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[A]], %{{.+}} : vector<16xi32>
// CHECK-NEXT:    %[[ASPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xi32>
// CHECK-NEXT:    %[[P:.+]] = llvm.mul %[[ASPLAT]], %[[BROW]] : vector<16xi32>
// CHECK-NEXT:    llvm.add %{{[^ ,]+}}, %[[P]] : vector<16xi32>
// CHECK-NOT:     llvm.intr.fma
tile.func @dot_i8(%x: i8, %z: i32) {
  %a = tile.splat %x : i8 -> tensor<4x8xi8>
  %b = tile.splat %x : i8 -> tensor<8x16xi8>
  %c = tile.splat %z : i32 -> tensor<4x16xi32>
  %d = tile.dot %a, %b, %c : tensor<4x8xi8> * tensor<8x16xi8> -> tensor<4x16xi32>
  tile.print "d" {hex = false, is_signed = array<i32: 1>} : %d : tensor<4x16xi32>
  tile.return
}

// -----

// Two rows at a time when M is not a multiple of 4.
// CHECK-LABEL: llvm.func @dot_two_rows(
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %{{.+}}, %{{.+}} : i64, vector<8xf32>, vector<8xf32>)
// CHECK-NEXT:  ^[[HEAD]](%{{.+}}: i64, %{{.+}}: vector<8xf32>, %{{.+}}: vector<8xf32>):
// CHECK-COUNT-2: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NOT:     llvm.intr.fma
tile.func @dot_two_rows(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<2x4xf32>
  %b = tile.splat %x : f32 -> tensor<4x8xf32>
  %c = tile.splat %x : f32 -> tensor<2x8xf32>
  %d = tile.dot %a, %b, %c : tensor<2x4xf32> * tensor<4x8xf32> -> tensor<2x8xf32>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<2x8xf32>
  tile.return
}

// -----

// A rank-3 dot loops over the batch: each batch's matrices start at batch x
// (their size) elements into the operand tiles.
// CHECK-LABEL: llvm.func @batched_dot(
// CHECK:         %[[B:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:         llvm.icmp "slt" %{{.+}}, %[[B]] : i64
// CHECK:         llvm.mlir.constant(32 : i64) : i64
// CHECK:         llvm.intr.fma(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
tile.func @batched_dot(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<2x4x8xf32>
  %b = tile.splat %x : f32 -> tensor<2x8x16xf32>
  %c = tile.splat %x : f32 -> tensor<2x4x16xf32>
  %d = tile.dot %a, %b, %c : tensor<2x4x8xf32> * tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  tile.print "d" {hex = false, is_signed = array<i32: 0>} : %d : tensor<2x4x16xf32>
  tile.return
}
