"""The launch fast path (_launch.py, "The fast path"): a launch like an
earlier one (same kinds of arguments, dtypes, pointer alignment, int
specialization, constexprs, options) skips binding, classification, device
resolution and tegula_args_pack; anything else takes the full path, which
re-specializes or raises exactly as before.

The host tests run real kernels on host:0 (their own runtime, as
test_launch_host.py); the testdev tests need the fake `testdev` backend
(ctest's `python` run) and skip without it."""

import os
import sys
import types

import numpy as np
import pytest

import tegula
import tegula.language as tl
from tegula import _accel_py, _interop, _launch, _launcher

from kernels.add_kernel import add_kernel, scale_kernel
from kernels.host_kernels import axpy_kernel


@tegula.jit
def fast_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask)
             + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


@tegula.jit
def typed_copy(dst: tl.pointer_type(tl.float32), src: tl.pointer_type(tl.float32), n,
               BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(dst + o, tl.load(src + o, mask=o < n), mask=o < n)


@pytest.fixture
def full(monkeypatch):
    """The calls that took the full path (a list of kernel names), from a
    fast path emptied for the kernels used here."""
    from kernels.testdev_kernels import fill_u32
    for k in (fast_add, typed_copy, add_kernel, axpy_kernel, fill_u32):
        k._fast = None
    calls = []
    real = _launch._full_launch

    def counted(fn, *args, **kwargs):
        calls.append(fn.__name__)
        return real(fn, *args, **kwargs)
    monkeypatch.setattr(_launch, "_full_launch", counted)
    return calls


@pytest.fixture
def testdev():
    try:
        return tegula.device("testdev:0")
    except tegula.TegulaError:
        pytest.skip("the testdev backend is not visible (ctest's `python` run has it)")


def aligned(n, dtype=np.float32, misalign=0, fill=None):
    """An array of n elements whose data address is 16-aligned + misalign bytes."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 16 + misalign
    a = raw[start:start + n * dtype.itemsize].view(dtype)
    assert a.ctypes.data % 16 == misalign
    if fill is not None:
        a[:] = fill
    return a


def cdiv(a, b):
    return (a + b - 1) // b


# -- host:0 ---------------------------------------------------------------------------


def test_second_launch_takes_the_fast_path(host, rng, full):
    n = 1000
    x, y = aligned(n, fill=rng.standard_normal(n)), aligned(n, fill=rng.standard_normal(n))
    out = aligned(n, fill=np.nan)
    ck = fast_add[(cdiv(n, 256),)](x, y, out, n, BLOCK=256, device=host)
    assert full == ["fast_add"]
    np.testing.assert_array_equal(out, x + y)
    count = fast_add.compile_count
    for _ in range(3):  # other arrays of the same kind: in place, no full path
        x2, y2 = aligned(n, fill=rng.standard_normal(n)), aligned(n, fill=rng.standard_normal(n))
        out2 = aligned(n, fill=np.nan)
        assert fast_add[(cdiv(n, 256),)](x2, y2, out2, n, BLOCK=256, device=host) is ck
        np.testing.assert_array_equal(out2, x2 + y2)
    # Keyword arguments bind to the same values: the same key.
    out[:] = np.nan
    assert fast_add[(cdiv(n, 256),)](x, y, out_ptr=out, n=n, BLOCK=256, device=host) is ck
    np.testing.assert_array_equal(out, x + y)
    assert full == ["fast_add"]
    assert fast_add.compile_count == count


def test_alignment_respecializes(host, rng, full):
    n = 500
    x = aligned(n, fill=rng.standard_normal(n))
    out = aligned(n, fill=np.nan)
    ck = fast_add[(2,)](x, x, out, n, BLOCK=256, device=host)
    assert ck.signature == "*fp32:16, *fp32:16, *fp32:16, i32, 256"
    # The same kinds, but x 4 bytes past a 16-byte boundary: a new kernel.
    xm = aligned(n, misalign=4, fill=rng.standard_normal(n))
    ckm = fast_add[(2,)](xm, x, out, n, BLOCK=256, device=host)
    assert ckm.signature == "*fp32, *fp32:16, *fp32:16, i32, 256"
    np.testing.assert_array_equal(out, xm + x)
    assert len(full) == 2
    # Each kind now launches fast, with its own kernel.
    assert fast_add[(2,)](x, x, out, n, BLOCK=256, device=host) is ck
    np.testing.assert_array_equal(out, x + x)
    assert fast_add[(2,)](xm, x, out, n, BLOCK=256, device=host) is ckm
    np.testing.assert_array_equal(out, xm + x)
    assert len(full) == 2


@pytest.mark.parametrize("steps", ["C", "python"])
def test_an_unaligned_view_never_runs_an_aligned_kernel(host, rng, full, monkeypatch, steps):
    # The key is recomputed per call: after many launches on aligned arrays
    # (a kernel compiled for 16-byte aligned pointers, which may use aligned
    # vector accesses), views 4, 8 and 12 bytes on get a kernel of their own.
    if steps == "python":
        monkeypatch.setattr(_launcher, "accel", _accel_py._Fallback)
    elif not getattr(_launcher.accel, "available", False):
        pytest.skip("tegula._accel is not built")
    fast_add._fast = None
    n = 1024
    base = aligned(n + 8, fill=rng.standard_normal(n + 8))
    out = aligned(n, fill=np.nan)
    for _ in range(3):
        ck = fast_add[(4,)](base[:n], base[:n], out, n, BLOCK=256, device=host)
    assert ck.signature == "*fp32:16, *fp32:16, *fp32:16, i32:16, 256"
    for _ in range(2):  # a full launch, then through the entry it recorded
        for shift in range(1, 9):
            view = base[shift:shift + n]
            out[:] = np.nan
            got = fast_add[(4,)](view, base[:n], out, n, BLOCK=256, device=host)
            if shift % 4 == 0:
                assert got is ck
            else:
                assert got is not ck and got.signature.startswith("*fp32, *fp32:16, ")
            np.testing.assert_array_equal(out, view + base[:n])
    assert len(full) == 2  # aligned, then unaligned: one kernel for every unaligned view
    assert isinstance(fast_add._fast.launch.__globals__["_arg_key"], type(_launcher.accel.arg_key))


@pytest.mark.parametrize("n,entry", [(1000, "i32"), (1024, "i32:16"), (1, "i32:1"),
                                     (2 ** 31 + 16, "i64:16")])
def test_int_specialization_respecializes(host, rng, full, n, entry):
    x = aligned(64, fill=rng.standard_normal(64))
    out = aligned(64, fill=np.nan)
    # n < 32 (n == 1) covers one element; larger n cover all 32 (one program).
    ck = fast_add[(1,)](x, x, out, 7, BLOCK=32, device=host)  # i32
    assert ck.signature.split(", ")[3] == "i32"
    ckn = fast_add[(1,)](x, x, out, n, BLOCK=32, device=host)
    assert ckn.signature.split(", ")[3] == entry
    assert (ckn is ck) == (entry == "i32")
    m = min(n, 32)
    np.testing.assert_array_equal(out[:m], x[:m] + x[:m])
    out[:] = np.nan
    assert fast_add[(1,)](x, x, out, n, BLOCK=32, device=host) is ckn
    np.testing.assert_array_equal(out[:m], x[:m] + x[:m])
    assert np.isnan(out[m:]).all()
    assert len(full) == (1 if entry == "i32" else 2)


def test_dtype_respecializes(host, rng, full):
    n = 64
    x32 = aligned(n, np.float32, fill=rng.standard_normal(n))
    o32 = aligned(n, np.float32, fill=np.nan)
    x64 = aligned(n, np.float64, fill=rng.standard_normal(n))
    o64 = aligned(n, np.float64, fill=np.nan)
    ck32 = fast_add[(1,)](x32, x32, o32, n, BLOCK=64, device=host)
    ck64 = fast_add[(1,)](x64, x64, o64, n, BLOCK=64, device=host)
    assert ck64 is not ck32 and ck64.signature.startswith("*fp64:16, *fp64:16, *fp64:16")
    np.testing.assert_array_equal(o64, x64 + x64)
    o64[:] = np.nan
    assert fast_add[(1,)](x64, x64, o64, n, BLOCK=64, device=host) is ck64
    np.testing.assert_array_equal(o64, x64 + x64)
    assert fast_add[(1,)](x32, x32, o32, n, BLOCK=64, device=host) is ck32
    assert len(full) == 2


def test_scalars_and_constexprs(host, rng, full):
    n = 300
    x, y = aligned(n, fill=rng.standard_normal(n)), aligned(n, fill=rng.standard_normal(n))
    out = aligned(n, fill=np.nan)
    for alpha in (2.0, -1.5, 0.25, np.float32(3.0)):
        axpy_kernel[(cdiv(n, 128),)](out, x, y, alpha, n, BLOCK=128, device=host)
        np.testing.assert_allclose(out, np.float32(alpha) * x + y, rtol=1e-6, atol=1e-6)
    assert full == ["axpy_kernel", "axpy_kernel"]  # float, then np.float32
    # Another constexpr is another kernel; tl.constexpr(128) is 128.
    axpy_kernel[(cdiv(n, 64),)](out, x, y, 1.0, n, BLOCK=64, device=host)
    axpy_kernel[(cdiv(n, 128),)](out, x, y, 1.0, n, BLOCK=tl.constexpr(128), device=host)
    assert len(full) == 3
    np.testing.assert_allclose(out, x + y, rtol=1e-6, atol=1e-6)


def test_grid_forms_and_a_callable_called_once(host, rng, full):
    n = 1000
    x = aligned(n, fill=rng.standard_normal(n))
    out = aligned(n, fill=np.nan)
    metas = []

    def grid(meta):
        metas.append(dict(meta))
        return (cdiv(meta["n"], meta["BLOCK"]),)

    for _ in range(3):
        out[:] = np.nan
        fast_add[grid](x, x, out, n, BLOCK=tl.constexpr(256), device=host)
        np.testing.assert_array_equal(out, x + x)
    assert len(full) == 1 and len(metas) == 3  # called once per launch
    m = metas[-1]
    assert list(m) == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert m["x_ptr"] is x and m["out_ptr"] is out and m["n"] == n
    assert m["BLOCK"] == 256 and not isinstance(m["BLOCK"], tl.constexpr)
    for g in (4, [4], (4, 1), (4, 1, 1), lambda m: [4]):
        out[:] = np.nan
        fast_add[g](x, x, out, n, BLOCK=256, device=host)
        np.testing.assert_array_equal(out, x + x)
    assert len(full) == 1  # BLOCK=256 is BLOCK=tl.constexpr(256); the grid is no key


@pytest.mark.parametrize("grid,error,message", [
    ((0,), ValueError, "fast_add: grid dimension x is 0; every dimension must be at least 1"),
    ((1, 0), ValueError, "fast_add: grid dimension y is 0"),
    ((2 ** 31,), ValueError, "fast_add: grid dimension x is 2147483648, above its limit "
                             "2147483647"),
    ((1, 1, 65536), ValueError, "fast_add: grid dimension z is 65536, above its limit 65535"),
    ((), ValueError, "fast_add: the grid must have 1 to 3 dimensions, not 0"),
    ((1.0,), TypeError, "fast_add: grid dimension x must be an int"),
    ((True,), TypeError, "fast_add: grid dimension x is a bool"),
    (lambda meta: (0,), ValueError, "fast_add: grid dimension x is 0"),
    (lambda meta: lambda m: 1, TypeError, "fast_add: the grid must be a tuple of 1 to 3 ints"),
])
def test_bad_grids_after_the_fast_path(host, full, grid, error, message):
    x = aligned(16, fill=1.0)
    out = aligned(16, fill=np.nan)
    fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host)
    fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host)
    assert len(full) == 1
    out[:] = np.nan
    with pytest.raises(error) as info:
        fast_add[grid](x, x, out, 16, BLOCK=16, device=host)
    assert str(info.value).startswith(message)
    assert np.isnan(out).all()


def test_errors_after_the_fast_path(host, full):
    x = aligned(16, fill=1.0)
    out = aligned(16, fill=np.nan)
    fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host)
    fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"^fast_add\(\) missing 1 required positional argument: "
                                        r"'n' \(the parameters are x_ptr, y_ptr, out_ptr, n, "
                                        r"BLOCK\)"):
        fast_add[(1,)](x, x, out, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"^fast_add\(\) takes 5 positional arguments but 6 "
                                        r"were given"):
        fast_add[(1,)](x, x, out, 16, 16, 3, device=host)
    with pytest.raises(TypeError, match=r"^fast_add\(\) got an unexpected keyword argument 'B'"):
        fast_add[(1,)](x, x, out, 16, BLOCK=16, B=1, device=host)
    with pytest.raises(ValueError, match="^fast_add: num_warps must be a power of 2, not 3"):
        fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host, num_warps=3)
    with pytest.raises(ValueError, match="^fast_add: num_warps must be a power of 2, not 4.0"):
        fast_add[(1,)](x, x, out, 16, BLOCK=16, device=host, num_warps=4.0)
    with pytest.raises(TypeError, match="^fast_add: argument 'out_ptr': cannot specialize an "
                                        "argument of type 'str'"):
        fast_add[(1,)](x, x, "out", 16, BLOCK=16, device=host)
    with pytest.raises(ValueError, match="^fast_add: argument 'n': integer argument "
                                         "18446744073709551616 does not fit in 64 bits"):
        fast_add[(1,)](x, x, out, 2 ** 64, BLOCK=16, device=host)
    with pytest.raises(TypeError, match="^fast_add: argument 'out_ptr': no Triton element "
                                        "type for dtype complex64"):
        fast_add[(1,)](x, x, np.zeros(16, np.complex64), 16, BLOCK=16, device=host)

    class CudaArray:
        __cuda_array_interface__ = {"data": (0x7F0000001000, False), "typestr": "<f4",
                                    "shape": (16,), "strides": None, "version": 3,
                                    "stream": None}
    with pytest.raises(ValueError, match=r"^fast_add: argument 'x_ptr' is a "
                       r"__cuda_array_interface__ object \(CudaArray\), device memory that "
                       r"only a device of the nvidia plugin can use, but the launch is on "
                       r"host:0"):
        fast_add[(1,)](CudaArray(), x, out, 16, BLOCK=16, device=host)
    assert (out == 2).all()


def test_typed_pointers_after_the_fast_path(host, full):
    src = aligned(16, fill=3.0)
    dst = aligned(16, fill=np.nan)
    for _ in range(2):
        typed_copy[(1,)](dst, src, 16, BLOCK=16, device=host)
    assert (dst == 3.0).all() and len(full) == 1
    with pytest.raises(TypeError, match=r"^typed_copy: argument 'dst' is annotated \*fp32 but "
                                        r"the array's dtype is float64 \(fp64\)"):
        typed_copy[(1,)](aligned(16, np.float64), src, 16, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"argument 'src' is annotated \*fp32 and needs an "
                                        r"array or a tegula.Buffer, not int"):
        typed_copy[(1,)](dst, 0, 16, BLOCK=16, device=host)


def test_buffers_and_streams(host, rng, full):
    n = 2048
    x = tegula.from_numpy(rng.standard_normal(n).astype(np.float32), device=host)
    out = tegula.empty(n, np.float32, device=host)
    s = host.stream()
    for i in range(3):
        out.memset(0xFF, stream=s)
        ck = add_kernel[(n // 1024,)](x, x, out, n, BLOCK_SIZE=1024, stream=s)
    assert len(full) == 1 and ck.device == host
    # The runtime copies the packed arguments before it returns: none are kept.
    assert s._keep == []
    s.synchronize()
    np.testing.assert_array_equal(out.to_numpy(), 2 * x.to_numpy())
    # A destroyed stream, a freed buffer: the full path's errors.
    s.destroy()
    with pytest.raises(ValueError, match="Stream has been freed"):
        add_kernel[(n // 1024,)](x, x, out, n, BLOCK_SIZE=1024, stream=s)
    add_kernel[(n // 1024,)](x, x, out, n, BLOCK_SIZE=1024)
    add_kernel[(n // 1024,)](x, x, out, n, BLOCK_SIZE=1024)
    x.free()
    with pytest.raises(ValueError, match="Buffer has been freed"):
        add_kernel[(n // 1024,)](x, x, out, n, BLOCK_SIZE=1024)


def test_unloaded_kernel_is_compiled_again(host, rng, full):
    x = aligned(64, fill=rng.standard_normal(64))
    out = aligned(64, fill=np.nan)
    ck = fast_add[(1,)](x, x, out, 64, BLOCK=64, device=host)
    ck.unload()
    count = fast_add.compile_count + fast_add.shared_image_loads
    ck2 = fast_add[(1,)](x, x, out, 64, BLOCK=64, device=host)
    # Loaded again, from the image the first compile made (kept for the
    # other devices of the target: shared_image_loads).
    assert ck2 is not ck and ck2.alive
    assert fast_add.compile_count + fast_add.shared_image_loads == count + 1
    np.testing.assert_array_equal(out, x + x)
    assert len(full) == 2


def test_a_closed_runtime_is_not_used(rng):
    x = aligned(64, fill=rng.standard_normal(64))
    out = aligned(64, fill=np.nan)
    for _ in range(2):
        with tegula.Runtime(visible_backends="host") as rt:
            dev = rt.find_device("host:0")
            for _ in range(2):
                out[:] = np.nan
                ck = fast_add[(1,)](x, x, out, 64, BLOCK=64, device=dev)
                np.testing.assert_array_equal(out, x + x)
        assert not ck.alive


# -- The key ------------------------------------------------------------------------


def key(kernel, *args, **kwargs):
    """The launcher's key of a call (None: the call always takes the full path)."""
    return kernel._launcher().key((1,), *args, **kwargs)


def test_keys():
    x = aligned(8)
    k = key(scale_kernel, x, 1.0, 16, True)
    assert k is not None and k == key(scale_kernel, aligned(8), 2.5, 32, False)
    # Every specialization decision is in the key.
    assert k != key(scale_kernel, aligned(8, misalign=8), 1.0, 16, True)   # alignment
    assert k != key(scale_kernel, aligned(8, np.float64), 1.0, 16, True)   # dtype
    assert k != key(scale_kernel, x, 1.0, 17, True)                        # :16
    assert k != key(scale_kernel, x, 1.0, 1, True)                         # :1
    assert k != key(scale_kernel, x, 1.0, 2 ** 40, True)                   # i64
    assert k != key(scale_kernel, x, 1, 16, True)                          # int, not float
    assert k != key(scale_kernel, x, 1.0, 16, 1)                           # int, not bool
    assert k != key(scale_kernel, x, 1.0, np.int64(16), True)              # NumPy int
    # Constexprs by value and type: 1, True and 1.0 are equal in Python.
    base = key(scale_kernel, x, 1.0, 16, True, ACT=1)
    assert base == key(scale_kernel, x, 1.0, 16, True, ACT=tl.constexpr(1))
    assert base != key(scale_kernel, x, 1.0, 16, True, ACT=True)
    assert base != key(scale_kernel, x, 1.0, 16, True, ACT=1.0)
    assert key(scale_kernel, x, 1.0, 16, True, ACT=0.0) != \
        key(scale_kernel, x, 1.0, 16, True, ACT=-0.0)
    assert key(scale_kernel, x, 1.0, 16, True, DT=tl.float32) != \
        key(scale_kernel, x, 1.0, 16, True)
    # Defaults and keywords bind as the signature says.
    assert key(scale_kernel, x, 1.0, 16, True, "none", tl.float16) == \
        key(scale_kernel, x_ptr=x, alpha=1.0, n=16, flag=True)
    # Kinds the fast path leaves to the full path.
    assert key(scale_kernel, x, 1.0, 16) is None                           # missing argument
    assert key(scale_kernel, x, None, 16, True) is None
    assert key(scale_kernel, x[::2], 1.0, 16, True) is not None            # a view: in place
    assert key(scale_kernel, x.tolist(), 1.0, 16, True) is None
    assert key(scale_kernel, x, 1.0, 2 ** 64, True) is None


def test_keys_of_the_launch_options():
    args = (aligned(8), 1.0, 16, True)

    def k(**launch_options):
        return scale_kernel._launcher().key((1,), *args, **launch_options)
    assert k() != k(num_warps=8) and k() != k(num_stages=2)
    # Not what a launch takes: never a key of a launch that succeeded.
    assert k(num_warps=4.0) != k() and k(num_warps=True) != k()
    assert k(device="host:0") != k() and k(device=3) is None
    assert k(stream=0) is None  # native handles: the full path


# -- testdev (ctest `python`) -----------------------------------------------------------


def test_scalar_range_is_checked_on_every_launch(testdev, full):
    from kernels.testdev_kernels import fill_u32
    b = tegula.empty(256, np.uint32)
    fill_u32[(2,)](b, 7, 256, BLOCK=128)
    fill_u32[(2,)](b, 9, 256, BLOCK=128)
    assert len(full) == 1 and (b.to_numpy() == 9).all()
    # -1 has 7's key (i32) but does not fit testdev's u32.
    with pytest.raises(ValueError, match="^fill_u32: argument 'value' = -1 does not fit the "
                                         "kernel's u32"):
        fill_u32[(2,)](b, -1, 256, BLOCK=128)
    with pytest.raises(TypeError, match="argument 'value' has type u32 in the compiled "
                                        "kernel; got a float"):
        fill_u32[(2,)](b, 2.5, 256, BLOCK=128)
    assert (b.to_numpy() == 9).all()


def test_hooks_see_no_launch_that_does_not_pack(testdev, full, monkeypatch):
    from kernels.testdev_kernels import fill_u32
    entered = []
    monkeypatch.setattr(tegula.CompiledKernel, "launch_enter_hook",
                        lambda md: entered.append(md.grid))
    b = tegula.empty(256, np.uint32)
    fill_u32[(2,)](b, 7, 256, BLOCK=128)
    fill_u32[(2,)](b, 9, 256, BLOCK=128)
    assert len(full) == 1 and entered == [(2, 1, 1)] * 2
    # -1 has 9's key but does not fit the kernel's u32: the full launch says
    # so, and no hook saw a launch.
    with pytest.raises(ValueError, match="argument 'value' = -1 does not fit the kernel's u32"):
        fill_u32[(2,)](b, -1, 256, BLOCK=128)
    assert len(entered) == 2 and (b.to_numpy() == 9).all()


def test_copied_arrays_take_the_full_path(testdev, full):
    from kernels.testdev_kernels import fill_u32
    out = np.zeros(256, np.uint32)
    for v in (1, 2, 3):
        fill_u32[(2,)](out, v, 256, BLOCK=128)
        assert (out == v).all()
    assert len(full) == 3  # each launch copies in and out


def test_buffer_on_another_device(testdev, full):
    from kernels.testdev_kernels import fill_u32
    b0 = tegula.empty(128, np.uint32)
    b1 = tegula.empty(128, np.uint32, device="testdev:1")
    assert fill_u32[(2,)](b0, 1, 128, BLOCK=64).device.name == "testdev:0"
    assert fill_u32[(2,)](b1, 2, 128, BLOCK=64).device.name == "testdev:1"
    assert fill_u32[(2,)](b1, 3, 128, BLOCK=64).device.name == "testdev:1"
    assert len(full) == 2
    with pytest.raises(ValueError, match="argument 'out_ptr' is a buffer on testdev:1, but "
                                         "the launch is on testdev:0"):
        fill_u32[(2,)](b1, 3, 128, BLOCK=64, device=testdev)
    assert (b1.to_numpy() == 3).all() and (b0.to_numpy() == 1).all()


def test_torch_cuda_tensors(testdev, full, monkeypatch):
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    from test_interop import FakeDevice, fake_torch
    from kernels.testdev_kernels import fill_u32
    torch = fake_torch(monkeypatch, current=0x5150)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "uint32", FakeDevice("cuda", 1), numel=64)
    for v in (5, 6, 7):
        ck = fill_u32[(1,)](t, v, 64, BLOCK=128)
    assert ck.device.name == "testdev:1" and len(full) == 1
    assert torch.current_stream_calls == [1, 1, 1]  # each launch asks
    ck.device._native_stream(0x5150).synchronize()
    assert (buf.to_numpy() == 7).all()
    # The owner of CUDA memory (fixed for a torch build) is read by the full
    # launch: now nvidia:1, which is not here.
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "nvidia")
    fill_u32._fast = None
    with pytest.raises(tegula.TegulaError, match="nvidia:1"):
        fill_u32[(1,)](t, 8, 64, BLOCK=128)
    assert (buf.to_numpy() == 7).all()


def test_torch_raw_current_stream_is_read_per_launch(testdev, full, monkeypatch):
    """With torch._C._cuda_getCurrentRawStream (as Triton reads it), every
    fast launch asks it for the tensor's device and goes on the stream it
    names: a change of PyTorch's current stream is followed."""
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    from test_interop import FakeDevice, fake_torch
    from kernels.testdev_kernels import fill_u32
    torch = fake_torch(monkeypatch, current=0x5150)
    current, asked = [0x5150], []

    def raw(index):
        asked.append(index)
        return current[0]
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=raw)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "uint32", FakeDevice("cuda", 1), numel=64)
    used = []
    for v, stream in ((5, 0x5150), (6, 0x6160), (7, 0x6160), (8, 0x5150)):
        current[0] = stream
        ck = fill_u32[(1,)](t, v, 64, BLOCK=128)
        entry, = fill_u32._fast.entries.values()
        used.append(sorted(entry.torch.streams))
    assert len(full) == 1 and ck.device.name == "testdev:1"
    assert asked.count(1) == len(asked) and len(asked) >= 4
    # The fast launches wrapped each native stream once, when it was first
    # current there (the first launch, a full one, wraps its own).
    assert used == [[], [0x6160], [0x6160], [0x5150, 0x6160]]
    assert sorted(s.native_handle for s in entry.torch.streams.values()) == [0x5150, 0x6160]
    assert (buf.to_numpy() == 8).all()


def test_streams_of_one_device_share_the_quick_launch(testdev, full):
    """stream= is in the key by its device: streams of one device take the
    same entry, each launch on its own stream, and the launcher keeps no
    stream of an earlier call alive."""
    import weakref
    from kernels.testdev_kernels import fill_u32
    buf = tegula.empty(64, np.uint32, device=testdev)
    s1, s2 = testdev.stream(), testdev.stream()
    fill_u32[(1,)](buf, 9, 64, BLOCK=128, stream=s1)  # the first launches
    fill_u32[(1,)](buf, 9, 64, BLOCK=128, stream=s1)  # of this process may load plugins
    first = len(full)
    for v, s in ((2, s1), (3, s1), (5, s2), (6, s2), (7, s1)):  # ints of one specialization
        fill_u32[(1,)](buf, v, 64, BLOCK=128, stream=s)
    s1.synchronize()
    s2.synchronize()
    assert len(full) == first and (buf.to_numpy() == 7).all()
    last = fill_u32._fast.last[0]
    assert last[0] is not None and not any(x is s1 or x is s2 for x in last[3])
    try:
        gone = weakref.ref(s2)
    except TypeError:  # pragma: no cover - a Stream without weak references
        return
    del s2
    import gc
    gc.collect()
    assert gone() is None


def test_dropped_launchers_are_collected(testdev, full, monkeypatch):
    """An entry's runner leads back to the entry (its launch config maker,
    its streams): the cycle collector must free a launcher that is dropped,
    and the kernels its entries hold, with or without torch streams."""
    import gc
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    from test_interop import FakeDevice, fake_torch
    from kernels.testdev_kernels import fill_u32
    torch = fake_torch(monkeypatch, current=0x5150)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda i: 0x5150)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "uint32", FakeDevice("cuda", 1), numel=64)

    def ours():
        return [o for o in gc.get_objects()
                if type(o) is _launcher.Entry and getattr(o.ck, "_fn", None) is fill_u32]
    for _ in range(3):
        for arg in (buf, t):
            fill_u32[(1,)](arg, 3, 64, BLOCK=128)
            fill_u32[(1,)](arg, 4, 64, BLOCK=128)
        assert len(ours()) >= 1
        fill_u32._fast = None
    gc.collect()
    assert ours() == []


def test_unaligned_torch_tensor_respecializes(testdev, full, monkeypatch):
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    from test_interop import FakeDevice, fake_torch
    from kernels.testdev_kernels import fill_u32
    torch = fake_torch(monkeypatch, current=0x5150)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "uint32", FakeDevice("cuda", 1), numel=64)
    view = torch.Tensor(buf.device_address + 4, "uint32", FakeDevice("cuda", 1), numel=48)
    for _ in range(2):
        ck = fill_u32[(1,)](t, 5, 48, BLOCK=128)
        ckv = fill_u32[(1,)](view, 6, 48, BLOCK=128)
    assert ck.signature == "*u32:16, i32, i32:16, 128"
    assert ckv.signature == "*u32, i32, i32:16, 128"
    assert len(full) == 2
    ck.device._native_stream(0x5150).synchronize()
    assert (buf.to_numpy()[:1] == 5).all() and (buf.to_numpy()[1:49] == 6).all()


def test_reinterpreted_torch_cuda_tensor(testdev, full, monkeypatch):
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    from test_interop import FakeDevice, fake_torch
    from kernels.testdev_kernels import fill_u32
    torch = fake_torch(monkeypatch, current=0x5150)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "float32", FakeDevice("cuda", 1), numel=64)
    for v in (3, 4):
        ck = fill_u32[(1,)](tegula.reinterpret(t, tl.uint32), v, 64, BLOCK=128)
    assert ck.signature == "*u32:16, i32, i32:16, 128" and ck.device.name == "testdev:1"
    assert len(full) == 1
    ck.device._native_stream(0x5150).synchronize()
    assert (buf.to_numpy() == 4).all()


def test_raw_current_stream_of_torch(monkeypatch):
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda i: 0x900 + i)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert _interop.torch_current_stream(3) == 0x903
