"""Block-pointer loads through the distributed (GPU) lowering, run by the
host plugin's SIMT emulation (simt=4; docs/gpu.md), and through the host
lowering: a tile loaded through a block pointer and read only by layout
conversions is read in Triton's coalesced layout along the block's order
(vectors along its unit-stride dimension), whichever dimension that is, with
or without bounds checks, aligned or not. Each kernel is checked against
NumPy on fresh random inputs, outputs poisoned first (NaN), and must leave
the elements past the output untouched."""

import os

import numpy as np
import pytest

from kernels.block_pointer_kernels import block_copy_kernel, block_dot_kernel, block_scale_kernel

SEED = int(os.environ.get("TEGULA_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))
print("seed", SEED)
LOWERINGS = [pytest.param({"simt": 4}, id="simt"), pytest.param({}, id="host")]


@pytest.fixture
def rng():
    return np.random.default_rng(SEED)


def _matrix(rng, m, n, dtype, column_major, offset):
    """An m x n matrix of |dtype| in a buffer |offset| elements in, and its
    strides in elements."""
    count = m * n
    buf = np.full(count + offset + 8, np.nan, dtype)
    data = rng.standard_normal(count).astype(dtype)
    buf[offset:offset + count] = data
    view = buf[offset:offset + count]
    x = view.reshape(n, m).T if column_major else view.reshape(m, n)
    return x, (1, m) if column_major else (n, 1)


@pytest.mark.parametrize("lowering", LOWERINGS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
@pytest.mark.parametrize("column_major", [False, True], ids=["rows", "columns"])
@pytest.mark.parametrize("m,n,check,offset", [(64, 64, False, 0), (50, 70, True, 0),
                                              (64, 32, False, 1)],
                         ids=["whole", "ragged", "unaligned"])
def test_block_load_scale(host, rng, lowering, dtype, column_major, m, n, check, offset):
    x, strides = _matrix(rng, m, n, dtype, column_major, offset)
    y = np.full(m * n + 16, np.nan, dtype)
    bm, bn = 32, 32
    grid = (-(-m // bm), -(-n // bn))
    block_scale_kernel[grid](x, y, m, n, *strides, BM=bm, BN=bn,
                             COLUMN_MAJOR=column_major, CHECK=check, device=host,
                             num_warps=2, **lowering)
    want = (x.astype(np.float64) * 2 + 1).astype(dtype)
    what = "%s %dx%d %s, seed %d" % (np.dtype(dtype).name, m, n,
                                     "column-major" if column_major else "row-major", SEED)
    np.testing.assert_array_equal(y[:m * n].reshape(m, n), want, err_msg=what)
    assert np.isnan(y[m * n:]).all(), "wrote past y: " + what


@pytest.mark.parametrize("lowering", LOWERINGS)
@pytest.mark.parametrize("column_major", [False, True], ids=["b-rows", "b-columns"])
def test_block_load_dot(host, rng, lowering, column_major):
    m, n, k = 16, 32, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b, strides = _matrix(rng, k, n, np.float16, column_major, 0)
    c = np.full((m, n), np.nan, np.float32)
    block_dot_kernel[(1,)](a, b, c, *strides, M=m, N=n, K=k, B_COLUMN_MAJOR=column_major,
                           device=host, num_warps=2, **lowering)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3,
                               atol=1e-3, err_msg="seed %d" % SEED)


@pytest.mark.parametrize("lowering", LOWERINGS)
def test_block_load_to_block_store(host, rng, lowering):
    m, n = 70, 32
    x = rng.standard_normal((m, n)).astype(np.float16)
    y = np.full(m * n + 16, np.nan, np.float16)
    block_copy_kernel[(-(-m // 32),)](x, y, m, n, BM=32, BN=n, device=host, num_warps=2,
                                      **lowering)
    np.testing.assert_array_equal(y[:m * n].reshape(m, n), x, err_msg="seed %d" % SEED)
    assert np.isnan(y[m * n:]).all(), "wrote past y, seed %d" % SEED
