// The kernel ABI of the test lowering (TestLowering.cpp) and the scratch
// size reported in `lowering.scratch_bytes`. Scratch sizes are pinned only on
// kernels where the answer does not depend on how tiles are packed: no tile,
// or one tile alive at a time. The tiles are printed so that they have to be
// materialized in scratch.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// No tile: no scratch. The kernel keeps its arguments and gets one trailing
// context pointer; the scratch base is field 2 of the context. Here nothing
// uses the base, so its load is dead and removed (@one_tile below checks the
// load where the base is used).
// CHECK:      module attributes {lowering.scratch_bytes = 0 : i64}
// CHECK-NEXT:   llvm.func @scalars_only(%[[P:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: f32, %[[CTX:[^:]+]]: !llvm.ptr) {
// CHECK-NEXT:     %[[FIELD:.+]] = llvm.getelementptr %[[CTX]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, ptr)>
// CHECK-NEXT:     %[[Y:.+]] = llvm.fadd %[[X]], %[[X]] : f32
// CHECK-NEXT:     llvm.store %[[Y]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:     llvm.return
tile.func @scalars_only(%p: !tile.ptr<f32>, %x: f32) {
  %y = arith.addf %x, %x : f32
  tile.store %p, %y : !tile.ptr<f32>
  tile.return
}

// -----

// program_id and num_programs read fields 0 and 1 of the context, indexed by
// the axis.
// CHECK:      module attributes {lowering.scratch_bytes = 0 : i64}
// CHECK-NEXT:   llvm.func @grid(%[[P:[^:]+]]: !llvm.ptr, %[[CTX:[^:]+]]: !llvm.ptr) {
// CHECK:          %[[PIDP:.+]] = llvm.getelementptr %[[CTX]][0, 0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, ptr)>
// CHECK-NEXT:     %[[PID:.+]] = llvm.load %[[PIDP]] : !llvm.ptr -> i32
// CHECK-NEXT:     %[[NPP:.+]] = llvm.getelementptr %[[CTX]][0, 1, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, ptr)>
// CHECK-NEXT:     %[[NP:.+]] = llvm.load %[[NPP]] : !llvm.ptr -> i32
// CHECK-NEXT:     %[[SUM:.+]] = llvm.add %[[PID]], %[[NP]] : i32
// CHECK-NEXT:     llvm.store %[[SUM]], %[[P]]
tile.func @grid(%p: !tile.ptr<i32>) {
  %0 = tile.program_id 1 : i32
  %1 = tile.num_programs 2 : i32
  %2 = arith.addi %0, %1 : i32
  tile.store %p, %2 : !tile.ptr<i32>
  tile.return
}

// -----

// One tile of 16 x f32: 64 bytes. The tile lives at the scratch base, loaded
// from field 2 of the context.
// CHECK:      module attributes {lowering.scratch_bytes = 64 : i64}
// CHECK-NEXT:   llvm.func @test_print(i64, f32)
// CHECK-NEXT:   llvm.func @one_tile(%{{[^:]+}}: f32, %[[CTX:[^:]+]]: !llvm.ptr) {
// CHECK-NEXT:     %[[FIELD:.+]] = llvm.getelementptr %[[CTX]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, ptr)>
// CHECK-NEXT:     %[[BASE:.+]] = llvm.load %[[FIELD]] : !llvm.ptr -> !llvm.ptr
// CHECK:          llvm.store %{{.+}}, %[[BASE]] {alignment = 64 : i64} : vector<16xf32>, !llvm.ptr
tile.func @one_tile(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  tile.print "a" {hex = false, is_signed = array<i32: 0>} : %a : tensor<16xf32>
  tile.return
}

// -----

// 16 x f64: 128 bytes.
// CHECK:      module attributes {lowering.scratch_bytes = 128 : i64}
// CHECK-NEXT:   llvm.func @test_print(i64, f64)
// CHECK-NEXT:   llvm.func @one_f64_tile(
tile.func @one_f64_tile(%x: f64) {
  %a = tile.splat %x : f64 -> tensor<16xf64>
  tile.print "a" {hex = false, is_signed = array<i32: 0>} : %a : tensor<16xf64>
  tile.return
}

// -----

// 4 x 16 x f32: 256 bytes.
// CHECK:      module attributes {lowering.scratch_bytes = 256 : i64}
// CHECK-NEXT:   llvm.func @test_print(i64, f32)
// CHECK-NEXT:   llvm.func @one_2d_tile(
tile.func @one_2d_tile(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<4x16xf32>
  tile.print "a" {hex = false, is_signed = array<i32: 0>} : %a : tensor<4x16xf32>
  tile.return
}

// -----

// Two tiles, the first dead before the second is made: they share memory.
// CHECK:      module attributes {lowering.scratch_bytes = 64 : i64}
// CHECK-NEXT:   llvm.func @test_print(i64, f32)
// CHECK-NEXT:   llvm.func @one_alive_at_a_time(
tile.func @one_alive_at_a_time(%x: f32, %y: f32) {
  %a = tile.splat %x : f32 -> tensor<16xf32>
  tile.print "a" {hex = false, is_signed = array<i32: 0>} : %a : tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  tile.print "b" {hex = false, is_signed = array<i32: 0>} : %b : tensor<16xf32>
  tile.return
}
