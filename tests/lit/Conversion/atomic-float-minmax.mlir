// Regression test; the bug it caught (Atomics.cpp, binOpOf): atomic_rmw max/min on floats is lowered to the
// integer `llvm.atomicrmw max`/`min` whatever the element type, which the
// LLVM dialect rejects ("'llvm.atomicrmw' op expected LLVM IR integer type").
// The tile verifier accepts float max/min (AtomicRMWOp::verify); the frontend
// happens to avoid it by rewriting tl.atomic_max/min on floats into integer
// max/umin on the bits. Expected: a float atomic (fmax/fmin, or the integer
// trick, or a cmpxchg loop), never an integer max on a float.

// RUN: tegula-opt %s --split-input-file --tile-test-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @atomic_max_f32(
// CHECK-NOT:     llvm.atomicrmw max {{.*}} : !llvm.ptr, f32
// CHECK:         llvm.{{atomicrmw|cmpxchg}}
// CHECK:         llvm.return
tile.func @atomic_max_f32(%p: !tile.ptr<f32>, %v: f32, %out: !tile.ptr<f32>) {
  %old = tile.atomic_rmw max, acq_rel, gpu, %p, %v : !tile.ptr<f32>
  tile.store %out, %old : !tile.ptr<f32>
  tile.return
}

// -----

// CHECK-LABEL: llvm.func @atomic_min_f16_tile(
// CHECK-NOT:     llvm.atomicrmw min {{.*}} : !llvm.ptr, f16
// CHECK:         llvm.{{atomicrmw|cmpxchg}}
// CHECK:         llvm.return
tile.func @atomic_min_f16_tile(%p: !tile.ptr<f16>, %v: f16) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<4x!tile.ptr<f16>>
  %pa = tile.addptr %ps, %r : tensor<4x!tile.ptr<f16>>, tensor<4xi32>
  %vs = tile.splat %v : f16 -> tensor<4xf16>
  %old = tile.atomic_rmw min, relaxed, gpu, %pa, %vs : tensor<4x!tile.ptr<f16>>
  tile.print "old" {hex = false, is_signed = array<i32: 0>} : %old : tensor<4xf16>
  tile.return
}
