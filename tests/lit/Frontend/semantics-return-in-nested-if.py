# Regression test (fixed bug): an early `return` under a dynamic `if` nested in
# another dynamic `if` loses the code after the outer `if` on the path that
# enters the outer `if` and does not return. Here, when a > 0 and b <= 0,
# v + 1.0 must be doubled and stored; Triton does exactly that.
# Observed: the inner else computes v + 1.0 and drops it; the store after
# the outer `if` is only generated in the outer else branch. (In
# CodeGen::genIf's anyReturn path, genSide skips genBlock(rest) whenever
# the branch body set frame().returned, even though the nested if already
# consumed only its own rest and the branch can still fall through.)
#
# RUN: tegula compile %s --kernel k --signature '*fp32, i32, i32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, a, b):
    v = tl.load(o_ptr)
    if a > 0:
        if b > 0:
            return
        v = v + 1.0
    tl.store(o_ptr, v * 2.0)

# The incremented value must reach the store (directly or through an
# scf.yield / block argument), so it must be used after its definition.
# CHECK-LABEL: tile.func @k(
# CHECK:       [[V1:%[0-9]+]] = arith.addf {{%[0-9]+}}, %cst{{[_0-9]*}}{{[_0-9]*}} : f32
# CHECK:       {{[ (,]}}[[V1]]{{[ ,):]}}
