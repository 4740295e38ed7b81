"""``@tegula.jit``: records a kernel's name and source file, computes the
Triton-AOT signature string ``tegula compile --signature`` takes, and
launches with ``kernel[grid](*args, **constexprs)`` (``_launch.py``).
"""

import inspect
import threading

from . import _runtime as _rt
from . import language as tl

__all__ = ["jit", "JITFunction", "specialize_arg", "dtype_name"]

# NumPy dtype names (and ml_dtypes' extension names, matched by name so that
# ml_dtypes is never required) -> signature dtype names.
_DTYPE_NAMES = {
    "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "float32": "fp32", "float64": "fp64",
    "bfloat16": "bf16",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    # torch spellings (str(torch.float8_e4m3fn) == "torch.float8_e4m3fn")
    "half": "fp16", "float": "fp32", "double": "fp64",
}

# __array_interface__ typestr kinds/sizes -> names (used without NumPy).
_TYPESTR = {
    ("b", 1): "i1",
    ("i", 1): "i8", ("i", 2): "i16", ("i", 4): "i32", ("i", 8): "i64",
    ("u", 1): "u8", ("u", 2): "u16", ("u", 4): "u32", ("u", 8): "u64",
    ("f", 2): "fp16", ("f", 4): "fp32", ("f", 8): "fp64",
}


def dtype_name(dt):
    """The signature name (``fp32``, ``bf16``, ``i1``...) of a NumPy dtype, a
    typestr, a ``tl`` dtype or a torch dtype."""
    if isinstance(dt, tl.dtype):
        return dt.short_name
    name = getattr(dt, "name", None)
    if name is None:
        s = str(dt)
        name = s[len("torch."):] if s.startswith("torch.") else s
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    if isinstance(dt, str) and len(dt) >= 3 and dt[0] in "<>|=" and dt[1] in "biuf":
        key = (dt[1], int(dt[2:]))
        if key in _TYPESTR:
            return _TYPESTR[key]
    raise TypeError("no Triton element type for dtype %s" % (name,))


def _array_pointer(arg):
    """(address, dtype name) for an array-like argument, or None."""
    from ._interop import is_torch_tensor
    if is_torch_tensor(arg):  # before __cuda_array_interface__, which raises for
        return int(arg.data_ptr()), dtype_name(arg.dtype)  # tensors requiring grad
    for attr in ("__cuda_array_interface__", "__array_interface__"):
        ai = getattr(arg, attr, None)
        if ai is not None:
            addr = ai["data"][0] if ai.get("data") is not None else 0
            dt = getattr(arg, "dtype", None)
            if dt is not None and getattr(dt, "name", None) in _DTYPE_NAMES:
                return int(addr or 0), dtype_name(dt)
            # ml_dtypes types report typestr "<V2"; prefer descr/dtype names.
            if dt is not None:
                return int(addr or 0), dtype_name(dt)
            return int(addr or 0), dtype_name(ai["typestr"])
    if hasattr(arg, "data_ptr") and hasattr(arg, "dtype"):  # torch-like
        return int(arg.data_ptr()), dtype_name(arg.dtype)
    return None


def _int_type(v):
    # Triton's rule (JITFunction._type_of / mangle_type).
    if -2 ** 31 <= v <= 2 ** 31 - 1:
        return "i32"
    if 2 ** 63 <= v <= 2 ** 64 - 1:
        return "u64"
    if -2 ** 63 <= v <= 2 ** 63 - 1:
        return "i64"
    raise ValueError("integer argument %d does not fit in 64 bits" % v)


def specialize_arg(arg):
    """The signature entry of one (non-constexpr) argument, by Triton's rules:
    arrays -> ``*<dtype>`` (``:16`` when the address is a multiple of 16);
    bool -> ``i1``; int -> ``i32``/``i64``/``u64`` (``:16`` when divisible
    by 16, ``:1`` when equal to 1); float -> ``fp32``."""
    try:
        import numpy as np
        np_int, np_float, np_bool = np.integer, np.floating, np.bool_
    except ImportError:  # pragma: no cover
        np_int = np_float = np_bool = ()
    if isinstance(arg, tl.constexpr):
        raise TypeError("a tl.constexpr value was passed for a parameter not annotated "
                        "tl.constexpr")
    if arg is None:
        raise TypeError("None is only allowed for tl.constexpr parameters")
    if isinstance(arg, bool) or (np_bool and isinstance(arg, np_bool)):
        return "i1"
    if isinstance(arg, int) or (np_int and isinstance(arg, np_int)):
        v = int(arg)
        t = _int_type(v)
        if v == 1:
            return t + ":1"
        if v % 16 == 0:
            return t + ":16"
        return t
    if isinstance(arg, float) or (np_float and isinstance(arg, np_float)):
        return "fp32"
    ptr = _array_pointer(arg)
    if ptr is not None:
        addr, name = ptr
        return "*" + name + (":16" if addr % 16 == 0 else "")
    raise TypeError("cannot specialize an argument of type %r (expected an array, an int, "
                    "a float or a bool)" % type(arg).__name__)


def _constexpr_literal(value):
    """A constexpr value as `tegula compile` reads it."""
    if isinstance(value, tl.constexpr):
        value = value.value
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if '"' in value or "\\" in value:
            raise ValueError("constexpr string %r has a quote or backslash" % value)
        return '"%s"' % value
    if isinstance(value, tl.dtype):
        return value.short_name
    try:
        import numpy as np
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
            return dtype_name(np.dtype(value))
        if isinstance(value, np.integer):
            return str(int(value))
        if isinstance(value, np.floating):
            return repr(float(value))
    except ImportError:  # pragma: no cover
        pass
    raise TypeError("constexpr value %r is not an int, float, bool, None, str or dtype" % (value,))


def _is_constexpr_annotation(ann):
    if ann is inspect.Parameter.empty:
        return False
    if ann is tl.constexpr or (isinstance(ann, type) and issubclass(ann, tl.constexpr)):
        return True
    if isinstance(ann, str):  # from __future__ import annotations
        return ann.split(".")[-1] == "constexpr"
    return getattr(ann, "__name__", None) == "constexpr"  # triton.language.constexpr too


class _Launcher:
    """``kernel[grid]``: calling it launches (see ``JITFunction.__getitem__``)."""

    def __init__(self, fn, grid):
        self.fn = fn
        self.grid = grid

    def __call__(self, *args, num_warps=4, num_stages=3, device=None, stream=None, **kwargs):
        fn = self.fn
        if fn._pointer_dtypes is None:
            from . import _launch
            fn._pointer_dtypes = {
                p.name: d for p in fn.params
                for d in [_launch.pointer_annotation(fn, p)] if d is not None}
        options = ()
        if kwargs:
            # Keywords that name no parameter but a compile option a loaded
            # plugin declares are compile options (as Triton passes backend
            # options); the device's plugin rejects those it does not
            # declare, naming what it takes. Any other keyword is left to
            # binding, which raises TypeError for it.
            names = fn._param_set
            extra = [k for k in kwargs if k not in names and k in _rt.option_names]
            if extra:
                options = tuple(sorted((k, _option_text(fn, k, kwargs.pop(k)))
                                       for k in extra))
        return _launch_fn()(fn, self.grid, args, kwargs, num_warps, num_stages, device,
                            stream, options)


def _option_text(fn, name, value):
    """A compile option's value as the plugin ABI spells it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError("%s: compile option %s=%r: expected a bool, an int or a str (or a "
                    "parameter of the kernel: %s)" % (fn.__name__, name, value,
                                                      ", ".join(fn.arg_names)))


_launch_impl = None


def _launch_fn():
    """_launch.launch (imported on first use: _launch imports the package)."""
    global _launch_impl
    if _launch_impl is None:
        from ._launch import launch
        _launch_impl = launch
    return _launch_impl


class JITFunction:
    """A kernel: ``fn``, ``__name__``, ``source_file``, ``params``,
    ``constexprs`` (the names of the parameters annotated tl.constexpr)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        try:
            self.source_file = inspect.getsourcefile(fn)
        except TypeError:
            self.source_file = None
        self.signature = inspect.signature(fn)
        self.params = list(self.signature.parameters.values())
        for p in self.params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError("@tegula.jit kernel %s: *args/**kwargs parameters are not "
                                "supported" % self.__name__)
        self.arg_names = [p.name for p in self.params]
        self._param_set = frozenset(self.arg_names)
        self.constexprs = [p.name for p in self.params
                           if _is_constexpr_annotation(p.annotation)]
        # Launch state (_launch.py): loaded kernels by (runtime, device,
        # signature, num_warps, num_stages), and how many were compiled.
        self._cache = {}
        self._lock = threading.Lock()
        self.compile_count = 0
        self._pointer_dtypes = None  # parameter -> dtype its annotation requires
        self._fast = None  # _launch._FastPath: repeated launches of one kind

    def specialize(self, *args, **kwargs):
        """The signature string for these arguments, e.g.
        ``"*fp32:16, *fp32:16, i32, 1024"``: one entry per parameter, in
        order; constexpr parameters as their literal value. Parameters with
        defaults may be left out."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s.specialize: %s" % (self.__name__, e)) from None
        bound.apply_defaults()
        parts = []
        for p in self.params:
            v = bound.arguments[p.name]
            if p.name in self.constexprs:
                parts.append(_constexpr_literal(v))
            else:
                try:
                    parts.append(specialize_arg(v))
                except (TypeError, ValueError) as e:
                    raise type(e)("%s.specialize: argument %r: %s" % (self.__name__, p.name, e)) \
                        from None
        return ", ".join(parts)

    def __getitem__(self, grid):
        """``kernel[grid](*args, num_warps=4, num_stages=3, device=None,
        stream=None, **kwargs)`` launches on |device| (default: the stream's,
        the buffers' or the device arrays' device, else
        ``tegula.default_device()``) in |stream| (a tegula.Stream, a native
        handle or a torch stream; None: PyTorch's current stream for torch
        CUDA tensors, else the NULL stream); |grid| is a
        tuple of 1 to 3 ints or a callable given {parameter: value} that
        returns one. Returns the CompiledKernel. README.md says how arrays
        are passed."""
        return _Launcher(self, grid)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "%s is a @tegula.jit kernel: launch it as %s[grid](...), or call it only from "
            "another kernel" % (self.__name__, self.__name__))

    def __repr__(self):
        return "<tegula.JITFunction %s from %s>" % (self.__name__, self.source_file)


def jit(fn=None, **options):
    """Decorator: ``@tegula.jit`` or ``@tegula.jit(...)`` (options are
    recorded in ``.options``, not yet used)."""
    def wrap(f):
        k = JITFunction(f)
        k.options = dict(options)
        return k
    return wrap(fn) if fn is not None else wrap
