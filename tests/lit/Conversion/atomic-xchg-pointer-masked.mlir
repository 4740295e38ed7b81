// Regression test; the bug it caught (Atomics.cpp, forEachAtomic): the masked-off value of an atomic is a
// zero of computeType(elem), which is i64 for pointer elements, while a
// scalar atomic on a pointer yields an !llvm.ptr; a masked scalar
// `atomic_rmw xchg` of pointers then fails to verify ("type mismatch for bb
// argument #0 of successor #0"). Unmasked it works. Expected: a null
// !llvm.ptr for the masked-off case.

// RUN: tegula-opt %s --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @xchg_pointer_masked(
// CHECK-SAME:    %[[PP:[^:]+]]: !llvm.ptr, %[[P:[^:]+]]: !llvm.ptr, %[[M:[^:]+]]: i1
// CHECK:         llvm.cond_br %[[M]]
// CHECK:         llvm.atomicrmw xchg %[[PP]], %[[P]] monotonic : !llvm.ptr, !llvm.ptr
// CHECK:         llvm.return
tile.func @xchg_pointer_masked(%pp: !tile.ptr<!tile.ptr<f32>>, %p: !tile.ptr<f32>, %m: i1, %out: !tile.ptr<!tile.ptr<f32>>) {
  %old = tile.atomic_rmw xchg, relaxed, gpu, %pp, %p, %m : !tile.ptr<!tile.ptr<f32>>
  tile.store %out, %old : !tile.ptr<!tile.ptr<f32>>
  tile.return
}
