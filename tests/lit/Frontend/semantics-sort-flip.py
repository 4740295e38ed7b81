# tl.sort and tl.flip from the standard library. sort is Triton's bitonic
# network on the tensor reshaped to [2, 2, ..., 2]: for 8 elements, 1 + 2 +
# 3 = 6 compare-and-swap steps, each taking the two halves with a sum over
# one axis of the integer bit pattern and swapping with xor; no loops.
# flip gathers with the reversed index along the last dimension.
#
# RUN: tegula compile %s --kernel srt --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=SORTF
# RUN: tegula compile %s --kernel srt --signature '*i32, *i32' --emit tile-ir-raw | FileCheck %s --check-prefix=SORTI
# RUN: tegula compile %s --kernel srt --signature '*u32, *u32' --emit tile-ir-raw | FileCheck %s --check-prefix=SORTU
# RUN: tegula compile %s --kernel srt2d --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=SORT2D
# RUN: tegula compile %s --kernel flp --signature '*fp16, *fp16' --emit tile-ir-raw | FileCheck %s --check-prefix=FLIP
# RUN: tegula compile %s --kernel flp2d --signature '*fp32, *fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=FLIP2D

import triton
import triton.language as tl


@triton.jit
def srt(a_ptr, o_ptr):
    offs = tl.arange(0, 8)
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.sort(x))

# SORTF:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<8x!tile.ptr<f32>>
# SORTF:      [[Y:%[0-9]+]] = reshape [[X]] : tensor<8xf32> -> tensor<2x2x2xf32>
# SORTF:      bitcast [[Y]] : tensor<2x2x2xf32> -> tensor<2x2x2xi32>
# SORTF-COUNT-6: arith.cmpf ogt, {{%[0-9]+}}, {{%[0-9]+}} : tensor<{{2x2x1|2x1x2|1x2x2}}xf32>
# SORTF-NOT:  arith.cmpf
# SORTF:      [[Z:%[0-9]+]] = bitcast {{%[0-9]+}} : tensor<2x2x2xi32> -> tensor<2x2x2xf32>
# SORTF-NEXT: [[R:%[0-9]+]] = reshape [[Z]] : tensor<2x2x2xf32> -> tensor<8xf32>
# SORTF-NEXT: store {{%[0-9]+}}, [[R]] : tensor<8x!tile.ptr<f32>>
# SORTF-NOT:  scf.

# SORTI:      reshape {{%[0-9]+}} : tensor<8xi32> -> tensor<2x2x2xi32>
# SORTI-COUNT-12: "tile.reduce"
# SORTI-NOT:  "tile.reduce"
# SORTI:      reshape {{%[0-9]+}} : tensor<2x2x2xi32> -> tensor<8xi32>
# SORTI-NOT:  arith.cmpi ugt
# Unsigned values compare unsigned.
# SORTU-COUNT-6: arith.cmpi ugt
# SORTU-NOT:  arith.cmpi sgt


@triton.jit
def srt2d(a_ptr, o_ptr):
    offs = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.sort(x, descending=True))

# 32 elements as [2, 2, 2, 2, 2], sorting the last 8 per row.
# SORT2D:     reshape {{%[0-9]+}} : tensor<4x8xf32> -> tensor<2x2x2x2x2xf32>
# SORT2D-COUNT-6: arith.cmpf ogt
# SORT2D-NOT: arith.cmpf
# SORT2D:     reshape {{%[0-9]+}} : tensor<2x2x2x2x2xf32> -> tensor<4x8xf32>


@triton.jit
def flp(a_ptr, o_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.flip(x))

# FLIP:      [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f16>>
# FLIP:      [[R:%[0-9]+]] = make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
# FLIP:      arith.constant 15 : i32
# FLIP:      [[IDX:%[0-9]+]] = arith.subi {{%[0-9]+}}, [[R]] : tensor<16xi32>
# FLIP-NEXT: [[F:%[0-9]+]] = gather [[X]]{{\[}}[[IDX]]{{\]}} {axis = 0 : i32} : (tensor<16xf16>, tensor<16xi32>) -> tensor<16xf16>
# FLIP-NEXT: store {{%[0-9]+}}, [[F]] : tensor<16x!tile.ptr<f16>>


@triton.jit
def flp2d(a_ptr, o_ptr):
    offs = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.flip(x))

# FLIP2D:      [[IDX:%[0-9]+]] = arith.subi {{%[0-9]+}}, {{%[0-9]+}} : tensor<8xi32>
# FLIP2D-NEXT: [[I2:%[0-9]+]] = expand_dims [[IDX]] {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
# FLIP2D-NEXT: [[IB:%[0-9]+]] = broadcast [[I2]] : tensor<1x8xi32> -> tensor<4x8xi32>
# FLIP2D-NEXT: gather {{%[0-9]+}}{{\[}}[[IB]]{{\]}} {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
