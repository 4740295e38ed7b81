// The corpus kernels with tl.dot through the distributed lowering (see
// dist-corpus.mlir for the others): they compile, take layouts and lower
// with distributed=true; the dots become per-thread fused multiply-adds
// (128x256 blocks over 128 threads: 256 accumulators x K = 64 each), or,
// with the NVIDIA plugin's nvidia.mma family (matrix-unit=nvidia.mma, which
// tegula-opt registers), m16n8k16 matrix instructions as the test
// lowering's calls (@test_mma): per warp 64x128 of the block, 4 x 16
// instruction tiles, 4 K steps of 16 = 256 per thread.

// RUN: tegula compile %tegula_src/tests/frontend/corpus/matmul.py --kernel matmul_kernel \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 256, 64, 8, "leaky_relu"' \
// RUN:   | tegula-opt -tile-assign-layouts | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=MATMUL
// MATMUL-LABEL: module attributes {lowering.scratch_bytes = 67584 : i64
// MATMUL:       llvm.func @matmul_kernel(
// MATMUL:       llvm.call @test_barrier()
// MATMUL-COUNT-16384: llvm.intr.fma
// MATMUL-NOT:   llvm.intr.fma
// MATMUL:       llvm.return

// RUN: tegula compile %tegula_src/tests/frontend/corpus/matmul.py --kernel matmul_kernel \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 256, 64, 8, "leaky_relu"' \
// RUN:   | tegula-opt -tile-assign-layouts=matrix-unit=nvidia.mma | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=MMA
// MMA-LABEL: module attributes {lowering.scratch_bytes = 67584 : i64
// MMA:       llvm.func @test_mma(f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// MMA:       llvm.func @matmul_kernel(
// MMA-NOT:   llvm.intr.fma
// MMA-COUNT-256: llvm.call @test_mma(
// MMA-NOT:   llvm.call @test_mma(
// MMA:       llvm.return

// RUN: tegula compile %tegula_src/tests/frontend/corpus/flash_attention.py --kernel _attn_fwd \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:16, i32:1, i32, i32, i32:16, 64, 128, 64, 1' \
// RUN:   | tegula-opt -tile-assign-layouts | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=ATTN
// ATTN-LABEL: llvm.func @_attn_fwd(
// ATTN:       llvm.intr.fma
// ATTN:       llvm.call @test_shuffle_xor(
// ATTN:       llvm.intr.exp2
// ATTN:       llvm.intr.fma
// ATTN:       llvm.return
