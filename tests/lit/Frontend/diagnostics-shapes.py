# Shape and range errors, reported at the operator or the call, with the
# source line and a caret: mismatched shapes in a binary op (Triton's
# "incompatible shapes for +"), broadcasting a mask, reshape, tl.dot's
# operand checks (a 1-D operand gives "tl.dot expects 2-D operands"),
# tl.arange's constraints and program_id's axis.
#
# RUN: not tegula compile %s --kernel k_add --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ADD
# RUN: not tegula compile %s --kernel k_cmp --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=CMP
# RUN: not tegula compile %s --kernel k_mask --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MASK
# RUN: not tegula compile %s --kernel k_reshape --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RESHAPE
# RUN: not tegula compile %s --kernel k_dot1d --signature '*fp16' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DOT1D
# RUN: not tegula compile %s --kernel k_dotk --signature '*fp16' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DOTK
# RUN: not tegula compile %s --kernel k_dotsmall --signature '*fp16' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DOTSMALL
# RUN: not tegula compile %s --kernel k_dotmix --signature '*fp16, *fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DOTMIX
# RUN: not tegula compile %s --kernel k_arange --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ARANGE
# RUN: not tegula compile %s --kernel k_arange_order --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ARANGE-ORDER
# RUN: not tegula compile %s --kernel k_arange_dyn --signature '*i32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ARANGE-DYN
# RUN: not tegula compile %s --kernel k_pid --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=PID


import triton
import triton.language as tl


@triton.jit
def k_add(o_ptr):
    a = tl.arange(0, 128)
    b = tl.arange(0, 64)
    # ADD:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:11: error: incompatible shapes for +: [128] and [64]{{$}}
    # ADD-NEXT: {{^}}    c = a + b{{$}}
    # ADD-NEXT: {{^}}          ^{{$}}
    c = a + b


@triton.jit
def k_cmp(o_ptr):
    # CMP:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:35: error: incompatible shapes for <: [32, 1] and [1, 16, 1]{{$}}
    # CMP-NEXT: {{^}}    c = tl.arange(0, 32)[:, None] < tl.arange(0, 16)[None, :, None]{{$}}
    # CMP-NEXT: {{^}}                                  ^{{$}}
    c = tl.arange(0, 32)[:, None] < tl.arange(0, 16)[None, :, None]


@triton.jit
def k_mask(o_ptr):
    # MASK:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: incompatible shapes [32] and [16]: dimension 0 is 32 and 16{{$}}
    # MASK-NEXT: {{^}}    x = tl.load(o_ptr + tl.arange(0, 32), mask=tl.arange(0, 16) < 4){{$}}
    # MASK-NEXT: {{^}}        ^{{$}}
    x = tl.load(o_ptr + tl.arange(0, 32), mask=tl.arange(0, 16) < 4)


@triton.jit
def k_reshape(o_ptr):
    # RESHAPE:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: reshape() cannot change total number of elements in tensor: [32] to [4, 4]{{$}}
    # RESHAPE-NEXT: {{^}}    x = tl.reshape(tl.arange(0, 32), (4, 4)){{$}}
    # RESHAPE-NEXT: {{^}}        ^{{$}}
    x = tl.reshape(tl.arange(0, 32), (4, 4))


@triton.jit
def k_dot1d(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # DOT1D:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: tl.dot expects 2-D operands (or 3-D with a batch dimension), got [16] and [16]{{$}}
    # DOT1D-NEXT: {{^}}    c = tl.dot(a, a){{$}}
    # DOT1D-NEXT: {{^}}        ^{{$}}
    c = tl.dot(a, a)


@triton.jit
def k_dotk(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    # DOTK:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: first input shape ([16, 32]) and second input shape [16, 32] are not compatible for matmul (second index of first shape (32) must be equal to first index of second shape (16)){{$}}
    # DOTK-NEXT: {{^}}    c = tl.dot(a, a){{$}}
    # DOTK-NEXT: {{^}}        ^{{$}}
    c = tl.dot(a, a)


@triton.jit
def k_dotsmall(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    # DOTSMALL:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: input shapes should have M >= 16, N >= 16 and K >= 16, got M=8, N=8, K=8{{$}}
    # DOTSMALL-NEXT: {{^}}    c = tl.dot(a, a){{$}}
    # DOTSMALL-NEXT: {{^}}        ^{{$}}
    c = tl.dot(a, a)


@triton.jit
def k_dotmix(a_ptr, b_ptr):
    offs = tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]
    # DOTMIX:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: both operands of tl.dot must have the same dtype, got fp16 and fp32{{$}}
    # DOTMIX-NEXT: {{^}}    c = tl.dot(tl.load(a_ptr + offs), tl.load(b_ptr + offs)){{$}}
    # DOTMIX-NEXT: {{^}}        ^{{$}}
    c = tl.dot(tl.load(a_ptr + offs), tl.load(b_ptr + offs))


@triton.jit
def k_arange(o_ptr):
    # ARANGE:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: arange's range must be a power of 2{{$}}
    # ARANGE-NEXT: {{^}}    x = tl.arange(0, 100){{$}}
    # ARANGE-NEXT: {{^}}        ^{{$}}
    x = tl.arange(0, 100)


@triton.jit
def k_arange_order(o_ptr):
    # ARANGE-ORDER:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: arange's end argument must be greater than the start argument{{$}}
    # ARANGE-ORDER-NEXT: {{^}}    x = tl.arange(16, 16){{$}}
    # ARANGE-ORDER-NEXT: {{^}}        ^{{$}}
    x = tl.arange(16, 16)


@triton.jit
def k_arange_dyn(o_ptr, n):
    # ARANGE-DYN:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: 'end' must be a constexpr integer, got a tensor of type int32{{$}}
    # ARANGE-DYN-NEXT: {{^}}    x = tl.arange(0, n){{$}}
    # ARANGE-DYN-NEXT: {{^}}        ^{{$}}
    x = tl.arange(0, n)


@triton.jit
def k_pid(o_ptr):
    # PID:      {{^}}{{.*}}diagnostics-shapes.py:[[@LINE+3]]:9: error: program_id axis must be 0, 1, or 2 but got 3{{$}}
    # PID-NEXT: {{^}}    x = tl.program_id(3){{$}}
    # PID-NEXT: {{^}}        ^{{$}}
    x = tl.program_id(3)

