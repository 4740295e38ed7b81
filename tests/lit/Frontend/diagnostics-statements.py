# Statements the kernel language does not have, or has only under
# restrictions: with, break/continue in dynamic loops (and across a dynamic
# if), return inside a loop, a kernel returning a value, item assignment,
# ** on tensors, for-else, iterating something other than a range, a
# block-shaped if condition, and a constexpr rebound in a dynamic loop.
# (Errors the parser reports: see diagnostics-parse-*.py.)
#
# RUN: not tegula compile %s --kernel k_with --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=WITH
# RUN: not tegula compile %s --kernel k_break --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BREAK
# RUN: not tegula compile %s --kernel k_continue --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=CONTINUE
# RUN: not tegula compile %s --kernel k_break_dyn_if --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BREAK-DYNIF
# RUN: not tegula compile %s --kernel k_return_in_loop --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RETURN-LOOP
# RUN: not tegula compile %s --kernel k_return_in_while --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RETURN-WHILE
# RUN: not tegula compile %s --kernel k_kernel_returns --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=KERNEL-RETURNS
# RUN: not tegula compile %s --kernel k_subscript_assign --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SUBSCRIPT
# RUN: not tegula compile %s --kernel k_pow --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=POW
# RUN: not tegula compile %s --kernel k_for_else --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=FOR-ELSE
# RUN: not tegula compile %s --kernel k_iter --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ITER
# RUN: not tegula compile %s --kernel k_block_cond --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BLOCK-COND
# RUN: not tegula compile %s --kernel k_constexpr_change --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=CONSTEXPR-LOOP


import triton
import triton.language as tl


@triton.jit
def k_with(o_ptr):
    # WITH:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: 'with' statements are not supported in kernels{{$}}
    # WITH-NEXT: {{^}}    with open("f") as f:{{$}}
    # WITH-NEXT: {{^}}    ^{{$}}
    with open("f") as f:
        pass


@triton.jit
def k_break(o_ptr, n):
    for i in range(n):
        # BREAK:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:9: error: 'break' is not supported in kernels except in tl.static_range loops under constexpr conditions{{$}}
        # BREAK-NEXT: {{^}}        break{{$}}
        # BREAK-NEXT: {{^}}        ^{{$}}
        break


@triton.jit
def k_continue(o_ptr, n):
    i = 0
    while i < n:
        i += 1
        # CONTINUE:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:9: error: 'continue' is not supported in kernels except in tl.static_range loops under constexpr conditions{{$}}
        # CONTINUE-NEXT: {{^}}        continue{{$}}
        # CONTINUE-NEXT: {{^}}        ^{{$}}
        continue


@triton.jit
def k_break_dyn_if(o_ptr, n):
    for i in tl.static_range(4):
        if n > i:
            # BREAK-DYNIF:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:13: error: 'break' inside a dynamic if is not supported{{$}}
            # BREAK-DYNIF-NEXT: {{^}}            break{{$}}
            # BREAK-DYNIF-NEXT: {{^}}            ^{{$}}
            break


@triton.jit
def k_return_in_loop(o_ptr, n):
    # RETURN-LOOP:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: 'return' inside a loop is not supported in kernels{{$}}
    # RETURN-LOOP-NEXT: {{^}}    for i in range(n):{{$}}
    # RETURN-LOOP-NEXT: {{^}}    ^{{$}}
    for i in range(n):
        if i > 3:
            return
        tl.store(o_ptr + i, i)


@triton.jit
def k_return_in_while(o_ptr, n):
    i = 0
    # RETURN-WHILE:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: 'return' inside a loop is not supported in kernels{{$}}
    # RETURN-WHILE-NEXT: {{^}}    while i < n:{{$}}
    # RETURN-WHILE-NEXT: {{^}}    ^{{$}}
    while i < n:
        return


@triton.jit
# KERNEL-RETURNS:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: kernel 'k_kernel_returns' must not return a value{{$}}
# KERNEL-RETURNS-NEXT: {{^}}def k_kernel_returns(o_ptr):{{$}}
# KERNEL-RETURNS-NEXT: {{^}}    ^{{$}}
def k_kernel_returns(o_ptr):
    tl.store(o_ptr, 1)
    return 5


@triton.jit
def k_subscript_assign(o_ptr):
    x = tl.arange(0, 16)
    # SUBSCRIPT:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: assignment to a subscript or attribute is not supported in kernels; tensors are immutable{{$}}
    # SUBSCRIPT-NEXT: {{^}}    x[0] = 1{{$}}
    # SUBSCRIPT-NEXT: {{^}}    ^{{$}}
    x[0] = 1


@triton.jit
def k_pow(o_ptr):
    x = tl.arange(0, 16)
    # POW:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:11: error: '**' is not supported on tensors{{$}}
    # POW-NEXT: {{^}}    y = x ** 2{{$}}
    # POW-NEXT: {{^}}          ^{{$}}
    y = x ** 2


@triton.jit
def k_for_else(o_ptr, n):
    for i in range(n):
        pass
    # FOR-ELSE:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: 'for ... else' is not supported in kernels{{$}}
    # FOR-ELSE-NEXT: {{^}}    else:{{$}}
    # FOR-ELSE-NEXT: {{^}}    ^{{$}}
    else:
        pass


@triton.jit
def k_iter(o_ptr):
    # ITER:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:14: error: kernels can only loop over range(), tl.range() or tl.static_range(){{$}}
    # ITER-NEXT: {{^}}    for x in (1, 2, 3):{{$}}
    # ITER-NEXT: {{^}}             ^{{$}}
    for x in (1, 2, 3):
        pass


@triton.jit
def k_block_cond(o_ptr):
    x = tl.arange(0, 16)
    # BLOCK-COND:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:8: error: the condition of if must be a scalar, got <[16], int1>{{$}}
    # BLOCK-COND-NEXT: {{^}}    if x > 3:{{$}}
    # BLOCK-COND-NEXT: {{^}}       ^{{$}}
    if x > 3:
        pass


@triton.jit
def k_constexpr_change(o_ptr, n):
    s = "a"
    # CONSTEXPR-LOOP:      {{^}}{{.*}}diagnostics-statements.py:[[@LINE+3]]:5: error: 's' is a constexpr and cannot change inside a loop{{$}}
    # CONSTEXPR-LOOP-NEXT: {{^}}    for i in range(n):{{$}}
    # CONSTEXPR-LOOP-NEXT: {{^}}    ^{{$}}
    for i in range(n):
        s = "b"

