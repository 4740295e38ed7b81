// Distributed lowering of atomics (DistMemory.cpp lowerAtomic,
// DistLowering.cpp lowerScalarSideEffect). A tile atomic acts once per
// element: when the layout replicates the tile (64 elements over 4 warps of
// 32 threads: warps 2 and 3 hold copies of warps 0 and 1), only the owner
// ((warp & 2) == 0) performs it, under its mask; when the old values are
// used, the owners pass them to their replicas through shared memory
// (owner stores, barrier, everyone loads, barrier). A scalar atomic is
// performed by thread 0 alone, and its old value reaches every thread
// through shared memory (barrier, load, barrier).

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 256 : i64
// CHECK:       llvm.func @replicated(
// CHECK-SAME:      %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: i32,
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The element: the lane bits (their field, lane & 31, is the lane itself)
// or'ed with warp bit 0 as element bit 5, (warp & 1) << 5; warp bit 1
// replicates.
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[W0:[0-9]+]] = llvm.and %[[WARP]], %[[C1]] : i32
// CHECK-NEXT:    %[[WT:[0-9]+]] = llvm.shl %[[W0]], %[[C5]] : i32
// CHECK-NEXT:    %[[E:[0-9]+]] = llvm.or %[[LANE]], %[[WT]] : i32
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[WB:[0-9]+]] = llvm.and %[[WARP]], %[[C2]] : i32
// CHECK-NEXT:    %[[Z:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[OWNER:[0-9]+]] = llvm.icmp "eq" %[[WB]], %[[Z]] : i32
// CHECK:         %[[M:[0-9]+]] = llvm.icmp "slt" %[[E]], %[[N]] : i32
// CHECK:         %[[GO:[0-9]+]] = llvm.and %[[M]], %[[OWNER]] : i1
// CHECK-NEXT:    %[[ADDR:[0-9]+]] = llvm.inttoptr %{{[0-9]+}} : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.cond_br %[[GO]], ^[[DO:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK-NEXT:  ^[[DO]]:
// CHECK-NEXT:    %[[OLD:[0-9]+]] = llvm.atomicrmw fadd %[[ADDR]], %{{[0-9]+}} acq_rel : !llvm.ptr, f32
// CHECK-NOT:     llvm.atomicrmw
// The owners publish the old values, then every thread reads its own.
// CHECK:         ^{{bb[0-9]+}}(%[[V:[0-9]+]]: f32):
// CHECK:         llvm.cond_br %[[OWNER]], ^[[PUB:bb[0-9]+]], ^[[WAIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[PUB]]:
// CHECK-NEXT:    %[[S:[0-9]+]] = llvm.getelementptr %[[SHM:[0-9]+]][%[[E]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[V]], %[[S]] : f32, !llvm.ptr
// CHECK:       ^[[WAIT]]:
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[L:[0-9]+]] = llvm.getelementptr %[[SHM]][%[[E]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[R:[0-9]+]] = llvm.load %[[L]] : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// The store of the old values is the owners' too.
// CHECK:         llvm.cond_br %[[OWNER]]
// CHECK:         llvm.store %[[R]], %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         llvm.return
tile.func @replicated(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %n: i32) {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<64xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32, #b>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %pa = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  %one = arith.constant dense<1.000000e+00> : tensor<64xf32, #b>
  %old = tile.atomic_rmw fadd, acq_rel, gpu, %pa, %one, %m : tensor<64x!tile.ptr<f32>, #b>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %qa = tile.addptr %qs, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  tile.store %qa, %old : tensor<64x!tile.ptr<f32>, #b>
  tile.return
}
}

// -----

// 256 elements over 128 threads: no replication, so no owner predicate;
// unmasked, each register's atomic runs unconditionally, and with the old
// values unused nothing goes through shared memory.
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// CHECK-NOT:   @test_barrier
// CHECK:       llvm.func @not_replicated(
// CHECK-NOT:     llvm.cond_br
// CHECK-COUNT-2: llvm.atomicrmw add %{{[0-9]+}}, %{{[0-9]+}} monotonic : !llvm.ptr, i32
// CHECK-NOT:     llvm.cond_br
// CHECK-NOT:     llvm.atomicrmw
// CHECK:         llvm.return
tile.func @not_replicated(%p: !tile.ptr<i32>) {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #b>
  %pa = tile.addptr %ps, %r : tensor<256x!tile.ptr<i32>, #b>, tensor<256xi32, #b>
  %one = arith.constant dense<1> : tensor<256xi32, #b>
  %old = tile.atomic_rmw add, relaxed, gpu, %pa, %one : tensor<256x!tile.ptr<i32>, #b>
  tile.return
}
}

// -----

// Scalar atomics: barrier (every thread has done its earlier loads); thread 0
// performs each and stores the old value at shared byte 0; barrier; every
// thread loads it; barrier. The CAS compares with the broadcast value of the
// add. A scalar store is also thread 0's, between two barriers. The
// thread-0 test is computed once and reused (common subexpressions are
// merged).
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: module attributes {lowering.scratch_bytes = 16 : i64
// CHECK:       llvm.func @scalar_atomics(
// CHECK-SAME:      %[[C:[^:]+]]: !llvm.ptr, %[[OUT:[^:]+]]: !llvm.ptr, %[[CTX:[^:]+]]: !llvm.ptr)
// CHECK:         %[[SHMP:[0-9]+]] = llvm.getelementptr %[[CTX]][0, 2]
// CHECK-NEXT:    %[[SHM:[0-9]+]] = llvm.load %[[SHMP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[TIDP:[0-9]+]] = llvm.getelementptr %[[CTX]][0, 3]
// CHECK-NEXT:    %[[TID:[0-9]+]] = llvm.load %[[TIDP]] : !llvm.ptr -> i32
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[Z0:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = llvm.icmp "eq" %[[TID]], %[[Z0]] : i32
// CHECK-NEXT:    llvm.cond_br %[[FIRST]], ^[[DO:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]
// CHECK-NEXT:  ^[[DO]]:
// CHECK-NEXT:    %[[OLD:[0-9]+]] = llvm.atomicrmw add %[[C]], %{{[0-9]+}} acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[OLD]], %[[SHM]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[T:[0-9]+]] = llvm.load %[[SHM]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    llvm.cond_br %[[FIRST]], ^[[CAS:bb[0-9]+]], ^[[JOIN2:bb[0-9]+]]
// CHECK-NEXT:  ^[[CAS]]:
// CHECK-NEXT:    %[[PAIR:[0-9]+]] = llvm.cmpxchg %[[C]], %[[T]], %{{[0-9]+}} acq_rel acquire : !llvm.ptr, i32
// CHECK-NEXT:    %[[SEEN:[0-9]+]] = llvm.extractvalue %[[PAIR]][0]
// CHECK-NEXT:    llvm.store %[[SEEN]], %[[SHM]] : i32, !llvm.ptr
// CHECK:       ^[[JOIN2]]:
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    %[[TT:[0-9]+]] = llvm.load %[[SHM]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// The scalar store: thread 0 again, between barriers, no broadcast.
// CHECK-NEXT:    %[[O:[0-9]+]] = llvm.getelementptr %[[OUT]][%[[TT]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.call @test_barrier() : () -> ()
// CHECK-NEXT:    llvm.cond_br %[[FIRST]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
// CHECK-NEXT:  ^{{bb[0-9]+}}:
// CHECK-NEXT:    llvm.store %[[T]], %[[O]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK:         llvm.call @test_barrier() : () -> ()
// CHECK-NOT:     @test_barrier
// CHECK:         llvm.return
tile.func @scalar_atomics(%c: !tile.ptr<i32>, %out: !tile.ptr<i32>) {
  %one = arith.constant 1 : i32
  %t = tile.atomic_rmw add, acq_rel, gpu, %c, %one : !tile.ptr<i32>
  %tt = tile.atomic_cas acq_rel, gpu, %c, %t, %one : !tile.ptr<i32>
  %o = tile.addptr %out, %tt : !tile.ptr<i32>, i32
  tile.store %o, %t : !tile.ptr<i32>
  tile.return
}
}
