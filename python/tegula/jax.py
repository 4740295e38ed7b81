"""Tegula kernels in JAX programs (docs/jax.md).

``kernel_call(kernel, *args, out_shape=..., grid=..., **kwargs)`` launches
a ``@tegula.jit`` kernel as an XLA custom call, so it works eagerly and
under ``jax.jit``. The kernel gets the array arguments, then one pointer
per output, in that order; ``kwargs`` are its constexprs and scalars by
name. While tracing, the call is recorded and the kernel compiled (so
binding and compile errors are raised there); at run time the FFI handler
(``_jax_ffi.cc``, built on first use against jaxlib's XLA FFI headers)
passes XLA's buffers to that record's launch: on JAX's CPU backend through
the host plugin, in place; on NVIDIA GPUs on XLA's stream.

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

__all__ = ["kernel_call"]

_TARGET = "tegula_kernel_call"
_lock = threading.Lock()
_calls = {}    # call id -> _Call
_call_ids = {}  # the key of a call -> its id
_library = None


class _Call:
    """What one traced kernel_call launches: the kernel, its grid, the
    positional arguments with None where an array goes, the array slots'
    (shape, dtype) (operands then outputs) and the keyword arguments."""

    def __init__(self, kernel, grid, positional, specs, kwargs):
        self.kernel = kernel
        self.grid = grid
        self.positional = positional
        self.specs = specs
        self.kwargs = kwargs
        self.devices = {}


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
        record.kernel[record.grid](*args, device=_device_for(record, device),
                                   stream=stream if device >= 0 else None, **record.kwargs)
        return 0
    except BaseException as e:  # noqa: BLE001  (nothing may unwind into XLA)
        text = ("%s: %s" % (type(e).__name__, e)).encode()[:size - 1]
        ctypes.memmove(message, text, len(text))
        return 1


_LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                              ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_int32,
                              ctypes.c_void_p, ctypes.c_int64)
_launch_fn = _LAUNCH_FN(_launch)


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
        lib = ctypes.CDLL(_build_handler())
        lib.tegula_jax_set_launch.argtypes = [_LAUNCH_FN]
        lib.tegula_jax_set_launch(_launch_fn)
        jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(lib.TegulaKernelCallHost),
                                    platform="cpu")
        try:
            jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(lib.TegulaKernelCallGpu),
                                        platform="CUDA")
        except Exception:  # noqa: BLE001  (a jaxlib without CUDA)
            pass
        _library = lib


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
    _register()
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
    kernel.warmup(*mock, grid=grid, device=device, **kwargs)

    key = (id(kernel), grid, tuple(repr(v) for v in positional), tuple(specs),
           tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    with _lock:
        call_id = _call_ids.get(key)
        if call_id is None:
            call_id = _call_ids[key] = len(_calls) + 1
            _calls[call_id] = _Call(kernel, grid, positional, specs, kwargs)
    call = jax.ffi.ffi_call(_TARGET, outs, input_output_aliases=aliases or None,
                            has_side_effect=False)
    results = call(*operands, call_id=np.int64(call_id))
    return results[0] if single else list(results)
