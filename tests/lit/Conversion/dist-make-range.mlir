// Distributed lowering: thread coordinates (DistLayout.cpp threadCoords,
// DistElementwise.cpp make_range). The thread id is the fourth field of the
// context; lane = tid & (warpSize - 1), warp = tid >> log2(warpSize). A
// layout's coordinate along a dimension is the XOR, over the set bits of the
// lane and warp ids, of that bit's basis, computed once in the prologue: a
// run of id bits whose bases are consecutive powers of two is one field
// ((id >> bit) & mask) << shift, and fields whose bits cannot overlap are
// or'ed. Register r XORs its own offset, or adds it where the thread's bits
// cannot overlap it, and make_range adds its start. Common subexpressions
// (constants included) are merged, so each constant appears once.
// Here warps are 4 threads (warp-size=4) and the module runs 2 warps, so the
// whole mapping is a few lines.

// RUN: tegula-opt %s '--tile-test-lower-to-llvm=distributed=true warp-size=4' | FileCheck %s

// 32 elements, sizePerThread = [2], threadsPerWarp = [4], warpsPerCTA = [2]:
// lane bits are elements 2 and 4, the warp bit element 8; the registers of a
// thread are at offsets 0, 1, 16 and 17 from its coordinate.
// Slice layout dim = 1 of a [1, 2] / [2, 2] / [2, 1] blocked layout over 8
// rows: lane bit 0 walks the dropped dimension (lanes 0 and 1 hold the same
// rows), lane bit 1 is row 1, the warp bit row 2, and the registers are rows
// +0 and +4. Stores of it act in lanes whose bit 0 is clear.
#b1 = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [4], warpsPerCTA = [2], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 2], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {tile.num_warps = 2 : i32} {
// CHECK-LABEL: llvm.func @ranges(
// CHECK-SAME:      %[[P:[^:]+]]: !llvm.ptr, %[[CTX:[^:]+]]: !llvm.ptr)
// CHECK:         %[[TIDP:[0-9]+]] = llvm.getelementptr %[[CTX]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, ptr, i32)>
// CHECK-NEXT:    %[[TID:[0-9]+]] = llvm.load %[[TIDP]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C3]] : i32
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C2]] : i32
// The 1-D layout: lane bits 0-1 are one field, (lane & 3) << 1 (the & 3
// folds into the lane's own), or'ed with the warp bit, (warp & 1) << 3.
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[LF:[0-9]+]] = llvm.shl %[[LANE]], %[[C1]] : i32
// CHECK-NEXT:    %[[W0:[0-9]+]] = llvm.and %[[WARP]], %[[C1]] : i32
// CHECK-NEXT:    %[[WF:[0-9]+]] = llvm.shl %[[W0]], %[[C3]] : i32
// CHECK-NEXT:    %[[C1D:[0-9]+]] = llvm.or %[[LF]], %[[WF]] : i32
// The slice layout's rows: ((lane >> 1) & 1) | ((warp & 1) << 1).
// CHECK-NEXT:    %[[RS:[0-9]+]] = llvm.lshr %[[LANE]], %[[C1]] : i32
// CHECK-NEXT:    %[[RL:[0-9]+]] = llvm.and %[[RS]], %[[C1]] : i32
// CHECK-NEXT:    %[[RW:[0-9]+]] = llvm.shl %[[W0]], %[[C1]] : i32
// CHECK-NEXT:    %[[ROW:[0-9]+]] = llvm.or %[[RL]], %[[RW]] : i32
// The owner of the slice's replicas: lane bit 0 clear.
// CHECK-NEXT:    %[[OB:[0-9]+]] = llvm.and %[[LANE]], %[[C1]] : i32
// CHECK-NEXT:    %[[OZ:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[OWNER:[0-9]+]] = llvm.icmp "eq" %[[OB]], %[[OZ]] : i32
// make_range 16..48 over the 1-D layout: registers 0, 1, 16, 17, each added
// (the thread's bits, 2, 4 and 8, never overlap them), plus 16. Register 16's
// offset add is register 0's add of the start, so it is reused.
// CHECK-NEXT:    %[[S:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[R0:[0-9]+]] = llvm.add %[[C1D]], %[[S]] : i32
// CHECK-NEXT:    %[[A01:[0-9]+]] = llvm.add %[[C1D]], %[[C1]] : i32
// CHECK-NEXT:    %[[R1:[0-9]+]] = llvm.add %[[A01]], %[[S]] : i32
// CHECK-NEXT:    %[[R2:[0-9]+]] = llvm.add %[[R0]], %[[S]] : i32
// CHECK-NEXT:    %[[O17:[0-9]+]] = llvm.mlir.constant(17 : i32) : i32
// CHECK-NEXT:    %[[A17:[0-9]+]] = llvm.add %[[C1D]], %[[O17]] : i32
// CHECK-NEXT:    %[[R3:[0-9]+]] = llvm.add %[[A17]], %[[S]] : i32
// Every thread stores its 4 registers (no replication, no branch).
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.store %[[R0]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R1]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R2]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R3]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// The rows: registers at +0 and +4 (added: the thread's row bits are 1 and
// 2), stored by the owners only.
// CHECK-NEXT:    %[[O4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[ROW4:[0-9]+]] = llvm.add %[[ROW]], %[[O4]] : i32
// CHECK:         llvm.cond_br %[[OWNER]], ^[[ST0:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST0]]:
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[ROW]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.cond_br %[[OWNER]], ^[[ST1:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST1]]:
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[ROW4]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK:         llvm.return
tile.func @ranges(%p: !tile.ptr<i32>) {
  %r = tile.make_range {end = 48 : i32, start = 16 : i32} : tensor<32xi32, #b1>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b1>
  %pa = tile.addptr %ps, %r : tensor<32x!tile.ptr<i32>, #b1>, tensor<32xi32, #b1>
  tile.store %pa, %r : tensor<32x!tile.ptr<i32>, #b1>
  %rows = tile.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #tile.slice<{dim = 1, parent = #b2}>>
  %rs = tile.splat %p : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>, #tile.slice<{dim = 1, parent = #b2}>>
  %ra = tile.addptr %rs, %rows : tensor<8x!tile.ptr<i32>, #tile.slice<{dim = 1, parent = #b2}>>, tensor<8xi32, #tile.slice<{dim = 1, parent = #b2}>>
  tile.store %ra, %rows : tensor<8x!tile.ptr<i32>, #tile.slice<{dim = 1, parent = #b2}>>
  tile.return
}
}
