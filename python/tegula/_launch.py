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
read-only); ``tegula.Buffer`` arguments are passed as they are.
"""

import ctypes
import operator

from . import _compiler
from . import _runtime as _rt
from . import language as tl
from . import Buffer, Device, Stream, _Owned
from ._jit import _array_pointer, _constexpr_literal, specialize_arg

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
    TypeError naming the kernel and the parameter otherwise."""
    try:
        bound = fn.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise _fail(TypeError, fn, "%s (the parameters are %s)"
                    % (e, ", ".join(fn.arg_names))) from None
    bound.apply_defaults()
    return dict(bound.arguments)


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


# -- Grid ------------------------------------------------------------------


def normalize_grid(fn, grid, meta):
    """A (x, y, z) tuple from a tuple of 1 to 3 ints or a callable(meta)."""
    g = grid(meta) if callable(grid) else grid
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


def resolve_device(fn, device, stream, arguments):
    from . import default_device, runtime
    if isinstance(device, str):
        device = runtime().find_device(device)
    if device is not None and not isinstance(device, Device):
        raise _fail(TypeError, fn, "device must be a tegula.Device, a device name or None, "
                    "not %r" % type(device).__name__)
    if stream is not None and not isinstance(stream, Stream):
        raise _fail(TypeError, fn, "stream must be a tegula.Stream or None, not %r"
                    % type(stream).__name__)
    buffers = [(n, v) for n, v in arguments.items() if isinstance(v, Buffer)]
    if device is None:
        if stream is not None:
            device = stream.device
        elif buffers:
            device = buffers[0][1].device
        else:
            device = default_device()
    if stream is not None and stream.device != device:
        raise _fail(ValueError, fn, "the stream is on %s but the launch is on %s"
                    % (stream.device.name, device.name))
    for n, b in buffers:
        if b.device != device:
            raise _fail(ValueError, fn, "argument '%s' is a buffer on %s but the launch is "
                        "on %s" % (n, b.device.name, device.name))
    return device


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


def _array_info(fn, name, value):
    """(address, nbytes, contiguous, writable) of a host array, or None when
    |value| is not one."""
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


def classify(fn, name, value, annotated, host_memory):
    """The signature entry of a non-constexpr argument and what it passes:
    ("ptr", Buffer | _ArrayArg) or ("scalar", value)."""
    if isinstance(value, Buffer):
        value._require()
        dt = value.dtype_name or annotated
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
                getattr(value, "__array_interface__", None) is not None
                or getattr(value, "__cuda_array_interface__", None) is not None
                or (hasattr(value, "data_ptr") and hasattr(value, "dtype")))
    if is_array:
        try:
            _, dt = _array_pointer(value)
        except TypeError as e:
            raise _fail(TypeError, fn, "argument '%s': %s" % (name, e)) from None
        if annotated and dt != annotated:
            raise _fail(TypeError, fn, "argument '%s' is annotated *%s but the array's dtype "
                        "is %s (%s)" % (name, annotated, getattr(value, "dtype", "?"), dt))
        info = _array_info(fn, name, value)
        if info is None:
            raise _fail(TypeError, fn, "argument '%s': only host arrays (NumPy, "
                        "__array_interface__) and tegula.Buffer can be passed yet, not %r"
                        % (name, type(value).__name__))
        address, nbytes, contiguous, writable = info
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


def scalar_holder(fn, name, value, type_code):
    """A ctypes object holding |value| as the metadata's scalar type."""
    dt = _rt.SCALAR_TYPES.get(type_code)
    if dt is None:
        raise _fail(RuntimeError, fn, "the kernel metadata gives argument '%s' the unknown "
                    "type %d" % (name, type_code))
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


class CompiledKernel(_Owned):
    """A kernel compiled for one device and specialization, loaded there: the
    module handle, the kernel handle and a copy of its metadata. Unloaded when
    its runtime closes (or with ``unload()``)."""

    _destroy_fn = "tegula_module_unload"

    def __init__(self, fn, device, signature, num_warps, num_stages, bytecode):
        rt = device._runtime
        lib = rt._lib
        opts = [("kernel", fn.__name__), ("num_warps", str(num_warps)),
                ("num_stages", str(num_stages))]
        copts = (_rt.tg_compile_option * len(opts))(
            *[_rt.tg_compile_option(k.encode(), v.encode()) for k, v in opts])
        image = ctypes.c_void_p()
        try:
            _rt.check(lib, lib.tegula_device_compile(
                device._require(), bytecode, len(bytecode), copts, len(opts),
                ctypes.byref(image)))
        except _rt.TegulaError as e:
            raise type(e)("%s: compiling for %s (%s) failed: %s" % (
                fn.__name__, device.name, device.target, e.message), e.code) from None
        try:
            md = lib.tegula_image_get_metadata(image).contents
            self.name = _rt.decode(md.name)
            self.target = _rt.decode(md.target)
            self.num_warps = md.num_warps
            self.shared_memory = md.shared_memory
            self.args = [(_rt.decode(md.args[i].name), md.args[i].kind, md.args[i].type,
                          md.args[i].divisibility) for i in range(md.num_args)]
            self._metadata = self._copy_metadata(md)
            module = ctypes.c_void_p()
            _rt.check(lib, lib.tegula_module_load(
                device._require(), lib.tegula_image_get_data(image),
                lib.tegula_image_get_size(image), ctypes.byref(module)))
        finally:
            lib.tegula_image_destroy(image)
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
        self.signature = signature
        self.requested = (num_warps, num_stages)
        warp = device.warp_size or 1
        self.block = (max(self.num_warps, 1) * warp, 1, 1)

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

    def pack(self, holders):
        lib = self._runtime._lib
        n = len(holders)
        values = (ctypes.c_void_p * max(n, 1))(*[ctypes.addressof(h) for h in holders])
        out = (ctypes.c_uint8 * max(self.packed_size, 8))()
        used = ctypes.c_size_t()
        _rt.check(lib, lib.tegula_args_pack(ctypes.byref(self._metadata), values, out,
                                            ctypes.sizeof(out), ctypes.byref(used)))
        return out, used.value

    def launch(self, grid, packed, size, stream):
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


def get_kernel(fn, device, signature, num_warps, num_stages):
    """The loaded kernel for this specialization, compiled on first use."""
    key = (id(device._runtime), device.name, signature, num_warps, num_stages)
    with fn._lock:
        ck = fn._cache.get(key)
        if ck is not None and ck.alive:
            return ck
        source = _read_source(fn)
        bytecode = _compiler.compile_kernel(
            source, fn.__name__, signature, file_name=fn.source_file,
            num_warps=num_warps, num_stages=num_stages)
        ck = CompiledKernel(fn, device, signature, num_warps, num_stages, bytecode)
        fn.compile_count += 1
        fn._cache[key] = ck
        return ck


def launch(fn, grid, args, kwargs, num_warps=4, num_stages=3, device=None, stream=None):
    if isinstance(num_warps, bool) or not isinstance(num_warps, int) or num_warps < 1 \
            or num_warps & (num_warps - 1):
        raise _fail(ValueError, fn, "num_warps must be a power of 2, not %r" % (num_warps,))
    if isinstance(num_stages, bool) or not isinstance(num_stages, int) or num_stages < 0:
        raise _fail(ValueError, fn, "num_stages must be an int >= 0, not %r" % (num_stages,))
    arguments = bind(fn, args, kwargs)
    device = resolve_device(fn, device, stream, arguments)
    meta = {k: (v.value if isinstance(v, tl.constexpr) else v) for k, v in arguments.items()}
    grid3 = normalize_grid(fn, grid, meta)
    host_memory = uses_host_memory(device)

    # Specialize; arrays on the copy path get their device buffers first, so
    # that the divisibility is that of the address the kernel receives.
    entries, passed = [], []
    temporaries = []  # buffers this launch allocated
    try:
        for p in fn.params:
            v = arguments[p.name]
            if p.name in fn.constexprs:
                try:
                    entries.append(_constexpr_literal(v))
                except (TypeError, ValueError) as e:
                    raise _fail(type(e), fn, "constexpr '%s': %s" % (p.name, e)) from None
                continue
            entry, what = classify(fn, p.name, v, fn._pointer_dtypes.get(p.name), host_memory)
            if what[0] == "ptr" and isinstance(what[1], _ArrayArg):
                arr = what[1]
                if host_memory:
                    address = arr.address
                else:
                    arr.buffer = _shared_buffer(passed, arr) or Buffer(device, arr.nbytes)
                    if arr.buffer not in temporaries:
                        temporaries.append(arr.buffer)
                    address = arr.buffer.device_address
                entry = "*%s%s" % (entry, ":16" if address % 16 == 0 else "")
            entries.append(entry)
            passed.append((p.name, entry, what))
        signature = ", ".join(entries)

        ck = get_kernel(fn, device, signature, num_warps, num_stages)
        if len(ck.args) != len(passed):
            raise _fail(RuntimeError, fn, "the compiled kernel takes %d arguments (its "
                        "metadata), but %d parameters are not constexprs (%s); the front "
                        "end and the launcher disagree on which parameters reach the kernel"
                        % (len(ck.args), len(passed), ", ".join(n for n, _, _ in passed)))
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
                elif value.buffer is not None:
                    holders.append(ctypes.c_uint64(value.buffer.device_address))
                else:
                    holders.append(ctypes.c_uint64(value.address))
            else:
                holders.append(scalar_holder(fn, name, value, mtype))
        packed, size = ck.pack(holders)

        copies = [what[1] for _, _, what in passed
                  if what[0] == "ptr" and isinstance(what[1], _ArrayArg) and what[1].buffer]
        seen = set()
        for arr in copies:
            if id(arr.buffer) not in seen:
                seen.add(id(arr.buffer))
                _copy(device, arr, to_device=True, stream=stream)
        ck.launch(grid3, packed, size, stream)
        seen = set()
        for arr in copies:
            if arr.writable and id(arr.buffer) not in seen:
                seen.add(id(arr.buffer))
                _copy(device, arr, to_device=False, stream=stream)
        if stream is not None:
            # Host arrays and device buffers stay alive until the stream's
            # work is done (Stream.synchronize clears this).
            stream._keep.extend([packed] + temporaries + [a.obj for a in copies])
            temporaries = []
        return ck
    finally:
        for b in temporaries:
            b.free()


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
