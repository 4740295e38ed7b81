# tl.dot: fp32 operands default to tf32 (input_precision = tf32 on the op),
# "ieee" / allow_tf32=False drop it (ieee is the op's default), "tf32x3" is
# kept; fp16 / int8 / fp8 operands; out_dtype=tl.float16; `a @ b`; the
# accumulator is a zero splat of the result type when none is given.
#
# RUN: tegula compile %s --kernel d --signature '*fp32, *fp32, *fp32, "default"' --emit tile-ir-raw | FileCheck %s --check-prefix=TF32
# RUN: tegula compile %s --kernel d --signature '*fp32, *fp32, *fp32, "ieee"' --emit tile-ir-raw | FileCheck %s --check-prefix=IEEE
# RUN: tegula compile %s --kernel d --signature '*fp32, *fp32, *fp32, "notf32"' --emit tile-ir-raw | FileCheck %s --check-prefix=IEEE
# RUN: tegula compile %s --kernel d --signature '*fp32, *fp32, *fp32, "tf32x3"' --emit tile-ir-raw | FileCheck %s --check-prefix=TF32X3
# RUN: tegula compile %s --kernel d --signature '*fp16, *fp16, *fp16, "f16out"' --emit tile-ir-raw | FileCheck %s --check-prefix=F16OUT
# RUN: tegula compile %s --kernel d --signature '*i8, *i8, *i32, "default"' --emit tile-ir-raw | FileCheck %s --check-prefix=I8
# RUN: tegula compile %s --kernel d --signature '*fp8e5, *fp8e5, *fp32, "default"' --emit tile-ir-raw | FileCheck %s --check-prefix=FP8
# RUN: tegula compile %s --kernel d --signature '*fp16, *fp16, *fp32, "matmul"' --emit tile-ir-raw | FileCheck %s --check-prefix=MATMUL
# RUN: tegula compile %s --kernel acc_chain --signature '*bf16, *bf16, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=ACC

import triton
import triton.language as tl


@triton.jit
def d(a_ptr, b_ptr, c_ptr, PREC: tl.constexpr):
    offs = tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if PREC == "default":
        c = tl.dot(a, b)
    elif PREC == "notf32":
        c = tl.dot(a, b, allow_tf32=False)
    elif PREC == "f16out":
        c = tl.dot(a, b, out_dtype=tl.float16)
    elif PREC == "matmul":
        c = a @ b
    else:
        c = tl.dot(a, b, input_precision=PREC)
    tl.store(c_ptr + offs, c)

# TF32:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x32x!tile.ptr<f32>>
# TF32:      [[B:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x32x!tile.ptr<f32>>
# TF32-NEXT: arith.constant 0.000000e+00 : f32
# TF32-NEXT: [[Z:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<32x32xf32>
# TF32-NEXT: dot [[A]], [[B]], [[Z]] {input_precision = #tile<precision tf32>} : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
# IEEE:      dot {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
# IEEE-NOT:  precision
# TF32X3:    dot {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} {input_precision = #tile<precision tf32x3>} : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
# F16OUT:      arith.constant 0.000000e+00 : f16
# F16OUT-NEXT: [[Z:%[0-9]+]] = splat %cst{{[_0-9]*}} : f16 -> tensor<32x32xf16>
# F16OUT-NEXT: [[C:%[0-9]+]] = dot {{%[0-9]+}}, {{%[0-9]+}}, [[Z]] : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf16>
# F16OUT:      store {{%[0-9]+}}, [[C]] : tensor<32x32x!tile.ptr<f16>>
# I8:        arith.constant 0 : i32
# I8-NEXT:   [[Z:%[0-9]+]] = splat %c0_i32{{[_0-9]*}} : i32 -> tensor<32x32xi32>
# I8-NEXT:   dot {{%[0-9]+}}, {{%[0-9]+}}, [[Z]] : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
# FP8:       dot {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : tensor<32x32xf8E5M2> * tensor<32x32xf8E5M2> -> tensor<32x32xf32>
# MATMUL:    dot {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>


@triton.jit
def acc_chain(a_ptr, b_ptr, c_ptr):
    offs = tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    acc = tl.zeros((32, 32), dtype=tl.float32)
    acc = tl.dot(a, b, acc)
    acc = tl.dot(a, b, acc=acc, input_precision="ieee")
    tl.store(c_ptr + offs, acc)

# bf16 operands accumulate in fp32; a given accumulator is passed through.
# ACC:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x32x!tile.ptr<bf16>>
# ACC:      [[B:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x32x!tile.ptr<bf16>>
# ACC-NEXT: arith.constant 0.000000e+00 : f32
# ACC-NEXT: [[Z:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<32x32xf32>
# ACC-NEXT: [[D1:%[0-9]+]] = dot [[A]], [[B]], [[Z]] : tensor<32x32xbf16> * tensor<32x32xbf16> -> tensor<32x32xf32>
# ACC-NEXT: [[D2:%[0-9]+]] = dot [[A]], [[B]], [[D1]] : tensor<32x32xbf16> * tensor<32x32xbf16> -> tensor<32x32xf32>
# ACC:      store {{%[0-9]+}}, [[D2]] : tensor<32x32x!tile.ptr<f32>>
