"""``@tegula.jit``: records a kernel's name and source file, computes the
Triton-AOT signature string ``tegula compile --signature`` takes, and
launches with ``kernel[grid](*args, **constexprs)`` (``_launch.py``).
"""

import functools
import inspect
import sys
import threading

from . import _runtime as _rt
from . import language as tl

__all__ = ["jit", "JITFunction", "specialize_arg", "dtype_name", "MockTensor",
           "TensorWrapper", "reinterpret"]

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
    if isinstance(dt, type):  # a NumPy scalar type (np.float16)
        np = sys.modules.get("numpy")
        if np is not None and issubclass(dt, np.generic):
            dt = np.dtype(dt)
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
        kind = type(arg)
        if kind is Unspecialized:  # do_not_specialize: one kernel for every value
            return t
        if kind is Unaligned:  # do_not_specialize_on_alignment: no :16
            return t + ":1" if v == 1 else t
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


class Unspecialized(int):
    """An int argument of a ``do_not_specialize`` parameter: specialize_arg
    gives it its bare type (no ``:1``, no ``:16``), so that every value runs
    one compiled kernel. Being no plain int, it also keeps such launches off
    the fast path, whose key holds the specialization of plain ints."""

    __slots__ = ()


class Unaligned(int):
    """An int argument of a ``do_not_specialize_on_alignment`` parameter:
    ``:1`` is kept, ``:16`` is not (Triton's rule)."""

    __slots__ = ()


def _unspecialized(value, kind):
    """|value| marked |kind| (Unspecialized or Unaligned) when it is an int
    (a Python or NumPy integer, not a bool); anything else as it is."""
    if isinstance(value, bool) or type(value) in (Unspecialized, Unaligned):
        return value
    if type(value) is int:
        return kind(value)
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        return value
    if isinstance(value, np.integer):
        return kind(int(value))
    return value


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
    text = repr(value)
    if len(text) > 60 or "\n" in text:
        text = "of type %s" % type(value).__name__
    raise TypeError("constexpr value %s is not an int, float, bool, None, str or dtype" % text)


def _is_constexpr_annotation(ann):
    if ann is inspect.Parameter.empty:
        return False
    if ann is tl.constexpr or (isinstance(ann, type) and issubclass(ann, tl.constexpr)):
        return True
    if isinstance(ann, str):  # from __future__ import annotations
        return ann.split(".")[-1] == "constexpr"
    return getattr(ann, "__name__", None) == "constexpr"  # triton.language.constexpr too


def _launch_keywords_to_params(fn, args, kwargs, **given):
    """|kwargs| with each launch keyword of |given| (``num_warps=``,
    ``num_stages=`` the call gave) that also names a parameter of the kernel
    not given positionally bound to that parameter too, as Triton binds
    them: tutorial 02's ``softmax_kernel`` has a ``num_stages: tl.constexpr``
    that ``warmup(..., num_stages=num_stages)`` sets while num_stages is the
    launch's option as well."""
    for name, value in given.items():
        if name in fn._param_set and name not in kwargs and \
                fn.arg_names.index(name) >= len(args):
            kwargs = dict(kwargs)
            kwargs[name] = value
    return kwargs


def _split_options(fn, kwargs):
    """(kwargs without compile options, the compile options as sorted
    (name, text) pairs). Keywords that name no parameter but a compile option
    a loaded plugin declares are compile options (as Triton passes backend
    options); the device's plugin rejects those it does not declare, naming
    what it takes. Any other keyword is left to binding, which raises
    TypeError for it. Triton's ``num_ctas`` (1 only: no backend here
    launches clusters) and ``maxnreg`` (a hint Triton ignores where the
    backend has no such limit; none here declares one) are taken too."""
    if not kwargs:
        return kwargs, ()
    names = fn._param_set
    extra = [k for k in kwargs if k not in names]
    if not extra:
        return kwargs, ()
    kwargs = dict(kwargs)
    if "num_ctas" in extra:
        extra.remove("num_ctas")
        n = kwargs.pop("num_ctas")
        if n is not None and n != 1:
            raise ValueError("%s: num_ctas=%r: only 1 is supported (no Tegula backend "
                             "launches thread-block clusters)" % (fn.__name__, n))
    if not _rt.option_names:
        # No runtime has loaded plugins yet: the default one tells.
        from . import runtime
        runtime()
    if "maxnreg" in extra and ("maxnreg" not in _rt.option_names
                               or kwargs["maxnreg"] is None):
        extra.remove("maxnreg")
        kwargs.pop("maxnreg")
    extra = [k for k in extra if k in _rt.option_names]
    options = tuple(sorted((k, _option_text(fn, k, kwargs.pop(k))) for k in extra))
    return kwargs, options


def _option_text(fn, name, value):
    """A compile option's value as the plugin ABI spells it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError("%s: compile option %s=%r: expected a bool, an int or a str (or a "
                    "parameter of the kernel: %s)" % (fn.__name__, name, value,
                                                      ", ".join(fn.arg_names)))



class JITFunction:
    """A kernel: ``fn``, ``__name__``, ``source_file``, ``params``,
    ``constexprs`` (the names of the parameters annotated tl.constexpr).

    The keywords are Triton's ``@jit`` options: ``do_not_specialize`` and
    ``do_not_specialize_on_alignment`` (parameter names or indices) change
    how int arguments specialize (``specialize_arg``) and drop the ``:16``
    alignment of pointer arguments (one kernel for every address);
    ``launch_metadata`` (``f(grid, kernel, args)`` returning a dict) gives
    the launch hooks (``CompiledKernel.launch_enter_hook``) their data;
    ``debug``, ``noinline``, ``repr`` (a callable: the name profilers show)
    and ``version`` are recorded as attributes (the compiler reads
    ``noinline`` from the decorator in the source)."""

    def __init__(self, fn, version=None, do_not_specialize=None,
                 do_not_specialize_on_alignment=None, debug=None, noinline=None, repr=None,
                 launch_metadata=None):
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
        # How many of those kernels came from the on-disk cache (_diskcache).
        self.disk_cache_hits = 0
        # Images by (runtime, target, ...): a device of a target another
        # device compiled for loads that image (one compile, a module per
        # device), as does a launch after unload(); counted in
        # shared_image_loads, not in compile_count.
        self._images = {}
        self.shared_image_loads = 0
        self._pointer_dtypes = None  # parameter -> dtype its annotation requires
        self._scalar_kinds = {}  # parameter -> "int", "float", "bool" (its annotation)
        self._fast = None  # _launcher.LaunchState: the generated launcher
        self.version = version
        self.debug = debug
        self.noinline = noinline
        # Triton's: the kernel's name for profilers, given the specialization.
        self.repr = (lambda _: self.__name__) if repr is None else repr
        self.launch_metadata = launch_metadata
        self.do_not_specialize = self._param_names(do_not_specialize, "do_not_specialize")
        self.do_not_specialize_on_alignment = self._param_names(
            do_not_specialize_on_alignment, "do_not_specialize_on_alignment")
        # Parameter -> marker class, for the int arguments that must not be
        # specialized (do_not_specialize wins over ..._on_alignment).
        self._nospec = {n: Unaligned for n in self.do_not_specialize_on_alignment}
        self._nospec.update((n, Unspecialized) for n in self.do_not_specialize)
        for n in list(self._nospec):
            if n in self.constexprs:
                raise TypeError("@tegula.jit kernel %s: %s is a tl.constexpr parameter and "
                                "cannot be in do_not_specialize" % (self.__name__, n))
        self._nospec_positions = [(i, self._nospec[n]) for i, n in enumerate(self.arg_names)
                                  if n in self._nospec]

    def _param_names(self, items, what):
        """Parameter names from a list of names or indices (Triton takes both)."""
        if items is None:
            return ()
        if isinstance(items, (str, int)):
            items = [items]
        out = []
        for it in items:
            if isinstance(it, int) and not isinstance(it, bool):
                if not 0 <= it < len(self.arg_names):
                    raise ValueError("@tegula.jit kernel %s: %s index %d is out of range "
                                     "(%d parameters)" % (self.__name__, what, it,
                                                          len(self.arg_names)))
                it = self.arg_names[it]
            elif it not in self._param_set:
                raise ValueError("@tegula.jit kernel %s: %s names %r, which is no parameter "
                                 "(the parameters are %s)" % (self.__name__, what, it,
                                                               ", ".join(self.arg_names)))
            out.append(it)
        return tuple(out)

    def _init_pointer_dtypes(self):
        if self._pointer_dtypes is None:
            from . import _launch
            self._scalar_kinds = {
                p.name: k for p in self.params if p.name not in self.constexprs
                for k in [_launch.scalar_annotation(self, p)] if k is not None}
            self._pointer_dtypes = {
                p.name: d for p in self.params
                for d in [_launch.pointer_annotation(self, p)] if d is not None}

    def _prepare(self, args, kwargs):
        """(args, kwargs, compile options) of a launch or warmup: compile
        options split off, do_not_specialize ints marked."""
        kwargs, options = _split_options(self, kwargs)
        if self._nospec:
            args = list(args)
            for i, kind in self._nospec_positions:
                if i < len(args):
                    args[i] = _unspecialized(args[i], kind)
                    continue
                name = self.arg_names[i]
                p = self.params[i]
                if name in kwargs:
                    kwargs[name] = _unspecialized(kwargs[name], kind)
                elif p.default is not p.empty and p.kind != p.POSITIONAL_ONLY:
                    kwargs[name] = _unspecialized(p.default, kind)
        return args, kwargs, options

    @property
    def src(self):
        """The decorated function's source text."""
        return inspect.getsource(self.fn)

    def run(self, *args, grid, warmup=False, **kwargs):
        """Triton's entry point under ``kernel[grid](...)``, which autotune
        and heuristics call: launches (or, with |warmup|, only compiles)."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        return self._launcher().launch(grid, *args, **kwargs)

    def warmup(self, *args, grid=None, num_warps=None, num_stages=None, device=None, stream=None,
               **kwargs):
        """Compiles (and loads) the kernel these arguments would launch,
        without launching it; returns the CompiledKernel. Arguments are as
        for a launch; a pointer parameter may also get a dtype
        (``tl.float32``, ``np.float32``, ``torch.float16``), taken as an
        array of it aligned to 16 bytes (as Triton's warmup takes dtypes).
        |grid|, when given, is checked as a launch checks it."""
        from ._compile_only import warmup
        self._init_pointer_dtypes()
        given = {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages))
                 if v is not None}
        kwargs = _launch_keywords_to_params(self, args, kwargs, **given)
        num_warps = 4 if num_warps is None else num_warps
        num_stages = 3 if num_stages is None else num_stages
        args, kwargs, options = self._prepare(args, kwargs)
        return warmup(self, grid, args, kwargs, num_warps, num_stages, device, stream,
                      options)

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
        launch = self._fast.launch if self._fast is not None else self._launcher().launch
        return functools.partial(launch, grid)

    def _launcher(self):
        """The kernel's generated launcher (_launcher.LaunchState), made on
        first use (and again after ``_fast`` is reset)."""
        fast = self._fast
        if fast is None:
            from ._launcher import LaunchState
            self._init_pointer_dtypes()
            fast = self._fast = LaunchState(self)
        return fast

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "%s is a @tegula.jit kernel: launch it as %s[grid](...), or call it only from "
            "another kernel" % (self.__name__, self.__name__))

    def __repr__(self):
        return "<tegula.JITFunction %s from %s>" % (self.__name__, self.source_file)


_JIT_OPTIONS = ("version", "do_not_specialize", "do_not_specialize_on_alignment", "debug",
                "noinline", "repr", "launch_metadata")


def jit(fn=None, **options):
    """Decorator: ``@tegula.jit`` or ``@tegula.jit(...)`` with Triton's
    options (see JITFunction); all of them are recorded in ``.options``,
    other keywords too."""
    def wrap(f):
        k = JITFunction(f, **{n: options[n] for n in _JIT_OPTIONS if n in options})
        k.options = dict(options)
        return k
    return wrap(fn) if fn is not None else wrap


# -- Triton's tensor stand-ins -----------------------------------------------------


class MockTensor:
    """Triton's stand-in for a tensor of |dtype| (a torch, NumPy or ``tl``
    dtype) in ``kernel.warmup(MockTensor(torch.float32), ...)``: a 16-byte
    aligned array of that dtype for the specialization."""

    @staticmethod
    def wrap_dtype(arg):
        if arg.__class__.__name__ == "dtype" and arg.__module__ == "torch":
            return MockTensor(arg)
        return arg

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return 0  # as Triton: taken as a multiple of 16

    @staticmethod
    def ptr_range():
        return 0


class TensorWrapper:
    """An array passed to kernels as another dtype (Triton's, from
    ``reinterpret``): ``base`` (a torch tensor, a NumPy array or anything a
    launch takes as an array) with ``dtype`` (a ``tl`` dtype such as
    ``tl.float8e5``, or a torch or NumPy dtype) in its place. A launch
    passes the base's address, specialized as a pointer to ``dtype``."""

    def __init__(self, base, dtype):
        self.dtype = dtype
        self.base = base
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", None)
        self.shape = getattr(base, "shape", None)

    def data_ptr(self):
        ptr = _array_pointer(self.base)
        return ptr[0] if ptr is not None else self.base.data_ptr()

    def stride(self, *args):
        return self.base.stride(*args)

    def __str__(self):
        return "TensorWrapper[%s](%s)" % (self.dtype, self.base)

    def element_size(self):
        return self.base.element_size()

    def cpu(self):
        return TensorWrapper(self.base.cpu(), self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base)

    def clone(self):
        return TensorWrapper(self.base.clone(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)


def reinterpret(tensor, dtype):
    """|tensor| seen by kernels as |dtype| (Triton's ``triton.reinterpret``):
    a TensorWrapper, or the base itself when a wrapper goes back to its
    base's dtype."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__") or \
            hasattr(tensor, "__cuda_array_interface__"):
        return TensorWrapper(tensor, dtype)
    raise TypeError("Cannot reinterpret a %s." % type(tensor))

