"""The per-kernel launcher: ``kernel[grid](...)`` runs a function generated
for that kernel's signature at its first launch, which does per call only
what must be done per call:

1. binding: the generated function has the kernel's parameters (kinds and
   defaults), so Python binds positional and keyword arguments itself;
2. the specialization key, (the arguments' parts, tail): per argument
   ``arg_key`` gives its key part and the value to pack (Triton's
   specialization: an array's dtype and 16-byte alignment, an int's
   i32/i64/u64 and :1/:16, the types of floats and bools; ``arg_keys``
   reads them all in one call); the tail holds the constexprs by type and
   value, num_warps, num_stages, the debug mode (``jit(debug=)``, else
   ``TEGULA_DEBUG``), the compile options, the option
   variables' values (``environment_key``: an int kept until os.environ
   changes), device= and the stream's device;
3. the entry the first full launch of the key recorded (the loaded kernel,
   its argument layout, launch configs by grid, how to find PyTorch's
   current stream): the last call's when the key is the same (``quick``
   compares each argument with the last call's parts without making the
   key, and launches that entry; else the key is made and compared), else
   one dict lookup;
4. ``Entry.go``: the launch config of the grid, the stream (PyTorch's
   current one, read on every launch, for torch CUDA tensors), packing and
   the driver call (``tegula_kernel_launch``), in one C call where
   ``tegula._accel`` has ``runner``. A kernel of the bounds-checked debug
   mode takes two hidden i64 arguments per pointer argument (the first and
   one past the last byte of its array): its entry computes them per call
   from the arrays passed (``_accel_py.arg_bounds``), since arrays of one
   key may differ in size, packs them after the others, and is never the
   last call's entry that ``quick`` launches.

A key without an entry, an argument ``arg_key`` does not take, a value that
does not pack as the compiled kernel's type, a freed stream or an unloaded
kernel go to the full launch (``_launch._full_launch``), which specializes,
compiles, checks everything and raises what it always raised; it records an
entry for the key when the call can be repeated this way. Since every
argument's specialization is part of the key, an unaligned view gets its
own entry and kernel: it never reaches a kernel compiled for aligned
pointers.

``arg_key``, ``arg_keys``, ``environment_key`` and the packing-and-call
step come from the C extension ``tegula._accel`` when it was built (CMake
builds it where Python's development headers are) and from ``_accel_py``
otherwise; both give the same keys, values and packed bytes
(tests/test_accel.py). ``quick`` and ``runner`` exist only in C: without
them the same steps run in Python.
"""

import ctypes
import functools
import keyword
import os
import struct

from . import _accel_py
from . import _interop
from . import _runtime as _rt
from . import language as tl
from . import Device, Stream
from ._jit import Unspecialized, _constexpr_literal, _launch_keywords_to_params, _split_options

accel = _accel_py.load_accel()

#: tg_scalar_type name -> struct format (native order, standard sizes).
_STRUCT = {
    "i1": "?", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H",
    "u32": "I", "u64": "Q", "fp32": "f", "fp64": "d", "fp16": "H", "bf16": "H",
    "fp8e4nv": "B", "fp8e5": "B",
}
_MAX_ENTRIES = 512   # per kernel; the entries are dropped when they grow past this
_MAX_CONFIGS = 64    # launch configs (grids) per entry
#: The launch keywords of kernel[grid](...), beside the kernel's parameters.
LAUNCH_KEYWORDS = ("num_warps", "num_stages", "device", "stream")


class _Miss(Exception):
    """A call the generated launcher leaves to the full launch."""


def _device_key(device):
    t = type(device)
    if t is str:
        return device
    if t is Device:
        return (Device, id(device))
    raise _Miss


def _stream_raw(stream):
    """What quick's raw values hold of a stream= that is no None: the
    device of a tegula.Stream (all its key says; the stream itself is not
    kept alive), else an object no later call has."""
    if type(stream) is Stream:
        return stream.device
    return object()


def _stream_key(stream):
    if type(stream) is Stream and stream._handle is not None:
        return (Stream, id(stream.device))
    raise _Miss


def _nospec_key(value, kind):
    """arg_key of an argument of a do_not_specialize(_on_alignment)
    parameter: an int's key holds only what its specialization keeps (its
    width, and :1 for _on_alignment); anything else keys as usual."""
    t = type(value)
    if t is int or (t is not bool and _accel_py.np_kind(t) == "int"):
        code = _accel_py.int_code(int(value))
        if code is None:
            raise _Miss
        width = code & ~3
        if kind is not Unspecialized and code & 3 == 1:
            width += 1
        return (kind, width), value
    return accel.arg_key(value)


class LaunchState:
    """A kernel's launcher (``fn._fast``): the generated ``launch`` and
    ``key`` functions and the entries by key."""

    def __init__(self, fn):
        self.fn = fn
        self.entries = {}
        # [(key, entry, the arguments' key parts, the key's tail, the kernel,
        # entry.go)] of the last fast launch: one tuple, which threads read
        # and replace whole.
        self.last = [(None,) * 6]
        # The key part of the option variables' values: environment_key(
        # os.environ's dict, the variables' names as bytes).
        self.env = accel.environment_key if _rt._environ_data is not None else \
            _accel_py.environment_key
        self.launch, self.key = _generate(fn, self)


class Entry:
    """What a launch of one key needs: see the module doc."""

    __slots__ = ("ck", "device", "run", "go", "pack", "configs", "config_objects", "block",
                 "torch", "refs", "bounds")

    def config(self, fn, grid):
        """(address of the launch config, (x, y, z)) of |grid|, checked as a
        launch checks it; the config is made on first use, kept by (x, y, z)."""
        from ._launch import _grid3
        g3 = _grid3(fn, grid)
        cfg = self.configs.get(g3)
        if cfg is None:
            c = _rt.sized(_rt.tegula_launch_config)
            c.grid[:] = list(g3)
            c.block[:] = list(self.block)
            c.dynamic_shared_memory = 0
            if len(self.configs) >= _MAX_CONFIGS:
                self.configs.clear()
                self.config_objects.clear()
            self.config_objects.append(c)
            cfg = self.configs[g3] = ctypes.addressof(c)
        return cfg, g3


# -- The generated functions -------------------------------------------------------


def _signature_parts(fn):
    """(parameter list source, defaults, kwdefaults, the names of the
    parameters without a default) of the generated launcher: the grid, then
    the kernel's parameters, those without a default defaulting to _NA so
    that a missing one is told apart (and reported as Python reports it,
    by ``bind``); None when no launcher can be generated (a name that is no
    identifier, or one of the launch keywords)."""
    positional, kwonly, defaults, kwdefaults, required = [], [], [], {}, []
    for p in fn.params:
        if not p.name.isidentifier() or keyword.iskeyword(p.name) or \
                p.name in LAUNCH_KEYWORDS or p.name.startswith("_tg_"):
            return None
        default = p.default
        if default is p.empty:
            default = _NA
            required.append(p.name)
        if p.kind == p.KEYWORD_ONLY:
            kwonly.append(p.name)
            kwdefaults[p.name] = default
        else:
            positional.append(p.name)
            defaults.append(default)
    parts = ["_tg_grid"] + positional + ["*_tg_extra"] + kwonly + \
        ["num_warps", "num_stages", "device", "stream", "**_tg_kw"]
    kwdefaults.update(num_warps=4, num_stages=3, device=None, stream=None)
    return ", ".join(parts), tuple(defaults), kwdefaults, required


class _Missing:
    """The default of a parameter that has none, in the generated launcher."""

    def __repr__(self):
        return "<missing>"


_NA = _Missing()

# TEGULA_DEBUG's value (a key part of kernels without jit(debug=)), read
# from os.environ's own dict as _runtime.option_environment reads.
if _rt._environ_data is not None:
    _debug_env = functools.partial(_rt._environ_data.get, b"TEGULA_DEBUG")
else:  # pragma: no cover - not POSIX
    _debug_env = functools.partial(os.environ.get, "TEGULA_DEBUG")


def _generate(fn, state):
    """The kernel's (launch, key) functions: see the module doc. ``key``
    takes a launch's arguments and returns its key (None when the full
    launch takes it), for the tests."""
    sig = _signature_parts(fn)
    if sig is None:
        return _generic_launch(fn), None
    params, defaults, kwdefaults, required = sig
    names = fn.arg_names
    cx = set(fn.constexprs)
    keys, vals, args = [], [], []
    lines = []
    for i, n in enumerate(names):
        if n in cx:
            keys.append("type(%s), %s if type(%s) is int else _cx_key(%s)" % (n, n, n, n))
            continue
        kind = fn._nospec.get(n)
        if kind is not None:
            lines.append("k%d, v%d = _nospec_key(%s, _nospec[%r])" % (i, i, n, n))
        args.append(n)
        vals.append("v%d" % i)
    if fn._nospec or not getattr(accel, "available", False):
        # Each argument's (key part, value) by itself: the do_not_specialize
        # ones through _nospec_key; in Python (no tegula._accel), inline
        # calls cost less than arg_keys' loop.
        for i, n in enumerate(names):
            if n in args and n not in fn._nospec:
                lines.append("k%d, v%d = _arg_key(%s)" % (i, i, n))
        idx = [i for i, n in enumerate(names) if n in args]
        lines.append("_ks = (%s)" % "".join("k%d, " % i for i in idx))
        lines.append("_vs = (%s)" % "".join("v%d, " % i for i in idx))
    else:
        # Every argument's (key part, value) in one call.
        lines.append("_ks, _vs = _arg_keys(%s)" % ", ".join(args))
    # The debug mode before the option variables: _slow finds those at
    # tail[-3].
    debug = "_fn.debug if _fn.debug is not None else _debug_env()"
    keys += ["type(num_warps), num_warps, type(num_stages), num_stages", debug,
             "_options(_tg_kw) if _tg_kw else ()", "_env(_ENVD, _ENVK)",
             "device if device is None else device if type(device) is str else "
             "(_DEVICE, id(device)) if type(device) is _DEVICE else _device_key(device)",
             "None if stream is None else _stream_key(stream)"]
    values = "(%s)" % "".join(n + ", " for n in names)
    meta = "{%s}" % ", ".join("%r: %s" % (n, n) for n in names)
    name = fn.__name__ if fn.__name__.isidentifier() and not keyword.iskeyword(
        fn.__name__) and not fn.__name__.startswith("_tg_") and fn.__name__ not in \
        ("key", "launch") and fn.__name__ not in names else "launch"
    body = "\n".join("        " + line for line in lines)
    missing = " or ".join(["_tg_extra"] + ["%s is _NA" % n for n in required])
    slow = "_slow(%%s, _tg_grid, %s, _tg_kw, num_warps, num_stages, device, stream)" % values
    unwrap = "".join("\n    if type(%s) is _CX:\n        %s = %s.value" % (n, n, n)
                     for n in names if n in cx)
    # The key: (the arguments' parts, tail), the tail holding the rest.
    # raw: the values the tail is made of, which tegula._accel.quick
    # compares with the last fast launch's (same objects, or equal ints and
    # strs) along with each argument and its part there, without making
    # the key, before it launches that entry. Calls with compile options
    # keep no raw values: they never take it.
    raw = "(%s)" % "".join(n + ", " for n in [n for n in names if n in cx] + [
        "num_warps", "num_stages", "device", "stream if stream is None else _stream_raw(stream)",
        debug])
    arrays = "".join(n + ", " for n in args)
    quick = ""
    if not fn._nospec and getattr(accel, "quick", None) is not None:
        quick = f"""
    if not _tg_kw and not _L._HOOKED:
        err = _quick(last, _tg_grid, stream, {raw[:-1]}_env(_ENVD, _ENVK)), {", ".join(args)})
        if err is not None:
            if err:
                _fail(last[1], err)
            return last[4]"""
    src = f"""
def {name}({params}):
    if {missing}:
        _bind_error(_tg_extra, {values}, _tg_kw){unwrap}
    if callable(_tg_grid):  # called once per launch: the full launch gets its grid
        _tg_grid = _tg_grid({meta})
    last = _last[0]{quick}
    key = None
    try:
        tail = ({", ".join(keys)},)
{body}
        key = (_ks, tail)
        if key == last[0]:  # the key of the last call: no hashing
            e = last[1]
        else:
            e = _entries[key]
            if e.bounds is None:
                _last[0] = (key, e, _ks, None if _tg_kw else {raw[:-1]}tail[-3]), e.ck, e.go)
    except _MISSES:
        return {slow % "key, key and _vs"}
    ck = e.ck
    if ck._handle is None:
        return {slow % "None, None"}
    if e.bounds is not None:  # a debug kernel: its arrays' bounds, per call
        if _bounded(_fn, e, _tg_grid, stream, {values}, _vs, ({arrays})):
            return ck
        return {slow % "None, None"}
    if _L._HOOKED:
        if _hooked(_fn, e, _tg_grid, stream, {values}, _vs):
            return ck
        return {slow % "None, None"}
    # The launch config, the stream (PyTorch's current one for stream None
    # with torch CUDA tensors), packing and the driver call: Entry.go.
    err = e.go(_tg_grid, stream, _vs)
    if err:
        _fail(e, err)
    elif err is None:  # a value that does not pack, or a freed stream
        return {slow % "None, None"}
    return ck


def key({params}):
    if {missing}:
        return None{unwrap}
    try:
{body}
        return (_ks, ({", ".join(keys)},))
    except _MISSES:
        return None
"""
    from . import _launch
    scope = {
        "_entries": state.entries, "_last": state.last, "_arg_key": accel.arg_key,
        "_quick": getattr(accel, "quick", None),
        "_nospec_key": _nospec_key,
        "_arg_keys": accel.arg_keys,
        "_nospec": dict(fn._nospec), "_MISSES": (TypeError, ValueError, KeyError, _Miss),
        "_options": lambda kw: _options(fn, kw), "_env": state.env,
        "_ENVD": _rt._environ_data, "_ENVK": _rt._option_env_keys, "_DEVICE": Device,
        "_device_key": _device_key, "_stream_key": _stream_key, "_stream_raw": _stream_raw,
        "_NA": _NA,
        "_slow": lambda *a: _slow(fn, state, *a), "_fn": fn, "_L": _launch,
        "_hooked": _hooked, "_bounded": _bounded, "_debug_env": _debug_env,
        "_fail": _fail, "_CX": tl.constexpr, "_cx_key": _cx_key,
        "_bind_error": lambda extra, values, kw: _bind_error(fn, extra, values, kw),
    }
    exec(compile(src, "<tegula launcher of %s>" % fn.__name__, "exec"), scope)  # noqa: S102
    launch, key = scope[name], scope["key"]
    for f in (launch, key):
        f.__defaults__ = defaults or None
        f.__kwdefaults__ = kwdefaults
    return launch, key


def _bind_error(fn, extra, values, kw):
    """Raises the TypeError of a launch whose arguments do not bind, in
    Python's words (``_launch.bind``): the values before the first missing
    one as positional arguments, those after it as keywords."""
    from . import _launch
    args, kwargs, gap = [], dict(kw), False
    for p, v in zip(fn.params, values):
        if v is _NA:
            gap = True
        elif gap or p.kind == p.KEYWORD_ONLY:
            kwargs[p.name] = v
        else:
            args.append(v)
    _launch.bind(fn, tuple(args) + tuple(extra), kwargs)
    raise _launch._fail(TypeError, fn, "the arguments do not bind")  # pragma: no cover


def _cx_key(v):
    """The key part of a constexpr that is no int: its literal (0.0 and
    -0.0 are equal floats but not the same constexpr), or itself for a
    bool, str or None."""
    if v is None or type(v) is bool or type(v) is str:
        return v
    return _constexpr_literal(v)


def _options(fn, kw):
    """The compile options among a launch's extra keywords (sorted pairs);
    _Miss when another keyword is there (binding raises for it)."""
    rest, options = _split_options(fn, kw)
    if rest:
        raise _Miss
    return options


def _generic_launch(fn):
    """The launcher of a kernel no function can be generated for: the full
    launch every time."""
    def launch(grid, *args, num_warps=None, num_stages=None, device=None, stream=None,
               **kwargs):
        # A kernel with a parameter named num_warps or num_stages comes here
        # (no launcher is generated for it); the keyword sets both.
        given = {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages))
                 if v is not None}
        kwargs = _launch_keywords_to_params(fn, args, kwargs, **given)
        num_warps = 4 if num_warps is None else num_warps
        num_stages = 3 if num_stages is None else num_stages
        args, kwargs, options = fn._prepare(args, kwargs)
        from . import _launch
        return _launch._full_launch(fn, grid, _launch.bind(fn, args, kwargs), num_warps,
                                    num_stages, device, stream, options)
    return launch


def _slow(fn, state, key, vals, grid, values, kw, num_warps, num_stages, device, stream):
    """The full launch of a call the generated launcher did not take; it
    records an entry for |key| (with |vals|, the values to pack) when the
    call can be repeated through it."""
    from . import _launch
    from ._jit import _unspecialized
    kw, options = _split_options(fn, kw)
    if kw:  # a keyword that is neither a parameter nor an option: bind says so
        _bind_error(fn, (), values, kw)
    arguments = dict(zip(fn.arg_names, values))
    raw = tuple(arguments[n] for n in fn.arg_names if n not in fn.constexprs)
    for name, kind in fn._nospec.items():
        arguments[name] = _unspecialized(arguments[name], kind)
    record = None
    if key is not None:
        def record(*launched):
            # The option variables' values as the launch (which may have
            # loaded the plugins that declare them) left them.
            env = state.env(_rt._environ_data, _rt._option_env_keys)
            parts, tail = key
            _record(state, (parts, tail[:-3] + (env,) + tail[-2:]), vals, raw,
                    device, stream, *launched)
    return _launch._full_launch(fn, grid, arguments, num_warps, num_stages, device, stream,
                                options, record)


def _fail(e, err):
    _rt.check(e.ck._runtime._lib, err)


def _hooked(fn, e, grid, stream, values, vals):
    """A launch with CompiledKernel's launch hooks set (see _launch); False,
    with no hook called, when a value does not pack or the stream was freed
    (the full launch then says what)."""
    from . import _launch
    cfg, g3 = _config(fn, e, grid)
    if stream is None:
        h = None if e.torch is None else e.torch.handle()
    else:
        h = stream._handle
        if h is None:
            return False
    try:
        e.pack(vals)
    except Exception:
        return False
    if stream is None and e.torch is not None:
        stream = e.torch.stream()

    def run():
        err = e.run(h, cfg, *vals)
        if err:
            _fail(e, err)
    _launch._run_hooked(fn, e.ck, g3, stream, dict(zip(fn.arg_names, values)), run)
    return True


def _bounded(fn, e, grid, stream, values, vals, arrays):
    """The launch of a debug kernel's entry: |vals| and the bounds of the
    pointer arguments among |arrays| (the arguments as given); False, with
    nothing launched, when a bound or a value cannot be had here (the full
    launch then computes them, or says what is wrong)."""
    try:
        vals = vals + e.bounds(arrays)
    except Exception:
        return False
    from . import _launch
    if _launch._HOOKED:
        return _hooked(fn, e, grid, stream, values, vals)
    err = e.go(grid, stream, vals)
    if err:
        _fail(e, err)
    return err is not None


def _bounds_function(positions):
    """bounds(arrays) -> the debug kernel's hidden arguments: the first and
    one past the last byte of each array at |positions|, from its address
    (what _launch.bounds_arguments passes on the full launch)."""
    arg_bounds = _accel_py.arg_bounds

    def bounds(arrays):
        out = []
        for i in positions:
            b = arg_bounds(arrays[i])
            if b is None:
                raise _Miss
            out += b
        return tuple(out)
    return bounds


def _config(fn, e, grid):
    """(address of the launch config, (x, y, z)) of |grid| for entry |e|."""
    g3 = accel.grid3(grid)
    cfg = None if g3 is None else e.configs.get(g3)
    if cfg is None:
        cfg, g3 = e.config(fn, grid)
    return cfg, g3


def _python_go(fn, e):
    """Entry.go in Python (tegula._accel's runner does the same in C)."""
    run, configs, grid3 = e.run, e.configs, accel.grid3

    def go(grid, stream, vals):
        g3 = grid3(grid)
        cfg = None if g3 is None else configs.get(g3)
        if cfg is None:
            cfg, g3 = e.config(fn, grid)
        if stream is None:
            h = None if e.torch is None else e.torch.handle()
        else:
            h = stream._handle
            if h is None:
                return None
        return run(h, cfg, *vals)
    return go


# -- Recording an entry ------------------------------------------------------------------


class _TorchStream:
    """PyTorch's current stream on CUDA device |index| as a Tegula stream
    handle, read per launch (``with torch.cuda.stream(s):`` changes it); the
    Stream wrapping each native handle is made once."""

    def __init__(self, fn, device, index):
        from ._launch import _native_stream
        self.make = lambda native: _native_stream(fn, device, native)
        self.index = index
        self.streams = {}
        # torch._C._cuda_getCurrentRawStream, as Triton reads it, when torch has it.
        raw = getattr(getattr(_interop._torch(), "_C", None), "_cuda_getCurrentRawStream",
                      None)
        self.raw = raw
        if raw is not None:
            streams = self.streams

            def handle():
                s = streams.get(raw(index))
                return s._handle if s is not None and s._handle is not None else \
                    self.stream()._require()
            self.handle = handle

    def stream(self):
        native = _interop.torch_current_stream(self.index)
        s = self.streams.get(native)
        if s is None or s._handle is None:
            if len(self.streams) >= 64:
                self.streams.clear()
            s = self.streams[native] = self.make(native)
        return s

    def handle(self):
        """The Tegula stream handle of PyTorch's current stream."""
        return self.stream()._require()


def _record(state, key, vals, arrays, device_arg, stream_arg, device, ck, passed,
            host_memory, stream, packed):
    """After a full launch of |key|'s call: an entry for the key when the
    launcher can repeat it (every argument passed as it is, and a layout
    that packs exactly as tegula_args_pack does). |arrays|: the arguments
    as given, one per value of |vals|; a debug kernel's entry computes the
    bounds of the pointers among them per call."""
    from . import _launch
    from . import Buffer
    if vals is None or len(vals) != len(passed) or len(arrays) != len(passed):
        return
    positions = [i for i, (_, _, (kind, _)) in enumerate(passed) if kind == "ptr"]
    hidden = 2 * len(positions) if getattr(ck, "debug", False) else 0
    if len(ck.args) != len(passed) + hidden:
        return
    torch_index = None
    torch_cuda = False
    refs = [device]
    if isinstance(device_arg, Device):
        refs.append(device_arg)
    if stream_arg is not None:
        refs.append(stream_arg.device)
    codes, convert, offsets_used = [], [], []
    offsets, total = _launch._layout(ck)
    for (name, entry, (kind, value)), (_, _, mtype, _), off in zip(passed, ck.args, offsets):
        if kind == "ptr":
            if isinstance(value, _launch._ArrayArg) and not host_memory:
                return  # copied to the device per launch
            if isinstance(value, _interop.DeviceArray):
                if value.kind != "torch":
                    return
                torch_cuda = True
            if isinstance(value, Buffer):
                refs.append(value.device)
            codes.append("ptr")
            convert.append(None)
        else:
            dt = _launch._scalar_type(_rt.SCALAR_TYPES.get(mtype), entry)
            if dt not in _STRUCT:
                return
            t = type(value)
            conv = None
            # ints include the do_not_specialize markers (int subclasses).
            is_int = isinstance(value, int) or _accel_py.np_kind(t) == "int"
            if dt in _launch._INT_RANGE:
                if not is_int:
                    return
            elif dt != "i1":
                if not (is_int or t is float or _accel_py.np_kind(t) == "float"):
                    return
                if dt not in ("fp32", "fp64"):
                    conv = (lambda x, dt=dt: _launch._float_bits(float(x), dt))
            codes.append(dt)
            convert.append(conv)
        offsets_used.append(off)
    if stream_arg is None and stream is not None:
        if not torch_cuda:
            return  # a stream some argument named (__cuda_array_interface__)
        torch_index = _launch._device_index(device)
    elif stream_arg is None and torch_cuda:
        return
    bounds = None
    if hidden:
        # The hidden i64s after the others (_launch.bounds_arguments).
        bounds = _bounds_function(positions)
        for off in offsets[len(passed):]:
            codes.append("i64")
            convert.append(None)
            offsets_used.append(off)
    try:
        run, check, layout = _runner(ck, codes, offsets_used, total, convert)
        if check(vals + (bounds(arrays) if bounds else ())) != packed:
            return  # not the layout (or the bounds) the full launch packed
    except Exception:
        return
    e = Entry()
    e.ck = ck
    e.device = device
    e.run = run
    e.pack = check
    e.configs = {}
    e.config_objects = []
    e.block = ck.block
    e.torch = None if torch_index is None else _TorchStream(state.fn, device, torch_index)
    e.refs = refs
    e.bounds = bounds
    e.go = None
    fn = state.fn
    make = getattr(accel, "runner", None)
    if layout is not None and make is not None:
        torch = None if e.torch is None else (
            e.torch.raw, torch_index, e.torch.streams, e.torch.handle)
        try:
            e.go = make(ctypes.cast(ck._runtime._lib.tegula_kernel_launch,
                                    ctypes.c_void_p).value, ck._kernel, layout, e.configs,
                        lambda grid: e.config(fn, grid), torch)
        except Exception:  # pragma: no cover - an extension that cannot: Python's
            e.go = None
    if e.go is None:
        e.go = _python_go(fn, e)
    if len(state.entries) >= _MAX_ENTRIES:
        state.entries.clear()
    state.entries[key] = e


def _runner(ck, codes, offsets, total, convert):
    """(run(stream, cfg, *values) -> 0 | error | None, pack(values) -> bytes,
    the extension's layout or None) for a kernel whose arguments are |codes|
    at |offsets|: through tegula._accel when it is there and no value needs
    a conversion, else struct. run returns None, and launches nothing, when
    a value does not pack."""
    lib = ck._runtime._lib
    launch_fn = lib.tegula_kernel_launch
    kernel = ck._kernel
    if not any(convert):
        layout = accel.make_layout(codes, offsets, total)
        if layout is not None:
            address = ctypes.cast(launch_fn, ctypes.c_void_p).value
            return (functools.partial(accel.launch, address, kernel, layout),
                    lambda vals: accel.pack(layout, vals), layout)
    return _accel_py.struct_runner(launch_fn, kernel, codes, offsets, total, convert) + (None,)
