"""Kernels of a package using @jit helpers and constants of its other
modules (python/tests/kpkg: absolute, aliased, relative and
package-attribute imports, a noinline helper, libdevice imported in a
try/except, `from triton.language.math import`), the tensor method .cast
with keyword arguments, and None for a pointer parameter, on the host CPU
against NumPy. The disk cache compiles again when a helper's module
changes, and an error in a helper names the helper's file (the other
errors: tests/lit/Frontend/modules-errors.test)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tegula

K = tegula.import_triton_module("kpkg.ops.kernels")
STAR = tegula.import_triton_module("kpkg.ops.star_kernels")
STAR_TL = tegula.import_triton_module("kpkg.ops.star_language")
STAR_TEGULA = tegula.import_triton_module("kpkg.ops.star_tegula_language")
BAD = tegula.import_triton_module("kpkg.bad.shape")

LOG2E = 1.4426950408889634


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def _reference(x, z):
    x = x.astype(np.float64)
    y = (np.exp2(x * LOG2E) + np.exp2(np.minimum(x, 0.0) * LOG2E) + 2 * x
         + 1 / np.sqrt(x) + 2 * np.exp2(x * LOG2E))
    if z is not None:
        y = y + z
    return y


@pytest.mark.parametrize("with_z", [True, False])
def test_helpers_of_other_modules(host, rng, with_z):
    n = 300  # not a multiple of the block: the tail is masked
    x = rng.uniform(0.25, 2.0, n).astype(np.float32)
    z = rng.standard_normal(n).astype(np.float32) if with_z else None
    y = np.full(n, np.nan, np.float32)
    # BLOCK_N's default is the constant BLOCK of kpkg.ops.utils (64).
    K.fused_kernel[(-(-n // 64),)](x, y, z, n, device=host)
    # The result went through fp16 (rounded toward zero): within 2 ulps.
    np.testing.assert_allclose(y, _reference(x, z), rtol=2 ** -9)


def test_helpers_of_a_star_import(host, rng):
    x = rng.standard_normal(64).astype(np.float32)
    y = np.full(64, np.nan, np.float32)
    STAR.star_kernel[(1,)](x, y, device=host)
    np.testing.assert_allclose(y, np.exp(np.minimum(x.astype(np.float64), 0)), rtol=1e-6)


def test_names_of_a_star_import_of_triton_language(host, rng):
    n, block = 300, 128
    x = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    z = np.full(3, np.nan, np.float32)
    STAR_TL.star_language_kernel[(3,)](x, y, z, n, BLOCK=block, device=host)
    # range(0, 2) is tl.range: exp2(x) * 1 + exp2(x) * 2, plus cdiv(300, 128).
    np.testing.assert_allclose(y, 3 * np.exp2(x.astype(np.float64)) + 3, rtol=1e-6)
    # max is tl.max, the block's reduction (the masked tail left out).
    np.testing.assert_array_equal(z, [x[i * block:(i + 1) * block].max() for i in range(3)])


def test_names_of_a_star_import_of_tegula_language(host, rng):
    x = rng.standard_normal(200).astype(np.float32)
    y = np.full(200, np.nan, np.float32)
    STAR_TEGULA.star_tegula_kernel[(2,)](x, y, 200, BLOCK=128, device=host)
    np.testing.assert_array_equal(y, np.maximum(x, 0) * 2)


@pytest.mark.parametrize("use, message", [
    ("frobnicate(1)", "name 'frobnicate' is not defined"),  # not Triton's
    ("_experimental_descriptor_load(X)",  # a leading underscore: not imported
     "name '_experimental_descriptor_load' is not defined"),
    ("map_elementwise(X)", "tl.map_elementwise is not supported yet"),
])
def test_star_import_of_triton_language_binds_its_public_names(host, tmp_path, use, message):
    path = tmp_path / "star_bad.py"
    path.write_text(textwrap.dedent("""\
        import triton
        from triton.language import *


        @triton.jit
        def bad(X, BLOCK: constexpr):
            store(X + arange(0, BLOCK), %s)
        """ % use))
    mod = tegula.import_triton_file(str(path))
    with pytest.raises(tegula.CompilationError, match=r"star_bad.py:7:\d+: error: %s"
                       % message.replace("(", r"\(").replace(")", r"\)")):
        mod.bad[(1,)](np.zeros(16, np.float32), BLOCK=16, device=host)


def _rtz_fp16(x):
    """x (fp32) rounded toward zero to fp16, by truncating the significand."""
    x = x.astype(np.float64)
    m, e = np.frexp(x)
    normal = np.trunc(m * 2.0 ** 11) * 2.0 ** (e - 11)
    subnormal = np.trunc(x * 2.0 ** 24) * 2.0 ** -24
    r = np.where(np.abs(x) < 2.0 ** -14, subnormal, normal)
    r = np.clip(r, -65504.0, 65504.0)
    return np.where(np.isnan(x), np.nan, r).astype(np.float16)


def test_cast_toward_zero(host, rng):
    x = np.concatenate([
        rng.standard_normal(200) * 10.0 ** rng.integers(-9, 6, 200),
        [0.0, -0.0, 1e-8, -1e-8, 65504.0, 65519.0, 65520.0, -1e6, np.inf, -np.inf,
         np.nan, 1.0 + 2.0 ** -11, -(1.0 + 3 * 2.0 ** -12), 2.0 ** -24 * 1.5]]
    ).astype(np.float32)
    y = np.zeros(x.size, np.float16)
    K.cast_rtz_kernel[(-(-x.size // 64),)](x, y, x.size, BLOCK_N=64, device=host)
    want = _rtz_fp16(x)
    both_nan = np.isnan(y) & np.isnan(want)
    finite = ~np.isinf(x)
    assert np.array_equal(y[~both_nan & finite].view(np.uint16),
                          want[~both_nan & finite].view(np.uint16))
    # Infinities stay infinite (as Triton's rtz conversion keeps them).
    assert np.array_equal(y[~finite], x[~finite].astype(np.float16))


def test_cast_toward_zero_bf16(host, rng):
    # Toward zero, bf16 is the upper half of the fp32 bits (NaN aside).
    x = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-30, 30, 300),
                        [0.0, -0.0, np.inf, -np.inf, 3.4e38, -3.4e38, 1e-40]]).astype(np.float32)
    y = np.zeros(x.size, np.uint16)
    K.cast_rtz_bf16_kernel[(-(-x.size // 64),)](x, y, x.size, BLOCK_N=64, device=host)
    assert np.array_equal(y, (x.view(np.uint32) >> 16).astype(np.uint16))


def test_error_in_a_helper_names_its_file(host):
    x = np.zeros(64, np.float32)
    with pytest.raises(tegula.CompilationError) as info:
        BAD.shape_kernel[(1,)](x, device=host)
    message = str(info.value)
    helpers = os.path.join("kpkg", "bad", "helpers.py")
    assert helpers + ":7:" in message, message
    assert "incompatible shapes" in message, message
    assert os.path.join("kpkg", "bad", "shape.py") + ":13:" in message, message


_CHILD = r"""
import os, sys
import numpy as np
import tegula
sys.path.insert(0, os.environ["PACKAGE_ROOT"])
k = tegula.import_triton_module("tmppkg.kern")
x = np.arange(64, dtype=np.float32)
y = np.zeros(64, np.float32)
k.scale_kernel[(1,)](x, y, device="host:0")
print(int(y[1]), k.scale_kernel.disk_cache_hits)
"""


def test_disk_cache_follows_the_helpers_module(tmp_path):
    """A later process compiles again when the helper's module changed, and
    loads from the cache when nothing did."""
    pkg = tmp_path / "root" / "tmppkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(textwrap.dedent("""
        import triton
        import triton.language as tl
        from .helpers import scale

        @triton.jit
        def scale_kernel(X, Y):
            offs = tl.arange(0, 64)
            tl.store(Y + offs, scale(tl.load(X + offs)))
    """))

    def helper(factor):
        (pkg / "helpers.py").write_text(textwrap.dedent("""
            import triton
            FACTOR = %d

            @triton.jit
            def scale(x):
                return x * FACTOR
        """ % factor))

    def run():
        env = dict(os.environ, TEGULA_CACHE_DIR=str(tmp_path / "cache"),
                   PACKAGE_ROOT=str(tmp_path / "root"))
        env.pop("TEGULA_HOST_SIMT", None)
        done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        value, hits = map(int, done.stdout.split())
        return value, hits

    helper(2)
    assert run() == (2, 0)
    assert run() == (2, 1)
    helper(3)  # the kernel's own file is unchanged
    assert run() == (3, 0)
    assert run() == (3, 1)
