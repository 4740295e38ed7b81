# Indentation that mixes tabs and spaces inconsistently is a parse error,
# as in Python ("inconsistent use of tabs and spaces in indentation"),
# reported at the first token after the bad indentation (column 2, after
# one tab; the echoed source line shows the tab expanded).
#
# RUN: not tegula compile %s --kernel k --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace

import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    if n > 0:
        x = 1
	y = 2
    tl.store(x_ptr, n)

# CHECK:      {{^}}{{.*}}diagnostics-parse-tabs.py:16:2: error: inconsistent use of tabs and spaces in indentation{{$}}
# CHECK-NEXT: {{^}}        y = 2{{$}}
# CHECK-NEXT: {{^}}        ^{{$}}
