# Recursion between @jit functions is an error at the recursive call, with
# a note at each call on the way there (innermost first).
#
# RUN: not tegula compile %s --kernel k --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace
# RUN: not tegula compile %s --kernel self_rec --signature 'i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SELF

import triton
import triton.language as tl


@triton.jit
def rec_a(x):
    return rec_b(x)


@triton.jit
def rec_b(x):
    return rec_a(x)


@triton.jit
def k(o_ptr):
    tl.store(o_ptr, rec_a(1))


@triton.jit
def self_rec(n):
    self_rec(n - 1)

# CHECK:      {{^}}{{.*}}diagnostics-recursion.py:18:12: error: recursive call to 'rec_a': recursion between @jit functions is not supported{{$}}
# CHECK-NEXT: {{^}}    return rec_a(x){{$}}
# CHECK-NEXT: {{^}}           ^{{$}}
# CHECK-NEXT: {{^}}{{.*}}diagnostics-recursion.py:13:12: note: in call to 'rec_b'{{$}}
# CHECK-NEXT: {{^}}    return rec_b(x){{$}}
# CHECK-NEXT: {{^}}           ^{{$}}
# CHECK-NEXT: {{^}}{{.*}}diagnostics-recursion.py:23:21: note: in call to 'rec_a'{{$}}
# CHECK-NEXT: {{^}}    tl.store(o_ptr, rec_a(1)){{$}}
# CHECK-NEXT: {{^}}                    ^{{$}}
# CHECK-NOT:  error

# SELF:       {{^}}{{.*}}diagnostics-recursion.py:28:5: error: recursive call to 'self_rec': recursion between @jit functions is not supported{{$}}
# SELF-NEXT:  {{^}}    self_rec(n - 1){{$}}
# SELF-NEXT:  {{^}}    ^{{$}}
