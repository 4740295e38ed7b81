// Distributed lowering of layout conversions and shape ops (DistShape.cpp).
// convert_layout between blocked layouts whose threads hold different
// elements goes through shared memory: every thread writes its registers
// row-major, rows of 128 bytes padded by 16 (element row * 36 + col), runs
// of registers along a row as 16-byte vectors, barrier, reads the
// registers of the new layout, barrier; the kernel's shared memory is the
// padded tile (32x36 f32: 4608 bytes). When the threads already hold the right elements -
// expand_dims of a slice then broadcast back to the parent, or a
// conversion between encodings that distribute identically - the result is
// the source registers: no shared memory, no barrier.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

// 32x32 f32 to a column-major layout. Source element (row, col) is loaded from
// %p + col, so a thread's 8 source registers are 8 distinct loads; the
// result is stored through the splat %p.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#t = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 4608 : i64
// CHECK:       llvm.func @convert(
// CHECK:         %[[SHMP:[0-9]+]] = llvm.getelementptr %{{[^ ]+}}[0, 2]
// CHECK-NEXT:    %[[SHM:[0-9]+]] = llvm.load %[[SHMP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[TIDP:[0-9]+]] = llvm.getelementptr %{{[^ ]+}}[0, 3]
// CHECK-NEXT:    %[[TID:[0-9]+]] = llvm.load %[[TIDP]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The source column (the load's make_range's; the conversion's is the same
// value, merged): lane bits 0-1 are columns 4, 8, so (lane & 3) << 2. The
// source row: lane bits 2-4 are rows 1, 2, 4 and warp bits 0-1 rows 8, 16,
// so ((lane >> 2) & 7) | ((warp & 3) << 3). (The new layout's row and column
// are the same two values, swapped.)
// CHECK-NEXT:    %[[C3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[LC:[0-9]+]] = llvm.and %[[LANE]], %[[C3]] : i32
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[COL:[0-9]+]] = llvm.shl %[[LC]], %[[C2]] : i32
// CHECK-NEXT:    %[[LS:[0-9]+]] = llvm.lshr %[[LANE]], %[[C2]] : i32
// CHECK-NEXT:    %[[C7:[0-9]+]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[LR:[0-9]+]] = llvm.and %[[LS]], %[[C7]] : i32
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK-NEXT:    %[[WR:[0-9]+]] = llvm.shl %[[WM]], %[[C3]] : i32
// CHECK-NEXT:    %[[ROW:[0-9]+]] = llvm.or %[[LR]], %[[WR]] : i32
// The source registers' columns: col + 1, 2, 3 (registers 1-3) and col + 16,
// 17, 18, 19 (registers 4-7), added (the thread's column bits are 4 and 8).
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C1]] : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C2]] : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C3]] : i32
// CHECK-NEXT:    %[[C16:[0-9]+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[COL16:[0-9]+]] = llvm.add %[[COL]], %[[C16]] : i32
// CHECK-NEXT:    %[[C17:[0-9]+]] = llvm.mlir.constant(17 : i32) : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C17]] : i32
// CHECK-NEXT:    %[[C18:[0-9]+]] = llvm.mlir.constant(18 : i32) : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C18]] : i32
// CHECK-NEXT:    %[[C19:[0-9]+]] = llvm.mlir.constant(19 : i32) : i32
// CHECK-NEXT:    llvm.add %[[COL]], %[[C19]] : i32
// The 8 source loads, one per register (%p + its column), in register order.
// CHECK-NEXT:    llvm.ptrtoint %arg0 : !llvm.ptr to i64
// CHECK:         %[[X0:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X1:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X2:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X3:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X4:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X5:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X6:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.inttoptr
// CHECK-NEXT:    %[[X7:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// Source registers 0-3 and 4-7 are runs of 4 along the row: two 16-byte
// stores, register r in element r % 4 of the vector at col + row * 36
// (rows padded from 32 to 36 elements) for r < 4, at col + 16 + row * 36
// (register 4's column) for the others.
// CHECK-NEXT:    %[[W:[0-9]+]] = llvm.mlir.constant(36 : i32) : i32
// CHECK-NEXT:    %[[ROWS:[0-9]+]] = llvm.mul %[[ROW]], %[[W]] : i32
// CHECK-NEXT:    %[[AT:[0-9]+]] = llvm.add %[[ROWS]], %[[COL]] : i32
// CHECK-NEXT:    %[[P:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[AT]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[UNDEF:[0-9]+]] = llvm.mlir.poison : vector<4xf32>
// CHECK-NEXT:    %[[C0:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[V0:[0-9]+]] = llvm.insertelement %[[X0]], %[[UNDEF]][%[[C0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[V1:[0-9]+]] = llvm.insertelement %[[X1]], %[[V0]][%[[C1]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[V2:[0-9]+]] = llvm.insertelement %[[X2]], %[[V1]][%[[C2]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[V:[0-9]+]] = llvm.insertelement %[[X3]], %[[V2]][%[[C3]] : i32] : vector<4xf32>
// CHECK-NEXT:    llvm.store %[[V]], %[[P]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NEXT:    %[[AT16:[0-9]+]] = llvm.add %[[ROWS]], %[[COL16]] : i32
// CHECK-NEXT:    %[[P16:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[AT16]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[U0:[0-9]+]] = llvm.insertelement %[[X4]], %[[UNDEF]][%[[C0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[U1:[0-9]+]] = llvm.insertelement %[[X5]], %[[U0]][%[[C1]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[U2:[0-9]+]] = llvm.insertelement %[[X6]], %[[U1]][%[[C2]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[U:[0-9]+]] = llvm.insertelement %[[X7]], %[[U2]][%[[C3]] : i32] : vector<4xf32>
// CHECK-NEXT:    llvm.store %[[U]], %[[P16]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// The new layout's registers run down a column: 8 scalar loads.
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NOT:     @test_barrier
// CHECK-COUNT-8: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         llvm.return
tile.func @convert(%p: !tile.ptr<f32>) {
  %c = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tile.slice<{dim = 0, parent = #a}>>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #tile.slice<{dim = 0, parent = #a}>> -> tensor<1x32xi32, #a>
  %cb = tile.broadcast %ce : tensor<1x32xi32, #a> -> tensor<32x32xi32, #a>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #a>
  %pa = tile.addptr %ps, %cb : tensor<32x32x!tile.ptr<f32>, #a>, tensor<32x32xi32, #a>
  %x = tile.load %pa : tensor<32x32x!tile.ptr<f32>, #a>
  %y = tile.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #t>
  %qs = tile.splat %p : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #t>
  tile.store %qs, %y : tensor<32x32x!tile.ptr<f32>, #t>
  tile.return
}
}

// -----

// Column indices: make_range in the slice, expand_dims, broadcast to 32x32:
// the 8 registers of the 32x32 tile are the make_range's (its column c and
// c + 1, 2, 3, 16, 17, 18, 19), in registers. A 1-D blocked layout and a
// slice that places lanes and warps the same: a renaming. All the stores go
// through the one splat pointer (common subexpressions are merged).
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#p = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// CHECK-NOT:   @test_barrier
// CHECK:       llvm.func @regs_only(
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The slice's column: lane bits 0-1 are columns 4 and 8, one field
// (lane & 3) << 2.
// CHECK-NEXT:    %[[K3:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[LC:[0-9]+]] = llvm.and %[[LANE]], %[[K3]] : i32
// CHECK-NEXT:    %[[K2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[C:[0-9]+]] = llvm.shl %[[LC]], %[[K2]] : i32
// The 128-element range, placed the same in both layouts: the lane (its
// field, lane & 31, is the lane itself) | (warp & 3) << 5.
// CHECK-NEXT:    %[[WM:[0-9]+]] = llvm.and %[[WARP]], %[[K3]] : i32
// CHECK-NEXT:    %[[WF:[0-9]+]] = llvm.shl %[[WM]], %[[C5]] : i32
// CHECK-NEXT:    %[[R:[0-9]+]] = llvm.or %[[LANE]], %[[WF]] : i32
// The column's registers are added to it (the thread's column bits, 4 and
// 8, never overlap 1, 2, 3, 16, 17, 18, 19).
// CHECK-NEXT:    %[[O1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.add %[[C]], %[[O1]] : i32
// CHECK:         %[[O19:[0-9]+]] = llvm.mlir.constant(19 : i32) : i32
// CHECK-NEXT:    %[[C19:[0-9]+]] = llvm.add %[[C]], %[[O19]] : i32
// CHECK-NOT:     llvm.load
// CHECK:         llvm.store %[[C]], %[[PTR:[0-9]+]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[C1]], %[[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-COUNT-5: llvm.store %{{[0-9]+}}, %[[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[C19]], %[[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[R]], %[[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.return
tile.func @regs_only(%p: !tile.ptr<i32>) {
  %c = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tile.slice<{dim = 0, parent = #a}>>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #tile.slice<{dim = 0, parent = #a}>> -> tensor<1x32xi32, #a>
  %cb = tile.broadcast %ce : tensor<1x32xi32, #a> -> tensor<32x32xi32, #a>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<32x32x!tile.ptr<i32>, #a>
  tile.store %ps, %cb : tensor<32x32x!tile.ptr<i32>, #a>
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %rs = tile.convert_layout %r : tensor<128xi32, #b1> -> tensor<128xi32, #tile.slice<{dim = 0, parent = #p}>>
  %qs = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #tile.slice<{dim = 0, parent = #p}>>
  tile.store %qs, %rs : tensor<128x!tile.ptr<i32>, #tile.slice<{dim = 0, parent = #p}>>
  tile.return
}
}
