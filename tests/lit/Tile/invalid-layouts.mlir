// Every verifier error of the layout attributes and of tile.convert_layout
// (TileLayouts.cpp): one case per message.

// RUN: tegula-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

// expected-error @+1 {{sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same rank, got 2, 2, 1 and 2}}
tile.func private @blocked_rank(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4], order = [1, 0]}>>)

// -----

// expected-error @+1 {{'sizePerThread' entries must be positive powers of 2, got 3}}
tile.func private @blocked_size_per_thread(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 3], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{'threadsPerWarp' entries must be positive powers of 2, got 0}}
tile.func private @blocked_threads_per_warp(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [0, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{'warpsPerCTA' entries must be positive powers of 2, got -4}}
tile.func private @blocked_warps_per_cta(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [-4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{'order' must be a permutation of 0..2, got [1, 1]}}
tile.func private @blocked_order_repeated(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 1]}>>)

// -----

// expected-error @+1 {{'order' must be a permutation of 0..2, got [2, 0]}}
tile.func private @blocked_order_out_of_range(%a: tensor<16x16xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [2, 0]}>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.slice
//===----------------------------------------------------------------------===//

// expected-error @+1 {{parent of a slice must be a distributed layout, got #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
tile.func private @slice_of_shared(%a: tensor<16xf16, #tile.slice<{dim = 0, parent = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{parent of a slice must be a distributed layout, got 1 : i64}}
tile.func private @slice_of_integer(%a: tensor<16xf16, #tile.slice<{dim = 0, parent = 1}>>)

// -----

// expected-error @+1 {{dim must be in [0, 2) for a parent of rank 2, got 2}}
tile.func private @slice_dim(%a: tensor<16xf16, #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{dim must be in [0, 2) for a parent of rank 2, got -1}}
tile.func private @slice_negative_dim(%a: tensor<16xf16, #tile.slice<{dim = -1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.matrix
//===----------------------------------------------------------------------===//

// expected-error @+1 {{kind must not be empty}}
tile.func private @matrix_empty_kind(%a: tensor<16x16xf32, #tile.matrix<{kind = "", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>)

// -----

// expected-error @+1 {{'version' entries must not be negative, got -1}}
tile.func private @matrix_version(%a: tensor<16x16xf32, #tile.matrix<{kind = "nvidia.mma", version = [-1], warpsPerCTA = [2, 2], instrShape = [16, 8]}>>)

// -----

// expected-error @+1 {{'warpsPerCTA' must have one entry per dimension}}
tile.func private @matrix_no_warps(%a: tensor<16x16xf32, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [], instrShape = [16, 8]}>>)

// -----

// expected-error @+1 {{'warpsPerCTA' entries must be positive powers of 2, got 3}}
tile.func private @matrix_warps(%a: tensor<16x16xf32, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [3, 2], instrShape = [16, 8]}>>)

// -----

// expected-error @+1 {{'instrShape' entries must be positive, got 0}}
tile.func private @matrix_instr_shape(%a: tensor<16x16xf32, #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 0]}>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.dot_operand
//===----------------------------------------------------------------------===//

// expected-error @+1 {{opIdx must be 0 or 1, got 2}}
tile.func private @dot_operand_op_idx(%a: tensor<16x16xf16, #tile.dot_operand<{opIdx = 2, parent = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 8}>>)

// -----

// expected-error @+1 {{parent of a dot operand must be a #tile.matrix or #tile.blocked layout, got #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
tile.func private @dot_operand_parent(%a: tensor<16x16xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, kWidth = 8}>>)

// -----

// expected-error @+1 {{kWidth must be a positive power of 2 (or 0 for a blocked parent), got 0}}
tile.func private @dot_operand_k_width_zero(%a: tensor<16x16xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.matrix<{kind = "nvidia.mma", version = [2, 0], warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 0}>>)

// -----

// expected-error @+1 {{kWidth must be a positive power of 2 (or 0 for a blocked parent), got 6}}
tile.func private @dot_operand_k_width_blocked(%a: tensor<16x16xf16, #tile.dot_operand<{opIdx = 1, parent = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>, kWidth = 6}>>)

// -----

//===----------------------------------------------------------------------===//
// #tile.shared
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'vec' must be a positive power of 2, got 3}}
tile.func private @shared_vec(%a: tensor<16x16xf16, #tile.shared<{vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{'perPhase' must be a positive power of 2, got 0}}
tile.func private @shared_per_phase(%a: tensor<16x16xf16, #tile.shared<{vec = 8, perPhase = 0, maxPhase = 8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{'maxPhase' must be a positive power of 2, got -8}}
tile.func private @shared_max_phase(%a: tensor<16x16xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = -8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{'order' must be a permutation of 0..2, got [0, -1]}}
tile.func private @shared_order(%a: tensor<16x16xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, -1]}>>)

// -----

//===----------------------------------------------------------------------===//
// tile.convert_layout
//===----------------------------------------------------------------------===//

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.func private @convert_shape(%x: tensor<128x64xf16, #blocked>) {
  // expected-error @+1 {{'tile.convert_layout' op source and result must have the same shape, got 'tensor<128x64xf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>' and 'tensor<64x128xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>'}}
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #shared>
  tile.return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.func private @convert_element_type(%x: tensor<128x64xf16, #blocked>) {
  // expected-error @+1 {{'tile.convert_layout' op source and result must have the same element type, got 'f16' and 'f32'}}
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf32, #shared>
  tile.return
}

// -----

#blocked3 = #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 8, 4], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.func private @convert_source_rank(%x: tensor<128x64xf16, #blocked3>) {
  // expected-error @+1 {{'tile.convert_layout' op layout of the source has rank 3 but the tensor has rank 2}}
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked3> -> tensor<128x64xf16, #shared>
  tile.return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
tile.func private @convert_result_rank(%x: tensor<128x64xf16, #blocked>) {
  // expected-error @+1 {{'tile.convert_layout' op layout of the result has rank 1 but the tensor has rank 2}}
  %0 = tile.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #slice>
  tile.return
}
