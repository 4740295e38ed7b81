# Specialization: pointer and integer `:16` hints become tile.divisibility,
# `:1` folds the argument to the constant 1 in the body (it stays an
# argument), unsigned scalars, constexpr values of every kind in the
# signature (float with exponent, bool, dtype, string, None, int) or by
# name with --constexpr, and trailing parameters with defaults left out.
#
# RUN: tegula compile %s --kernel k --signature '*fp32:16, i64:16, i32:1, 2.5, True, tl.float16' --emit tile-ir-raw | FileCheck %s --check-prefix=SIG1
# RUN: tegula compile %s --kernel k --signature '*fp32, u32, i32, 1e-3, False, tl.float32, "y", 7' --emit tile-ir-raw | FileCheck %s --check-prefix=SIG2
# RUN: tegula compile %s --kernel k --signature '*fp32, i32, i32' --constexpr F=1.5 --constexpr FLAG=0 --constexpr DT=tl.bfloat16 --constexpr OPT=3 --emit tile-ir-raw | FileCheck %s --check-prefix=KW
# RUN: tegula compile %s --kernel k --signature '*fp32, i32, i32' --constexpr=F=1.5 --constexpr=FLAG=0 --constexpr=DT=bf16 --constexpr=OPT=3 --emit=tile-ir-raw | FileCheck %s --check-prefix=KW

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, n, stride, F: tl.constexpr, FLAG: tl.constexpr, DT: tl.constexpr, NAME: tl.constexpr = "x", OPT: tl.constexpr = None):
    v = tl.full([16], F, DT)
    if FLAG:
        v = v * 2
    if NAME == "y":
        v = v + 1
    if OPT is not None:
        v = v + OPT
    tl.store(o_ptr + tl.arange(0, 16) * stride + n, v)

# SIG1:      tile.func @k(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg1: i64 {tile.divisibility = 16 : i64}, %arg2: i32) {
# tl.full([16], 2.5, tl.float16), times 2 for FLAG=True.
# SIG1-NEXT:   %cst{{[_0-9]*}} = arith.constant 2.500000e+00 : f16
# SIG1-NEXT:   [[V:%[0-9]+]] = splat %cst{{[_0-9]*}} : f16 -> tensor<16xf16>
# SIG1:        [[V2:%[0-9]+]] = arith.mulf [[V]], {{%[0-9]+}} : tensor<16xf16>
# stride is `:1`: the multiplication is by the constant 1, %arg2 is unused.
# SIG1:        [[R:%[0-9]+]] = make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
# SIG1:        [[ONE:%[0-9]+]] = splat %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<16xi32>
# SIG1-NEXT:   [[O:%[0-9]+]] = arith.muli [[R]], [[ONE]] : tensor<16xi32>
# SIG1:        [[N:%[0-9]+]] = splat %arg1 : i64 -> tensor<16xi64>
# SIG1-NEXT:   addptr {{%[0-9]+}}, [[N]] : tensor<16x!tile.ptr<f32>>, tensor<16xi64>
# SIG1-NOT:    %arg2

# SIG2:      tile.func @k(%arg0: !tile.ptr<f32>, %arg1: i32, %arg2: i32) {
# SIG2-NEXT:   %cst{{[_0-9]*}} = arith.constant 1.000000e-03 : f32
# NAME == "y" adds 1; OPT=7 adds 7; FLAG=False multiplies by nothing.
# SIG2-NOT:    arith.mulf
# SIG2:        arith.constant 1.000000e+00 : f32
# SIG2:        arith.constant 7.000000e+00 : f32
# SIG2:        [[S:%[0-9]+]] = arith.muli {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi32>
# A uint32 offset is zero-extended to i64 for addptr.
# SIG2:        [[N:%[0-9]+]] = splat %arg1 : i32 -> tensor<16xi32>
# SIG2-NEXT:   [[N64:%[0-9]+]] = arith.extui [[N]] : tensor<16xi32> to tensor<16xi64>
# SIG2-NEXT:   addptr {{%[0-9]+}}, [[N64]] : tensor<16x!tile.ptr<f32>>, tensor<16xi64>

# KW:        tile.func @k(%arg0: !tile.ptr<f32>, %arg1: i32, %arg2: i32) {
# KW-NEXT:     %cst{{[_0-9]*}} = arith.constant 1.500000e+00 : bf16
# KW-NEXT:     [[V:%[0-9]+]] = splat %cst{{[_0-9]*}} : bf16 -> tensor<16xbf16>
# KW:          arith.constant 3.000000e+00 : bf16
# KW:          arith.addf [[V]], {{%[0-9]+}} : tensor<16xbf16>
# KW-NOT:      arith.mulf
