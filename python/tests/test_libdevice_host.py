"""Triton's libdevice functions (tl.extra.libdevice, tl.extra.cuda.libdevice,
imported at module level, also inside try/except) on the host CPU, against
NumPy on fresh random inputs with outputs poisoned first; their dtype rules
and errors as Triton's."""

import math
import os

import numpy as np
import pytest

import tegula

HERE = os.path.dirname(os.path.abspath(__file__))
K = tegula.import_triton_file(os.path.join(HERE, "kernels", "libdevice_kernels.py"))

BLOCK = 128
N = 1000  # not a multiple of the block: the tail is masked


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def _erf(x):
    return np.vectorize(math.erf)(x)


# name: (input range, reference over float64, rtol, atol). Tolerances are
# those of the polynomial approximations the targets use for fp32.
UNARY = {
    "tanh": ((-6, 6), np.tanh, 1e-5, 1e-6),
    "sinh": ((-5, 5), np.sinh, 1e-5, 1e-6),
    "cosh": ((-5, 5), np.cosh, 1e-5, 1e-6),
    "tan": ((-1.4, 1.4), np.tan, 1e-5, 1e-6),
    "asin": ((-1, 1), np.arcsin, 1e-5, 1e-6),
    "acos": ((-1, 1), np.arccos, 1e-5, 1e-6),
    "atan": ((-20, 20), np.arctan, 1e-5, 1e-6),
    "asinh": ((-20, 20), np.arcsinh, 1e-5, 1e-6),
    "acosh": ((1, 20), np.arccosh, 1e-5, 1e-6),
    "atanh": ((-0.95, 0.95), np.arctanh, 1e-5, 1e-6),
    "expm1": ((-3, 3), np.expm1, 1e-5, 1e-7),
    "log10": ((1e-3, 1e3), np.log10, 1e-5, 1e-6),
    "exp10": ((-5, 5), lambda x: np.power(10.0, x), 1e-5, 1e-6),
    "cbrt": ((-50, 50), np.cbrt, 1e-5, 1e-6),
    "rcbrt": ((0.1, 50), lambda x: 1.0 / np.cbrt(x), 1e-5, 1e-6),
    "erf": ((-3, 3), _erf, 1e-5, 1e-6),
    "erfc": ((-2, 2), lambda x: 1.0 - _erf(x), 1e-5, 1e-6),
    "normcdf": ((-4, 4), lambda x: 0.5 * (1.0 + _erf(x / math.sqrt(2.0))), 1e-5, 1e-6),
    "round": ((-10, 10), lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), 0, 0),
    "rint": ((-10, 10), np.rint, 0, 0),
    "trunc": ((-10, 10), np.trunc, 0, 0),
    "sinpi": ((-2, 2), lambda x: np.sin(np.pi * x), 1e-5, 1e-5),
    "cospi": ((-2, 2), lambda x: np.cos(np.pi * x), 1e-5, 1e-5),
    "rsqrt_rn": ((0.01, 100), lambda x: 1.0 / np.sqrt(x), 1e-6, 0),
    "sqrt_rn": ((0, 100), np.sqrt, 0, 0),
    "rcp_rn": ((0.5, 100), lambda x: 1.0 / x, 0, 0),
    "saturatef": ((-2, 2), lambda x: np.clip(x, 0, 1), 0, 0),
    "fast_expf": ((-10, 10), np.exp, 1e-5, 1e-6),
    "guarded_tanh": ((-6, 6), np.tanh, 1e-5, 1e-6),
    "cast": ((-100, 100), lambda x: x.astype(np.float16).astype(np.float64), 0, 0),
}


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary(host, rng, fn):
    (lo, hi), ref, rtol, atol = UNARY[fn]
    x = rng.uniform(lo, hi, N).astype(np.float32)
    if fn in ("round", "rint"):
        x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5]  # ties
    y = np.full_like(x, np.nan)
    K.unary_kernel[(tegula.cdiv(N, BLOCK),)](x, y, N, FN=fn, BLOCK=BLOCK, device=host)
    expected = ref(x.astype(np.float64))
    if rtol == 0 and atol == 0:
        expected = expected.astype(np.float32)
        np.testing.assert_array_equal(y, expected)
    else:
        np.testing.assert_allclose(y, expected, rtol=rtol, atol=atol)


BINARY = {
    "atan2": (((-5, 5), (-5, 5)), np.arctan2, 1e-5, 1e-6),
    "pow": (((0.1, 10), (-3, 3)), np.power, 2e-5, 1e-6),
    "hypot": (((-1e20, 1e20), (-1e20, 1e20)), np.hypot, 1e-6, 0),
    "rhypot": (((-50, 50), (-50, 50)), lambda x, z: 1.0 / np.hypot(x, z), 1e-6, 0),
    "fmod": (((-50, 50), (0.5, 7)), np.fmod, 0, 0),
    "fdim": (((-5, 5), (-5, 5)), lambda x, z: np.where(x > z, x - z, 0.0), 0, 0),
    "copysign": (((-5, 5), (-5, 5)), np.copysign, 0, 0),
    "div_rn": (((-5, 5), (0.5, 5)), np.divide, 0, 0),
    "norm3d": (((-50, 50), (-50, 50)), None, 1e-6, 0),
}


@pytest.mark.parametrize("fn", sorted(BINARY))
def test_binary(host, rng, fn):
    ((xl, xh), (zl, zh)), ref, rtol, atol = BINARY[fn]
    x = rng.uniform(xl, xh, N).astype(np.float32)
    z = rng.uniform(zl, zh, N).astype(np.float32)
    y = np.full_like(x, np.nan)
    K.binary_kernel[(tegula.cdiv(N, BLOCK),)](x, z, y, N, FN=fn, BLOCK=BLOCK, device=host)
    xd, zd = x.astype(np.float64), z.astype(np.float64)
    if fn == "norm3d":  # its third argument is x + z rounded to fp32
        expected = np.sqrt(xd ** 2 + zd ** 2 + (x + z).astype(np.float64) ** 2)
    else:
        expected = ref(xd, zd)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(y, expected.astype(np.float32))
    else:
        np.testing.assert_allclose(y, expected, rtol=rtol, atol=atol)


def test_pow_with_integer_exponents(host, rng):
    # A tensor of int32 exponents (powf of |x| with the sign of an odd
    # power, 1 for a zero power) and constant ones (multiplications).
    x = rng.uniform(-3, 3, N).astype(np.float32)
    k = rng.integers(-4, 5, N).astype(np.int32)
    x[:4] = [0.0, -2.0, np.nan, np.inf]
    k[:4] = [0, 3, 0, 0]
    y = np.full_like(x, np.nan)
    yc = np.full_like(x, np.nan)
    K.int_power_kernel[(tegula.cdiv(N, BLOCK),)](x, k, y, yc, N, BLOCK=BLOCK, device=host)
    xd = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(y, np.power(xd, k.astype(np.float64)), rtol=2e-5, atol=1e-6)
        ref = xd ** 3 + xd ** -2.0
        scale = np.abs(xd) ** 3 + np.abs(xd) ** -2.0  # the terms may cancel
    finite = np.isfinite(ref)
    err = np.abs(yc[finite] - ref[finite])
    assert (err <= 2e-5 * scale[finite]).all(), (err / scale[finite]).max()


def test_ldexp_is_exact(host, rng):
    x = rng.standard_normal(N).astype(np.float32)
    e = rng.integers(-140, 128, N).astype(np.int32)
    x[:3], e[:3] = [1.0, 1.5, 3.0], [-149, 127, 200]
    y = np.full_like(x, np.nan)
    K.ldexp_kernel[(tegula.cdiv(N, BLOCK),)](x, e, y, N, BLOCK=BLOCK, device=host)
    with np.errstate(over="ignore", under="ignore"):
        np.testing.assert_array_equal(y, np.ldexp(x, e))


def test_classification(host, rng):
    x = rng.uniform(-10, 10, N).astype(np.float32)
    x[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, -2.5]
    out = np.full(N * 5, -7, dtype=np.int32)
    K.classify_kernel[(tegula.cdiv(N, BLOCK),)](x, out, N, BLOCK=BLOCK, device=host)
    out = out.reshape(N, 5)
    np.testing.assert_array_equal(out[:, 0], np.isnan(x))
    np.testing.assert_array_equal(out[:, 1], np.isinf(x))
    np.testing.assert_array_equal(out[:, 2], np.signbit(x))
    np.testing.assert_array_equal(out[:, 3], np.isfinite(x))
    finite = np.isfinite(x)
    np.testing.assert_array_equal(out[finite, 4], np.floor(x[finite]).astype(np.int32))


def test_integer_bits(host, rng):
    x = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    z = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    x[:3] = [0, 1, -1]
    out = np.full(N * 6, -7, dtype=np.int32)
    K.bits_kernel[(tegula.cdiv(N, BLOCK),)](x, z, out, N, BLOCK=BLOCK, device=host)
    out = out.reshape(N, 6)
    u = x.view(np.uint32).astype(np.int64)
    clz = np.array([32 - int(v).bit_length() for v in u])
    popc = np.array([bin(int(v)).count("1") for v in u])
    ffs = np.array([0 if v == 0 else (int(v) & -int(v)).bit_length() for v in u])
    xl, zl = x.astype(np.int64), z.astype(np.int64)
    np.testing.assert_array_equal(out[:, 0], clz)
    np.testing.assert_array_equal(out[:, 1], popc)
    np.testing.assert_array_equal(out[:, 2], ffs)
    np.testing.assert_array_equal(out[:, 3], (xl * zl) >> 32)
    np.testing.assert_array_equal(out[:, 4], (xl + zl) >> 1)
    np.testing.assert_array_equal(out[:, 5], (xl + zl + 1) >> 1)


def test_fp64_is_libm(host, rng):
    # fp64 goes to the host's libm: as exact as NumPy's.
    x = rng.uniform(-3, 3, N)
    y = np.full_like(x, np.nan)
    K.f64_kernel[(tegula.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, device=host)
    ref = np.tanh(x) + np.arctan2(x, 0.5) + np.power(x * x, 0.75)
    np.testing.assert_allclose(y, ref, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("kernel, dtype, message", [
    ("wrong_dtype_kernel", np.float16,
     r"libdevice_kernels\.py:\d+:\d+: .*libdevice\.tanh: input arg type does not match; "
     r"expected one of \(fp32\), \(fp64\), got \(fp16\)"),
    ("unsupported_kernel", np.float32,
     r"libdevice_kernels\.py:\d+:\d+: .*libdevice\.lgamma is not supported yet"),
    ("misspelled_kernel", np.float32,
     r"libdevice_kernels\.py:\d+:\d+: .*'tl\.extra\.libdevice\.tanhh' is not a name of "
     r"triton\.language\.extra\.libdevice; did you mean 'tl\.extra\.libdevice\.tanh'\?"),
])
def test_errors_name_the_call(host, kernel, dtype, message):
    x = np.zeros(BLOCK, dtype=dtype)
    with pytest.raises(Exception, match=message):
        getattr(K, kernel)[(1,)](x, BLOCK=BLOCK, device=host)
