// Regression test; the bug it caught (Scratch.cpp ScratchPlan x Fusion.cpp chunk groups): the scratch plan
// numbers ops one at a time and lets a tile reuse the memory of a tile whose
// last use is an earlier op. A chunk group runs its members interleaved chunk
// by chunk, so a member's result can be stored (chunk k) before an earlier
// member has read its operand's later chunks. When the result's elements are
// wider than the dead operand's, chunk k of the result overwrites chunks k, k+1
// of the operand before they are read.
//
// Here %T (64 x i32, last read by the store) and %w (64 x i64, extsi of %S,
// read after a barrier) are given the same scratch offset; in the group loop,
// chunk 0 of %w (128 bytes) overwrites %T[0..31], so out[16..63] receive bits
// of %w instead of 7: the run prints "out 7 1 0 out2 1 1" instead of
// "out 7 7 7 out2 1 1". Any tile read by a group member and dead after it
// can be hit (i32 offsets, i1 masks, ...) when a later member of the same
// group stores a result with wider elements (i64, f64, pointers) over it.
//
// Expected: the plan treats a chunk group as one point (operands read by any
// member live until the group's last member), or does not reuse an operand's
// memory for a wider result in the same group.

// RUN: tegula-opt %s --tile-test-lower-to-llvm | mlir-translate --mlir-to-llvmir -o %t.kernel.ll
// RUN: llvm-link %t.kernel.ll %S/Inputs/clobber-driver.ll -S -o %t.ll
// RUN: lli %t.ll | FileCheck %s

// CHECK: out 7 7 7 out2 1 1
tile.func @clobber(%out: !tile.ptr<i32> {tile.divisibility = 16 : i64}, %out2: !tile.ptr<i64> {tile.divisibility = 16 : i64}, %x: i32, %y: i32) {
  %S = tile.splat %x : i32 -> tensor<64xi32>
  tile.debug_barrier
  %T = tile.splat %y : i32 -> tensor<64xi32>
  tile.debug_barrier
  // One chunk group: the store is the last use of %T; %w escapes the group.
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ps = tile.splat %out : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %pa = tile.addptr %ps, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %pa, %T : tensor<64x!tile.ptr<i32>>
  %w = arith.extsi %S : tensor<64xi32> to tensor<64xi64>
  tile.debug_barrier
  %r2 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %qs = tile.splat %out2 : !tile.ptr<i64> -> tensor<64x!tile.ptr<i64>>
  %qa = tile.addptr %qs, %r2 : tensor<64x!tile.ptr<i64>>, tensor<64xi32>
  tile.store %qa, %w : tensor<64x!tile.ptr<i64>>
  tile.return
}
