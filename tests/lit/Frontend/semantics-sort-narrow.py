# Regression test (fixed bug): tl.sort of 8- and 16-bit element types
# (fp16, bf16, int8, int16) fails with "tl.sort: cannot bitcast data-type
# of size 32 to data-type of size 16" (or 8). Triton sorts these types.
# Cause: the standard library's _take_slice uses `sum`, which accumulates
# narrow integers in int32 (_pick_sum_dtype), so the halves come back as
# int32 and `l_int.to(x.dtype, bitcast=True)` in _compare_and_swap
# (frontend/lib/stdlib/tl_stdlib.py) cannot bitcast them back.
#
# RUN: tegula compile %s --kernel srt --signature '*fp16, *fp16' --emit tile-ir-raw | FileCheck %s --check-prefix=F16
# RUN: tegula compile %s --kernel srt --signature '*bf16, *bf16' --emit tile-ir-raw | FileCheck %s --check-prefix=BF16
# RUN: tegula compile %s --kernel srt --signature '*i8, *i8' --emit tile-ir-raw | FileCheck %s --check-prefix=I8
# RUN: tegula compile %s --kernel srt --signature '*i16, *i16' --emit tile-ir-raw | FileCheck %s --check-prefix=I16

import triton
import triton.language as tl


@triton.jit
def srt(a_ptr, o_ptr):
    offs = tl.arange(0, 8)
    x = tl.load(a_ptr + offs)
    tl.store(o_ptr + offs, tl.sort(x))

# F16:  reshape {{%[0-9]+}} : tensor<8xf16> -> tensor<2x2x2xf16>
# F16:  reshape {{%[0-9]+}} : tensor<2x2x2xf16> -> tensor<8xf16>
# BF16: reshape {{%[0-9]+}} : tensor<2x2x2xbf16> -> tensor<8xbf16>
# I8:   reshape {{%[0-9]+}} : tensor<2x2x2xi8> -> tensor<8xi8>
# I16:  reshape {{%[0-9]+}} : tensor<2x2x2xi16> -> tensor<8xi16>
