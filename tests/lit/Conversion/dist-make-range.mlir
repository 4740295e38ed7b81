// Distributed lowering: thread coordinates (DistLayout.cpp threadCoords,
// DistElementwise.cpp make_range). The thread id is the fourth field of the
// context; lane = tid & (warpSize - 1), warp = tid >> log2(warpSize). A
// layout's coordinate along a dimension is the XOR, over the set bits of the
// lane and warp ids, of that bit's basis, computed once in the prologue;
// register r adds (XORs) its own offset, and make_range adds its start.
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
// The 1-D layout: 2 * lane[0] ^ 4 * lane[1] ^ 8 * warp[0].
// CHECK:         %[[L0:[0-9]+]] = llvm.and %[[LANE]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[K2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[T0:[0-9]+]] = llvm.mul %[[L0]], %[[K2]] : i32
// CHECK-NEXT:    %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SH1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[S1:[0-9]+]] = llvm.lshr %[[LANE]], %[[SH1]] : i32
// CHECK-NEXT:    %[[L1:[0-9]+]] = llvm.and %[[S1]], %[[ONE]] : i32
// CHECK-NEXT:    %[[K4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[T1:[0-9]+]] = llvm.mul %[[L1]], %[[K4]] : i32
// CHECK-NEXT:    %[[X1:[0-9]+]] = llvm.xor %[[T0]], %[[T1]] : i32
// CHECK:         %[[W0:[0-9]+]] = llvm.and %[[WARP]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[K8:[0-9]+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    %[[T2:[0-9]+]] = llvm.mul %[[W0]], %[[K8]] : i32
// CHECK-NEXT:    %[[C1D:[0-9]+]] = llvm.xor %[[X1]], %[[T2]] : i32
// The slice layout's rows: lane[1] ^ 2 * warp[0].
// CHECK:         %[[RS:[0-9]+]] = llvm.lshr %[[LANE]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[RL:[0-9]+]] = llvm.and %[[RS]], %{{[0-9]+}} : i32
// CHECK:         %[[RW:[0-9]+]] = llvm.and %[[WARP]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[RK:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[RT:[0-9]+]] = llvm.mul %[[RW]], %[[RK]] : i32
// CHECK-NEXT:    %[[ROW:[0-9]+]] = llvm.xor %[[RL]], %[[RT]] : i32
// The owner of the slice's replicas: lane bit 0 clear.
// CHECK:         %[[OM:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[OB:[0-9]+]] = llvm.and %[[LANE]], %[[OM]] : i32
// CHECK-NEXT:    %[[OZ:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[OWNER:[0-9]+]] = llvm.icmp "eq" %[[OB]], %[[OZ]] : i32
// make_range 16..48 over the 1-D layout: registers 0, 1, 16, 17, plus 16.
// CHECK:         %[[S:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[R0:[0-9]+]] = llvm.add %[[C1D]], %[[S]] : i32
// CHECK-NEXT:    %[[O1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[X01:[0-9]+]] = llvm.xor %[[C1D]], %[[O1]] : i32
// CHECK-NEXT:    llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[R1:[0-9]+]] = llvm.add %[[X01]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[O16:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[X16:[0-9]+]] = llvm.xor %[[C1D]], %[[O16]] : i32
// CHECK-NEXT:    llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[R2:[0-9]+]] = llvm.add %[[X16]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[O17:[0-9]+]] = llvm.mlir.constant(17 : i32) : i32
// CHECK-NEXT:    %[[X17:[0-9]+]] = llvm.xor %[[C1D]], %[[O17]] : i32
// CHECK-NEXT:    llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[R3:[0-9]+]] = llvm.add %[[X17]], %{{[0-9]+}} : i32
// Every thread stores its 4 registers (no replication, no branch).
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.store %[[R0]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R1]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R2]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    llvm.store %[[R3]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// The rows: registers at +0 and +4, stored by the owners only.
// CHECK-NEXT:    %[[O4:[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[ROW4:[0-9]+]] = llvm.xor %[[ROW]], %[[O4]] : i32
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
