// LoweringOptions::polynomialMath (the host's choice): f32 exp and log on
// tiles become MLIR's polynomial approximations on vectors instead of
// llvm.exp / llvm.log intrinsics (libm calls per element on a CPU); without
// the option the intrinsics stay.

// RUN: tegula-opt %s --tile-test-lower-to-llvm=polynomial-math=true | FileCheck %s --check-prefix=POLY
// RUN: tegula-opt %s --tile-test-lower-to-llvm | FileCheck %s --check-prefix=INTR

// POLY-LABEL: llvm.func @exp_log
// POLY-NOT:     llvm.intr.exp
// POLY-NOT:     llvm.intr.log
// POLY:         llvm.intr.fma{{.*}}vector<16xf32>
// POLY:         llvm.return

// INTR-LABEL: llvm.func @exp_log
// INTR:         llvm.intr.exp({{.*}}) : (vector<16xf32>) -> vector<16xf32>
// INTR:         llvm.intr.log({{.*}}) : (vector<16xf32>) -> vector<16xf32>
tile.func @exp_log(%p: !tile.ptr<f32>, %x: f32) {
  %s = tile.splat %x : f32 -> tensor<64xf32>
  %e = math.exp %s : tensor<64xf32>
  %l = math.log %e : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %a = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %a, %l : tensor<64x!tile.ptr<f32>>
  tile.return
}
