"""Tegula from Python: devices, memory, streams and events over the runtime C
API (libtegula_runtime, through ctypes), ``@tegula.jit`` and
``kernel[grid](...)`` over the compiler C API (libtegula_compiler). See
README.md and docs/python.md.
"""

import atexit
import ctypes
import itertools
import os
import threading
import weakref

from . import _runtime as _rt
from ._runtime import TegulaError, RuntimeLibraryNotFound, OutOfMemoryError
from ._compiler import CompilationError, CompilerLibraryNotFound
from ._errors import OutOfResources
from ._jit import jit, JITFunction, specialize_arg, dtype_name  # noqa: F401
from ._jit import MockTensor, TensorWrapper, reinterpret  # noqa: F401
from ._container import Container, load, compile, warmup  # noqa: F401
# Triton's host API (docs/python.md, "Triton programs"); tegula.runtime and
# tegula.testing are imported at the end, once the package is complete.
from ._utils import cdiv, next_power_of_2  # noqa: F401
from ._autotuner import Config, autotune, heuristics  # noqa: F401
from .language import constexpr  # noqa: F401

__all__ = [
    "TegulaError", "RuntimeLibraryNotFound", "OutOfMemoryError", "CompilationError",
    "OutOfResources", "CompiledKernel",
    "CompilerLibraryNotFound", "Runtime", "Device", "Buffer", "Stream", "Event",
    "runtime", "devices", "device", "default_device", "abi_version", "jit",
    "specialize_arg", "dtype_name", "JITFunction", "empty", "from_numpy",
    "import_triton_file", "load", "compile", "warmup", "Container",
    "cdiv", "next_power_of_2", "constexpr", "Config", "autotune", "heuristics", "testing",
    "MockTensor", "TensorWrapper", "reinterpret", "set_allocator",
]

__version__ = "0.1.0"


class _Owned:
    """Something made from a runtime that must be destroyed before it.

    ``_handle`` is None once destroyed; destruction happens at most once
    (``free()``/``destroy()``, the context manager, garbage collection, or the
    runtime closing, whichever comes first).
    """

    _handle = None
    _destroy_fn = None

    def _register(self, runtime, handle):
        self._runtime = runtime
        self._handle = handle
        self._lock = threading.Lock()
        runtime._live.add(self)

    def _take(self):
        lock = getattr(self, "_lock", None)
        if lock is None:
            return None
        with lock:
            h, self._handle = self._handle, None
        return h

    def _release(self):
        h = self._take()
        if h is None:
            return
        # Whoever holds the handle outside Python (tegula.jax's launch
        # records) forgets it before it is destroyed.
        for hook in self.__dict__.get("_release_hooks", ()):
            try:
                hook(h)
            except Exception:
                pass
        try:
            self._runtime._live.discard(self)
        except Exception:
            pass
        if self._runtime._handle is None:
            # The runtime is gone, and with it everything it made (at
            # interpreter exit the garbage collector may finalize the runtime
            # before its objects).
            return
        lib = self._runtime._lib
        # The handle is gone even when an error is returned.
        _rt.check(lib, getattr(lib, self._destroy_fn)(h))

    def _require(self):
        h = self._handle
        if h is None:
            raise ValueError("%s has been freed" % type(self).__name__)
        return h

    @property
    def alive(self):
        return self._handle is not None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._release()
        return False

    def __del__(self):
        try:
            self._release()
        except Exception:
            pass


class Runtime:
    """A tegula_runtime_t: discovered plugins and their devices.

    Arguments override discovery (None: as the environment says, i.e.
    $TEGULA_PLUGIN_PATH and $TEGULA_VISIBLE_BACKENDS).
    """

    #: Numbers runtimes uniquely in the process (an id() may be reused once
    #: a closed runtime is freed): the key of images kept per target.
    _serials = itertools.count()

    def __init__(self, plugin_path=None, visible_backends=None, default_plugin_dir=None):
        self._serial = next(Runtime._serials)
        self._lib = _rt.load_library()
        self._handle = None
        self._live = weakref.WeakSet()
        self._lock = threading.Lock()
        opts = _rt.sized(_rt.tegula_runtime_options)
        if isinstance(plugin_path, (list, tuple)):
            plugin_path = ":".join(str(p) for p in plugin_path)
        if isinstance(visible_backends, (list, tuple)):
            visible_backends = ",".join(visible_backends)
        opts.plugin_path = _rt.encode(None if plugin_path is None else str(plugin_path))
        opts.visible_backends = _rt.encode(visible_backends)
        opts.default_plugin_dir = _rt.encode(
            None if default_plugin_dir is None else str(default_plugin_dir))
        out = ctypes.c_void_p()
        _rt.check(self._lib, self._lib.tegula_runtime_create(ctypes.byref(opts), ctypes.byref(out)))
        self._handle = out.value
        # The environment variables the plugins' compile options read: part
        # of every compiled kernel's cache key (_runtime.option_environment).
        plugins = [p for p in self.plugins if p["loaded"]]
        _rt.add_option_env_names(o["env"] for p in plugins for o in p["options"] if o["env"])
        _rt.option_names.update(o["name"] for p in plugins for o in p["options"])
        # Backends whose plugins declare their compile options (ABI 1.1): they
        # take only those. The others are also told the kernel's name.
        self._declared_options = {p["name"]: bool(p["options"]) for p in plugins}
        # Each backend's plugin version and file: part of the disk cache's key.
        self._plugin_identity = {p["name"]: (p["version"], p["path"]) for p in plugins}
        n = self._lib.tegula_runtime_get_device_count(self._handle)
        self._devices = [Device(self, self._lib.tegula_runtime_get_device(self._handle, i))
                         for i in range(n)]

    def _require(self):
        if self._handle is None:
            raise ValueError("the runtime has been closed")
        return self._handle

    def close(self):
        """Frees every buffer, stream and event still alive, then the runtime."""
        with self._lock:
            h, self._handle = self._handle, None
        if h is None:
            return
        # Events and streams first (a stream waits for its work), buffers last.
        live = list(self._live)
        order = {Event: 0, Stream: 1, Buffer: 2}
        live.sort(key=lambda o: order.get(type(o), 3))
        for obj in live:
            try:
                obj._release()
            except Exception:
                pass
        self._lib.tegula_runtime_destroy(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def devices(self):
        self._require()
        return list(self._devices)

    def find_device(self, name):
        """The device named ``<backend>:<n>``; TegulaError when there is none."""
        out = ctypes.c_void_p()
        try:
            _rt.check(self._lib, self._lib.tegula_runtime_find_device(
                self._require(), _rt.encode(name), ctypes.byref(out)))
        except TegulaError as e:
            # Say why a plugin that could have provided it is missing.
            backend = name.split(":", 1)[0]
            reasons = ["%s: %s" % (p["path"], p.get("skip_message") or p.get("skip_reason"))
                       for p in self.plugins if not p["loaded"]
                       and ("plugin_" + backend) in os.path.basename(p["path"])]
            reasons += ["%s: %s" % (p["name"], p["device_status"])
                        for p in self.plugins if p["loaded"] and p["name"] == backend
                        and p.get("device_status")]
            if not reasons:
                raise
            raise TegulaError("%s (%s)" % (e.message, "; ".join(reasons)), e.code) from None
        for d in self._devices:
            if d._handle == out.value:
                return d
        return Device(self, out.value)

    @property
    def search_dirs(self):
        h = self._require()
        return [_rt.decode(self._lib.tegula_runtime_get_search_dir(h, i))
                for i in range(self._lib.tegula_runtime_get_search_dir_count(h))]

    @property
    def plugins(self):
        """What discovery found: one dict per plugin path looked at."""
        h = self._require()
        out = []
        for i in range(self._lib.tegula_runtime_get_plugin_count(h)):
            info = _rt.sized(_rt.tegula_plugin_info)
            _rt.check(self._lib, self._lib.tegula_runtime_get_plugin_info(h, i, ctypes.byref(info)))
            d = {"path": _rt.decode(info.path), "name": _rt.decode(info.name),
                 "loaded": bool(info.loaded)}
            if info.loaded:
                d.update(version=_rt.decode(info.version), vendor=_rt.decode(info.vendor),
                         abi_version=(info.abi_major, info.abi_minor),
                         targets=[_rt.decode(info.targets[j]) for j in range(info.num_targets)],
                         num_devices=info.num_devices,
                         device_status=_rt.decode(info.device_status),
                         stages=["image"] + [_rt.decode(info.stages[j].name)
                                             for j in range(info.num_stages)],
                         options=[_option_dict(info.options[j])
                                  for j in range(info.num_options)])
            else:
                d.update(skip_message=_rt.decode(info.skip_message),
                         skip_reason=_rt.decode(info.skip_reason))
            out.append(d)
        return out


def _option_dict(o):
    """A declared compile option (tg_compile_option_info) as a dict."""
    d = {"name": _rt.decode(o.name), "type": _rt.OPTION_TYPES.get(o.type, "string"),
         "default": _rt.decode(o.default_value), "env": _rt.decode(o.env) or None,
         "description": _rt.decode(o.description)}
    if o.type == 2:
        d.update(min=o.min, max=o.max)
    elif o.type == 3:
        d["choices"] = _rt.decode(o.choices).split("|")
    return d


_PROPERTY_FIELDS = ("name", "arch", "compute_units", "warp_size", "max_threads_per_block",
                    "matrix_units", "shared_memory_per_block", "global_memory",
                    "clock_khz", "memory_clock_khz")


class Device:
    """One device of one plugin. Lives as long as its runtime.

    ``name`` is the stable ``<backend>:<n>``; ``backend``, ``target``
    (``<backend>:<arch>``); ``arch``, ``marketing_name`` and the plugin's
    properties as attributes, all of them in ``properties`` (a dict).
    """

    def __init__(self, runtime, handle):
        self._runtime = runtime
        self._handle = handle
        lib = runtime._lib
        self.name = _rt.decode(lib.tegula_device_get_name(handle))
        self.backend = _rt.decode(lib.tegula_device_get_backend(handle))
        self.target = _rt.decode(lib.tegula_device_get_target(handle))
        props = _rt.sized(_rt.tg_device_properties)
        # A plugin that fails to report properties does not hide the device:
        # the fields are None and properties_error says why.
        self.properties_error = None
        try:
            _rt.check(lib, lib.tegula_device_get_properties(handle, ctypes.byref(props)))
        except TegulaError as e:
            self.properties_error = e
        self.properties = {}
        for f in _PROPERTY_FIELDS:
            v = getattr(props, f) if self.properties_error is None else None
            self.properties[f] = _rt.decode(v) if isinstance(v, bytes) else v
        if self.properties["arch"] is None and ":" in (self.target or ""):
            self.properties["arch"] = self.target.split(":", 1)[1]
        self.marketing_name = self.properties["name"]
        self.arch = self.properties["arch"]
        for f in _PROPERTY_FIELDS[2:]:
            setattr(self, f, self.properties[f])

    @property
    def runtime(self):
        return self._runtime

    @property
    def index(self):
        """The device's index in its backend (1 for ``nvidia:1``), as
        ``torch.device.index`` and Triton count devices: Triton programs
        pass ``DEVICE.index`` to ``driver.active.utils.get_device_properties``,
        and DEVICE is this Device where torch is not installed."""
        return int(self.name.rsplit(":", 1)[1])

    def _require(self):
        self._runtime._require()
        return self._handle

    def alloc(self, nbytes, dtype=None, shape=None):
        """A new Buffer of |nbytes| bytes (contents undefined)."""
        return Buffer(self, nbytes, dtype=dtype, shape=shape)

    @property
    def host_memory(self):
        """Whether kernels on this device take host arrays in place (its
        memory is the process's memory: the ``host`` plugin). Elsewhere
        ``kernel[grid](...)`` copies arrays in and out."""
        return self.backend == "host"

    def stream(self, native=None):
        """A new Stream; with |native| (an int: a CUstream on ``nvidia``), a
        Stream that wraps that existing native stream (see Stream)."""
        return Stream(self, native=native)

    def _native_stream(self, handle):
        """The Stream wrapping native stream |handle|, made once per device and
        handle (launches on PyTorch's current stream reuse it)."""
        cache = self.__dict__.setdefault("_native_streams", {})
        s = cache.get(handle)
        if s is None or not s.alive:
            s = cache[handle] = Stream(self, native=handle)
        return s

    def event(self):
        return Event(self)

    def __repr__(self):
        return "<tegula.Device %s (%s, %s)>" % (self.name, self.target, self.marketing_name)

    def __eq__(self, other):
        return isinstance(other, Device) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)


def _stream_handle(stream):
    if stream is None:
        return None
    if not isinstance(stream, Stream):
        raise TypeError("stream must be a tegula.Stream or None, not %r" % type(stream).__name__)
    return stream._require()


def _host_view(array, writable):
    """(address, nbytes, keepalive) of a C-contiguous host array."""
    if isinstance(array, (bytes, bytearray, memoryview)):
        mv = memoryview(array)
        if writable and mv.readonly:
            raise ValueError("the destination is read-only")
        if not mv.c_contiguous:
            raise ValueError("the host buffer must be C-contiguous")
        mv = mv.cast("B")
        if mv.readonly:
            buf = ctypes.c_char_p(mv.tobytes())  # copy; read-only source
            return ctypes.cast(buf, ctypes.c_void_p).value, mv.nbytes, buf
        c = (ctypes.c_char * mv.nbytes).from_buffer(mv)
        return ctypes.addressof(c), mv.nbytes, (c, mv)
    ai = getattr(array, "__array_interface__", None)
    if ai is None:
        raise TypeError("expected a NumPy array (or an object with __array_interface__), "
                        "bytes, bytearray or memoryview; got %r" % type(array).__name__)
    flags = getattr(array, "flags", None)
    if flags is not None and not flags["C_CONTIGUOUS"]:
        raise ValueError("the host array must be C-contiguous (use numpy.ascontiguousarray)")
    if ai.get("strides") is not None and flags is None:
        raise ValueError("the host array must be C-contiguous")
    addr, readonly = ai["data"]
    if writable and readonly:
        raise ValueError("the destination array is read-only")
    nbytes = getattr(array, "nbytes", None)
    if nbytes is None:
        import numpy as np
        nbytes = int(np.prod(ai["shape"], dtype=np.int64)) * np.dtype(ai["typestr"]).itemsize
    return addr, int(nbytes), array


class Buffer(_Owned):
    """Device memory: a tegula_buffer_t. Free it with ``free()`` or a ``with``
    block; it is freed when garbage-collected or when its runtime closes
    otherwise. Freeing twice is harmless."""

    _destroy_fn = "tegula_buffer_free"
    #: A launch passes a Buffer as itself, never through its ``__dlpack__``.
    _tegula_buffer = True

    def __init__(self, device, nbytes, dtype=None, shape=None):
        if not isinstance(device, Device):
            raise TypeError("device must be a tegula.Device, not %r" % type(device).__name__)
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError("cannot allocate a negative number of bytes (%d)" % nbytes)
        lib = device._runtime._lib
        out = ctypes.c_void_p()
        _rt.check(lib, lib.tegula_buffer_alloc(device._require(), nbytes, ctypes.byref(out)))
        self.device = device
        self._size = nbytes
        self._register(device._runtime, out.value)
        self._address = lib.tegula_buffer_get_device_address(out.value)
        # The element type and shape, when known (tegula.empty): a kernel
        # argument needs the dtype; to_numpy() defaults to both.
        self.dtype = None if dtype is None else _numpy_dtype(dtype)
        self.shape = None if shape is None else tuple(int(d) for d in shape)

    @property
    def dtype_name(self):
        """The signature dtype name (``fp32``...) of ``dtype``, or None."""
        return None if self.dtype is None else dtype_name(self.dtype)

    @property
    def nbytes(self):
        return self._size

    size = nbytes

    @property
    def device_address(self):
        """The device address a pointer kernel argument carries."""
        self._require()
        return self._address

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export (``torch.from_dlpack``, ``jax.dlpack.from_dlpack``,
        ``np.from_dlpack``): the memory in place, as ``dtype`` and ``shape``
        when known, else as bytes. Tegula work on it must be complete first
        (synchronize the streams that wrote it)."""
        from ._interop import export_dlpack
        return export_dlpack(self, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        from ._interop import dlpack_device
        return dlpack_device(self)

    def __len__(self):
        return self._size

    def free(self):
        self._release()

    def _check_range(self, what, offset, nbytes):
        if offset < 0 or nbytes < 0:
            raise ValueError("%s: negative offset or size" % what)
        if offset + nbytes > self._size:
            raise ValueError(
                "%s: %d bytes at offset %d do not fit in the %d-byte buffer"
                % (what, nbytes, offset, self._size))

    def copy_from(self, src, offset=0, stream=None):
        """Host to device: writes all of |src| (a C-contiguous array, bytes...)
        at byte |offset|. With a stream, |src| is kept alive until the stream
        is synchronized."""
        addr, nbytes, keep = _host_view(src, writable=False)
        self._check_range("copy_from", offset, nbytes)
        lib = self._runtime._lib
        s = _stream_handle(stream)
        _rt.check(lib, lib.tegula_buffer_write(self._require(), offset, addr, nbytes, s))
        if stream is not None:
            stream._keep.append(keep)
        return self

    def copy_to(self, dst, offset=0, stream=None):
        """Device to host: fills all of |dst| (a writable C-contiguous array)
        from byte |offset|."""
        addr, nbytes, keep = _host_view(dst, writable=True)
        self._check_range("copy_to", offset, nbytes)
        lib = self._runtime._lib
        s = _stream_handle(stream)
        _rt.check(lib, lib.tegula_buffer_read(self._require(), offset, addr, nbytes, s))
        if stream is not None:
            stream._keep.append(keep)
        return dst

    def to_numpy(self, dtype=None, shape=None, offset=0):
        """A new NumPy array read from the buffer. Default dtype: the
        buffer's (else uint8); default shape: the buffer's, else as many
        elements of |dtype| as fit after |offset|."""
        import numpy as np
        if dtype is None:
            dtype = self.dtype if self.dtype is not None else np.uint8
            if shape is None and self.dtype is not None:
                shape = self.shape
        dtype = _numpy_dtype(dtype)
        if shape is None:
            shape = ((self._size - offset) // dtype.itemsize,)
        out = np.empty(shape, dtype=dtype)
        self.copy_to(out, offset=offset)
        return out

    def memset(self, value, offset=0, nbytes=None, stream=None):
        """Sets |nbytes| bytes (default: to the end) from |offset| to |value|
        (0..255). Ranges are checked by the runtime (TegulaError
        TG_ERROR_OUT_OF_RANGE)."""
        value = int(value)
        if not 0 <= value <= 255:
            raise ValueError("memset value must be a byte (0..255), not %d" % value)
        if nbytes is None:
            nbytes = max(self._size - offset, 0)
        if offset < 0 or nbytes < 0:
            raise ValueError("memset: negative offset or size")
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_buffer_memset(self._require(), offset, value, nbytes,
                                                _stream_handle(stream)))
        return self

    def copy_from_buffer(self, src, nbytes=None, dst_offset=0, src_offset=0, stream=None):
        """Device to device (both on devices of the same plugin)."""
        if not isinstance(src, Buffer):
            raise TypeError("src must be a tegula.Buffer")
        if nbytes is None:
            nbytes = min(self._size - dst_offset, src._size - src_offset)
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_buffer_copy(self._require(), dst_offset, src._require(),
                                              src_offset, nbytes, _stream_handle(stream)))
        return self

    def __repr__(self):
        state = "freed" if self._handle is None else "%d bytes" % self._size
        return "<tegula.Buffer %s on %s>" % (state, self.device.name)


class Stream(_Owned):
    """An ordered queue of work on one device.

    ``Stream(device, native=handle)`` wraps an existing native stream instead
    of creating one (``tegula_stream_create_native``): on ``nvidia`` a
    CUstream as an int, e.g. ``torch.cuda.current_stream().cuda_stream``
    (0 is CUDA's legacy default stream). Work on it is ordered with the
    framework's; the framework keeps the native stream alive, and destroying
    the wrapper neither waits for it nor destroys it. ``native_handle`` is
    the handle (None for a stream Tegula created). A plugin that cannot wrap
    native streams raises TegulaError (TG_ERROR_UNIMPLEMENTED).
    """

    _destroy_fn = "tegula_stream_destroy"

    def __init__(self, device, native=None):
        lib = device._runtime._lib
        out = ctypes.c_void_p()
        if native is None:
            _rt.check(lib, lib.tegula_stream_create(device._require(), ctypes.byref(out)))
        else:
            if isinstance(native, bool) or not isinstance(native, int):
                raise TypeError("native must be an int (a native stream handle), not %r"
                                % type(native).__name__)
            if not 0 <= native < 2 ** 64:
                raise ValueError("a native stream handle must fit in 64 bits unsigned, "
                                 "not %d" % native)
            if not hasattr(lib, "tegula_stream_create_native"):
                raise TegulaError("the runtime library (%s) predates "
                                  "tegula_stream_create_native: rebuild it to launch on "
                                  "native streams" % _rt.library_path(), 5)
            _rt.check(lib, lib.tegula_stream_create_native(device._require(), native,
                                                           ctypes.byref(out)))
        self.device = device
        self.native_handle = native
        self._keep = []  # host memory used by pending copies
        self._register(device._runtime, out.value)

    def synchronize(self):
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_stream_synchronize(self._require()))
        self._keep.clear()

    def wait_event(self, event):
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_stream_wait_event(self._require(), event._require()))

    def destroy(self):
        """Waits for the stream's work and destroys it (a wrapper of a native
        stream: frees the wrapper only)."""
        self._release()
        self._keep.clear()

    def record_event(self):
        e = Event(self.device)
        e.record(self)
        return e

    def __repr__(self):
        return "<tegula.Stream on %s%s%s>" % (
            self.device.name,
            "" if self.native_handle is None else " wrapping native stream %#x"
            % self.native_handle, "" if self.alive else " (destroyed)")


class Event(_Owned):
    """A point in a stream; ``elapsed_time`` measures between two."""

    _destroy_fn = "tegula_event_destroy"

    def __init__(self, device):
        lib = device._runtime._lib
        out = ctypes.c_void_p()
        _rt.check(lib, lib.tegula_event_create(device._require(), ctypes.byref(out)))
        self.device = device
        self._register(device._runtime, out.value)

    def record(self, stream):
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_event_record(self._require(), _stream_handle(stream)))
        return self

    def synchronize(self):
        lib = self._runtime._lib
        _rt.check(lib, lib.tegula_event_synchronize(self._require()))

    def elapsed_time(self, end):
        """Milliseconds from this event to |end| (both recorded and complete)."""
        lib = self._runtime._lib
        ms = ctypes.c_float()
        _rt.check(lib, lib.tegula_event_elapsed_time(self._require(), end._require(),
                                                     ctypes.byref(ms)))
        return ms.value

    def destroy(self):
        self._release()

    def __repr__(self):
        return "<tegula.Event on %s%s>" % (self.device.name, "" if self.alive else " (destroyed)")


# -- The default runtime ------------------------------------------------------

_default = None
_default_lock = threading.Lock()


def runtime():
    """The process-wide Runtime, created on first use from the environment."""
    global _default
    with _default_lock:
        if _default is None or _default._handle is None:
            _default = Runtime()
        return _default


def devices():
    """All devices of all loaded plugins (the default runtime's)."""
    return runtime().devices


def device(name):
    """The device named ``<backend>:<n>`` (e.g. ``"testdev:1"``)."""
    return runtime().find_device(name)


def default_device():
    """The device a launch uses when none is given: the first device of the
    default runtime that is not the host CPU, else the host; TegulaError
    (TG_ERROR_NOT_FOUND) when there is no device at all."""
    devs = runtime().devices
    for d in devs:
        if d.backend != "host":
            return d
    if devs:
        return devs[0]
    raise TegulaError("no device: no plugin reported one (see `tegula devices` and "
                      "TEGULA_PLUGIN_PATH / TEGULA_VISIBLE_BACKENDS)", 3)


def _numpy_dtype(dtype):
    """A NumPy dtype from a NumPy dtype or type, a name ("float32",
    "bfloat16" with ml_dtypes) or a ``tl`` dtype."""
    import numpy as np
    from . import language as tl
    if isinstance(dtype, tl.pointer_type):
        raise TypeError("not an element dtype: %r" % (dtype,))
    if isinstance(dtype, tl.dtype):
        dtype = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
                 "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                 "u64": "uint64", "fp16": "float16", "fp32": "float32",
                 "fp64": "float64", "bf16": "bfloat16", "fp8e4nv": "float8_e4m3fn",
                 "fp8e5": "float8_e5m2"}[dtype.short_name]
    try:
        return np.dtype(dtype)
    except TypeError:
        if isinstance(dtype, str):
            try:
                import ml_dtypes
                return np.dtype(getattr(ml_dtypes, dtype))
            except (ImportError, AttributeError):
                pass
        raise TypeError("not a dtype: %r" % (dtype,)) from None


def _resolve_device(device):
    if device is None:
        return default_device()
    if isinstance(device, str):
        return runtime().find_device(device)
    if not isinstance(device, Device):
        raise TypeError("device must be a tegula.Device, a device name or None, not %r"
                        % type(device).__name__)
    return device


def empty(shape, dtype="float32", device=None):
    """A new Buffer for an array of |shape| and |dtype| on |device|
    (default_device() when None); contents undefined. An allocation the
    device cannot satisfy raises OutOfMemoryError (a TegulaError)."""
    import numpy as np
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError("negative dimension in shape %r" % (shape,))
    dt = _numpy_dtype(dtype)
    dtype_name(dt)  # a dtype kernels can take, or TypeError
    nbytes = int(np.prod(shape, dtype=object)) * dt.itemsize if shape else dt.itemsize
    return Buffer(_resolve_device(device), nbytes, dtype=dt, shape=shape)


def from_numpy(array, device=None):
    """A new Buffer on |device| holding a copy of |array| (dtype and shape
    kept); ``buffer.to_numpy()`` reads it back."""
    import numpy as np
    array = np.ascontiguousarray(array)
    buf = empty(array.shape, array.dtype, device)
    buf.copy_from(array)
    return buf


def abi_version():
    """(major, minor) of the plugin ABI the runtime speaks."""
    lib = _rt.load_library()
    major, minor = ctypes.c_uint32(), ctypes.c_uint32()
    lib.tegula_runtime_get_abi_version(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


@atexit.register
def _close_default():
    if _default is not None:
        try:
            _default.close()
        except Exception:
            pass


_TRITON_ALIASES = ("", ".language", ".testing", ".runtime", ".runtime.driver",
                   ".runtime.autotuner", ".runtime.jit", ".runtime.errors", ".tools",
                   ".tools.tensor_descriptor", ".compiler", ".compiler.errors")


class _TritonAsTegula:
    """While active, ``import triton`` (and the submodules above) imports
    Tegula; ``sys.modules`` is restored afterwards."""

    def __enter__(self):
        import sys
        self.saved = {"triton" + k: sys.modules.get("triton" + k) for k in _TRITON_ALIASES}
        for k in _TRITON_ALIASES:
            sys.modules["triton" + k] = sys.modules[__name__ + k]
        return self

    def __exit__(self, *exc):
        import sys
        for k, v in self.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        return False


def import_triton_file(path, module_name=None):
    """Imports a kernel file written for Triton (``import triton``,
    ``@triton.jit``) with ``triton`` meaning ``tegula`` while it imports, and
    returns the module: its kernels launch on Tegula's devices. ``triton.language``,
    ``triton.testing``, ``triton.runtime`` and ``triton.compiler`` (with their
    submodules) are Tegula's
    too. A real Triton, if installed, is untouched (``sys.modules`` is restored
    afterwards)."""
    import importlib.util
    path = os.fspath(path)
    name = module_name or "tegula_triton_" + os.path.splitext(os.path.basename(path))[0]
    with _TritonAsTegula():
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def import_triton_module(name):
    """Imports the module |name| of a kernel package written for Triton (say
    ``"mypkg.ops.kernels"``, found on sys.path as ``import`` finds it) with
    ``triton`` meaning ``tegula`` while it and the modules it imports load,
    as import_triton_file does for one file; returns it. Its kernels may use
    @jit helpers and constants of the package's other modules."""
    import importlib
    with _TritonAsTegula():
        return importlib.import_module(name)


# `from . import runtime` would find the function above and import nothing.
import importlib as _importlib  # noqa: E402
runtime = _importlib.import_module(__name__ + ".runtime")  # callable as before
from . import testing  # noqa: E402,F401
from . import tools  # noqa: E402,F401
from .tools import tensor_descriptor as _tensor_descriptor  # noqa: E402,F401
from . import compiler  # noqa: E402,F401


_allocator = None


def set_allocator(allocator):
    """Triton's ``triton.set_allocator(fn)``: the function that allocates
    the global scratch memory a kernel asks for, called as
    ``fn(size, alignment, stream)``. Triton's kernels need it for the
    descriptors ``tl.make_tensor_descriptor`` writes to memory on GPUs
    (tutorial 06 sets one); Tegula's descriptors are block-pointer accesses
    and no Tegula kernel asks for scratch memory, so the allocator is kept
    (``tegula._allocator``) and never called. None unsets it."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError("set_allocator takes a function (size, alignment, stream) or None, "
                        "not %r" % (allocator,))
    _allocator = allocator


def __getattr__(name):
    # CompiledKernel (what a launch returns) lives in _launch, imported on
    # first use.
    if name == "CompiledKernel":
        from ._launch import CompiledKernel
        return CompiledKernel
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
