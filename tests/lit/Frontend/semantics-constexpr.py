# Constexpr evaluation: an `if` on a constexpr keeps only the taken branch;
# constexpr arithmetic (Python semantics: floor division, modulo, powers,
# shifts), min/max/abs, float('inf'), module-level constants
# (`X: tl.constexpr = ...`, `X = tl.constexpr(...)`, plain numbers, and
# constants computed from earlier ones), and introspection (len(x.shape),
# x.shape[i], x.dtype.is_floating(), ptr.dtype.element_ty, `in`, `is None`)
# all fold to constants.
#
# RUN: tegula compile %s --kernel branch --signature '*i32, 128' --emit tile-ir-raw | FileCheck %s --check-prefix=BIG
# RUN: tegula compile %s --kernel branch --signature '*i32, 64' --emit tile-ir-raw | FileCheck %s --check-prefix=SMALL
# RUN: tegula compile %s --kernel arith --signature '*i32, 128' --emit tile-ir-raw | FileCheck %s --check-prefix=ARITH
# RUN: tegula compile %s --kernel floats --signature '*fp32' --emit tile-ir-raw | FileCheck %s --check-prefix=FLOATS
# RUN: tegula compile %s --kernel globals_ --signature '*i32' --emit tile-ir-raw | FileCheck %s --check-prefix=GLOBALS
# RUN: tegula compile %s --kernel introspect --signature '*fp32, *fp16, "a"' --emit tile-ir-raw | FileCheck %s --check-prefix=INTRO-A
# RUN: tegula compile %s --kernel introspect --signature '*i32, *fp32, None' --emit tile-ir-raw | FileCheck %s --check-prefix=INTRO-NONE

import triton
import triton.language as tl

BLOCK_G: tl.constexpr = 128
HALF = tl.constexpr(64)
QUARTER: tl.constexpr = HALF // 2
SCALE = 0.5


@triton.jit
def branch(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if BLOCK > 64:
        v = offs * 7
    else:
        v = offs * 11
    tl.store(o_ptr + offs, v)

# BIG:       tile.func @branch(%arg0: !tile.ptr<i32>) {
# BIG:       arith.constant 7 : i32
# BIG:       arith.muli {{%[0-9]+}}, {{%[0-9]+}} : tensor<128xi32>
# BIG-NOT:   arith.constant 11
# BIG-NOT:   scf.if
# SMALL:     tile.func @branch(%arg0: !tile.ptr<i32>) {
# SMALL:     arith.constant 11 : i32
# SMALL:     arith.muli {{%[0-9]+}}, {{%[0-9]+}} : tensor<64xi32>
# SMALL-NOT: arith.constant 7
# SMALL-NOT: scf.if


@triton.jit
def arith(o_ptr, BLOCK: tl.constexpr):
    N: tl.constexpr = BLOCK * 2 + 1
    M = min(BLOCK, 32) + max(4, 5) + abs(-7)
    P = (-7 // 2) * 1000 + (-7 % 2) * 100 + 2 ** 5
    tl.store(o_ptr, N)
    tl.store(o_ptr + 1, M)
    tl.store(o_ptr + 2, P)
    tl.store(o_ptr + 3, BLOCK << 3 | 1)

# N = 128 * 2 + 1; M = 32 + 5 + 7; P = -4 * 1000 + 1 * 100 + 32 (Python's
# floor division and modulo on constexprs); 128 << 3 | 1.
# ARITH:      tile.func @arith(%arg0: !tile.ptr<i32>) {
# ARITH-NEXT:   %c257_i32{{[_0-9]*}} = arith.constant 257 : i32
# ARITH-NEXT:   store %arg0, %c257_i32{{[_0-9]*}} : !tile.ptr<i32>
# ARITH:        %c44_i32{{[_0-9]*}} = arith.constant 44 : i32
# ARITH-NEXT:   store {{%[0-9]+}}, %c44_i32{{[_0-9]*}} : !tile.ptr<i32>
# ARITH:        %c-3868_i32{{[_0-9]*}} = arith.constant -3868 : i32
# ARITH-NEXT:   store {{%[0-9]+}}, %c-3868_i32{{[_0-9]*}} : !tile.ptr<i32>
# ARITH:        %c1025_i32{{[_0-9]*}} = arith.constant 1025 : i32
# ARITH-NEXT:   store {{%[0-9]+}}, %c1025_i32{{[_0-9]*}} : !tile.ptr<i32>
# ARITH-NOT:    arith.muli
# ARITH-NOT:    arith.addi


@triton.jit
def floats(o_ptr):
    offs = tl.arange(0, 16)
    x = tl.zeros([16], dtype=tl.float32)
    tl.store(o_ptr + offs, x + float('inf'))
    tl.store(o_ptr + offs, x + float("-inf"))
    tl.store(o_ptr + offs, x * SCALE)

# FLOATS:      arith.constant 0x7F800000 : f32
# FLOATS:      [[INF:%[0-9]+]] = splat %cst{{[_0-9]*}}{{[_0-9]*}} : f32 -> tensor<16xf32>
# FLOATS-NEXT: arith.addf {{%[0-9]+}}, [[INF]] : tensor<16xf32>
# FLOATS:      arith.constant 0xFF800000 : f32
# FLOATS:      [[NINF:%[0-9]+]] = splat %cst{{[_0-9]*}}{{[_0-9]*}} : f32 -> tensor<16xf32>
# FLOATS-NEXT: arith.addf {{%[0-9]+}}, [[NINF]] : tensor<16xf32>
# FLOATS:      arith.constant 5.000000e-01 : f32
# FLOATS:      [[HALF:%[0-9]+]] = splat %cst{{[_0-9]*}}{{[_0-9]*}} : f32 -> tensor<16xf32>
# FLOATS-NEXT: arith.mulf {{%[0-9]+}}, [[HALF]] : tensor<16xf32>


@triton.jit
def globals_(o_ptr):
    offs = tl.arange(0, BLOCK_G)
    tl.store(o_ptr + offs, offs + HALF + QUARTER)

# GLOBALS:      [[R:%[0-9]+]] = make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
# GLOBALS:      [[H:%[0-9]+]] = splat %c64_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<128xi32>
# GLOBALS-NEXT: [[S1:%[0-9]+]] = arith.addi [[R]], [[H]] : tensor<128xi32>
# GLOBALS:      [[Q:%[0-9]+]] = splat %c32_i32{{[_0-9]*}}{{[_0-9]*}} : i32 -> tensor<128xi32>
# GLOBALS-NEXT: arith.addi [[S1]], [[Q]] : tensor<128xi32>


@triton.jit
def introspect(a_ptr, o_ptr, MODE: tl.constexpr):
    x = tl.load(a_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    R: tl.constexpr = len(x.shape) * 1000 + x.shape[0] * 10 + x.shape[1] // 16
    if x.dtype.is_floating():
        K = 1
    else:
        K = 2
    if o_ptr.dtype.element_ty == tl.float16:
        E = 3
    else:
        E = 4
    if MODE in ("a", "b"):
        F = 5
    else:
        F = 6
    if MODE is None:
        G = 7
    else:
        G = 8
    tl.store(o_ptr, R + K * 100000 + E * 10000000 + F * 100000000 + G)

# R = 2 * 1000 + 32 * 10 + 16 // 16 = 2321; then float K = 1, fp16 E = 3,
# "a" in the tuple F = 5, not None G = 8; the sum is one constant, converted
# to the fp16 pointee.
# INTRO-A:      [[V:%[a-z0-9_]+]] = arith.constant 530102329 : i32
# INTRO-A-NEXT: [[F:%[0-9]+]] = arith.sitofp [[V]] : i32 to f16
# INTRO-A-NEXT: store %arg1, [[F]] : !tile.ptr<f16>
# int K = 2, fp32 E = 4, F = 6, None G = 7.
# INTRO-NONE:      [[V:%[a-z0-9_]+]] = arith.constant 640202328 : i32
# INTRO-NONE-NEXT: [[F:%[0-9]+]] = arith.sitofp [[V]] : i32 to f32
# INTRO-NONE-NEXT: store %arg1, [[F]] : !tile.ptr<f32>
