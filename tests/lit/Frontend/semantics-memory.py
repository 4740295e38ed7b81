# Loads and stores: block pointers (make_tensor_ptr with i64 shape/strides
# and i32 offsets, advance, boundary_check sorted, padding zero/nan), cache
# modifiers, eviction policies and volatile, masks and `other`, bool
# pointers (accessed as bytes), scalar masked load/store, and pointer
# offsets (i64 kept, uint32 zero-extended to i64, `ptr - 1`).
#
# RUN: tegula compile %s --kernel block_ptrs --signature '*fp16, *fp16, i32, i32, i64' --emit tile-ir-raw | FileCheck %s --check-prefix=BLOCK
# RUN: tegula compile %s --kernel modifiers --signature '*fp32, *fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=MOD
# RUN: tegula compile %s --kernel bools --signature '*i1, *i1' --emit tile-ir-raw | FileCheck %s --check-prefix=BOOL
# RUN: tegula compile %s --kernel scalar_mem --signature '*fp32, *fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=SCALAR
# RUN: tegula compile %s --kernel ptr_offsets --signature '*fp32, *fp32, i64, u32' --emit tile-ir-raw | FileCheck %s --check-prefix=OFFS

import triton
import triton.language as tl


@triton.jit
def block_ptrs(a_ptr, o_ptr, M, N, stride_m):
    p = tl.make_block_ptr(a_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(0, 0), block_shape=(32, 64), order=(1, 0))
    x = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    p = tl.advance(p, (32, 0))
    y = tl.load(p, boundary_check=(1,), padding_option="nan")
    z = tl.load(p)
    q = tl.make_block_ptr(o_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(32, 64), block_shape=(32, 64), order=(1, 0))
    tl.store(q, x + y + z, boundary_check=(1, 0))

# BLOCK:      [[S0:%[0-9]+]] = arith.extsi %arg2 : i32 to i64
# BLOCK-NEXT: [[S1:%[0-9]+]] = arith.extsi %arg3 : i32 to i64
# BLOCK-NEXT: [[ST1:%[0-9]+]] = arith.extsi %c1_i32{{[_0-9]*}} : i32 to i64
# BLOCK-NEXT: [[P:%[0-9]+]] = make_tensor_ptr %arg0, {{\[}}[[S0]], [[S1]]], [%arg4, [[ST1]]], [%c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}] {order = array<i32: 1, 0>} : !tile.ptr<tensor<32x64xf16>>
# BLOCK-NEXT: [[X:%[0-9]+]] = load [[P]] {boundary_check = array<i32: 0, 1>, padding = #tile<padding zero>} : !tile.ptr<tensor<32x64xf16>>
# BLOCK:      [[P2:%[0-9]+]] = advance [[P]], [%c32_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}] : !tile.ptr<tensor<32x64xf16>>
# BLOCK-NEXT: [[Y:%[0-9]+]] = load [[P2]] {boundary_check = array<i32: 1>, padding = #tile<padding nan>} : !tile.ptr<tensor<32x64xf16>>
# BLOCK-NEXT: [[Z:%[0-9]+]] = load [[P2]] : !tile.ptr<tensor<32x64xf16>>
# BLOCK:      [[Q:%[0-9]+]] = make_tensor_ptr %arg1, {{.*}}, [%c32_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}}] {order = array<i32: 1, 0>} : !tile.ptr<tensor<32x64xf16>>
# BLOCK:      store [[Q]], {{%[0-9]+}} {boundary_check = array<i32: 0, 1>} : !tile.ptr<tensor<32x64xf16>>


@triton.jit
def modifiers(a_ptr, o_ptr, n):
    offs = tl.arange(0, 64)
    m = offs < n
    x = tl.load(a_ptr + offs, mask=m, other=1.0, cache_modifier=".cg", eviction_policy="evict_last")
    y = tl.load(a_ptr + offs, volatile=True)
    tl.store(o_ptr + offs, x + y, mask=m, cache_modifier=".cs", eviction_policy="evict_first")

# MOD:      [[M:%[0-9]+]] = arith.cmpi slt
# MOD:      [[O:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<64xf32>
# MOD-NEXT: [[X:%[0-9]+]] = load {{%[0-9]+}}, [[M]], [[O]] {cache = #tile<cache cg>, evict = #tile<evict evict_last>} : tensor<64x!tile.ptr<f32>>
# MOD:      [[Y:%[0-9]+]] = load {{%[0-9]+}} {is_volatile} : tensor<64x!tile.ptr<f32>>
# MOD:      [[S:%[0-9]+]] = arith.addf [[X]], [[Y]] : tensor<64xf32>
# MOD-NEXT: store {{%[0-9]+}}, [[S]], [[M]] {cache = #tile<cache cs>, evict = #tile<evict evict_first>} : tensor<64x!tile.ptr<f32>>


@triton.jit
def bools(a_ptr, o_ptr):
    offs = tl.arange(0, 64)
    b = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, ~b)

# BOOL:      [[P:%[0-9]+]] = addptr {{%[0-9]+}}, {{%[0-9]+}} : tensor<64x!tile.ptr<i1>>, tensor<64xi32>
# BOOL-NEXT: [[P8:%[0-9]+]] = bitcast [[P]] : tensor<64x!tile.ptr<i1>> -> tensor<64x!tile.ptr<i8>>
# BOOL-NEXT: [[B8:%[0-9]+]] = load [[P8]] : tensor<64x!tile.ptr<i8>>
# BOOL-NEXT: [[Z:%[a-z0-9_]+]] = arith.constant dense<0> : tensor<64xi8>
# BOOL-NEXT: [[B:%[0-9]+]] = arith.cmpi ne, [[B8]], [[Z]] : tensor<64xi8>
# BOOL:      [[T:%[0-9]+]] = splat %true{{[_0-9]*}} : i1 -> tensor<64xi1>
# BOOL-NEXT: [[NB:%[0-9]+]] = arith.xori [[B]], [[T]] : tensor<64xi1>
# BOOL-NEXT: [[Q8:%[0-9]+]] = bitcast {{%[0-9]+}} : tensor<64x!tile.ptr<i1>> -> tensor<64x!tile.ptr<i8>>
# BOOL-NEXT: [[NB8:%[0-9]+]] = arith.extui [[NB]] : tensor<64xi1> to tensor<64xi8>
# BOOL-NEXT: store [[Q8]], [[NB8]] : tensor<64x!tile.ptr<i8>>


@triton.jit
def scalar_mem(a_ptr, o_ptr, n):
    x = tl.load(a_ptr + 3, mask=n > 0, other=0.0)
    tl.store(o_ptr, x, mask=n > 1)

# SCALAR:      [[P:%[0-9]+]] = addptr %arg0, %c3_i32{{[_0-9]*}} : !tile.ptr<f32>, i32
# SCALAR:      [[M:%[0-9]+]] = arith.cmpi sgt, %arg2, %c0_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# SCALAR-NEXT: arith.constant 0.000000e+00 : f32
# SCALAR-NEXT: [[X:%[0-9]+]] = load [[P]], [[M]], %cst{{[_0-9]*}} : !tile.ptr<f32>
# SCALAR:      [[M2:%[0-9]+]] = arith.cmpi sgt, %arg2, %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# SCALAR-NEXT: store %arg1, [[X]], [[M2]] : !tile.ptr<f32>


@triton.jit
def ptr_offsets(a_ptr, o_ptr, i64off, u32off):
    x = tl.load(a_ptr + i64off)
    y = tl.load(a_ptr + u32off)
    tl.store(o_ptr - 1, x + y)

# OFFS:      tile.func @ptr_offsets(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>, %arg2: i64, %arg3: i32) {
# OFFS-NEXT:   [[P:%[0-9]+]] = addptr %arg0, %arg2 : !tile.ptr<f32>, i64
# OFFS-NEXT:   load [[P]] : !tile.ptr<f32>
# OFFS-NEXT:   [[U:%[0-9]+]] = arith.extui %arg3 : i32 to i64
# OFFS-NEXT:   [[P2:%[0-9]+]] = addptr %arg0, [[U]] : !tile.ptr<f32>, i64
# ptr - 1 is ptr + (0 - 1).
# OFFS:        [[NEG:%[0-9]+]] = arith.subi %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}} : i32
# OFFS-NEXT:   addptr %arg1, [[NEG]] : !tile.ptr<f32>, i32
