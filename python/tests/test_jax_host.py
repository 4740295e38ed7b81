"""Tegula kernels in JAX programs on JAX's CPU backend (tegula.jax,
docs/jax.md): kernel_call through the XLA FFI custom call, eagerly and
under jax.jit, against NumPy float64 references on fresh random inputs.
XLA allocates the outputs (they cannot be poisoned from here); the aliasing
test gives the kernel a NaN-poisoned buffer to overwrite instead.

Runs in the interop venv (scripts/interop-venv.sh), test python.interop."""

import os

import numpy as np
import pytest

import jax  # noqa: E402  (the interop venv has it: a missing jax fails)
import jax.numpy as jnp  # noqa: E402

import tegula  # noqa: E402
import tegula.jax as tj  # noqa: E402
import tegula.language as tl  # noqa: E402
from kernels.interop_kernels import layer_norm_fwd_jax, scaled_add  # noqa: E402

jax.config.update("jax_platforms", "cpu")


@tegula.jit
def accumulate(Acc, X, Out, n, BLOCK: tl.constexpr):
    """Out = Acc + 2 X, where Out may be Acc itself."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Out + offs, tl.load(Acc + offs, mask=mask) + 2 * tl.load(X + offs, mask=mask),
             mask=mask)


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


def call_scaled_add(x, y, alpha):
    n = x.size
    return tj.kernel_call(scaled_add, x, y, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=lambda meta: (tegula.cdiv(n, meta["BLOCK"]),),
                          n=n, alpha=alpha, BLOCK=256)


def call_layer_norm(x, w, b, eps=1e-5):
    rows, n = x.shape
    y, mean, rstd = tj.kernel_call(
        layer_norm_fwd_jax, x, w, b, out_shape=[
            jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((rows,), jnp.float32),
            jax.ShapeDtypeStruct((rows,), jnp.float32)],
        grid=(rows,), stride=n, N=n, eps=eps, BLOCK=tegula.next_power_of_2(n))
    return y, mean, rstd


def ref_layer_norm(x, w, b, eps=1e-5):
    x = x.astype(np.float64)
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b, mean[:, 0], 1 / np.sqrt(var[:, 0] + eps)


def test_eager(rng):
    x = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    out = call_scaled_add(jnp.asarray(x), jnp.asarray(y), 0.75)
    assert isinstance(out, jax.Array) and out.shape == (3000,) and out.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(out), x + 0.75 * y.astype(np.float64), rtol=1e-6,
                               atol=1e-6)


def test_jit_program_with_two_kernels(rng):
    """jax.jit of two kernel_calls with jax.numpy between them."""
    @jax.jit
    def program(x, y, w, b):
        h = call_scaled_add(x, jnp.tanh(y), 0.5)
        out, mean, rstd = call_layer_norm(h * 2.0, w, b)
        return jnp.maximum(out, 0.0), mean, rstd

    for rows, n in ((16, 200), (16, 200), (5, 64)):  # the second call reuses the executable
        x = rng.standard_normal((rows, n)).astype(np.float32)
        y = rng.standard_normal((rows, n)).astype(np.float32)
        w = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        out, mean, rstd = program(x, y, w, b)
        h = (x.astype(np.float64) + 0.5 * np.tanh(y.astype(np.float64))) * 2.0
        ref, ref_mean, ref_rstd = ref_layer_norm(h, w, b)
        np.testing.assert_allclose(np.asarray(out), np.maximum(ref, 0), atol=2e-5, rtol=2e-5)
        np.testing.assert_allclose(np.asarray(mean), ref_mean, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(rstd), ref_rstd, atol=2e-5, rtol=2e-5)


def test_input_output_alias(rng):
    acc = np.full(1000, np.nan, np.float32)
    acc[::2] = rng.standard_normal(500)
    x = rng.standard_normal(1000).astype(np.float32)

    @jax.jit
    def step(acc, x):
        return tj.kernel_call(accumulate, acc, x, out_shape=jax.ShapeDtypeStruct((1000,),
                                                                                   jnp.float32),
                              grid=(4,), input_output_aliases={0: 0}, n=1000, BLOCK=256)

    out = np.asarray(step(jnp.asarray(acc), jnp.asarray(x)))
    np.testing.assert_allclose(out[::2], acc[::2] + 2 * x[::2].astype(np.float64), rtol=1e-6,
                               atol=1e-6)
    assert np.isnan(out[1::2]).all()  # NaN + 2x: the kernel read the aliased input


def test_jax_arrays_in_a_plain_launch(rng):
    """DLPack, JAX to Tegula: a JAX CPU array passed straight to
    kernel[grid], the result handed back to JAX with jnp.asarray."""
    x = jnp.asarray(rng.standard_normal(1000).astype(np.float32))
    y = jnp.asarray(rng.standard_normal(1000).astype(np.float32))
    out = np.full(1000, np.nan, np.float32)
    scaled_add[(4,)](x, y, out, 1000, -1.5, BLOCK=256)
    np.testing.assert_allclose(out, np.asarray(x) - 1.5 * np.asarray(y, np.float64),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(out) * 1.0), out)


def test_wrong_out_shape_is_refused():
    x = jnp.zeros(8, jnp.float32)
    with pytest.raises(TypeError, match="out_shape must be a jax.ShapeDtypeStruct"):
        tj.kernel_call(scaled_add, x, x, out_shape=(8,), grid=(1,), n=8, alpha=1.0, BLOCK=8)
    with pytest.raises(TypeError, match="out_shape must be a jax.ShapeDtypeStruct"):
        tj.kernel_call(scaled_add, x, x, out_shape=jnp.float32, grid=(1,), n=8, alpha=1.0,
                       BLOCK=8)
    with pytest.raises(ValueError, match=r"array argument 0 \(float32\[8\]\) cannot alias "
                       r"output 0 \(float32\[16\]\)"):
        tj.kernel_call(accumulate, x, x, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
                       grid=(1,), input_output_aliases={0: 0}, n=8, BLOCK=8)
    with pytest.raises(ValueError, match="no output's index"):
        tj.kernel_call(accumulate, x, x, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                       grid=(1,), input_output_aliases={0: 1}, n=8, BLOCK=8)


def test_call_that_does_not_bind_fails_while_tracing():
    x = jnp.zeros(8, jnp.float32)
    with pytest.raises(TypeError, match="scaled_add"):
        jax.jit(lambda x: tj.kernel_call(
            scaled_add, x, x, out_shape=[jax.ShapeDtypeStruct((8,), jnp.float32)] * 2,
            grid=(1,), n=8, alpha=1.0, BLOCK=8))(x)


def test_tegula_buffer_to_jax_by_dlpack(rng):
    """DLPack, Tegula to JAX: a tegula.Buffer a kernel wrote, read by
    jax.dlpack.from_dlpack (and NumPy's) in place, as its dtype and shape."""
    x = rng.standard_normal((25, 40)).astype(np.float32)
    y = rng.standard_normal((25, 40)).astype(np.float32)
    out = tegula.empty((25, 40), "float32", device=tegula.device("host:0"))
    out.copy_from(np.full((25, 40), np.nan, np.float32))
    scaled_add[(4,)](x, y, out, 1000, 2.0, BLOCK=256)
    got = jax.dlpack.from_dlpack(out)
    assert got.shape == (25, 40) and got.dtype == jnp.float32
    expected = x + 2.0 * y.astype(np.float64)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.from_dlpack(out), expected, rtol=1e-6, atol=1e-6)
    with pytest.raises(BufferError, match="cannot copy"):
        out.__dlpack__(copy=True)
    with pytest.raises(BufferError, match=r"not \(2, 0\)"):
        out.__dlpack__(dl_device=(2, 0))


# -- The launch in C (docs/jax.md) ---------------------------------------------------


@tegula.jit
def affine(X, Out, n, scale, shift, big, flag, BLOCK: tl.constexpr):
    """Out = +-(X * scale + shift + (big - 2**32)): an fp32, an i64 above
    2**32 and an i1 among the scalars."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(X + offs, mask=mask) * scale + shift + (big - 4294967296).to(tl.float32)
    tl.store(Out + offs, tl.where(flag, y, -y), mask=mask)


@tegula.jit(debug=True)
def scaled_add_debug(X, Y, Out, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Out + offs, tl.load(X + offs, mask=mask) + alpha * tl.load(Y + offs, mask=mask),
             mask=mask)


@tegula.jit
def negate(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Out + offs, -tl.load(X + offs, mask=offs < n), mask=offs < n)


def launched(before):
    """How many launches ran in C and in Python since |before|."""
    now = tj.launch_counts()
    return now["c"] - before["c"], now["python"] - before["python"]


def test_jit_launches_run_in_c(rng):
    """Calls of a jitted program run in C from the first on: several calls
    with new inputs, scalars of several types given when traced, two
    traces of one kernel with different scalars, and an aliased output."""
    def call_affine(x, scale, shift, big, flag):
        n = x.size
        return tj.kernel_call(affine, x, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                              grid=(tegula.cdiv(n, 128),), n=n, scale=scale, shift=shift,
                              big=big, flag=flag, BLOCK=128)

    @jax.jit
    def program(x, y, acc):
        a = call_affine(x, 1.5, -0.25, 2 ** 32 + 3, True)
        b = call_affine(y, -2.0, 0.5, 2 ** 32 - 7, False)
        s = call_scaled_add(a, b, 0.125)
        acc = tj.kernel_call(accumulate, acc, s, out_shape=jax.ShapeDtypeStruct(
            acc.shape, acc.dtype), grid=(tegula.cdiv(acc.size, 256),),
            input_output_aliases={0: 0}, n=acc.size, BLOCK=256)
        return s, acc

    before = tj.launch_counts()
    for n in (1000, 1000, 1000, 333):
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        acc = rng.standard_normal(n).astype(np.float32)
        s, out = program(jnp.asarray(x), jnp.asarray(y), jnp.asarray(acc))
        x, y = x.astype(np.float64), y.astype(np.float64)
        a = x * 1.5 - 0.25 + 3
        b = -(y * -2.0 + 0.5 - 7)
        np.testing.assert_allclose(np.asarray(s), a + 0.125 * b, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(out), acc + 2 * (a + 0.125 * b), rtol=1e-5,
                                   atol=1e-5)
    assert launched(before) == (16, 0)


def test_python_launch_takes_what_c_cannot(rng, monkeypatch):
    """The Python launch takes a debug kernel (its arrays' bounds are
    hidden arguments), every launch while a Triton launch hook is set, and
    every launch of a call traced with TEGULA_JAX_PYTHON_LAUNCH=1; the
    results are the same."""
    x = rng.standard_normal(700).astype(np.float32)
    y = rng.standard_normal(700).astype(np.float32)
    want = x + 0.5 * y.astype(np.float64)

    @jax.jit
    def debug_program(x, y):
        return tj.kernel_call(scaled_add_debug, x, y, out_shape=jax.ShapeDtypeStruct(
            x.shape, x.dtype), grid=(3,), n=700, alpha=0.5, BLOCK=256)

    before = tj.launch_counts()
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(debug_program(x, y)), want, rtol=1e-6, atol=1e-6)
    assert launched(before) == (0, 2)

    program = jax.jit(lambda x, y: call_scaled_add(x, y, 0.5))
    seen = []
    monkeypatch.setattr(tegula.CompiledKernel, "launch_enter_hook", seen.append)
    before = tj.launch_counts()
    np.testing.assert_allclose(np.asarray(program(x, y)), want, rtol=1e-6, atol=1e-6)
    assert launched(before) == (0, 1) and [m.name for m in seen] == ["scaled_add"]
    monkeypatch.setattr(tegula.CompiledKernel, "launch_enter_hook", None)
    before = tj.launch_counts()
    np.testing.assert_allclose(np.asarray(program(x, y)), want, rtol=1e-6, atol=1e-6)
    assert launched(before) == (1, 0) and len(seen) == 1

    monkeypatch.setenv("TEGULA_JAX_PYTHON_LAUNCH", "1")
    forced = jax.jit(lambda x, y: call_scaled_add(x, y, -1.0))
    before = tj.launch_counts()
    np.testing.assert_allclose(np.asarray(forced(x, y)), x - y.astype(np.float64), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(program(x, y)), want, rtol=1e-6, atol=1e-6)
    assert launched(before) == (0, 2)
    monkeypatch.delenv("TEGULA_JAX_PYTHON_LAUNCH")
    again = jax.jit(lambda x, y: call_scaled_add(x, y, 2.0))  # tracing reads it again
    before = tj.launch_counts()
    np.testing.assert_allclose(np.asarray(again(x, y)), x + 2 * y.astype(np.float64),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(program(x, y)), want, rtol=1e-6, atol=1e-6)
    assert launched(before) == (2, 0)


def test_launch_error_in_c_is_the_calls_error():
    """An error tegula_kernel_launch returns to the handler becomes the XLA
    call's error, with the runtime's message and the kernel's name (a
    stand-in launch function returns it here)."""
    import ctypes
    lib = tj._library
    x = jnp.ones(64, jnp.float32)
    program = jax.jit(lambda x: call_scaled_add(x, x, 1.0))
    program(x).block_until_ready()  # traced, its record made
    freed = []
    launch = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_size_t)(lambda *a: 0x1234)
    message = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(
        lambda e: ctypes.cast(text, ctypes.c_void_p).value)
    destroy = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(freed.append)
    text = ctypes.create_string_buffer(b"host: the stand-in launch failed")
    rt = tegula.runtime()._lib
    address = lambda f: ctypes.cast(f, ctypes.c_void_p).value  # noqa: E731
    lib.tegula_jax_set_runtime(address(launch), address(message), address(destroy))
    try:
        with pytest.raises(Exception, match="TegulaError: scaled_add: launch failed: host: "
                           "the stand-in launch failed"):
            program(x).block_until_ready()
        assert freed == [0x1234]
    finally:
        lib.tegula_jax_set_runtime(address(rt.tegula_kernel_launch),
                                   address(rt.tegula_error_get_message),
                                   address(rt.tegula_error_destroy))
    np.testing.assert_array_equal(np.asarray(program(x)), np.full(64, 2, np.float32))


def test_unloaded_kernel_leaves_c(rng):
    """Unloading a kernel a record launches forgets the record: the next
    call goes to the Python launch (which loads the kernel again) and the
    one after runs in C again, each with the right result."""
    program = jax.jit(lambda x: tj.kernel_call(
        negate, x, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,), n=x.size,
        BLOCK=64))
    x = rng.standard_normal(100).astype(np.float32)
    before = tj.launch_counts()
    np.testing.assert_array_equal(np.asarray(program(x)), -x)
    ck = negate.warmup(tegula.MockTensor(np.float32), tegula.MockTensor(np.float32), 100,
                       BLOCK=64, grid=(2,), device=tegula.device("host:0"))
    ck.unload()
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(program(x)), -x)
    assert launched(before) == (2, 1)
