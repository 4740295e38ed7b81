"""kernel[grid](...) on the host CPU (the `host` plugin): real kernels, real
results, arrays passed in place.

The host compiles every kernel here: any error, "not implemented" included,
fails the test (no test skips for want of a code generator any more). The
runtime here is explicit (only `host` visible, plugins from the folder beside
libtegula_runtime), so the file runs under any TEGULA_VISIBLE_BACKENDS."""

import os

import numpy as np
import pytest

import tegula
import tegula.language as tl
from tegula import _launch

from kernels.add_kernel import add_kernel
from kernels.host_kernels import axpy_kernel, copy_2d_kernel

@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


def run(kernel, grid, *args, **kwargs):
    """Launches. Every error fails the test: the host compiles."""
    return kernel[grid](*args, **kwargs)


def cdiv(a, b):
    return (a + b - 1) // b


# -- Before any compile: these run today ---------------------------------------------


def test_host_memory_means_in_place(host):
    assert host.backend == "host" and host.host_memory
    assert _launch.uses_host_memory(host)


def test_bad_grid_on_host(host):
    x = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="add_kernel: grid dimension x is 0"):
        add_kernel[(0,)](x, x, x, 16, BLOCK_SIZE=16, device=host)


def test_huge_allocation_on_host(host):
    with pytest.raises(tegula.OutOfMemoryError) as info:
        tegula.empty((1 << 50,), np.float32, device=host)
    assert info.value.message.startswith("host: ")
    assert "4503599627370496 bytes" in info.value.message


class _CudaArray:
    """A device array as CuPy describes one (CUDA Array Interface v3)."""

    def __init__(self, address, n):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": "<f4",
                                         "shape": (n,), "strides": None, "version": 3,
                                         "stream": None}


def test_cuda_arrays_and_native_streams_are_refused_on_host(host):
    x = np.zeros(16, np.float32)
    cuda = _CudaArray(0x7F0000001000, 16)
    with pytest.raises(ValueError, match=r"add_kernel: argument 'x_ptr' is a "
                       r"__cuda_array_interface__ object \(_CudaArray\), device memory that "
                       r"only a device of the nvidia plugin can use, but the launch is on "
                       r"host:0; launch on nvidia:0 \(device=\) or pass a host array"):
        add_kernel[(1,)](cuda, x, x, 16, BLOCK_SIZE=16, device=host)
    # The host plugin cannot wrap a native stream (it offers no
    # TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT): the runtime says so.
    with pytest.raises(tegula.TegulaError, match="host: the plugin cannot launch on a native "
                                                 "stream") as info:
        add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=16, device=host, stream=0)
    assert info.value.code_name == "TG_ERROR_UNIMPLEMENTED"


def test_the_host_compiles(host):
    # A kernel, and its result: never "not implemented" (that once skipped
    # every test below; now it fails them).
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    ck = add_kernel[(1,)](x, x, out, 16, BLOCK_SIZE=16, device=host)
    assert ck.device.name == host.name
    np.testing.assert_array_equal(out, 2 * x)


def test_not_implemented_fails_instead_of_skipping(host, monkeypatch):
    # The answer that used to skip the launch tests must reach the test as an
    # error (a failure), not as a skip.
    def unimplemented(*args, **kwargs):
        raise tegula.TegulaError("add_kernel: compiling for host:0 (host:x86_64) failed: "
                                 "host: not implemented", 5)
    monkeypatch.setattr(_launch, "get_kernel", unimplemented)
    monkeypatch.setattr(add_kernel, "_fast", None)  # no fast-path entry skips get_kernel
    x = np.zeros(16, np.float32)
    try:
        with pytest.raises(tegula.TegulaError) as info:
            run(add_kernel, (1,), x, x, x, 16, BLOCK_SIZE=16, device=host)
    except pytest.skip.Exception as e:
        pytest.fail("run() skipped on 'not implemented' instead of failing: %s" % e)
    assert info.value.code_name == "TG_ERROR_UNIMPLEMENTED"


# -- Kernels that run ----------------------------------------------------------------


def test_vector_add(host, rng, monkeypatch):
    # Arrays go in place: no copy may happen on the host.
    monkeypatch.setattr(_launch, "_copy", lambda *a, **k: pytest.fail("copied an array"))
    n, block = 10007, 1024  # not a multiple of the block
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 64, np.nan, np.float32)  # poisoned, with a tail it must not touch
    ck = run(add_kernel, lambda meta: (cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),),
             x, y, out, n, BLOCK_SIZE=block, device=host)
    reference = x.astype(np.float64) + y.astype(np.float64)
    np.testing.assert_allclose(out[:n], reference, rtol=1e-6, atol=0)
    assert np.isnan(out[n:]).all()
    assert ck.device == host and ck.name == "add_kernel"
    assert ck.block == (ck.num_warps * host.warp_size, 1, 1)  # metadata warps


@pytest.mark.parametrize("kind", [1, 3], ids=["kDLCPU", "kDLCUDAHost"])
def test_dlpack_host_arrays(host, rng, kind):
    # Arrays known only through __dlpack__ (no __array_interface__), in host
    # memory: passed in place, written through.
    from test_interop import FakeDLPack
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 16, np.nan, np.float32)
    ck = run(add_kernel, (cdiv(n, 256),),
             FakeDLPack(x.ctypes.data, 2, 32, n, kind=kind),
             FakeDLPack(y.ctypes.data, 2, 32, n, kind=kind),
             FakeDLPack(out.ctypes.data - 16, 2, 32, n, kind=kind, offset=16), n,
             BLOCK_SIZE=256, device=host)
    np.testing.assert_array_equal(out[:n], x + y)
    assert np.isnan(out[n:]).all()
    assert ck.signature.split(", ")[:3] == ["*fp32%s" % (":16" if a.ctypes.data % 16 == 0
                                                         else "") for a in (x, y, out)]
    # An int16 array seen as fp16 by its DLPack dtype would be another kernel.
    with pytest.raises(TypeError, match="has DLPack dtype .code 2, 8 bits, 1 lanes."):
        run(add_kernel, (1,), FakeDLPack(x.ctypes.data, 2, 8, n, kind=kind), x, out, n,
            BLOCK_SIZE=256, device=host)


def test_second_launch_uses_the_cache(host, rng):
    n = 3000
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run(add_kernel, (cdiv(n, 512),), x, x, out, n, BLOCK_SIZE=512, device=host)
    count = add_kernel.compile_count
    out2 = np.full(n, np.nan, np.float32)
    run(add_kernel, (cdiv(n, 512),), x, x, out2, n, BLOCK_SIZE=512, device=host)
    assert add_kernel.compile_count == count
    np.testing.assert_array_equal(out2, x + x)


def test_scalar_argument(host, rng):
    n = 1500
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run(axpy_kernel, (cdiv(n, 256),), out, x, y, -1.75, n, BLOCK=256, device=host)
    reference = -1.75 * x.astype(np.float64) + y.astype(np.float64)
    np.testing.assert_allclose(out, reference, rtol=1e-6, atol=1e-6)


def test_2d_grid_and_strided_views(host, rng):
    src_full = rng.standard_normal((37, 300)).astype(np.float32)
    src = src_full[:, 10:210]  # not contiguous: passed in place with its row stride
    dst = np.full((37, 256), np.nan, np.float32)
    cols = src.shape[1]
    run(copy_2d_kernel, (src.shape[0], cdiv(cols, 64)), dst, src, cols,
        src.strides[0] // 4, dst.strides[0] // 4, BLOCK=64, device=host)
    np.testing.assert_array_equal(dst[:, :cols], src)
    assert np.isnan(dst[:, cols:]).all()


def test_buffers_and_streams_on_host(host, rng):
    n = 4096
    x = tegula.from_numpy(rng.standard_normal(n).astype(np.float32), device=host)
    out = tegula.empty(n, np.float32, device=host)
    out.copy_from(np.full(n, np.nan, np.float32))
    s = host.stream()
    run(add_kernel, (n // 1024,), x, x, out, n, BLOCK_SIZE=1024, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out.to_numpy(), 2 * x.to_numpy())
    s.destroy()


EXIT_SCRIPT = r'''
import sys
sys.path.insert(0, %(tests)r)
import numpy as np
import tegula
import tegula.language as tl
from kernels.add_kernel import add_kernel
rt = tegula.Runtime()  # never closed: the interpreter's exit cleans up
dev = rt.find_device("host:0")
x = np.ones(1000, np.float32)
out = np.empty_like(x)
add_kernel[(1,)](x, x, out, x.size, BLOCK_SIZE=1024, device=dev)
print("sum", float(out.sum()))
'''


def test_exit_without_closing_the_runtime(host):
    """A script that launches and exits without closing its runtime exits
    cleanly (the garbage collector may finalize the runtime before the
    kernels it loaded; unloading them then must not touch the dead runtime)."""
    import subprocess
    import sys
    tests = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run([sys.executable, "-c", EXIT_SCRIPT % {"tests": tests}],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "sum 2000.0" in result.stdout


@tegula.jit
def convert_kernel(src, dst, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(src + offsets, mask=mask)
    tl.store(dst + offsets, x.to(dst.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_conversions_match_ml_dtypes(host, rng, name):
    """fp8 -> f32 is exact for all 256 encodings; f32 -> fp8 rounds to
    nearest even exactly as ml_dtypes does for values in range, and
    saturates to the largest finite value beyond it (cvt.rn.satfinite)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    f8 = getattr(ml_dtypes, name)
    every = np.arange(256, dtype=np.uint8).view(f8)
    out = np.full(256 + 8, np.nan, np.float32)
    run(convert_kernel, (1,), every, out, 256, BLOCK=256, device=host)
    ref = every.astype(np.float32)
    assert np.array_equal(out[:256], ref, equal_nan=True)
    assert np.isnan(out[256:]).all()

    fmax = float(ml_dtypes.finfo(f8).max)
    x = np.concatenate([rng.standard_normal(20011).astype(np.float32) * scale
                        for scale in (1e-3, 1.0, 30.0, fmax / 4)]
                       + [ref[np.isfinite(ref)], np.array([fmax, -fmax], np.float32)])
    x = x[np.abs(x) <= fmax]
    y = np.full(x.size + 5, 0x55, np.uint8)
    run(convert_kernel, (cdiv(x.size, 1024),), x, y[:x.size].view(f8), x.size,
        BLOCK=1024, device=host)
    assert np.array_equal(y[:x.size], x.astype(f8).view(np.uint8))
    assert (y[x.size:] == 0x55).all()

    big = np.array([fmax * 1.5, -np.inf, np.inf, -1e30, np.nan], np.float32)
    yb = np.zeros(5, f8)
    run(convert_kernel, (1,), big, yb, 5, BLOCK=16, device=host)
    got = yb.astype(np.float32)
    assert got[:4].tolist() == [fmax, -fmax, fmax, -fmax]
    assert np.isnan(got[4])


@tegula.jit(noinline=True)
def _scaled(x, s):
    return x * s


@tegula.jit
def noinline_kernel(out_ptr, in_ptr, s, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(in_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, _scaled(_scaled(x, s), s), mask=mask)


def test_noinline_helpers_run(host, rng):
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 7, np.nan, np.float32)
    run(noinline_kernel, (cdiv(n, 256),), out, x, 1.5, n, BLOCK=256, device=host)
    assert np.array_equal(out[:n], (x * np.float32(1.5)) * np.float32(1.5))
    assert np.isnan(out[n:]).all()


@tegula.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
               K: tl.constexpr):
    ib = tl.arange(0, B)[:, None, None]
    im = tl.arange(0, M)[None, :, None]
    ik = tl.arange(0, K)[None, None, :]
    ikr = tl.arange(0, K)[None, :, None]
    jn = tl.arange(0, N)[None, None, :]
    a = tl.load(a_ptr + ib * M * K + im * K + ik)
    b = tl.load(b_ptr + ib * K * N + ikr * N + jn)
    tl.store(c_ptr + ib * M * N + im * N + jn, tl.dot(a, b))


def test_batched_dot(host, rng):
    B, M, N, K = 2, 16, 32, 16
    a = rng.standard_normal((B, M, K)).astype(np.float32)
    b = rng.standard_normal((B, K, N)).astype(np.float32)
    c = np.full((B, M, N), np.nan, np.float32)
    run(bmm_kernel, (1,), a, b, c, B=B, M=M, N=N, K=K, device=host)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, ref, rtol=1e-4, atol=1e-4)


def test_import_triton_file_runs_a_triton_kernel_unmodified(host, rng, tmp_path):
    """A kernel file written for Triton (`import triton`) imports with
    tegula.import_triton_file and runs; sys.modules is left as it was."""
    import sys
    src = tmp_path / "triton_add.py"
    src.write_text(
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    m = offs < n\n"
        "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)\n")
    before = sys.modules.get("triton")
    module = tegula.import_triton_file(src)
    assert sys.modules.get("triton") is before
    n = 3000
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run(module.add, (cdiv(n, 1024),), x, x, out, n, BLOCK=1024, device=host)
    assert np.array_equal(out, x + x)
