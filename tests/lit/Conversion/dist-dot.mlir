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
// register, truncated back to f16. Every register of an operand loads the
// same splat pointer, so with common subexpressions merged each operand is
// one load and one extension, and the two accumulator registers' identical
// chains are one, stored to both registers' (same) address.
#c = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#da = #tile.dot_operand<{opIdx = 0, parent = #c, kWidth = 0}>
#db = #tile.dot_operand<{opIdx = 1, parent = #c, kWidth = 0}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// CHECK-NOT:   @test_barrier
// CHECK:       llvm.func @dot_f16_acc(
// CHECK:         llvm.ptrtoint %arg0 : !llvm.ptr to i64
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[A:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.ptrtoint %arg1 : !llvm.ptr to i64
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[B:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    llvm.ptrtoint %arg2 : !llvm.ptr to i64
// CHECK-NEXT:    %[[CP:[0-9]+]] = llvm.inttoptr
// CHECK-NEXT:    %[[C:[0-9]+]] = llvm.load %[[CP]] {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK-NEXT:    %[[CX:[0-9]+]] = llvm.fpext %[[C]] : f16 to f32
// CHECK-NEXT:    %[[AX:[0-9]+]] = llvm.fpext %[[A]] : f16 to f32
// CHECK-NEXT:    %[[BX:[0-9]+]] = llvm.fpext %[[B]] : f16 to f32
// CHECK-NEXT:    %[[D0:[0-9]+]] = llvm.intr.fma(%[[AX]], %[[BX]], %[[CX]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[D1:[0-9]+]] = llvm.intr.fma(%[[AX]], %[[BX]], %[[D0]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[D2:[0-9]+]] = llvm.intr.fma(%[[AX]], %[[BX]], %[[D1]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[D3:[0-9]+]] = llvm.intr.fma(%[[AX]], %[[BX]], %[[D2]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[T:[0-9]+]] = llvm.fptrunc %[[D3]] : f32 to f16
// CHECK-NEXT:    llvm.store %[[T]], %[[CP]] {alignment = 2 : i64} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[T]], %[[CP]] {alignment = 2 : i64} : f16, !llvm.ptr
// CHECK-NEXT:    llvm.return
tile.func @dot_f16_acc(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f16>) {
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<16x4x!tile.ptr<f16>, #da>
  %a = tile.load %as : tensor<16x4x!tile.ptr<f16>, #da>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<4x16x!tile.ptr<f16>, #db>
  %b = tile.load %bs : tensor<4x16x!tile.ptr<f16>, #db>
  %cs = tile.splat %pc : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #c>
  %acc = tile.load %cs : tensor<16x16x!tile.ptr<f16>, #c>
  %d = tile.dot %a, %b, %acc : tensor<16x4xf16, #da> * tensor<4x16xf16, #db> -> tensor<16x16xf16, #c>
  tile.store %cs, %d : tensor<16x16x!tile.ptr<f16>, #c>
  tile.return
}
}
