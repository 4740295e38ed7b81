"""tl.dot on fp8 operands (e4m3, e5m2 and mixed), against a
float64 product of the decoded values on fresh random inputs, outputs
poisoned first, on the host (python.host). bench/gpu_bench.py checks the
same on NVIDIA (its fp8 matmul case)."""

import os

import numpy as np
import pytest

import tegula

ml_dtypes = pytest.importorskip("ml_dtypes")

HERE = os.path.dirname(os.path.abspath(__file__))
K = tegula.import_triton_file(os.path.join(HERE, "kernels", "dot_fp8_kernels.py"))

DTYPES = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


@pytest.mark.parametrize("a_fmt, b_fmt, b_k_contiguous, out_fp16", [
    ("e4m3", "e4m3", False, False), ("e5m2", "e5m2", True, True),
    ("e4m3", "e5m2", True, False), ("e5m2", "e4m3", False, True)])
def test_fp8_matmul(host, rng, a_fmt, b_fmt, b_k_contiguous, out_fp16):
    # Shapes that are not multiples of the blocks: the masks pad with 0.
    m, n, k = 70, 50, 100
    a = rng.standard_normal((m, k)).astype(DTYPES[a_fmt])
    b = rng.standard_normal((k, n)).astype(DTYPES[b_fmt])
    if b_k_contiguous:
        b = np.ascontiguousarray(b.T).T
    c = np.full((m, n), np.nan, dtype=np.float16 if out_fp16 else np.float32)
    grid = (tegula.cdiv(m, 32), tegula.cdiv(n, 32))
    K.fp8_matmul_kernel[grid](a, b, c, m, n, k, a.strides[0] // a.itemsize, 1,
                              b.strides[0] // b.itemsize, b.strides[1] // b.itemsize,
                              n, 1, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32,
                              OUT_FP16=out_fp16, device=host)
    av, bv = a.astype(np.float64), b.astype(np.float64)
    # The products of fp8 values are exact in fp32; the sum's error is
    # relative to the sum of magnitudes (and fp16's rounding of the result).
    bound = 1e-5 * (np.abs(av) @ np.abs(bv)) + 1e-30
    ref = av @ bv
    if out_fp16:
        bound = bound + np.abs(ref) * 2.0 ** -11
    err = np.abs(c.astype(np.float64) - ref)
    assert (err <= bound).all(), (err / bound).max()


def test_fp8_result_is_refused(host):
    n = 16
    a = np.zeros((n, n), dtype=ml_dtypes.float8_e4m3fn)
    c = np.zeros((n, n), dtype=ml_dtypes.float8_e4m3fn)
    with pytest.raises(tegula.TegulaError) as info:
        K.fp8_result_kernel[(1,)](a, a, c, N=n, device=host)
    assert "fp8" in str(info.value)
