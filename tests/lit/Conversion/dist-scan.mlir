// Distributed lowering of tile.scan (DistReduceScan.cpp lowerScan): through
// shared memory. The tile is written row-major (each thread its registers),
// barrier; thread t scans lines t, t + 128, ... (a loop from the thread id,
// step num_warps * warp size) with an inner loop along the axis that
// combines and writes back in place; barrier; each thread reads its
// registers back; barrier. A reverse scan walks the line from its end.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

// Inclusive cumsum of 256 i32 (one line): 1024 bytes of shared memory.
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 1024 : i64
// CHECK:       llvm.func @cumsum(
// CHECK:         %[[SHMP:[0-9]+]] = llvm.getelementptr %{{[^ ]+}}[0, 2]
// CHECK-NEXT:    %[[SHM:[0-9]+]] = llvm.load %[[SHMP]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// Registers 0 and 1 are elements c and c ^ 1 (c: the thread's coordinate).
// CHECK:         %[[X0:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[X1:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[A0:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[C:[0-9]+]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[X0]], %[[A0]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.xor %[[C]], %[[ONE]] : i32
// CHECK-NEXT:    %[[A1:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[C1]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[X1]], %[[A1]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// Lines from the thread id, 128 threads apart; 1 line.
// CHECK-NEXT:    %[[STEP:[0-9]+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[LINES:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%[[TID]] : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[LINE:[0-9]+]]: i32):
// CHECK-NEXT:    %[[MORE:[0-9]+]] = llvm.icmp "slt" %[[LINE]], %[[LINES]] : i32
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^{{bb[0-9]+}}, ^[[DONE:bb[0-9]+]]
// The steps 1..255 along the line, in place.
// CHECK:         %[[FIRST:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[LEN:[0-9]+]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[K1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[STEPS:bb[0-9]+]](%[[K1]], %[[FIRST]] : i32, i32)
// CHECK-NEXT:  ^[[STEPS]](%[[K:[0-9]+]]: i32, %[[ACC:[0-9]+]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %[[LEN]] : i32
// CHECK:         %[[AT:[0-9]+]] = llvm.getelementptr %[[SHM]][%{{[0-9]+}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[NEXT:[0-9]+]] = llvm.load %[[AT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[SUM:[0-9]+]] = llvm.add %[[ACC]], %[[NEXT]] : i32
// CHECK-NEXT:    %[[AT2:[0-9]+]] = llvm.getelementptr %[[SHM]][%{{[0-9]+}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[SUM]], %[[AT2]] : i32, !llvm.ptr
// CHECK:         llvm.add %[[LINE]], %[[STEP]] : i32
// CHECK-NEXT:    llvm.br ^[[HEAD]]
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[B0:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[C]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[Y0:[0-9]+]] = llvm.load %[[B0]] : !llvm.ptr -> i32
// CHECK:         %[[Y1:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK:         llvm.store %[[Y0]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.store %[[Y1]], %{{[0-9]+}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT:     @test_barrier
// CHECK:         llvm.return
tile.func @cumsum(%p: !tile.ptr<i32>) {
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #b>
  %x = tile.load %ps : tensor<256x!tile.ptr<i32>, #b>
  %c = "tile.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%l: i32, %r: i32):
    %s = arith.addi %l, %r : i32
    tile.scan.return %s : i32
  }) : (tensor<256xi32, #b>) -> tensor<256xi32, #b>
  tile.store %ps, %c : tensor<256x!tile.ptr<i32>, #b>
  tile.return
}
}

// -----

// A reverse scan along axis 0 of 8x32: 32 lines (one per column) of 8
// elements 32 apart; line l starts at (l / 32) * 256 + l % 32 and step k
// reads element (7 - k) * 32 from there.
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 1024 : i64
// CHECK:       llvm.func @rev_cumprod(
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK:         %[[LINES:[0-9]+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%{{[0-9]+}} : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[LINE:[0-9]+]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[LINE]], %[[LINES]] : i32
// CHECK:         %[[COL:[0-9]+]] = llvm.urem %[[LINE]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[PLANE:[0-9]+]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    %[[Q:[0-9]+]] = llvm.udiv %[[LINE]], %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[QP:[0-9]+]] = llvm.mul %[[Q]], %[[PLANE]] : i32
// CHECK-NEXT:    %[[BASE:[0-9]+]] = llvm.add %[[QP]], %[[COL]] : i32
// The first element of the line is its last: 7 * 32.
// CHECK:         %[[LAST:[0-9]+]] = llvm.mlir.constant(224 : i32) : i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = llvm.add %[[BASE]], %[[LAST]] : i32
// CHECK:         ^{{bb[0-9]+}}(%[[K:[0-9]+]]: i32, %[[ACC:[0-9]+]]: f32):
// CHECK:         %[[SEVEN:[0-9]+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[BACK:[0-9]+]] = llvm.sub %[[SEVEN]], %[[K]] : i32
// CHECK-NEXT:    %[[STRIDE:[0-9]+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    %[[OFF:[0-9]+]] = llvm.mul %[[BACK]], %[[STRIDE]] : i32
// CHECK-NEXT:    %[[AT:[0-9]+]] = llvm.add %[[BASE]], %[[OFF]] : i32
// CHECK:         llvm.fmul %[[ACC]], %{{[0-9]+}} : f32
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK-NOT:     @test_barrier
// CHECK:         llvm.return
tile.func @rev_cumprod(%p: !tile.ptr<f32>) {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<8x32x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<8x32x!tile.ptr<f32>, #b>
  %c = "tile.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%l: f32, %r: f32):
    %s = arith.mulf %l, %r : f32
    tile.scan.return %s : f32
  }) : (tensor<8x32xf32, #b>) -> tensor<8x32xf32, #b>
  tile.store %ps, %c : tensor<8x32x!tile.ptr<f32>, #b>
  tile.return
}
}
