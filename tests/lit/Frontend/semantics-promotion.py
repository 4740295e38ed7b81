# Triton's type promotion (computation_type_impl / integer_promote_impl) and
# the arithmetic op each operator lowers to, on one generic kernel whose OP
# constexpr picks the operator. Each RUN fixes the operand dtypes through the
# signature.
#
# RUN: tegula compile %s --kernel binop --signature '*i32, *fp16, *fp32, "+"' --emit tile-ir-raw | FileCheck %s --check-prefix=I32-F16
# RUN: tegula compile %s --kernel binop --signature '*fp16, *bf16, *fp32, "+"' --emit tile-ir-raw | FileCheck %s --check-prefix=F16-BF16
# RUN: tegula compile %s --kernel binop --signature '*bf16, *bf16, *bf16, "+"' --emit tile-ir-raw | FileCheck %s --check-prefix=BF16-BF16
# RUN: tegula compile %s --kernel binop --signature '*bf16, *bf16, *fp32, "/"' --emit tile-ir-raw | FileCheck %s --check-prefix=BF16-DIV
# RUN: tegula compile %s --kernel binop --signature '*i32, *bf16, *fp32, "+"' --emit tile-ir-raw | FileCheck %s --check-prefix=I32-BF16
# RUN: tegula compile %s --kernel binop --signature '*fp64, *fp32, *fp64, "-"' --emit tile-ir-raw | FileCheck %s --check-prefix=F64-F32
# RUN: tegula compile %s --kernel binop --signature '*fp8e5, *fp8e4nv, *fp16, "*"' --emit tile-ir-raw | FileCheck %s --check-prefix=FP8-MIX
# RUN: tegula compile %s --kernel binop --signature '*fp16, *fp16, *fp32, "/"' --emit tile-ir-raw | FileCheck %s --check-prefix=F16-DIV
# RUN: tegula compile %s --kernel binop --signature '*i32, *i32, *fp32, "/"' --emit tile-ir-raw | FileCheck %s --check-prefix=INT-DIV
# RUN: tegula compile %s --kernel binop --signature '*u32, *i32, *u32, "+"' --emit tile-ir-raw | FileCheck %s --check-prefix=U32-I32
# RUN: tegula compile %s --kernel binop --signature '*u32, *i32, *i1, "<"' --emit tile-ir-raw | FileCheck %s --check-prefix=U32-LT
# RUN: tegula compile %s --kernel binop --signature '*i8, *u16, *i1, ">="' --emit tile-ir-raw | FileCheck %s --check-prefix=I8-U16
# RUN: tegula compile %s --kernel binop --signature '*u64, *u64, *i1, "<"' --emit tile-ir-raw | FileCheck %s --check-prefix=U64-LT
# RUN: tegula compile %s --kernel binop --signature '*fp32, *fp32, *i1, "=="' --emit tile-ir-raw | FileCheck %s --check-prefix=F32-EQ
# RUN: tegula compile %s --kernel binop --signature '*i32, *i32, *i32, "//"' --emit tile-ir-raw | FileCheck %s --check-prefix=SDIV
# RUN: tegula compile %s --kernel binop --signature '*u32, *u32, *u32, "//"' --emit tile-ir-raw | FileCheck %s --check-prefix=UDIV
# RUN: tegula compile %s --kernel binop --signature '*i64, *i64, *i64, "%"' --emit tile-ir-raw | FileCheck %s --check-prefix=SREM
# RUN: tegula compile %s --kernel binop --signature '*u8, *u8, *u8, "%"' --emit tile-ir-raw | FileCheck %s --check-prefix=UREM
# RUN: tegula compile %s --kernel binop --signature '*fp32, *fp32, *fp32, "%"' --emit tile-ir-raw | FileCheck %s --check-prefix=FREM
# RUN: tegula compile %s --kernel binop --signature '*fp16, *fp16, *fp16, "%"' --emit tile-ir-raw | FileCheck %s --check-prefix=FREM16
# RUN: tegula compile %s --kernel binop --signature '*i16, *i16, *i16, ">>"' --emit tile-ir-raw | FileCheck %s --check-prefix=ASHR
# RUN: tegula compile %s --kernel binop --signature '*u16, *u16, *u16, ">>"' --emit tile-ir-raw | FileCheck %s --check-prefix=LSHR
# RUN: tegula compile %s --kernel binop --signature '*i32, *i8, *i32, "<<"' --emit tile-ir-raw | FileCheck %s --check-prefix=SHL
# RUN: tegula compile %s --kernel binop --signature '*u32, *i32, *u32, "&"' --emit tile-ir-raw | FileCheck %s --check-prefix=AND
# RUN: tegula compile %s --kernel scalar_rhs --signature '*i8, *i8, "int"' --emit tile-ir-raw | FileCheck %s --check-prefix=I8-SCALAR
# RUN: tegula compile %s --kernel scalar_rhs --signature '*u8, *u8, "int"' --emit tile-ir-raw | FileCheck %s --check-prefix=U8-SCALAR
# RUN: tegula compile %s --kernel scalar_rhs --signature '*i8, *fp32, "float"' --emit tile-ir-raw | FileCheck %s --check-prefix=I8-FLOAT
# RUN: tegula compile %s --kernel scalar_rhs --signature '*fp16, *fp16, "float"' --emit tile-ir-raw | FileCheck %s --check-prefix=F16-FLOAT
# RUN: tegula compile %s --kernel scalar_rhs --signature '*fp16, *fp32, "div"' --emit tile-ir-raw | FileCheck %s --check-prefix=F16-DIVSCALAR
# RUN: tegula compile %s --kernel scalar_rhs --signature '*u32, *u32, "bigint"' --emit tile-ir-raw | FileCheck %s --check-prefix=U32-BIG
# RUN: tegula compile %s --kernel scalar_rhs --signature '*i64, *i64, "bigint"' --emit tile-ir-raw | FileCheck %s --check-prefix=I64-BIG
# RUN: tegula compile %s --kernel scalar_rhs --signature '*i16, *i16, "bool"' --emit tile-ir-raw | FileCheck %s --check-prefix=I16-BOOL
# RUN: tegula compile %s --kernel scalar_rhs --signature '*i1, *i32, "int"' --emit tile-ir-raw | FileCheck %s --check-prefix=I1-INT
# RUN: tegula compile %s --kernel scalars --signature 'i32, fp16, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=SCALARS
# RUN: tegula compile %s --kernel scalars --signature 'i64, u32, *i64' --emit tile-ir-raw | FileCheck %s --check-prefix=SCALARS64

import triton
import triton.language as tl


@triton.jit
def binop(a_ptr, b_ptr, o_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if OP == "+":
        r = a + b
    elif OP == "-":
        r = a - b
    elif OP == "*":
        r = a * b
    elif OP == "/":
        r = a / b
    elif OP == "//":
        r = a // b
    elif OP == "%":
        r = a % b
    elif OP == ">>":
        r = a >> b
    elif OP == "<<":
        r = a << b
    elif OP == "&":
        r = a & b
    elif OP == "<":
        r = a < b
    elif OP == ">=":
        r = a >= b
    else:
        r = a == b
    tl.store(o_ptr + offs, r)

# int32 + fp16 -> fp16 (the int converts to the float type), stored as fp32.
# I32-F16:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<i32>>
# I32-F16:      [[B:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f16>>
# I32-F16:      [[AF:%[0-9]+]] = arith.sitofp [[A]] : tensor<16xi32> to tensor<16xf16>
# I32-F16-NEXT: [[R:%[0-9]+]] = arith.addf [[AF]], [[B]] : tensor<16xf16>
# I32-F16:      [[RW:%[0-9]+]] = arith.extf [[R]] : tensor<16xf16> to tensor<16xf32>
# I32-F16-NEXT: store {{%[0-9]+}}, [[RW]] : tensor<16x!tile.ptr<f32>>

# fp16 + bf16 -> fp16: Triton's rule 3 ("if one operand is half, the other is
# converted to half") comes before the bf16 rules; bf16 reaches fp16 through
# fp32.
# F16-BF16:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f16>>
# F16-BF16:      [[B:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<bf16>>
# F16-BF16:      [[B32:%[0-9]+]] = arith.extf [[B]] : tensor<16xbf16> to tensor<16xf32>
# F16-BF16-NEXT: [[B16:%[0-9]+]] = arith.truncf [[B32]] : tensor<16xf32> to tensor<16xf16>
# F16-BF16-NEXT: arith.addf [[A]], [[B16]] : tensor<16xf16>

# bf16 + bf16 stays bf16; bf16 / bf16 is computed in fp32.
# BF16-BF16:     [[A:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<bf16>>
# BF16-BF16:     [[B:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<bf16>>
# BF16-BF16-NEXT: [[R:%[0-9]+]] = arith.addf [[A]], [[B]] : tensor<16xbf16>
# BF16-BF16:     store {{%[0-9]+}}, [[R]] : tensor<16x!tile.ptr<bf16>>
# BF16-DIV:      [[A32:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xbf16> to tensor<16xf32>
# BF16-DIV-NEXT: [[B32:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xbf16> to tensor<16xf32>
# BF16-DIV-NEXT: arith.divf [[A32]], [[B32]] : tensor<16xf32>

# int32 + bf16 -> fp32 (bf16 mixed with anything else goes to fp32).
# I32-BF16:      [[A:%[0-9]+]] = arith.sitofp {{%[0-9]+}} : tensor<16xi32> to tensor<16xf32>
# I32-BF16-NEXT: [[B:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xbf16> to tensor<16xf32>
# I32-BF16-NEXT: arith.addf [[A]], [[B]] : tensor<16xf32>

# F64-F32:      [[B:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xf32> to tensor<16xf64>
# F64-F32-NEXT: arith.subf {{%[0-9]+}}, [[B]] : tensor<16xf64>

# Two different fp8 types meet in fp16, through tile.fp_to_fp.
# FP8-MIX:      [[A:%[0-9]+]] = fp_to_fp {{%[0-9]+}} : tensor<16xf8E5M2> -> tensor<16xf16>
# FP8-MIX-NEXT: [[B:%[0-9]+]] = fp_to_fp {{%[0-9]+}} : tensor<16xf8E4M3FN> -> tensor<16xf16>
# FP8-MIX-NEXT: arith.mulf [[A]], [[B]] : tensor<16xf16>

# fp16 / fp16: division has no fp16 form; both sides are extended to fp32.
# F16-DIV:      [[A:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<f16>>
# F16-DIV:      [[B:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<f16>>
# F16-DIV:      [[A32:%[0-9]+]] = arith.extf [[A]] : tensor<16xf16> to tensor<16xf32>
# F16-DIV-NEXT: [[B32:%[0-9]+]] = arith.extf [[B]] : tensor<16xf16> to tensor<16xf32>
# F16-DIV-NEXT: [[Q:%[0-9]+]] = arith.divf [[A32]], [[B32]] : tensor<16xf32>
# F16-DIV:      store {{%[0-9]+}}, [[Q]] : tensor<16x!tile.ptr<f32>>

# int / int is true division in fp32.
# INT-DIV:      [[A:%[0-9]+]] = arith.sitofp {{%[0-9]+}} : tensor<16xi32> to tensor<16xf32>
# INT-DIV-NEXT: [[B:%[0-9]+]] = arith.sitofp {{%[0-9]+}} : tensor<16xi32> to tensor<16xf32>
# INT-DIV-NEXT: arith.divf [[A]], [[B]] : tensor<16xf32>

# uint32 vs int32 -> uint32: the same bits, so no conversion, but unsigned
# comparisons.
# U32-I32:      [[A:%[0-9]+]] = load
# U32-I32:      [[B:%[0-9]+]] = load
# U32-I32-NEXT: arith.addi [[A]], [[B]] : tensor<16xi32>
# U32-LT:       [[A:%[0-9]+]] = load
# U32-LT:       [[B:%[0-9]+]] = load
# U32-LT-NEXT:  [[C:%[0-9]+]] = arith.cmpi ult, [[A]], [[B]] : tensor<16xi32>
# A comparison gives i1; stored through an i1 pointer it is a byte.
# U32-LT:       [[P8:%[0-9]+]] = bitcast {{%[0-9]+}} : tensor<16x!tile.ptr<i1>> -> tensor<16x!tile.ptr<i8>>
# U32-LT-NEXT:  [[C8:%[0-9]+]] = arith.extui [[C]] : tensor<16xi1> to tensor<16xi8>
# U32-LT-NEXT:  store [[P8]], [[C8]] : tensor<16x!tile.ptr<i8>>

# int8 vs uint16 -> uint16: the int8 is sign-extended, the compare unsigned.
# I8-U16:       [[A:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<i8>>
# I8-U16:       [[B:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<i16>>
# I8-U16-NEXT:  [[AW:%[0-9]+]] = arith.extsi [[A]] : tensor<16xi8> to tensor<16xi16>
# I8-U16-NEXT:  arith.cmpi uge, [[AW]], [[B]] : tensor<16xi16>
# U64-LT:       arith.cmpi ult, {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi64>
# F32-EQ:       arith.cmpf oeq, {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xf32>

# // is divsi on signed and divui on unsigned; % is remsi / remui / remf.
# SDIV:   arith.divsi {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi32>
# UDIV:   arith.divui {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi32>
# SREM:   arith.remsi {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi64>
# UREM:   arith.remui {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi8>
# FREM:   arith.remf {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xf32>
# FREM16:      [[A:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xf16> to tensor<16xf32>
# FREM16-NEXT: [[B:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xf16> to tensor<16xf32>
# FREM16-NEXT: [[R:%[0-9]+]] = arith.remf [[A]], [[B]] : tensor<16xf32>
# FREM16:      arith.truncf [[R]] : tensor<16xf32> to tensor<16xf16>

# >> is arithmetic on signed, logical on unsigned.
# ASHR:   arith.shrsi {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi16>
# ASHR-NOT: shrui
# LSHR:   arith.shrui {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi16>
# LSHR-NOT: shrsi
# SHL:      [[B:%[0-9]+]] = arith.extsi {{%[0-9]+}} : tensor<16xi8> to tensor<16xi32>
# SHL-NEXT: arith.shli {{%[0-9]+}}, [[B]] : tensor<16xi32>
# AND:    arith.andi {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi32>


@triton.jit
def scalar_rhs(a_ptr, o_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    if OP == "int":
        r = a + 100
    elif OP == "float":
        r = a * 2.5
    elif OP == "bigint":
        r = a + 3000000000
    elif OP == "bool":
        r = a + True
    else:
        r = a / 3
    tl.store(o_ptr + offs, r)

# A Python int of the same kind as the tensor does not promote it: int8 + 100
# stays int8 (and so does uint8).
# I8-SCALAR:      [[A:%[0-9]+]] = load {{.*}} : tensor<16x!tile.ptr<i8>>
# I8-SCALAR:      arith.constant 100 : i8
# I8-SCALAR-NEXT: [[S:%[0-9]+]] = splat %c100_i8{{[_0-9]*}} : i8 -> tensor<16xi8>
# I8-SCALAR-NEXT: arith.addi [[A]], [[S]] : tensor<16xi8>
# U8-SCALAR:      arith.addi {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xi8>
# A float scalar is of a higher kind: int8 * 2.5 is fp32.
# I8-FLOAT:       [[AF:%[0-9]+]] = arith.sitofp {{%[0-9]+}} : tensor<16xi8> to tensor<16xf32>
# I8-FLOAT:       arith.mulf [[AF]], {{%[0-9]+}} : tensor<16xf32>
# ... but not of fp16: fp16 * 2.5 stays fp16.
# F16-FLOAT:      arith.constant 2.500000e+00 : f16
# F16-FLOAT:      arith.mulf {{%[0-9]+}}, {{%[0-9]+}} : tensor<16xf16>
# F16-FLOAT-NOT:  arith.extf
# fp16 / 3: a division of fp16 is done in fp32.
# F16-DIVSCALAR:  [[A:%[0-9]+]] = arith.extf {{%[0-9]+}} : tensor<16xf16> to tensor<16xf32>
# F16-DIVSCALAR:  arith.constant 3.000000e+00 : f32
# F16-DIVSCALAR:  arith.divf [[A]], {{%[0-9]+}} : tensor<16xf32>
# 3000000000 is a uint32 scalar: fine with a uint32 tensor, int64 with int64.
# U32-BIG:        [[S:%[0-9]+]] = splat %c-1294967296_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<16xi32>
# U32-BIG-NEXT:   arith.addi {{%[0-9]+}}, [[S]] : tensor<16xi32>
# I64-BIG:        [[S:%[0-9]+]] = splat %c3000000000_i64{{[_0-9]*}} : i64 -> tensor<16xi64>
# I64-BIG-NEXT:   arith.addi {{%[0-9]+}}, [[S]] : tensor<16xi64>
# True is a bool scalar: it does not promote an int16 tensor.
# I16-BOOL:       [[S:%[0-9]+]] = splat %c1_i16{{[_0-9]*}} : i16 -> tensor<16xi16>
# I16-BOOL-NEXT:  arith.addi {{%[0-9]+}}, [[S]] : tensor<16xi16>
# An i1 tensor (loaded as bytes) + 100 is int32: bool is the lowest kind.
# I1-INT:         [[B8:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<i8>>
# I1-INT:         [[B:%[0-9]+]] = arith.cmpi ne, [[B8]], {{%[a-z0-9_]+}} : tensor<16xi8>
# I1-INT:         [[W:%[0-9]+]] = arith.extui [[B]] : tensor<16xi1> to tensor<16xi32>
# I1-INT:         arith.addi [[W]], {{%[0-9]+}} : tensor<16xi32>


@triton.jit
def scalars(x, y, o_ptr):
    tl.store(o_ptr, x + y)

# Scalar arguments follow the same rules.
# SCALARS:      tile.func @scalars(%arg0: i32, %arg1: f16, %arg2: !tile.ptr<f32>) {
# SCALARS-NEXT:   [[X:%[0-9]+]] = arith.sitofp %arg0 : i32 to f16
# SCALARS-NEXT:   [[S:%[0-9]+]] = arith.addf [[X]], %arg1 : f16
# SCALARS-NEXT:   [[W:%[0-9]+]] = arith.extf [[S]] : f16 to f32
# SCALARS-NEXT:   store %arg2, [[W]] : !tile.ptr<f32>
# SCALARS64:    tile.func @scalars(%arg0: i64, %arg1: i32, %arg2: !tile.ptr<i64>) {
# SCALARS64-NEXT: [[Y:%[0-9]+]] = arith.extui %arg1 : i32 to i64
# SCALARS64-NEXT: arith.addi %arg0, [[Y]] : i64
