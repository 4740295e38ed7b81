#!/usr/bin/env python3
"""Checks on an NVIDIA GPU what issue #18's language work added, against
NumPy, with every output poisoned first:

1. kernels of the package python/tests/kpkg calling @jit helpers and
   constants of its other modules (with a None pointer and with a tensor),
   and .cast(..., fp_downcast_rounding="rtz") to fp16 and bf16, bit for bit;
2. tl.inline_asm_elementwise in PTX: one result, two results, pack=2 of
   int32 (two operands per asm) and pack=4 of uint8 (one 32-bit register).

Run on the GPU machine (/work/shared/DEVICE.md), from the repository root:

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so PYTHONPATH=python \\
        python3 scripts/check-language-gpu.py [--device nvidia:0]

With --device host:0 (no GPU) part 1 runs on the host and part 2 checks
that the host refuses inline assembly with its located error. Prints one
line per check and exits 1 if any failed.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python", "tests"))

import tegula  # noqa: E402
import tegula.language as tl  # noqa: E402


@tegula.jit
def asm_mul_kernel(X, Y, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.inline_asm_elementwise("mul.rn.f32 $0, $1, $2;", "=f,f,f", [x, y],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(Z + offs, z)


@tegula.jit
def asm_two_results_kernel(X, Y, S, D, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    s, d = tl.inline_asm_elementwise("add.s32 $0, $2, $3; sub.s32 $1, $2, $3;",
                                     "=r,=r,r,r", [x, y], dtype=(tl.int32, tl.int32),
                                     is_pure=True, pack=1)
    tl.store(S + offs, s)
    tl.store(D + offs, d)


@tegula.jit
def asm_pack2_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.inline_asm_elementwise("add.s32 $0, $2, 1; add.s32 $1, $3, 1;", "=r,=r,r,r",
                                  [x], dtype=tl.int32, is_pure=True, pack=2)
    tl.store(Y + offs, y)


@tegula.jit
def asm_pack4_u8_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.inline_asm_elementwise("not.b32 $0, $1;", "=r,r", [x], dtype=tl.uint8,
                                  is_pure=True, pack=4)
    tl.store(Y + offs, y)


class Arrays:
    """NumPy in, device arrays out (torch on CUDA; NumPy on the host)."""

    def __init__(self, device):
        self.cuda = not device.startswith("host")
        if self.cuda:
            import torch
            self.torch = torch

    def put(self, a):
        if not self.cuda:
            return a.copy()
        # fp8 (ml_dtypes) arrays go over as bytes and become torch's fp8
        # dtype of the same format, so the kernel sees fp8 pointers.
        fp8 = {"float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2"}
        if a.dtype.name in fp8:
            t = self.torch.from_numpy(np.ascontiguousarray(a).view(np.uint8))
            return t.view(getattr(self.torch, fp8[a.dtype.name])).cuda()
        return self.torch.from_numpy(a).cuda()

    def get(self, d, dtype):
        if not self.cuda:
            return d
        return d.cpu().numpy().view(dtype)


def rtz_fp16(x):
    x = x.astype(np.float64)
    m, e = np.frexp(x)
    normal = np.trunc(m * 2.0 ** 11) * 2.0 ** (e - 11)
    subnormal = np.trunc(x * 2.0 ** 24) * 2.0 ** -24
    r = np.clip(np.where(np.abs(x) < 2.0 ** -14, subnormal, normal), -65504.0, 65504.0)
    return r.astype(np.float16)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="nvidia:0")
    args = p.parse_args()
    dev = args.device
    A = Arrays(dev)
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    failures = []

    def check(name, ok, detail=""):
        print("%-44s %s %s" % (name, "ok" if ok else "FAILED", detail))
        if not ok:
            failures.append(name)

    K = tegula.import_triton_module("kpkg.ops.kernels")
    n = 1000
    x = rng.uniform(0.25, 2.0, n).astype(np.float32)
    z = rng.standard_normal(n).astype(np.float32)
    for with_z in (False, True):
        y = A.put(np.full(n, np.nan, np.float32))
        K.fused_kernel[(-(-n // 64),)](A.put(x), y, A.put(z) if with_z else None, n,
                                        device=dev)
        x64 = x.astype(np.float64)
        want = (np.exp(x64) + np.exp(np.minimum(x64, 0)) + 2 * x64 + 1 / np.sqrt(x64)
                + 2 * np.exp(x64) + (z if with_z else 0))
        got = A.get(y, np.float32)
        err = np.max(np.abs(got - want) / np.abs(want))
        check("helpers of other modules (Z=%s)" % ("tensor" if with_z else "None"),
              err < 2 ** -9, "max rel err %.2e" % err)

    xs = (rng.standard_normal(4096) * 10.0 ** rng.integers(-9, 6, 4096)).astype(np.float32)
    y = A.put(np.zeros(xs.size, np.float16))
    K.cast_rtz_kernel[(xs.size // 64,)](A.put(xs), y, xs.size, BLOCK_N=64, device=dev)
    got = A.get(y, np.float16)
    want = rtz_fp16(xs)
    bad = np.nonzero(got.view(np.uint16) != want.view(np.uint16))[0]
    check("cast fp32->fp16 rtz", bad.size == 0,
          "%d differ, e.g. %s" % (bad.size, ", ".join(
              "%r -> %r (want %r)" % (float(xs[i]), float(got[i]), float(want[i]))
              for i in bad[:4])) if bad.size else "")
    y = A.put(np.zeros(xs.size, np.uint16))
    K.cast_rtz_bf16_kernel[(xs.size // 64,)](A.put(xs), y, xs.size, BLOCK_N=64, device=dev)
    check("cast fp32->bf16 rtz", np.array_equal(A.get(y, np.uint16),
                                                 (xs.view(np.uint32) >> 16).astype(np.uint16)))

    B = 1024
    a = rng.standard_normal(B).astype(np.float32)
    b = rng.standard_normal(B).astype(np.float32)
    i = rng.integers(-2 ** 30, 2 ** 30, B).astype(np.int32)
    j = rng.integers(-2 ** 30, 2 ** 30, B).astype(np.int32)
    u = rng.integers(0, 256, B).astype(np.uint8)
    if not A.cuda:
        try:
            asm_mul_kernel[(1,)](a, b, np.zeros(B, np.float32), BLOCK=B, device=dev)
            check("inline asm refused on the host", False, "it compiled")
        except tegula.TegulaError as e:
            check("inline asm refused on the host",
                  "the host CPU takes no inline assembly" in str(e), str(e)[:120])
    else:
        out = A.put(np.full(B, np.nan, np.float32))
        asm_mul_kernel[(1,)](A.put(a), A.put(b), out, BLOCK=B, device=dev)
        check("inline asm mul.rn.f32", np.array_equal(A.get(out, np.float32), a * b))
        s, d = A.put(np.zeros(B, np.int32)), A.put(np.zeros(B, np.int32))
        asm_two_results_kernel[(1,)](A.put(i), A.put(j), s, d, BLOCK=B, device=dev)
        check("inline asm two results", np.array_equal(A.get(s, np.int32), i + j)
              and np.array_equal(A.get(d, np.int32), i - j))
        out = A.put(np.zeros(B, np.int32))
        asm_pack2_kernel[(1,)](A.put(i), out, BLOCK=B, device=dev)
        check("inline asm pack=2 int32", np.array_equal(A.get(out, np.int32), i + 1))
        out = A.put(np.zeros(B, np.uint8))
        asm_pack4_u8_kernel[(1,)](A.put(u), out, BLOCK=B, device=dev)
        check("inline asm pack=4 uint8", np.array_equal(A.get(out, np.uint8), ~u))
    # 3. tl.dot on fp8 operands on the matrix unit's own shapes (wgmma k32
    # where both operands are K-contiguous, f16 otherwise), masked edges.
    # wgmma accumulates fp8 products at reduced precision (as Triton's fp8
    # dots do by default), so the values are small integers: every partial
    # sum is exact there, and the result must equal float64's exactly.
    import ml_dtypes
    F = tegula.import_triton_file(os.path.join(HERE, "..", "python", "tests", "kernels",
                                               "dot_fp8_kernels.py"))
    fmts = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
    for a_fmt, b_fmt, b_k_major, (bm, bn, bk, warps) in [
            ("e4m3", "e4m3", True, (128, 256, 128, 8)),
            ("e5m2", "e4m3", True, (64, 128, 64, 4)),
            ("e4m3", "e5m2", False, (128, 128, 64, 4)),
            ("e5m2", "e5m2", True, (128, 64, 32, 4))]:
        m, n, k = 300, 528, 1040  # rows 16-byte aligned: vector copies
        a = rng.integers(-2, 3, (m, k)).astype(np.float32).astype(fmts[a_fmt])
        bt = rng.integers(-2, 3, (n, k)).astype(np.float32).astype(fmts[b_fmt])
        b = bt.T if b_k_major else np.ascontiguousarray(bt.T)
        db = A.put(bt).T if b_k_major else A.put(b)
        c = A.put(np.full((m, n), np.nan, np.float32))
        sbk, sbn = (1, k) if b_k_major else (n, 1)
        F.fp8_matmul_kernel[(-(-m // bm), -(-n // bn))](
            A.put(a), db, c, m, n, k, k, 1, sbk, sbn, n, 1, BLOCK_M=bm, BLOCK_N=bn,
            BLOCK_K=bk, OUT_FP16=False, num_warps=warps, device=dev)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        err = np.abs(A.get(c, np.float32) - ref)
        check("fp8 dot %s x %s%s %dx%dx%d" % (a_fmt, b_fmt, " (B K-major)" if b_k_major
                                             else "", bm, bn, bk),
              bool((err == 0).all()), "max abs err %g" % float(err.max()))
    print("%d failed" % len(failures) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
