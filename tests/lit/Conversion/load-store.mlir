// Loads and stores (LoadStore.cpp). Through tiles of pointers: runs of
// contiguous addresses (axis info) become one vector access per chunk, masked
// with llvm.intr.masked.load/store when there is a mask; other tiles of
// pointers become masked gathers and scatters. Scalar masked accesses branch.
// Block pointers are structs, loaded element by element with bounds checks.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// offs = arange(16) from a 16-byte aligned pointer, masked: a masked vector
// load from the address of lane 0; masked-off lanes read 0 (no `other`).
// The whole kernel is one chunk group: nothing goes through scratch (scratch
// accesses are 64-byte aligned).
// CHECK-LABEL: llvm.func @contiguous_masked(
// CHECK-NOT:     alignment = 64
// CHECK:         %[[MASK:.+]] = llvm.icmp "slt" %{{[^ ]+}}, %{{[^ ]+}} : vector<16xi32>
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(dense<0.000000e+00> : vector<16xf32>) : vector<16xf32>
// CHECK:         %[[FIRST:.+]] = llvm.extractelement %[[ADDRS:[^ ]+]][%{{.+}} : i32] : vector<16xi64>
// CHECK-NEXT:    %[[BASE:.+]] = llvm.inttoptr %[[FIRST]] : i64 to !llvm.ptr
// A chunk whose lanes are all active takes a plain vector load.
// CHECK-NEXT:    %[[ALL:.+]] = "llvm.intr.vector.reduce.and"(%[[MASK]]) : (vector<16xi1>) -> i1
// CHECK-NEXT:    llvm.cond_br %[[ALL]], ^[[PLAIN:bb[0-9]+]], ^[[MASKED:bb[0-9]+]]
// CHECK-NEXT:  ^[[PLAIN]]:
// CHECK-NEXT:    %[[P:.+]] = llvm.load %[[BASE]] {alignment = 16 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[P]] : vector<16xf32>)
// CHECK-NEXT:  ^[[MASKED]]:
// CHECK-NEXT:    %[[M:.+]] = llvm.intr.masked.load %[[BASE]], %[[MASK]], %[[ZERO]] {alignment = 16 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[M]] : vector<16xf32>)
// CHECK-NEXT:  ^[[JOIN]](%[[V:.+]]: vector<16xf32>):
// The store, under the same mask, branches on the load's all-active test
// (common subexpressions are merged).
// CHECK:         %[[SFIRST:.+]] = llvm.extractelement %{{[^ ]+}}[%{{.+}} : i32] : vector<16xi64>
// CHECK-NEXT:    %[[SBASE:.+]] = llvm.inttoptr %[[SFIRST]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.cond_br %[[ALL]], ^[[SPLAIN:bb[0-9]+]], ^[[SMASKED:bb[0-9]+]]
// CHECK-NEXT:  ^[[SPLAIN]]:
// CHECK-NEXT:    llvm.store %[[V]], %[[SBASE]] {alignment = 16 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:       ^[[SMASKED]]:
// CHECK-NEXT:    llvm.intr.masked.store %[[V]], %[[SBASE]], %[[MASK]] {alignment = 16 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
// CHECK-NOT:     alignment = 64
// CHECK-NOT:     llvm.intr.masked.gather
// CHECK-NOT:     llvm.intr.masked.scatter
tile.func @contiguous_masked(%in: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ns = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %ip = tile.splat %in : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %ia = tile.addptr %ip, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %ia, %m : tensor<16x!tile.ptr<f32>>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %oa = tile.addptr %op, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %oa, %v, %m : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// Without a mask: plain vector loads and stores. Without known divisibility
// of the pointer, only element alignment; masked-off lanes read `other`.
// CHECK-LABEL: llvm.func @contiguous_unmasked(
// CHECK:         %[[BASE:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[BASE]] {alignment = 16 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[BASE2:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK:         llvm.load %[[BASE2]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK:         llvm.intr.masked.load %[[BASE2]], %{{[^ ,]+}}, %[[V]] {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK:       ^bb{{[0-9]+}}(%[[W:.+]]: vector<16xf32>):
// CHECK:         %[[SBASE:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.store %[[W]], %[[SBASE]] {alignment = 16 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NOT:     llvm.intr.masked
tile.func @contiguous_unmasked(%in: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %any: !tile.ptr<f32>, %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ip = tile.splat %in : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %ia = tile.addptr %ip, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %ia : tensor<16x!tile.ptr<f32>>
  %ns = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %ap = tile.splat %any : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %aa = tile.addptr %ap, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %w = tile.load %aa, %m, %v : tensor<16x!tile.ptr<f32>>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %oa = tile.addptr %op, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %oa, %w : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// A 4 x 16 block with rows `stride` apart: one vector access per row.
// CHECK-LABEL: llvm.func @rows(
// CHECK:         %[[FIRST:.+]] = llvm.extractelement %{{[^ ]+}}[%{{.+}} : i32] : vector<16xi64>
// CHECK-NEXT:    %[[BASE:.+]] = llvm.inttoptr %[[FIRST]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.load %[[BASE]] {alignment = 16 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NOT:     llvm.intr.masked.gather
tile.func @rows(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %c = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %s = tile.splat %stride : i32 -> tensor<4x1xi32>
  %ro = arith.muli %r2, %s : tensor<4x1xi32>
  %rb = tile.broadcast %ro : tensor<4x1xi32> -> tensor<4x16xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = tile.broadcast %c2 : tensor<1x16xi32> -> tensor<4x16xi32>
  %off = arith.addi %rb, %cb : tensor<4x16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<4x16x!tile.ptr<f32>>
  %a = tile.addptr %ps, %off : tensor<4x16x!tile.ptr<f32>>, tensor<4x16xi32>
  %v = tile.load %a : tensor<4x16x!tile.ptr<f32>>
  tile.print "v" {hex = false, is_signed = array<i32: 0>} : %v : tensor<4x16xf32>
  tile.return
}

// -----

// Every other element: gathers and scatters of 16 pointers; without a mask
// the mask is all true. All four accesses use the same pointers, so they
// share one vector of pointers, and the two unmasked ones one all-true mask
// (common subexpressions are merged).
// CHECK-LABEL: llvm.func @strided(
// CHECK:         %[[MASK:.+]] = llvm.icmp "slt" %{{[^ ]+}}, %{{[^ ]+}} : vector<16xi32>
// CHECK:         %[[OTHER:.+]] = llvm.mlir.constant(dense<1.000000e+00> : vector<16xf32>) : vector<16xf32>
// CHECK-NEXT:    %[[PTRS:.+]] = llvm.inttoptr %{{.+}} : vector<16xi64> to !llvm.vec<16 x ptr>
// CHECK-NEXT:    %[[V:.+]] = llvm.intr.masked.gather %[[PTRS]], %[[MASK]], %[[OTHER]] {alignment = 4 : i32} : (!llvm.vec<16 x ptr>, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK:         %[[ALL:.+]] = llvm.mlir.constant(dense<true> : vector<16xi1>) : vector<16xi1>
// CHECK-NEXT:    %[[W:.+]] = llvm.intr.masked.gather %[[PTRS]], %[[ALL]], %{{.+}} {alignment = 4 : i32} : (!llvm.vec<16 x ptr>, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    llvm.intr.masked.scatter %[[V]], %[[PTRS]], %[[MASK]] {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.vec<16 x ptr>
// CHECK-NEXT:    llvm.intr.masked.scatter %[[W]], %[[PTRS]], %[[ALL]] {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.vec<16 x ptr>
// CHECK-NOT:     llvm.intr.masked.load
// CHECK-NOT:     llvm.intr.masked.store
tile.func @strided(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c2 = arith.constant dense<2> : tensor<16xi32>
  %o = arith.muli %r, %c2 : tensor<16xi32>
  %ns = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %o, %ns : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %a = tile.addptr %ps, %o : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %other = arith.constant dense<1.0> : tensor<16xf32>
  %v = tile.load %a, %m, %other : tensor<16x!tile.ptr<f32>>
  %w = tile.load %a : tensor<16x!tile.ptr<f32>>
  tile.store %a, %v, %m : tensor<16x!tile.ptr<f32>>
  tile.store %a, %w : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// i1 elements are bytes in memory.
// CHECK-LABEL: llvm.func @bool_load(
// CHECK:         %[[BYTES:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK-NEXT:    llvm.trunc %[[BYTES]] : vector<16xi8> to vector<16xi1>
tile.func @bool_load(%p: !tile.ptr<i1> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<i1> -> tensor<16x!tile.ptr<i1>>
  %a = tile.addptr %ps, %r : tensor<16x!tile.ptr<i1>>, tensor<16xi32>
  %v = tile.load %a : tensor<16x!tile.ptr<i1>>
  tile.print "v" {hex = false, is_signed = array<i32: 0>} : %v : tensor<16xi1>
  tile.return
}

// -----

// Scalar accesses with a mask branch around the access.
// CHECK-LABEL: llvm.func @scalar_masked(
// CHECK-SAME:    %[[P:[^:]+]]: !llvm.ptr, %[[C:[^:]+]]: i1, %[[O:[^:]+]]: f32
// CHECK:         llvm.cond_br %[[C]], ^[[LOAD:bb[0-9]+]], ^[[OTHER:bb[0-9]+]]
// CHECK-NEXT:  ^[[LOAD]]:
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[V]] : f32)
// CHECK-NEXT:  ^[[OTHER]]:
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[O]] : f32)
// CHECK-NEXT:  ^[[JOIN]](%[[X:.+]]: f32):
// Unmasked: a plain load.
// CHECK:         %[[W:.+]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[S:.+]] = llvm.fadd %[[X]], %[[W]] : f32
// CHECK-NEXT:    llvm.cond_br %[[C]], ^[[STORE:bb[0-9]+]], ^[[AFTER:bb[0-9]+]]
// CHECK-NEXT:  ^[[STORE]]:
// CHECK-NEXT:    llvm.store %[[S]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[AFTER]]
// CHECK-NEXT:  ^[[AFTER]]:
// CHECK-NEXT:    llvm.return
tile.func @scalar_masked(%p: !tile.ptr<f32>, %c: i1, %o: f32) {
  %v = tile.load %p, %c, %o : !tile.ptr<f32>
  %w = tile.load %p : !tile.ptr<f32>
  %s = arith.addf %v, %w : f32
  tile.store %p, %s, %c : !tile.ptr<f32>
  tile.return
}

// -----

// Block pointers: {base, [shape], [strides], [offsets]}; advance adds to the
// offsets. A load with boundary_check = [1] compares only dimension 1 and
// reads the padding (here NaN) out of bounds; a store with [0, 1] checks both.
// CHECK-LABEL: llvm.func @block_pointer(
// CHECK-SAME:    %[[BASE:[^:]+]]: !llvm.ptr, %[[M:[^:]+]]: i64, %[[K:[^:]+]]: i64, %[[SM:[^:]+]]: i64, %[[ONE:[^:]+]]: i64, %[[O0:[^:]+]]: i32, %[[O1:[^:]+]]: i32
// CHECK:         %[[U:.+]] = llvm.mlir.undef : !llvm.struct<(ptr, array<2 x i64>, array<2 x i64>, array<2 x i32>)>
// CHECK-NEXT:    %[[B0:.+]] = llvm.insertvalue %[[BASE]], %[[U]][0]
// CHECK-NEXT:    %[[B1:.+]] = llvm.insertvalue %[[M]], %[[B0]][1, 0]
// CHECK-NEXT:    %[[B2:.+]] = llvm.insertvalue %[[K]], %[[B1]][1, 1]
// CHECK-NEXT:    %[[B3:.+]] = llvm.insertvalue %[[SM]], %[[B2]][2, 0]
// CHECK-NEXT:    %[[B4:.+]] = llvm.insertvalue %[[ONE]], %[[B3]][2, 1]
// CHECK-NEXT:    %[[B5:.+]] = llvm.insertvalue %[[O0]], %[[B4]][3, 0]
// CHECK-NEXT:    %[[BP:.+]] = llvm.insertvalue %[[O1]], %[[B5]][3, 1]
// The advance rewrites offset 0 (+ 0), then adds 16 to offset 1, read back
// from that struct (O1).
// CHECK:         %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK:         %[[ADV0:.+]] = llvm.insertvalue %{{.+}}, %[[BP]][3, 0]
// CHECK-NEXT:    %[[OFF1:.+]] = llvm.extractvalue %[[ADV0]][3, 1]
// CHECK-NEXT:    %[[NEXT1:.+]] = llvm.add %[[OFF1]], %[[C16]] overflow<nsw> : i32
// CHECK-NEXT:    %[[ADV:.+]] = llvm.insertvalue %[[NEXT1]], %[[ADV0]][3, 1]
// The load reads base (field 0) and shape K (field 1, 1) from the advanced
// pointer.
// CHECK-DAG:     %[[LBASE:.+]] = llvm.extractvalue %[[ADV]][0]
// CHECK-DAG:     %[[LCOLS:.+]] = llvm.extractvalue %[[ADV]][1, 1]
// CHECK-DAG:     %[[NAN:.+]] = llvm.mlir.constant(0x7E00 : f16) : f16
// CHECK:         %[[GE:.+]] = llvm.icmp "sge" %[[COL:[^ ,]+]], %{{.+}} : i64
// CHECK-NEXT:    %[[LT:.+]] = llvm.icmp "slt" %[[COL]], %[[LCOLS]] : i64
// CHECK-NEXT:    %[[IN:.+]] = llvm.and %[[GE]], %[[LT]] : i1
// The address is the block's part plus the element's.
// CHECK-NEXT:    %[[SUM:.+]] = llvm.add %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:    %[[ADDR:.+]] = llvm.getelementptr %[[LBASE]][%[[SUM]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK:         llvm.cond_br %[[IN]], ^[[READ:bb[0-9]+]], ^[[PAD:bb[0-9]+]]
// CHECK-NEXT:  ^[[READ]]:
// CHECK-NEXT:    %[[V:.+]] = llvm.load %[[ADDR]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[V]] : f16)
// CHECK-NEXT:  ^[[PAD]]:
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[NAN]] : f16)
// The store (through the pointer before the advance) checks rows against M
// (field 1, 0) and columns against K (field 1, 1).
// CHECK-DAG:     %[[SBASE:.+]] = llvm.extractvalue %[[BP]][0]
// CHECK-DAG:     %[[SROWS:.+]] = llvm.extractvalue %[[BP]][1, 0]
// CHECK-DAG:     %[[SCOLS:.+]] = llvm.extractvalue %[[BP]][1, 1]
// CHECK:         %[[RLT:.+]] = llvm.icmp "slt" %{{.+}}, %[[SROWS]] : i64
// CHECK-NEXT:    %[[ROWOK:.+]] = llvm.and %{{.+}}, %[[RLT]] : i1
// CHECK:         %[[CLT:.+]] = llvm.icmp "slt" %{{.+}}, %[[SCOLS]] : i64
// CHECK-NEXT:    %[[COLOK:.+]] = llvm.and %{{.+}}, %[[CLT]] : i1
// CHECK-NEXT:    %[[BOTH:.+]] = llvm.and %[[ROWOK]], %[[COLOK]] : i1
// CHECK-NEXT:    %[[SSUM:.+]] = llvm.add %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:    %[[SADDR:.+]] = llvm.getelementptr %[[SBASE]][%[[SSUM]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK:         llvm.cond_br %[[BOTH]], ^[[WRITE:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[WRITE]]:
// CHECK:         %[[E:.+]] = llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.store %[[E]], %[[SADDR]] {alignment = 2 : i64} : f16, !llvm.ptr
tile.func @block_pointer(%base: !tile.ptr<f16>, %m: i64, %k: i64, %sm: i64, %one: i64, %o0: i32, %o1: i32) {
  %bp = tile.make_tensor_ptr %base, [%m, %k], [%sm, %one], [%o0, %o1] {order = array<i32: 1, 0>} : !tile.ptr<tensor<4x16xf16>>
  %c16 = arith.constant 16 : i32
  %c0 = arith.constant 0 : i32
  %next = tile.advance %bp, [%c0, %c16] : !tile.ptr<tensor<4x16xf16>>
  %blk = tile.load %next {boundary_check = array<i32: 1>, padding = #tile<padding nan>} : !tile.ptr<tensor<4x16xf16>>
  tile.store %bp, %blk {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<4x16xf16>>
  tile.return
}

// -----

// No boundary_check: no compares, no branches.
// CHECK-LABEL: llvm.func @block_pointer_unchecked(
// CHECK-SAME:    %[[BASE:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: i64
// CHECK-NOT:     llvm.icmp "sge"
// CHECK-NOT:     llvm.icmp "slt" %{{.+}}, %[[N]]
// CHECK:         %[[B0:.+]] = llvm.insertvalue %[[BASE]], %{{.+}}[0]
// CHECK-NEXT:    %[[B1:.+]] = llvm.insertvalue %[[N]], %[[B0]][1, 0]
// CHECK-NEXT:    %[[B2:.+]] = llvm.insertvalue %{{.+}}, %[[B1]][2, 0]
// CHECK-NEXT:    %[[BP:.+]] = llvm.insertvalue %{{.+}}, %[[B2]][3, 0]
// The load reads the base back from the struct; shape N bounds nothing, so
// it is not even read back (its unused extractvalue is dead and removed).
// CHECK-NEXT:    %[[LBASE:.+]] = llvm.extractvalue %[[BP]][0]
// CHECK-NOT:     llvm.extractvalue %[[BP]][1, 0]
// CHECK-NOT:     llvm.icmp "sge"
// CHECK-NOT:     llvm.icmp "slt" %{{.+}}, %[[N]]
// CHECK:         %[[ADDR:.+]] = llvm.getelementptr %[[LBASE]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.load %[[ADDR]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NOT:     llvm.extractvalue %[[BP]][1, 0]
// CHECK-NOT:     llvm.icmp "sge"
// CHECK-NOT:     llvm.icmp "slt" %{{.+}}, %[[N]]
// CHECK:         llvm.return
tile.func @block_pointer_unchecked(%base: !tile.ptr<f32>, %n: i64, %s: i64, %o: i32) {
  %bp = tile.make_tensor_ptr %base, [%n], [%s], [%o] {order = array<i32: 0>} : !tile.ptr<tensor<16xf32>>
  %blk = tile.load %bp : !tile.ptr<tensor<16xf32>>
  tile.print "blk" {hex = false, is_signed = array<i32: 0>} : %blk : tensor<16xf32>
  tile.return
}
