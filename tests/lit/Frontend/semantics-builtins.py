# The tl namespace: compiler hints (multiple_of / max_contiguous /
# max_constancy as attributes on the op or the kernel argument), tensor
# creation (full, zeros, zeros_like), tl.cdiv, tl.where with a scalar
# condition or scalar branches, math functions (including the standard
# library's sigmoid and softmax), integer helpers, shape manipulation,
# gather, histogram with a mask, program ids, device_print/assert and
# debug_barrier.
#
# RUN: tegula compile %s --kernel hints --signature '*fp32, *fp32, i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=HINTS
# RUN: tegula compile %s --kernel creation --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=CREATE
# RUN: tegula compile %s --kernel where_scalar --signature '*fp32, *fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=WHERE
# RUN: tegula compile %s --kernel math_fns --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=MATH
# RUN: tegula compile %s --kernel int_fns --signature '*i32, *i32' --emit tile-ir-raw | FileCheck %s --check-prefix=INT
# RUN: tegula compile %s --kernel int_fns --signature '*u32, *u32' --emit tile-ir-raw | FileCheck %s --check-prefix=UINT
# RUN: tegula compile %s --kernel shapes --signature '*i32' --emit tile-ir-raw | FileCheck %s --check-prefix=SHAPES
# RUN: tegula compile %s --kernel program_ids --signature '*i32' --emit tile-ir-raw | FileCheck %s --check-prefix=PIDS
# RUN: tegula compile %s --kernel program_ids --signature '*i32' --emit tile-ir-raw --no-assert | FileCheck %s --check-prefix=NOASSERT

import triton
import triton.language as tl


@triton.jit
def hints(a_ptr, o_ptr, n, stride):
    n = tl.multiple_of(n, 16)
    offs = tl.max_contiguous(tl.multiple_of(tl.arange(0, 64), 64), 64)
    s = tl.max_constancy(stride * 2, 8)
    x = tl.load(a_ptr + offs * s, mask=offs < n)
    tl.store(o_ptr + offs, x)

# multiple_of on a kernel argument becomes an argument attribute; on an op,
# an attribute of the op (a dense array on tensors, an integer on scalars).
# HINTS:      tile.func @hints(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>, %arg2: i32 {tile.divisibility = 16 : i64}, %arg3: i32) {
# HINTS-NEXT:   [[R:%[0-9]+]] = make_range {end = 64 : i32, start = 0 : i32, tile.contiguity = array<i64: 64>, tile.divisibility = array<i64: 64>} : tensor<64xi32>
# HINTS:        [[S:%[0-9]+]] = arith.muli %arg3, %c2_i32{{[_0-9]*}}{{[_0-9]*}} {tile.constancy = 8 : i64} : i32
# HINTS:        [[N:%[0-9]+]] = splat %arg2 : i32 -> tensor<64xi32>
# HINTS-NEXT:   arith.cmpi slt, [[R]], [[N]] : tensor<64xi32>


@triton.jit
def creation(o_ptr, n):
    offs = tl.arange(0, 64)
    f = tl.full((64,), 3, tl.int8)
    g = tl.full([64], n, tl.float32)
    z = tl.zeros_like(g)
    zz = tl.zeros([64], dtype=tl.float16)
    c = tl.cdiv(n, 64)
    tl.store(o_ptr + offs, f + g + z + zz + c)

# CREATE:      arith.constant 3 : i8
# CREATE-NEXT: [[F:%[0-9]+]] = splat %c3_i8{{[_0-9]*}} : i8 -> tensor<64xi8>
# tl.full with a runtime value converts it to the dtype first.
# CREATE-NEXT: [[NF:%[0-9]+]] = arith.sitofp %arg1 : i32 to f32
# CREATE-NEXT: [[G:%[0-9]+]] = splat [[NF]] : f32 -> tensor<64xf32>
# CREATE-NEXT: arith.constant 0.000000e+00 : f32
# CREATE-NEXT: [[Z:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<64xf32>
# CREATE-NEXT: arith.constant 0.000000e+00 : f16
# CREATE-NEXT: [[ZZ:%[0-9]+]] = splat %cst{{[_0-9]*}} : f16 -> tensor<64xf16>
# tl.cdiv(n, 64) = (n + 64 - 1) // 64
# CREATE:      [[C1:%[0-9]+]] = arith.addi %arg1, %c64_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# CREATE:      [[C2:%[0-9]+]] = arith.subi [[C1]], %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# CREATE:      [[C:%[0-9]+]] = arith.divsi [[C2]], %c64_i32{{[_0-9]*}}{{[_0-9]*}} : i32


@triton.jit
def where_scalar(a_ptr, o_ptr, flag):
    offs = tl.arange(0, 16)
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.where(flag > 0, x, -x))
    tl.store(o_ptr + offs, tl.where(x > 0, 1, 2))

# A scalar condition is splat to the operands' shape.
# WHERE:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# WHERE:      [[C:%[0-9]+]] = arith.cmpi sgt, %arg2, %c0_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# WHERE:      [[NX:%[0-9]+]] = arith.subf {{%[0-9]+}}, [[X]] : tensor<16xf32>
# WHERE-NEXT: [[CS:%[0-9]+]] = splat [[C]] : i1 -> tensor<16xi1>
# WHERE-NEXT: arith.select [[CS]], [[X]], [[NX]] : tensor<16xi1>, tensor<16xf32>
# Two Python ints: an int32 select, converted for the fp32 store.
# WHERE:      [[C2:%[0-9]+]] = arith.cmpf ogt, [[X]], {{%[0-9]+}} : tensor<16xf32>
# WHERE:      [[ONE:%[0-9]+]] = splat %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<16xi32>
# WHERE-NEXT: [[TWO:%[0-9]+]] = splat %c2_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<16xi32>
# WHERE-NEXT: [[SEL:%[0-9]+]] = arith.select [[C2]], [[ONE]], [[TWO]] : tensor<16xi1>, tensor<16xi32>
# WHERE-NEXT: arith.sitofp [[SEL]] : tensor<16xi32> to tensor<16xf32>


@triton.jit
def math_fns(a_ptr, o_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(a_ptr + offs)
    y = tl.sigmoid(x)
    y += tl.softmax(x)
    y += tl.clamp(x, -1.0, 1.0)
    y += tl.fma(x, x, x)
    y += tl.exp(x) + tl.log(x) + tl.exp2(x) + tl.log2(x) + tl.sin(x) + tl.cos(x)
    y += tl.sqrt(x) + tl.sqrt_rn(x) + tl.rsqrt(x) + tl.abs(x) + tl.erf(x)
    y += tl.floor(x) + tl.ceil(x) + tl.log1p(x) + tl.math.exp2(x)
    y += tl.fdiv(x, y) + tl.div_rn(x, y) + tl.fdiv(x, y, ieee_rounding=True)
    y += tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL) + tl.minimum(x, y)
    tl.store(o_ptr + offs, y)

# sigmoid(x) = 1 / (1 + exp(-x)), from the standard library.
# MATH:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# MATH:      [[NEG:%[0-9]+]] = arith.subf {{%[0-9]+}}, [[X]] : tensor<16xf32>
# MATH-NEXT: [[E:%[0-9]+]] = math.exp [[NEG]] : tensor<16xf32>
# MATH:      [[D:%[0-9]+]] = arith.addf {{%[0-9]+}}, [[E]] : tensor<16xf32>
# MATH:      [[SIG:%[0-9]+]] = arith.divf {{%[0-9]+}}, [[D]] : tensor<16xf32>
# softmax(x) = exp(x - max(x)) / sum(...), with fdiv.
# MATH:      [[MX:%[0-9]+]] = "tile.reduce"([[X]]) <{axis = 0 : i32}> ({
# MATH:        arith.maxnumf
# MATH:      [[SH:%[0-9]+]] = arith.subf [[X]], {{%[0-9]+}} : tensor<16xf32>
# MATH-NEXT: [[NUM:%[0-9]+]] = math.exp [[SH]] : tensor<16xf32>
# MATH-NEXT: [[DEN:%[0-9]+]] = "tile.reduce"([[NUM]]) <{axis = 0 : i32}> ({
# MATH:        arith.addf
# MATH:      arith.divf [[NUM]], {{%[0-9]+}} : tensor<16xf32>
# MATH:      clampf [[X]], {{%[0-9]+}}, {{%[0-9]+}}, propagate_nan =  none : tensor<16xf32>
# MATH:      math.fma [[X]], [[X]], [[X]] : tensor<16xf32>
# MATH:      math.exp [[X]] : tensor<16xf32>
# MATH:      math.log [[X]] : tensor<16xf32>
# MATH:      math.exp2 [[X]] : tensor<16xf32>
# MATH:      math.log2 [[X]] : tensor<16xf32>
# MATH:      math.sin [[X]] : tensor<16xf32>
# MATH:      math.cos [[X]] : tensor<16xf32>
# MATH:      math.sqrt [[X]] : tensor<16xf32>
# MATH-NEXT: precise_sqrt [[X]] : tensor<16xf32>
# MATH:      math.rsqrt [[X]] : tensor<16xf32>
# MATH:      math.absf [[X]] : tensor<16xf32>
# MATH:      math.erf [[X]] : tensor<16xf32>
# MATH:      math.floor [[X]] : tensor<16xf32>
# MATH-NEXT: math.ceil [[X]] : tensor<16xf32>
# MATH:      math.log1p [[X]] : tensor<16xf32>
# MATH:      math.exp2 [[X]] : tensor<16xf32>
# fdiv is a plain divf; div_rn and fdiv(ieee_rounding=True) are precise.
# MATH:      arith.divf [[X]], [[Y:%[0-9]+]] : tensor<16xf32>
# MATH-NEXT: precise_divf [[X]], [[Y]] : tensor<16xf32>
# MATH:      precise_divf [[X]], [[Y]] : tensor<16xf32>
# MATH:      arith.maximumf [[X]], [[Y2:%[0-9]+]] : tensor<16xf32>
# MATH-NEXT: arith.minnumf [[X]], [[Y2]] : tensor<16xf32>


@triton.jit
def int_fns(a_ptr, o_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.umulhi(x, 7) + tl.abs(x) + tl.maximum(x, 3) + tl.minimum(x, 2))

# INT:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<i32>>
# INT:      umulhi [[X]], {{%[0-9]+}} : tensor<16xi32>
# INT-NEXT: math.absi [[X]] : tensor<16xi32>
# INT:      arith.maxsi [[X]], {{%[0-9]+}} : tensor<16xi32>
# INT:      arith.minsi [[X]], {{%[0-9]+}} : tensor<16xi32>
# On unsigned ints abs is the identity, and max/min are unsigned.
# UINT:     [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<i32>>
# UINT:     [[H:%[0-9]+]] = umulhi [[X]], {{%[0-9]+}} : tensor<16xi32>
# UINT-NEXT: arith.addi [[H]], [[X]] : tensor<16xi32>
# UINT:     arith.maxui [[X]], {{%[0-9]+}} : tensor<16xi32>
# UINT:     arith.minui [[X]], {{%[0-9]+}} : tensor<16xi32>


@triton.jit
def shapes(o_ptr):
    a = tl.arange(0, 32)
    b = tl.reshape(a, (4, 8))
    c = b.T
    d = tl.trans(b)
    p = tl.permute(tl.reshape(a, (2, 4, 4)), (2, 0, 1))
    e = tl.view(c, 32)
    j = tl.join(a, a)
    x, y = tl.split(j)
    k = tl.cat(x, y, can_reorder=True)
    g = tl.gather(a, 31 - a, 0)
    h = tl.histogram(a % 8, 8, mask=a < 20)
    tl.store(o_ptr + tl.arange(0, 32), e + tl.reshape(d, 32) + tl.reshape(p, 32) + g)
    tl.store(o_ptr + tl.arange(0, 64), k)
    tl.store(o_ptr + tl.arange(0, 8), h)

# SHAPES:      [[A:%[0-9]+]] = make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
# SHAPES-NEXT: [[B:%[0-9]+]] = reshape [[A]] : tensor<32xi32> -> tensor<4x8xi32>
# SHAPES-NEXT: [[C:%[0-9]+]] = trans [[B]] {order = array<i32: 1, 0>} : tensor<4x8xi32> -> tensor<8x4xi32>
# SHAPES-NEXT: [[D:%[0-9]+]] = trans [[B]] {order = array<i32: 1, 0>} : tensor<4x8xi32> -> tensor<8x4xi32>
# SHAPES-NEXT: [[R3:%[0-9]+]] = reshape [[A]] : tensor<32xi32> -> tensor<2x4x4xi32>
# SHAPES-NEXT: [[P:%[0-9]+]] = trans [[R3]] {order = array<i32: 2, 0, 1>} : tensor<2x4x4xi32> -> tensor<4x2x4xi32>
# tl.view may reorder elements.
# SHAPES-NEXT: [[E:%[0-9]+]] = reshape [[C]] allow_reorder : tensor<8x4xi32> -> tensor<32xi32>
# SHAPES-NEXT: [[J:%[0-9]+]] = join [[A]], [[A]] : tensor<32xi32> -> tensor<32x2xi32>
# SHAPES-NEXT: [[L:%[a-zA-Z0-9_]+]], [[R:%[a-zA-Z0-9_]+]] = split [[J]] : tensor<32x2xi32>
# SHAPES-NEXT: [[K:%[0-9]+]] = cat [[L]], [[R]] : tensor<32xi32>, tensor<32xi32> -> tensor<64xi32>
# SHAPES:      [[IDX:%[0-9]+]] = arith.subi {{%[0-9]+}}, [[A]] : tensor<32xi32>
# SHAPES-NEXT: gather [[A]]{{\[}}[[IDX]]{{\]}} {axis = 0 : i32} : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
# SHAPES:      [[MOD:%[0-9]+]] = arith.remsi [[A]], {{%[0-9]+}} : tensor<32xi32>
# SHAPES:      [[MASK:%[0-9]+]] = arith.cmpi slt, [[A]], {{%[0-9]+}} : tensor<32xi32>
# SHAPES-NEXT: histogram [[MOD]], [[MASK]] : tensor<32xi1> : tensor<32xi32> -> tensor<8xi32>
# SHAPES:      store {{%[0-9]+}}, [[K]] : tensor<64x!tile.ptr<i32>>


@triton.jit
def program_ids(o_ptr):
    v = tl.program_id(0) + tl.program_id(1) * 10 + tl.program_id(axis=2) * 100
    w = tl.num_programs(0) + tl.num_programs(1) + tl.num_programs(2)
    tl.store(o_ptr, v + w)
    tl.device_print("v=", v)
    tl.device_assert(v >= 0, "negative")
    tl.debug_barrier()

# PIDS:      [[P0:%[0-9]+]] = program_id 0 : i32
# PIDS-NEXT: [[P1:%[0-9]+]] = program_id 1 : i32
# PIDS:      [[P2:%[0-9]+]] = program_id 2 : i32
# PIDS:      [[V:%[0-9]+]] = arith.addi
# PIDS:      num_programs 0 : i32
# PIDS-NEXT: num_programs 1 : i32
# PIDS:      num_programs 2 : i32
# device_print normalizes the prefix to " v=: ", as Triton does.
# PIDS:      print " v=: " {hex = false, is_signed = array<i32: 1>} : [[V]] : i32
# PIDS:      [[OK:%[0-9]+]] = arith.cmpi sge, [[V]], %c0_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# PIDS-NEXT: assert [[OK]], "negative" : i1
# PIDS-NEXT: debug_barrier
# --no-assert drops device_assert.
# NOASSERT:     print
# NOASSERT-NOT: assert
# NOASSERT:     debug_barrier
