// What the distributed lowering cannot distribute fails with a located
// error rather than a crash: matrix-unit layouts of a kind no registered
// family answers to (the test lowering has the families tegula-opt
// registers, NVIDIA's; also as a dot operand's parent, also inside a loop),
// layouts a registered family refuses, layouts built for another warp count or warp
// size than the module's tile.num_warps / the target's, warp sizes that are
// not powers of 2, and tile constants whose elements differ.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true --verify-diagnostics
// A warp size that is not a power of 2 fails before any layout is looked at.
// RUN: not tegula-opt %s --split-input-file '--tile-test-lower-to-llvm=distributed=true warp-size=48' 2>&1 | FileCheck %s --check-prefix=WS48
// WS48: error: num_warps (4) and the warp size (48) must be powers of 2

#mfma = #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @matrix_layout(%v: f32, %p: !tile.ptr<f32>) {
  // expected-error @+1 {{the generic lowering does not distribute the matrix-unit layout #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>: no matrix unit of kind 'amd.mfma' is registered}}
  %x = tile.splat %v : f32 -> tensor<32x32xf32, #mfma>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #mfma>
  tile.store %ps, %x : tensor<32x32x!tile.ptr<f32>, #mfma>
  tile.return
}
}

// -----

#mfma = #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @matrix_layout_in_loop(%v: f32, %p: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-error @+1 {{does not distribute the matrix-unit layout}}
    %x = tile.splat %v : f32 -> tensor<32x32xf32, #mfma>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #mfma>
    tile.store %ps, %x : tensor<32x32x!tile.ptr<f32>, #mfma>
  }
  tile.return
}
}

// -----

#mfma = #tile.matrix<{kind = "amd.mfma", version = [3], warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @matrix_dot_operand(%v: f16) {
  // expected-error @+1 {{the generic lowering does not distribute the matrix-unit layout #tile.matrix<{kind = "amd.mfma"}}
  %x = tile.splat %v : f16 -> tensor<32x16xf16, #a>
  tile.print "x" {hex = false, is_signed = array<i32: 0>} : %x : tensor<32x16xf16, #a>
  tile.return
}
}

// -----

// A registered family (NVIDIA's mma.sync) refuses a layout it does not have.
#mma3 = #tile.matrix<{kind = "nvidia.mma", version = [3], warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @refused_matrix_layout(%v: f32, %p: !tile.ptr<f32>) {
  // expected-error @+1 {{the matrix unit nvidia.mma does not distribute #tile.matrix<{kind = "nvidia.mma", version = [3], warpsPerCTA = [2, 2], instrShape = [16, 8]}>: nvidia.mma layouts are version 2 with 16x8 instructions}}
  %x = tile.splat %v : f32 -> tensor<32x32xf32, #mma3>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #mma3>
  tile.store %ps, %x : tensor<32x32x!tile.ptr<f32>, #mma3>
  tile.return
}
}

// -----

// A layout for 2 warps in a module of 4.
#b2 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @wrong_warp_count(%p: !tile.ptr<i32>) {
  // expected-error @+1 {{the layout #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}> is for 32 threads per warp and 2 warps; the kernel runs 32 and 4}}
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b2>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>, #b2>
  %pa = tile.addptr %ps, %r : tensor<64x!tile.ptr<i32>, #b2>, tensor<64xi32, #b2>
  tile.store %pa, %r : tensor<64x!tile.ptr<i32>, #b2>
  tile.return
}
}

// -----

// A layout for 64-thread warps (AMD wavefronts) on a 32-thread target.
#b64 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 2 : i32} {
tile.func @wrong_warp_size(%v: f32) {
  // expected-error @+1 {{the layout #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}> is for 64 threads per warp and 2 warps; the kernel runs 32 and 2}}
  %x = tile.splat %v : f32 -> tensor<128xf32, #b64>
  tile.print "x" {hex = false, is_signed = array<i32: 0>} : %x : tensor<128xf32, #b64>
  tile.return
}
}

// -----

// (The module verifier rejects tile.num_warps = 3 before the lowering.)
// expected-error @+1 {{'tile.num_warps' must be a power of 2, got 3}}
module attributes {tile.num_warps = 3 : i32} {
tile.func @three_warps(%v: f32, %p: !tile.ptr<f32>) {
  tile.store %p, %v : !tile.ptr<f32>
  tile.return
}
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @non_splat_constant(%p: !tile.ptr<i32>) {
  // expected-error @+1 {{a tile constant whose elements differ}}
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #b>
  tile.print "c" {hex = false, is_signed = array<i32: 1>} : %c : tensor<4xi32, #b>
  tile.return
}
}

// -----

// An fp8 dot result fails in the distributed lowering too, with the same
// words.
#bl = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
tile.func @fp8_dot(%x: f8E5M2, %p: !tile.ptr<f8E5M2>) {
  %a = tile.splat %x : f8E5M2 -> tensor<16x16xf8E5M2, #tile.dot_operand<{opIdx = 0, parent = #bl, kWidth = 0}>>
  %b = tile.splat %x : f8E5M2 -> tensor<16x16xf8E5M2, #tile.dot_operand<{opIdx = 1, parent = #bl, kWidth = 0}>>
  %c = tile.splat %x : f8E5M2 -> tensor<16x16xf8E5M2, #bl>
  // expected-error @+1 {{cannot lower 'tile.dot': a dot's result cannot be fp8: accumulate in fp32 or fp16 and convert}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf8E5M2, #tile.dot_operand<{opIdx = 0, parent = #bl, kWidth = 0}>> * tensor<16x16xf8E5M2, #tile.dot_operand<{opIdx = 1, parent = #bl, kWidth = 0}>> -> tensor<16x16xf8E5M2, #bl>
  %ps = tile.splat %p : !tile.ptr<f8E5M2> -> tensor<16x16x!tile.ptr<f8E5M2>, #bl>
  tile.store %ps, %d : tensor<16x16x!tile.ptr<f8E5M2>, #bl>
  tile.return
}
}
