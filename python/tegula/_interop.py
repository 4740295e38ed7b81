"""Arrays and streams of other frameworks: PyTorch tensors, objects with
``__cuda_array_interface__`` (CuPy, Numba, ...) or only ``__dlpack__`` (JAX,
...), native stream handles.

A device array is passed to the kernel as its device address, with no copy;
only a device of the backend that owns that memory can use it (``nvidia``
for CUDA memory). Nothing here imports torch: a tensor can only exist when
torch is already loaded, so ``sys.modules`` is where it is looked up.
"""

import ctypes
import operator
import sys

from ._jit import dtype_name

#: The backend whose devices use CUDA memory (``__cuda_array_interface__``
#: objects, torch CUDA tensors) and streams; a ROCm build of torch gives
#: ``ROCM_BACKEND``. Tests point these at the fake ``testdev`` backend.
CUDA_BACKEND = "nvidia"
ROCM_BACKEND = "amd"

# DLPack device types (dlpack.h) whose memory is a CUDA/ROCm device's.
_DLPACK_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged
_DLPACK_ROCM = (10,)    # kDLROCM


def _torch():
    return sys.modules.get("torch")


def is_torch_tensor(value):
    """Whether |value| is a torch.Tensor (False without importing torch when
    torch is not loaded: then it cannot be one)."""
    torch = _torch()
    if torch is None:
        return False
    tensor = getattr(torch, "Tensor", None)
    return isinstance(tensor, type) and isinstance(value, tensor)


def _torch_gpu_backend():
    torch = _torch()
    return ROCM_BACKEND if getattr(getattr(torch, "version", None), "hip", None) \
        else CUDA_BACKEND


class DeviceArray:
    """An array in device memory: ``address`` (what the kernel gets),
    ``dtype`` (a signature dtype name), ``backend`` and ``index`` (the device
    ``<backend>:<index>`` that owns it; index None when the object does not
    say), ``stream`` (the CUDA Array Interface v3 stream to order work in,
    or None), ``kind`` ("torch" or "cai") and ``what`` (for messages)."""

    __slots__ = ("obj", "address", "dtype", "backend", "index", "stream", "kind", "what")

    def __init__(self, obj, address, dtype, backend, index, stream, kind, what):
        self.obj = obj
        self.address = address
        self.dtype = dtype
        self.backend = backend
        self.index = index
        self.stream = stream
        self.kind = kind
        self.what = what

    @property
    def device_name(self):
        """``<backend>:<index>``, or None when the index is unknown."""
        return None if self.index is None else "%s:%d" % (self.backend, self.index)


def _device_index(value):
    """The device ordinal of a ``__cuda_array_interface__`` object, from
    ``__dlpack_device__()`` or ``.device.id`` (CuPy); None when unknown."""
    dl = getattr(value, "__dlpack_device__", None)
    if callable(dl):
        try:
            kind, index = dl()
            if int(kind) in _DLPACK_CUDA + _DLPACK_ROCM:
                return int(index)
        except Exception:
            pass
    dev = getattr(value, "device", None)
    for attr in ("id", "index"):
        v = getattr(dev, attr, None)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def device_array(value):
    """A DeviceArray for a torch CUDA tensor or a ``__cuda_array_interface__``
    object; None for anything else (host arrays, scalars). TypeError for a
    torch tensor on a device Tegula cannot use, a dtype Triton does not have
    or a malformed interface."""
    if is_torch_tensor(value):
        dev = value.device
        if dev.type == "cpu":
            return None  # a host array
        if not value.is_cuda:
            raise TypeError("a torch tensor on %s cannot be passed (CPU and CUDA tensors "
                            "can)" % (dev,))
        index = dev.index if dev.index is not None else 0
        return DeviceArray(value, int(value.data_ptr()), dtype_name(value.dtype),
                           _torch_gpu_backend(), index, None, "torch",
                           "a torch CUDA tensor (%s:%d)" % (dev.type, index))
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is None:
        return _dlpack_device_array(value)
    if not isinstance(cai, dict) or "typestr" not in cai:
        raise TypeError("%s has a __cuda_array_interface__ without 'typestr'"
                        % type(value).__name__)
    data = cai.get("data")
    address = int(data[0] or 0) if data is not None else 0
    dt = getattr(value, "dtype", None)  # bf16/fp8 have no typestr of their own
    try:
        dtype = dtype_name(dt if dt is not None else cai["typestr"])
    except TypeError:
        if dt is None:
            raise
        dtype = dtype_name(cai["typestr"])
    stream = cai.get("stream")
    if stream is not None:
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise TypeError("%s: __cuda_array_interface__['stream'] must be an int or "
                            "None, not %r" % (type(value).__name__, stream))
    index = _device_index(value)
    return DeviceArray(value, address, dtype, CUDA_BACKEND, index, stream, "cai",
                       "a __cuda_array_interface__ object (%s%s)" % (
                           type(value).__name__,
                           "" if index is None else " on CUDA device %d" % index))


# -- DLPack ---------------------------------------------------------------------

_DLPACK_CPU = (1, 3)  # kDLCPU, kDLCUDAHost: memory the process can read
#: DLPack dtype (code, bits) -> ``tl`` dtype name: kDLInt 0, kDLUInt 1,
#: kDLFloat 2, kDLBfloat 4, kDLBool 6.
_DLPACK_DTYPES = {
    (0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
    (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
    (2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16",
    (6, 8): "int1",
}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    """DLPack's DLTensor (dlpack.h), the first member of DLManagedTensor."""
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def is_dlpack_only(value):
    """Whether |value| is an array known only through ``__dlpack__`` (no
    ``__array_interface__``, ``__cuda_array_interface__``, not a torch
    tensor, a tegula.Buffer: those are read their own way)."""
    return callable(getattr(type(value), "__dlpack__", None)) and \
        not getattr(type(value), "_tegula_buffer", False) and \
        callable(getattr(value, "__dlpack_device__", None)) and \
        getattr(value, "__array_interface__", None) is None and \
        not hasattr(value, "__cuda_array_interface__") and not is_torch_tensor(value)


def dlpack_tensor(value, stream=None):
    """(DLTensor copy, the capsule, (device type, id)) of a ``__dlpack__``
    object; TypeError when it is malformed or of a dtype Triton lacks. The
    capsule owns the tensor: keep it while the data is used."""
    kind, index = value.__dlpack_device__()
    kind, index = int(kind), int(index)
    try:
        capsule = value.__dlpack__() if stream is None else value.__dlpack__(stream=stream)
    except TypeError:
        capsule = value.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    valid = ctypes.pythonapi.PyCapsule_IsValid
    valid.restype = ctypes.c_int
    valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if not valid(capsule, b"dltensor"):
        raise TypeError("%s.__dlpack__() returned no unused DLPack capsule ('dltensor')"
                        % type(value).__name__)
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    if t.dtype.lanes != 1 or (t.dtype.code, t.dtype.bits) not in _DLPACK_DTYPES:
        raise TypeError("%s has DLPack dtype (code %d, %d bits, %d lanes), which is no "
                        "Triton element type" % (type(value).__name__, t.dtype.code,
                                                 t.dtype.bits, t.dtype.lanes))
    return t, capsule, (kind, index)


def dlpack_dtype(t):
    """The ``tl`` dtype of a DLTensor."""
    from . import language as tl
    name = _DLPACK_DTYPES[(t.dtype.code, t.dtype.bits)]
    return getattr(tl, name)


def host_dlpack(value):
    """A host ``__dlpack__`` object as a writable NumPy view of its memory,
    wrapped (TensorWrapper) as its DLPack dtype; None when it is no such
    object (device memory, or no ``__dlpack__``)."""
    if not is_dlpack_only(value):
        return None
    kind, _ = value.__dlpack_device__()
    if int(kind) not in _DLPACK_CPU:
        return None
    import numpy as np
    from ._jit import TensorWrapper
    t, capsule, _ = dlpack_tensor(value)
    itemsize = t.dtype.bits // 8
    shape = [t.shape[i] for i in range(t.ndim)]
    if t.strides:
        strides = [t.strides[i] * itemsize for i in range(t.ndim)]
    else:  # compact, row-major
        strides, step = [], itemsize
        for n in reversed(shape):
            strides.insert(0, step)
            step *= max(n, 1)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides) if n)
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides) if n) + itemsize
    if any(n == 0 for n in shape):
        lo, hi = 0, 0
    address = (t.data or 0) + t.byte_offset
    memory = (ctypes.c_char * max(hi - lo, 1)).from_address(address + lo)
    memory.capsule = capsule  # the producer's tensor lives as long as the view
    flat = np.frombuffer(memory, dtype=np.dtype("u%d" % itemsize) if itemsize > 1
                         else np.uint8)
    view = np.lib.stride_tricks.as_strided(flat[-lo // itemsize:] if lo else flat,
                                           shape=shape, strides=strides, writeable=True)
    return TensorWrapper(view, dlpack_dtype(t))


def _dlpack_device_array(value):
    """A DeviceArray for a ``__dlpack__`` object in CUDA or ROCm memory, else
    None."""
    if not is_dlpack_only(value):
        return None
    kind, index = value.__dlpack_device__()
    kind = int(kind)
    if kind not in _DLPACK_CUDA + _DLPACK_ROCM:
        if kind not in _DLPACK_CPU:
            raise TypeError("%s is in DLPack device memory of type %d, which Tegula "
                            "cannot use (CPU, CUDA and ROCm memory can be passed)"
                            % (type(value).__name__, kind))
        return None
    # Stream 1: the legacy default stream, which the producer orders its
    # work before (DLPack's protocol for CUDA consumers).
    t, capsule, (kind, index) = dlpack_tensor(value, stream=1 if kind in _DLPACK_CUDA
                                                else None)
    backend = CUDA_BACKEND if kind in _DLPACK_CUDA else ROCM_BACKEND
    arr = DeviceArray(capsule, (t.data or 0) + t.byte_offset,
                      dtype_name(dlpack_dtype(t)), backend, index, None, "dlpack",
                      "a __dlpack__ object (%s on %s device %d)" % (
                          type(value).__name__, "CUDA" if backend == CUDA_BACKEND
                          else "ROCm", index))
    return arr


def torch_host_info(value):
    """(address, nbytes, contiguous, writable) of a CPU torch tensor, or None."""
    if not is_torch_tensor(value) or value.device.type != "cpu":
        return None
    return (int(value.data_ptr()), int(value.numel()) * int(value.element_size()),
            bool(value.is_contiguous()), True)


# -- Streams -----------------------------------------------------------------


class NativeStream:
    """A native stream handle given as ``stream=``: ``handle`` (an int, e.g.
    a CUstream), ``backend`` and ``index`` of its device when known."""

    __slots__ = ("handle", "backend", "index", "what")

    def __init__(self, handle, backend=None, index=None, what="native stream"):
        if not 0 <= handle < 2 ** 64:
            raise ValueError("a native stream handle must fit in 64 bits unsigned, not %d"
                             % handle)
        self.handle = handle
        self.backend = backend
        self.index = index
        self.what = what

    @property
    def device_name(self):
        if self.backend is None or self.index is None:
            return None
        return "%s:%d" % (self.backend, self.index)


def _index_of(stream):
    """The device index of a torch stream (``device_index``, ``device.index``)."""
    v = getattr(stream, "device_index", None)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    dev = getattr(stream, "device", None)
    v = getattr(dev, "index", None)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def parse_stream(stream):
    """``stream=`` as None, a tegula.Stream or a NativeStream: an int is a
    native handle; an object with an int ``cuda_stream`` (torch.cuda.Stream,
    torch.cuda.ExternalStream) or a ``__cuda_stream__()`` method (the CUDA
    stream protocol: returns (version, handle)) is its handle."""
    from . import Stream
    if stream is None or isinstance(stream, Stream):
        return stream
    if isinstance(stream, bool):
        raise TypeError("stream must not be a bool")
    try:
        handle = operator.index(stream)  # int, NumPy integers
    except TypeError:
        handle = None
    if handle is not None:
        return NativeStream(handle, what="native stream %#x" % handle)
    handle = getattr(stream, "cuda_stream", None)
    if isinstance(handle, int) and not isinstance(handle, bool):
        backend = _torch_gpu_backend() if _torch() is not None else CUDA_BACKEND
        return NativeStream(handle, backend, _index_of(stream),
                            "%s %#x" % (type(stream).__name__, handle))
    proto = getattr(stream, "__cuda_stream__", None)
    if callable(proto):
        value = proto()
        try:
            handle = operator.index(value[1])
        except (TypeError, IndexError):
            raise TypeError("%s.__cuda_stream__() must return (version, handle), not %r"
                            % (type(stream).__name__, value)) from None
        return NativeStream(handle, CUDA_BACKEND, None,
                            "%s %#x" % (type(stream).__name__, handle))
    raise TypeError("stream must be a tegula.Stream, a native stream handle (an int, "
                    "e.g. a CUstream), a torch.cuda.Stream (anything with an int "
                    ".cuda_stream or a __cuda_stream__() method) or None, not %r"
                    % type(stream).__name__)


def torch_current_stream(index):
    """PyTorch's current stream on CUDA device |index|, as an int handle:
    ``torch.cuda.current_stream(index).cuda_stream``, read (as Triton does)
    through ``torch._C._cuda_getCurrentRawStream`` where torch has it,
    without making a Stream object."""
    torch = _torch()
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return int(raw(index))
    return int(torch.cuda.current_stream(index).cuda_stream)


# -- DLPack export: tegula.Buffer.__dlpack__ ------------------------------------

class _DLManagedTensor(ctypes.Structure):
    """DLPack's (unversioned) DLManagedTensor."""
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


#: What each exported tensor keeps alive until its deleter runs:
#: id -> (managed tensor, shape, strides, the Buffer).
_exported = {}
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
#: DLPack device types of the backends whose memory can be exported.
_DLPACK_EXPORT = {"host": 1, "nvidia": 2, "amd": 10}
_NUMPY_TO_DLPACK = {v: k for k, v in _DLPACK_DTYPES.items()}


@_DELETER
def _dlpack_deleter(managed):
    ctx = _DLManagedTensor.from_address(managed).manager_ctx
    _exported.pop(ctx, None)


@_CAPSULE_DESTRUCTOR
def _dlpack_capsule_destructor(capsule):
    # Called with the capsule's refcount at 0: only C calls on the raw
    # pointer. A consumer renames the capsule "used_dltensor" and owns the
    # tensor; an unconsumed one is deleted here.
    api = ctypes.pythonapi
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    if api.PyCapsule_IsValid(capsule, b"dltensor"):
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _dlpack_deleter(api.PyCapsule_GetPointer(capsule, b"dltensor"))


def dlpack_device(buffer):
    """``__dlpack_device__()`` of a tegula.Buffer: (device type, index)."""
    kind = _DLPACK_EXPORT.get(buffer.device.backend)
    if kind is None:
        raise BufferError("memory of a %s device has no DLPack device type Tegula exports "
                          "(host, nvidia and amd memory can be)" % buffer.device.backend)
    index = buffer.device.name.rsplit(":", 1)[-1]
    return kind, int(index) if index.isdigit() else 0


def export_dlpack(buffer, dl_device=None, copy=None):
    """A DLPack capsule ("dltensor") of a tegula.Buffer's memory with its
    dtype and shape (``tegula.empty``), else its bytes as uint8. Work on the
    Buffer must be complete (Tegula streams synchronized) before the
    consumer uses it."""
    import numpy as np
    if copy:
        raise BufferError("tegula.Buffer.__dlpack__ cannot copy (copy=True)")
    kind, index = dlpack_device(buffer)
    if dl_device is not None and tuple(int(v) for v in dl_device) != (kind, index):
        raise BufferError("the Buffer is on DLPack device %s, not %s" % ((kind, index),
                                                                         tuple(dl_device)))
    dtype = np.dtype(buffer.dtype) if buffer.dtype is not None else np.dtype(np.uint8)
    name = dtype_name(dtype)
    from . import language as tl
    key = None
    for d in tl.DTYPES:
        if d.short_name == name:
            key = _NUMPY_TO_DLPACK.get(d.name)
    if key is None:
        raise BufferError("a Buffer of %s has no DLPack dtype" % dtype)
    shape = buffer.shape if buffer.shape is not None else (buffer.nbytes // dtype.itemsize,)
    shape_arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    managed = _DLManagedTensor()
    t = managed.dl_tensor
    t.data = buffer.device_address
    t.device = _DLDevice(kind, index)
    t.ndim = len(shape)
    t.dtype = _DLDataType(key[0], key[1], 1)
    t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.strides = None  # compact, row-major
    t.byte_offset = 0
    ctx = id(managed)
    managed.manager_ctx = ctx
    managed.deleter = ctypes.cast(_dlpack_deleter, ctypes.c_void_p).value
    _exported[ctx] = (managed, shape_arr, buffer)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(managed), b"dltensor",
               ctypes.cast(_dlpack_capsule_destructor, ctypes.c_void_p).value)
