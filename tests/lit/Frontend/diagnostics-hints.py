# Bad values for tl.multiple_of / tl.max_contiguous / tl.max_constancy: zero,
# negative, or not one per dimension of the tensor. Each is an error at the
# call, never a crash in a later stage.
#
# RUN: not tegula compile %s --kernel zero --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ZERO
# RUN: not tegula compile %s --kernel negative --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NEGATIVE
# RUN: not tegula compile %s --kernel too_many --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TOO-MANY
# RUN: not tegula compile %s --kernel too_few --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TOO-FEW
# RUN: not tegula compile %s --kernel not_int --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NOT-INT

import triton
import triton.language as tl


@triton.jit
def zero(o_ptr, m):
    # ZERO:      {{^}}{{.*}}diagnostics-hints.py:[[@LINE+2]]:12: error: values of divisibility must be positive, got 0{{$}}
    # ZERO-NEXT: {{^}}    offs = tl.multiple_of(tl.arange(0, 16) + m, 0){{$}}
    offs = tl.multiple_of(tl.arange(0, 16) + m, 0)
    tl.store(o_ptr + offs, offs)


@triton.jit
def negative(o_ptr, m):
    # NEGATIVE: {{^}}{{.*}}diagnostics-hints.py:[[@LINE+1]]:12: error: values of contiguity must be positive, got -4{{$}}
    offs = tl.max_contiguous(tl.arange(0, 16) + m, -4)
    tl.store(o_ptr + offs, offs)


@triton.jit
def too_many(o_ptr, m):
    # TOO-MANY: {{^}}{{.*}}diagnostics-hints.py:[[@LINE+1]]:12: error: shape of input to divisibility does not match the length of values{{$}}
    offs = tl.multiple_of(tl.arange(0, 16) + m, (16, 16))
    tl.store(o_ptr + offs, offs)


@triton.jit
def too_few(o_ptr, m):
    # TOO-FEW: {{^}}{{.*}}diagnostics-hints.py:[[@LINE+1]]:12: error: shape of input to constancy does not match the length of values{{$}}
    offs = tl.max_constancy(tl.arange(0, 16)[:, None] + tl.arange(0, 8)[None, :] + m, 4)
    tl.store(o_ptr + offs, offs)


@triton.jit
def not_int(o_ptr, m):
    # NOT-INT: {{^}}{{.*}}diagnostics-hints.py:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}values{{.*}}
    offs = tl.multiple_of(tl.arange(0, 16) + m, m)
    tl.store(o_ptr + offs, offs)
