"""PyTorch CUDA tensors on a real NVIDIA GPU (nvidia:N): passed as device
pointers, launched on PyTorch's current stream. Skips (saying why) without
torch, without CUDA, or without the nvidia plugin's device; run it on the GPU
machine with the nvidia plugin visible, e.g.

    TEGULA_VISIBLE_BACKENDS=nvidia,host python3 -m pytest python/tests/test_cuda.py

(bench/gpu_bench.py runs the corpus there; this file checks the interop.)
The arguments' handling without a GPU is tested in test_interop.py."""

import pytest

import tegula

torch = pytest.importorskip("torch", reason="these tests need PyTorch with CUDA")
if not torch.cuda.is_available():
    pytest.skip("these tests need a CUDA GPU (torch.cuda.is_available() is False)",
                allow_module_level=True)

from kernels.add_kernel import add_kernel  # noqa: E402
from kernels.testdev_kernels import typed_scale  # noqa: E402


@pytest.fixture(scope="module")
def nv():
    """nvidia:<current CUDA device> on a runtime of its own, which is also
    made the default runtime (launches without device= look there)."""
    rt = tegula.Runtime(visible_backends="nvidia")
    index = torch.cuda.current_device()
    try:
        dev = rt.find_device("nvidia:%d" % index)
    except tegula.TegulaError as e:
        rt.close()
        pytest.skip("no nvidia:%d: %s" % (index, e))
    saved = tegula._default
    tegula._default = rt
    yield dev
    tegula._default = saved
    rt.close()


def run_or_skip_compile(launch):
    """Launches; skips while the nvidia plugin cannot compile yet."""
    try:
        return launch()
    except tegula.TegulaError as e:
        if e.code_name == "TG_ERROR_UNIMPLEMENTED" and "compil" in e.message:
            pytest.skip("the nvidia plugin cannot compile yet: %s" % e.message)
        raise


def test_add_on_torch_tensors_picks_the_tensors_device(nv):
    n = 100_003
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    ck = run_or_skip_compile(lambda: add_kernel[((n + 1023) // 1024,)](x, y, out, n,
                                                                      BLOCK_SIZE=1024))
    assert ck.device == nv
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)


def test_launch_is_ordered_in_the_current_stream(nv):
    n = 1 << 20
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        out.fill_(float("nan"))  # queued, not waited for: the launch must follow it
        run_or_skip_compile(lambda: add_kernel[(n // 1024,)](x, y, out, n, BLOCK_SIZE=1024))
        expected = x + y
    assert nv._native_stream(side.cuda_stream).native_handle == side.cuda_stream
    side.synchronize()
    assert torch.equal(out, expected)


def test_explicit_torch_stream(nv):
    n = 4096
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    run_or_skip_compile(lambda: add_kernel[(4,)](x, x, out, n, BLOCK_SIZE=1024, stream=s))
    s.synchronize()
    assert torch.equal(out, 2 * x)


def test_dtype_checked_against_the_annotation(nv):
    h = torch.zeros(16, device="cuda", dtype=torch.float16)
    with pytest.raises(TypeError, match=r"annotated \*fp32 but the array's dtype is fp16"):
        typed_scale[(1,)](h, h, 1.0, 16)


def test_cuda_tensor_on_the_host_device(nv):
    with tegula.Runtime(visible_backends="host") as rt:
        try:
            host = rt.find_device("host:0")
        except tegula.TegulaError as e:
            pytest.skip("no host:0: %s" % e)
        x = torch.zeros(16, device="cuda")
        with pytest.raises(ValueError, match="only a device of the nvidia plugin can use, "
                                             "but the launch is on host:0"):
            add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=16, device=host)


def test_int8_dot_is_exact(nv):
    """tl.dot on int8 (mma.sync m16n8k32 s8 into s32) equals the integer
    product exactly, including the extremes."""
    from kernels.dot_kernels import int8_dot_kernel
    g = torch.Generator(device="cuda").manual_seed(7)
    m, n, k = 64, 32, 64
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
    b = torch.randint(-128, 128, (k, n), device="cuda", dtype=torch.int8, generator=g)
    a[0, :] = -128
    b[:, 0] = -128
    c = torch.full((m, n), -7, device="cuda", dtype=torch.int32)
    run_or_skip_compile(lambda: int8_dot_kernel[(1,)](a, b, c, M=m, N=n, K=k))
    torch.cuda.synchronize()
    expected = a.cpu().to(torch.int64) @ b.cpu().to(torch.int64)
    assert torch.equal(c.cpu().to(torch.int64), expected)


@pytest.mark.parametrize("precision", ["tf32", "ieee"])
def test_f32_dot_precision(nv, precision):
    """f32 dots: tf32 (tl.dot's default; mma.sync m16n8k8) is within tf32's
    rounding of the exact product and measurably coarser than ieee (FMA),
    which is within f32's."""
    from kernels.dot_kernels import f32_dot_kernel
    g = torch.Generator(device="cuda").manual_seed(11)
    m, n, k = 64, 64, 64
    a = torch.randn((m, k), device="cuda", generator=g)
    b = torch.randn((k, n), device="cuda", generator=g)
    c = torch.full((m, n), float("nan"), device="cuda")
    run_or_skip_compile(lambda: f32_dot_kernel[(1,)](a, b, c, M=m, N=n, K=k,
                                                     PRECISION=precision))
    torch.cuda.synchronize()
    exact = a.cpu().double() @ b.cpu().double()
    err = (c.cpu().double() - exact).abs().max().item()
    bound = (a.cpu().double().abs() @ b.cpu().double().abs()).max().item()
    if precision == "tf32":
        assert 1e-7 * bound < err <= 2 * 2.0 ** -10 * bound, err
    else:
        assert err <= 64 * 2.0 ** -24 * bound, err


# -- Several GPUs (skip with fewer than two) ----------------------------------------


@pytest.fixture
def two_gpus(nv):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices, torch sees %d" % torch.cuda.device_count())
    return nv._runtime


def test_tensors_on_cuda_1_launch_on_nvidia_1(two_gpus):
    n = 4099
    grid = ((n + 1023) // 1024,)
    for other in (None, 0):
        x = torch.randn(n, device="cuda:1")
        out = torch.full_like(x, float("nan"))
        if other is None:
            ck = add_kernel[grid](x, x, out, n, BLOCK_SIZE=1024)
        else:
            s = torch.cuda.Stream(device=1)
            with torch.cuda.device(other), torch.cuda.stream(s):  # current device: cuda:0
                ck = add_kernel[grid](x, x, out, n, BLOCK_SIZE=1024)
            s.synchronize()
        assert ck.device.name == "nvidia:1"
        torch.cuda.synchronize(1)
        torch.testing.assert_close(out, x + x)
    # One compile for both GPUs when they share an architecture.
    x0 = torch.randn(n, device="cuda:0")
    out0 = torch.empty_like(x0)
    before = add_kernel.compile_count
    add_kernel[grid](x0, x0, out0, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize(0)
    torch.testing.assert_close(out0, x0 + x0)
    same_arch = torch.cuda.get_device_capability(0) == torch.cuda.get_device_capability(1)
    assert add_kernel.compile_count - before in ((0,) if same_arch else (0, 1))


def test_tensors_on_two_gpus_are_refused(two_gpus):
    x0 = torch.randn(64, device="cuda:0")
    x1 = torch.randn(64, device="cuda:1")
    with pytest.raises(ValueError, match=r"argument 'y_ptr' is a torch CUDA tensor "
                       r"\(cuda:1\), which is nvidia:1, but the launch is on nvidia:0 "
                       r"\(the device of argument 'x_ptr'"):
        add_kernel[(1,)](x0, x1, torch.empty_like(x0), 64, BLOCK_SIZE=64)
