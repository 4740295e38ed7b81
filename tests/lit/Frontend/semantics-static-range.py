# tl.static_range unrolls at compile time: no scf.for, the loop variable is
# a constexpr in each copy (negative steps included), nested loops can use
# the outer variable, and `break` / `continue` work under constexpr
# conditions.
#
# RUN: tegula compile %s --kernel unroll --signature '*fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=UNROLL
# RUN: tegula compile %s --kernel unroll_step --signature '*i32' --emit tile-ir-raw | FileCheck %s --check-prefix=STEP
# RUN: tegula compile %s --kernel unroll_break --signature '*i32, 5' --emit tile-ir-raw | FileCheck %s --check-prefix=BREAK
# RUN: tegula compile %s --kernel nested --signature '*i32, 2, 3' --emit tile-ir-raw | FileCheck %s --check-prefix=NESTED

import triton
import triton.language as tl


@triton.jit
def unroll(o_ptr):
    offs = tl.arange(0, 16)
    acc = tl.zeros([16], dtype=tl.float32)
    for i in tl.static_range(3):
        acc += i
    tl.store(o_ptr + offs, acc)

# UNROLL-NOT:  scf.for
# UNROLL:      [[ACC0:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# UNROLL:      arith.constant 0.000000e+00 : f32
# UNROLL-NEXT: [[I0:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# UNROLL-NEXT: [[ACC1:%[0-9]+]] = arith.addf [[ACC0]], [[I0]] : tensor<16xf32>
# UNROLL:      arith.constant 1.000000e+00 : f32
# UNROLL-NEXT: [[I1:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# UNROLL-NEXT: [[ACC2:%[0-9]+]] = arith.addf [[ACC1]], [[I1]] : tensor<16xf32>
# UNROLL:      arith.constant 2.000000e+00 : f32
# UNROLL-NEXT: [[I2:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# UNROLL-NEXT: [[ACC3:%[0-9]+]] = arith.addf [[ACC2]], [[I2]] : tensor<16xf32>
# UNROLL:      store {{%[0-9]+}}, [[ACC3]] : tensor<16x!tile.ptr<f32>>
# UNROLL-NOT:  scf.for


@triton.jit
def unroll_step(o_ptr):
    for i in tl.static_range(10, 0, -4):
        tl.store(o_ptr + i, i)

# 10, 6, 2.
# STEP:      addptr %arg0, %c10_i32{{[_0-9]*}} : !tile.ptr<i32>, i32
# STEP:      store {{%[0-9]+}}, %c10_i32{{[_0-9]*}} : !tile.ptr<i32>
# STEP:      addptr %arg0, %c6_i32{{[_0-9]*}} : !tile.ptr<i32>, i32
# STEP:      addptr %arg0, %c2_i32{{[_0-9]*}} : !tile.ptr<i32>, i32
# STEP:      store {{%[0-9]+}}, %c2_i32{{[_0-9]*}} : !tile.ptr<i32>
# STEP-NOT:  store
# STEP-NOT:  scf.for


@triton.jit
def unroll_break(o_ptr, N: tl.constexpr):
    for i in tl.static_range(8):
        if i == N:
            break
        if i % 2 == 1:
            continue
        tl.store(o_ptr + i, i * 10)

# i = 0, 2, 4: odd i continue, i == 5 breaks.
# BREAK:      store {{%[0-9]+}}, %c0_i32{{[_0-9]*}} : !tile.ptr<i32>
# BREAK:      %c20_i32{{[_0-9]*}} = arith.constant 20 : i32
# BREAK-NEXT: store {{%[0-9]+}}, %c20_i32{{[_0-9]*}} : !tile.ptr<i32>
# BREAK:      %c40_i32{{[_0-9]*}} = arith.constant 40 : i32
# BREAK-NEXT: store {{%[0-9]+}}, %c40_i32{{[_0-9]*}} : !tile.ptr<i32>
# BREAK-NOT:  store
# BREAK-NOT:  scf.if


@triton.jit
def nested(o_ptr, R: tl.constexpr, C: tl.constexpr):
    for r in tl.static_range(R):
        for c in tl.static_range(r, C):
            tl.store(o_ptr + r * 100 + c, r + c)

# (r, c) = (0, 0), (0, 1), (0, 2), (1, 1), (1, 2).
# NESTED-COUNT-5: store
# NESTED-NOT:     store
# NESTED:         return
