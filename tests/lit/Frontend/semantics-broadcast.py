# Broadcasting: x[:, None] / x[None, :] insert dimensions (tile.expand_dims),
# [128, 1] op [1, 64] broadcasts both sides to [128, 64], a lower-rank
# operand gains leading dimensions, scalars are splat, and tl.where
# broadcasts its three operands together.
#
# RUN: tegula compile %s --kernel outer --signature '*fp32, *fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=OUTER
# RUN: tegula compile %s --kernel rank_up --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=RANK
# RUN: tegula compile %s --kernel where_bc --signature '*fp32, *fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=WHERE

import triton
import triton.language as tl


@triton.jit
def outer(a_ptr, b_ptr, o_ptr):
    a = tl.load(a_ptr + tl.arange(0, 128))
    b = tl.load(b_ptr + tl.arange(0, 64))
    col = a[:, None]
    row = b[None, :]
    offs = tl.arange(0, 128)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(o_ptr + offs, col + row)

# OUTER:      [[A:%[0-9]+]] = load {{%[0-9]+}} : tensor<128x!tile.ptr<f32>>
# OUTER:      [[B:%[0-9]+]] = load {{%[0-9]+}} : tensor<64x!tile.ptr<f32>>
# OUTER-NEXT: [[COL:%[0-9]+]] = expand_dims [[A]] {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
# OUTER-NEXT: [[ROW:%[0-9]+]] = expand_dims [[B]] {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
# [128, 1] * 64 keeps [128, 1] (the scalar is splat to that shape).
# OUTER:      [[R:%[0-9]+]] = expand_dims {{%[0-9]+}} {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
# OUTER:      [[S64:%[0-9]+]] = splat %c64_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<128x1xi32>
# OUTER-NEXT: [[RS:%[0-9]+]] = arith.muli [[R]], [[S64]] : tensor<128x1xi32>
# OUTER:      [[C:%[0-9]+]] = expand_dims {{%[0-9]+}} {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
# OUTER-NEXT: [[RB:%[0-9]+]] = broadcast [[RS]] : tensor<128x1xi32> -> tensor<128x64xi32>
# OUTER-NEXT: [[CB:%[0-9]+]] = broadcast [[C]] : tensor<1x64xi32> -> tensor<128x64xi32>
# OUTER-NEXT: [[OFFS:%[0-9]+]] = arith.addi [[RB]], [[CB]] : tensor<128x64xi32>
# OUTER-NEXT: [[PB:%[0-9]+]] = splat %arg2 : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
# OUTER-NEXT: [[P:%[0-9]+]] = addptr [[PB]], [[OFFS]] : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>
# OUTER-NEXT: [[COLB:%[0-9]+]] = broadcast [[COL]] : tensor<128x1xf32> -> tensor<128x64xf32>
# OUTER-NEXT: [[ROWB:%[0-9]+]] = broadcast [[ROW]] : tensor<1x64xf32> -> tensor<128x64xf32>
# OUTER-NEXT: [[SUM:%[0-9]+]] = arith.addf [[COLB]], [[ROWB]] : tensor<128x64xf32>
# OUTER-NEXT: store [[P]], [[SUM]] : tensor<128x64x!tile.ptr<f32>>


@triton.jit
def rank_up(a_ptr, o_ptr):
    v = tl.load(a_ptr + tl.arange(0, 64))
    m = tl.full((32, 64), 1.0, tl.float32)
    x = tl.expand_dims(v, 0)
    y = tl.broadcast_to(x, (32, 64))
    offs = tl.arange(0, 32)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(o_ptr + offs, m * v + y)

# RANK:      [[V:%[0-9]+]] = load {{%[0-9]+}} : tensor<64x!tile.ptr<f32>>
# RANK:      [[M:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<32x64xf32>
# RANK-NEXT: [[X:%[0-9]+]] = expand_dims [[V]] {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
# RANK-NEXT: [[Y:%[0-9]+]] = broadcast [[X]] : tensor<1x64xf32> -> tensor<32x64xf32>
# m * v: the [64] operand becomes [1, 64], then [32, 64].
# RANK:      [[V1:%[0-9]+]] = expand_dims [[V]] {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
# RANK-NEXT: [[VB:%[0-9]+]] = broadcast [[V1]] : tensor<1x64xf32> -> tensor<32x64xf32>
# RANK-NEXT: [[MV:%[0-9]+]] = arith.mulf [[M]], [[VB]] : tensor<32x64xf32>
# RANK-NEXT: arith.addf [[MV]], [[Y]] : tensor<32x64xf32>


@triton.jit
def where_bc(a_ptr, o_ptr, n):
    a = tl.load(a_ptr + tl.arange(0, 64))
    c = tl.arange(0, 32)[:, None] < n
    r = tl.where(c, a[None, :], 0.0)
    offs = tl.arange(0, 32)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(o_ptr + offs, r)

# WHERE:      [[C:%[0-9]+]] = arith.cmpi slt, {{%[0-9]+}}, {{%[0-9]+}} : tensor<32x1xi32>
# WHERE-NEXT: [[A:%[0-9]+]] = expand_dims {{%[0-9]+}} {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
# WHERE:      [[Z:%[0-9]+]] = splat %cst{{[_0-9]*}}{{[_0-9]*}} : f32 -> tensor<1x64xf32>
# WHERE-NEXT: [[CB:%[0-9]+]] = broadcast [[C]] : tensor<32x1xi1> -> tensor<32x64xi1>
# WHERE-NEXT: [[AB:%[0-9]+]] = broadcast [[A]] : tensor<1x64xf32> -> tensor<32x64xf32>
# WHERE-NEXT: [[ZB:%[0-9]+]] = broadcast [[Z]] : tensor<1x64xf32> -> tensor<32x64xf32>
# WHERE-NEXT: arith.select [[CB]], [[AB]], [[ZB]] : tensor<32x64xi1>, tensor<32x64xf32>
