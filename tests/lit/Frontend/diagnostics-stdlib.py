# Errors inside the standard library are reported at the user's call,
# prefixed with the tl function's name (tl.sum on pointers, tl.argmax
# without an axis, xor_sum on floats, sorting another dimension than the
# last, an axis out of range); static_assert, device_assert and Python
# assert on constexpr conditions fail at compile time.
#
# RUN: not tegula compile %s --kernel k_sum_ptr --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SUM-PTR
# RUN: not tegula compile %s --kernel k_argmax_noaxis --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ARGMAX-NOAXIS
# RUN: not tegula compile %s --kernel k_xor_float --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=XOR-FLOAT
# RUN: not tegula compile %s --kernel k_sort_dim --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SORT-DIM
# RUN: not tegula compile %s --kernel k_sum_axis --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SUM-AXIS
# RUN: not tegula compile %s --kernel k_static_assert --signature '*i32, 128' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC-ASSERT
# RUN: not tegula compile %s --kernel k_static_assert_nomsg --signature '*i32, 128' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC-ASSERT-NOMSG
# RUN: not tegula compile %s --kernel k_static_assert_dyn --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC-ASSERT-DYN
# RUN: not tegula compile %s --kernel k_device_assert --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DEVICE-ASSERT
# RUN: not tegula compile %s --kernel k_py_assert --signature '*i32, 32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=PY-ASSERT


import triton
import triton.language as tl


@triton.jit
def k_sum_ptr(x_ptr):
    p = x_ptr + tl.arange(0, 16)
    # SUM-PTR:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:21: error: tl.sum: cannot add pointers together{{$}}
    # SUM-PTR-NEXT: {{^}}    tl.store(x_ptr, tl.sum(p, 0)){{$}}
    # SUM-PTR-NEXT: {{^}}                    ^{{$}}
    tl.store(x_ptr, tl.sum(p, 0))


@triton.jit
def k_argmax_noaxis(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    # ARGMAX-NOAXIS:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:21: error: tl.argmax: argmax() missing required argument 'axis'{{$}}
    # ARGMAX-NOAXIS-NEXT: {{^}}    tl.store(x_ptr, tl.argmax(x)){{$}}
    # ARGMAX-NOAXIS-NEXT: {{^}}                    ^{{$}}
    tl.store(x_ptr, tl.argmax(x))


@triton.jit
def k_xor_float(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    # XOR-FLOAT:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:9: error: tl.xor_sum: static_assert failed: xor_sum only supported for integers{{$}}
    # XOR-FLOAT-NEXT: {{^}}    y = tl.xor_sum(x, 0){{$}}
    # XOR-FLOAT-NEXT: {{^}}        ^{{$}}
    y = tl.xor_sum(x, 0)


@triton.jit
def k_sort_dim(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    # SORT-DIM:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:9: error: tl.sort: static_assert failed: only sorting along the last dimension is supported{{$}}
    # SORT-DIM-NEXT: {{^}}    y = tl.sort(x, 0){{$}}
    # SORT-DIM-NEXT: {{^}}        ^{{$}}
    y = tl.sort(x, 0)


@triton.jit
def k_sum_axis(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    # SUM-AXIS:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:9: error: tl.sum: axis 1 is out of range for a tensor of rank 1{{$}}
    # SUM-AXIS-NEXT: {{^}}    y = tl.sum(x, 1){{$}}
    # SUM-AXIS-NEXT: {{^}}        ^{{$}}
    y = tl.sum(x, 1)


@triton.jit
def k_static_assert(x_ptr, BLOCK: tl.constexpr):
    # STATIC-ASSERT:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:5: error: static_assert failed: BLOCK must exceed 256{{$}}
    # STATIC-ASSERT-NEXT: {{^}}    tl.static_assert(BLOCK > 256, "BLOCK must exceed 256"){{$}}
    # STATIC-ASSERT-NEXT: {{^}}    ^{{$}}
    tl.static_assert(BLOCK > 256, "BLOCK must exceed 256")


@triton.jit
def k_static_assert_nomsg(x_ptr, BLOCK: tl.constexpr):
    # STATIC-ASSERT-NOMSG:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:5: error: static_assert failed{{$}}
    # STATIC-ASSERT-NOMSG-NEXT: {{^}}    tl.static_assert(BLOCK % 3 == 0){{$}}
    # STATIC-ASSERT-NOMSG-NEXT: {{^}}    ^{{$}}
    tl.static_assert(BLOCK % 3 == 0)


@triton.jit
def k_static_assert_dyn(x_ptr, n):
    # STATIC-ASSERT-DYN:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:5: error: tl.static_assert needs a constexpr condition, got a tensor of type int1{{$}}
    # STATIC-ASSERT-DYN-NEXT: {{^}}    tl.static_assert(n > 0){{$}}
    # STATIC-ASSERT-DYN-NEXT: {{^}}    ^{{$}}
    tl.static_assert(n > 0)


@triton.jit
def k_device_assert(x_ptr):
    # DEVICE-ASSERT:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:5: error: device_assert failed at compile time: never{{$}}
    # DEVICE-ASSERT-NEXT: {{^}}    tl.device_assert(False, "never"){{$}}
    # DEVICE-ASSERT-NEXT: {{^}}    ^{{$}}
    tl.device_assert(False, "never")


@triton.jit
def k_py_assert(x_ptr, BLOCK: tl.constexpr):
    # PY-ASSERT:      {{^}}{{.*}}diagnostics-stdlib.py:[[@LINE+3]]:12: error: assertion failed: BLOCK must be 64{{$}}
    # PY-ASSERT-NEXT: {{^}}    assert BLOCK == 64, "BLOCK must be 64"{{$}}
    # PY-ASSERT-NEXT: {{^}}           ^{{$}}
    assert BLOCK == 64, "BLOCK must be 64"

