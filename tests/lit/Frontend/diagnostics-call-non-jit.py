# Regression test (fixed bug): calling a plain Python function (one
# without @triton.jit) from a kernel reports "name 'host_helper' is not
# defined", although the name is defined, two screens up, in the same file.
# Triton rejects the call too, but says why (the function is not a @jit
# function / not a constexpr global). Expected: an error at the call that
# names the function and says it is not a @jit function.
# (frontend/lib/Module.cpp skips undecorated definitions without recording
# their names, so CodeGen::evalName cannot tell them from undefined names.)
#
# RUN: not tegula compile %s --kernel k --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace

import triton
import triton.language as tl


def host_helper(x):
    return x + 1


@triton.jit
def k(x_ptr):
    # CHECK:      {{^}}{{.*}}diagnostics-call-non-jit.py:[[@LINE+3]]:21: error: {{.*}}'host_helper'{{.*}}@jit{{.*$}}
    # CHECK-NEXT: {{^}}    tl.store(x_ptr, host_helper(1)){{$}}
    # CHECK-NEXT: {{^}}                    ^{{$}}
    tl.store(x_ptr, host_helper(1))
