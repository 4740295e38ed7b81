"""The launcher's per-call steps in Python, and the loading of their C
version ``tegula._accel`` (``_accel.c``, built by CMake where Python's
development headers are). Both give the same results:

``arg_key(value)``
    ``(key part, value to pack)`` of a non-constexpr argument, or None when
    the generated launcher does not take it (the full launch then decides):
    an int: its specialization code (``int_code``); a float or bool: its
    type; a NumPy scalar: ``(type, code)`` or its type; a NumPy array:
    ``(ndarray, dtype, 16-byte aligned, writable)`` and its address; a CPU
    torch tensor ``("cpu", dtype, aligned)``, a CUDA one ``("cuda",
    device index, dtype, aligned)``, each with its address; a
    ``tegula.Buffer`` ``(Buffer, dtype, id(device), aligned)``; a
    TensorWrapper ``(TensorWrapper, its dtype, its base's key part)``. Views whose
    elements overlap, subclasses of ndarray and anything else give None.

``arg_keys(*values)``
    ``((key parts), (values to pack))`` of ``arg_key`` for every value, or
    None when one has no key.

``environment_key(data, keys)``
    a small int naming the values of the option variables |keys| (bytes) in
    |data| (``os.environ``'s own dict; None: read them through
    ``_runtime.option_environment``): equal values give equal ints, and an
    int is never given to other values. The extension keeps its last answer
    until the dict changes.

``arg_bounds(value)``
    the debug mode's hidden arguments of a pointer argument that
    ``arg_key`` took: the first and one past the last byte of its elements,
    from the address ``arg_key`` gives (a view ends where it ends); None when
    it cannot tell. Debug launches are not about speed: both forms of the
    launcher compute these here, and ``_accel`` packs them as i64s.

``struct_runner(...)``
    packing (``struct``, into a reused buffer) and the driver call through
    ctypes; ``_accel`` packs and calls in C (``make_layout``, ``pack``,
    ``launch``, and ``runner``: a launcher entry's whole launch).

``TEGULA_NO_ACCEL=1`` in the environment keeps ``_accel`` unloaded.
"""

import ctypes
import importlib.machinery
import itertools
import importlib.util
import os
import struct
import sys

from . import _interop
from ._jit import TensorWrapper, dtype_name

_INT_CODES_NP = {}


def int_code(v):
    """The specialization of int |v| as a small int: 0 (i32), 4 (u64) or 8
    (i64), plus 1 for the value 1 and 2 for a multiple of 16; None when it
    does not fit 64 bits."""
    if -0x80000000 <= v <= 0x7FFFFFFF:
        w = 0
    elif 0x8000000000000000 <= v <= 0xFFFFFFFFFFFFFFFF:
        w = 4
    elif -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
        w = 8
    else:
        return None
    return w + (1 if v == 1 else 2 if not v & 15 else 0)


_NP_KINDS = {}


def np_kind(t):
    """"int", "float" or "bool" for a NumPy scalar type, else None."""
    kind = _NP_KINDS.get(t, False)
    if kind is False:
        kind = None
        np = sys.modules.get("numpy")
        if np is not None and isinstance(t, type):
            if issubclass(t, np.bool_):
                kind = "bool"
            elif issubclass(t, np.integer):
                kind = "int"
            elif issubclass(t, np.floating):
                kind = "float"
        if len(_NP_KINDS) >= 256:
            _NP_KINDS.clear()
        _NP_KINDS[t] = kind
    return kind


def _ndarray():
    np = sys.modules.get("numpy")
    return None if np is None else np.ndarray


def arg_key(v):
    """See the module doc."""
    t = type(v)
    if t is int:
        code = int_code(v)
        return None if code is None else (code, v)
    if t is float or t is bool:
        return t, v
    if t is _ndarray():
        a = v.ctypes.data or 0  # (faster than __array_interface__)
        flags = v.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            from ._launch import host_overlap
            if host_overlap(v):
                return None  # the full launch refuses it
        return (t, v.dtype, not a & 15, bool(flags.writeable)), a
    kind = np_kind(t)
    if kind == "int":
        code = int_code(int(v))
        return None if code is None else ((t, code), v)
    if kind is not None:
        return t, v
    if t is TensorWrapper:  # triton.reinterpret: the base's key, as another dtype
        inner = arg_key(v.base)
        try:
            dt = dtype_name(v.dtype)
        except TypeError:
            return None
        return None if inner is None else ((t, dt, inner[0]), inner[1])
    from . import Buffer
    if t is Buffer:
        if v._handle is None:
            return None
        a = v._address
        return (t, v.dtype, id(v.device), not a & 15), a
    if _interop.is_torch_tensor(v):
        return _torch_key(v)
    return None


def arg_keys(*values):
    """See the module doc."""
    keys, vals = [], []
    for v in values:
        kv = arg_key(v)
        if kv is None:
            return None
        keys.append(kv[0])
        vals.append(kv[1])
    return tuple(keys), tuple(vals)


_ENV_IDS = {}
_env_ids = itertools.count()


def environment_key(data, keys):
    """See the module doc."""
    if data is None:
        from . import _runtime
        values = _runtime.option_environment()
    else:
        values = tuple(map(data.get, keys))
    i = _ENV_IDS.get(values)
    if i is None:
        if len(_ENV_IDS) >= 256:
            _ENV_IDS.clear()  # ids are never reused: known values get new ones
        i = _ENV_IDS[values] = next(_env_ids)
    return i


def _torch_key(v):
    if _accel is not None:  # torch came after the extension's setup: tell it
        _accel.set_tensor_type(_interop._torch().Tensor)
    try:
        if v.is_cuda:
            a = int(v.data_ptr())
            return ("cuda", int(v.get_device()), v.dtype, not a & 15), a
        if v.is_cpu:
            if not v.is_contiguous():
                from ._launch import host_overlap
                if host_overlap(v):
                    return None
            a = int(v.data_ptr())
            return ("cpu", v.dtype, not a & 15), a
    except Exception:  # a tensor-like without these: the full launch says what is wrong
        pass
    return None


def _span(shape, strides, itemsize):
    """(first byte, one past the last byte) of a strided view's elements,
    from its data pointer (strides in bytes); (0, 0) when it has none."""
    begin = end = 0
    for n, st in zip(shape, strides):
        n = int(n)
        if n == 0:
            return 0, 0
        step = (n - 1) * int(st)
        if step < 0:
            begin += step
        else:
            end += step
    return begin, end + int(itemsize)


def arg_bounds(v):
    """See the module doc."""
    t = type(v)
    if t is _ndarray():
        return _span(v.shape, v.strides, v.itemsize)
    if t is TensorWrapper:  # the base's memory, whatever dtype it is read as
        return arg_bounds(v.base)
    from . import Buffer
    if t is Buffer:
        return 0, v.nbytes
    if _interop.is_torch_tensor(v):
        size = int(v.element_size())
        return _span(v.shape, [st * size for st in v.stride()], size)
    return None


def grid3(g):
    """(x, y, z) for a tuple of 1 to 3 ints (not bools) within the launch
    limits, else None (the caller then checks it and says what is wrong)."""
    if type(g) is not tuple:
        return None
    n = len(g)
    if n == 1:
        x = g[0]
        if type(x) is int and 0 < x <= 0x7FFFFFFF:
            return (x, 1, 1)
        return None
    if n == 2:
        x, y = g
        z = 1
    elif n == 3:
        x, y, z = g
    else:
        return None
    if type(x) is int and type(y) is int and type(z) is int and 0 < x <= 0x7FFFFFFF \
            and 0 < y <= 65535 and 0 < z <= 65535:
        return (x, y, z)
    return None


#: tg_scalar_type name (and "ptr") -> struct format (native order, standard sizes).
STRUCT = {
    "ptr": "Q", "i1": "?", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B",
    "u16": "H", "u32": "I", "u64": "Q", "fp32": "f", "fp64": "d", "fp16": "H",
    "bf16": "H", "fp8e4nv": "B", "fp8e5": "B",
}


def struct_format(codes, offsets, total):
    """The struct format that puts |codes| at |offsets| in |total| bytes;
    None when they overlap or do not fit."""
    fmt, at = ["="], 0
    for code, off in zip(codes, offsets):
        char = STRUCT.get(code)
        if char is None or off < at:
            return None
        fmt.append("%dx%s" % (off - at, char) if off > at else char)
        at = off + struct.calcsize("=" + char)
    if total < at:
        return None
    if total > at:
        fmt.append("%dx" % (total - at))
    return "".join(fmt)


_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)


def struct_runner(launch_fn, kernel, codes, offsets, total, convert):
    """(run, pack) as _launcher._runner says, through struct and ctypes:
    buffers are reused from a pool (a launch may run on another thread
    while this one's ctypes call has released the GIL)."""
    fmt = struct_format(codes, offsets, total)
    if fmt is None:
        raise ValueError("no struct layout for %r at %r" % (codes, offsets))
    # tegula_kernel_launch taking the launch config by address.
    launch_fn = _LAUNCH(ctypes.cast(launch_fn, ctypes.c_void_p).value)
    packer = struct.Struct(fmt)
    pack_into = packer.pack_into
    size = packer.size
    pool = []
    if not any(convert):
        convert = None

    def run(stream, cfg, *vals):
        if convert is not None:
            try:
                vals = [c(x) if c is not None else x for c, x in zip(convert, vals)]
            except Exception:
                return None
        try:
            buf = pool.pop()
        except IndexError:
            buf = (ctypes.c_char * max(size, 8))()
        try:
            pack_into(buf, 0, *vals)
        except Exception:  # out of range, not a number...: the full launch says what
            pool.append(buf)
            return None
        err = launch_fn(kernel, stream, cfg, buf, size)
        pool.append(buf)
        return err or 0

    def pack(vals):
        if convert is not None:
            vals = [c(x) if c is not None else x for c, x in zip(convert, vals)]
        return packer.pack(*vals)
    return run, pack


class _Fallback:
    """The accel interface in Python: arg_key here, packing by struct."""

    arg_key = staticmethod(arg_key)
    arg_keys = staticmethod(arg_keys)
    environment_key = staticmethod(environment_key)
    grid3 = staticmethod(grid3)
    available = False

    @staticmethod
    def make_layout(codes, offsets, total):
        return None  # _launcher uses struct_runner


_accel = None


def accel_path():
    """Where the built extension is: beside this package (a wheel, a copy),
    else in ``lib/tegula/python`` beside the loaded libtegula_runtime (a
    build tree, an install). None when there is none."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [here]
    try:
        from . import _runtime
        lib = _runtime.library_path()
        if lib:
            dirs.append(os.path.join(os.path.dirname(lib), "tegula", "python"))
    except Exception:  # no runtime: the launcher will say so itself
        pass
    for d in dirs:
        for s in suffixes:
            p = os.path.join(d, "_accel" + s)
            if os.path.exists(p):
                return p
    return None


def load_accel():
    """tegula._accel set up for this process, or the Python fallback."""
    global _accel
    if os.environ.get("TEGULA_NO_ACCEL", "").strip() not in ("", "0"):
        return _Fallback
    path = accel_path()
    if path is None:
        return _Fallback
    try:
        spec = importlib.util.spec_from_file_location("tegula._accel", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except (ImportError, OSError):
        return _Fallback
    np = sys.modules.get("numpy")
    if np is None:
        try:
            import numpy as np
        except ImportError:
            np = None
    if np is not None:
        # The extension reads NumPy's array struct (its public fields): it
        # checks them against what NumPy says of this array.
        probe = np.arange(4, dtype=np.float32)[1:]
        mod.setup(arg_key, np.ndarray, probe, probe.__array_interface__["data"][0])
    else:
        mod.setup(arg_key, None, None, 0)
    torch = _interop._torch()
    if torch is not None:
        mod.set_tensor_type(torch.Tensor)
    # An extension built from an older _accel.c: the steps it lacks in Python.
    if not hasattr(mod, "arg_keys"):
        mod.arg_keys = arg_keys
    if not hasattr(mod, "environment_key"):
        mod.environment_key = environment_key
    _accel = mod
    mod.available = True
    return mod
