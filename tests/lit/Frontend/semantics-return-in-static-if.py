# Regression test (fixed bug): an early `return` under a dynamic `if` nested in
# an `if` on a constexpr drops the statements after the constexpr `if`.
# For BLOCK > 0 the kernel means: if n > 5 return; o[1] = 11; o[2] = 22.
# Observed: o[2] = 22 is never generated. (CodeGen::genIf on a constexpr
# condition runs genBlock(branch.Body) without the statements that follow
# the `if`, so the dynamic `if` inside it consumes only the rest of the
# body and reports Flow::Return, which ends the enclosing block.)
#
# RUN: tegula compile %s --kernel k --signature '*i32, i32, 16' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def k(o_ptr, n, BLOCK: tl.constexpr):
    if BLOCK > 0:
        if n > 5:
            return
        tl.store(o_ptr + 1, 11)
    tl.store(o_ptr + 2, 22)

# CHECK-LABEL: tile.func @k(
# CHECK:       arith.constant 11 : i32
# CHECK:       store {{.*}}, %c11_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>
# CHECK:       arith.constant 22 : i32
# CHECK:       store {{.*}}, %c22_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>
