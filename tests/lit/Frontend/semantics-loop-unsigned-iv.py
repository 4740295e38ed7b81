# Regression test (fixed bug): the induction variable of
# `for i in range(n)` is always int32/int64, even when a bound is unsigned.
# Triton types it with integer_promote_impl over the bounds
# (code_generator.visit_For), so with n: uint32 `i` is uint32 and `i >> 1`
# is a logical shift.
# Observed: arith.shrsi. (CodeGen::genFor picks DType::I32/I64 signed.)
#
# RUN: tegula compile %s --kernel k --signature '*u32, u32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, n):
    for i in range(n):
        tl.store(o_ptr + i, i >> 1)

# CHECK:     scf.for [[I:%arg[0-9]+]] =
# CHECK:       arith.shrui [[I]], {{%[a-z0-9_]+}} : i32
