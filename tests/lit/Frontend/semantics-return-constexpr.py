# Regression test (fixed bug): a @jit helper whose returns under a
# dynamic `if` return Python numbers (here in a tuple) fails with "the
# branches of this if return different kinds of values: (a tensor of type
# int32, 0) and (a tensor of type int32, 1)". Triton converts returned
# numbers to tensors (code_generator.visit_Return decays constexprs with
# to_tensor), so both returns are (int32, int32).
# Expected: an scf.if with two i32 results.
# (CodeGen::genIf's anyReturn path: flattenTensors rejects numbers instead
# of materializing them.)
#
# RUN: tegula compile %s --kernel k --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def pick(x, lo):
    if x < lo:
        return lo, 0
    return x, 1


@triton.jit
def k(o_ptr, n):
    v, which = pick(tl.load(o_ptr), n)
    tl.store(o_ptr + 1, v + which)

# CHECK:      [[R:%[0-9]+]]:2 = scf.if {{%[0-9]+}} -> (i32, i32) {
# CHECK:      arith.addi [[R]]#0, [[R]]#1 : i32
