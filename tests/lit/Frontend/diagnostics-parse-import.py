# An import statement inside a kernel is rejected by the parser.
#
# RUN: not tegula compile %s --kernel k --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace

import triton
import triton.language as tl


@triton.jit
def k(o_ptr):
    # CHECK:      {{^}}{{.*}}diagnostics-parse-import.py:[[@LINE+3]]:5: error: 'import' statements are not supported in kernels{{$}}
    # CHECK-NEXT: {{^}}    import math{{$}}
    # CHECK-NEXT: {{^}}    ^{{$}}
    import math
    tl.store(o_ptr, 1)
