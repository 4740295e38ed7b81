# Regression test (fixed bug): a construct the parser rejects (here a
# lambda) in one @jit function makes every kernel of the file fail to
# compile, even kernels that never call that function. Triton parses and
# compiles a @jit function only when it is compiled or called, so `good`
# below compiles with Triton (only `bad` would fail).
# Observed: "lambda expressions are not supported in kernels" for
# --kernel good. (tegula compile returns after parseModule reports any
# error; the parser could record the error on the function instead.)
#
# RUN: tegula compile %s --kernel good --signature '*i32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def bad(x_ptr):
    f = lambda v: v + 1
    tl.store(x_ptr, f(1))


@triton.jit
def good(x_ptr):
    tl.store(x_ptr, 42)

# CHECK:     tile.func @good(%arg0: !tile.ptr<i32>) {
# CHECK:       store %arg0, %c42_i32{{[_0-9]*}} : !tile.ptr<i32>
