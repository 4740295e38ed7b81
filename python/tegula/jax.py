"""Tegula kernels in JAX programs (docs/jax.md).

``kernel_call(kernel, *args, out_shape=..., grid=..., **kwargs)`` launches
a ``@tegula.jit`` kernel as an XLA custom call, so it works eagerly and
under ``jax.jit``. The kernel gets the array arguments, then one pointer
per output, in that order; ``kwargs`` are its constexprs and scalars by
name. While tracing, the call is recorded and the kernel compiled (so
binding and compile errors are raised there); at run time the FFI handler
(``_jax_ffi.cc``, built on first use against jaxlib's XLA FFI headers)
launches that record's kernel on XLA's buffers: on JAX's CPU backend
through the host plugin, in place; on NVIDIA GPUs on XLA's stream. The
launch runs in C, from a launch record made here (``_c_record``), without
Python; what a record cannot express goes through the Python launch
(``_launch``), which the handler calls back. TEGULA_JAX_PYTHON_LAUNCH=1
(read when a call is traced) sends every launch through Python.

Importing this module imports jax.
"""

import ctypes
import hashlib
import os
import subprocess
import tempfile
import threading

import numpy as np
import jax
import jax.numpy as jnp  # noqa: F401  (jax.numpy arrays are what callers pass)

__all__ = ["kernel_call", "launch_counts"]

_TARGET = "tegula_kernel_call"
_lock = threading.Lock()
_calls = {}    # call id -> _Call
_call_ids = {}  # the key of a call -> its id
_library = None
_python_launch = False  # TEGULA_JAX_PYTHON_LAUNCH, as the last traced call read it


class _Call:
    """What one traced kernel_call launches: the kernel, its grid, the
    positional arguments with None where an array goes, the array slots'
    (shape, dtype) (operands then outputs) and the keyword arguments."""

    def __init__(self, call_id, kernel, grid, positional, specs, kwargs):
        self.call_id = call_id
        self.kernel = kernel
        self.grid = grid
        self.positional = positional
        self.specs = specs
        self.kwargs = kwargs
        self.devices = {}
        # Device ordinal (-1: the host) -> the CompiledKernel of its launch
        # record in C, or None where no record can be made.
        self.recorded = {}


class _Slot:
    """Where array |index| (operands then outputs) goes among a kernel's
    arguments, while a launch record is made."""

    def __init__(self, index):
        self.index = index


class _CudaArray:
    """A buffer of XLA's on a GPU, as a ``__cuda_array_interface__`` object."""

    def __init__(self, address, shape, dtype):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": np.dtype(dtype).str, "version": 3,
            "data": (address, False), "strides": None, "stream": None}
        self.dtype = np.dtype(dtype)


def _host_array(address, shape, dtype):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0 or not address:
        return np.empty(shape, dtype)
    memory = (ctypes.c_char * (n * dtype.itemsize)).from_address(address)
    return np.frombuffer(memory, dtype=dtype).reshape(shape)


def _device_for(record, device):
    import tegula
    name = "host:0" if device < 0 else "nvidia:%d" % device
    found = record.devices.get(name)
    if found is None:
        found = record.devices[name] = tegula.device(name)
    return found


def _launch(call_id, count, buffers, stream, device, message, size):
    try:
        record = _calls[call_id]
        if count != len(record.specs):
            raise RuntimeError("XLA passed %d buffers, the call has %d arrays"
                               % (count, len(record.specs)))
        make = _host_array if device < 0 else _CudaArray
        arrays = [make(buffers[i] or 0, shape, dtype)
                  for i, (shape, dtype) in enumerate(record.specs)]
        it = iter(arrays)
        args = [next(it) if v is None else v for v in record.positional]
        args.extend(it)
        dev = _device_for(record, device)
        ck = record.kernel[record.grid](*args, device=dev,
                                        stream=stream if device >= 0 else None,
                                        **record.kwargs)
        # What the launch in C lacked, for the next call.
        if not _python_launch:
            done = record.recorded.get(device, False)
            if done is False or (done is not None and done._handle is None):  # none, unloaded
                addresses = [buffers[i] or 0 for i in range(count)]
                _c_record(record, device, ck, addresses)
            if device >= 0 and record.recorded.get(device) is not None:
                _c_stream(dev, device, stream)
        return 0
    except BaseException as e:  # noqa: BLE001  (nothing may unwind into XLA)
        text = ("%s: %s" % (type(e).__name__, e)).encode()[:size - 1]
        ctypes.memmove(message, text, len(text))
        return 1


_LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                              ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_int32,
                              ctypes.c_void_p, ctypes.c_int64)
_launch_fn = _LAUNCH_FN(_launch)


def _c_record(record, device, ck, addresses=None):
    """Makes the launch record in C of |record| on device ordinal |device|
    (-1: the host) launching CompiledKernel |ck|, when the handler can
    launch it without Python: every argument of the kernel is one of the
    call's arrays or a scalar given when the call was traced, and the
    kernel is no debug one (which takes its arrays' bounds). |addresses|:
    the arrays' addresses |ck| was specialized for (None: 16-byte aligned,
    as warmup takes them). Notes the outcome in record.recorded."""
    from . import _launch
    from . import _runtime as rt
    from . import language as tl
    record.recorded[device] = None
    lib = _library
    fn = record.kernel
    if lib is None or getattr(ck, "debug", False) or ck._handle is None:
        return
    try:
        slots = [_Slot(i) for i in range(len(record.specs))]
        it = iter(slots)
        args = [next(it) if v is None else v for v in record.positional] + list(it)
        kwargs = {k: v for k, v in record.kwargs.items() if k not in ("num_warps", "num_stages")}
        args, kwargs, _ = fn._prepare(args, kwargs)
        arguments = _launch.bind(fn, args, kwargs)
        grid = _launch.normalize_grid(fn, record.grid, {
            k: (v.value if isinstance(v, tl.constexpr) else v) for k, v in arguments.items()})
        offsets, _ = _launch._layout(ck)
        holders, slot_offsets, slot_buffers, aligned = [], [], [], []
        for p in fn.params:
            v = arguments[p.name]
            if p.name in fn.constexprs or v is None:
                continue
            i = len(holders)
            if i >= len(ck.args):
                return
            _, kind, mtype, _ = ck.args[i]
            if isinstance(v, _Slot):
                if kind != rt.ARG_POINTER:
                    return
                address = 0 if addresses is None else addresses[v.index]
                slot_offsets.append(offsets[i])
                slot_buffers.append(v.index)
                aligned.append(p.name not in fn._nospec and address % 16 == 0)
                holders.append(ctypes.c_uint64(0))
                continue
            entry, what = _launch.classify(fn, p.name, v, fn._pointer_dtypes.get(p.name), True)
            if what[0] != "scalar" or kind != rt.ARG_SCALAR:
                return  # a tegula.Buffer or another array given as a value
            holders.append(_launch.scalar_holder(fn, p.name, v, mtype, entry))
        if len(holders) != len(ck.args):
            return
        packed, size = ck.pack(holders)
    except Exception:  # noqa: BLE001  (the Python launch then says what is wrong)
        return
    if lib.tegula_jax_add_record(
            record.call_id, device, ck._kernel, (ctypes.c_uint32 * 3)(*grid),
            (ctypes.c_uint32 * 3)(*ck.block), packed, size, len(slot_offsets),
            (ctypes.c_uint64 * max(len(slot_offsets), 1))(*slot_offsets),
            (ctypes.c_int32 * max(len(slot_buffers), 1))(*slot_buffers),
            (ctypes.c_uint8 * max(len(aligned), 1))(*aligned), len(record.specs),
            ck.name.encode("utf-8", "replace")) != 0:
        return
    record.recorded[device] = ck
    # ck's own handle is its module's: the hook forgets the kernel's.
    _on_release(ck, lambda _, kernel=ck._kernel: lib.tegula_jax_remove_kernel(kernel))


def _c_stream(dev, device, native):
    """Gives the handler the Tegula stream wrapping XLA's stream |native|
    of GPU |device| (tegula.Device |dev|), the one the Python launch used."""
    try:
        s = dev._native_stream(native)
    except Exception:  # noqa: BLE001  (the Python launch keeps taking the calls)
        return
    handle = s._handle
    if handle is not None:
        _on_release(s, _library.tegula_jax_remove_stream)
        _library.tegula_jax_add_stream(device, native, handle)


def _on_release(owned, forget):
    """Has |forget|(handle) called before tegula object |owned| is
    destroyed (_Owned._release), the first time it is asked for |owned|:
    the records in C that hold its handle go first."""
    if owned.__dict__.get("_jax_forgets"):
        return
    owned._jax_forgets = True
    owned.__dict__.setdefault("_release_hooks", []).append(forget)


def _sync_python_launch(_hooked=None):
    """Tells the handler whether every launch goes through Python:
    TEGULA_JAX_PYTHON_LAUNCH set, or a Triton launch hook set (hooks are
    called by the Python launch)."""
    from . import _launch
    if _library is not None:
        _library.tegula_jax_set_python_launch(int(_python_launch or _launch._HOOKED))


def launch_counts():
    """{"c": launches the handler made in C, "python": launches it left to
    the Python launch}, since the handler was loaded (for tests and
    benchmarks)."""
    if _library is None:
        return {"c": 0, "python": 0}
    in_c, in_python = ctypes.c_int64(), ctypes.c_int64()
    _library.tegula_jax_counts(ctypes.byref(in_c), ctypes.byref(in_python))
    return {"c": in_c.value, "python": in_python.value}


def _cache_folder():
    d = os.environ.get("TEGULA_CACHE_DIR")
    if not d or d == "none":
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                         os.path.join(os.path.expanduser("~"), ".cache"), "tegula")
    return os.path.join(d, "jax-ffi")


def _build_handler():
    """The handler library's path, built with $CXX (default c++) when this
    source, jaxlib's headers and the compiler have not built it before."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_jax_ffi.cc")
    include = jax.ffi.include_dir()
    cxx = os.environ.get("CXX", "c++")
    with open(source, "rb") as f:
        text = f.read()
    key = hashlib.sha256(text + include.encode() + cxx.encode() +
                         jax.__version__.encode()).hexdigest()[:20]
    folder = _cache_folder()
    path = os.path.join(folder, "tegula_jax_ffi-%s.so" % key)
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
    os.close(fd)
    command = [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-isystem", include,
               source, "-o", tmp]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        os.unlink(tmp)
        raise RuntimeError("tegula.jax: cannot run the C++ compiler %r (set CXX) to build "
                           "the XLA FFI handler: %s" % (cxx, e)) from None
    if done.returncode != 0:
        os.unlink(tmp)
        raise RuntimeError("tegula.jax: building the XLA FFI handler failed:\n$ %s\n%s"
                           % (" ".join(command), done.stderr[-4000:]))
    os.replace(tmp, path)
    return path


def _register():
    global _library
    with _lock:
        if _library is not None:
            return
        import tegula
        from . import _launch
        lib = ctypes.CDLL(_build_handler())
        lib.tegula_jax_set_launch.argtypes = [_LAUNCH_FN]
        lib.tegula_jax_set_launch(_launch_fn)
        P, I32, I64, U32P = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, \
            ctypes.POINTER(ctypes.c_uint32)
        lib.tegula_jax_set_runtime.argtypes = [P, P, P]
        lib.tegula_jax_set_python_launch.argtypes = [ctypes.c_int]
        lib.tegula_jax_add_record.argtypes = [
            I64, I32, P, U32P, U32P, P, ctypes.c_size_t, I64,
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(I32),
            ctypes.POINTER(ctypes.c_uint8), I64, ctypes.c_char_p]
        lib.tegula_jax_add_record.restype = ctypes.c_int
        lib.tegula_jax_remove_kernel.argtypes = [P]
        lib.tegula_jax_add_stream.argtypes = [I32, ctypes.c_uint64, P]
        lib.tegula_jax_remove_stream.argtypes = [P]
        lib.tegula_jax_counts.argtypes = [ctypes.POINTER(I64)] * 2
        # The runtime's functions the launch in C calls, by address (the
        # handler links nothing of Tegula's).
        rt = tegula.runtime()._lib
        address = lambda f: ctypes.cast(f, ctypes.c_void_p).value  # noqa: E731
        lib.tegula_jax_set_runtime(address(rt.tegula_kernel_launch),
                                   address(rt.tegula_error_get_message),
                                   address(rt.tegula_error_destroy))
        _launch._HOOK_LISTENERS.append(_sync_python_launch)
        jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(lib.TegulaKernelCallHost),
                                    platform="cpu")
        try:
            jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(lib.TegulaKernelCallGpu),
                                        platform="CUDA")
        except Exception:  # noqa: BLE001  (a jaxlib without CUDA)
            pass
        _library = lib
        _sync_python_launch()


def _is_array(value):
    return isinstance(value, (jax.Array, np.ndarray)) or (
        hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "aval"))


def _out_specs(out_shape):
    def spec(s):
        shape, dtype = getattr(s, "shape", None), getattr(s, "dtype", None)
        if shape is None or dtype is None or isinstance(s, type):
            raise TypeError("kernel_call: out_shape must be a jax.ShapeDtypeStruct (anything "
                            "with .shape and .dtype) or a list or tuple of them, not %r" % (s,))
        try:
            shape = tuple(int(d) for d in shape)
        except TypeError:
            raise TypeError("kernel_call: out_shape's shape %r is not a tuple of ints"
                            % (shape,)) from None
        if any(d < 0 for d in shape):
            raise ValueError("kernel_call: out_shape's shape %r has a negative dimension"
                             % (shape,))
        return jax.ShapeDtypeStruct(shape, np.dtype(dtype))
    if isinstance(out_shape, (list, tuple)) and not (
            out_shape and all(isinstance(d, int) for d in out_shape)):
        if not out_shape:
            raise ValueError("kernel_call: out_shape is empty: a kernel call has an output")
        return [spec(s) for s in out_shape], False
    return [spec(out_shape)], True


def _grid(kernel, grid, kwargs):
    if callable(grid):
        grid = grid(dict(kwargs))
    if isinstance(grid, int):
        grid = (grid,)
    try:
        grid = tuple(int(g) for g in grid)
    except TypeError:
        raise TypeError("kernel_call: grid must be an int, a tuple of up to 3 ints or a "
                        "function of the keyword arguments returning one, not %r"
                        % (grid,)) from None
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise ValueError("kernel_call: grid must have 1 to 3 non-negative sizes, not %r"
                         % (grid,))
    return grid


def kernel_call(kernel, *args, out_shape, grid, input_output_aliases=None, **kwargs):
    """Calls the ``@tegula.jit`` |kernel| on the arrays of |args| and new
    output arrays of |out_shape| (a ``jax.ShapeDtypeStruct`` or a list of
    them); returns the output (or the list of them).

    The kernel's parameters are |args| (JAX or NumPy arrays, passed as
    pointers; anything else, e.g. a Python int, passed as its value at trace
    time), then one pointer per output; |kwargs| go to it by name
    (constexprs, scalars, and ``num_warps`` / ``num_stages``). |grid| is as
    in ``kernel[grid]``: an int, a tuple, or a function of |kwargs|.
    |input_output_aliases| ({array argument index: output index}) makes
    that output share the input's buffer (the kernel updates it in place,
    and sees both pointers as one). A wrong |out_shape| or alias is a
    TypeError or ValueError here; a launch that does not bind or compile
    raises here too, while tracing."""
    import tegula
    global _python_launch
    _register()
    python_launch = os.environ.get("TEGULA_JAX_PYTHON_LAUNCH", "") not in ("", "0")
    if python_launch != _python_launch:
        _python_launch = python_launch
        _sync_python_launch()
    outs, single = _out_specs(out_shape)
    grid = _grid(kernel, grid, kwargs)
    operands, positional, specs = [], [], []
    for value in args:
        if _is_array(value):
            operands.append(value)
            positional.append(None)
            specs.append((tuple(value.shape), np.dtype(value.dtype)))
        else:
            positional.append(value)
    specs.extend((o.shape, o.dtype) for o in outs)
    aliases = dict(input_output_aliases or {})
    for i, o in aliases.items():
        if not (isinstance(i, int) and 0 <= i < len(operands)):
            raise ValueError("kernel_call: input_output_aliases key %r is no array argument's "
                             "index (there are %d)" % (i, len(operands)))
        if not (isinstance(o, int) and 0 <= o < len(outs)):
            raise ValueError("kernel_call: input_output_aliases value %r is no output's index "
                             "(there are %d)" % (o, len(outs)))
        if specs[i] != (outs[o].shape, outs[o].dtype):
            raise ValueError("kernel_call: array argument %d (%s%s) cannot alias output %d "
                             "(%s%s): the shapes and dtypes must match" % (
                                 i, specs[i][1], list(specs[i][0]), o, outs[o].dtype,
                                 list(outs[o].shape)))

    # Bind and compile now, with stand-ins of the arrays' dtypes, so that a
    # bad call fails while tracing rather than inside XLA.
    platform = jax.default_backend()
    device = tegula.device("host:0") if platform == "cpu" else None
    stand_ins = iter([tegula.MockTensor(dtype) for _, dtype in specs])
    mock = [next(stand_ins) if v is None else v for v in positional] + list(stand_ins)
    ck = kernel.warmup(*mock, grid=grid, device=device, **kwargs)

    key = (id(kernel), grid, tuple(repr(v) for v in positional), tuple(specs),
           tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    with _lock:
        call_id = _call_ids.get(key)
        if call_id is None:
            call_id = _call_ids[key] = len(_calls) + 1
            _calls[call_id] = _Call(call_id, kernel, grid, positional, specs, kwargs)
        record = _calls[call_id]
        # The launch record in C on the host, for the kernel just compiled
        # (a GPU's is made by the first launch there, which knows its device).
        if platform == "cpu" and not _python_launch and -1 not in record.recorded:
            _c_record(record, -1, ck)
    call = jax.ffi.ffi_call(_TARGET, outs, input_output_aliases=aliases or None,
                            has_side_effect=False)
    results = call(*operands, call_id=np.int64(call_id))
    return results[0] if single else list(results)
