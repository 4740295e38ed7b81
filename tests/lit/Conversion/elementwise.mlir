// Elementwise ops (Elementwise.cpp): on tiles they run chunk by chunk as
// vectors of up to 16 lanes; on scalars they stay scalar. Results are stored
// or printed so that every tile is observable.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @scalar_and_tile_arith(
// CHECK-SAME:    %[[OUT:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %[[CTX:[^:]+]]: !llvm.ptr)
// A scalar op stays scalar.
// CHECK:         %[[S:.+]] = llvm.fmul %[[X]], %[[Y]] : f32
// A splat inserts the scalar into lane 0 and shuffles lane 0 everywhere.
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[S]], %{{.+}}[%{{.+}} : i32] : vector<16xf32>
// CHECK-NEXT:    %[[A:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK:         %[[INSB:.+]] = llvm.insertelement %[[Y]], %{{.+}}[%{{.+}} : i32] : vector<16xf32>
// CHECK-NEXT:    %[[B:.+]] = llvm.shufflevector %[[INSB]], %[[INSB]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// The tile op is one vector op of 16 lanes; splats, add and store form one
// chunk group, so the sum goes straight to the store.
// CHECK-NEXT:    %[[C:.+]] = llvm.fadd %[[A]], %[[B]] : vector<16xf32>
// CHECK-NOT:     llvm.fadd
// CHECK:         llvm.store %[[C]], %{{.+}} {alignment = 16 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.return
tile.func @scalar_and_tile_arith(%out: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %x: f32, %y: f32) {
  %s = arith.mulf %x, %y : f32
  %a = tile.splat %s : f32 -> tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  %c = arith.addf %a, %b : tensor<16xf32>
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ps = tile.splat %out : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %ptrs, %c : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// A tile of more than 16 elements is a loop over chunks of 16; the splat and
// the math op it feeds run in the same loop (one chunk group), the chunk kept
// in registers and only the printed result stored.
// CHECK-LABEL: llvm.func @chunk_loop(
// CHECK:         %[[BEGIN:.+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[END:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT:    %[[STEP:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%[[BEGIN]] : i64)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.+]]: i64):
// CHECK-NEXT:    %[[MORE:.+]] = llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NOT:     llvm.load
// CHECK:         %[[INS:.+]] = llvm.insertelement %{{.+}} : vector<16xf32>
// CHECK-NEXT:    %[[SPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// Math ops on tiles are vector intrinsics.
// CHECK-NEXT:    %[[E:.+]] = llvm.intr.exp(%[[SPLAT]]) : (vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    %[[AT:.+]] = llvm.getelementptr %{{.+}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[E]], %[[AT]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.+]] = llvm.add %[[I]], %[[STEP]] : i64
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i64)
// CHECK-NOT:     llvm.intr.exp
tile.func @chunk_loop(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  tile.print "e" {hex = false, is_signed = array<i32: 0>} : %e : tensor<64xf32>
  tile.return
}

// -----

// Chunks are as wide as the tile when it has fewer than 16 elements, and
// scalars for a one-element tile.
// CHECK-LABEL: llvm.func @narrow_tiles(
// CHECK:         llvm.add %{{[^ ]+}}, %{{[^ ]+}} : vector<8xi32>
// CHECK:         llvm.fsub %{{[^ ]+}}, %{{[^ ]+}} : vector<2xf64>
// CHECK:         llvm.fmul %{{[^ ]+}}, %{{[^ ]+}} : f32
tile.func @narrow_tiles(%i: i32, %d: f64, %f: f32) {
  %a = tile.splat %i : i32 -> tensor<2x4xi32>
  %b = arith.addi %a, %a : tensor<2x4xi32>
  tile.print "b" {hex = false, is_signed = array<i32: 1>} : %b : tensor<2x4xi32>
  %c = tile.splat %d : f64 -> tensor<2xf64>
  %e = arith.subf %c, %c : tensor<2xf64>
  tile.print "e" {hex = false, is_signed = array<i32: 0>} : %e : tensor<2xf64>
  %g = tile.splat %f : f32 -> tensor<1xf32>
  %h = arith.mulf %g, %g : tensor<1xf32>
  tile.print "h" {hex = false, is_signed = array<i32: 0>} : %h : tensor<1xf32>
  tile.return
}

// -----

// make_range: lane j of the chunk at element k is start + k + j.
// CHECK-LABEL: llvm.func @make_range(
// CHECK:         ^{{bb[0-9]+}}(%[[K:.+]]: i64):
// CHECK:         %[[K32:.+]] = llvm.trunc %[[K]] : i64 to i32
// CHECK-NEXT:    %[[START:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[FIRST:.+]] = llvm.add %[[K32]], %[[START]] : i32
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[FIRST]], %{{.+}} : vector<16xi32>
// CHECK-NEXT:    %[[SPLAT:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xi32>
// CHECK-NEXT:    %[[IOTA:.+]] = llvm.mlir.constant(dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    llvm.add %[[SPLAT]], %[[IOTA]] : vector<16xi32>
tile.func @make_range() {
  %r = tile.make_range {start = 16 : i32, end = 48 : i32} : tensor<32xi32>
  tile.print "r" {hex = false, is_signed = array<i32: 1>} : %r : tensor<32xi32>
  tile.return
}

// -----

// bf16 arithmetic goes through f32: widen by moving the bits to the top half,
// compute in f32, round to nearest even (bits + 0x7FFF + lsb, top half) with
// NaN kept a quiet NaN (0x7FC0).
// CHECK-LABEL: llvm.func @bf16_tile(
// CHECK:         %[[AB:.+]] = llvm.bitcast %{{.+}} : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:    %[[AW:.+]] = llvm.zext %[[AB]] : vector<16xi16> to vector<16xi32>
// CHECK-NEXT:    %[[S16:.+]] = llvm.mlir.constant(dense<16> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[AS:.+]] = llvm.shl %[[AW]], %[[S16]] : vector<16xi32>
// CHECK-NEXT:    %[[A:.+]] = llvm.bitcast %[[AS]] : vector<16xi32> to vector<16xf32>
// CHECK:         %[[B:.+]] = llvm.bitcast %{{.+}} : vector<16xi32> to vector<16xf32>
// CHECK-NEXT:    %[[SUM:.+]] = llvm.fadd %[[A]], %[[B]] : vector<16xf32>
// CHECK-NEXT:    %[[BITS:.+]] = llvm.bitcast %[[SUM]] : vector<16xf32> to vector<16xi32>
// CHECK:         %[[SH:.+]] = llvm.lshr %[[BITS]], %{{.+}} : vector<16xi32>
// CHECK-NEXT:    %[[ONE:.+]] = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[LSB:.+]] = llvm.and %[[SH]], %[[ONE]] : vector<16xi32>
// CHECK-NEXT:    %[[BIAS:.+]] = llvm.mlir.constant(dense<32767> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[R0:.+]] = llvm.add %[[BITS]], %[[BIAS]] : vector<16xi32>
// CHECK-NEXT:    %[[R1:.+]] = llvm.add %[[R0]], %[[LSB]] : vector<16xi32>
// CHECK:         %[[TOP:.+]] = llvm.lshr %[[R1]], %{{.+}} : vector<16xi32>
// CHECK-NEXT:    %[[ISNAN:.+]] = llvm.fcmp "uno" %[[SUM]], %[[SUM]] : vector<16xf32>
// CHECK-NEXT:    %[[QNAN:.+]] = llvm.mlir.constant(dense<32704> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[SEL:.+]] = llvm.select %[[ISNAN]], %[[QNAN]], %[[TOP]] : vector<16xi1>, vector<16xi32>
// CHECK-NEXT:    %[[HALF:.+]] = llvm.trunc %[[SEL]] : vector<16xi32> to vector<16xi16>
// CHECK-NEXT:    llvm.bitcast %[[HALF]] : vector<16xi16> to vector<16xbf16>
// CHECK-NOT:     llvm.fadd {{.*}}bf16
tile.func @bf16_tile(%x: bf16, %y: bf16) {
  %a = tile.splat %x : bf16 -> tensor<16xbf16>
  %b = tile.splat %y : bf16 -> tensor<16xbf16>
  %c = arith.addf %a, %b : tensor<16xbf16>
  tile.print "c" {hex = false, is_signed = array<i32: 0>} : %c : tensor<16xbf16>
  tile.return
}

// -----

// The same on scalars.
// CHECK-LABEL: llvm.func @bf16_scalar(
// CHECK-SAME:    %[[X:[^:]+]]: bf16, %[[Y:[^:]+]]: bf16
// CHECK:         llvm.bitcast %[[X]] : bf16 to i16
// CHECK:         llvm.bitcast %[[Y]] : bf16 to i16
// CHECK:         %[[P:.+]] = llvm.fmul %{{[^ ]+}}, %{{[^ ]+}} : f32
// CHECK:         llvm.mlir.constant(32767 : i32) : i32
// CHECK:         llvm.fcmp "uno" %[[P]], %[[P]] : f32
// CHECK:         llvm.mlir.constant(32704 : i32) : i32
// CHECK:         %[[H:.+]] = llvm.trunc %{{.+}} : i32 to i16
// CHECK-NEXT:    %[[R:.+]] = llvm.bitcast %[[H]] : i16 to bf16
// CHECK-NEXT:    llvm.store %[[R]], %{{.+}} {alignment = 2 : i64} : bf16, !llvm.ptr
tile.func @bf16_scalar(%x: bf16, %y: bf16, %p: !tile.ptr<bf16>) {
  %z = arith.mulf %x, %y : bf16
  tile.store %p, %z : !tile.ptr<bf16>
  tile.return
}

// -----

// Integer division never traps: a zero divisor becomes 1, and for signed
// division -1 becomes 1 with the result replaced by 0 - x; the guards come
// before the division.
// CHECK-LABEL: llvm.func @int_division(
// CHECK-SAME:    %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(dense<0> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[ONE:.+]] = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[ISZ:.+]] = llvm.icmp "eq" %[[YV:[^ ,]+]], %[[ZERO]] : vector<16xi32>
// CHECK-NEXT:    %[[D0:.+]] = llvm.select %[[ISZ]], %[[ONE]], %[[YV]] : vector<16xi1>, vector<16xi32>
// CHECK-NEXT:    %[[M1:.+]] = llvm.mlir.constant(dense<-1> : vector<16xi32>) : vector<16xi32>
// CHECK-NEXT:    %[[ISM:.+]] = llvm.icmp "eq" %[[YV]], %[[M1]] : vector<16xi32>
// CHECK-NEXT:    %[[D1:.+]] = llvm.select %[[ISM]], %[[ONE]], %[[D0]] : vector<16xi1>, vector<16xi32>
// CHECK-NEXT:    %[[Q:.+]] = llvm.sdiv %[[XV:[^ ,]+]], %[[D1]] : vector<16xi32>
// CHECK-NEXT:    %[[NEG:.+]] = llvm.sub %[[ZERO]], %[[XV]] : vector<16xi32>
// CHECK-NEXT:    llvm.select %[[ISM]], %[[NEG]], %[[Q]] : vector<16xi1>, vector<16xi32>
// A signed remainder by -1 is 0. Its guards reuse the division's 0, 1 and -1
// constants (common subexpressions are merged).
// CHECK:         %[[RISZ:.+]] = llvm.icmp "eq" %[[RYV:[^ ,]+]], %[[ZERO]] : vector<16xi32>
// CHECK-NEXT:    %[[RD0:.+]] = llvm.select %[[RISZ]], %[[ONE]], %[[RYV]] : vector<16xi1>, vector<16xi32>
// CHECK-NEXT:    %[[RISM:.+]] = llvm.icmp "eq" %[[RYV]], %[[M1]] : vector<16xi32>
// CHECK-NEXT:    %[[RD:.+]] = llvm.select %[[RISM]], %[[ONE]], %[[RD0]] : vector<16xi1>, vector<16xi32>
// CHECK-NEXT:    %[[REM:.+]] = llvm.srem %{{[^ ,]+}}, %[[RD]] : vector<16xi32>
// CHECK-NEXT:    llvm.select %[[RISM]], %[[ZERO]], %[[REM]] : vector<16xi1>, vector<16xi32>
// Unsigned division on a scalar: only the zero guard.
// CHECK:         %[[SZ:.+]] = llvm.icmp "eq" %[[Y]], %{{.+}} : i32
// CHECK-NEXT:    %[[SD:.+]] = llvm.select %[[SZ]], %{{.+}}, %[[Y]] : i1, i32
// CHECK-NEXT:    llvm.udiv %[[X]], %[[SD]] : i32
// CHECK-NOT:     llvm.icmp "eq" %[[Y]]
tile.func @int_division(%x: i32, %y: i32, %p: !tile.ptr<i32>) {
  %a = tile.splat %x : i32 -> tensor<16xi32>
  %b = tile.splat %y : i32 -> tensor<16xi32>
  %c = arith.divsi %a, %b : tensor<16xi32>
  tile.print "c" {hex = false, is_signed = array<i32: 1>} : %c : tensor<16xi32>
  %d = arith.remsi %a, %b : tensor<16xi32>
  tile.print "d" {hex = false, is_signed = array<i32: 1>} : %d : tensor<16xi32>
  %e = arith.divui %x, %y : i32
  tile.store %p, %e : !tile.ptr<i32>
  tile.return
}

// -----

// Tile constants: a uniform one is a vector constant per chunk, a non-uniform
// one is stored element by element; i1 tiles are bytes in memory.
// CHECK-LABEL: llvm.func @tile_constants(
// CHECK:         %[[SPLAT:.+]] = llvm.mlir.constant(dense<2.500000e+00> : vector<16xf32>) : vector<16xf32>
// CHECK-NEXT:    llvm.store %[[SPLAT]], %{{.+}} {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:         %[[C1:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.store %[[C1]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[C2:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK:         llvm.store %[[C2]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[C3:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         llvm.store %[[C3]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[C4:.+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         llvm.store %[[C4]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         %[[TRUE:.+]] = llvm.mlir.constant(dense<1> : vector<16xi8>) : vector<16xi8>
// CHECK-NEXT:    llvm.store %[[TRUE]], %{{.+}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr
tile.func @tile_constants() {
  %f = arith.constant dense<2.5> : tensor<16xf32>
  tile.print "f" {hex = false, is_signed = array<i32: 0>} : %f : tensor<16xf32>
  %i = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  tile.print "i" {hex = false, is_signed = array<i32: 1>} : %i : tensor<4xi32>
  %b = arith.constant dense<true> : tensor<16xi1>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<16xi1>
  tile.return
}

// -----

// A comparison gives a vector of i1, stored as bytes; a select on a scalar
// condition splats the condition.
// CHECK-LABEL: llvm.func @masks_and_select(
// CHECK-SAME:    %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[C:[^:]+]]: i1
// CHECK:         %[[CMP:.+]] = llvm.fcmp "olt" %{{[^ ]+}}, %{{[^ ]+}} : vector<16xf32>
// CHECK-NEXT:    %[[BYTES:.+]] = llvm.zext %[[CMP]] : vector<16xi1> to vector<16xi8>
// CHECK-NEXT:    llvm.store %[[BYTES]], %{{.+}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr
// CHECK:         %[[INS:.+]] = llvm.insertelement %[[C]], %{{.+}} : vector<16xi1>
// CHECK-NEXT:    %[[COND:.+]] = llvm.shufflevector %[[INS]], %[[INS]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xi1>
// CHECK:         llvm.select %[[COND]], %{{[^ ]+}}, %{{[^ ]+}} : vector<16xi1>, vector<16xf32>
tile.func @masks_and_select(%x: f32, %y: f32, %c: i1) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  %lt = arith.cmpf olt, %a, %b : tensor<16xf32>
  tile.print "lt" {hex = false, is_signed = array<i32: 0>} : %lt : tensor<16xi1>
  %s = arith.select %c, %a, %b : tensor<16xf32>
  tile.print "s" {hex = false, is_signed = array<i32: 0>} : %s : tensor<16xf32>
  tile.return
}

// -----

// umulhi: widen, multiply, shift the high half down, truncate.
// CHECK-LABEL: llvm.func @umulhi(
// CHECK-SAME:    %[[X:[^:]+]]: i64, %[[Y:[^:]+]]: i64
// CHECK:         %[[A:.+]] = llvm.zext %{{.+}} : vector<16xi32> to vector<16xi64>
// CHECK-NEXT:    %[[B:.+]] = llvm.zext %{{.+}} : vector<16xi32> to vector<16xi64>
// CHECK-NEXT:    %[[P:.+]] = llvm.mul %[[A]], %[[B]] : vector<16xi64>
// CHECK-NEXT:    %[[S:.+]] = llvm.mlir.constant(dense<32> : vector<16xi64>) : vector<16xi64>
// CHECK-NEXT:    %[[H:.+]] = llvm.lshr %[[P]], %[[S]] : vector<16xi64>
// CHECK-NEXT:    llvm.trunc %[[H]] : vector<16xi64> to vector<16xi32>
// CHECK:         %[[SA:.+]] = llvm.zext %[[X]] : i64 to i128
// CHECK-NEXT:    %[[SB:.+]] = llvm.zext %[[Y]] : i64 to i128
// CHECK-NEXT:    %[[SP:.+]] = llvm.mul %[[SA]], %[[SB]] : i128
// CHECK-NEXT:    %[[SS:.+]] = llvm.mlir.constant(64 : i128) : i128
// CHECK-NEXT:    %[[SH:.+]] = llvm.lshr %[[SP]], %[[SS]] : i128
// CHECK-NEXT:    llvm.trunc %[[SH]] : i128 to i64
tile.func @umulhi(%a: i32, %b: i32, %x: i64, %y: i64, %p: !tile.ptr<i64>) {
  %sa = tile.splat %a : i32 -> tensor<16xi32>
  %sb = tile.splat %b : i32 -> tensor<16xi32>
  %h = tile.umulhi %sa, %sb : tensor<16xi32>
  tile.print "h" {hex = false, is_signed = array<i32: 0>} : %h : tensor<16xi32>
  %s = tile.umulhi %x, %y : i64
  tile.store %p, %s : !tile.ptr<i64>
  tile.return
}

// -----

// Pointer tiles are i64 addresses: a splat of a pointer is ptrtoint, addptr
// adds the offsets (sign-extended to i64) times the element size.
// CHECK-LABEL: llvm.func @pointer_arith(
// CHECK-SAME:    %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr
// CHECK:         %[[PI:.+]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK-NEXT:    llvm.mlir.poison : vector<16xi64>
// CHECK:         %[[OFF:.+]] = llvm.sext %{{.+}} : vector<16xi32> to vector<16xi64>
// CHECK-NEXT:    %[[SIZE:.+]] = llvm.mlir.constant(dense<2> : vector<16xi64>) : vector<16xi64>
// CHECK-NEXT:    %[[BYTES:.+]] = llvm.mul %[[OFF]], %[[SIZE]] : vector<16xi64>
// CHECK-NEXT:    llvm.add %{{.+}}, %[[BYTES]] : vector<16xi64>
// Bytes: no multiplication; i64 offsets: no extension.
// CHECK:         llvm.ptrtoint %[[Q]] : !llvm.ptr to i64
// CHECK-NOT:     llvm.sext
// CHECK-NOT:     llvm.mul
// CHECK:         llvm.add %{{[^ ]+}}, %{{[^ ]+}} : vector<16xi64>
// CHECK:         llvm.return
tile.func @pointer_arith(%p: !tile.ptr<f16>, %q: !tile.ptr<i8>, %v: f16, %b: i8) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x!tile.ptr<f16>>
  %pa = tile.addptr %ps, %r : tensor<16x!tile.ptr<f16>>, tensor<16xi32>
  %vs = tile.splat %v : f16 -> tensor<16xf16>
  tile.store %pa, %vs : tensor<16x!tile.ptr<f16>>
  %r64 = arith.extsi %r : tensor<16xi32> to tensor<16xi64>
  %qs = tile.splat %q : !tile.ptr<i8> -> tensor<16x!tile.ptr<i8>>
  %qa = tile.addptr %qs, %r64 : tensor<16x!tile.ptr<i8>>, tensor<16xi64>
  %bs = tile.splat %b : i8 -> tensor<16xi8>
  tile.store %qa, %bs : tensor<16x!tile.ptr<i8>>
  tile.return
}
