"""Kernel containers compiled ahead of time (``tegula compile --target ...``,
``tegula.compile``), loaded and launched without compiling anything.

    c = tegula.load("add.tgk")                  # a Container
    c.entries                                   # what it holds
    c["add_kernel"][grid](x, y, out, n)         # the image for the device

A container's kernel takes the arguments of its compiled ``tile.func``: the
kernel's parameters that are not constexprs, in order (the constexprs were
fixed when it was compiled). Arguments are ``tegula.Buffer`` objects, arrays
(passed in place on the host device, copied in and out elsewhere) and
scalars, typed by the image's metadata.
"""

import ctypes
import os

from . import _runtime as _rt


class Container:
    """A kernel container read from a file (tegula_container_read_file)."""

    def __init__(self, path):
        self._lib = _rt.load_library()
        self.path = str(path)
        handle = ctypes.c_void_p()
        _rt.check(self._lib, self._lib.tegula_container_read_file(
            self.path.encode(), ctypes.byref(handle)))
        self._handle = handle.value
        major, minor = ctypes.c_uint32(), ctypes.c_uint32()
        self._lib.tegula_container_get_version(self._handle, ctypes.byref(major),
                                               ctypes.byref(minor))
        self.version = (major.value, minor.value)
        self._loaded = {}  # (id(runtime), device name, index) -> CompiledKernel
        # tegula.compile(..., skip_failed=True): the targets left out, and why.
        self.failed = {}

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.tegula_container_destroy(handle)

    def _entry(self, index):
        entry = _rt.sized(_rt.tegula_container_entry)
        _rt.check(self._lib, self._lib.tegula_container_get_entry(
            self._handle, index, ctypes.byref(entry)))
        return entry

    @property
    def entries(self):
        """One dict per image: target, kernel, num_warps, shared_memory,
        arguments (signature-style types), specialization, size."""
        out = []
        for i in range(self._lib.tegula_container_get_entry_count(self._handle)):
            e = self._entry(i)
            md = e.metadata.contents
            out.append({"target": _rt.decode(e.target), "kernel": _rt.decode(md.name),
                        "num_warps": md.num_warps, "shared_memory": md.shared_memory,
                        "arguments": [_rt.decode(md.args[a].name) for a in range(md.num_args)],
                        "specialization": _rt.decode(md.specialization),
                        "size": e.image_size})
        return out

    @property
    def kernels(self):
        """The kernel names it holds, in order, each once."""
        names = []
        for e in self.entries:
            if e["kernel"] not in names:
                names.append(e["kernel"])
        return names

    def __getitem__(self, name):
        if name not in self.kernels:
            raise KeyError("%s holds no kernel %r (it holds %s)"
                           % (self.path, name, ", ".join(self.kernels) or "nothing"))
        return ContainerKernel(self, name)

    def kernel(self, name):
        return self[name]

    def targets(self, kernel=None):
        return [e["target"] for e in self.entries if kernel in (None, e["kernel"])]

    def load(self, name, device):
        """The CompiledKernel of |name| for |device|, loaded once per device
        (tegula_container_select picks the image: the device's target, then
        the archs it also runs, then a portable one)."""
        index = ctypes.c_size_t()
        _rt.check(self._lib, self._lib.tegula_container_select(
            self._handle, device._require(), name.encode(), ctypes.byref(index)))
        key = (id(device._runtime), device.name, index.value)
        ck = self._loaded.get(key)
        if ck is None or not ck.alive:
            from ._launch import CompiledKernel
            e = self._entry(index.value)
            ck = CompiledKernel.from_image(device, e.metadata.contents, e.image,
                                           e.image_size)
            self._loaded[key] = ck
        return ck

    def __repr__(self):
        return "<tegula.Container %s: %s>" % (self.path, ", ".join(
            "%s@%s" % (e["kernel"], e["target"]) for e in self.entries))


class ContainerKernel:
    """One kernel of a container: ``kernel[grid](*args, device=None,
    stream=None)``."""

    def __init__(self, container, name):
        self.container = container
        self.__name__ = name

    def __getitem__(self, grid):
        return lambda *args, device=None, stream=None: self._launch(grid, args, device,
                                                                    stream)

    def _launch(self, grid, args, device, stream):
        from . import Buffer, Stream, _resolve_device, default_device
        from . import _launch as L
        if device is None and isinstance(stream, Stream):
            device = stream.device
        if device is None:
            device = next((a.device for a in args if isinstance(a, Buffer)), None)
        device = _resolve_device(device) if device is not None else default_device()
        ck = self.container.load(self.__name__, device)
        if len(args) != len(ck.args):
            raise TypeError("%s: the compiled kernel takes %d arguments (%s), got %d"
                            % (self.__name__, len(ck.args),
                               ", ".join(a[0] for a in ck.args), len(args)))
        holders, copies, temporaries = [], [], []
        try:
            for value, (name, kind, type_code, _) in zip(args, ck.args):
                if kind != _rt.ARG_POINTER:
                    holders.append(L.scalar_holder(self, name, value, type_code))
                    continue
                if isinstance(value, Buffer):
                    holders.append(ctypes.c_uint64(value.device_address))
                    continue
                arr = _as_array(self, name, value)
                if device.host_memory and arr.flags.writeable:
                    holders.append(ctypes.c_uint64(arr.ctypes.data))
                    continue
                # A container does not say which arguments its kernel writes
                # through: a read-only array on the host gets a private copy
                # (as on every other device), so that no write reaches it.
                buf = Buffer(device, arr.nbytes)
                temporaries.append(buf)
                buf.copy_from(arr)
                copies.append((buf, arr))
                holders.append(ctypes.c_uint64(buf.device_address))
            packed, size = ck.pack(holders)
            grid3 = L._grid3(self, grid)
            ck.launch(grid3, packed, size, stream if isinstance(stream, Stream) else None)
            for buf, arr in copies:
                if arr.flags.writeable:
                    buf.copy_to(arr)
        finally:
            for b in temporaries:
                b.free()
        return ck


def _as_array(kernel, name, value):
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        np = None
    if np is None or not isinstance(value, np.ndarray):
        raise TypeError("%s: argument '%s' is a pointer: pass a tegula.Buffer or a NumPy "
                        "array, not %s" % (kernel.__name__, name, type(value).__name__))
    if not value.flags.c_contiguous:
        raise ValueError("%s: argument '%s' must be a contiguous array" % (kernel.__name__,
                                                                          name))
    return value


def load(path):
    """Reads a kernel container (``tegula compile --target ... -o PATH``)."""
    return Container(path)


def _images(fn, targets, bytecode, options, runtime, failed=None, signature=None,
            source=None):
    """Yields (target, metadata, data, size) of |bytecode| compiled for each
    target through tegula_runtime_compile (the image is freed after the
    caller's step). |options|: (key, value) texts. A target that does not
    compile goes into |failed| ({target: message}) when it is a dict, else
    raises TegulaError naming the kernel and the target: OutOfResources for
    too much shared memory or too many threads, CompilationError for an
    error at an operation of the kernel (its line from |source|, the
    kernel's file)."""
    from . import _errors
    from . import Runtime
    rt = runtime if runtime is not None else Runtime()
    lib = rt._lib
    copts, n = _rt.compile_option_array(options)
    try:
        for t in targets:
            image = ctypes.c_void_p()
            try:
                _rt.check(lib, lib.tegula_runtime_compile(
                    rt._require(), t.encode(), bytecode, len(bytecode), copts, n,
                    ctypes.byref(image)))
            except _rt.TegulaError as e:
                if failed is not None:
                    failed[t] = e.message
                    continue
                message = "%s: compiling for %s failed: %s" % (fn.__name__, t, e.message)
                better = _errors.from_plugin_error(
                    message, e.code, kernel=fn.__name__, signature=signature,
                    source_file=getattr(fn, "source_file", None), src=source)
                if better is not None:
                    raise better from None
                raise type(e)(message, e.code) from None
            try:
                yield (rt, t, lib.tegula_image_get_metadata(image),
                       lib.tegula_image_get_data(image), lib.tegula_image_get_size(image))
            finally:
                lib.tegula_image_destroy(image)
    finally:
        if runtime is None:
            rt.close()


def _options(fn, num_warps, num_stages, options):
    from ._jit import _option_text
    return [("num_warps", str(num_warps)), ("num_stages", str(num_stages))] + sorted(
        (k, _option_text(fn, k, v)) for k, v in options.items())


def compile(fn, signature, target, path, constexprs=None, num_warps=4, num_stages=3,
            runtime=None, skip_failed=False, **options):
    """Compiles the @tegula.jit function |fn| ahead of time, for one target or
    a list of them (``"host:x86_64"``, ``"nvidia:sm_90a"``: any target a
    loaded plugin declares, no device needed), into the kernel container
    |path|, and returns it loaded (a Container). |signature| is the kernel's
    non-constexpr parameters in Triton's AOT format (``"*fp32:16, i32"``),
    optionally followed by constexpr literals; |constexprs| gives constexprs
    by name. |options| are compile options the plugins declare
    (docs/compile-options.md). With |skip_failed|, a target that does not
    compile is left out and its error kept in the result's ``failed``
    ({target: message}); without, the first such error is raised."""
    from . import _compiler
    from ._launch import _read_source
    from ._jit import _constexpr_literal
    targets = [target] if isinstance(target, str) else list(target)
    if not targets:
        raise ValueError("%s: tegula.compile needs at least one target" % fn.__name__)
    literals = {k: _constexpr_literal(v) for k, v in (constexprs or {}).items()}
    source = _read_source(fn)
    bytecode = _compiler.compile_kernel(
        source, fn.__name__, signature, file_name=fn.source_file,
        constexprs=literals, num_warps=num_warps, num_stages=num_stages)
    lib = _rt.load_library()
    writer = ctypes.c_void_p()
    _rt.check(lib, lib.tegula_container_writer_create(ctypes.byref(writer)))
    failed = {} if skip_failed else None
    try:
        for _, _, metadata, data, size in _images(
                fn, targets, bytecode, _options(fn, num_warps, num_stages, options), runtime,
                failed, signature, source):
            _rt.check(lib, lib.tegula_container_writer_add(writer, metadata, data, size))
        if failed is not None and len(failed) == len(targets):
            raise _rt.TegulaError("%s: no target compiled: %s" % (fn.__name__, "; ".join(
                "%s: %s" % item for item in failed.items())), 1)
        _rt.check(lib, lib.tegula_container_writer_write_file(writer, str(path).encode()))
    finally:
        lib.tegula_container_writer_destroy(writer)
    container = Container(path)
    container.failed = failed or {}
    return container


def warmup(fn, signature, targets, num_warps=4, num_stages=3, runtime=None, **options):
    """Fills the on-disk kernel cache (docs/python.md) with |fn| compiled for
    each device target in |targets| (``"nvidia:sm_90"``, ``"host:x86_64"``:
    the targets devices report, ``tegula.devices()[i].target``), so that a
    later launch of that specialization on such a device loads it instead of
    compiling. |signature| is the launch's whole specialization as
    ``CompiledKernel.signature`` spells it, constexpr literals included
    (``"*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"``). No device is needed.
    Returns the targets it stored."""
    from . import _compiler, _diskcache
    from ._launch import _read_source
    if not _diskcache.enabled():
        raise RuntimeError("%s: the disk cache is off (TEGULA_CACHE_DIR=none, or no "
                           "libtegula_kernel_cache)" % fn.__name__)
    targets = [targets] if isinstance(targets, str) else list(targets)
    source = _read_source(fn)
    roots = _compiler.default_search_paths()
    imported = []
    bytecode, writes = _compiler.compile_kernel_info(
        source, fn.__name__, signature, file_name=fn.source_file, num_warps=num_warps,
        num_stages=num_stages, search_paths=roots, imported=imported)
    deps = _diskcache.dependencies(imported) or ()
    opts = _options(fn, num_warps, num_stages, options)
    stored = []
    for rt, t, metadata, data, size in _images(fn, targets, bytecode, opts, runtime,
                                               signature=signature, source=source):
        # The key a launch on a device of |t| computes (_launch.get_kernel).
        key = _diskcache.Key(source, signature, None, [("kernel", fn.__name__)] + opts[:2] + [
            ("search-paths", os.pathsep.join(roots))] + opts[2:], runtime=rt, target=t)
        _diskcache.store(key, _diskcache.pack_entry(
            _diskcache.one_image_container(rt._lib, metadata, data, size), writes, deps))
        stored.append(t)
    return stored
