"""Hints on tensors (tl.multiple_of / tl.max_contiguous) on the host CPU:
kernels whose hints sit on arithmetic, tl.where, pointers and 2-D offsets
compile, lower and compute what NumPy computes (the hints may only make
accesses wider, never change a result). Includes Triton's persistent matmul
(tutorial 09), which hints tl.where results."""

import os

import numpy as np
import pytest

import tegula

from kernels.hint_kernels import (copy_2d_kernel, offset_copy_kernel, persistent_matmul_kernel,
                                  pointer_hint_kernel, where_copy_kernel)


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def test_hint_on_arange_plus_offset(host, rng):
    block, m, programs = 64, 128, 3  # m keeps the hinted divisibility true
    x = rng.standard_normal(m + programs * block).astype(np.float32)
    y = np.full_like(x, np.nan)
    offset_copy_kernel[(programs,)](x, y, m, BLOCK=block, device=host)
    np.testing.assert_array_equal(y[m:], x[m:].astype(np.float64) * 2.0)
    assert np.isnan(y[:m]).all()


def test_hint_on_where(host, rng):
    # As in Triton, the hint must be true: here every row is in range.
    block, m = 32, 96
    x = rng.standard_normal(128).astype(np.float32)
    y = np.full_like(x, np.nan)
    where_copy_kernel[(3,)](x, y, m, BLOCK=block, device=host)
    np.testing.assert_array_equal(y[:m], x[:m] + np.float32(1.0))
    assert np.isnan(y[m:]).all()


def test_hint_in_2d(host, rng):
    rows, cols, stride = 8, 32, 48
    x = rng.standard_normal((4 * rows, stride)).astype(np.float32)
    y = np.full_like(x, np.nan)
    copy_2d_kernel[(4,)](x, y, stride, R=rows, C=cols, device=host)
    np.testing.assert_array_equal(y[:, :cols], x[:, :cols] - np.float32(3.0))
    assert np.isnan(y[:, cols:]).all()


def test_hint_on_pointers(host, rng):
    block = 16
    x = rng.standard_normal(4 * block).astype(np.float32)
    y = np.full_like(x, np.nan)
    pointer_hint_kernel[(4,)](x, y, BLOCK=block, device=host)
    np.testing.assert_array_equal(y, x.astype(np.float64) * 0.5)


@pytest.mark.parametrize("m", [96, 77])  # a ragged M: tl.where clamps the rows
def test_persistent_matmul(host, rng, m):
    n, k = 64, 40  # a ragged K: the last K tile is half masked
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    bm, bn, bk, sms = 32, 32, 16, 3
    persistent_matmul_kernel[(sms,)](
        a, b, c, m, n, k, a.strides[0] // 4, 1, b.strides[0] // 4, 1, c.strides[0] // 4, 1,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=2, NUM_SMS=sms, device=host)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, reference, rtol=1e-4, atol=1e-4)


def test_int64_loop_bounds_with_a_dot(host, rng):
    # A bf16-style dot in a loop over int64 bounds (NVIDIA's pipelined wgmma
    # operands once mixed i64 and i32 indices; tests/lit/Nvidia/wgmma.test).
    from kernels.dot_kernels import int64_loop_dot_kernel
    bt, t, programs = 16, 64, 3
    a = rng.standard_normal((t // bt + 1) * bt * bt).astype(np.float32)
    b = rng.standard_normal(a.size).astype(np.float32)
    c = np.full(programs * bt * bt, np.nan, dtype=np.float32)
    int64_loop_dot_kernel[(programs,)](a, b, c, t, BT=bt, device=host)
    for p in range(programs):
        expected = np.zeros((bt, bt))
        for i in range(p * bt, t, bt):
            blk = slice(i * bt, i * bt + bt * bt)
            expected += a[blk].reshape(bt, bt).astype(np.float64) @ b[blk].reshape(bt, bt)
        np.testing.assert_allclose(c[p * bt * bt:(p + 1) * bt * bt].reshape(bt, bt), expected,
                                   rtol=1e-4, atol=1e-4)
