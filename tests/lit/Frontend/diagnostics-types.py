# Type errors: a loop-carried variable or if result whose type changes,
# storing a block through a scalar pointer, `other` without `mask`, a
# non-bool mask, an unsigned tensor with a negative scalar, an integer
# literal too large, a scalar out of range for the tensor type, // on
# mixed signedness and on floats, bitcasts between sizes, bad rounding
# modes, atomics on 8-bit types, pointer + float, and math functions on
# integers.
#
# RUN: not tegula compile %s --kernel k_loop_type --signature '*fp32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LOOP-TYPE
# RUN: not tegula compile %s --kernel k_while_type --signature '*fp32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=WHILE-TYPE
# RUN: not tegula compile %s --kernel k_if_types --signature '*fp32, i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=IF-TYPES
# RUN: not tegula compile %s --kernel k_store_block_scalar --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STORE-BLOCK
# RUN: not tegula compile %s --kernel k_other_no_mask --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=OTHER
# RUN: not tegula compile %s --kernel k_mask_type --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MASK-TYPE
# RUN: not tegula compile %s --kernel k_unsigned_neg --signature '*u32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNSIGNED-NEG
# RUN: not tegula compile %s --kernel k_literal --signature '*i64' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LITERAL
# RUN: not tegula compile %s --kernel k_scalar_range --signature '*i8' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SCALAR-RANGE
# RUN: not tegula compile %s --kernel k_signedness --signature '*u32, *i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SIGNEDNESS
# RUN: not tegula compile %s --kernel k_float_floordiv --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=FLOAT-FLOORDIV
# RUN: not tegula compile %s --kernel k_bitcast --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BITCAST-SIZE
# RUN: not tegula compile %s --kernel k_rounding --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ROUNDING
# RUN: not tegula compile %s --kernel k_rounding_upcast --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ROUNDING-UP
# RUN: not tegula compile %s --kernel k_atomic_i8 --signature '*i8' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ATOMIC-I8
# RUN: not tegula compile %s --kernel k_ptr_float --signature '*fp32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=PTR-FLOAT
# RUN: not tegula compile %s --kernel k_math_int --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MATH-INT


import triton
import triton.language as tl


@triton.jit
def k_loop_type(x_ptr, n):
    acc = 0
    # LOOP-TYPE:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:5: error: loop-carried variable 'acc' has type int32 before the loop but fp32 at the end of an iteration{{$}}
    # LOOP-TYPE-NEXT: {{^}}    for i in range(n):{{$}}
    # LOOP-TYPE-NEXT: {{^}}    ^{{$}}
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)


@triton.jit
def k_while_type(x_ptr, n):
    v = tl.zeros([16], dtype=tl.float16)
    # WHILE-TYPE:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:5: error: loop-carried variable 'v' has type <[16], fp16> before the loop but <[16], fp32> at the end of an iteration{{$}}
    # WHILE-TYPE-NEXT: {{^}}    while n > 0:{{$}}
    # WHILE-TYPE-NEXT: {{^}}    ^{{$}}
    while n > 0:
        v = v + tl.zeros([16], dtype=tl.float32)
        n -= 1


@triton.jit
def k_if_types(x_ptr, n):
    # IF-TYPES:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:5: error: mismatched type for 'v' between then block (fp32) and else block (fp16){{$}}
    # IF-TYPES-NEXT: {{^}}    if n > 0:{{$}}
    # IF-TYPES-NEXT: {{^}}    ^{{$}}
    if n > 0:
        v = tl.load(x_ptr)
    else:
        v = tl.load(x_ptr).to(tl.float16)
    tl.store(x_ptr, v)


@triton.jit
def k_store_block_scalar(x_ptr):
    # STORE-BLOCK:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:5: error: value argument cannot be block type if pointer argument is not a block{{$}}
    # STORE-BLOCK-NEXT: {{^}}    tl.store(x_ptr, tl.arange(0, 16)){{$}}
    # STORE-BLOCK-NEXT: {{^}}    ^{{$}}
    tl.store(x_ptr, tl.arange(0, 16))


@triton.jit
def k_other_no_mask(x_ptr):
    # OTHER:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: `other` cannot be provided without `mask`{{$}}
    # OTHER-NEXT: {{^}}    x = tl.load(x_ptr + tl.arange(0, 16), other=0.0){{$}}
    # OTHER-NEXT: {{^}}        ^{{$}}
    x = tl.load(x_ptr + tl.arange(0, 16), other=0.0)


@triton.jit
def k_mask_type(x_ptr):
    offs = tl.arange(0, 16)
    # MASK-TYPE:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: mask must have boolean scalar type, got int32{{$}}
    # MASK-TYPE-NEXT: {{^}}    x = tl.load(x_ptr + offs, mask=offs){{$}}
    # MASK-TYPE-NEXT: {{^}}        ^{{$}}
    x = tl.load(x_ptr + offs, mask=offs)


@triton.jit
def k_unsigned_neg(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    # UNSIGNED-NEG:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:42: error: cannot perform a binary operation between an unsigned tensor and a negative scalar; perform an explicit cast on one of them{{$}}
    # UNSIGNED-NEG-NEXT: {{^}}    tl.store(x_ptr + tl.arange(0, 16), x + -1){{$}}
    # UNSIGNED-NEG-NEXT: {{^}}                                         ^{{$}}
    tl.store(x_ptr + tl.arange(0, 16), x + -1)


@triton.jit
def k_literal(x_ptr):
    # LITERAL:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:21: error: integer literal 123456789012345678901234567890 is too large (kernels take at most 64 bits){{$}}
    # LITERAL-NEXT: {{^}}    tl.store(x_ptr, 123456789012345678901234567890){{$}}
    # LITERAL-NEXT: {{^}}                    ^{{$}}
    tl.store(x_ptr, 123456789012345678901234567890)


@triton.jit
def k_scalar_range(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    # SCALAR-RANGE:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:11: error: scalar 1000 is out of range for type int8{{$}}
    # SCALAR-RANGE-NEXT: {{^}}    y = x + 1000{{$}}
    # SCALAR-RANGE-NEXT: {{^}}          ^{{$}}
    y = x + 1000


@triton.jit
def k_signedness(a_ptr, b_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    b = tl.load(b_ptr + tl.arange(0, 16))
    # SIGNEDNESS:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:11: error: cannot use // with uint32 and int32 because they have different signedness; this is unlikely to result in a useful answer. Cast them to the same signedness.{{$}}
    # SIGNEDNESS-NEXT: {{^}}    c = a // b{{$}}
    # SIGNEDNESS-NEXT: {{^}}          ^{{$}}
    c = a // b


@triton.jit
def k_float_floordiv(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # FLOAT-FLOORDIV:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:11: error: unexpected type fp32 for //{{$}}
    # FLOAT-FLOORDIV-NEXT: {{^}}    c = a // 2.0{{$}}
    # FLOAT-FLOORDIV-NEXT: {{^}}          ^{{$}}
    c = a // 2.0


@triton.jit
def k_bitcast(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # BITCAST-SIZE:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: cannot bitcast data-type of size 32 to data-type of size 16{{$}}
    # BITCAST-SIZE-NEXT: {{^}}    c = a.to(tl.int16, bitcast=True){{$}}
    # BITCAST-SIZE-NEXT: {{^}}        ^{{$}}
    c = a.to(tl.int16, bitcast=True)


@triton.jit
def k_rounding(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # ROUNDING:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: invalid rounding mode: rd; supported rounding modes are 'rtne' and 'rtz'{{$}}
    # ROUNDING-NEXT: {{^}}    c = a.to(tl.float16, fp_downcast_rounding="rd"){{$}}
    # ROUNDING-NEXT: {{^}}        ^{{$}}
    c = a.to(tl.float16, fp_downcast_rounding="rd")


@triton.jit
def k_rounding_upcast(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # ROUNDING-UP:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: fp_downcast_rounding should be set only for truncating fp conversions; source scalar type is fp32 and destination type is fp64{{$}}
    # ROUNDING-UP-NEXT: {{^}}    c = a.to(tl.float64, fp_downcast_rounding="rtz"){{$}}
    # ROUNDING-UP-NEXT: {{^}}        ^{{$}}
    c = a.to(tl.float64, fp_downcast_rounding="rtz")


@triton.jit
def k_atomic_i8(a_ptr):
    # ATOMIC-I8:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:5: error: atomic_add does not support int8{{$}}
    # ATOMIC-I8-NEXT: {{^}}    tl.atomic_add(a_ptr, 1){{$}}
    # ATOMIC-I8-NEXT: {{^}}    ^{{$}}
    tl.atomic_add(a_ptr, 1)


@triton.jit
def k_ptr_float(a_ptr):
    # PTR-FLOAT:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:15: error: invalid operands of type pointer<fp32> and fp32 for +{{$}}
    # PTR-FLOAT-NEXT: {{^}}    p = a_ptr + 1.5{{$}}
    # PTR-FLOAT-NEXT: {{^}}              ^{{$}}
    p = a_ptr + 1.5


@triton.jit
def k_math_int(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16))
    # MATH-INT:      {{^}}{{.*}}diagnostics-types.py:[[@LINE+3]]:9: error: expected dtype ['fp32', 'fp64'] but got int32{{$}}
    # MATH-INT-NEXT: {{^}}    b = tl.exp(a){{$}}
    # MATH-INT-NEXT: {{^}}        ^{{$}}
    b = tl.exp(a)

