"""Several devices of one backend, without a GPU: the fake ``testdev``
plugin with four devices (``TEGULA_TESTDEV_COUNT=4``, read by that plugin
alone: testdev:0 and :2 are "testarch" devices, :1 and :3 "testarch2").

What multi-GPU use needs of the Python package: a launch runs on the device
of its arguments (``cuda:N`` tensors on ``nvidia:N``, here testdev:N), on
that device's current PyTorch stream; devices of one target share one
compile (one image, a module loaded per device; ``TEGULA_TESTDEV_LOG``
counts compiles and loads in the plugin itself); arguments on different
devices are refused naming each one and its device."""

import threading

import numpy as np
import pytest

import tegula
import tegula.language as tl
from tegula import _interop

from test_interop import FakeDevice, fake_torch

BLOCK = 128


# Kernels of this file's own (named like testdev's built-ins, which run
# them): their compile counters and image caches start at zero here.
@tegula.jit
def fill_u32(out_ptr, value, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, value, mask=offsets < n)


@tegula.jit
def scale_f32(out_ptr, in_ptr, a, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(in_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * x, mask=mask)


@pytest.fixture
def four(monkeypatch, tmp_path):
    """A default runtime whose testdev has four devices, and the file the
    plugin logs its compiles and module loads to. No disk cache: every
    image is compiled in this process."""
    log = tmp_path / "testdev.log"
    monkeypatch.setenv("TEGULA_TESTDEV_COUNT", "4")
    monkeypatch.setenv("TEGULA_TESTDEV_LOG", str(log))
    monkeypatch.setenv("TEGULA_CACHE_DIR", "none")
    rt = tegula.Runtime(visible_backends="testdev")
    monkeypatch.setattr(tegula, "_default", rt)
    yield rt, log
    rt.close()


def log_lines(log):
    return log.read_text().splitlines() if log.exists() else []


def test_devices_are_named_by_ordinal(four):
    rt, _ = four
    assert [d.name for d in rt.devices] == ["testdev:%d" % i for i in range(4)]
    assert [d.target for d in rt.devices] == ["testdev:testarch", "testdev:testarch2"] * 2
    assert tegula.device("testdev:3").name == "testdev:3"
    with pytest.raises(tegula.TegulaError, match="testdev:4"):
        tegula.device("testdev:4")


def test_one_compile_per_target_one_module_per_device(four):
    rt, log = four
    compiles, shared = fill_u32.compile_count, fill_u32.shared_image_loads
    bufs = [tegula.empty(300, np.uint32, device=d) for d in rt.devices]
    for i in (0, 2, 1, 3):
        ck = fill_u32[(3,)](bufs[i], 10 + i, 300, BLOCK=BLOCK)
        assert ck.device.name == "testdev:%d" % i  # the buffer's device
    for i, b in enumerate(bufs):
        assert (b.to_numpy() == 10 + i).all()
    assert fill_u32.compile_count - compiles == 2          # testarch, testarch2
    assert fill_u32.shared_image_loads - shared == 2       # testdev:2 and :3
    assert log_lines(log) == [
        "compile testdev:testarch fill_u32", "load testdev:0 fill_u32",
        "load testdev:2 fill_u32",
        "compile testdev:testarch2 fill_u32", "load testdev:1 fill_u32",
        "load testdev:3 fill_u32"]
    # Launching again loads and compiles nothing.
    for i in (3, 2, 1, 0):
        fill_u32[(3,)](bufs[i], 20 + i, 300, BLOCK=BLOCK)
        assert (bufs[i].to_numpy() == 20 + i).all()
    assert len(log_lines(log)) == 6


def test_concurrent_launches_one_stream_per_device(four):
    rt, log = four
    n = 4096
    results, errors = {}, []

    def work(dev):
        try:
            stream = dev.stream()
            src = tegula.from_numpy(np.arange(n, dtype=np.float32), device=dev)
            out = tegula.empty(n, np.float32, device=dev)
            for _ in range(5):
                scale_f32[(n // BLOCK,)](out, src, float(dev.name[-1]) + 1.0, n,
                                         BLOCK=BLOCK, stream=stream)
            stream.synchronize()
            results[dev.name] = out.to_numpy()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(d,)) for d in rt.devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(4):
        np.testing.assert_array_equal(results["testdev:%d" % i],
                                      np.arange(n, dtype=np.float32) * (i + 1))
    loads = sorted(line for line in log_lines(log) if line.startswith("load"))
    assert loads == ["load testdev:%d scale_f32" % i for i in range(4)]
    assert sum(line.startswith("compile") for line in log_lines(log)) == 2


def test_buffers_on_different_devices_are_refused_naming_them(four):
    rt, log = four
    a = tegula.empty(64, np.float32, device="testdev:0")
    b = tegula.empty(64, np.float32, device="testdev:2")
    with pytest.raises(ValueError, match=r"scale_f32: argument 'in_ptr' is a buffer on "
                       r"testdev:2, but the launch is on testdev:0 \(the device of "
                       r"argument 'out_ptr', a buffer\): all the device arrays of a "
                       r"launch must be on its device"):
        scale_f32[(1,)](a, b, 2.0, 64, BLOCK=BLOCK)
    c = tegula.empty(64, np.float32, device="testdev:3")
    with pytest.raises(ValueError, match=r"argument 'out_ptr' is a buffer on testdev:2; "
                       r"argument 'in_ptr' is a buffer on testdev:3, but the launch is "
                       r"on testdev:1: "):
        scale_f32[(1,)](b, c, 2.0, 64, BLOCK=BLOCK, device="testdev:1")
    # Refused before anything was compiled or loaded.
    assert log_lines(log) == []


def test_torch_tensors_launch_on_their_device_and_its_current_stream(four, monkeypatch):
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")
    torch = fake_torch(monkeypatch, current=0x5150)
    # As under `with torch.cuda.device(1):` - which must not matter: the
    # tensors say where they are.
    torch.cuda.current_device = lambda: 1
    bufs = {i: tegula.empty(64, np.uint32, device="testdev:%d" % i) for i in (0, 2, 3)}
    tensors = {i: torch.Tensor(b.device_address, "uint32", FakeDevice("cuda", i), numel=64)
               for i, b in bufs.items()}
    for i in (2, 3, 0, 2):
        del torch.current_stream_calls[:]
        ck = fill_u32[(1,)](tensors[i], 7 + i, 64, BLOCK=BLOCK)
        assert ck.device.name == "testdev:%d" % i
        assert torch.current_stream_calls == [i]  # that device's current stream
        ck.device._native_stream(0x5150).synchronize()
        assert (bufs[i].to_numpy() == 7 + i).all()

    out = torch.Tensor(bufs[0].device_address, "float32", FakeDevice("cuda", 0), numel=64)
    src = torch.Tensor(bufs[3].device_address, "float32", FakeDevice("cuda", 3), numel=64)
    with pytest.raises(ValueError, match=r"scale_f32: argument 'in_ptr' is a torch CUDA "
                       r"tensor \(cuda:3\), which is testdev:3, but the launch is on "
                       r"testdev:0 \(the device of argument 'out_ptr', a torch CUDA "
                       r"tensor \(cuda:0\)\): all the device arrays"):
        scale_f32[(1,)](out, src, 2.0, 64, BLOCK=BLOCK)
    # The same through the generated launcher's fast path: a call whose key
    # it has seen (both on cuda:0), then one that mixes devices.
    same = torch.Tensor(bufs[0].device_address, "float32", FakeDevice("cuda", 0), numel=64)
    for _ in range(2):
        scale_f32[(1,)](out, same, 2.0, 64, BLOCK=BLOCK)
    with pytest.raises(ValueError, match=r"argument 'in_ptr' is a torch CUDA tensor "
                       r"\(cuda:3\), which is testdev:3"):
        scale_f32[(1,)](out, src, 2.0, 64, BLOCK=BLOCK)


def test_testdev_count_zero_means_no_device(monkeypatch):
    monkeypatch.setenv("TEGULA_TESTDEV_COUNT", "0")
    rt = tegula.Runtime(visible_backends="testdev")
    try:
        assert rt.devices == []
        [info] = [p for p in rt.plugins if p["name"] == "testdev"]
        assert info["device_status"] == "no device (TEGULA_TESTDEV_COUNT=0)"
    finally:
        rt.close()
