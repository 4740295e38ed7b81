// Distributed lowering of tile.scan (DistReduceScan.cpp lowerScan): through
// shared memory. The tile is written row-major (each thread its registers),
// barrier; thread t scans lines t, t + 128, ... (a loop from the thread id,
// step num_warps * warp size) with an inner loop along the axis that
// combines and writes back in place; barrier; each thread reads its
// registers back; barrier. A reverse scan walks the line from its end.
// Common subexpressions are merged: the registers, which all load the splat
// pointer, are one load, and constants and addresses are shared.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

// Inclusive cumsum of 256 i32 (one line): 1024 bytes of shared memory.
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 1024 : i64
// CHECK:       llvm.func @cumsum(
// CHECK:         %[[SHMP:[0-9]+]] = llvm.getelementptr %{{[^ ]+}}[0, 2]
// CHECK-NEXT:    %[[SHM:[0-9]+]] = llvm.load %[[SHMP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[TIDP:[0-9]+]] = llvm.getelementptr %{{[^ ]+}}[0, 3]
// CHECK-NEXT:    %[[TID:[0-9]+]] = llvm.load %[[TIDP]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The thread's coordinate c: the lanes are elements 2..32 and the warps 64
// and 128, so (lane << 1) | ((warp & 3) << 6) (the lane's & 31 is the lane
// itself).
// CHECK-NEXT:    %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[LF:[0-9]+]] = llvm.shl %[[LANE]], %[[ONE]] : i32
// CHECK-NEXT:    %[[C3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK-NEXT:    %[[C6:[0-9]+]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-NEXT:    %[[WF:[0-9]+]] = llvm.shl %[[WM]], %[[C6]] : i32
// CHECK-NEXT:    %[[C:[0-9]+]] = llvm.or %[[LF]], %[[WF]] : i32
// Registers 0 and 1 (one load of the splat pointer) are elements c and c + 1
// (added: c is even).
// CHECK:         %[[X:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[A0:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[C]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[X]], %[[A0]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.add %[[C]], %[[ONE]] : i32
// CHECK-NEXT:    %[[A1:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[C1]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[X]], %[[A1]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// Lines from the thread id, 128 threads apart; 1 line (the bound is the
// constant 1 above).
// CHECK-NEXT:    %[[STEP:[0-9]+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%[[TID]] : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[LINE:[0-9]+]]: i32):
// CHECK-NEXT:    %[[MORE:[0-9]+]] = llvm.icmp "slt" %[[LINE]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^{{bb[0-9]+}}, ^[[DONE:bb[0-9]+]]
// The steps 1..255 along the line (from line * 256), in place: the store
// goes to the address of the load.
// CHECK-NEXT:  ^{{bb[0-9]+}}:
// CHECK-NEXT:    %[[LEN:[0-9]+]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[START:[0-9]+]] = llvm.mul %[[LINE]], %[[LEN]] : i32
// CHECK-NEXT:    %[[P0:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[START]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = llvm.load %[[P0]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.br ^[[STEPS:bb[0-9]+]](%[[ONE]], %[[FIRST]] : i32, i32)
// CHECK-NEXT:  ^[[STEPS]](%[[K:[0-9]+]]: i32, %[[ACC:[0-9]+]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %[[LEN]] : i32
// CHECK:         %[[ATI:[0-9]+]] = llvm.add %[[START]], %[[K]] : i32
// CHECK-NEXT:    %[[AT:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[ATI]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[NEXT:[0-9]+]] = llvm.load %[[AT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[SUM:[0-9]+]] = llvm.add %[[ACC]], %[[NEXT]] : i32
// CHECK-NEXT:    llvm.store %[[SUM]], %[[AT]] : i32, !llvm.ptr
// CHECK:         llvm.add %[[LINE]], %[[STEP]] : i32
// CHECK-NEXT:    llvm.br ^[[HEAD]]
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// Each thread reads its registers back from the addresses it wrote.
// CHECK-NEXT:    %[[Y0:[0-9]+]] = llvm.load %[[A0]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[Y1:[0-9]+]] = llvm.load %[[A1]] : !llvm.ptr -> i32
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
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The row: lane bits 2-4, (lane >> 2) & 7. The column: lane bits 0-1 or'ed
// with the warp bits as bits 2-3, (lane & 3) | ((warp & 3) << 2).
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[LS:[0-9]+]] = llvm.lshr %[[LANE]], %[[C2]] : i32
// CHECK-NEXT:    %[[C7:[0-9]+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[ROW:[0-9]+]] = llvm.and %[[LS]], %[[C7]] : i32
// CHECK-NEXT:    %[[C3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[LC:[0-9]+]] = llvm.and %[[LANE]], %[[C3]] : i32
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK-NEXT:    %[[WC:[0-9]+]] = llvm.shl %[[WM]], %[[C2]] : i32
// CHECK-NEXT:    %[[TCOL:[0-9]+]] = llvm.or %[[LC]], %[[WC]] : i32
// Written row-major at row * 32 + column.
// CHECK:         %[[K32:[0-9]+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    %[[ROWS:[0-9]+]] = llvm.mul %[[ROW]], %[[K32]] : i32
// CHECK-NEXT:    llvm.add %[[TCOL]], %[[ROWS]] : i32
// 32 lines (the bound is the 32 above).
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%[[TID]] : i32)
// CHECK-NEXT:  ^[[HEAD]](%[[LINE:[0-9]+]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[LINE]], %[[K32]] : i32
// CHECK:         %[[Q:[0-9]+]] = llvm.udiv %[[LINE]], %[[K32]] : i32
// CHECK-NEXT:    %[[PLANE:[0-9]+]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[QP:[0-9]+]] = llvm.mul %[[Q]], %[[PLANE]] : i32
// CHECK-NEXT:    %[[COL:[0-9]+]] = llvm.urem %[[LINE]], %[[K32]] : i32
// CHECK-NEXT:    %[[BASE:[0-9]+]] = llvm.add %[[QP]], %[[COL]] : i32
// The first element of the line is its last: 7 * 32.
// CHECK-NEXT:    %[[LAST:[0-9]+]] = llvm.mlir.constant(224 : i32) : i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = llvm.add %[[BASE]], %[[LAST]] : i32
// CHECK:         ^{{bb[0-9]+}}(%[[K:[0-9]+]]: i32, %[[ACC:[0-9]+]]: f32):
// Step k reads element (7 - k) * 32 (the 7 and the 32 are the constants of
// the coordinates above).
// CHECK:         %[[BACK:[0-9]+]] = llvm.sub %[[C7]], %[[K]] : i32
// CHECK-NEXT:    %[[OFF:[0-9]+]] = llvm.mul %[[BACK]], %[[K32]] : i32
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
