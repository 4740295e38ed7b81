"""tl.dot_scaled on the host CPU: e2m1 (packed two a byte), e4m3, e5m2,
bf16 and fp16 operands, with and without e8m0 scales, against a NumPy
decoding of each format (the OCP microscaling spec) on fresh random inputs,
outputs poisoned first."""

import os

import numpy as np
import pytest

import tegula

ml_dtypes = pytest.importorskip("ml_dtypes")

HERE = os.path.dirname(os.path.abspath(__file__))
K = tegula.import_triton_file(os.path.join(HERE, "kernels", "dot_scaled_kernels.py"))

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def operand(rng, fmt, rows, cols, packed_axis):
    """(the bytes or values the kernel loads, their float64 values)."""
    if fmt == "e2m1":
        nib = rng.integers(0, 16, (rows, cols)).astype(np.uint8)
        if packed_axis == 1:
            data = nib[:, 0::2] | (nib[:, 1::2] << 4)
        else:
            data = nib[0::2, :] | (nib[1::2, :] << 4)
        return np.ascontiguousarray(data), E2M1[nib]
    if fmt in ("e4m3", "e5m2"):
        dt = ml_dtypes.float8_e4m3fn if fmt == "e4m3" else ml_dtypes.float8_e5m2
        v = rng.standard_normal((rows, cols)).astype(dt)
        return v.view(np.uint8), v.astype(np.float64)
    dt = ml_dtypes.bfloat16 if fmt == "bf16" else np.float16
    v = rng.standard_normal((rows, cols)).astype(dt)
    return v, v.astype(np.float64)


@pytest.mark.parametrize("a_fmt, b_fmt", [("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e5m2", "e4m3"),
                                          ("e2m1", "e5m2"), ("e4m3", "e2m1")])
@pytest.mark.parametrize("scaled", [True, False])
def test_dot_scaled(host, rng, a_fmt, b_fmt, scaled):
    m, n, k = 16, 32, 64
    a, av = operand(rng, a_fmt, m, k, packed_axis=1)
    b, bv = operand(rng, b_fmt, k, n, packed_axis=0)
    a_scale = rng.integers(118, 136, (m, k // 32)).astype(np.uint8)
    b_scale = rng.integers(118, 136, (n, k // 32)).astype(np.uint8)
    if scaled:
        av = av * np.repeat(np.exp2(a_scale.astype(np.float64) - 127), 32, axis=1)
        bv = bv * np.repeat(np.exp2(b_scale.astype(np.float64) - 127), 32, axis=1).T
    c = np.full((m, n), np.nan, dtype=np.float32)
    K.dot_scaled_kernel[(1,)](a, a_scale, b, b_scale, c, M=m, N=n, K=k, A_FMT=a_fmt,
                              B_FMT=b_fmt, SCALED=scaled, device=host)
    # fp32 accumulation of exact bf16 products: the error is relative to
    # the sum of the products' magnitudes.
    bound = 1e-5 * (np.abs(av) @ np.abs(bv)) + 1e-30
    err = np.abs(c - av @ bv)
    assert (err <= bound).all(), (err / bound).max()


def test_bf16_and_fp16_operands(host, rng):
    m, n, k = 16, 16, 64
    a, av = operand(rng, "bf16", m, k, 1)
    b, bv = operand(rng, "fp16", k, n, 0)
    b = b.astype(np.float16)
    scale = np.zeros((16, 2), dtype=np.uint8)
    c = np.full((m, n), np.nan, dtype=np.float32)
    K.dot_scaled_kernel[(1,)](a, scale, b, scale, c, M=m, N=n, K=k, A_FMT="bf16", B_FMT="fp16",
                              SCALED=False, device=host)
    # fp16 operands are rounded to bf16 first, as Triton's emulation does.
    bv = b.astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_allclose(c, av @ bv, rtol=1e-5, atol=1e-5)


def test_scale_255_is_nan_and_0_is_tiny(host, rng):
    m, n, k = 16, 16, 64
    a, av = operand(rng, "e4m3", m, k, 1)
    b, bv = operand(rng, "e4m3", k, n, 0)
    a_scale = np.full((m, 2), 127, dtype=np.uint8)
    b_scale = np.full((n, 2), 127, dtype=np.uint8)
    a_scale[3, 1] = 255  # row 3 of the result is NaN
    c = np.full((m, n), -7.0, dtype=np.float32)
    K.dot_scaled_kernel[(1,)](a, a_scale, b, b_scale, c, M=m, N=n, K=k, A_FMT="e4m3",
                              B_FMT="e4m3", SCALED=True, device=host)
    assert np.isnan(c[3]).all()
    rows = [r for r in range(m) if r != 3]
    np.testing.assert_allclose(c[rows], (av @ bv)[rows], rtol=1e-5, atol=1e-5)


def test_bad_format_is_a_located_error(host):
    z = np.zeros((16, 64), dtype=np.uint8)
    with pytest.raises(tegula.CompilationError,
                       match=r"dot_scaled_kernels\.py:\d+:\d+: .*tl\.dot_scaled formats are e2m1, "
                             r"e4m3, e5m2, bf16 and fp16"):
        K.dot_scaled_kernel[(1,)](z, z, z, z, np.zeros((16, 16), np.float32), M=16, N=16, K=64,
                                  A_FMT="e3m2", B_FMT="e4m3", SCALED=False, device=host)
