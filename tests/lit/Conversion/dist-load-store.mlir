// Distributed lowering of loads and stores (DistMemory.cpp). Each thread
// accesses its own registers: with #tile.blocked sizePerThread = [4] over
// 1024 elements and 4 warps of 32, a thread holds elements {4t..4t+3} and
// {512+4t..512+4t+3}. When the axis analysis proves the pointers contiguous
// and 16-byte aligned and the mask constant over runs of >= 4 (n divisible
// by 16), each run of 4 registers is one 128-bit access (vector<4xf32>,
// alignment 16) under a branch on the mask of its first register (masked-off
// loads read zero). Without divisibility of the pointers, or of n (mask
// constancy 1), every register is a scalar access with element alignment.
// A tile smaller than the threads (replication) stores from one replica only.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm=distributed=true | FileCheck %s

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @vadd_vectorized(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr, %[[Y:[^:]+]]: !llvm.ptr, %[[Z:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: i32, %[[CTX:[^:]+]]: !llvm.ptr)
// Lane and warp of 32-thread warps from the thread id (context field 3).
// CHECK:         %[[TIDP:[0-9]+]] = llvm.getelementptr %[[CTX]][0, 3]
// CHECK-NEXT:    %[[TID:[0-9]+]] = llvm.load %[[TIDP]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %{{[0-9]+}} = llvm.lshr %[[TID]], %[[C5]] : i32
// The masks of registers 0 and 4, which start the runs, are the only ones
// used (those of the other 6 registers are dead and folded away).
// CHECK:         %[[M0:[0-9]+]] = llvm.icmp "slt" %{{[0-9]+}}, %[[N]] : i32
// CHECK:         %[[M4:[0-9]+]] = llvm.icmp "slt" %{{[0-9]+}}, %[[N]] : i32
// CHECK-NOT:     llvm.icmp "slt"
// First load: two 128-bit loads, each under a branch on its run's mask.
// CHECK:         %[[A0:[0-9]+]] = llvm.inttoptr %{{[0-9]+}} : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.cond_br %[[M0]], ^[[LD:bb[0-9]+]], ^[[OFF:bb[0-9]+]]
// CHECK-NEXT:  ^[[LD]]:
// CHECK-NEXT:    %[[V0:[0-9]+]] = llvm.load %[[A0]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%[[V0]] : vector<4xf32>)
// CHECK-NEXT:  ^[[OFF]]:
// CHECK-NEXT:    %[[Z0:[0-9]+]] = llvm.mlir.constant(dense<0.000000e+00> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[Z0]] : vector<4xf32>)
// CHECK:         llvm.extractelement
// CHECK:         llvm.cond_br %[[M4]], ^[[LD4:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[LD4]]:
// CHECK-NEXT:    llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// Second load, the same.
// CHECK:         llvm.cond_br %[[M0]]
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK:         llvm.cond_br %[[M4]]
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// The sums: 8 scalar adds.
// CHECK-COUNT-8: llvm.fadd %{{[0-9]+}}, %{{[0-9]+}} : f32
// The store: two 128-bit stores, each under its run's mask.
// CHECK:         llvm.cond_br %[[M0]], ^[[ST:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST]]:
// CHECK:         llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK:         llvm.cond_br %[[M4]], ^[[ST4:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST4]]:
// CHECK:         llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK:         llvm.return
// Nothing crosses threads: no shared memory.
// CHECK:       lowering.scratch_bytes = 0
tile.func @vadd_vectorized(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %s = tile.splat %start : i32 -> tensor<1024xi32, #blocked>
  %offs = arith.addi %s, %r : tensor<1024xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #blocked>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %px = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %a = tile.load %px, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %py = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %b = tile.load %py, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  %sum = arith.addf %a, %b : tensor<1024xf32, #blocked>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %pz = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  tile.store %pz, %sum, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  tile.return
}
}

// -----

// Without tile.divisibility on the pointers: 8 scalar loads per load op, 8
// scalar stores, each under a branch on its own mask, element alignment.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @vadd_unaligned(
// CHECK-NOT:     vector<
// CHECK-COUNT-16: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NOT:     llvm.load
// CHECK-COUNT-8: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT:     vector<
// CHECK:         llvm.return
tile.func @vadd_unaligned(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i64}) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %s = tile.splat %start : i32 -> tensor<1024xi32, #blocked>
  %offs = arith.addi %s, %r : tensor<1024xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #blocked>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %px = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %a = tile.load %px, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %py = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %b = tile.load %py, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  %sum = arith.addf %a, %b : tensor<1024xf32, #blocked>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %pz = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  tile.store %pz, %sum, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  tile.return
}
}

// -----

// Aligned pointers but n of unknown divisibility: the mask may change at any
// element (constancy 1), so each register is its own masked scalar access.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @copy_mask_not_constant(
// CHECK-NOT:     vector<
// CHECK-COUNT-8: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-COUNT-8: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT:     vector<
// CHECK:         llvm.return
tile.func @copy_mask_not_constant(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #blocked>
  %mask = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %px = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %a = tile.load %px, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %pz = tile.addptr %zs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  tile.store %pz, %a, %mask : tensor<1024x!tile.ptr<f32>, #blocked>
  tile.return
}
}

// -----

// Unmasked and aligned: plain 128-bit accesses, no branches. A masked load
// with `other` reads the other's registers when masked off.
#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @copy_unmasked(
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.return
tile.func @copy_unmasked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %px = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %a = tile.load %px : tensor<1024x!tile.ptr<f32>, #blocked>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %pz = tile.addptr %zs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  tile.store %pz, %a : tensor<1024x!tile.ptr<f32>, #blocked>
  tile.return
}
}

// -----

// 64 elements over 4 warps of 32 threads: warp bit 0 is element bit 5, warp
// bit 1 holds copies (warps 2 and 3 replicate warps 0 and 1). Only warps
// whose replicated bit is 0 store: the owner predicate (warp & 2) == 0,
// computed once in the prologue, guards the store.
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @store_replicated(
// CHECK:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[LANE:[0-9]+]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:    %[[WARP:[0-9]+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// The lane is element bits 0-4 (its field, lane & 31, is the lane itself)
// and warp bit 0 element bit 5: lane | (warp & 1) << 5. The owner test on
// warp bit 1 follows.
// CHECK-NEXT:    %[[C1:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[W0:[0-9]+]] = llvm.and %[[WARP]], %[[C1]] : i32
// CHECK-NEXT:    %[[W32:[0-9]+]] = llvm.shl %[[W0]], %[[C5]] : i32
// CHECK-NEXT:    %[[COORD:[0-9]+]] = llvm.or %[[LANE]], %[[W32]] : i32
// CHECK-NEXT:    %[[C2:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[BITS:[0-9]+]] = llvm.and %[[WARP]], %[[C2]] : i32
// CHECK-NEXT:    %[[C0:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[OWNER:[0-9]+]] = llvm.icmp "eq" %[[BITS]], %[[C0]] : i32
// The address is z + 4 * coordinate.
// CHECK:         llvm.sext %[[COORD]] : i32 to i64
// CHECK:         llvm.cond_br %[[OWNER]], ^[[ST:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[ST]]:
// CHECK:         llvm.store %arg1, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT:     llvm.store
// CHECK:         llvm.return
tile.func @store_replicated(%z: !tile.ptr<f32>, %v: f32) {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
  %vs = tile.splat %v : f32 -> tensor<64xf32, #blocked>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #blocked>
  %pz = tile.addptr %zs, %r : tensor<64x!tile.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
  tile.store %pz, %vs : tensor<64x!tile.ptr<f32>, #blocked>
  tile.return
}
}
