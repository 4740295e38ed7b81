# Regression test (fixed bug): docs/language.md lists a dtype
# name such as `fp16` as a signature entry giving the value of a
# tl.constexpr parameter, but the signature parser reads `fp16` as a scalar
# argument type and compilation fails with "parameter 'DST' is a
# tl.constexpr: the signature must give its value, not the type 'fp16'".
# (`tl.float16` in the signature and --constexpr DST=fp16 work.)
# Expected: for a tl.constexpr parameter a bare dtype name is the dtype
# value. (tegula::frontend::parseSignature / CodeGen::run.)
#
# RUN: tegula compile %s --kernel cast --signature '*fp32, *fp16, fp16' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit
def cast(a_ptr, o_ptr, DST: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(o_ptr + offs, tl.load(a_ptr + offs).to(DST))

# CHECK:     tile.func @cast(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f16>) {
# CHECK:       arith.truncf {{%[0-9]+}} : tensor<16xf32> to tensor<16xf16>
