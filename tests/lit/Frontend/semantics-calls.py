# Calls between @jit functions: plain helpers are inlined (keyword
# arguments, defaults, constexpr parameters, tuple returns unpacked);
# `@triton.jit(noinline=True)` helpers become private tile.funcs with the
# `noinline` attribute, called with tile.call, one per specialization (the
# argument types and constexpr values), reused by later calls.
#
# RUN: tegula compile %s --kernel calls --signature '*fp32' --emit tile-ir-raw | FileCheck %s
# RUN: tegula compile %s --kernel calls --signature '*fp32' | FileCheck %s --check-prefix=OPT

import triton
import triton.language as tl


@triton.jit(noinline=True)
def axpy(a, x, y):
    return a * x + y


@triton.jit
def scale(x, FACTOR: tl.constexpr = 2, bias=0.5):
    return x * FACTOR + bias


@triton.jit
def split2(x):
    return x + 1, x - 1


@triton.jit(noinline=True)
def minmax(x, y):
    return tl.minimum(x, y), tl.maximum(x, y)


@triton.jit(noinline=True)
def scaled(x, K: tl.constexpr):
    return x * K


@triton.jit
def calls(o_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(o_ptr + offs)
    r1 = axpy(x, x, x)
    r2 = axpy(r1, x, x)
    r3 = scale(r2)
    r4 = scale(r3, bias=1.5, FACTOR=3)
    lo, hi = minmax(r4, x)
    p, m = split2(lo)
    q = scaled(hi, 4) + scaled(hi, 5) + scaled(hi, 4)
    tl.store(o_ptr + offs, p * m + q)

# CHECK-LABEL: tile.func @calls(%arg0: !tile.ptr<f32>) {
# CHECK:       [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<16x!tile.ptr<f32>>
# CHECK-NEXT:  [[R1:%[0-9]+]] = call @[[AXPY:axpy[_a-z0-9]*]]([[X]], [[X]], [[X]]) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
# CHECK-NEXT:  [[R2:%[0-9]+]] = call @[[AXPY]]([[R1]], [[X]], [[X]]) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
# scale(r2): inlined with the defaults FACTOR=2, bias=0.5.
# CHECK:       arith.constant 2.000000e+00 : f32
# CHECK:       [[M1:%[0-9]+]] = arith.mulf [[R2]], {{%[0-9]+}} : tensor<16xf32>
# CHECK:       arith.constant 5.000000e-01 : f32
# CHECK:       [[R3:%[0-9]+]] = arith.addf [[M1]], {{%[0-9]+}} : tensor<16xf32>
# scale(r3, bias=1.5, FACTOR=3)
# CHECK:       arith.constant 3.000000e+00 : f32
# CHECK:       [[M2:%[0-9]+]] = arith.mulf [[R3]], {{%[0-9]+}} : tensor<16xf32>
# CHECK:       arith.constant 1.500000e+00 : f32
# CHECK:       [[R4:%[0-9]+]] = arith.addf [[M2]], {{%[0-9]+}} : tensor<16xf32>
# A noinline helper returning a tuple has two results.
# CHECK-NEXT:  [[MM:%[0-9]+]]:2 = call @[[MINMAX:minmax[_a-z0-9]*]]([[R4]], [[X]]) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
# split2(lo): inlined, unpacked.
# CHECK:       [[P:%[0-9]+]] = arith.addf [[MM]]#0, {{%[0-9]+}} : tensor<16xf32>
# CHECK:       [[N:%[0-9]+]] = arith.subf [[MM]]#0, {{%[0-9]+}} : tensor<16xf32>
# The constexpr argument is part of the specialization: K=4 and K=5 are two
# functions, the second K=4 call reuses the first.
# CHECK-NEXT:  [[S4:%[0-9]+]] = call @[[SCALED4:scaled[_a-z0-9]*K_4]]([[MM]]#1) : (tensor<16xf32>) -> tensor<16xf32>
# CHECK-NEXT:  [[S5:%[0-9]+]] = call @[[SCALED5:scaled[_a-z0-9]*K_5]]([[MM]]#1) : (tensor<16xf32>) -> tensor<16xf32>
# CHECK-NEXT:  [[S45:%[0-9]+]] = arith.addf [[S4]], [[S5]] : tensor<16xf32>
# CHECK-NEXT:  [[S4B:%[0-9]+]] = call @[[SCALED4]]([[MM]]#1) : (tensor<16xf32>) -> tensor<16xf32>
# CHECK-NEXT:  [[Q:%[0-9]+]] = arith.addf [[S45]], [[S4B]] : tensor<16xf32>
# CHECK:       [[PM:%[0-9]+]] = arith.mulf [[P]], [[N]] : tensor<16xf32>
# CHECK-NEXT:  [[OUT:%[0-9]+]] = arith.addf [[PM]], [[Q]] : tensor<16xf32>
# CHECK-NEXT:  store {{%[0-9]+}}, [[OUT]] : tensor<16x!tile.ptr<f32>>
# CHECK-NEXT:  return
# CHECK-NEXT: }
# CHECK-NEXT: tile.func private @[[AXPY]](%arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<16xf32> attributes {noinline} {
# CHECK-NEXT:   [[AX:%[0-9]+]] = arith.mulf %arg0, %arg1 : tensor<16xf32>
# CHECK-NEXT:   [[AXY:%[0-9]+]] = arith.addf [[AX]], %arg2 : tensor<16xf32>
# CHECK-NEXT:   return [[AXY]] : tensor<16xf32>
# CHECK-NEXT: }
# CHECK-NEXT: tile.func private @[[MINMAX]](%arg0: tensor<16xf32>, %arg1: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) attributes {noinline} {
# CHECK-NEXT:   [[MN:%[0-9]+]] = arith.minnumf %arg0, %arg1 : tensor<16xf32>
# CHECK-NEXT:   [[MX:%[0-9]+]] = arith.maxnumf %arg0, %arg1 : tensor<16xf32>
# CHECK-NEXT:   return [[MN]], [[MX]] : tensor<16xf32>, tensor<16xf32>
# CHECK-NEXT: }
# CHECK-NEXT: tile.func private @[[SCALED4]](%arg0: tensor<16xf32>) -> tensor<16xf32> attributes {noinline} {
# CHECK:        arith.constant 4.000000e+00 : f32
# CHECK:      tile.func private @[[SCALED5]](%arg0: tensor<16xf32>) -> tensor<16xf32> attributes {noinline} {
# CHECK:        arith.constant 5.000000e+00 : f32
# CHECK-NOT:  tile.func

# The pipeline keeps the noinline functions and their calls.
# OPT-COUNT-2: call @axpy
# OPT:         call @minmax
# OPT-COUNT-3: call @scaled
# OPT:         tile.func private @axpy{{.*}} attributes {noinline}
