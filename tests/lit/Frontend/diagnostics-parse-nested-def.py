# A nested function definition in a kernel is rejected by the parser.
#
# RUN: not tegula compile %s --kernel k --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace

import triton
import triton.language as tl


@triton.jit
def k(o_ptr):
    # CHECK:      {{^}}{{.*}}diagnostics-parse-nested-def.py:[[@LINE+3]]:5: error: nested function definitions are not supported in kernels{{$}}
    # CHECK-NEXT: {{^}}    def inner(x):{{$}}
    # CHECK-NEXT: {{^}}    ^{{$}}
    def inner(x):
        return x
    tl.store(o_ptr, inner(1))
