# `from triton import language as tl` and a bare `@jit` imported with
# `from triton import jit`.
#
# RUN: tegula compile %s --kernel k --signature '*i32, 32' --emit tile-ir-raw | FileCheck %s

from triton import language as tl
from triton import jit


@jit
def helper(x):
    return x * 3


@jit
def k(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, helper(offs))

# CHECK:      tile.func @k(%arg0: !tile.ptr<i32>) {
# CHECK-NEXT:   [[R:%[0-9]+]] = make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
# CHECK:        [[M:%[0-9]+]] = arith.muli [[R]], {{%[0-9]+}} : tensor<32xi32>
# CHECK:        store {{%[0-9]+}}, [[M]] : tensor<32x!tile.ptr<i32>>
