// Reductions and scans (ReduceScan.cpp). Along the contiguous axis a
// reduction keeps a vector of partial results and halves it lane by lane
// (shufflevector tree); along an outer axis it keeps vector accumulators over
// the inner dimension. The combine region is cloned with vector types.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// sum of 32 elements: a vector<16xf32> accumulator over 2 chunks, then
// 16 -> 8 -> 4 -> 2 -> 1 lanes.
// CHECK-LABEL: llvm.func @sum_1d(
// CHECK-SAME:    %[[OUT:[^:]+]]: !llvm.ptr
// CHECK:         %[[FIRST:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[TWO:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[FIRST]] : i64, vector<16xf32>)
// CHECK-NEXT:  ^[[HEAD]](%[[K:.+]]: i64, %[[ACC:.+]]: vector<16xf32>):
// CHECK-NEXT:    %[[MORE:.+]] = llvm.icmp "slt" %[[K]], %[[TWO]] : i64
// CHECK:         %[[NEXT:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[SUM:.+]] = llvm.fadd %[[ACC]], %[[NEXT]] : vector<16xf32>
// CHECK:         llvm.br ^[[HEAD]](%{{.+}}, %[[SUM]] : i64, vector<16xf32>)
// CHECK:         %[[L16:.+]] = llvm.shufflevector %[[ACC]], %[[ACC]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>
// CHECK-NEXT:    %[[H16:.+]] = llvm.shufflevector %[[ACC]], %[[ACC]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf32>
// CHECK-NEXT:    %[[S8:.+]] = llvm.fadd %[[L16]], %[[H16]] : vector<8xf32>
// CHECK-NEXT:    %[[L8:.+]] = llvm.shufflevector %[[S8]], %[[S8]] [0, 1, 2, 3] : vector<8xf32>
// CHECK-NEXT:    %[[H8:.+]] = llvm.shufflevector %[[S8]], %[[S8]] [4, 5, 6, 7] : vector<8xf32>
// CHECK-NEXT:    %[[S4:.+]] = llvm.fadd %[[L8]], %[[H8]] : vector<4xf32>
// CHECK-NEXT:    %[[L4:.+]] = llvm.shufflevector %[[S4]], %[[S4]] [0, 1] : vector<4xf32>
// CHECK-NEXT:    %[[H4:.+]] = llvm.shufflevector %[[S4]], %[[S4]] [2, 3] : vector<4xf32>
// CHECK-NEXT:    %[[S2:.+]] = llvm.fadd %[[L4]], %[[H4]] : vector<2xf32>
// CHECK:         %[[E0:.+]] = llvm.extractelement %[[S2]][%{{.+}} : i32] : vector<2xf32>
// CHECK:         %[[E1:.+]] = llvm.extractelement %[[S2]][%{{.+}} : i32] : vector<2xf32>
// CHECK-NEXT:    %[[S1:.+]] = llvm.fadd %[[E0]], %[[E1]] : f32
// CHECK-NEXT:    llvm.store %[[S1]], %[[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @sum_1d(%out: !tile.ptr<f32>, %x: f32) {
  %a = tile.splat %x : f32 -> tensor<32xf32>
  %s = "tile.reduce"(%a) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }) : (tensor<32xf32>) -> f32
  tile.store %out, %s : !tile.ptr<f32>
  tile.return
}

// -----

// Along the contiguous axis of a 2-D tile: one lane tree per row, the row's
// result stored as a scalar.
// CHECK-LABEL: llvm.func @sum_rows(
// CHECK:         llvm.store %{{.+}} : vector<16xf32>, !llvm.ptr
// CHECK:         ^{{bb[0-9]+}}(%[[ROW:.+]]: i64):
// CHECK:         %[[CHUNK:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[L:.+]] = llvm.shufflevector %[[CHUNK]], %[[CHUNK]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>
// CHECK-NEXT:    %[[H:.+]] = llvm.shufflevector %[[CHUNK]], %[[CHUNK]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf32>
// CHECK-NEXT:    llvm.fadd %[[L]], %[[H]] : vector<8xf32>
// CHECK:         llvm.fadd %{{[^ ]+}}, %{{[^ ]+}} : vector<4xf32>
// CHECK:         llvm.fadd %{{[^ ]+}}, %{{[^ ]+}} : vector<2xf32>
// CHECK:         %[[R:.+]] = llvm.fadd %{{[^ ]+}}, %{{[^ ]+}} : f32
// CHECK-NEXT:    %[[AT:.+]] = llvm.getelementptr %{{.+}}[%[[ROW]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[R]], %[[AT]] {alignment = 4 : i64} : f32, !llvm.ptr
tile.func @sum_rows(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<4x16xf32>
  %s = "tile.reduce"(%a) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }) : (tensor<4x16xf32>) -> tensor<4xf32>
  tile.print "s" {hex = false, is_signed = array<i32: 0>} : %s : tensor<4xf32>
  tile.return
}

// -----

// Along axis 0 of a 4 x 16 tile: a vector accumulator over the 16 columns,
// combined with each of the 4 rows; no lane tree. Row k is read at k * 16
// elements; that 16 is the function's one i64 16 (common subexpressions are
// merged), defined first.
// CHECK-LABEL: llvm.func @max_columns(
// CHECK:         %[[STRIDE:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         %[[ROW0:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[FOUR:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[ROW0]] : i64, vector<16xf32>)
// CHECK-NEXT:  ^[[HEAD]](%[[K:.+]]: i64, %[[ACC:.+]]: vector<16xf32>):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %[[FOUR]] : i64
// CHECK:         %[[OFF:.+]] = llvm.mul %[[K]], %[[STRIDE]] : i64
// CHECK:         %[[ROWK:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[MAX:.+]] = llvm.intr.maxnum(%[[ACC]], %[[ROWK]]) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         llvm.br ^[[HEAD]](%{{.+}}, %[[MAX]] : i64, vector<16xf32>)
// CHECK:         llvm.store %[[ACC]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NOT:     llvm.shufflevector %[[ACC]]
tile.func @max_columns(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<4x16xf32>
  %s = "tile.reduce"(%a) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %t = arith.maxnumf %l, %r : f32
    tile.reduce.return %t : f32
  }) : (tensor<4x16xf32>) -> tensor<16xf32>
  tile.print "s" {hex = false, is_signed = array<i32: 0>} : %s : tensor<16xf32>
  tile.return
}

// -----

// argmax: two operands combined together, the comparison selecting both the
// value and the index in each step of the tree.
// CHECK-LABEL: llvm.func @argmax(
// CHECK-SAME:    %[[VOUT:[^:]+]]: !llvm.ptr, %[[IOUT:[^:]+]]: !llvm.ptr
// CHECK:         llvm.fmul %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf32>
// CHECK:         %[[V:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[I:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xi32>
// CHECK-NEXT:    %[[VL:.+]] = llvm.shufflevector %[[V]], %[[V]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>
// CHECK-NEXT:    %[[VH:.+]] = llvm.shufflevector %[[V]], %[[V]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf32>
// CHECK-NEXT:    %[[IL:.+]] = llvm.shufflevector %[[I]], %[[I]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xi32>
// CHECK-NEXT:    %[[IH:.+]] = llvm.shufflevector %[[I]], %[[I]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xi32>
// CHECK-NEXT:    %[[GT:.+]] = llvm.fcmp "ogt" %[[VL]], %[[VH]] : vector<8xf32>
// CHECK-NEXT:    llvm.select %[[GT]], %[[VL]], %[[VH]] : vector<8xi1>, vector<8xf32>
// CHECK-NEXT:    llvm.select %[[GT]], %[[IL]], %[[IH]] : vector<8xi1>, vector<8xi32>
// CHECK:         llvm.fcmp "ogt" %{{[^ ]+}}, %{{[^ ]+}} : vector<4xf32>
// CHECK:         llvm.fcmp "ogt" %{{[^ ]+}}, %{{[^ ]+}} : vector<2xf32>
// CHECK:         %[[GT1:.+]] = llvm.fcmp "ogt" %{{[^ ]+}}, %{{[^ ]+}} : f32
// CHECK-NEXT:    %[[BEST:.+]] = llvm.select %[[GT1]], %{{[^ ]+}}, %{{[^ ]+}} : i1, f32
// CHECK-NEXT:    %[[WHERE:.+]] = llvm.select %[[GT1]], %{{[^ ]+}}, %{{[^ ]+}} : i1, i32
// CHECK:         llvm.store %[[BEST]], %[[VOUT]]
// CHECK:         llvm.store %[[WHERE]], %[[IOUT]]
tile.func @argmax(%vout: !tile.ptr<f32>, %iout: !tile.ptr<i32>, %x: f32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %f = arith.sitofp %r : tensor<16xi32> to tensor<16xf32>
  %xs = tile.splat %x : f32 -> tensor<16xf32>
  %a = arith.mulf %f, %xs : tensor<16xf32>
  %max:2 = "tile.reduce"(%a, %r) <{axis = 0 : i32}> ({
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %j = arith.select %gt, %ia, %ib : i32
    tile.reduce.return %v, %j : f32, i32
  }) : (tensor<16xf32>, tensor<16xi32>) -> (f32, i32)
  tile.store %vout, %max#0 : !tile.ptr<f32>
  tile.store %iout, %max#1 : !tile.ptr<i32>
  tile.return
}

// -----

// cumsum along a 1-D tile: element by element, each partial sum stored; the
// first element is stored as is.
// CHECK-LABEL: llvm.func @cumsum(
// CHECK:         %[[E0:.+]] = llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.store %[[E0]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[N:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[E0]] : i64, i32)
// CHECK-NEXT:  ^[[HEAD]](%[[K:.+]]: i64, %[[ACC:.+]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %[[N]] : i64
// CHECK:         %[[SRC:.+]] = llvm.getelementptr %{{.+}}[%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[E:.+]] = llvm.load %[[SRC]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[SUM:.+]] = llvm.add %[[ACC]], %[[E]] : i32
// CHECK:         %[[DST:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[SUM]], %[[DST]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.br ^[[HEAD]](%{{.+}}, %[[SUM]] : i64, i32)
tile.func @cumsum(%x: i32) {
  %a = tile.splat %x : i32 -> tensor<16xi32>
  %s = "tile.scan"(%a) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%l: i32, %r: i32):
    %t = arith.addi %l, %r : i32
    tile.scan.return %t : i32
  }) : (tensor<16xi32>) -> tensor<16xi32>
  tile.print "s" {hex = false, is_signed = array<i32: 1>} : %s : tensor<16xi32>
  tile.return
}

// -----

// A reverse scan starts from the last element and visits element 15 - k.
// CHECK-LABEL: llvm.func @cumsum_reverse(
// CHECK:         %[[SRC0:.+]] = llvm.getelementptr %{{.+}}[15] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[E0:.+]] = llvm.load %[[SRC0]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[E0]] : i64, i32)
// CHECK-NEXT:  ^[[HEAD]](%[[K:.+]]: i64, %[[ACC:.+]]: i32):
// CHECK:         %[[C15:.+]] = llvm.mlir.constant(15 : i64) : i64
// CHECK-NEXT:    %[[REV:.+]] = llvm.sub %[[C15]], %[[K]] : i64
// CHECK-NEXT:    %[[SRC:.+]] = llvm.getelementptr %{{.+}}[%[[REV]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[E:.+]] = llvm.load %[[SRC]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[SUM:.+]] = llvm.add %[[ACC]], %[[E]] : i32
tile.func @cumsum_reverse(%x: i32) {
  %a = tile.splat %x : i32 -> tensor<16xi32>
  %s = "tile.scan"(%a) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%l: i32, %r: i32):
    %t = arith.addi %l, %r : i32
    tile.scan.return %t : i32
  }) : (tensor<16xi32>) -> tensor<16xi32>
  tile.print "s" {hex = false, is_signed = array<i32: 1>} : %s : tensor<16xi32>
  tile.return
}

// -----

// A scan along axis 0 of a 4 x 16 tile runs on whole rows as vectors.
// CHECK-LABEL: llvm.func @cumsum_rows(
// CHECK:         ^{{bb[0-9]+}}(%{{.+}}: i64, %[[ACC:.+]]: vector<16xi32>):
// CHECK:         %[[ROW:.+]] = llvm.load %{{.+}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xi32>
// CHECK-NEXT:    %[[SUM:.+]] = llvm.add %[[ACC]], %[[ROW]] : vector<16xi32>
// CHECK:         llvm.store %[[SUM]], %{{.+}} {alignment = 64 : i64} : vector<16xi32>, !llvm.ptr
tile.func @cumsum_rows(%x: i32) {
  %a = tile.splat %x : i32 -> tensor<4x16xi32>
  %s = "tile.scan"(%a) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%l: i32, %r: i32):
    %t = arith.addi %l, %r : i32
    tile.scan.return %t : i32
  }) : (tensor<4x16xi32>) -> tensor<4x16xi32>
  tile.print "s" {hex = false, is_signed = array<i32: 1>} : %s : tensor<4x16xi32>
  tile.return
}
