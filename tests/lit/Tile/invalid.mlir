// Every verifier error of the tile dialect: one case per message emitted by
// TileOps.cpp, TileFuncOps.cpp, TileDialect.cpp (argument and op attribute
// verification) and TileTypes.cpp (PointerType::verify), and the
// inferReturnTypes errors of tile.split and tile.reduce, followed by the
// ODS-generated constraints that matter most.

// RUN: tegula-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Program instances and ranges
//===----------------------------------------------------------------------===//

tile.func @program_id_axis() {
  // expected-error @+1 {{'tile.program_id' op axis must be 0, 1 or 2, got 3}}
  %0 = tile.program_id 3 : i32
  tile.return
}

// -----

tile.func @program_id_negative_axis() {
  // expected-error @+1 {{'tile.program_id' op axis must be 0, 1 or 2, got -1}}
  %0 = tile.program_id -1 : i32
  tile.return
}

// -----

tile.func @num_programs_axis() {
  // expected-error @+1 {{'tile.num_programs' op axis must be 0, 1 or 2, got 7}}
  %0 = tile.num_programs 7 : i32
  tile.return
}

// -----

tile.func @make_range_rank() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tensor, got 'tensor<2x64xi32>'}}
  %0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<2x64xi32>
  tile.return
}

// -----

tile.func @make_range_empty() {
  // expected-error @+1 {{'tile.make_range' op end (16) must be greater than start (16)}}
  %0 = tile.make_range {start = 16 : i32, end = 16 : i32} : tensor<0xi32>
  tile.return
}

// -----

tile.func @make_range_reversed() {
  // expected-error @+1 {{'tile.make_range' op end (0) must be greater than start (8)}}
  %0 = tile.make_range {start = 8 : i32, end = 0 : i32} : tensor<8xi32>
  tile.return
}

// -----

tile.func @make_range_size() {
  // expected-error @+1 {{'tile.make_range' op result has 64 elements but the range [0, 128) has 128}}
  %0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<64xi32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// -----

tile.func @splat_element_type(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result element type 'f16' differs from the splatted value's type 'f32'}}
  %0 = tile.splat %x : f32 -> tensor<4xf16>
  tile.return
}

// -----

tile.func @broadcast_element_type(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op element types differ: 'f32' and 'f16'}}
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<8x4xf16>
  tile.return
}

// -----

tile.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source and result ranks differ: 1 and 2}}
  %0 = tile.broadcast %x : tensor<4xf32> -> tensor<8x4xf32>
  tile.return
}

// -----

tile.func @broadcast_dimension(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dimension 1 of size 4 to 8 (shapes [2, 4] and [2, 8])}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<2x8xf32>
  tile.return
}

// -----

tile.func @expand_dims_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for a tensor of rank 1}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  tile.return
}

// -----

tile.func @expand_dims_result(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result must be [1, 128] of 'f32', got 'tensor<128x1xf32>'}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  tile.return
}

// -----

tile.func @expand_dims_element_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result must be [128, 1] of 'f32', got 'tensor<128x1xf16>'}}
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf16>
  tile.return
}

// -----

tile.func @reshape_element_type(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.reshape' op element types differ: 'f32' and 'i32'}}
  %0 = tile.reshape %x : tensor<16x8xf32> -> tensor<128xi32>
  tile.return
}

// -----

tile.func @reshape_size(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.reshape' op cannot reshape [16, 8] (128 elements) to [64] (64 elements)}}
  %0 = tile.reshape %x allow_reorder : tensor<16x8xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.func @trans_order_size(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order must have 2 entries, got 3}}
  %0 = tile.trans %x {order = array<i32: 1, 0, 2>} : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.func @trans_order_repeated(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of [0, 2), got [0, 0]}}
  %0 = tile.trans %x {order = array<i32: 0, 0>} : tensor<16x8xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func @trans_order_out_of_range(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of [0, 2), got [2, 0]}}
  %0 = tile.trans %x {order = array<i32: 2, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.func @trans_result(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.trans' op result must be [8, 16] of 'f32', got 'tensor<16x8xf32>'}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<16x8xf32>
  tile.return
}

// -----

// The ODS constraint AllTypesMatch<["lhs", "rhs"]> runs before JoinOp::verify,
// so JoinOp's own "operands must have the same type" check cannot fire.
tile.func @join_operand_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'tile.join' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "tile.join"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4x2xf32>
  tile.return
}

// -----

tile.func @join_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.join' op result must be [4, 2] of 'f32', got 'tensor<2x4xf32>'}}
  %0 = tile.join %a, %a : tensor<4xf32> -> tensor<2x4xf32>
  tile.return
}

// -----

tile.func @split_infer(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'tile.split' op the last dimension of the source must be 2 and the source must be at least 2-D, got 'tensor<4x3xf32>'}}
  %0, %1 = tile.split %a : tensor<4x3xf32>
  tile.return
}

// -----

tile.func @split_infer_rank(%a: tensor<2xf32>) {
  // expected-error @+1 {{'tile.split' op the last dimension of the source must be 2 and the source must be at least 2-D, got 'tensor<2xf32>'}}
  %0, %1 = tile.split %a : tensor<2xf32>
  tile.return
}

// -----

tile.func @split_last_dimension(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'tile.split' op the last dimension of the source must be 2, got [4, 3]}}
  %0:2 = "tile.split"(%a) : (tensor<4x3xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  tile.return
}

// -----

tile.func @split_rank_zero(%a: tensor<f32>) {
  // expected-error @+1 {{'tile.split' op the last dimension of the source must be 2, got []}}
  %0:2 = "tile.split"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  tile.return
}

// -----

tile.func @split_results(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.split' op results must be [4] of 'f32', got 'tensor<4xf16>'}}
  %0:2 = "tile.split"(%a) : (tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf16>)
  tile.return
}

// -----

tile.func @cat_element_types(%a: tensor<32xf32>, %b: tensor<32xf16>) {
  // expected-error @+1 {{'tile.cat' op element types must agree, got 'tensor<32xf32>', 'tensor<32xf16>' and 'tensor<64xf32>'}}
  %0 = tile.cat %a, %b : tensor<32xf32>, tensor<32xf16> -> tensor<64xf32>
  tile.return
}

// -----

tile.func @cat_ranks(%a: tensor<32xf32>, %b: tensor<32x2xf32>) {
  // expected-error @+1 {{'tile.cat' op ranks must agree, got 'tensor<32xf32>', 'tensor<32x2xf32>' and 'tensor<64xf32>'}}
  %0 = tile.cat %a, %b : tensor<32xf32>, tensor<32x2xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.func @cat_other_dimensions(%a: tensor<32x4xf32>, %b: tensor<32x8xf32>) {
  // expected-error @+1 {{'tile.cat' op operands may differ only in dimension 0, got [32, 4] and [32, 8]}}
  %0 = tile.cat %a, %b : tensor<32x4xf32>, tensor<32x8xf32> -> tensor<64x4xf32>
  tile.return
}

// -----

tile.func @cat_result_shape(%a: tensor<32x4xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{'tile.cat' op result shape must be [48, 4], got [64, 4]}}
  %0 = tile.cat %a, %b : tensor<32x4xf32>, tensor<16x4xf32> -> tensor<64x4xf32>
  tile.return
}

// -----

tile.func @gather_rank(%src: tensor<8x4xf32>, %idx: tensor<8xi32>) {
  // expected-error @+1 {{'tile.gather' op source and indices must have the same rank, got 2 and 1}}
  %0 = tile.gather %src[%idx] {axis = 0 : i32} : (tensor<8x4xf32>, tensor<8xi32>) -> tensor<8xf32>
  tile.return
}

// -----

tile.func @gather_axis(%src: tensor<64xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{'tile.gather' op axis 1 is out of range for a tensor of rank 1}}
  %0 = tile.gather %src[%idx] {axis = 1 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xf32>
  tile.return
}

// -----

tile.func @gather_result(%src: tensor<64xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{'tile.gather' op result must have the shape of the indices and the element type of the source, got 'tensor<64xf32>'}}
  %0 = tile.gather %src[%idx] {axis = 0 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func @gather_result_element_type(%src: tensor<64xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{'tile.gather' op result must have the shape of the indices and the element type of the source, got 'tensor<32xi32>'}}
  %0 = tile.gather %src[%idx] {axis = 0 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xi32>
  tile.return
}

// -----

tile.func @gather_other_dimension(%src: tensor<8x4xf32>, %idx: tensor<4x16xi32>) {
  // expected-error @+1 {{'tile.gather' op indices and source differ in dimension 0, which is not the gather axis}}
  %0 = tile.gather %src[%idx] {axis = 1 : i32} : (tensor<8x4xf32>, tensor<4x16xi32>) -> tensor<4x16xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

// -----

// The Elementwise trait rejects most shape mismatches before
// AddPtrOp::verify runs (see the ODS section below); a tensor of pointers
// with a scalar offset reaches it.
tile.func @addptr_tensor_scalar(%p: tensor<8x!tile.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op offset must have the shape of the pointer, got 'i32' for 'tensor<8x!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, i32
  tile.return
}

// -----

tile.func @addptr_rank0_tensor(%p: tensor<!tile.ptr<f32>>, %o: i64) {
  // expected-error @+1 {{'tile.addptr' op offset must have the shape of the pointer, got 'i64' for 'tensor<!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<!tile.ptr<f32>>, i64
  tile.return
}

// -----

tile.func @load_boundary_check_not_block(%p: tensor<8x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op boundary_check requires a block pointer}}
  %0 = tile.load %p {boundary_check = array<i32: 0>} : tensor<8x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @load_boundary_check_range(%p: !tile.ptr<tensor<64x32xf16>>) {
  // expected-error @+1 {{'tile.load' op boundary_check dimension 2 is out of range for a block of rank 2}}
  %0 = tile.load %p {boundary_check = array<i32: 0, 2>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @load_boundary_check_negative(%p: !tile.ptr<tensor<64x32xf16>>) {
  // expected-error @+1 {{'tile.load' op boundary_check dimension -1 is out of range for a block of rank 2}}
  %0 = tile.load %p {boundary_check = array<i32: -1>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @load_boundary_check_twice(%p: !tile.ptr<tensor<64x32xf16>>) {
  // expected-error @+1 {{'tile.load' op boundary_check lists dimension 1 twice}}
  %0 = tile.load %p {boundary_check = array<i32: 1, 0, 1>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @load_block_pointer_other(%p: !tile.ptr<tensor<64x32xf16>>, %m: i1, %o: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.load' op a load through a block pointer takes no 'other'; use boundary_check and padding}}
  %0 = tile.load %p, %m, %o : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @load_padding_not_block(%p: tensor<8x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op padding requires a block pointer}}
  %0 = tile.load %p {padding = #tile<padding zero>} : tensor<8x!tile.ptr<f32>>
  tile.return
}

// -----

// The custom form gives a lone optional operand to the mask; only the
// generic form can give `other` without a mask. The pointee is i1 because
// for any other pointee the ODS mask constraint misreads `other` as the mask
// and fails first (a bug: see invalid-known-bugs.mlir).
tile.func @load_other_without_mask(%p: tensor<8x!tile.ptr<i1>>, %o: tensor<8xi1>) {
  // expected-error @+1 {{'tile.load' op 'other' requires a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<8x!tile.ptr<i1>>, tensor<8xi1>) -> tensor<8xi1>
  tile.return
}

// -----

tile.func @store_block_pointer_mask(%p: !tile.ptr<tensor<64x32xf16>>, %v: tensor<64x32xf16>, %m: i1) {
  // expected-error @+1 {{'tile.store' op a store through a block pointer takes no mask; use boundary_check}}
  tile.store %p, %v, %m : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @store_boundary_check_not_block(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.store' op boundary_check requires a block pointer}}
  tile.store %p, %v {boundary_check = array<i32: 0>} : !tile.ptr<f32>
  tile.return
}

// -----

tile.func @store_boundary_check_range(%p: !tile.ptr<tensor<64x32xf16>>, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.store' op boundary_check dimension 5 is out of range for a block of rank 2}}
  tile.store %p, %v {boundary_check = array<i32: 5>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @store_boundary_check_twice(%p: !tile.ptr<tensor<64x32xf16>>, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.store' op boundary_check lists dimension 0 twice}}
  tile.store %p, %v {boundary_check = array<i32: 0, 0>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @atomic_add_float(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic add needs integers of 8 bits or more, got 'f32'}}
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v : tensor<8x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @atomic_and_i1(%p: !tile.ptr<i1>, %v: i1) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic and needs integers of 8 bits or more, got 'i1'}}
  %0 = tile.atomic_rmw and, acq_rel, gpu, %p, %v : !tile.ptr<i1>
  tile.return
}

// -----

tile.func @atomic_or_float(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic or needs integers of 8 bits or more, got 'f16'}}
  %0 = tile.atomic_rmw or, acq_rel, gpu, %p, %v : !tile.ptr<f16>
  tile.return
}

// -----

tile.func @atomic_xor_pointer(%p: !tile.ptr<!tile.ptr<f32>>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic xor needs integers of 8 bits or more, got '!tile.ptr<f32>'}}
  %0 = tile.atomic_rmw xor, acq_rel, gpu, %p, %v : !tile.ptr<!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @atomic_umax_float(%p: !tile.ptr<f64>, %v: f64) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic umax needs integers of 8 bits or more, got 'f64'}}
  %0 = tile.atomic_rmw umax, acq_rel, gpu, %p, %v : !tile.ptr<f64>
  tile.return
}

// -----

tile.func @atomic_umin_float(%p: !tile.ptr<bf16>, %v: bf16) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic umin needs integers of 8 bits or more, got 'bf16'}}
  %0 = tile.atomic_rmw umin, acq_rel, gpu, %p, %v : !tile.ptr<bf16>
  tile.return
}

// -----

tile.func @atomic_fadd_integer(%p: tensor<8x!tile.ptr<i32>>, %v: tensor<8xi32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic fadd needs floats, got 'i32'}}
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v : tensor<8x!tile.ptr<i32>>
  tile.return
}

// -----

tile.func @atomic_max_i1(%p: !tile.ptr<i1>, %v: i1) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic max needs integers or floats, got 'i1'}}
  %0 = tile.atomic_rmw max, acq_rel, gpu, %p, %v : !tile.ptr<i1>
  tile.return
}

// -----

tile.func @atomic_min_pointer(%p: !tile.ptr<!tile.ptr<f32>>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic min needs integers or floats, got '!tile.ptr<f32>'}}
  %0 = tile.atomic_rmw min, acq_rel, gpu, %p, %v : !tile.ptr<!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @atomic_cas_i8(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op atomic_cas needs 16-, 32- or 64-bit values, got 'i8'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %v, %v : !tile.ptr<i8>
  tile.return
}

// -----

tile.func @atomic_cas_i1(%p: tensor<4x!tile.ptr<i1>>, %v: tensor<4xi1>) {
  // expected-error @+1 {{'tile.atomic_cas' op atomic_cas needs 16-, 32- or 64-bit values, got 'i1'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %v, %v : tensor<4x!tile.ptr<i1>>
  tile.return
}

// -----

// MakeTensorPtrOp::verify's "base points to ..." check is preceded by the ODS
// TypesMatchWith constraint, which reports the same mismatch.
tile.func @make_tensor_ptr_base(%b: !tile.ptr<f32>, %i: i64, %j: i32) {
  // expected-error @+1 {{'tile.make_tensor_ptr' op failed to verify that base points to the block's elements}}
  %0 = "tile.make_tensor_ptr"(%b, %i, %i, %j) <{order = array<i32: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (!tile.ptr<f32>, i64, i64, i32) -> !tile.ptr<tensor<8xf16>>
  tile.return
}

// -----

tile.func @make_tensor_ptr_operand_counts(%b: !tile.ptr<f16>, %i: i64, %j: i32) {
  // expected-error @+1 {{'tile.make_tensor_ptr' op shape, strides and offsets need 2 values each (the block's rank), got 1, 2 and 2}}
  %0 = tile.make_tensor_ptr %b, [%i], [%i, %i], [%j, %j] {order = array<i32: 1, 0>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @make_tensor_ptr_offsets(%b: !tile.ptr<f16>, %i: i64, %j: i32) {
  // expected-error @+1 {{'tile.make_tensor_ptr' op shape, strides and offsets need 2 values each (the block's rank), got 2, 2 and 3}}
  %0 = tile.make_tensor_ptr %b, [%i, %i], [%i, %i], [%j, %j, %j] {order = array<i32: 1, 0>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @make_tensor_ptr_order_size(%b: !tile.ptr<f16>, %i: i64, %j: i32) {
  // expected-error @+1 {{'tile.make_tensor_ptr' op order must have 2 entries, got 1}}
  %0 = tile.make_tensor_ptr %b, [%i, %i], [%i, %i], [%j, %j] {order = array<i32: 0>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @make_tensor_ptr_order_permutation(%b: !tile.ptr<f16>, %i: i64, %j: i32) {
  // expected-error @+1 {{'tile.make_tensor_ptr' op order must be a permutation of [0, 2), got [1, 1]}}
  %0 = tile.make_tensor_ptr %b, [%i, %i], [%i, %i], [%j, %j] {order = array<i32: 1, 1>} : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @advance_offsets(%p: !tile.ptr<tensor<64x32xf16>>, %o: i32) {
  // expected-error @+1 {{'tile.advance' op needs 2 offsets (the block's rank), got 1}}
  %0 = tile.advance %p, [%o] : !tile.ptr<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @make_tensor_descriptor_base(%b: !tile.ptr<f32>, %i: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op base points to 'f32' but the block holds 'f16'}}
  %0 = tile.make_tensor_descriptor %b, [%i, %i], [%s, %s] : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func @make_tensor_descriptor_counts(%b: !tile.ptr<f16>, %i: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op shape and strides need 2 values each (the block's rank), got 1 and 2}}
  %0 = tile.make_tensor_descriptor %b, [%i], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func @descriptor_load_indices(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op needs 2 indices (the block's rank), got 3}}
  %0 = tile.descriptor_load %d[%i, %i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.func @descriptor_load_result(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op result type 'tensor<64x32xf16>' differs from the descriptor's block 'tensor<64x64xf16>'}}
  %0 = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x32xf16>
  tile.return
}

// -----

tile.func @descriptor_load_element_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op result type 'tensor<64x64xf32>' differs from the descriptor's block 'tensor<64x64xf16>'}}
  %0 = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func @descriptor_store_indices(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.descriptor_store' op needs 2 indices (the block's rank), got 1}}
  tile.descriptor_store %d[%i], %v : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tile.return
}

// -----

tile.func @descriptor_store_value(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %v: tensor<64x64xbf16>) {
  // expected-error @+1 {{'tile.descriptor_store' op stored type 'tensor<64x64xbf16>' differs from the descriptor's block 'tensor<64x64xf16>'}}
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xbf16>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.dot
//===----------------------------------------------------------------------===//

// -----

tile.func @dot_rank(%a: tensor<64xf16>, %b: tensor<64x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must all be 2-D (or 3-D with a batch dimension), got ranks 1, 2 and 2}}
  %0 = tile.dot %a, %b, %c : tensor<64xf16> * tensor<64x32xf16> -> tensor<64x32xf32>
  tile.return
}

// -----

tile.func @dot_rank_mixed(%a: tensor<2x16x8xf16>, %b: tensor<8x32xf16>, %c: tensor<2x16x32xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must all be 2-D (or 3-D with a batch dimension), got ranks 3, 2 and 3}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x8xf16> * tensor<8x32xf16> -> tensor<2x16x32xf32>
  tile.return
}

// -----

tile.func @dot_batch(%a: tensor<2x16x8xf16>, %b: tensor<4x8x32xf16>, %c: tensor<2x16x32xf32>) {
  // expected-error @+1 {{'tile.dot' op batch dimensions differ: [2, 16, 8], [4, 8, 32] and [2, 16, 32]}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x8xf16> * tensor<4x8x32xf16> -> tensor<2x16x32xf32>
  tile.return
}

// -----

tile.func @dot_inner(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op inner dimensions differ: a is [64, 32] and b is [16, 64]}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func @dot_accumulator_shape(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator must be 64x64, got [64, 32]}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x32xf32>
  tile.return
}

// -----

tile.func @dot_operand_types(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ: 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

// Only the two fp8 kinds may be mixed.
tile.func @dot_fp8_with_f16(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ: 'f8E4M3FN' and 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func @dot_float_integer_accumulator(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op a dot of 'f16' needs a float accumulator of its width or more (f64 only with f64), got 'i32'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.func @dot_f64_accumulator(%a: tensor<16x16xf32>, %c: tensor<16x16xf64>) {
  // expected-error @+1 {{'tile.dot' op a dot of 'f32' needs a float accumulator of its width or more (f64 only with f64), got 'f64'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf64>
  tile.return
}

// -----

tile.func @dot_f64_inputs(%a: tensor<16x16xf64>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a dot of 'f64' needs a float accumulator of its width or more (f64 only with f64), got 'f32'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func @dot_i8_accumulator(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi16>) {
  // expected-error @+1 {{'tile.dot' op a dot of i8 needs an i32 accumulator, got 'i16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi16>
  tile.return
}

// -----

tile.func @dot_i16(%a: tensor<64x32xi16>, %b: tensor<32x64xi16>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op operands must be floats or i8, got 'i16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xi16> * tensor<32x64xi16> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.func @dot_pointers(%a: tensor<16x16x!tile.ptr<f32>>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be floats or i8, got '!tile.ptr<f32>'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16x!tile.ptr<f32>> * tensor<16x16x!tile.ptr<f32>> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func @dot_tf32_f16(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op input precision tf32 applies only to f32 operands, got 'f16'}}
  %0 = tile.dot %a, %b, %c {input_precision = #tile<precision tf32>} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func @dot_tf32x3_i8(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op input precision tf32x3 applies only to f32 operands, got 'i8'}}
  %0 = tile.dot %a, %b, %c {input_precision = #tile<precision tf32x3>} : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.reduce and tile.scan
//===----------------------------------------------------------------------===//

// -----

tile.func @reduce_infer_axis(%x: tensor<128xf32>) {
  // expected-error @+2 {{tile.reduce: axis 1 is out of range for operand type 'tensor<128xf32>'}}
  // expected-error @+1 {{'tile.reduce' op failed to infer returned types}}
  %0 = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }) : (tensor<128xf32>) -> f32
  tile.return
}

// -----

tile.func @reduce_no_operands() {
  // expected-error @+1 {{'tile.reduce' op needs at least one operand}}
  "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    "tile.reduce.return"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

tile.func @reduce_shapes(%x: tensor<128xf32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tile.reduce' op operands must have the same shape, got [128] and [64]}}
  %0:2 = "tile.reduce"(%x, %y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %i: i32, %b: f32, %j: i32):
    tile.reduce.return %a, %i : f32, i32
  }) : (tensor<128xf32>, tensor<64xi32>) -> (f32, i32)
  tile.return
}

// -----

tile.func @reduce_combiner_arity(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must take 2 arguments, got 3}}
  %0 = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    tile.reduce.return %a : f32
  }) : (tensor<128xf32>) -> f32
  tile.return
}

// -----

tile.func @reduce_combiner_argument_types(%x: tensor<128xf32>, %y: tensor<128xi32>) {
  // expected-error @+1 {{'tile.reduce' op combiner arguments 1 and 3 must be 'i32'}}
  %0:2 = "tile.reduce"(%x, %y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %i: i32, %b: f32, %j: i64):
    tile.reduce.return %a, %i : f32, i32
  }) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
  tile.return
}

// -----

tile.func @reduce_combiner_results(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must return 1 values, got 2}}
  %0 = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a, %b : f32, f32
  }) : (tensor<128xf32>) -> f32
  tile.return
}

// -----

tile.func @reduce_combiner_result_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner result 0 must be 'f32', got 'f16'}}
  %0 = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %h = arith.truncf %a : f32 to f16
    tile.reduce.return %h : f16
  }) : (tensor<128xf32>) -> f32
  tile.return
}

// -----

tile.func @reduce_result_type(%x: tensor<16x8xf32>) {
  // expected-error @+2 {{'tile.reduce' op inferred type(s) 'tensor<16xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'tile.reduce' op failed to infer returned types}}
  %0 = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }) : (tensor<16x8xf32>) -> tensor<8xf32>
  tile.return
}

// -----

// tile.scan infers no error of its own; its axis is checked by the combiner
// verification shared with tile.reduce.
tile.func @scan_axis(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for a tensor of rank 1}}
  %0 = "tile.scan"(%x) <{axis = 1 : i32, reverse = false}> ({
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }) : (tensor<64xi32>) -> tensor<64xi32>
  tile.return
}

// -----

tile.func @scan_combiner_argument_types(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner arguments 0 and 1 must be 'i32'}}
  %0 = "tile.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: i32, %b: f32):
    tile.scan.return %a : i32
  }) : (tensor<64xi32>) -> tensor<64xi32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Other computation
//===----------------------------------------------------------------------===//

// -----

tile.func @histogram_rank(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{'tile.histogram' op source and result must be 1-D, got 'tensor<8x8xi32>' and 'tensor<16xi32>'}}
  %0 = tile.histogram %x : tensor<8x8xi32> -> tensor<16xi32>
  tile.return
}

// -----

tile.func @histogram_mask(%x: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tile.histogram' op mask must have the shape of the source, got 'tensor<32xi1>'}}
  %0 = tile.histogram %x, %m : tensor<32xi1> : tensor<64xi32> -> tensor<16xi32>
  tile.return
}

// -----

tile.func @fp_to_fp_narrowing(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.fp_to_fp' op a narrowing conversion from 'f32' to 'f16' needs a rounding mode}}
  %0 = tile.fp_to_fp %x : tensor<64xf32> -> tensor<64xf16>
  tile.return
}

// -----

// bf16 and f16 have the same width; either way some values are lost.
tile.func @fp_to_fp_same_width(%x: f16) {
  // expected-error @+1 {{'tile.fp_to_fp' op a narrowing conversion from 'f16' to 'bf16' needs a rounding mode}}
  %0 = tile.fp_to_fp %x : f16 -> bf16
  tile.return
}

// -----

tile.func @fp_to_fp_widening(%x: tensor<64xf16>) {
  // expected-error @+1 {{'tile.fp_to_fp' op a rounding mode applies only to narrowing conversions, not from 'f16' to 'f32'}}
  %0 = tile.fp_to_fp %x, rounding = rtne : tensor<64xf16> -> tensor<64xf32>
  tile.return
}

// -----

tile.func @fp_to_fp_identity(%x: f32) {
  // expected-error @+1 {{'tile.fp_to_fp' op a rounding mode applies only to narrowing conversions, not from 'f32' to 'f32'}}
  %0 = tile.fp_to_fp %x, rounding = rtz : f32 -> f32
  tile.return
}

// -----

tile.func @bitcast_width(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.bitcast' op cannot bitcast 'f32' (32 bits) to 'i16' (16 bits)}}
  %0 = tile.bitcast %x : tensor<64xf32> -> tensor<64xi16>
  tile.return
}

// -----

tile.func @bitcast_pointer(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.bitcast' op cannot bitcast '!tile.ptr<f32>' (64 bits) to 'i32' (32 bits)}}
  %0 = tile.bitcast %p : !tile.ptr<f32> -> i32
  tile.return
}

// -----

tile.func @inline_asm_packed_element(%a: tensor<64xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op packed_element must be at least 1, got 0}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 0 : i32, pure = true} %a : tensor<64xi32> -> tensor<64xi32>
  tile.return
}

// -----

tile.func @print_is_signed(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.print' op is_signed needs one entry per argument (1), got 2}}
  tile.print "x" {hex = false, is_signed = array<i32: 1, 1>} : %x : tensor<64xi32>
  tile.return
}

// -----

tile.func @print_is_signed_no_args() {
  // expected-error @+1 {{'tile.print' op is_signed needs one entry per argument (0), got 1}}
  tile.print "x" {hex = false, is_signed = array<i32: 1>}
  tile.return
}

//===----------------------------------------------------------------------===//
// Functions, calls and returns
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.func' op kernel 'kernel_returns' must not return values; only private helpers return}}
tile.func @kernel_returns(%x: f32) -> f32 {
  tile.return %x : f32
}

// -----

// expected-error @+1 {{'tile.func' op kernel 'kernel_noinline' is public and cannot be noinline}}
tile.func @kernel_noinline() attributes {noinline} {
  tile.return
}

// -----

tile.func private @return_count(%x: f32) -> f32 {
  // expected-error @+1 {{'tile.return' op returns 0 values but 'return_count' returns 1}}
  tile.return
}

// -----

tile.func private @return_type(%x: i32) -> f32 {
  // expected-error @+1 {{'tile.return' op value 0 has type 'i32' but 'return_type' returns 'f32'}}
  tile.return %x : i32
}

// -----

func.func @not_a_tile_func(%x: f32) -> f32 {
  return %x : f32
}

tile.func @call_func_func(%x: f32) {
  // expected-error @+1 {{'tile.call' op 'not_a_tile_func' does not name a tile.func}}
  %0 = tile.call @not_a_tile_func(%x) : (f32) -> f32
  tile.return
}

// -----

tile.func @call_undefined(%x: f32) {
  // expected-error @+1 {{'tile.call' op 'nowhere' does not name a tile.func}}
  %0 = tile.call @nowhere(%x) : (f32) -> f32
  tile.return
}

// -----

tile.func private @two_args(%a: f32, %b: f32) -> f32 {
  tile.return %a : f32
}

tile.func @call_argument_count(%x: f32) {
  // expected-error @+1 {{'tile.call' op passes 1 arguments but 'two_args' takes 2}}
  %0 = tile.call @two_args(%x) : (f32) -> f32
  tile.return
}

// -----

tile.func private @takes_f32(%a: f32) -> f32 {
  tile.return %a : f32
}

tile.func @call_argument_type(%x: i32) {
  // expected-error @+1 {{'tile.call' op argument 0 has type 'i32' but 'takes_f32' expects 'f32'}}
  %0 = tile.call @takes_f32(%x) : (i32) -> f32
  tile.return
}

// -----

tile.func private @returns_f32(%a: f32) -> f32 {
  tile.return %a : f32
}

tile.func @call_result_count(%x: f32) {
  // expected-error @+1 {{'tile.call' op expects 0 results but 'returns_f32' returns 1}}
  tile.call @returns_f32(%x) : (f32) -> ()
  tile.return
}

// -----

tile.func private @returns_f32(%a: f32) -> f32 {
  tile.return %a : f32
}

tile.func @call_result_type(%x: f32) {
  // expected-error @+1 {{'tile.call' op result 0 has type 'i32' but 'returns_f32' returns 'f32'}}
  %0 = tile.call @returns_f32(%x) : (f32) -> i32
  tile.return
}

//===----------------------------------------------------------------------===//
// Argument and result attributes (TileDialect.cpp)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op 'tile.divisibility' is only allowed on tile.func arguments}}
func.func @arg_attr_on_func_func(%x: i32 {tile.divisibility = 16 : i64}) {
  return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.nonnull' must be a unit attribute}}
tile.func @nonnull_not_unit(%p: !tile.ptr<f32> {tile.nonnull = true}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 1: 'tile.nonnull' applies to pointers, not 'i32'}}
tile.func @nonnull_integer(%p: !tile.ptr<f32>, %n: i32 {tile.nonnull}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.divisibility' applies to pointers and i32/i64 integers, not 'f32'}}
tile.func @divisibility_float(%x: f32 {tile.divisibility = 16 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.contiguity' applies to pointers and i32/i64 integers, not 'tensor<8xi16>'}}
tile.func @contiguity_i16(%x: tensor<8xi16> {tile.contiguity = 8 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.contiguity' as an array needs one entry per dimension of a tensor}}
tile.func @contiguity_array_rank(%x: tensor<8x8xi32> {tile.contiguity = array<i64: 1, 8, 1>}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.divisibility' as an array needs one entry per dimension of a tensor}}
tile.func @divisibility_array_scalar(%x: i64 {tile.divisibility = array<i64: 16>}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.constancy' must hold positive powers of 2, got 3}}
tile.func @constancy_array_values(%x: tensor<8x8xi32> {tile.constancy = array<i64: 3, 1>}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.constancy' must hold positive powers of 2, got 0}}
tile.func @constancy_array_zero(%x: tensor<8xi64> {tile.constancy = array<i64: 0>}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.divisibility' must be an integer attribute}}
tile.func @divisibility_string(%x: i32 {tile.divisibility = "16"}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.divisibility' must be a positive power of 2, got 12}}
tile.func @divisibility_not_power_of_two(%p: !tile.ptr<f16> {tile.divisibility = 12 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.contiguity' must be a positive power of 2, got 0}}
tile.func @contiguity_zero(%x: tensor<8xi32> {tile.contiguity = 0 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: 'tile.divisibility' must be a positive power of 2, got -16}}
tile.func @divisibility_negative(%x: i32 {tile.divisibility = -16 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument 0: unknown tile attribute 'tile.alignment'}}
tile.func @unknown_arg_attr(%x: i32 {tile.alignment = 16 : i64}) {
  tile.return
}

// -----

tile.func @result_attr_two_results(%x: tensor<8x2xi32>) {
  // expected-error @+1 {{'tile.split' op 'tile.divisibility' needs an op with exactly one result}}
  %0, %1 = tile.split %x {tile.divisibility = 16 : i64} : tensor<8x2xi32>
  tile.return
}

// -----

tile.func @result_attr_no_result(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'tile.store' op 'tile.constancy' needs an op with exactly one result}}
  tile.store %p, %v {tile.constancy = 1 : i64} : !tile.ptr<i32>
  tile.return
}

// -----

tile.func @result_attr_float(%x: f32) {
  // expected-error @+1 {{'arith.addf' op 'tile.divisibility' applies to pointers and i32/i64 integers, not 'f32'}}
  %0 = arith.addf %x, %x {tile.divisibility = 16 : i64} : f32
  tile.return
}

// -----

tile.func @result_attr_power_of_two(%x: i32) {
  // expected-error @+1 {{'arith.muli' op 'tile.divisibility' must be a positive power of 2, got 24}}
  %0 = arith.muli %x, %x {tile.divisibility = 24 : i64} : i32
  tile.return
}

// -----

tile.func @result_attr_nonnull(%x: i64) {
  // expected-error @+1 {{'arith.addi' op 'tile.nonnull' applies to pointers, not 'i64'}}
  %0 = arith.addi %x, %x {tile.nonnull} : i64
  tile.return
}

// -----

tile.func @result_attr_unknown(%x: i64) {
  // expected-error @+1 {{'arith.addi' op unknown tile attribute 'tile.hint'}}
  %0 = arith.addi %x, %x {tile.hint = 1 : i64} : i64
  tile.return
}

//===----------------------------------------------------------------------===//
// Pointer types (PointerType::verify)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{address space must not be negative, got -1}}
tile.func @negative_address_space(%p: !tile.ptr<f32, -1>) {
  tile.return
}

// -----

// expected-error @+1 {{a block pointer points to a tensor of integers or floats, not 'tensor<4x!tile.ptr<f32>>'}}
tile.func @block_pointer_of_pointers(%p: !tile.ptr<tensor<4x!tile.ptr<f32>>>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee must be an integer, float, pointer or ranked tensor type, not 'index'}}
tile.func @pointer_to_index(%p: !tile.ptr<index>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee must be an integer, float, pointer or ranked tensor type, not 'tensor<*xf32>'}}
tile.func @pointer_to_unranked(%p: !tile.ptr<tensor<*xf32>>) {
  tile.return
}

//===----------------------------------------------------------------------===//
// ODS-generated constraints
//===----------------------------------------------------------------------===//

// -----

tile.func @load_not_pointer(%x: tensor<128xf32>) {
  // expected-error @+1 {{'ptr' must be pointer or statically shaped tensor of pointer values or block pointer, but got 'tensor<128xf32>'}}
  %0 = tile.load %x : tensor<128xf32>
  tile.return
}

// -----

tile.func @load_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask has the shape of ptr, of i1}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  tile.return
}

// -----

// In the custom form the mask's type is implied by the pointer's.
tile.func @load_mask_shape_custom(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<128xi1>' vs 'tensor<64xi1>'}}
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @load_other_type(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf16>) {
  // expected-error @+1 {{'tile.load' op failed to verify that other has the type of the result}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf32>
  tile.return
}

// -----

tile.func @load_result_type(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op failed to verify that result is the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf16>
  tile.return
}

// -----

tile.func @load_mask_not_i1(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi32>) {
  // expected-error @+1 {{'tile.load' op operand #1 must be 1-bit signless integer or statically shaped tensor of 1-bit signless integer values, but got 'tensor<128xi32>'}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128xf32>
  tile.return
}

// -----

tile.func @store_value_type(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf16>) {
  // expected-error @+1 {{'tile.store' op failed to verify that value is the pointee of ptr}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>>, tensor<128xf16>) -> ()
  tile.return
}

// -----

tile.func @store_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<4xi1>) {
  // expected-error @+1 {{'tile.store' op failed to verify that mask has the shape of ptr, of i1}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<4xi1>) -> ()
  tile.return
}

// -----

tile.func @atomic_rmw_value_type(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xi32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that val is the pointee of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = #tile<rmw xchg>, scope = #tile<scope gpu>, sem = #tile<sem acq_rel>}> : (tensor<8x!tile.ptr<f32>>, tensor<8xi32>) -> tensor<8xf32>
  tile.return
}

// -----

tile.func @atomic_rmw_block_pointer(%p: !tile.ptr<tensor<8xi32>>, %v: tensor<8xi32>) {
  // expected-error @+1 {{'ptr' must be pointer or statically shaped tensor of pointer values, but got '!tile.ptr<tensor<8xi32>>'}}
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v : !tile.ptr<tensor<8xi32>>
  tile.return
}

// -----

tile.func @atomic_cas_cmp_type(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op failed to verify that cmp is the pointee of ptr}}
  %0 = "tile.atomic_cas"(%p, %c, %v) <{scope = #tile<scope gpu>, sem = #tile<sem acq_rel>}> : (!tile.ptr<i32>, i64, i32) -> i32
  tile.return
}

// -----

tile.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be integer or statically shaped tensor of integer values, but got 'f32'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  tile.return
}

// -----

tile.func @addptr_scalar_pointer_tensor_offset(%p: !tile.ptr<f32>, %o: tensor<4xi32>) {
  // expected-error @+1 {{'tile.addptr' op if an operand is non-scalar, then there must be at least one non-scalar result}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<4xi32>
  tile.return
}

// -----

tile.func @addptr_shapes(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<4xi32>) {
  // expected-error @+1 {{'tile.addptr' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, tensor<4xi32>
  tile.return
}

// -----

tile.func @addptr_result_type(%p: !tile.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  tile.return
}

// -----

tile.func @splat_of_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.splat' op operand #0 must be scalar, but got 'tensor<4xf32>'}}
  %0 = tile.splat %x : tensor<4xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.func @make_range_i64() {
  // expected-error @+1 {{'tile.make_range' op result #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<128xi64>'}}
  %0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi64>
  tile.return
}

// -----

tile.func @dot_result_type(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {c, d} have same type}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf16>
  tile.return
}

// -----

tile.func @int_to_ptr_i32(%x: i32) {
  // expected-error @+1 {{'tile.int_to_ptr' op operand #0 must be 64-bit signless integer or statically shaped tensor of 64-bit signless integer values, but got 'i32'}}
  %0 = tile.int_to_ptr %x : i32 -> !tile.ptr<f32>
  tile.return
}

// -----

tile.func @fp_to_fp_shape(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.fp_to_fp' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<32xf16>
  tile.return
}

// -----

tile.func @umulhi_float(%x: f32) {
  // expected-error @+1 {{'tile.umulhi' op operand #0 must be}}
  %0 = "tile.umulhi"(%x, %x) : (f32, f32) -> f32
  tile.return
}

// -----

tile.func @histogram_result_i64(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.histogram' op result #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<16xi64>'}}
  %0 = tile.histogram %x : tensor<64xi32> -> tensor<16xi64>
  tile.return
}

// -----

tile.func @advance_result_type(%p: !tile.ptr<tensor<64x32xf16>>, %o: i32) {
  // expected-error @+1 {{'tile.advance' op failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.advance"(%p, %o, %o) : (!tile.ptr<tensor<64x32xf16>>, i32, i32) -> !tile.ptr<tensor<64x32xf32>>
  tile.return
}

// -----

func.func @return_outside_tile_func() {
  // expected-error @+1 {{'tile.return' op expects parent op 'tile.func'}}
  tile.return
}

// -----

tile.func @reduce_return_outside_reduce(%x: f32) {
  // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

// -----

// Regressions for bugs found when this suite was first written.
// Regression: formerly bug 1.
tile.func @expand_dims_negative_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 is out of range for a tensor of rank 1}}
  %0 = tile.expand_dims %x {axis = -1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  tile.return
}

// -----

// Regression: formerly bug 1.
tile.func @gather_negative_axis(%src: tensor<64xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{'tile.gather' op axis -1 is out of range for a tensor of rank 1}}
  %0 = tile.gather %src[%idx] {axis = -1 : i32} : (tensor<64xf32>, tensor<32xi32>) -> tensor<32xf32>
  tile.return
}

// -----

// Regression: formerly bug 1.
tile.func @reduce_negative_axis(%x: tensor<128xf32>) {
  // expected-error @+2 {{tile.reduce: axis -1 is out of range for operand type 'tensor<128xf32>'}}
  // expected-error @+1 {{'tile.reduce' op failed to infer returned types}}
  %0 = "tile.reduce"(%x) <{axis = -1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }) : (tensor<128xf32>) -> f32
  tile.return
}

// -----

// Regression: formerly bug 1: [-4, 4) has 8 elements; the result has 4.
tile.func @make_range_negative_start() {
  // expected-error @+1 {{'tile.make_range' op result has 4 elements but the range [-4, 4) has 8}}
  %0 = tile.make_range {start = -4 : i32, end = 4 : i32} : tensor<4xi32>
  tile.return
}

// -----

// Regression: formerly bug 2.
tile.func @inline_asm_negative_packed_element(%a: tensor<64xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op packed_element must be at least 1, got -1}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = -1 : i32, pure = true} %a : tensor<64xi32> -> tensor<64xi32>
  tile.return
}

// -----

// Regression: formerly bug 3.
tile.func @dot_f32_into_f16(%a: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'tile.dot' op a dot of 'f32' needs a float accumulator of its width or more (f64 only with f64), got 'f16'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf16>
  tile.return
}

// -----

// Regression: formerly bug 3.
tile.func @dot_f16_into_fp8(%a: tensor<16x16xf16>, %c: tensor<16x16xf8E5M2>) {
  // expected-error @+1 {{'tile.dot' op a dot of 'f16' needs a float accumulator of its width or more (f64 only with f64), got 'f8E5M2'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf8E5M2>
  tile.return
}

// -----

// Regression: formerly bug 4.
tile.func @load_other_without_mask(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' requires a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<8x!tile.ptr<f32>>, tensor<8xf32>) -> tensor<8xf32>
  tile.return
}
