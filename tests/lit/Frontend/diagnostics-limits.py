# Kernels that would unroll or duplicate without bound stop with an error
# instead of compiling for minutes or exhausting memory.
# RUN: not tegula compile %s --kernel unroll --signature '*i32, i32' 2>&1 | FileCheck %s --check-prefix=UNROLL
# RUN: not tegula compile %s --kernel returns --signature '*i32, i32' 2>&1 | FileCheck %s --check-prefix=RETURNS
# RUN: not tegula compile %s --kernel big_static --signature '*i32, i32' 2>&1 | FileCheck %s --check-prefix=STATIC
# RUN: not tegula compile %s --kernel big_pow --signature '*i32, i32' 2>&1 | FileCheck %s --check-prefix=POW

import triton
import triton.language as tl


@triton.jit
def unroll(x_ptr, n):
    for i in tl.static_range(4096):
        for j in tl.static_range(4096):
            # UNROLL: diagnostics-limits.py:[[@LINE+1]]:13: error: the kernel is too large: more than 1000000 statements after unrolling static loops and inlining calls
            n = n + 1
    tl.store(x_ptr, n)


@triton.jit
def returns(x_ptr, n):
    for i in tl.static_range(40):
        if n > i:
            # RETURNS: diagnostics-limits.py:[[@LINE+1]]:13: error: conditional returns duplicate the rest of the kernel more than 4096 times; restructure it with if/else
            if n > 2 * i:
                return
    tl.store(x_ptr, n)


@triton.jit
def big_static(x_ptr, n):
    # STATIC: diagnostics-limits.py:[[@LINE+1]]:14: error: tl.static_range() unrolls 100000 iterations; at most 4096 are allowed
    for i in tl.static_range(100000):
        n = n + i
    tl.store(x_ptr, n)


@triton.jit
def big_pow(x_ptr, n):
    # POW: diagnostics-limits.py:[[@LINE+1]]:23: error: integer overflow in constexpr arithmetic
    tl.store(x_ptr, 3 ** 1000000000000)
