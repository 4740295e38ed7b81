# Regression test (fixed bug): a noinline helper's results come back as signed
# integers whatever their Triton type, so unsigned values returned from a
# noinline function are divided, shifted and compared as signed. Triton
# keeps the helper's return type (uint32 here): `u // 3` is divui,
# `u >> 1` is shrui, `u < 5` is ult.
# Observed: divsi, shrsi, slt. (CodeGen::callNoInline rebuilds result
# types from the MLIR types with DType::integer(width, /*signed=*/true).)
#
# RUN: tegula compile %s --kernel k --signature '*i32, *u32' --emit tile-ir-raw | FileCheck %s

import triton
import triton.language as tl


@triton.jit(noinline=True)
def to_u32(x):
    return x.to(tl.uint32)


@triton.jit
def k(i_ptr, o_ptr):
    offs = tl.arange(0, 16)
    u = to_u32(tl.load(i_ptr + offs))
    tl.store(o_ptr + offs, u // 3)
    tl.store(o_ptr + offs, u >> 1)
    tl.store(o_ptr + offs, u < 5)

# CHECK:     [[U:%[0-9]+]] = call @to_u32{{[_a-z0-9]*}}
# CHECK:     arith.divui [[U]], {{%[0-9]+}} : tensor<16xi32>
# CHECK:     arith.shrui [[U]], {{%[0-9]+}} : tensor<16xi32>
# CHECK:     arith.cmpi ult, [[U]], {{%[0-9]+}} : tensor<16xi32>
