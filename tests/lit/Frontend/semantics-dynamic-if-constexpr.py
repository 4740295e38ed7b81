# Regression test (fixed bug): a name bound to different Python numbers
# in the branches of a dynamic `if` is an error ("'x' is a constexpr
# assigned different values in the branches of a dynamic if (2 and 3)").
# In Triton a plain assignment `x = 1` makes x an int32 tensor
# (code_generator.visit_Assign converts numbers with to_tensor), so the if
# simply yields 1, 2 or 3 as i32 results; patterns like
# `if cond: scale = 1.0 else: scale = 0.5` are common.
# Expected: an scf.if yielding i32 constants, nested for the elif.
# (CodeGen::genIf, the "constexpr assigned different values" case, should
# materialize both numbers as tensors instead.)
#
# RUN: tegula compile %s --kernel k --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, n):
    if n > 10:
        x = 1
    elif n > 5:
        x = 2
    else:
        x = 3
    tl.store(o_ptr, x)

# CHECK:      [[R:%[0-9]+]] = scf.if {{%[0-9]+}} -> (i32) {
# CHECK:        scf.if {{%[0-9]+}} -> (i32) {
# CHECK:      store %arg0, [[R]] : !tile.ptr<i32>
