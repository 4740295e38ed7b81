"""Layout conversions through shared memory in chunks (docs/gpu.md): when a
conversion's staging exceeds the shared memory a program may use, the
distributed lowering converts the tile a slice at a time. The host
plugin's SIMT emulation (simt) runs that lowering on the CPU, and its
simt_shared_bytes option (TEGULA_HOST_SIMT_SHARED_BYTES) sets the limit:
each kernel here is compiled once without a limit (its shared memory must
exceed the one set, so the conversion is really chunked) and once with it
(the shared memory must then fit), and both must match NumPy on fresh
random inputs, outputs poisoned first (NaN)."""

import os

import numpy as np
import pytest

import tegula
from kernels.convert_kernels import dot_epilogue_kernel, row_max_kernel, trans_kernel

SEED = int(os.environ.get("TEGULA_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))
print("seed", SEED)


@pytest.fixture
def rng():
    return np.random.default_rng(SEED)


def _poisoned(shape, dtype):
    return np.full(shape, np.nan, dtype)


def _both(launch, limit, check, warps):
    """Runs |launch| unlimited, then with |limit|; checks each result."""
    whole = launch(simt=4, num_warps=warps)
    check("one piece")
    assert whole.shared_memory > limit, \
        "the unchunked kernel needs %d bytes: no chunking to test under %d (seed %d)" % (
            whole.shared_memory, limit, SEED)
    chunked = launch(simt=4, num_warps=warps, simt_shared_bytes=limit)
    check("in chunks")
    assert 0 < chunked.shared_memory <= limit, (chunked.shared_memory, limit, SEED)
    return whole, chunked


# (With more warps, both layouts of these transposes spread threads over the
# whole of each dimension: no slice holds whole thread parts, and the
# compile fails as test_an_unchunkable_staging_is_a_clear_error expects.)
@pytest.mark.parametrize("m,n,warps,limit", [(64, 32, 1, 2048), (32, 64, 1, 2304),
                                             (64, 64, 1, 4096), (64, 32, 2, 4608)])
def test_trans(host, rng, m, n, warps, limit):
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = _poisoned((n, m), np.float32)

    def launch(**options):
        y.fill(np.nan)
        return trans_kernel[(1,)](x, y, M=m, N=n, device=host, **options)

    def check(how):
        np.testing.assert_array_equal(y, x.T, err_msg="%s, seed %d" % (how, SEED))

    _both(launch, limit, check, warps)


def test_dot_epilogue(host, rng):
    m, n, k = 32, 32, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = _poisoned((m, n), np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)

    def launch(**options):
        c.fill(np.nan)
        return dot_epilogue_kernel[(1,)](a, b, c, M=m, N=n, K=k, device=host, **options)

    def check(how):
        np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-3, atol=2e-3,
                                   err_msg="%s, seed %d" % (how, SEED))

    _both(launch, 1024, check, 4)


def test_reduction_converted_back(host, rng):
    m, n = 64, 32
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = _poisoned((m, n), np.float32)
    rmax = _poisoned(m, np.float32)
    csum = _poisoned(n, np.float32)

    def launch(**options):
        for out in (y, rmax, csum):
            out.fill(np.nan)
        return row_max_kernel[(1,)](x, y, rmax, csum, M=m, N=n, device=host, **options)

    def check(how):
        msg = "%s, seed %d" % (how, SEED)
        np.testing.assert_array_equal(rmax, x.max(axis=1), err_msg=msg)
        np.testing.assert_array_equal(y, x - x.max(axis=1)[:, None], err_msg=msg)
        np.testing.assert_allclose(csum, x.astype(np.float64).sum(axis=0), rtol=1e-5,
                                   atol=1e-5, err_msg=msg)

    _both(launch, 128, check, 1)


@pytest.mark.parametrize("warps,limit", [(1, 16), (4, 4096)])
def test_an_unchunkable_staging_is_a_clear_error(host, rng, warps, limit):
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = _poisoned((32, 64), np.float32)
    with pytest.raises(tegula.TegulaError) as info:
        trans_kernel[(1,)](x, y, M=64, N=32, device=host, simt=4, num_warps=warps,
                           simt_shared_bytes=limit)
    assert "bytes of shared memory per program; simt_shared_bytes allows at most %d" % limit \
        in str(info.value)
