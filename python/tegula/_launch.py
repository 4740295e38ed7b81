"""``kernel[grid](*args, **constexprs)``: binds the arguments, specializes,
compiles (once per device, specialization, num_warps and num_stages),
passes the arguments and launches.

The path of one launch: Python arguments -> the Triton-AOT signature
(``_jit.specialize_arg``) -> libtegula_compiler (tile bytecode) ->
``tegula_device_compile`` (the device's plugin: an image and its metadata)
-> ``tegula_module_load`` / ``tegula_module_get_kernel`` -> arguments packed
in metadata order by ``tegula_args_pack`` -> ``tegula_kernel_launch``.

Arrays: on a device whose memory is the process's memory (the ``host``
plugin) an array is passed by its data pointer and the kernel writes into
it. On any other device each array is copied into a new device buffer
before the launch and back into the array after it (unless the array is
read-only); ``tegula.Buffer`` arguments are passed as they are, and so are
device arrays (torch CUDA tensors, ``__cuda_array_interface__`` objects:
``_interop.py``), which need a device of the backend that owns their memory.

Streams: ``stream=`` is a tegula.Stream, a native handle (an int, a
torch.cuda.Stream) wrapped once per device and handle, or None: then a launch
with torch CUDA tensors goes on PyTorch's current stream, one with
``__cuda_array_interface__`` v3 objects on the stream they name, and any
other on the NULL stream (complete before returning).
"""

import ctypes
import os
import operator
import types

from . import _compiler
from . import _diskcache
from . import _errors
from . import _interop
from . import _runtime as _rt
from . import language as tl
from . import Buffer, Device, Stream, _Owned
from ._accel_py import _span
from ._jit import TensorWrapper, _array_pointer, _constexpr_literal, dtype_name, specialize_arg
from .tools.tensor_descriptor import TensorDescriptor

#: The largest grid, per dimension (CUDA's limits, which every backend meets).
MAX_GRID = (2 ** 31 - 1, 65535, 65535)
_AXES = "xyz"

_NP_SCALAR = {
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
}
_INT_RANGE = {
    "i8": (-2 ** 7, 2 ** 7 - 1), "i16": (-2 ** 15, 2 ** 15 - 1),
    "i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1),
    "u8": (0, 2 ** 8 - 1), "u16": (0, 2 ** 16 - 1), "u32": (0, 2 ** 32 - 1),
    "u64": (0, 2 ** 64 - 1),
}
_CTYPE = {
    "i1": ctypes.c_uint8, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
    "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}


def _fail(exc_type, fn, message):
    return exc_type("%s: %s" % (fn.__name__, message))


# -- Binding ---------------------------------------------------------------


def bind(fn, args, kwargs):
    """{parameter name: value} for every parameter (defaults applied);
    TypeError naming the kernel and the parameter otherwise, in Python's
    words for a call of a function (``add_kernel() missing 1 required
    positional argument: 'n'``)."""
    try:
        bound = fn.signature.bind(*args, **kwargs)
    except TypeError as e:
        message = "%s: %s" % (fn.__name__, e)
        binder = _make_binder(fn)
        if binder is not None:
            try:
                binder(*args, **kwargs)
            except TypeError as python_error:
                message = str(python_error)
        raise TypeError("%s (the parameters are %s)"
                        % (message, ", ".join(fn.arg_names))) from None
    bound.apply_defaults()
    return dict(bound.arguments)


def _make_binder(fn):
    """A function with the kernel's name and parameters (kinds and
    defaults): calling it binds as Python binds a call, and fails in
    Python's words. None when one cannot be made."""
    import keyword
    names, positional, kwonly, defaults, kwdefaults = [], [], [], [], {}
    for p in fn.params:
        if not p.name.isidentifier() or keyword.iskeyword(p.name):
            return None
        names.append(p.name)
        if p.kind == p.KEYWORD_ONLY:
            kwonly.append(p.name)
            if p.default is not p.empty:
                kwdefaults[p.name] = p.default
        else:
            positional.append(p)
            if p.default is not p.empty:
                defaults.append(p.default)
    parts = []
    for i, p in enumerate(positional):
        parts.append(p.name)
        if p.kind == p.POSITIONAL_ONLY and (i + 1 == len(positional) or
                                            positional[i + 1].kind != p.POSITIONAL_ONLY):
            parts.append("/")
    if kwonly:
        parts.append("*")
        parts.extend(kwonly)
    name = fn.__name__ if fn.__name__.isidentifier() and not keyword.iskeyword(
        fn.__name__) else "bind"
    src = "def %s(%s):\n    pass\n" % (name, ", ".join(parts))
    scope = {}
    try:
        exec(compile(src, "<tegula binder of %s>" % fn.__name__, "exec"), {}, scope)  # noqa: S102
    except SyntaxError:  # pragma: no cover
        return None
    binder = scope[name]
    binder.__defaults__ = tuple(defaults) or None
    binder.__kwdefaults__ = kwdefaults or None
    return binder


def _dtype_by_name(text):
    """A signature dtype name from "fp32", "float32", "tl.float32"; None."""
    t = text.strip()
    if t.startswith("tl."):
        t = t[3:]
    for d in tl.DTYPES:
        if t in (d.short_name, d.name):
            return d.short_name
    return None


def pointer_annotation(fn, param):
    """The element dtype name a parameter's annotation requires
    (``tl.pointer_type(tl.float32)``, ``"*fp32"``), or None."""
    ann = param.annotation
    if isinstance(ann, tl.pointer_type):
        return ann.element_ty.short_name
    if not isinstance(ann, str):
        return None
    s = ann.strip()
    if s.startswith("*"):
        name = _dtype_by_name(s[1:].split(":")[0])
        if name is None:
            raise _fail(TypeError, fn, "parameter '%s' is annotated %r, which names no "
                        "Triton dtype" % (param.name, ann))
        return name
    if "pointer_type" in s:  # `from __future__ import annotations`
        try:
            value = eval(s, dict(getattr(fn.fn, "__globals__", {})))  # noqa: S307
        except Exception:
            return None
        if isinstance(value, tl.pointer_type):
            return value.element_ty.short_name
    return None


def scalar_annotation(fn, param):
    """What a scalar parameter's annotation requires: "int" (``int``,
    ``tl.int32``, ``"i64"``...), "float" (``float``, ``tl.float32``,
    ``"fp16"``...), "bool" (``bool``, ``tl.int1``), or None (no scalar
    annotation). The annotation decides no type: the argument's value does,
    as without one; a launch checks that the value is such a scalar."""
    ann = param.annotation
    if ann is param.empty or isinstance(ann, tl.pointer_type):
        return None
    if ann is bool:
        return "bool"
    if ann is int:
        return "int"
    if ann is float:
        return "float"
    short = None
    if isinstance(ann, tl.dtype):
        short = ann.short_name
    elif isinstance(ann, str):
        text = ann.strip()
        if text in ("bool", "int", "float"):
            return text
        if not text.startswith("*"):
            short = _dtype_by_name(text)
    if short is None:
        return None
    if short == "i1":
        return "bool"
    return "float" if short.startswith(("fp", "bf")) else "int"


_INT_RANGES = {"i8": (-2**7, 2**7), "i16": (-2**15, 2**15), "i32": (-2**31, 2**31),
               "i64": (-2**63, 2**63), "u8": (0, 2**8), "u16": (0, 2**16),
               "u32": (0, 2**32), "u64": (0, 2**64)}


def _check_annotated_range(fn, name, value):
    """ValueError when an int does not fit the integer dtype its parameter
    is annotated with (``n: tl.int32`` given 2**40)."""
    ann = fn.signature.parameters[name].annotation
    short = ann.short_name if isinstance(ann, tl.dtype) else \
        _dtype_by_name(ann.strip()) if isinstance(ann, str) else None
    bounds = _INT_RANGES.get(short)
    if bounds and not bounds[0] <= value < bounds[1]:
        raise _fail(ValueError, fn, "argument '%s' is annotated %s, which cannot hold %d"
                    % (name, getattr(ann, "name", ann), value))


def check_scalar_annotation(fn, name, kind, value):
    """TypeError naming parameter |name|, annotated as a |kind| scalar,
    when |value| is no such scalar (an array, a buffer, a float for an
    int...)."""
    try:
        import numpy as np
        np_int, np_float, np_bool = np.integer, np.floating, np.bool_
    except ImportError:  # pragma: no cover
        np_int = np_float = np_bool = ()
    is_bool = isinstance(value, bool) or bool(np_bool and isinstance(value, np_bool))
    is_int = is_bool or isinstance(value, int) or bool(np_int and isinstance(value, np_int))
    is_float = isinstance(value, float) or bool(np_float and isinstance(value, np_float))
    ok = {"int": is_int, "bool": is_int, "float": is_int or is_float}[kind]
    if ok:
        if is_int and not is_bool:
            _check_annotated_range(fn, name, int(value))
        return
    what = type(value).__name__
    if isinstance(value, Buffer) or _interop.is_torch_tensor(value) or \
            getattr(value, "__array_interface__", None) is not None or \
            getattr(value, "__cuda_array_interface__", None) is not None:
        what = "an array (%s)" % what
    ann = fn.signature.parameters[name].annotation
    ann = getattr(ann, "name", None) if isinstance(ann, tl.dtype) else \
        getattr(ann, "__name__", ann)
    raise _fail(TypeError, fn, "argument '%s' is annotated %s (a scalar) and needs %s, not %s"
                % (name, ann, {"int": "an int", "bool": "a bool or an int",
                               "float": "a float or an int"}[kind], what))


# -- Grid ------------------------------------------------------------------


def normalize_grid(fn, grid, meta):
    """A (x, y, z) tuple from a tuple of 1 to 3 ints or a callable(meta)."""
    return _grid3(fn, grid(meta) if callable(grid) else grid)


def _grid3(fn, g):
    """normalize_grid for a grid already given (or returned by the callable)."""
    if isinstance(g, list):
        g = tuple(g)
    if not isinstance(g, tuple):
        try:
            g = (operator.index(g),)
        except TypeError:
            raise _fail(TypeError, fn, "the grid must be a tuple of 1 to 3 ints (or a "
                        "callable returning one), not %r" % (g,)) from None
    if not 1 <= len(g) <= 3:
        raise _fail(ValueError, fn, "the grid must have 1 to 3 dimensions, not %d (%r)"
                    % (len(g), g))
    out = []
    for axis, v in zip(_AXES, g):
        if isinstance(v, bool):
            raise _fail(TypeError, fn, "grid dimension %s is a bool (%r)" % (axis, v))
        try:
            v = operator.index(v)
        except TypeError:
            raise _fail(TypeError, fn, "grid dimension %s must be an int, not %r"
                        % (axis, v)) from None
        limit = MAX_GRID[_AXES.index(axis)]
        if v < 1:
            raise _fail(ValueError, fn, "grid dimension %s is %d; every dimension must "
                        "be at least 1" % (axis, v))
        if v > limit:
            raise _fail(ValueError, fn, "grid dimension %s is %d, above its limit %d"
                        % (axis, v, limit))
        out.append(v)
    while len(out) < 3:
        out.append(1)
    return tuple(out)


# -- Device ----------------------------------------------------------------


def device_arrays(fn, arguments):
    """{parameter: _interop.DeviceArray} for the non-constexpr arguments that
    are device arrays (torch CUDA tensors, __cuda_array_interface__)."""
    out = {}
    for p in fn.params:
        if p.name in fn.constexprs:
            continue
        value = _descriptor_base(arguments[p.name])
        try:
            arr = _interop.device_array(_unwrapped(value))
            if arr is not None and isinstance(value, TensorWrapper):
                arr.dtype = _wrapper_dtype(fn, p.name, value)
        except TypeError as e:
            raise _fail(TypeError, fn, "argument '%s': %s" % (p.name, e)) from None
        if arr is not None:
            out[p.name] = arr
    return out


def _unwrapped(value):
    """The array under a TensorWrapper (triton.reinterpret), else |value|."""
    return value.base if isinstance(value, TensorWrapper) else value


def _wrapper_dtype(fn, name, wrapper):
    """The signature dtype name a TensorWrapper gives its array."""
    try:
        return dtype_name(wrapper.dtype)
    except TypeError as e:
        raise _fail(TypeError, fn, "argument '%s' (a TensorWrapper): %s" % (name, e)) \
            from None


def _descriptor_base(value):
    """The array under a host-built tensor descriptor, else |value|."""
    return value.base if isinstance(value, TensorDescriptor) else value


def _descriptor_args(fn, name, desc, entry, what):
    """The kernel arguments of a tensor descriptor whose base classify()
    gave (|entry|, |what|): the base, the shape (i32), the strides but the
    last (i64), as the front end expands a tensordesc<...> parameter."""
    args = [(name, entry, what)]
    for i, n in enumerate(desc.shape):
        if not -2**31 <= int(n) < 2**31:
            raise _fail(ValueError, fn, "argument '%s': descriptor dimension %d is %d, "
                        "beyond int32" % (name, i, n))
        args.append(("%s.shape[%d]" % (name, i), "i32", ("scalar", int(n))))
    for i, s in enumerate(desc.strides[:-1]):
        args.append(("%s.strides[%d]" % (name, i), "i64", ("scalar", int(s))))
    return args


def resolve_device(fn, device, stream, arguments, arrays=None):
    """The launch's device: |device| (a Device or a name), else the stream's,
    else the first Buffer's, else the first device array's that says
    (``nvidia:<its CUDA device>``), else a native stream's, else device 0 of
    the device arrays' plugin, else default_device(); then checks that
    buffers, device arrays and the stream fit it. |stream| is what
    _interop.parse_stream returned."""
    from . import default_device, runtime
    arrays = arrays or {}
    if isinstance(device, str):
        device = runtime().find_device(device)
    if device is not None and not isinstance(device, Device):
        raise _fail(TypeError, fn, "device must be a tegula.Device, a device name or None, "
                    "not %r" % type(device).__name__)
    if stream is not None and not isinstance(stream, (Stream, _interop.NativeStream)):
        raise _fail(TypeError, fn, "stream must be a tegula.Stream or None, not %r"
                    % type(stream).__name__)
    native = stream if isinstance(stream, _interop.NativeStream) else None
    if native is not None:
        stream = None
    buffers = [(n, _descriptor_base(v)) for n, v in arguments.items()
               if isinstance(_descriptor_base(v), Buffer)]
    # Why the launch is on |device|, for the errors below: "" (device=, the
    # default device), or where an argument put it.
    why = ""
    if device is None:
        if stream is not None:
            device = stream.device
            why = "the stream's device"
        elif buffers:
            device = buffers[0][1].device
            why = "the device of argument '%s', a buffer" % buffers[0][0]
        elif any(a.device_name for a in arrays.values()):
            n, a = next((n, a) for n, a in arrays.items() if a.device_name)
            device = runtime().find_device(a.device_name)
            why = "the device of argument '%s', %s" % (n, a.what)
        elif native is not None and native.device_name is not None:
            device = runtime().find_device(native.device_name)
            why = "the device of the stream (%s)" % native.what
        elif arrays:  # no array says which device: the plugin's first
            device = runtime().find_device("%s:0" % next(iter(arrays.values())).backend)
        else:
            device = default_device()
    launch = device.name + (" (%s)" % why if why else "")
    if stream is not None and stream.device != device:
        raise _fail(ValueError, fn, "the stream is on %s but the launch is on %s"
                    % (stream.device.name, launch))
    if native is not None and native.device_name is not None and \
            native.device_name != device.name:
        raise _fail(ValueError, fn, "the stream (%s) is on %s but the launch is on %s"
                    % (native.what, native.device_name, launch))
    # Every argument on another device, named with its device: a kernel
    # reads each pointer on the device it runs on.
    elsewhere = ["argument '%s' is a buffer on %s" % (n, b.device.name)
                 for n, b in buffers if b.device != device]
    for n, a in arrays.items():
        if device.backend != a.backend:
            raise _fail(ValueError, fn, "argument '%s' is %s, device memory that only a "
                        "device of the %s plugin can use, but the launch is on %s; launch "
                        "on %s:%d (device=) or pass a host array" % (
                            n, a.what, a.backend, launch, a.backend, a.index or 0))
        if a.device_name is not None and a.device_name != device.name:
            elsewhere.append("argument '%s' is %s, which is %s" % (n, a.what, a.device_name))
    if elsewhere:
        raise _fail(ValueError, fn, "%s, but the launch is on %s: all the device "
                    "arrays of a launch must be on its device" % (
                        "; ".join(elsewhere), launch))
    return device


def resolve_stream(fn, device, stream, arrays):
    """The tegula.Stream of the launch (or None: the NULL stream). A native
    handle becomes the device's cached wrapper; with stream=None, torch
    tensors mean PyTorch's current stream and __cuda_array_interface__ v3
    objects the stream they name."""
    if isinstance(stream, Stream):
        return stream
    handle = None
    if isinstance(stream, _interop.NativeStream):
        handle = stream.handle
    elif stream is None and arrays:
        if any(a.kind == "torch" for a in arrays.values()):
            handle = _interop.torch_current_stream(_device_index(device))
        else:
            named = [a.stream for a in arrays.values() if a.stream is not None]
            handle = named[0] if named else None
    if handle is None:
        return None
    return _native_stream(fn, device, handle)


def _native_stream(fn, device, handle):
    """The device's Stream wrapping native stream |handle|."""
    try:
        return device._native_stream(handle)
    except _rt.TegulaError as e:
        raise type(e)("%s: launching on the native stream %#x of %s: %s" % (
            fn.__name__, handle, device.name, e.message), e.code) from None


def _device_index(device):
    """n of a device named ``<backend>:<n>``."""
    return int(device.name.rsplit(":", 1)[1])


def uses_host_memory(device):
    """Whether arrays are passed in place on |device| (see the module doc)."""
    return device.host_memory


# -- Arguments ---------------------------------------------------------------


class _ArrayArg:
    """A host array argument: where it is and, on the copy path, its device
    buffer."""

    def __init__(self, obj, address, nbytes, dtype, contiguous, writable):
        self.obj = obj
        self.address = address
        self.nbytes = nbytes
        self.dtype = dtype
        self.contiguous = contiguous
        self.writable = writable
        self.buffer = None


def _overlaps(shape, strides, itemsize):
    """Whether elements of a strided view may share memory: a zero stride
    along a dimension of more than one element (``numpy.broadcast_to``,
    ``torch.expand``), or strides too small for the dimensions inside them
    (``as_strided``). Sufficient for no overlap: sorted by stride, each
    stride spans all the dimensions before it."""
    dims = sorted((abs(int(st)), int(n)) for n, st in zip(shape, strides) if int(n) != 1)
    if any(n == 0 for _, n in dims):
        return False  # no elements
    span = int(itemsize)
    for st, n in dims:
        if st < span:
            return True
        span = st * (n - 1) + span
    return False


def host_overlap(value):
    """Whether host array |value| (NumPy, __array_interface__, a CPU torch
    tensor) is a view whose elements overlap (see _overlaps)."""
    if _interop.is_torch_tensor(value):
        if value.is_contiguous():
            return False
        try:
            shape, strides = tuple(value.shape), tuple(value.stride())
        except (AttributeError, TypeError):  # a tensor-like that does not say
            return False
        return _overlaps(shape, strides, 1)  # strides in elements
    flags = getattr(value, "flags", None)
    if flags is not None and (flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]):
        return False
    ai = getattr(value, "__array_interface__", None)
    if ai is None or ai.get("strides") is None:
        return False
    import numpy as np
    return _overlaps(ai["shape"], ai["strides"], np.dtype(ai["typestr"]).itemsize)


def _array_info(fn, name, value):
    """(address, nbytes, contiguous, writable) of a host array, or None when
    |value| is not one."""
    info = _interop.torch_host_info(value)
    if info is not None:
        return info
    ai = getattr(value, "__array_interface__", None)
    if ai is None:
        return None
    flags = getattr(value, "flags", None)
    address, readonly = ai["data"] if ai.get("data") is not None else (0, False)
    nbytes = getattr(value, "nbytes", None)
    if nbytes is None:
        import numpy as np
        nbytes = int(np.prod(ai["shape"], dtype=np.int64)) * np.dtype(ai["typestr"]).itemsize
    if flags is not None:
        contiguous = bool(flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"])
        writable = bool(flags["WRITEABLE"])
    else:
        contiguous = ai.get("strides") is None
        writable = not readonly
    return int(address or 0), int(nbytes), contiguous, writable


def classify(fn, name, value, annotated, host_memory, device_array=None):
    """The signature entry of a non-constexpr argument and what it passes:
    ("ptr", Buffer | _ArrayArg | _interop.DeviceArray) or ("scalar", value).
    |device_array| is the argument's DeviceArray when it is one."""
    as_dtype = None
    if isinstance(value, TensorWrapper):  # triton.reinterpret: the base, as another dtype
        as_dtype = _wrapper_dtype(fn, name, value)
        value = value.base
    kinds = getattr(fn, "_scalar_kinds", None)
    if kinds:
        kind = kinds.get(name)
        if kind is not None:
            check_scalar_annotation(fn, name, kind, value)
    if device_array is not None:
        dt = device_array.dtype
        if annotated and dt != annotated:
            raise _fail(TypeError, fn, "argument '%s' is annotated *%s but the array's dtype "
                        "is %s (%s)" % (name, annotated, dt, device_array.what))
        return "*%s%s" % (dt, ":16" if device_array.address % 16 == 0 else ""), \
            ("ptr", device_array)
    if isinstance(value, Buffer):
        value._require()
        dt = as_dtype or value.dtype_name or annotated
        if dt is None:
            raise _fail(TypeError, fn, "argument '%s' is a tegula.Buffer without a dtype; "
                        "make it with tegula.empty(shape, dtype) or annotate the "
                        "parameter with a pointer type (\"*fp32\")" % name)
        if annotated and dt != annotated:
            raise _fail(TypeError, fn, "argument '%s' is annotated *%s but the buffer holds "
                        "%s" % (name, annotated, dt))
        return "*%s%s" % (dt, ":16" if value.device_address % 16 == 0 else ""), ("ptr", value)
    try:
        import numpy as np
        np_scalar = isinstance(value, np.generic)  # has __array_interface__ too
    except ImportError:  # pragma: no cover
        np_scalar = False
    is_array = not np_scalar and (
                _interop.is_torch_tensor(value)
                or getattr(value, "__array_interface__", None) is not None
                or getattr(value, "__cuda_array_interface__", None) is not None
                or (hasattr(value, "data_ptr") and hasattr(value, "dtype")))
    if is_array:
        try:
            _, dt = _array_pointer(value) if as_dtype is None else (None, as_dtype)
        except TypeError as e:
            raise _fail(TypeError, fn, "argument '%s': %s" % (name, e)) from None
        if annotated and dt != annotated:
            raise _fail(TypeError, fn, "argument '%s' is annotated *%s but the array's dtype "
                        "is %s (%s)" % (name, annotated, getattr(value, "dtype", "?"), dt))
        info = _array_info(fn, name, value)
        if info is None:
            raise _fail(TypeError, fn, "argument '%s': only host arrays (NumPy, "
                        "__array_interface__, CPU torch tensors), device arrays (CUDA "
                        "torch tensors, __cuda_array_interface__) and tegula.Buffer can be "
                        "passed, not %r" % (name, type(value).__name__))
        address, nbytes, contiguous, writable = info
        if not contiguous and host_overlap(value):
            raise _fail(ValueError, fn, "argument '%s' is a view whose elements overlap in "
                        "memory (a zero stride, as numpy.broadcast_to and torch's expand "
                        "make, or overlapping strides): the kernel gets its data pointer "
                        "and would read or write past the memory the view has; pass a "
                        "copy (numpy.ascontiguousarray)" % name)
        arr = _ArrayArg(value, address, nbytes, dt, contiguous, writable)
        if not host_memory and not contiguous:
            raise _fail(ValueError, fn, "argument '%s': the array is copied to the device, "
                        "which needs it contiguous (use numpy.ascontiguousarray and read "
                        "the result back from that copy)" % name)
        # The entry's divisibility is the address the kernel receives: the
        # array's own, or (copy path) the device buffer's, which is set later.
        return dt, ("ptr", arr)
    if annotated:
        raise _fail(TypeError, fn, "argument '%s' is annotated *%s and needs an array or a "
                    "tegula.Buffer, not %s" % (name, annotated, type(value).__name__))
    try:
        entry = specialize_arg(value)
    except TypeError as e:
        raise _fail(TypeError, fn, "argument '%s': %s" % (name, e)) from None
    except ValueError as e:
        raise _fail(ValueError, fn, "argument '%s': %s" % (name, e)) from None
    return entry, ("scalar", value)


def _float_bits(value, dt):
    """The bit pattern of |value| as fp16/bf16/fp8 (an int)."""
    import numpy as np
    if dt == "fp16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    if dt == "bf16":
        bits = int(np.array(value, dtype=np.float32).view(np.uint32))
        if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:  # NaN stays NaN
            return (bits >> 16) | 0x40
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # nearest even
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("an %s scalar needs the ml_dtypes module" % dt) from None
    t = {"fp8e4nv": ml_dtypes.float8_e4m3fn, "fp8e5": ml_dtypes.float8_e5m2}[dt]
    return int(np.array(value, dtype=t).view(np.uint8))


def _scalar_type(dt, entry):
    """The type a scalar is packed as: the metadata's |dt|, except that a
    ``u64`` specialization (an int from 2**63 up) is an ``i64`` in the
    metadata (the IR's integers are signless) and packs as the unsigned
    64 bits the kernel reads."""
    if dt == "i64" and entry is not None and entry.split(":")[0] == "u64":
        return "u64"
    return dt


def scalar_holder(fn, name, value, type_code, entry=None):
    """A ctypes object holding |value| as the metadata's scalar type (|entry|:
    the argument's signature entry, when known)."""
    dt = _rt.SCALAR_TYPES.get(type_code)
    if dt is None:
        raise _fail(RuntimeError, fn, "the kernel metadata gives argument '%s' the unknown "
                    "type %d" % (name, type_code))
    dt = _scalar_type(dt, entry)
    try:
        import numpy as np
        np_int, np_float = np.integer, np.floating
    except ImportError:  # pragma: no cover
        np_int = np_float = ()
    is_int = isinstance(value, (bool, int)) or (np_int and isinstance(value, np_int))
    if dt == "i1":
        return ctypes.c_uint8(1 if value else 0)
    if dt in _INT_RANGE:
        if not is_int:
            raise _fail(TypeError, fn, "argument '%s' has type %s in the compiled kernel; "
                        "got a %s" % (name, dt, type(value).__name__))
        v = int(value)
        lo, hi = _INT_RANGE[dt]
        if not lo <= v <= hi:
            raise _fail(ValueError, fn, "argument '%s' = %d does not fit the kernel's %s"
                        % (name, v, dt))
        return _CTYPE[dt](v)
    if not (is_int or isinstance(value, float) or (np_float and isinstance(value, np_float))):
        raise _fail(TypeError, fn, "argument '%s' has type %s in the compiled kernel; got "
                    "a %s" % (name, dt, type(value).__name__))
    if dt in ("fp32", "fp64"):
        return _CTYPE[dt](float(value))
    bits = _float_bits(float(value), dt)
    return (ctypes.c_uint16 if dt in ("fp16", "bf16") else ctypes.c_uint8)(bits)


# -- The compiled kernel -------------------------------------------------------


class _HookedType(type):
    """CompiledKernel's type: setting ``launch_enter_hook`` or
    ``launch_exit_hook`` on the class sets the module's _HOOKED, the one
    flag the fast path reads."""

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)
        if name in ("launch_enter_hook", "launch_exit_hook"):
            global _HOOKED
            _HOOKED = (CompiledKernel.launch_enter_hook is not None
                       or CompiledKernel.launch_exit_hook is not None)
            for listener in _HOOK_LISTENERS:
                listener(_HOOKED)

    def __delattr__(cls, name):
        super().__delattr__(name)
        if name in ("launch_enter_hook", "launch_exit_hook"):
            cls.__setattr__(name, getattr(cls, name, None))


#: Whether CompiledKernel has a launch hook (see _HookedType).
_HOOKED = False
#: Functions called with _HOOKED when it is set (tegula.jax's launch in C
#: leaves hooked launches to Python).
_HOOK_LISTENERS = []


class LaunchMetadata:
    """What Triton's launch hooks get (its ``LazyDict``): ``name`` (the
    kernel's), ``grid`` (x, y, z), ``stream`` (the tegula.Stream, None for
    the NULL stream), ``function`` (the runtime's kernel handle, an int),
    ``kernel`` (the CompiledKernel), and ``data``: what the jit function's
    ``launch_metadata(grid, kernel, args)`` returns (``args``: {parameter:
    value}, constexprs included), computed on first use, None when it gave
    none. ``get()`` is Triton's: {"name", "function", "stream"} updated with
    ``data``."""

    __slots__ = ("name", "grid", "stream", "function", "kernel", "_fn", "_args", "_data")

    def __init__(self, fn, ck, grid, stream, args):
        self.name = ck.name
        self.grid = grid
        self.stream = stream
        self.function = ck._kernel
        self.kernel = ck
        self._fn = fn
        self._args = args
        self._data = self

    @property
    def data(self):
        if self._data is self:
            hook = getattr(self._fn, "launch_metadata", None)
            if hook is None:
                self._data = None
            else:
                args = self._args
                if not isinstance(args, dict):
                    args = dict(zip(self._fn.arg_names, args))
                args = {k: (v.value if isinstance(v, tl.constexpr) else v)
                        for k, v in args.items()}
                self._data = hook(self.grid, self.kernel, args)
        return self._data

    def get(self):
        out = {"name": self.name, "function": self.function, "stream": self.stream}
        if self.data:
            out.update(self.data)
        return out

    def __repr__(self):
        return "<tegula.LaunchMetadata %s grid=%r>" % (self.name, self.grid)


def _run_hooked(fn, ck, grid, stream, args, launch):
    """Calls the launch hooks around |launch| (a callable): Triton calls
    launch_enter_hook before the launch and launch_exit_hook after it."""
    md = LaunchMetadata(fn, ck, grid, stream, args)
    enter = CompiledKernel.launch_enter_hook
    if enter is not None:
        enter(md)
    result = launch()
    exit_hook = CompiledKernel.launch_exit_hook
    if exit_hook is not None:
        exit_hook(md)
    return result


class CompiledKernel(_Owned, metaclass=_HookedType):
    """A kernel compiled for one device and specialization, loaded there: the
    module handle, the kernel handle and a copy of its metadata. Unloaded when
    its runtime closes (or with ``unload()``).

    ``launch_enter_hook`` and ``launch_exit_hook`` (class attributes, None
    by default) are Triton's launch hooks: when set, each is called with a
    LaunchMetadata before (enter) and after (exit) every launch."""

    _destroy_fn = "tegula_module_unload"
    launch_enter_hook = None
    launch_exit_hook = None

    def __init__(self, fn, device, signature, num_warps, num_stages, bytecode, options=(),
                 keep=None, source=None):
        """Compiles |bytecode| for |device| and loads it; |keep|, when given, is
        called with (metadata, image data, image size) before the image is
        freed (the disk cache stores it). |source| (the kernel's file) makes
        the source line of an error that points into it part of the error.
        Too much shared memory or too many threads raise OutOfResources; an
        error at an operation of the kernel, CompilationError."""
        rt = device._runtime
        lib = rt._lib
        opts = [("num_warps", str(num_warps)),
                ("num_stages", str(num_stages))] + list(options)
        if not rt._declared_options.get(device.backend, False):
            opts.insert(0, ("kernel", fn.__name__))
        copts, n = _rt.compile_option_array(opts)
        image = ctypes.c_void_p()
        try:
            _rt.check(lib, lib.tegula_device_compile(
                device._require(), bytecode, len(bytecode), copts, n,
                ctypes.byref(image)))
        except _rt.TegulaError as e:
            message = "%s: compiling for %s (%s) failed: %s" % (
                fn.__name__, device.name, device.target, e.message)
            better = _errors.from_plugin_error(
                message, e.code, kernel=fn.__name__, signature=signature,
                source_file=getattr(fn, "source_file", None), src=source)
            if better is not None:
                raise better from None
            raise type(e)(message, e.code) from None
        try:
            try:
                self._load(device, lib.tegula_image_get_metadata(image).contents,
                           lib.tegula_image_get_data(image), lib.tegula_image_get_size(image))
            except _rt.TegulaError as e:
                # The device's own limit (a plugin checks the kernel's shared
                # memory when it loads it).
                oor = _errors.out_of_resources(e.message, e.code)
                if oor is not None:
                    raise _errors.OutOfResources(
                        oor.required, oor.limit, oor.name, "%s: loading on %s failed: %s"
                        % (fn.__name__, device.name, e.message), e.code) from None
                raise
            if keep is not None:
                keep(lib.tegula_image_get_metadata(image), lib.tegula_image_get_data(image),
                     lib.tegula_image_get_size(image))
        finally:
            lib.tegula_image_destroy(image)
        self.signature = signature
        self.requested = (num_warps, num_stages)
        self.writes = None  # get_kernel sets it from the compiler

    @classmethod
    def from_image(cls, device, metadata, data, size):
        """A kernel loaded from an image compiled before (a container's
        entry): |metadata| a tg_kernel_metadata, |data| the image's address."""
        self = cls.__new__(cls)
        self._load(device, metadata, data, size)
        self.signature = _rt.decode(metadata.specialization) or None
        self.requested = None
        self.writes = None  # which arguments it writes through: unknown
        return self

    def _load(self, device, md, data, size):
        """Loads the image at |data| on |device| and looks up its kernel."""
        rt = device._runtime
        lib = rt._lib
        self.name = _rt.decode(md.name)
        self.target = _rt.decode(md.target)
        self.num_warps = md.num_warps
        self.shared_memory = md.shared_memory
        self.args = [(_rt.decode(md.args[i].name), md.args[i].kind, md.args[i].type,
                      md.args[i].divisibility) for i in range(md.num_args)]
        self._metadata = self._copy_metadata(md)
        module = ctypes.c_void_p()
        _rt.check(lib, lib.tegula_module_load(device._require(), data, size,
                                              ctypes.byref(module)))
        self.device = device
        self._register(rt, module.value)
        kernel = ctypes.c_void_p()
        _rt.check(lib, lib.tegula_module_get_kernel(module.value, self.name.encode("utf-8"),
                                                     ctypes.byref(kernel)))
        self._kernel = kernel.value
        size = ctypes.c_size_t()
        _rt.check(lib, lib.tegula_args_layout(ctypes.byref(self._metadata), None,
                                              ctypes.byref(size)))
        self.packed_size = size.value
        warp = device.warp_size or 1
        self.block = (max(self.num_warps, 1) * warp, 1, 1)
        self._read_attributes(device)

    def _read_attributes(self, device):
        """Triton's n_regs, n_spills and n_max_threads, from what the plugin
        says of the loaded kernel (tegula_kernel_get_attributes): registers
        and spills 0 where it cannot tell (the host; Triton's CPU backend
        says 0 too), n_max_threads the device's limit then. A block larger
        than the kernel may have (its registers limit it) raises
        OutOfResources, as Triton's _init_handles does."""
        attrs = _rt.kernel_attributes(self._runtime._lib, self._kernel)
        self.attributes = types.SimpleNamespace(**attrs)
        self.n_regs = attrs["registers"] or 0
        self.n_spills = attrs["spills"] or 0
        limit = attrs["max_threads_per_block"]
        self.n_max_threads = limit if limit is not None else (device.max_threads_per_block or 0)
        if limit is not None and self.block[0] > limit:
            raise _errors.OutOfResources(
                self.block[0], limit, "threads",
                "%s: kernel %s on %s needs %d threads per block (%d warps); with %s "
                "registers per thread it may have at most %d" % (
                    self.name, self.name, device.name, self.block[0], self.num_warps,
                    attrs["registers"] if attrs["registers"] is not None else "its",
                    limit), 9)

    @staticmethod
    def _copy_metadata(md):
        own = _rt.sized(_rt.tg_kernel_metadata)
        own.name = md.name
        own.target = md.target
        own.num_warps = md.num_warps
        own.shared_memory = md.shared_memory
        own.num_args = md.num_args
        args = (_rt.tg_kernel_arg * max(md.num_args, 1))()
        for i in range(md.num_args):
            a = md.args[i]
            args[i] = _rt.tg_kernel_arg(a.name, a.kind, a.type, a.divisibility, 0)
        own.args = args
        own.specialization = md.specialization or b""
        return own

    def unload(self):
        self._release()

    _fn = None  # the JITFunction it was compiled from (None: a container's)

    @property
    def metadata(self):
        """Triton's ``CompiledKernel.metadata``: ``name``, ``num_warps``,
        ``num_stages`` (as requested), ``shared`` (static shared memory, bytes)
        and ``target``."""
        import types
        return types.SimpleNamespace(
            name=self.name, num_warps=self.num_warps, shared=self.shared_memory,
            num_stages=self.requested[1] if self.requested else None, target=self.target)

    def _init_handles(self):
        """Triton loads a kernel's module lazily here; Tegula's is loaded."""
        self._require()

    def __getitem__(self, grid):
        """Triton's launch of a compiled kernel (what ``warmup`` returns):
        ``ck[grid](*args)`` with every argument of the kernel, constexprs
        included, launched as its JITFunction launches them on this
        kernel's device with its num_warps and num_stages (arguments of
        another specialization get their own kernel, never this one)."""
        fn = self._fn
        if fn is None:
            raise TypeError("%s: a kernel loaded from a container is launched through "
                            "the container (container[name][grid](...))" % self.name)
        num_warps, num_stages = self.requested or (self.num_warps, 3)

        def run(*args, stream=None):
            return fn[grid](*args, num_warps=num_warps, num_stages=num_stages,
                            device=self.device, stream=stream)
        return run

    def pack(self, holders):
        lib = self._runtime._lib
        n = len(holders)
        values = (ctypes.c_void_p * max(n, 1))(*[ctypes.addressof(h) for h in holders])
        out = (ctypes.c_uint8 * max(self.packed_size, 8))()
        used = ctypes.c_size_t()
        _rt.check(lib, lib.tegula_args_pack(ctypes.byref(self._metadata), values, out,
                                            ctypes.sizeof(out), ctypes.byref(used)))
        return out, used.value

    def launch(self, grid, packed, size, stream, fn=None, args=None):
        """Launches on |grid| with the |packed| arguments; with a launch hook
        set, calls it around (|fn| and |args|, {parameter: value}, give the
        hook's LaunchMetadata its ``data``)."""
        if _HOOKED:
            return _run_hooked(fn, self, tuple(grid), stream, args or {},
                               lambda: self._launch_now(grid, packed, size, stream))
        self._launch_now(grid, packed, size, stream)

    def _launch_now(self, grid, packed, size, stream):
        lib = self._runtime._lib
        self._require()
        cfg = _rt.sized(_rt.tegula_launch_config)
        cfg.grid[:] = list(grid)
        cfg.block[:] = list(self.block)
        cfg.dynamic_shared_memory = 0
        _rt.check(lib, lib.tegula_kernel_launch(
            self._kernel, None if stream is None else stream._require(), ctypes.byref(cfg),
            packed, size))

    def __repr__(self):
        return "<tegula.CompiledKernel %s on %s [%s]>" % (self.name, self.device.name,
                                                          self.signature)


# -- The launch ----------------------------------------------------------------


def _read_source(fn):
    if not fn.source_file:
        raise _fail(RuntimeError, fn, "cannot find the source file of the kernel "
                    "(inspect.getsourcefile found none); kernels must live in a .py file")
    try:
        with open(fn.source_file, "rb") as f:
            return f.read()
    except OSError as e:
        raise _fail(RuntimeError, fn, "cannot read the kernel's source file: %s" % e) from None


def debug_enabled(fn):
    """Whether launches of |fn| run in the bounds-checked debug mode:
    ``@jit(debug=...)`` when given, else ``TEGULA_DEBUG`` set to anything
    but empty or 0 (as Triton's ``debug`` and ``TRITON_DEBUG``)."""
    if fn.debug is not None:
        return bool(fn.debug)
    return os.environ.get("TEGULA_DEBUG", "") not in ("", "0")


def get_kernel(fn, device, signature, num_warps, num_stages, options=()):
    """The loaded kernel for this specialization, compiled on first use. The
    key holds the compile options, the debug mode and the values of the
    environment variables the plugins' options read, so that a change of
    any compiles again. A debug kernel (``ck.debug``) takes two more i64
    arguments per pointer argument (bounds_arguments)."""
    debug = debug_enabled(fn)
    env = _rt.option_environment()
    key = (id(device._runtime), device.name, signature, num_warps, num_stages, options,
           env, debug)
    # Devices of one target run the same image: one compile, a module per device.
    image_key = (device._runtime._serial, device.target, signature, num_warps, num_stages,
                 options, env, debug)
    with fn._lock:
        ck = fn._cache.get(key)
        if ck is not None and ck.alive:
            return ck
        shared = fn._images.get(image_key)
        if shared is not None:
            blob, writes = shared
            ck = _diskcache.load_one_image(device, blob)
            ck.writes = writes
            ck.debug = debug
            ck.signature = signature
            ck.requested = (num_warps, num_stages)
            ck._fn = fn
            fn.shared_image_loads += 1
            fn._cache[key] = ck
            return ck

        def share(metadata, data, size):
            """Keeps the image (and which arguments it writes, known by
            now) for the other devices of its target."""
            if len(fn._images) >= 256:
                fn._images.clear()
            fn._images[image_key] = (_diskcache.one_image_container(
                device._runtime._lib, metadata, data, size), writes)

        source = _read_source(fn)
        roots = _compiler.default_search_paths()
        disk_key = keep = None
        deps = ()
        if _diskcache.enabled():
            # The source is the kernel's whole file: the key names the kernel.
            # Where its imports are looked for is in the key; what they read
            # is checked against the entry (pack_entry).
            disk_key = _diskcache.Key(source, signature, device, (
                ("kernel", fn.__name__), ("num_warps", str(num_warps)),
                ("num_stages", str(num_stages)),
                ("search-paths", os.pathsep.join(roots))) + (("debug", "1"),) * debug
                + options)
            blob, writes, deps = _diskcache.unpack_entry(_diskcache.lookup(disk_key))
            if blob is not None and _diskcache.dependencies_current(deps):
                try:
                    ck = _diskcache.load_one_image(device, blob)
                except _rt.TegulaError:
                    ck = None  # an entry this runtime cannot load: compile
                if ck is not None:
                    fn._images[image_key] = (blob, writes)
                    ck.writes = writes
                    ck.debug = debug
                    ck.signature = signature
                    ck.requested = (num_warps, num_stages)
                    fn.compile_count += 1
                    fn.disk_cache_hits += 1
                    ck._fn = fn
                    fn._cache[key] = ck
                    return ck

            def keep(metadata, data, size):
                share(metadata, data, size)
                if deps is None:  # a module it read is gone: keep nothing
                    return
                try:
                    _diskcache.store(disk_key, _diskcache.pack_entry(
                        _diskcache.one_image_container(device._runtime._lib, metadata,
                                                       data, size), writes, deps))
                except _rt.TegulaError:  # pragma: no cover - never fails a launch
                    pass
        else:
            keep = share
        try:
            imported = []
            bytecode, writes = _compiler.compile_kernel_info(
                source, fn.__name__, signature, file_name=fn.source_file,
                num_warps=num_warps, num_stages=num_stages, search_paths=roots,
                imported=imported, debug=debug)
            deps = _diskcache.dependencies(imported)
            ck = CompiledKernel(fn, device, signature, num_warps, num_stages, bytecode,
                                options, keep, source)
        except _errors.CompilationError as e:
            # Which argument got which type: an array where the kernel wants
            # a scalar shows as a pointer entry beside the parameter's name.
            raise e.name_parameters(fn.arg_names, fn.constexprs) from None
        ck.writes = writes
        ck._fn = fn
        ck.debug = debug
        fn.compile_count += 1
        fn._cache[key] = ck
        return ck


def _object_span(obj):
    """_span of a NumPy-like, torch or __cuda_array_interface__ array, or
    None when it does not say."""
    if _interop.is_torch_tensor(obj):
        size = int(obj.element_size())
        return _span(obj.shape, [st * size for st in obj.stride()], size)
    for attr in ("__array_interface__", "__cuda_array_interface__"):
        ai = getattr(obj, attr, None)
        if ai is None:
            continue
        import numpy as np
        size = np.dtype(ai["typestr"]).itemsize
        shape = ai["shape"]
        strides = ai.get("strides")
        if strides is None:  # C-contiguous
            strides, step = [], size
            for n in reversed(shape):
                strides.insert(0, step)
                step *= int(n)
        return _span(shape, strides, size)
    return None


#: The bounds of a pointer argument whose buffer the launcher cannot see:
#: wide enough to accept every access.
_UNBOUNDED = (-2 ** 62, 2 ** 62)


def bounds_arguments(passed):
    """The debug mode's hidden arguments (tile-bounds-check): for each
    pointer argument of |passed|, in order, the first and one past the last
    byte of the buffer the kernel receives, from the pointer it receives."""
    out = []
    for _, _, (kind, value) in passed:
        if kind != "ptr":
            continue
        if isinstance(value, Buffer):
            bounds = (0, value.nbytes)
        elif isinstance(value, _interop.DeviceArray):
            bounds = _object_span(value.obj) or _UNBOUNDED
        elif value.buffer is not None:  # a copy: the array's bytes, contiguous
            bounds = (0, value.buffer.nbytes)
        else:
            bounds = _object_span(value.obj) or (0, value.nbytes)
        out.extend(ctypes.c_int64(b) for b in bounds)
    return out


def check_launch_options(fn, num_warps, num_stages):
    """ValueError unless num_warps is a power of 2 and num_stages an int >= 0."""
    if isinstance(num_warps, bool) or not isinstance(num_warps, int) or num_warps < 1 \
            or num_warps & (num_warps - 1):
        raise _fail(ValueError, fn, "num_warps must be a power of 2, not %r" % (num_warps,))
    if isinstance(num_stages, bool) or not isinstance(num_stages, int) or num_stages < 0:
        raise _fail(ValueError, fn, "num_stages must be an int >= 0, not %r" % (num_stages,))


def _refuse_copy_while_capturing(fn, name, arr):
    """RuntimeError when a host array would be copied to the device while
    PyTorch captures a CUDA graph: the copy allocates device memory and
    synchronizes, which a capture forbids (and a replay would not redo)."""
    torch = _interop._torch()
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    capturing = getattr(cuda, "is_current_stream_capturing", None)
    try:
        active = capturing is not None and cuda.is_available() and capturing()
    except Exception:  # pragma: no cover - a torch without a usable CUDA
        active = False
    if active:
        raise _fail(RuntimeError, fn, "argument '%s' is host memory (%s), which a launch "
                    "copies to the device and back; that cannot happen inside a CUDA graph "
                    "capture: pass a CUDA tensor" % (name, type(arr.obj).__name__))


def specialize(fn, arguments, device, arrays, temporaries=None, dtypes=None):
    """(signature entries, passed) of a launch (or warmup) on |device| with
    the bound |arguments|: one entry per parameter (a constexpr's literal,
    "None", or classify's entry with the ``:16`` of the address the kernel
    receives), and per argument that reaches the kernel (name, entry,
    classify's what), descriptors expanded. |arrays|: device_arrays().
    |temporaries|: a list the device buffers of arrays copied to the device
    go into, allocated here so that their alignment is what the kernel
    gets; None (a warmup) takes such arrays as 16-byte aligned, as new
    device buffers are. |dtypes|: {parameter: dtype name} of parameters
    given a dtype in place of an array (a warmup), taken as aligned."""
    host_memory = uses_host_memory(device)
    entries, passed = [], []
    for p in fn.params:
        v = arguments[p.name]
        if p.name in fn.constexprs:
            try:
                entries.append(_constexpr_literal(v))
            except (TypeError, ValueError) as e:
                raise _fail(type(e), fn, "constexpr '%s': %s" % (p.name, e)) from None
            continue
        if v is None:
            # As in Triton: None specializes the parameter to the constant
            # None (`if bias_ptr is not None:` in the kernel); the compiled
            # kernel takes no argument for it.
            entries.append("None")
            continue
        annotated = fn._pointer_dtypes.get(p.name)
        dt = dtypes.get(p.name) if dtypes else None
        if dt is not None:
            if annotated and dt != annotated:
                raise _fail(TypeError, fn, "argument '%s' is annotated *%s but the dtype "
                            "given is %s" % (p.name, annotated, dt))
            entries.append("*%s%s" % (dt, "" if p.name in fn._nospec else ":16"))
            continue
        desc = v if isinstance(v, TensorDescriptor) else None
        if desc is not None:
            v = desc.base
        if p.name not in arrays and _interop.is_dlpack_only(v):
            try:  # host memory known only through __dlpack__: a NumPy view of it
                v = _interop.host_dlpack(v) or v
            except TypeError as e:
                raise _fail(TypeError, fn, "argument '%s': %s" % (p.name, e)) from None
        entry, what = classify(fn, p.name, v, annotated, host_memory, arrays.get(p.name))
        if desc is not None and what[0] != "ptr":
            raise _fail(TypeError, fn, "argument '%s': a TensorDescriptor's base must be "
                        "an array or a tegula.Buffer" % p.name)
        if what[0] == "ptr" and isinstance(what[1], _ArrayArg):
            arr = what[1]
            if host_memory:
                address = arr.address
            elif temporaries is None:
                address = 0
            else:
                _refuse_copy_while_capturing(fn, p.name, arr)
                arr.buffer = _shared_buffer(passed, arr) or Buffer(device, arr.nbytes)
                if arr.buffer not in temporaries:
                    temporaries.append(arr.buffer)
                address = arr.buffer.device_address
            entry = "*%s%s" % (entry, ":16" if address % 16 == 0 else "")
        if desc is not None:
            if not entry.endswith(":16"):
                raise _fail(ValueError, fn, "argument '%s': a TensorDescriptor's base "
                            "must be 16-byte aligned" % p.name)
            try:
                entries.append(desc.signature_entry())
            except ValueError as e:
                raise _fail(ValueError, fn, "argument '%s': %s" % (p.name, e)) from None
            passed.extend(_descriptor_args(fn, p.name, desc, entry, what))
            continue
        if what[0] == "ptr" and p.name in fn._nospec:
            # do_not_specialize(_on_alignment): no :16, so that every
            # address runs the one kernel (the launcher's key still tells
            # aligned from not, each entry holding that kernel).
            entry = entry.split(":", 1)[0]
        entries.append(entry)
        passed.append((p.name, entry, what))
    return entries, passed


def _full_launch(fn, grid, arguments, num_warps, num_stages, device, stream, options=(),
                 record=None):
    """A launch with every check (_launcher.py's full launch) of the bound
    |arguments|; |options|: the compile options, sorted (key, value) pairs.
    |record|, when given, is called after the launch with (device, kernel,
    passed, host memory?, stream, packed bytes) unless host arrays were
    copied (the launcher records an entry from them)."""
    check_launch_options(fn, num_warps, num_stages)
    try:
        stream = _interop.parse_stream(stream)
    except (TypeError, ValueError) as e:
        raise _fail(type(e), fn, str(e)) from None
    arrays = device_arrays(fn, arguments)
    device = resolve_device(fn, device, stream, arguments, arrays)
    meta = {k: (v.value if isinstance(v, tl.constexpr) else v) for k, v in arguments.items()}
    grid3 = normalize_grid(fn, grid, meta)
    stream = resolve_stream(fn, device, stream, arrays)
    host_memory = uses_host_memory(device)

    temporaries = []  # buffers this launch allocated
    try:
        entries, passed = specialize(fn, arguments, device, arrays, temporaries)
        signature = ", ".join(entries)

        ck = get_kernel(fn, device, signature, num_warps, num_stages, options)
        hidden = bounds_arguments(passed) if getattr(ck, "debug", False) else []
        if len(ck.args) != len(passed) + len(hidden):
            raise _fail(RuntimeError, fn, "the compiled kernel takes %d arguments (its "
                        "metadata), but %d parameters are not constexprs (%s)%s; the front "
                        "end and the launcher disagree on which parameters reach the kernel"
                        % (len(ck.args), len(passed), ", ".join(n for n, _, _ in passed),
                           " and the debug mode adds %d" % len(hidden) if hidden else ""))
        _check_read_only(fn, ck, passed)
        holders = []
        for (name, entry, (kind, value)), (mname, mkind, mtype, _) in zip(passed, ck.args):
            want = _rt.ARG_POINTER if kind == "ptr" else _rt.ARG_SCALAR
            if mkind != want:
                raise _fail(RuntimeError, fn, "argument '%s' (%s) is a %s in the compiled "
                            "kernel's metadata (argument '%s')" % (
                                name, entry, "pointer" if mkind == _rt.ARG_POINTER
                                else "scalar", mname))
            if kind == "ptr":
                if isinstance(value, Buffer):
                    holders.append(ctypes.c_uint64(value.device_address))
                elif isinstance(value, _interop.DeviceArray):
                    holders.append(ctypes.c_uint64(value.address))
                elif value.buffer is not None:
                    holders.append(ctypes.c_uint64(value.buffer.device_address))
                else:
                    holders.append(ctypes.c_uint64(value.address))
            else:
                holders.append(scalar_holder(fn, name, value, mtype, entry))
        packed, size = ck.pack(holders + hidden)

        copies = [what[1] for _, _, what in passed
                  if what[0] == "ptr" and isinstance(what[1], _ArrayArg) and what[1].buffer]
        seen = set()
        for arr in copies:
            if id(arr.buffer) not in seen:
                seen.add(id(arr.buffer))
                _copy(device, arr, to_device=True, stream=stream)
        ck.launch(grid3, packed, size, stream, fn, arguments)
        seen = set()
        for arr in copies:
            if arr.writable and id(arr.buffer) not in seen:
                seen.add(id(arr.buffer))
                _copy(device, arr, to_device=False, stream=stream)
        if stream is not None and stream.native_handle is not None:
            # A native stream is synchronized by its framework, not through
            # Tegula: host arrays copied in and out are done when the call
            # returns, and the temporary buffers are freed (below).
            if copies:
                stream.synchronize()
        elif stream is not None:
            # Host arrays and device buffers stay alive until the stream's
            # work is done (Stream.synchronize clears this).
            stream._keep.extend(temporaries + [a.obj for a in copies])
            temporaries = []
        if record is not None and not copies:
            try:
                record(device, ck, passed, host_memory, stream, bytes(packed)[:size])
            except Exception:  # pragma: no cover - then the next call is a full one too
                pass
        return ck
    finally:
        for b in temporaries:
            b.free()


def _check_read_only(fn, ck, passed):
    """A read-only host array may only be an argument the kernel never
    writes through (ck.writes, from the compiler's analysis): passed in
    place, a write would change memory its owner made read-only (an
    immutable ``bytes`` under ``numpy.frombuffer``); copied, it would be
    lost."""
    writes = getattr(ck, "writes", None)
    for i, (name, _, (kind, value)) in enumerate(passed):
        if kind != "ptr" or not isinstance(value, _ArrayArg) or value.writable:
            continue
        if writes is None or i >= len(writes):
            raise _fail(ValueError, fn, "argument '%s' is a read-only array, and the "
                        "compiler library cannot tell whether the kernel writes through "
                        "it (it predates API 1.1); pass a writable array" % name)
        if writes[i]:
            raise _fail(ValueError, fn, "argument '%s' is a read-only array, but the kernel "
                        "writes through it (a store or an atomic reaches it); pass a "
                        "writable array (a copy: numpy.frombuffer over bytes and "
                        "numpy.broadcast_to views are read-only)" % name)


def _shared_buffer(passed, arr):
    """The device buffer of an earlier argument that is the same array (same
    address and size), so that a kernel reading and writing it sees one copy."""
    for _, _, what in passed:
        other = what[1]
        if isinstance(other, _ArrayArg) and other.buffer is not None and \
                other.address == arr.address and other.nbytes == arr.nbytes:
            return other.buffer
    return None


def _copy(device, arr, to_device, stream):
    """Copies a contiguous host array to (or from) its device buffer."""
    if not arr.nbytes:
        return
    lib = device._runtime._lib
    s = None if stream is None else stream._require()
    if to_device:
        err = lib.tegula_buffer_write(arr.buffer._require(), 0, arr.address, arr.nbytes, s)
    else:
        err = lib.tegula_buffer_read(arr.buffer._require(), 0, arr.address, arr.nbytes, s)
    _rt.check(lib, err)


# -- Argument layout ---------------------------------------------------------------


def _layout(ck):
    """(offsets, packed size) of the kernel's arguments, from the runtime."""
    lay = getattr(ck, "_layout", None)
    if lay is None:
        lib = ck._runtime._lib
        n = len(ck.args)
        offsets = (ctypes.c_size_t * max(n, 1))()
        size = ctypes.c_size_t()
        _rt.check(lib, lib.tegula_args_layout(ctypes.byref(ck._metadata), offsets,
                                              ctypes.byref(size)))
        lay = ck._layout = (list(offsets)[:n], size.value)
    return lay
