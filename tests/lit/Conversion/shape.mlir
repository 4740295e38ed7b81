// Shape ops (Shape.cpp). Tiles are row-major in scratch, so expand_dims,
// reshape and convert_layout reuse their operand's memory; the others copy.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// The views emit nothing: the reduction reads the splat's memory directly.
// CHECK-LABEL: llvm.func @views_do_not_copy(
// CHECK:         llvm.store %{{.+}}, %[[BUF:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK-NOT:     llvm.load
// CHECK:         {{llvm.getelementptr|llvm.load}} %[[BUF]]{{\[| }}
// CHECK:         llvm.return
tile.func @views_do_not_copy(%x: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %b = tile.expand_dims %a {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %c = tile.reshape %b : tensor<1x16xf32> -> tensor<4x4xf32>
  %d = tile.convert_layout %c : tensor<4x4xf32> -> tensor<4x4xf32>
  %s = "tile.reduce"(%d) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }) : (tensor<4x4xf32>) -> tensor<4xf32>
  tile.print "s" {hex = false, is_signed = array<i32: 0>} : %s : tensor<4xf32>
  tile.return
}

// -----

// Broadcast along the row: each row is one element splatted to a vector.
// CHECK-LABEL: llvm.func @broadcast_columns(
// CHECK:         ^{{bb[0-9]+}}(%[[ROW:.+]]: i64):
// CHECK:         %[[OUTBASE:.+]] = llvm.mul %[[ROW]], %{{.+}} : i64
// CHECK:         %[[SRC:.+]] = llvm.getelementptr %{{.+}}[%[[ROW]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[E:.+]] = llvm.load %[[SRC]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[E]], %{{.+}} : vector<16xf32>
// CHECK-NEXT:    %[[SPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK:         %[[DST:.+]] = llvm.getelementptr %{{.+}}[%[[OUTBASE]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[SPLAT]], %[[DST]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
tile.func @broadcast_columns(%p: !tile.ptr<f32>) {
  %c = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %f = arith.sitofp %c : tensor<4xi32> to tensor<4xf32>
  %a = tile.expand_dims %f {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %b = tile.broadcast %a : tensor<4x1xf32> -> tensor<4x16xf32>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<4x16xf32>
  tile.return
}

// -----

// Broadcast along the columns: the one row is copied as a vector per row.
// CHECK-LABEL: llvm.func @broadcast_rows(
// CHECK:         ^{{bb[0-9]+}}(%[[ROW:.+]]: i64):
// CHECK:         %[[OUTBASE:.+]] = llvm.mul %[[ROW]], %{{.+}} : i64
// CHECK:         %[[V:.+]] = llvm.load %[[SRC:[^ ]+]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[DST:.+]] = llvm.getelementptr %{{.+}}[%[[OUTBASE]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[V]], %[[DST]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
tile.func @broadcast_rows(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<1x16xf32>
  %b = tile.broadcast %a : tensor<1x16xf32> -> tensor<4x16xf32>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<4x16xf32>
  tile.return
}

// -----

// trans [4, 16] -> [16, 4]: out[i][j] = in[j][i], element by element. The
// row lengths 16 (input) and 4 (output) are constants shared with the loop
// bounds (common subexpressions are merged), so they are defined ahead of
// the loops.
// CHECK-LABEL: llvm.func @trans(
// CHECK:         %[[IN16:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         llvm.store %{{.+}} : vector<16xf32>, !llvm.ptr
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[OUT4:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         ^{{bb[0-9]+}}(%[[J:.+]]: i64):
// CHECK:         %[[JROW:.+]] = llvm.mul %[[J]], %[[IN16]] : i64
// CHECK-NEXT:    %[[IN:.+]] = llvm.add %[[I]], %[[JROW]] : i64
// CHECK-NEXT:    %[[SRC:.+]] = llvm.getelementptr %{{.+}}[%[[IN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[E:.+]] = llvm.load %[[SRC]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[IROW:.+]] = llvm.mul %[[I]], %[[OUT4]] : i64
// CHECK-NEXT:    %[[OUT:.+]] = llvm.add %[[J]], %[[IROW]] : i64
// CHECK-NEXT:    %[[DST:.+]] = llvm.getelementptr %{{.+}}[%[[OUT]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[E]], %[[DST]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @trans(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<4x16xf32>
  %b = tile.trans %a {order = array<i32: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<16x4xf32>
  tile.return
}

// -----

// join: out[2i] = lhs[i], out[2i + 1] = rhs[i]; split undoes it.
// CHECK-LABEL: llvm.func @join_split(
// CHECK-SAME:    %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32
// CHECK:         llvm.insertelement %[[X]]
// CHECK:         llvm.store %{{.+}}, %[[LHS:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         llvm.insertelement %[[Y]]
// CHECK:         llvm.store %{{.+}}, %[[RHS:[^ ]+]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[EVEN:.+]] = llvm.mul %[[I]], %{{.+}} : i64
// CHECK:         %[[ODD:.+]] = llvm.add %[[EVEN]], %{{.+}} : i64
// CHECK-NEXT:    %[[LA:.+]] = llvm.getelementptr %[[LHS]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[L:.+]] = llvm.load %[[LA]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[JE:.+]] = llvm.getelementptr %[[JOIN:[^ ]+]][%[[EVEN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[L]], %[[JE]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    %[[RA:.+]] = llvm.getelementptr %[[RHS]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[R:.+]] = llvm.load %[[RA]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[JO:.+]] = llvm.getelementptr %[[JOIN]][%[[ODD]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[R]], %[[JO]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         ^{{bb[0-9]+}}(%[[K:.+]]: i64):
// CHECK:         %[[SEVEN:.+]] = llvm.mul %[[K]], %{{.+}} : i64
// CHECK:         %[[SODD:.+]] = llvm.add %[[SEVEN]], %{{.+}} : i64
// CHECK-NEXT:    %[[SE:.+]] = llvm.getelementptr %[[JOIN]][%[[SEVEN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[A:.+]] = llvm.load %[[SE]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[AL:.+]] = llvm.getelementptr %{{[^ ]+}}[%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[A]], %[[AL]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    %[[SO:.+]] = llvm.getelementptr %[[JOIN]][%[[SODD]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[B:.+]] = llvm.load %[[SO]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[BL:.+]] = llvm.getelementptr %{{[^ ]+}}[%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[B]], %[[BL]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @join_split(%x: f32, %y: f32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  %j = tile.join %a, %b : tensor<16xf32> -> tensor<16x2xf32>
  %c, %d = tile.split %j : tensor<16x2xf32>
  tile.print "cd" {hex = false, is_signed = array<i32: 0, 0>} : %c, %d : tensor<16xf32>, tensor<16xf32>
  tile.return
}

// -----

// cat: lhs's elements, then rhs's (each with its own element count), a
// chunk at a time.
// CHECK-LABEL: llvm.func @cat(
// CHECK-SAME:    %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32
// CHECK:         llvm.insertelement %[[X]]
// CHECK:         llvm.store %{{.+}}, %[[LHS:[^ ]+]] {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
// CHECK:         llvm.insertelement %[[Y]]
// CHECK:         llvm.store %{{.+}}, %[[RHS:[^ ]+]] {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
// CHECK:         %[[L:.+]] = llvm.load %[[LHS]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xi32>
// CHECK:         llvm.store %[[L]], %[[DST:[^ ]+]] {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
// CHECK:         %[[R:.+]] = llvm.load %[[RHS]] {alignment = 64 : i64} : !llvm.ptr -> vector<16xi32>
// rhs goes after lhs's 16 elements.
// CHECK:         %[[RA:.+]] = llvm.getelementptr %[[DST]][16] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[R]], %[[RA]] {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
tile.func @cat(%x: i32, %y: i32) {
  %a = tile.splat %x : i32 -> tensor<16xi32>
  %b = tile.splat %y : i32 -> tensor<16xi32>
  %c = tile.cat %a, %b : tensor<16xi32>, tensor<16xi32> -> tensor<32xi32>
  tile.print "c" {hex = false, is_signed = array<i32: 1>} : %c : tensor<32xi32>
  tile.return
}

// -----

// gather: indices are clamped into [0, size - 1] so that a bad index reads
// some element of the tile rather than faulting. The lower bound is the
// function's one i64 zero (common subexpressions are merged).
// CHECK-LABEL: llvm.func @gather(
// CHECK:         %[[LO:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         ^{{bb[0-9]+}}(%[[I:.+]]: i64):
// CHECK:         %[[IA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[IDX:.+]] = llvm.load %[[IA]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[IDX64:.+]] = llvm.sext %[[IDX]] : i32 to i64
// CHECK-NEXT:    %[[A:.+]] = llvm.intr.smax(%[[IDX64]], %[[LO]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[HI:.+]] = llvm.mlir.constant(15 : i64) : i64
// CHECK-NEXT:    %[[B:.+]] = llvm.intr.smin(%[[A]], %[[HI]]) : (i64, i64) -> i64
// CHECK:         %[[SA:.+]] = llvm.getelementptr %{{.+}}[%[[B]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[SA]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[DA:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[V]], %[[DA]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @gather(%x: f32, %i: i32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %idx = tile.splat %i : i32 -> tensor<8xi32>
  %g = tile.gather %a[%idx] {axis = 0 : i32} : (tensor<16xf32>, tensor<8xi32>) -> tensor<8xf32>
  tile.print "g" {hex = false, is_signed = array<i32: 0>} : %g : tensor<8xf32>
  tile.return
}

// -----

// histogram: zeroed bins, then one increment per in-range element.
// CHECK-LABEL: llvm.func @histogram(
// CHECK:         %[[Z:.+]] = llvm.mlir.constant(dense<0> : vector<8xi32>) : vector<8xi32>
// CHECK-NEXT:    llvm.store %[[Z]], %[[BINS:[^ ]+]] {alignment = 32 : i64} : vector<8xi32>, !llvm.ptr
// CHECK:         %[[V:.+]] = llvm.sext %{{.+}} : i32 to i64
// CHECK-DAG:     %[[GE:.+]] = llvm.icmp "sge" %[[V]], %{{.+}} : i64
// CHECK-DAG:     %[[NBINS:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-DAG:     %[[LT:.+]] = llvm.icmp "slt" %[[V]], %[[NBINS]] : i64
// CHECK:         %[[OK:.+]] = llvm.and %[[GE]], %[[LT]] : i1
// CHECK-NEXT:    llvm.cond_br %[[OK]], ^[[INC:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[INC]]:
// CHECK-NEXT:    %[[BA:.+]] = llvm.getelementptr %[[BINS]][%[[V]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[OLD:.+]] = llvm.load %[[BA]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[NEW:.+]] = llvm.add %[[OLD]], %{{.+}} : i32
// CHECK:         llvm.store %[[NEW]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
tile.func @histogram(%i: i32) {
  %a = tile.splat %i : i32 -> tensor<16xi32>
  %h = tile.histogram %a : tensor<16xi32> -> tensor<8xi32>
  tile.print "h" {hex = false, is_signed = array<i32: 1>} : %h : tensor<8xi32>
  tile.return
}
