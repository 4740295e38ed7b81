# A lambda in a kernel is rejected by the parser, with the usual location,
# source line and caret; the file then compiles no kernel (the error is in
# the module, whichever kernel is asked for).
#
# RUN: not tegula compile %s --kernel k --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace
# RUN: not tegula compile %s --kernel other --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace

import triton
import triton.language as tl


@triton.jit
def k(x_ptr):
    # CHECK:      {{^}}{{.*}}diagnostics-parse-lambda.py:[[@LINE+3]]:9: error: lambda expressions are not supported in kernels{{$}}
    # CHECK-NEXT: {{^}}    f = lambda v: v + 1{{$}}
    # CHECK-NEXT: {{^}}        ^{{$}}
    f = lambda v: v + 1
    tl.store(x_ptr, f(1))
    # CHECK-NOT: error
