// Regression test; the bug it caught (LoadStore.cpp, lowerScalarAccess for a load): a scalar load of a pointer
// (!tile.ptr<!tile.ptr<T>>) loads storageType(pointer) = i64 and maps the
// result to that i64, but scalar pointers are !llvm.ptr everywhere else:
//  - unmasked, any use as a pointer fails to verify ("'llvm.load' op operand
//    #0 must be LLVM pointer type, but got 'i64'");
//  - masked, the zero for masked-off lanes is b.getZeroAttr(!llvm.ptr), which
//    is null: tegula-opt aborts with "LLVM ERROR: Failed to infer result
//    type(s)" in arith::ConstantOp::build.
// Expected: the loaded pointer as !llvm.ptr (load ptr, or inttoptr of the
// i64), and a null pointer for masked-off lanes.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @load_pointer(
// CHECK-SAME:    %[[PP:[^:]+]]: !llvm.ptr
// CHECK:         llvm.load %[[PP]]
// CHECK:         llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr -> f32
tile.func @load_pointer(%pp: !tile.ptr<!tile.ptr<f32>>, %out: !tile.ptr<f32>) {
  %p = tile.load %pp : !tile.ptr<!tile.ptr<f32>>
  %v = tile.load %p : !tile.ptr<f32>
  tile.store %out, %v : !tile.ptr<f32>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @load_pointer_masked(
// CHECK-SAME:    %[[PP:[^:]+]]: !llvm.ptr, %[[M:[^:]+]]: i1
// CHECK:         llvm.cond_br %[[M]]
// CHECK:         llvm.load %[[PP]]
// CHECK:         llvm.return
tile.func @load_pointer_masked(%pp: !tile.ptr<!tile.ptr<f32>>, %m: i1, %out: !tile.ptr<!tile.ptr<f32>>) {
  %p = tile.load %pp, %m : !tile.ptr<!tile.ptr<f32>>
  tile.store %out, %p : !tile.ptr<!tile.ptr<f32>>
  tile.return
}
