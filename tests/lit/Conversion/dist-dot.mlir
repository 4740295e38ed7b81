// Distributed lowering of tile.dot with a blocked result (DistDot.cpp): the
// operands are brought to the dot-operand layouts of the result's layout
// (here by explicit convert_layouts, through shared memory), where a thread
// holds its whole rows of A and columns of B; every accumulator register
// then takes K fused multiply-adds. f16 operands are extended to f32 once
// each (an A element is shared by the thread's columns); an f16 result is
// accumulated in f32 and truncated.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

// 16x16x16: the result layout covers 16x8, so a thread holds 2 columns
// (c, c + 8) of one row: 2 x 16 FMAs, 16 + 32 extensions. Shared memory:
// one 16x16 f16 operand at a time (512 bytes).
#c = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#da = #tile.dot_operand<{opIdx = 0, parent = #c, kWidth = 0}>
#db = #tile.dot_operand<{opIdx = 1, parent = #c, kWidth = 0}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 512 : i64
// CHECK:       llvm.func @dot_f16(
// A to its operand layout: 2 registers out, barrier, 16 (a row) in as two
// 16-byte vectors, barrier.
// CHECK-COUNT-2: llvm.store %{{[0-9]+}}, %{{[0-9]+}} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-COUNT-2: llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<8xf16>
// CHECK:         llvm.call @test_barrier() : () -> ()
// B: 2 columns of 16.
// CHECK-COUNT-2: llvm.store %{{[0-9]+}}, %{{[0-9]+}} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-COUNT-32: llvm.load %{{[0-9]+}} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// The first column: a chain of 16 FMAs from the zero accumulator.
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[A0:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[B0:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[D0:[0-9]+]] = llvm.intr.fma(%[[A0]], %[[B0]], %[[ZERO]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[A1:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[B1:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[D1:[0-9]+]] = llvm.intr.fma(%[[A1]], %[[B1]], %[[D0]]) : (f32, f32, f32) -> f32
// CHECK-COUNT-14: llvm.intr.fma
// The second column reuses the extended row of A.
// CHECK-NEXT:    %[[B0C:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[E0:[0-9]+]] = llvm.intr.fma(%[[A0]], %[[B0C]], %[[ZERO]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[B1C:[0-9]+]] = llvm.fpext %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[E1:[0-9]+]] = llvm.intr.fma(%[[A1]], %[[B1C]], %[[E0]]) : (f32, f32, f32) -> f32
// CHECK-COUNT-14: llvm.intr.fma
// CHECK-NOT:     llvm.intr.fma
// CHECK-NOT:     llvm.fpext
// CHECK-NOT:     @test_barrier
// CHECK-COUNT-2: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         llvm.return
tile.func @dot_f16(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #l>
  %a = tile.load %as : tensor<16x16x!tile.ptr<f16>, #l>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #l>
  %b = tile.load %bs : tensor<16x16x!tile.ptr<f16>, #l>
  %ao = tile.convert_layout %a : tensor<16x16xf16, #l> -> tensor<16x16xf16, #da>
  %bo = tile.convert_layout %b : tensor<16x16xf16, #l> -> tensor<16x16xf16, #db>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #c>
  %d = tile.dot %ao, %bo, %zero : tensor<16x16xf16, #da> * tensor<16x16xf16, #db> -> tensor<16x16xf32, #c>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>, #c>
  tile.store %cs, %d : tensor<16x16x!tile.ptr<f32>, #c>
  tile.return
}
}

// -----

// Operands already in the dot-operand layouts (no conversion, no shared
// memory) and an f16 accumulator: extended to f32, 4 FMAs (K = 4) per
// register, truncated back to f16. The pointers are offset by each element's
// K (A), K * 16 + N (B) and N (the accumulator), so a thread's registers of
// an operand load distinct addresses and each accumulator register has its
// own chain.
#c = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#da = #tile.dot_operand<{opIdx = 0, parent = #c, kWidth = 0}>
#db = #tile.dot_operand<{opIdx = 1, parent = #c, kWidth = 0}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// CHECK-NOT:   @test_barrier
// CHECK:       llvm.func @dot_f16_acc(
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// The thread's column n: lane bits 0-2 are columns 1, 2, 4, so lane & 7.
// CHECK-NEXT:    %[[C7:[0-9]+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[N:[0-9]+]] = llvm.and %[[LANE]], %[[C7]] : i32
// A: registers 0-3 are K = 0..3, at %pa + 0, 2, 4, 6 bytes.
// CHECK-NEXT:    %[[PA:[0-9]+]] = llvm.ptrtoint %arg0 : !llvm.ptr to i64
// CHECK-NEXT:    %[[E2:[0-9]+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    %[[PA1:[0-9]+]] = llvm.add %[[PA]], %[[E2]] : i64
// CHECK-NEXT:    %[[E4:[0-9]+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[PA2:[0-9]+]] = llvm.add %[[PA]], %[[E4]] : i64
// CHECK-NEXT:    %[[E6:[0-9]+]] = llvm.mlir.constant(6 : i64) : i64
// CHECK-NEXT:    %[[PA3:[0-9]+]] = llvm.add %[[PA]], %[[E6]] : i64
// CHECK-NEXT:    %[[QA0:[0-9]+]] = llvm.inttoptr %[[PA]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[A0:[0-9]+]] = llvm.load %[[QA0]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[QA1:[0-9]+]] = llvm.inttoptr %[[PA1]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[A1:[0-9]+]] = llvm.load %[[QA1]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[QA2:[0-9]+]] = llvm.inttoptr %[[PA2]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[A2:[0-9]+]] = llvm.load %[[QA2]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[QA3:[0-9]+]] = llvm.inttoptr %[[PA3]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[A3:[0-9]+]] = llvm.load %[[QA3]] {alignment = 2 : i64} : !llvm.ptr -> f16
// B: registers 0-3 are column n, K = 0..3 (elements n + 16 * K), registers
// 4-7 column n + 8; loaded in register order.
// CHECK-NEXT:    %[[K16:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[K32:[0-9]+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    %[[K48:[0-9]+]] = llvm.mlir.constant(48 : i32) : i32
// CHECK-NEXT:    %[[K8:[0-9]+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    %[[N8:[0-9]+]] = llvm.add %[[N]], %[[K8]] : i32
// CHECK-NEXT:    llvm.add %[[N]], %[[K16]] : i32
// CHECK-NEXT:    llvm.add %[[N]], %[[K32]] : i32
// CHECK-NEXT:    llvm.add %[[N]], %[[K48]] : i32
// CHECK-NEXT:    llvm.add %[[N8]], %[[K16]] : i32
// CHECK-NEXT:    llvm.add %[[N8]], %[[K32]] : i32
// CHECK-NEXT:    llvm.add %[[N8]], %[[K48]] : i32
// CHECK-NEXT:    llvm.ptrtoint %arg1 : !llvm.ptr to i64
// CHECK:         %[[B0:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B1:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B2:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B3:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B4:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B5:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B6:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B7:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// The accumulator: register 0 is column n, register 1 column n + 8 (their
// byte offsets are B's registers 0 and 4's).
// CHECK-NEXT:    %[[PC:[0-9]+]] = llvm.ptrtoint %arg2 : !llvm.ptr to i64
// CHECK-NEXT:    %[[PC0:[0-9]+]] = llvm.add %[[PC]], %{{[0-9]+}} : i64
// CHECK-NEXT:    %[[PC1:[0-9]+]] = llvm.add %[[PC]], %{{[0-9]+}} : i64
// CHECK-NEXT:    %[[CP0:[0-9]+]] = llvm.inttoptr %[[PC0]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[C0:[0-9]+]] = llvm.load %[[CP0]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[CP1:[0-9]+]] = llvm.inttoptr %[[PC1]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.load %[[CP1]] {alignment = 2 : i64} : !llvm.ptr -> f16
// Accumulator 0: A's K = 0..3 times B's registers 0-3, from C0, extending
// each operand register at its first use.
// CHECK-NEXT:    %[[CX0:[0-9]+]] = llvm.fpext %[[C0]] : f16 to f32
// CHECK-NEXT:    %[[AX0:[0-9]+]] = llvm.fpext %[[A0]] : f16 to f32
// CHECK-NEXT:    %[[BX0:[0-9]+]] = llvm.fpext %[[B0]] : f16 to f32
// CHECK-NEXT:    %[[D0:[0-9]+]] = llvm.intr.fma(%[[AX0]], %[[BX0]], %[[CX0]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[AX1:[0-9]+]] = llvm.fpext %[[A1]] : f16 to f32
// CHECK-NEXT:    %[[BX1:[0-9]+]] = llvm.fpext %[[B1]] : f16 to f32
// CHECK-NEXT:    %[[D1:[0-9]+]] = llvm.intr.fma(%[[AX1]], %[[BX1]], %[[D0]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[AX2:[0-9]+]] = llvm.fpext %[[A2]] : f16 to f32
// CHECK-NEXT:    %[[BX2:[0-9]+]] = llvm.fpext %[[B2]] : f16 to f32
// CHECK-NEXT:    %[[D2:[0-9]+]] = llvm.intr.fma(%[[AX2]], %[[BX2]], %[[D1]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[AX3:[0-9]+]] = llvm.fpext %[[A3]] : f16 to f32
// CHECK-NEXT:    %[[BX3:[0-9]+]] = llvm.fpext %[[B3]] : f16 to f32
// CHECK-NEXT:    %[[D3:[0-9]+]] = llvm.intr.fma(%[[AX3]], %[[BX3]], %[[D2]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[T0:[0-9]+]] = llvm.fptrunc %[[D3]] : f32 to f16
// Accumulator 1: the same extended A times B's registers 4-7, from C1.
// CHECK-NEXT:    %[[CX1:[0-9]+]] = llvm.fpext %[[C1]] : f16 to f32
// CHECK-NEXT:    %[[BX4:[0-9]+]] = llvm.fpext %[[B4]] : f16 to f32
// CHECK-NEXT:    %[[F0:[0-9]+]] = llvm.intr.fma(%[[AX0]], %[[BX4]], %[[CX1]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[BX5:[0-9]+]] = llvm.fpext %[[B5]] : f16 to f32
// CHECK-NEXT:    %[[F1:[0-9]+]] = llvm.intr.fma(%[[AX1]], %[[BX5]], %[[F0]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[BX6:[0-9]+]] = llvm.fpext %[[B6]] : f16 to f32
// CHECK-NEXT:    %[[F2:[0-9]+]] = llvm.intr.fma(%[[AX2]], %[[BX6]], %[[F1]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[BX7:[0-9]+]] = llvm.fpext %[[B7]] : f16 to f32
// CHECK-NEXT:    %[[F3:[0-9]+]] = llvm.intr.fma(%[[AX3]], %[[BX7]], %[[F2]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[T1:[0-9]+]] = llvm.fptrunc %[[F3]] : f32 to f16
// Each result to its own register's address.
// CHECK-NEXT:    llvm.store %[[T0]], %[[CP0]] {alignment = 2 : i64} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[T1]], %[[CP1]] {alignment = 2 : i64} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.return
tile.func @dot_f16_acc(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f16>) {
  %ak = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #tile.slice<{dim = 0, parent = #da}>>
  %ake = tile.expand_dims %ak {axis = 0 : i32} : tensor<4xi32, #tile.slice<{dim = 0, parent = #da}>> -> tensor<1x4xi32, #da>
  %akb = tile.broadcast %ake : tensor<1x4xi32, #da> -> tensor<16x4xi32, #da>
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<16x4x!tile.ptr<f16>, #da>
  %aa = tile.addptr %as, %akb : tensor<16x4x!tile.ptr<f16>, #da>, tensor<16x4xi32, #da>
  %a = tile.load %aa : tensor<16x4x!tile.ptr<f16>, #da>
  %bk = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #tile.slice<{dim = 1, parent = #db}>>
  %bke = tile.expand_dims %bk {axis = 1 : i32} : tensor<4xi32, #tile.slice<{dim = 1, parent = #db}>> -> tensor<4x1xi32, #db>
  %c16 = arith.constant dense<16> : tensor<4x1xi32, #db>
  %bkm = arith.muli %bke, %c16 : tensor<4x1xi32, #db>
  %bkb = tile.broadcast %bkm : tensor<4x1xi32, #db> -> tensor<4x16xi32, #db>
  %bn = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #tile.slice<{dim = 0, parent = #db}>>
  %bne = tile.expand_dims %bn {axis = 0 : i32} : tensor<16xi32, #tile.slice<{dim = 0, parent = #db}>> -> tensor<1x16xi32, #db>
  %bnb = tile.broadcast %bne : tensor<1x16xi32, #db> -> tensor<4x16xi32, #db>
  %boff = arith.addi %bkb, %bnb : tensor<4x16xi32, #db>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<4x16x!tile.ptr<f16>, #db>
  %ba = tile.addptr %bs, %boff : tensor<4x16x!tile.ptr<f16>, #db>, tensor<4x16xi32, #db>
  %b = tile.load %ba : tensor<4x16x!tile.ptr<f16>, #db>
  %cn = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #tile.slice<{dim = 0, parent = #c}>>
  %cne = tile.expand_dims %cn {axis = 0 : i32} : tensor<16xi32, #tile.slice<{dim = 0, parent = #c}>> -> tensor<1x16xi32, #c>
  %cnb = tile.broadcast %cne : tensor<1x16xi32, #c> -> tensor<16x16xi32, #c>
  %cs = tile.splat %pc : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #c>
  %ca = tile.addptr %cs, %cnb : tensor<16x16x!tile.ptr<f16>, #c>, tensor<16x16xi32, #c>
  %acc = tile.load %ca : tensor<16x16x!tile.ptr<f16>, #c>
  %d = tile.dot %a, %b, %acc : tensor<16x4xf16, #da> * tensor<4x16xf16, #db> -> tensor<16x16xf16, #c>
  tile.store %ca, %d : tensor<16x16x!tile.ptr<f16>, #c>
  tile.return
}
}
