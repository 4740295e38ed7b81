"""Device arrays and native streams without a GPU or torch: objects with
``__cuda_array_interface__``, a stand-in ``torch`` module, native stream
handles, on the fake ``testdev`` backend.

testdev's device addresses are host addresses of its own allocations and
its launches check every pointer against them, so a fake CUDA array that
points into a testdev buffer is a real device array there: the kernel writes
through exactly the pointer the launcher passed. The ``cuda_is_testdev``
fixture makes testdev the backend that owns "CUDA" memory
(``tegula._interop.CUDA_BACKEND``); without it, CUDA arrays need ``nvidia``.
testdev also wraps native streams (any handle but ~0, which it refuses as
"another device's")."""

import ctypes
import sys
import types

import numpy as np
import pytest

import tegula
from tegula import _interop, _launch

from kernels.testdev_kernels import fill_u32, scale_f32, typed_scale

BLOCK = 128


def cdiv(a, b):
    return (a + b - 1) // b


class FakeCuda:
    """A device array as CuPy or Numba describe one (CUDA Array Interface v3)."""

    def __init__(self, address, typestr="<u4", shape=(4,), stream=None, dlpack=None,
                 version=3, readonly=False):
        self.__cuda_array_interface__ = {
            "data": (address, readonly), "typestr": typestr, "shape": tuple(shape),
            "strides": None, "version": version}
        if version >= 3:
            self.__cuda_array_interface__["stream"] = stream
        if dlpack is not None:
            self.__dlpack_device__ = lambda: dlpack


class NoImportOf(object):
    """A meta-path finder that records attempts to import |name|."""

    def __init__(self, name):
        self.name = name
        self.attempts = 0

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name or fullname.startswith(self.name + "."):
            self.attempts += 1
        return None


@pytest.fixture
def cuda_is_testdev(monkeypatch):
    monkeypatch.setattr(_interop, "CUDA_BACKEND", "testdev")


@pytest.fixture
def no_torch_import(monkeypatch):
    """Fails the test when anything tries to import torch."""
    finder = NoImportOf("torch")
    monkeypatch.setattr(sys, "meta_path", [finder] + sys.meta_path)
    had = "torch" in sys.modules
    yield finder
    assert finder.attempts == 0, "torch was imported"
    assert had or "torch" not in sys.modules


# -- __cuda_array_interface__ objects ----------------------------------------------


def test_pointer_passed_straight_no_copy(cuda_is_testdev, no_torch_import, monkeypatch):
    n = 300
    buf = tegula.empty(n + 4, np.uint32)
    buf.memset(0)

    class NoBuffers:  # the copy path would allocate one
        def __init__(self, *args, **kwargs):
            raise AssertionError("a device buffer was allocated for a device array")
    monkeypatch.setattr(_launch, "Buffer", NoBuffers)
    # One element past the buffer's start: the kernel gets that address (no :16).
    arr = FakeCuda(buf.device_address + 4, "<u4", (n,))
    assert fill_u32.specialize(arr, 7, n, BLOCK) == "*u32, i32, i32, 128"
    ck = fill_u32[(cdiv(n, BLOCK),)](arr, 7, n, BLOCK=BLOCK)
    assert ck.device.name == "testdev:0"  # the array's device (index unknown: 0)
    got = buf.to_numpy()
    assert got[0] == 0 and (got[1:n + 1] == 7).all() and (got[n + 1:] == 0).all()


def test_dtype_from_typestr_and_annotation(cuda_is_testdev):
    buf = tegula.empty(64, np.float32)
    good = FakeCuda(buf.device_address, "<f4", (64,))
    assert typed_scale.specialize(good, good, 2.0, 64) == "*fp32:16, *fp32:16, fp32, i32:16, 128"
    bad = FakeCuda(buf.device_address, "<f8", (32,))
    with pytest.raises(TypeError, match=r"typed_scale: argument 'out_ptr' is annotated \*fp32 "
                                        r"but the array's dtype is fp64 \(a "
                                        r"__cuda_array_interface__ object \(FakeCuda\)\)"):
        typed_scale[(1,)](bad, good, 2.0, 32)
    with pytest.raises(TypeError, match="argument 'in_ptr'.*no Triton element type"):
        scale_f32[(1,)](good, FakeCuda(buf.device_address, "<c8"), 2.0, 4, BLOCK=BLOCK)
    with pytest.raises(TypeError, match="argument 'out_ptr'.*without 'typestr'"):
        class Broken:
            __cuda_array_interface__ = {"data": (0, False)}
        fill_u32[(1,)](Broken(), 1, 4, BLOCK=BLOCK)


def test_cuda_array_needs_a_device_of_its_backend():
    """Without cuda_is_testdev, CUDA memory belongs to `nvidia`, which this
    runtime does not have: a launch on testdev is refused before compiling."""
    arr = FakeCuda(0x7F0000001000, "<u4", (8,))
    count = fill_u32.compile_count
    with pytest.raises(ValueError, match=r"fill_u32: argument 'out_ptr' is a "
                       r"__cuda_array_interface__ object \(FakeCuda\), device memory that "
                       r"only a device of the nvidia plugin can use, but the launch is on "
                       r"testdev:0; launch on nvidia:0 \(device=\) or pass a host array"):
        fill_u32[(1,)](arr, 1, 8, BLOCK=BLOCK, device="testdev:0")
    # No device given: nvidia:0 is looked up, and there is none.
    with pytest.raises(tegula.TegulaError, match="nvidia:0"):
        fill_u32[(1,)](arr, 1, 8, BLOCK=BLOCK)
    assert fill_u32.compile_count == count


def test_device_index_from_dlpack(cuda_is_testdev):
    buf1 = tegula.empty(8, np.uint32, device="testdev:1")
    arr = FakeCuda(buf1.device_address, "<u4", (8,), dlpack=(2, 1))  # kDLCUDA, device 1
    ck = fill_u32[(1,)](arr, 5, 8, BLOCK=BLOCK)
    assert ck.device.name == "testdev:1"
    assert (buf1.to_numpy() == 5).all()
    with pytest.raises(ValueError, match=r"argument 'out_ptr' is a __cuda_array_interface__ "
                       r"object \(FakeCuda on CUDA device 1\), which is testdev:1, but the "
                       r"launch is on testdev:0"):
        fill_u32[(1,)](arr, 5, 8, BLOCK=BLOCK, device="testdev:0")


class FakeDLPack:
    """An array known only through DLPack (as JAX arrays are): a DLTensor
    over |address| made here, on DLPack device (|kind|, |index|)."""

    def __init__(self, address, code, bits, n, kind=2, index=0, offset=0):
        self.tensor = _interop._DLTensor()
        self.tensor.data = address
        self.tensor.device = _interop._DLDevice(kind, index)
        self.tensor.ndim = 1
        self.tensor.dtype = _interop._DLDataType(code, bits, 1)
        self.shape = (ctypes.c_int64 * 1)(n)
        self.tensor.shape = self.shape
        self.tensor.byte_offset = offset
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.tensor), b"dltensor", None)

    def __dlpack_device__(self):
        return (self.tensor.device.device_type, self.tensor.device.device_id)


def test_dlpack_device_array(cuda_is_testdev, no_torch_import):
    buf = tegula.empty(68, np.uint32, device="testdev:1")
    buf.memset(0)
    arr = FakeDLPack(buf.device_address, 1, 32, 64, kind=2, index=1, offset=16)
    ck = fill_u32[(1,)](arr, 9, 64, BLOCK=BLOCK)
    assert ck.device.name == "testdev:1" and ck.signature == "*u32:16, i32, i32:16, 128"
    got = buf.to_numpy()
    assert (got[:4] == 0).all() and (got[4:] == 9).all()  # byte_offset honoured
    assert arr.streams == [1]  # the legacy default stream, as DLPack asks of CUDA consumers
    with pytest.raises(ValueError, match=r"argument 'out_ptr' is a __dlpack__ object "
                       r"\(FakeDLPack on CUDA device 1\), which is testdev:1, but the launch "
                       r"is on testdev:0"):
        fill_u32[(1,)](arr, 5, 64, BLOCK=BLOCK, device="testdev:0")
    with pytest.raises(TypeError, match=r"argument 'out_ptr': FakeDLPack has DLPack dtype "
                       r"\(code 5, 64 bits, 1 lanes\), which is no Triton element type"):
        fill_u32[(1,)](FakeDLPack(buf.device_address, 5, 64, 8, index=1), 5, 8, BLOCK=BLOCK)
    with pytest.raises(TypeError, match=r"argument 'out_ptr': FakeDLPack is in DLPack device "
                       r"memory of type 8, which Tegula cannot use"):
        fill_u32[(1,)](FakeDLPack(buf.device_address, 1, 32, 8, kind=8), 5, 8, BLOCK=BLOCK)


def test_cuda_array_with_host_arrays_and_buffers(cuda_is_testdev):
    n = 200
    src = tegula.from_numpy(np.arange(n, dtype=np.float32))
    out = np.full(n, np.nan, np.float32)
    # A host array (copied in and out) and a device array in one launch.
    scale_f32[(cdiv(n, BLOCK),)](out, FakeCuda(src.device_address, "<f4", (n,)), 3.0, n,
                                 BLOCK=BLOCK)
    np.testing.assert_array_equal(out, 3 * np.arange(n, dtype=np.float32))
    other = tegula.empty(n, np.float32, device="testdev:1")
    with pytest.raises(ValueError, match="argument 'out_ptr' is a buffer on testdev:1, but "
                                         "the launch is on testdev:0"):
        scale_f32[(1,)](other, FakeCuda(src.device_address, "<f4", (n,)), 3.0, n,
                        BLOCK=BLOCK, device="testdev:0")
    # The device array says no device: it goes with the buffer's.
    ck = scale_f32[(cdiv(n, BLOCK),)](other, FakeCuda(src.device_address, "<f4", (n,)), 3.0,
                                      n, BLOCK=BLOCK)
    assert ck.device.name == "testdev:1"


def test_interface_v3_stream_is_used(cuda_is_testdev):
    buf = tegula.empty(16, np.uint32)
    dev = tegula.device("testdev:0")
    arr = FakeCuda(buf.device_address, "<u4", (16,), stream=0x1234)
    fill_u32[(1,)](arr, 3, 16, BLOCK=BLOCK)
    s = dev._native_stream(0x1234)
    assert s.alive and s.native_handle == 0x1234 and s._keep == []
    fill_u32[(1,)](arr, 4, 16, BLOCK=BLOCK)
    assert dev._native_stream(0x1234) is s  # one wrapper per device and handle
    s.synchronize()
    assert (buf.to_numpy() == 4).all()
    # v2 (no 'stream'), or stream None: the NULL stream, nothing wrapped.
    fill_u32[(1,)](FakeCuda(buf.device_address, "<u4", (16,), version=2), 5, 16, BLOCK=BLOCK)
    assert (buf.to_numpy() == 5).all()
    with pytest.raises(TypeError, match=r"\['stream'\] must be an int"):
        fill_u32[(1,)](FakeCuda(buf.device_address, stream="s"), 5, 16, BLOCK=BLOCK)


def test_native_stream_of_another_device_is_refused(cuda_is_testdev):
    buf = tegula.empty(16, np.uint32)
    arr = FakeCuda(buf.device_address, "<u4", (16,), stream=2 ** 64 - 1)
    with pytest.raises(tegula.TegulaError, match=r"fill_u32: launching on the native stream "
                       r"0xffffffffffffffff of testdev:0: testdev: the native stream "
                       r"0xffffffffffffffff belongs to another device") as e:
        fill_u32[(1,)](arr, 1, 16, BLOCK=BLOCK)
    assert e.value.code_name == "TG_ERROR_INVALID_ARGUMENT"


# -- A stand-in torch ---------------------------------------------------------------


class FakeDtype:
    def __init__(self, name):
        self._name = name

    def __str__(self):
        return "torch." + self._name


class FakeDevice:
    def __init__(self, type_, index=None):
        self.type = type_
        self.index = index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


def fake_torch(monkeypatch, current=0x5150, hip=None):
    torch = types.ModuleType("torch")

    class Tensor:
        def __init__(self, address, dtype, device, numel=4, element_size=4,
                     contiguous=True):
            self._address = address
            self.dtype = FakeDtype(dtype)
            self.device = device
            self._numel = numel
            self._element_size = element_size
            self._contiguous = contiguous

        is_cuda = property(lambda self: self.device.type == "cuda")
        is_cpu = property(lambda self: self.device.type == "cpu")

        def get_device(self):
            return self.device.index if self.device.type != "cpu" else -1

        def data_ptr(self):
            return self._address

        def numel(self):
            return self._numel

        def element_size(self):
            return self._element_size

        def is_contiguous(self):
            return self._contiguous

        @property
        def __cuda_array_interface__(self):
            # As torch does for a tensor that requires grad: the launcher
            # must not ask.
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that "
                               "requires grad")

    class Stream:
        def __init__(self, handle, index):
            self.cuda_stream = handle
            self.device_index = index

    calls = []

    def current_stream(device=None):
        calls.append(device)
        return Stream(current, device)

    torch.Tensor = Tensor
    torch.version = types.SimpleNamespace(hip=hip, cuda="13.0")
    torch.cuda = types.SimpleNamespace(current_stream=current_stream, Stream=Stream)
    torch.current_stream_calls = calls
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def test_torch_cuda_tensor_on_the_current_stream(cuda_is_testdev, monkeypatch):
    torch = fake_torch(monkeypatch, current=0x5150)
    buf = tegula.empty(64, np.uint32, device="testdev:1")
    t = torch.Tensor(buf.device_address, "uint32", FakeDevice("cuda", 1), numel=64)
    assert fill_u32.specialize(t, 9, 64, BLOCK) == "*u32:16, i32, i32:16, 128"
    ck = fill_u32[(1,)](t, 9, 64, BLOCK=BLOCK)
    assert ck.device.name == "testdev:1"           # nvidia:<tensor.device.index>
    assert torch.current_stream_calls == [1]       # PyTorch's current stream there
    s = ck.device._native_stream(0x5150)
    assert s.native_handle == 0x5150 and s._keep == []
    s.synchronize()
    assert (buf.to_numpy() == 9).all()
    with pytest.raises(ValueError, match=r"argument 'out_ptr' is a torch CUDA tensor "
                       r"\(cuda:1\), which is testdev:1, but the launch is on testdev:0"):
        fill_u32[(1,)](t, 9, 64, BLOCK=BLOCK, device="testdev:0")
    # An explicit stream wins over the current one.
    fill_u32[(1,)](t, 10, 64, BLOCK=BLOCK, stream=torch.cuda.Stream(0x77, 1))
    assert torch.current_stream_calls == [1]
    assert (buf.to_numpy() == 10).all()


def test_torch_dtypes_and_annotations(cuda_is_testdev, monkeypatch):
    torch = fake_torch(monkeypatch)
    buf = tegula.empty(64, np.float32)
    half = torch.Tensor(buf.device_address, "float16", FakeDevice("cuda", 0))
    with pytest.raises(TypeError, match=r"annotated \*fp32 but the array's dtype is fp16 "
                                        r"\(a torch CUDA tensor \(cuda:0\)\)"):
        typed_scale[(1,)](half, half, 1.0, 4)
    cplx = torch.Tensor(buf.device_address, "complex64", FakeDevice("cuda", 0))
    with pytest.raises(TypeError, match="argument 'out_ptr'.*no Triton element type for "
                                        "dtype complex64"):
        fill_u32[(1,)](cplx, 1, 4, BLOCK=BLOCK)
    mps = torch.Tensor(buf.device_address, "float32", FakeDevice("mps", 0))
    with pytest.raises(TypeError, match="a torch tensor on mps:0 cannot be passed"):
        fill_u32[(1,)](mps, 1, 4, BLOCK=BLOCK)


def test_torch_cuda_tensor_on_a_host_device(monkeypatch):
    """CUDA memory (here owned by `nvidia`) on another device: a clear error."""
    torch = fake_torch(monkeypatch)
    t = torch.Tensor(0x7F0000001000, "float32", FakeDevice("cuda", 0))
    with pytest.raises(ValueError, match=r"argument 'out_ptr' is a torch CUDA tensor "
                       r"\(cuda:0\), device memory that only a device of the nvidia plugin "
                       r"can use, but the launch is on testdev:0"):
        scale_f32[(1,)](t, t, 1.0, 4, BLOCK=BLOCK, device="testdev:0")


def test_rocm_torch_tensor_belongs_to_amd(monkeypatch):
    torch = fake_torch(monkeypatch, hip="6.2")
    t = torch.Tensor(0x7F0000001000, "float32", FakeDevice("cuda", 0))
    with pytest.raises(ValueError, match="only a device of the amd plugin"):
        scale_f32[(1,)](t, t, 1.0, 4, BLOCK=BLOCK, device="testdev:0")


def test_torch_cpu_tensor_is_a_host_array(monkeypatch):
    torch = fake_torch(monkeypatch)
    host = np.zeros(100, np.uint32)
    t = torch.Tensor(host.ctypes.data, "uint32", FakeDevice("cpu"), numel=100)
    fill_u32[(1,)](t, 6, 100, BLOCK=BLOCK)  # testdev: copied in and out
    assert (host == 6).all()
    strided = torch.Tensor(host.ctypes.data, "uint32", FakeDevice("cpu"), numel=100,
                           contiguous=False)
    with pytest.raises(ValueError, match="needs it contiguous"):
        fill_u32[(1,)](strided, 6, 100, BLOCK=BLOCK)


# -- stream= -------------------------------------------------------------------------


def test_parse_stream_forms():
    assert _interop.parse_stream(None) is None
    s = tegula.device("testdev:0").stream()
    assert _interop.parse_stream(s) is s
    ns = _interop.parse_stream(0)
    assert (ns.handle, ns.backend, ns.index, ns.device_name) == (0, None, None, None)
    assert _interop.parse_stream(np.uint64(2 ** 63)).handle == 2 ** 63

    class TorchLike:
        cuda_stream = 0xABC
        device = FakeDevice("cuda", 3)
    ns = _interop.parse_stream(TorchLike())
    assert (ns.handle, ns.backend, ns.index) == (0xABC, "nvidia", 3)
    assert ns.device_name == "nvidia:3" and "TorchLike 0xabc" == ns.what

    class Protocol:
        def __cuda_stream__(self):
            return (0, 0x55)
    ns = _interop.parse_stream(Protocol())
    assert (ns.handle, ns.index) == (0x55, None)

    with pytest.raises(TypeError, match="stream must not be a bool"):
        _interop.parse_stream(True)
    with pytest.raises(ValueError, match="fit in 64 bits"):
        _interop.parse_stream(-1)
    with pytest.raises(ValueError, match="fit in 64 bits"):
        _interop.parse_stream(2 ** 64)
    with pytest.raises(TypeError, match=r"stream must be a tegula.Stream, a native stream "
                                        r"handle \(an int, e.g. a CUstream\), a "
                                        r"torch.cuda.Stream .* not 'str'"):
        _interop.parse_stream("default")

    class BadProtocol:
        def __cuda_stream__(self):
            return "nope"
    with pytest.raises(TypeError, match=r"__cuda_stream__\(\) must return \(version, "
                                        r"handle\)"):
        _interop.parse_stream(BadProtocol())
    s.destroy()


def test_launch_on_an_int_stream_with_host_arrays():
    """Copies on a native stream: done (synchronized) when the call returns,
    nothing left on the wrapper."""
    n = 500
    out = np.zeros(n, np.uint32)
    ck = fill_u32[(cdiv(n, BLOCK),)](out, 8, n, BLOCK=BLOCK, stream=0x42)
    assert (out == 8).all()
    s = ck.device._native_stream(0x42)
    assert s.native_handle == 0x42 and s._keep == []


def test_stream_argument_errors():
    out = np.zeros(8, np.uint32)
    with pytest.raises(TypeError, match="fill_u32: stream must be a tegula.Stream, a native "
                                        "stream handle"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, stream="default")
    with pytest.raises(ValueError, match="fill_u32: a native stream handle must fit"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, stream=-5)

    class TorchLike:
        cuda_stream = 0xABC
        device_index = 1

    with pytest.raises(ValueError, match=r"fill_u32: the stream \(TorchLike 0xabc\) is on "
                                         r"nvidia:1 but the launch is on testdev:0"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, device="testdev:0", stream=TorchLike())


def test_torch_stream_picks_the_device(cuda_is_testdev):
    class TorchLike:
        cuda_stream = 0xABC
        device_index = 1

    out = np.zeros(8, np.uint32)
    ck = fill_u32[(1,)](out, 2, 8, BLOCK=BLOCK, stream=TorchLike())
    assert ck.device.name == "testdev:1" and (out == 2).all()


def test_stream_wrapping_a_native_handle():
    dev = tegula.device("testdev:0")
    s = tegula.Stream(dev, native=0xBEEF)
    assert s.native_handle == 0xBEEF
    assert repr(s) == "<tegula.Stream on testdev:0 wrapping native stream 0xbeef>"
    buf = tegula.empty(8, np.uint32)
    fill_u32[(1,)](buf, 4, 8, BLOCK=BLOCK, stream=s)
    e = s.record_event()
    s.wait_event(e)
    s.synchronize()
    assert (buf.to_numpy() == 4).all()
    s.destroy()
    assert not s.alive
    assert dev.stream().native_handle is None
    with pytest.raises(TypeError, match="native must be an int"):
        dev.stream(native="x")
    with pytest.raises(ValueError, match="64 bits"):
        dev.stream(native=-1)
    with pytest.raises(tegula.TegulaError, match="belongs to another device") as err:
        dev.stream(native=2 ** 64 - 1)
    assert err.value.code_name == "TG_ERROR_INVALID_ARGUMENT"


def test_native_stream_unimplemented_by_a_plugin():
    """A plugin without TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT: the runtime
    refuses (the plugin would create an unordered stream instead)."""
    with tegula.Runtime(visible_backends="all_errors", default_plugin_dir="") as rt:
        if not rt.devices:
            pytest.skip("the all_errors test plugin is not built")
        with pytest.raises(tegula.TegulaError, match="all_errors: the plugin cannot launch "
                           "on a native stream") as e:
            rt.devices[0].stream(native=1)
        assert e.value.code_name == "TG_ERROR_UNIMPLEMENTED"


def test_device_arrays_never_import_torch(cuda_is_testdev, no_torch_import):
    if "torch" in sys.modules:
        pytest.skip("torch is already imported")
    buf = tegula.empty(8, np.uint32)
    fill_u32[(1,)](FakeCuda(buf.device_address, "<u4", (8,)), 1, 8, BLOCK=BLOCK)
    fill_u32[(1,)](np.zeros(8, np.uint32), 1, 8, BLOCK=BLOCK, stream=3)
    assert fill_u32.specialize(FakeCuda(16, "<u4"), 1, 8, BLOCK).startswith("*u32:16")
