# Casts with .to() and tl.cast: fp downcasts (rtne by default, through
# tile.fp_to_fp with `rounding = rtz` when asked), fp8 conversions (always
# tile.fp_to_fp; int <-> fp8 through fp32), bf16 <-> fp16 through fp32,
# signed/unsigned int <-> float, int widths by the source's signedness,
# casts to bool, and bitcasts. DST comes as a dtype constexpr
# (`tl.float16` in the signature, or --constexpr DST=fp16).
#
# RUN: tegula compile %s --kernel cast --signature '*fp32, *fp16, tl.float16, "rtz", False' --emit tile-ir-raw | FileCheck %s --check-prefix=RTZ
# RUN: tegula compile %s --kernel cast --signature '*fp32, *fp16, "rtz", False' --constexpr DST=fp16 --emit tile-ir-raw | FileCheck %s --check-prefix=RTZ
# RUN: tegula compile %s --kernel cast --signature '*fp32, *fp16, tl.float16, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=RTNE
# RUN: tegula compile %s --kernel cast --signature '*fp32, *bf16, tl.bfloat16, "rtne", False' --emit tile-ir-raw | FileCheck %s --check-prefix=RTNE-BF16
# RUN: tegula compile %s --kernel cast --signature '*fp32, *fp8e4nv, tl.float8e4nv, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=TO-FP8
# RUN: tegula compile %s --kernel cast --signature '*fp16, *fp8e5, tl.float8e5, "rtz", False' --emit tile-ir-raw | FileCheck %s --check-prefix=TO-FP8-RTZ
# RUN: tegula compile %s --kernel cast --signature '*fp8e4nv, *fp32, tl.float32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=FROM-FP8
# RUN: tegula compile %s --kernel cast --signature '*fp8e5, *i32, tl.int32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=FP8-TO-INT
# RUN: tegula compile %s --kernel cast --signature '*i32, *fp8e5, tl.float8e5, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=INT-TO-FP8
# RUN: tegula compile %s --kernel cast --signature '*bf16, *fp16, tl.float16, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=BF16-TO-F16
# RUN: tegula compile %s --kernel cast --signature '*fp64, *fp16, tl.float16, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=F64-TO-F16
# RUN: tegula compile %s --kernel cast --signature '*u32, *fp32, tl.float32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=U32-TO-F32
# RUN: tegula compile %s --kernel cast --signature '*fp32, *u8, tl.uint8, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=F32-TO-U8
# RUN: tegula compile %s --kernel cast --signature '*i8, *u32, tl.uint32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=I8-TO-U32
# RUN: tegula compile %s --kernel cast --signature '*u8, *i32, tl.int32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=U8-TO-I32
# RUN: tegula compile %s --kernel cast --signature '*i64, *i16, tl.int16, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=I64-TO-I16
# RUN: tegula compile %s --kernel cast --signature '*fp32, *i1, tl.int1, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=F32-TO-BOOL
# RUN: tegula compile %s --kernel cast --signature '*i1, *fp32, tl.float32, "", False' --emit tile-ir-raw | FileCheck %s --check-prefix=BOOL-TO-F32
# RUN: tegula compile %s --kernel cast --signature '*fp32, *i32, tl.int32, "", True' --emit tile-ir-raw | FileCheck %s --check-prefix=BC32
# RUN: tegula compile %s --kernel cast --signature '*fp16, *i16, tl.int16, "", True' --emit tile-ir-raw | FileCheck %s --check-prefix=BC16
# RUN: tegula compile %s --kernel cast --signature '*i32, *u32, tl.uint32, "", True' --emit tile-ir-raw | FileCheck %s --check-prefix=BCINT
# RUN: tegula compile %s --kernel tlcast --signature '*fp32, *i32' --emit tile-ir-raw | FileCheck %s --check-prefix=TLCAST

import triton
import triton.language as tl


@triton.jit
def cast(a_ptr, o_ptr, DST: tl.constexpr, ROUND: tl.constexpr, BITCAST: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    if BITCAST:
        r = a.to(DST, bitcast=True)
    elif ROUND == "":
        r = a.to(DST)
    else:
        r = a.to(DST, fp_downcast_rounding=ROUND)
    tl.store(o_ptr + offs, r)

# RTZ:        [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# RTZ-NEXT:   [[R:%[0-9]+]] = fp_to_fp [[A]], rounding =  rtz : tensor<16xf32> -> tensor<16xf16>
# RTZ:        store {{%[0-9]+}}, [[R]] : tensor<16x!tile.ptr<f16>>
# RTZ-NOT:    truncf

# RTNE:       [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# RTNE-NEXT:  arith.truncf [[A]] : tensor<16xf32> to tensor<16xf16>
# RTNE-NOT:   fp_to_fp
# RTNE-BF16:  arith.truncf {{%[0-9]+}} : tensor<16xf32> to tensor<16xbf16>
# RTNE-BF16-NOT: fp_to_fp

# TO-FP8:     fp_to_fp {{%[0-9]+}}, rounding =  rtne : tensor<16xf32> -> tensor<16xf8E4M3FN>
# TO-FP8-RTZ: fp_to_fp {{%[0-9]+}}, rounding =  rtz : tensor<16xf16> -> tensor<16xf8E5M2>
# FROM-FP8:   [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f8E4M3FN>>
# FROM-FP8-NEXT: fp_to_fp [[A]] : tensor<16xf8E4M3FN> -> tensor<16xf32>
# FP8-TO-INT:      [[F:%[0-9]+]] = fp_to_fp {{%[0-9]+}} : tensor<16xf8E5M2> -> tensor<16xf32>
# FP8-TO-INT-NEXT: arith.fptosi [[F]] : tensor<16xf32> to tensor<16xi32>
# INT-TO-FP8:      [[F:%[0-9]+]] = arith.sitofp {{%[0-9]+}} : tensor<16xi32> to tensor<16xf32>
# INT-TO-FP8-NEXT: fp_to_fp [[F]], rounding =  rtne : tensor<16xf32> -> tensor<16xf8E5M2>

# BF16-TO-F16:      [[F:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xbf16> to tensor<16xf32>
# BF16-TO-F16-NEXT: arith.truncf [[F]] : tensor<16xf32> to tensor<16xf16>
# F64-TO-F16:       arith.truncf {{%[0-9]+}} : tensor<16xf64> to tensor<16xf16>

# U32-TO-F32: arith.uitofp {{%[0-9]+}} : tensor<16xi32> to tensor<16xf32>
# F32-TO-U8:  arith.fptoui {{%[0-9]+}} : tensor<16xf32> to tensor<16xi8>
# Integer widening follows the source's signedness.
# I8-TO-U32:  arith.extsi {{%[0-9]+}} : tensor<16xi8> to tensor<16xi32>
# U8-TO-I32:  arith.extui {{%[0-9]+}} : tensor<16xi8> to tensor<16xi32>
# I64-TO-I16: arith.trunci {{%[0-9]+}} : tensor<16xi64> to tensor<16xi16>

# To bool is `!= 0`; bool to float is unsigned.
# F32-TO-BOOL:      [[Z:%[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
# F32-TO-BOOL-NEXT: [[B:%[0-9]+]] = arith.cmpf une, {{%[0-9]+}}, [[Z]] : tensor<16xf32>
# F32-TO-BOOL:      arith.extui [[B]] : tensor<16xi1> to tensor<16xi8>
# BOOL-TO-F32:      [[B:%[0-9]+]] = arith.cmpi ne, {{%[0-9]+}}, {{%[a-z0-9_]+}} : tensor<16xi8>
# BOOL-TO-F32-NEXT: arith.uitofp [[B]] : tensor<16xi1> to tensor<16xf32>

# BC32:     [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# BC32-NEXT: [[R:%[0-9]+]] = bitcast [[A]] : tensor<16xf32> -> tensor<16xi32>
# BC32:     store {{%[0-9]+}}, [[R]] : tensor<16x!tile.ptr<i32>>
# BC32-NOT: fptosi
# BC16:   bitcast {{%[0-9]+}} : tensor<16xf16> -> tensor<16xi16>
# A bitcast between integers of one width changes only the signedness.
# BCINT:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<i32>>
# BCINT:      store {{%[0-9]+}}, [[A]] : tensor<16x!tile.ptr<i32>>


@triton.jit
def tlcast(a_ptr, o_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.cast(a, tl.int32, bitcast=True) + tl.cast(a, tl.int32))

# TLCAST:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# TLCAST:      [[B:%[0-9]+]] = bitcast [[A]] : tensor<16xf32> -> tensor<16xi32>
# TLCAST-NEXT: [[C:%[0-9]+]] = arith.fptosi [[A]] : tensor<16xf32> to tensor<16xi32>
# TLCAST-NEXT: arith.addi [[B]], [[C]] : tensor<16xi32>
