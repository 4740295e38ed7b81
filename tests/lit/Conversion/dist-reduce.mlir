// Distributed lowering of tile.reduce (DistReduceScan.cpp): first the
// registers of a thread that differ only along the axis are combined in
// register order, then the lanes along the axis by butterfly shuffles
// (@test_shuffle_xor with offset 1 << lane bit, lowest bit first: 1, 2, 4,
// 8, 16 when all 32 lanes are along the axis), then the warps along the axis
// through shared memory (each warp's partial in its slot, barrier, every
// thread combines the slots in order, barrier). Warps that are all along
// another axis need no shared memory and no barrier. A multi-operand reduce
// (argmax: value, index) shuffles and stages every operand (one shuffle
// declaration per type). Scalar results are stored by thread 0 only.
// @row_sum loads its operand through a distinct address per register, so its
// registers are distinct loads and the in-register combination order is
// visible. The other tests load theirs through a splat pointer, so every
// register loads the same address: common subexpressions being merged, that
// is one load, and identical in-register chains of different groups are one
// chain; the shuffles (calls) are not merged.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

// Sum of each row of 2x512: a thread holds 4 consecutive columns of both
// rows (8 registers, 2 groups), the 32 lanes and the 4 warps are along the
// reduced axis. Element (row, col) is loaded from %x + row * 512 + col.
// Shared memory: 4 slots x 2 rows x f32 = 32 bytes.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#s0 = #tile.slice<{dim = 0, parent = #b}>
#s1 = #tile.slice<{dim = 1, parent = #b}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 32 : i64
// CHECK:       llvm.func @row_sum(
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The thread's column: lane bits 0-4 are columns 4..64 and warp bits 0-1
// columns 128, 256, so (lane << 2) | ((warp & 3) << 7).
// CHECK-NEXT:    %[[K2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[LC:[0-9]+]] = llvm.shl %[[LANE]], %[[K2]] : i32
// CHECK-NEXT:    %[[K3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[K3]] : i32
// CHECK-NEXT:    %[[K7:[0-9]+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[WC:[0-9]+]] = llvm.shl %[[WM]], %[[K7]] : i32
// CHECK-NEXT:    %[[COL:[0-9]+]] = llvm.or %[[LC]], %[[WC]] : i32
// The registers' offsets: row 0 is registers 0-3 (col, col + 1, 2, 3), row 1
// registers 4-7 (the same + 512).
// CHECK:         %[[K512:[0-9]+]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT:    %[[K1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[O1:[0-9]+]] = llvm.add %[[COL]], %[[K1]] : i32
// CHECK-NEXT:    %[[O2:[0-9]+]] = llvm.add %[[COL]], %[[K2]] : i32
// CHECK-NEXT:    %[[O3:[0-9]+]] = llvm.add %[[COL]], %[[K3]] : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.add %[[COL]], %[[K512]] : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.add %[[O1]], %[[K512]] : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.add %[[O2]], %[[K512]] : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.add %[[O3]], %[[K512]] : i32
// The 8 loads, one per register, in register order.
// CHECK:         %[[X0:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X1:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X2:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X3:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X4:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X5:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X6:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X7:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// In registers, each row in register order: row 0 is ((x0 + x1) + x2) + x3,
// then row 1 ((x4 + x5) + x6) + x7.
// CHECK-NEXT:    %[[A0:[0-9]+]] = llvm.fadd %[[X0]], %[[X1]] : f32
// CHECK-NEXT:    %[[A1:[0-9]+]] = llvm.fadd %[[A0]], %[[X2]] : f32
// CHECK-NEXT:    %[[R0:[0-9]+]] = llvm.fadd %[[A1]], %[[X3]] : f32
// CHECK-NEXT:    %[[B0:[0-9]+]] = llvm.fadd %[[X4]], %[[X5]] : f32
// CHECK-NEXT:    %[[B1:[0-9]+]] = llvm.fadd %[[B0]], %[[X6]] : f32
// CHECK-NEXT:    %[[R1:[0-9]+]] = llvm.fadd %[[B1]], %[[X7]] : f32
// Across the lanes: offsets 1, 2, 4, 8, 16, each for row 0 then row 1 (the
// two rows' shuffles share each offset constant; 1 and 2 are those already
// defined for the addresses).
// CHECK-NEXT:    %[[S0:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R0]], %[[K1]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R0_1:[0-9]+]] = llvm.fadd %[[R0]], %[[S0]] : f32
// CHECK-NEXT:    %[[S1:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R1]], %[[K1]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R1_1:[0-9]+]] = llvm.fadd %[[R1]], %[[S1]] : f32
// CHECK-NEXT:    %[[S2:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R0_1]], %[[K2]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R0_2:[0-9]+]] = llvm.fadd %[[R0_1]], %[[S2]] : f32
// CHECK-NEXT:    %[[S3:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R1_1]], %[[K2]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R1_2:[0-9]+]] = llvm.fadd %[[R1_1]], %[[S3]] : f32
// CHECK-NEXT:    %[[K4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[S4:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R0_2]], %[[K4]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R0_3:[0-9]+]] = llvm.fadd %[[R0_2]], %[[S4]] : f32
// CHECK-NEXT:    %[[S5:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R1_2]], %[[K4]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R1_3:[0-9]+]] = llvm.fadd %[[R1_2]], %[[S5]] : f32
// CHECK-NEXT:    %[[K8:[0-9]+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    %[[S6:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R0_3]], %[[K8]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R0_4:[0-9]+]] = llvm.fadd %[[R0_3]], %[[S6]] : f32
// CHECK-NEXT:    %[[S7:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R1_3]], %[[K8]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[R1_4:[0-9]+]] = llvm.fadd %[[R1_3]], %[[S7]] : f32
// CHECK-NEXT:    %[[K16:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[S8:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R0_4]], %[[K16]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[W0:[0-9]+]] = llvm.fadd %[[R0_4]], %[[S8]] : f32
// CHECK-NEXT:    %[[S9:[0-9]+]] = llvm.call @test_shuffle_xor(%[[R1_4]], %[[K16]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[W1:[0-9]+]] = llvm.fadd %[[R1_4]], %[[S9]] : f32
// CHECK-NOT:     @test_shuffle_xor
// Across the warps: slot = warp bits 0 and 1, (warp & 1) | ((warp >> 1) & 1)
// << 1; the partial of row r goes to element slot * 2 + r (the 1s and the
// 2 are the constants above).
// CHECK-NEXT:    %[[WB0:[0-9]+]] = llvm.and %[[WARP]], %[[K1]] : i32
// CHECK-NEXT:    %[[WS1:[0-9]+]] = llvm.lshr %[[WARP]], %[[K1]] : i32
// CHECK-NEXT:    %[[WB1:[0-9]+]] = llvm.and %[[WS1]], %[[K1]] : i32
// CHECK-NEXT:    %[[WB1S:[0-9]+]] = llvm.shl %[[WB1]], %[[K1]] : i32
// CHECK-NEXT:    %[[SLOT:[0-9]+]] = llvm.or %[[WB0]], %[[WB1S]] : i32
// CHECK-NEXT:    %[[AT0:[0-9]+]] = llvm.mul %[[SLOT]], %[[K2]] : i32
// CHECK-NEXT:    %[[P0:[0-9]+]] = llvm.getelementptr %[[SHM:[0-9]+]][%[[AT0]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[W0]], %[[P0]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[AT1:[0-9]+]] = llvm.add %[[AT0]], %[[K1]] : i32
// CHECK-NEXT:    %[[P1:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[AT1]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[W1]], %[[P1]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// Row 0: slots 0..3 are elements 0, 2, 4, 6.
// CHECK-NEXT:    %[[L0:[0-9]+]] = llvm.load %[[SHM]] : !llvm.ptr -> f32
// CHECK:         %[[L1:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.fadd %[[L0]], %[[L1]] : f32
// CHECK:         llvm.load
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.fadd %[[C1]], %{{[0-9]+}} : f32
// CHECK:         llvm.load
// CHECK-NEXT:    %[[ROW0:[0-9]+]] = llvm.fadd %[[C2]], %{{[0-9]+}} : f32
// Row 1: the same from element 1.
// CHECK-COUNT-3: llvm.fadd
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NOT:     @test_barrier
// The result (slice layout, both rows in every thread) is stored by lane 0
// of warp 0: one 8-byte access of both rows.
// CHECK:         llvm.insertelement %[[ROW0]]
// CHECK:         llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr
// CHECK:         llvm.return
tile.func @row_sum(%x: !tile.ptr<f32>, %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #s1>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<2xi32, #s1> -> tensor<2x1xi32, #b>
  %c512 = arith.constant dense<512> : tensor<2x1xi32, #b>
  %ro = arith.muli %re, %c512 : tensor<2x1xi32, #b>
  %rb = tile.broadcast %ro : tensor<2x1xi32, #b> -> tensor<2x512xi32, #b>
  %c = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #s0>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<512xi32, #s0> -> tensor<1x512xi32, #b>
  %cb = tile.broadcast %ce : tensor<1x512xi32, #b> -> tensor<2x512xi32, #b>
  %off = arith.addi %rb, %cb : tensor<2x512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<2x512x!tile.ptr<f32>, #b>
  %xa = tile.addptr %xs, %off : tensor<2x512x!tile.ptr<f32>, #b>, tensor<2x512xi32, #b>
  %v = tile.load %xa : tensor<2x512x!tile.ptr<f32>, #b>
  %sum = "tile.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %a = arith.addf %l, %rr : f32
    tile.reduce.return %a : f32
  }) : (tensor<2x512xf32, #b>) -> tensor<2xf32, #s1>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<2x!tile.ptr<f32>, #s1>
  %oa = tile.addptr %os, %r : tensor<2x!tile.ptr<f32>, #s1>, tensor<2xi32, #s1>
  tile.store %oa, %sum : tensor<2x!tile.ptr<f32>, #s1>
  tile.return
}
}

// -----

// Row maximum of 64x32 with 8 lanes along the rows and all 4 warps along the
// columns: 4 rows per thread (4 groups of 4 registers), shuffle offsets
// 1, 2, 4 only, and no shared memory or barrier. expand_dims + broadcast of
// the result back to the operand's layout stay in registers.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s1 = #tile.slice<{dim = 1, parent = #b}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// CHECK-NOT:   @test_barrier
// CHECK:       llvm.func @row_max(
// The 16 registers are one load, so the 4 groups' in-register chains,
// max(max(max(x, x), x), x), are one; folding during the conversion leaves
// two of its three steps.
// CHECK:         %[[X:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[A:[0-9]+]] = llvm.intr.maxnum(%[[X]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[G:[0-9]+]] = llvm.intr.maxnum(%[[A]], %[[X]]) : (f32, f32) -> f32
// Offset 1, 2, then 4, each once per group (4 groups).
// CHECK-NEXT:    %[[K1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[S1:[0-9]+]] = llvm.call @test_shuffle_xor(%[[G]], %[[K1]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[G1:[0-9]+]] = llvm.intr.maxnum(%[[G]], %[[S1]]) : (f32, f32) -> f32
// CHECK-COUNT-3: llvm.call @test_shuffle_xor(%[[G]], %[[K1]]) : (f32, i32) -> f32
// CHECK:         %[[K2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[S2:[0-9]+]] = llvm.call @test_shuffle_xor(%[[G1]], %[[K2]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[G2:[0-9]+]] = llvm.intr.maxnum(%[[G1]], %[[S2]]) : (f32, f32) -> f32
// CHECK-COUNT-3: llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K2]]) : (f32, i32) -> f32
// CHECK:         %[[K4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[S4:[0-9]+]] = llvm.call @test_shuffle_xor(%[[G2]], %[[K4]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[M0:[0-9]+]] = llvm.intr.maxnum(%[[G2]], %[[S4]]) : (f32, f32) -> f32
// CHECK-COUNT-3: llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K4]]) : (f32, i32) -> f32
// CHECK-NOT:     @test_shuffle_xor
// CHECK-NOT:     @test_barrier
// The subtraction reads the row maximum from registers.
// CHECK:         llvm.fsub %[[X]], %[[M0]] : f32
// CHECK-NOT:     @test_barrier
// CHECK:         llvm.return
tile.func @row_max(%p: !tile.ptr<f32>) {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<64x32x!tile.ptr<f32>, #b>
  %m = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %mx = arith.maxnumf %l, %rr : f32
    tile.reduce.return %mx : f32
  }) : (tensor<64x32xf32, #b>) -> tensor<64xf32, #s1>
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #s1> -> tensor<64x1xf32, #b>
  %mb = tile.broadcast %me : tensor<64x1xf32, #b> -> tensor<64x32xf32, #b>
  %y = arith.subf %x, %mb : tensor<64x32xf32, #b>
  tile.store %ps, %y : tensor<64x32x!tile.ptr<f32>, #b>
  tile.return
}
}

// -----

// A 1-D tile to a scalar: 8 registers (one group), 5 shuffles, 4 warp slots
// (16 bytes). The scalar result is stored by thread 0 only, between
// barriers.
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 16 : i64
// CHECK:       llvm.func @total(
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// The 8 registers are one load, summed in registers by 7 adds.
// CHECK:         %[[X:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.fadd %[[X]], %[[X]] : f32
// CHECK-COUNT-6: llvm.fadd %{{[0-9]+}}, %[[X]] : f32
// CHECK-NEXT:    %[[K1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K1]]) : (f32, i32) -> f32
// CHECK-NEXT:    llvm.fadd
// CHECK-NEXT:    %[[K2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K2]]) : (f32, i32) -> f32
// CHECK-NEXT:    llvm.fadd
// CHECK-NEXT:    %[[K4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K4]]) : (f32, i32) -> f32
// CHECK-NEXT:    llvm.fadd
// CHECK-NEXT:    %[[K8:[0-9]+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K8]]) : (f32, i32) -> f32
// CHECK-NEXT:    llvm.fadd
// CHECK-NEXT:    %[[K16:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K16]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[WSUM:[0-9]+]] = llvm.fadd
// CHECK-NOT:     @test_shuffle_xor
// CHECK:         llvm.store %[[WSUM]], %{{[0-9]+}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-COUNT-3: llvm.fadd
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT:    llvm.cond_br %[[FIRST]], ^[[ST:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST]]:
// CHECK-NEXT:    llvm.store %{{[0-9]+}}, %{{[^ ]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK-NOT:     @test_barrier
// CHECK:         llvm.return
tile.func @total(%a: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %x = tile.load %as : tensor<1024x!tile.ptr<f32>, #b>
  %s = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %sum = arith.addf %l, %rr : f32
    tile.reduce.return %sum : f32
  }) : (tensor<1024xf32, #b>) -> f32
  tile.store %out, %s : !tile.ptr<f32>
  tile.return
}
}

// -----

// argmax: (value f32, index i32) pairs. Every butterfly step shuffles both
// (f32 through @test_shuffle_xor, i32 through @test_shuffle_xor_1); the warp
// stage stages values at byte 0 and indices at byte 16 (4 slots each):
// 32 bytes.
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 32 : i64
// CHECK-DAG:   llvm.func @test_shuffle_xor(f32, i32) -> f32
// CHECK-DAG:   llvm.func @test_shuffle_xor_1(i32, i32) -> i32
// CHECK:       llvm.func @argmax(
// The index (make_range in the prologue): the lane bits (their field, lane
// & 31, is the lane itself) or'ed with the warp bits as bits 5-6,
// (warp & 3) << 5.
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// CHECK-NEXT:    %[[C3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK-NEXT:    %[[WF:[0-9]+]] = llvm.shl %[[WM]], %[[C5]] : i32
// CHECK-NEXT:    %[[I:[0-9]+]] = llvm.or %[[LANE]], %[[WF]] : i32
// CHECK:         %[[V:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[K1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[V1:[0-9]+]] = llvm.call @test_shuffle_xor(%[[V]], %[[K1]]) : (f32, i32) -> f32
// CHECK-NEXT:    %[[I1:[0-9]+]] = llvm.call @test_shuffle_xor_1(%[[I]], %[[K1]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[GT:[0-9]+]] = llvm.fcmp "ogt" %[[V]], %[[V1]] : f32
// CHECK-NEXT:    %[[EQ:[0-9]+]] = llvm.fcmp "oeq" %[[V]], %[[V1]] : f32
// CHECK-NEXT:    %[[LT:[0-9]+]] = llvm.icmp "slt" %[[I]], %[[I1]] : i32
// CHECK-NEXT:    %[[TIE:[0-9]+]] = llvm.and %[[EQ]], %[[LT]] : i1
// CHECK-NEXT:    %[[TAKE:[0-9]+]] = llvm.or %[[GT]], %[[TIE]] : i1
// CHECK-NEXT:    llvm.select %[[TAKE]], %[[V]], %[[V1]] : i1, f32
// CHECK-NEXT:    llvm.select %[[TAKE]], %[[I]], %[[I1]] : i1, i32
// CHECK-COUNT-4: llvm.call @test_shuffle_xor_1(
// CHECK:         %[[VF:[0-9]+]] = llvm.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i1, f32
// CHECK-NEXT:    %[[IF:[0-9]+]] = llvm.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i1, i32
// CHECK-NOT:     @test_shuffle_xor
// CHECK:         llvm.store %[[VF]], %{{[0-9]+}} : f32, !llvm.ptr
// CHECK-NEXT:    %[[IDX:[0-9]+]] = llvm.getelementptr %{{[0-9]+}}[16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[IAT:[0-9]+]] = llvm.getelementptr %[[IDX]][%{{[0-9]+}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[IF]], %[[IAT]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// 4 slots, each a value and an index.
// CHECK-COUNT-4: llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK:         %[[RES:[0-9]+]] = llvm.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i1, i32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK:         llvm.cond_br
// CHECK:         llvm.store %[[RES]], %{{[^ ]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.return
tile.func @argmax(%p: !tile.ptr<f32>, %out: !tile.ptr<i32>) {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<128x!tile.ptr<f32>, #b>
  %i = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b>
  %r:2 = "tile.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%v1: f32, %i1: i32, %v2: f32, %i2: i32):
    %gt = arith.cmpf ogt, %v1, %v2 : f32
    %eq = arith.cmpf oeq, %v1, %v2 : f32
    %lt = arith.cmpi slt, %i1, %i2 : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %v1, %v2 : f32
    %j = arith.select %take, %i1, %i2 : i32
    tile.reduce.return %v, %j : f32, i32
  }) : (tensor<128xf32, #b>, tensor<128xi32, #b>) -> (f32, i32)
  tile.store %out, %r#1 : !tile.ptr<i32>
  tile.return
}
}
