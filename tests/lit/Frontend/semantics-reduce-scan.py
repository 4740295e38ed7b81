# Reductions and scans: tl.reduce / tl.associative_scan with user @jit
# combine functions (inlined into the region, tuples for multi-operand
# reductions, keep_dims, reverse), and the standard library's sum (over all
# elements with axis=None; narrow ints accumulate in 32 bits of their
# signedness), max (narrow ints widened), cumsum, cumprod, xor_sum and
# argmin.
#
# RUN: tegula compile %s --kernel user_reduce --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=USER
# RUN: tegula compile %s --kernel builtin_reduce --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=BUILTIN
# RUN: tegula compile %s --kernel int_reduce --signature '*i8, *i32' --emit tile-ir-raw | FileCheck %s --check-prefix=I8
# RUN: tegula compile %s --kernel int_reduce --signature '*u16, *u32' --emit tile-ir-raw | FileCheck %s --check-prefix=U16

import triton
import triton.language as tl


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _pair_min(v1, i1, v2, i2):
    take = v1 < v2
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@triton.jit
def user_reduce(a_ptr, o_ptr):
    offs = tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]
    x = tl.load(a_ptr + offs)
    p = tl.reduce(x, 1, _mul_combine)
    pk = tl.reduce(x, 0, _mul_combine, keep_dims=True)
    v, i = tl.reduce((x, offs), 1, _pair_min)
    s = tl.associative_scan(x, 1, _mul_combine, reverse=True)
    tl.store(o_ptr + offs, s + pk)
    tl.store(o_ptr + tl.arange(0, 8), p + v + i)

# USER:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<8x16x!tile.ptr<f32>>
# USER-NEXT: [[P:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 1 : i32}> ({
# USER-NEXT: ^bb0([[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32):
# USER-NEXT:   [[M:%[0-9]+]] = arith.mulf [[A]], [[B]] : f32
# USER-NEXT:   tile.reduce.return [[M]] : f32
# USER-NEXT: }) : (tensor<8x16xf32>) -> tensor<8xf32>
# keep_dims=True: the reduced axis comes back as size 1.
# USER-NEXT: [[PK0:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 0 : i32}> ({
# USER:      }) : (tensor<8x16xf32>) -> tensor<16xf32>
# USER-NEXT: [[PK:%[0-9]+]] = expand_dims [[PK0]] {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
# Two operands: the combiner takes (v1, i1, v2, i2) and returns two values.
# USER-NEXT: [[VI:%[0-9]+]]:2 = "tile.reduce"([[X]], [[OFFS:%[0-9]+]]) <{axis = 1 : i32}> ({
# USER-NEXT: ^bb0([[V1:%arg[0-9]+]]: f32, [[I1:%arg[0-9]+]]: i32, [[V2:%arg[0-9]+]]: f32, [[I2:%arg[0-9]+]]: i32):
# USER-NEXT:   [[T:%[0-9]+]] = arith.cmpf olt, [[V1]], [[V2]] : f32
# USER-NEXT:   [[SV:%[0-9]+]] = arith.select [[T]], [[V1]], [[V2]] : f32
# USER-NEXT:   [[SI:%[0-9]+]] = arith.select [[T]], [[I1]], [[I2]] : i32
# USER-NEXT:   tile.reduce.return [[SV]], [[SI]] : f32, i32
# USER-NEXT: }) : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>)
# USER-NEXT: [[S:%[0-9]+]] = "tile.scan"([[X]]) <{axis = 1 : i32, reverse = true}> ({
# USER-NEXT: ^bb0([[C:%arg[0-9]+]]: f32, [[D:%arg[0-9]+]]: f32):
# USER-NEXT:   [[CD:%[0-9]+]] = arith.mulf [[C]], [[D]] : f32
# USER-NEXT:   tile.scan.return [[CD]] : f32
# USER-NEXT: }) : (tensor<8x16xf32>) -> tensor<8x16xf32>
# USER:      [[PKB:%[0-9]+]] = broadcast [[PK]] : tensor<1x16xf32> -> tensor<8x16xf32>
# USER-NEXT: arith.addf [[S]], [[PKB]] : tensor<8x16xf32>
# USER:      [[PV:%[0-9]+]] = arith.addf [[P]], [[VI]]#0 : tensor<8xf32>
# USER-NEXT: [[IF:%[0-9]+]] = arith.sitofp [[VI]]#1 : tensor<8xi32> to tensor<8xf32>
# USER-NEXT: arith.addf [[PV]], [[IF]] : tensor<8xf32>


@triton.jit
def builtin_reduce(a_ptr, o_ptr):
    offs = tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]
    x = tl.load(a_ptr + offs)
    s = tl.sum(x, axis=1)
    t = tl.sum(x)
    m = x.max(0, keep_dims=True)
    c = tl.cumsum(x, 1, reverse=True)
    cp = tl.cumprod(x, 0)
    tl.store(o_ptr + offs, c + cp + m + t)
    tl.store(o_ptr + tl.arange(0, 8), s)

# BUILTIN:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<8x16x!tile.ptr<f32>>
# BUILTIN-NEXT: [[S:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 1 : i32}> ({
# BUILTIN:        arith.addf
# BUILTIN:      }) : (tensor<8x16xf32>) -> tensor<8xf32>
# axis=None reduces the flattened tensor.
# BUILTIN-NEXT: [[FLAT:%[0-9]+]] = reshape [[X]] allow_reorder : tensor<8x16xf32> -> tensor<128xf32>
# BUILTIN-NEXT: [[T:%[0-9]+]] = "tile.reduce"([[FLAT]]) <{axis = 0 : i32}> ({
# BUILTIN:      }) : (tensor<128xf32>) -> f32
# x.max(0, keep_dims=True): maxnumf (NaNs not propagated), then expand_dims.
# BUILTIN-NEXT: [[M0:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 0 : i32}> ({
# BUILTIN-NEXT: ^bb0([[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32):
# BUILTIN-NEXT:   {{%[0-9]+}} = arith.maxnumf [[A]], [[B]] : f32
# BUILTIN:      }) : (tensor<8x16xf32>) -> tensor<16xf32>
# BUILTIN-NEXT: [[M:%[0-9]+]] = expand_dims [[M0]] {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
# BUILTIN-NEXT: [[C:%[0-9]+]] = "tile.scan"([[X]]) <{axis = 1 : i32, reverse = true}> ({
# BUILTIN:        arith.addf
# BUILTIN:      [[CP:%[0-9]+]] = "tile.scan"([[X]]) <{axis = 0 : i32, reverse = false}> ({
# BUILTIN:        arith.mulf
# BUILTIN:      [[CC:%[0-9]+]] = arith.addf [[C]], [[CP]] : tensor<8x16xf32>
# BUILTIN:      store {{%[0-9]+}}, [[S]] : tensor<8x!tile.ptr<f32>>


@triton.jit
def int_reduce(a_ptr, o_ptr):
    x = tl.load(a_ptr + tl.arange(0, 32))
    s = tl.sum(x, 0)
    m = tl.max(x, 0)
    xs = tl.xor_sum(x, 0)
    am = tl.argmin(x, 0)
    tl.store(o_ptr, s + m + xs + am)

# int8 sum accumulates in int32 (sign-extended); max too; xor_sum stays
# int8; argmin compares the int8 values with signed compares.
# I8:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x!tile.ptr<i8>>
# I8-NEXT: [[XW:%[0-9]+]] = arith.extsi [[X]] : tensor<32xi8> to tensor<32xi32>
# I8-NEXT: [[S:%[0-9]+]] = "tile.reduce"([[XW]]) <{axis = 0 : i32}> ({
# I8:        arith.addi {{%arg[0-9]+}}, {{%arg[0-9]+}} : i32
# I8:      [[XW2:%[0-9]+]] = arith.extsi [[X]] : tensor<32xi8> to tensor<32xi32>
# I8-NEXT: [[M:%[0-9]+]] = "tile.reduce"([[XW2]]) <{axis = 0 : i32}> ({
# I8:        arith.maxsi {{%arg[0-9]+}}, {{%arg[0-9]+}} : i32
# I8:      [[XS:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 0 : i32}> ({
# I8:        arith.xori {{%arg[0-9]+}}, {{%arg[0-9]+}} : i8
# I8:      }) : (tensor<32xi8>) -> i8
# I8:      [[AM:%[0-9]+]]:2 = "tile.reduce"([[X]], {{%[0-9]+}}) <{axis = 0 : i32}> ({
# I8-NEXT: ^bb0([[V1:%arg[0-9]+]]: i8, [[I1:%arg[0-9]+]]: i32, [[V2:%arg[0-9]+]]: i8, [[I2:%arg[0-9]+]]: i32):
# I8-NEXT:   [[EQ:%[0-9]+]] = arith.cmpi eq, [[V1]], [[V2]] : i8
# I8-NEXT:   [[LI:%[0-9]+]] = arith.cmpi slt, [[I1]], [[I2]] : i32
# I8-NEXT:   [[TIE:%[0-9]+]] = arith.andi [[EQ]], [[LI]] : i1
# I8-NEXT:   [[LT:%[0-9]+]] = arith.cmpi slt, [[V1]], [[V2]] : i8
# I8-NEXT:   [[TAKE:%[0-9]+]] = arith.ori [[LT]], [[TIE]] : i1
# I8:      }) : (tensor<32xi8>, tensor<32xi32>) -> (i8, i32)
# uint16: sum in uint32 (zero-extended); argmin compares unsigned.
# U16:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x!tile.ptr<i16>>
# U16-NEXT: [[XW:%[0-9]+]] = arith.extui [[X]] : tensor<32xi16> to tensor<32xi32>
# U16-NEXT: "tile.reduce"([[XW]]) <{axis = 0 : i32}> ({
# U16:        arith.addi
# U16:      arith.extui [[X]] : tensor<32xi16> to tensor<32xi32>
# U16:      arith.cmpi ult, {{%arg[0-9]+}}, {{%arg[0-9]+}} : i16
