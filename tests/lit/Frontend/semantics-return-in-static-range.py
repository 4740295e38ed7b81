# Regression test (fixed bug): an early `return` under a dynamic `if` inside a
# tl.static_range loop drops the remaining iterations and everything after
# the loop. Triton unrolls the loop and continues after the `if` on the
# path that does not return (its return is outside any scf loop, so it is
# allowed), so all three stores below exist: o[0] when n <= 0, o[1] when
# n <= 1, and o[10] after the loop.
# Observed: only the store of iteration 0 is generated; o[1] and o[10] are
# silently lost. (CodeGen::genIf consumes only the rest of the loop body,
# then returns Flow::Return, which stops the unrolling in genFor and the
# enclosing genBlock.)
#
# RUN: tegula compile %s --kernel k --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, n):
    for i in tl.static_range(2):
        if n > i:
            return
        tl.store(o_ptr + i, i * 7)
    tl.store(o_ptr + 10, 70)

# CHECK-LABEL: tile.func @k(
# CHECK:       %c0_i32{{[_0-9]*}}
# CHECK:       store {{.*}}, %c0_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>
# CHECK:       arith.constant 7 : i32
# CHECK:       store {{.*}}, %c7_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>
# CHECK:       arith.constant 70 : i32
# CHECK:       store {{.*}}, %c70_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>
