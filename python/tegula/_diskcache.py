"""The on-disk kernel cache for launches (libtegula_kernel_cache, through
its C API tegula/kernel_cache.h): a kernel compiled in one process is loaded,
not compiled, by the next one that asks for the same key. An entry is a
kernel container holding the one image.

The key (docs/python.md): the kernel file's source, the signature, the
target, the plugin's name and version, num_warps, num_stages, the compile
options, the values of the environment variables the loaded plugins'
options read, and the identity (path, size, modification time) of the
plugin and compiler libraries, so that a rebuilt plugin never serves a
stale kernel. Before the container, an entry holds which arguments the
kernel writes through (``pack_entry``: what the compiler said, which the
launcher needs to accept read-only arrays) and the other modules the
compile read (helpers imported from the user's package) with a SHA-256 of
each: an entry whose modules changed since is a miss. TEGULA_CACHE_DIR chooses the folder (default
$XDG_CACHE_HOME/tegula, else ~/.cache/tegula); TEGULA_CACHE_DIR=none turns
the cache off. Failing to read or write the cache never fails a launch.
"""

import ctypes
import hashlib
import os
import struct
import threading

from . import _runtime as _rt

_lib = None
_lib_lock = threading.Lock()
_missing = False


class tegula_cache_key(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("source", ctypes.c_char_p),
        ("source_size", ctypes.c_size_t),
        ("signature", ctypes.c_char_p),
        ("constexprs", ctypes.POINTER(ctypes.c_char_p)),
        ("num_constexprs", ctypes.c_size_t),
        ("options", ctypes.POINTER(ctypes.c_char_p)),
        ("num_options", ctypes.c_size_t),
        ("target", ctypes.c_char_p),
        ("plugin_name", ctypes.c_char_p),
        ("plugin_version", ctypes.c_char_p),
    ]


def _library():
    """libtegula_kernel_cache, beside libtegula_runtime; None without it."""
    global _lib, _missing
    with _lib_lock:
        if _lib is None and not _missing:
            # The soname first: a self-contained wheel carries no ".so"
            # development links.
            here = os.path.dirname(_rt.library_path())
            lib = None
            for name in ("libtegula_kernel_cache.so.0", "libtegula_kernel_cache.so"):
                try:
                    lib = ctypes.CDLL(os.path.join(here, name))
                    break
                except OSError:
                    continue
            if lib is None:
                _missing = True
                return None
            P = ctypes.c_void_p
            lib.tegula_cache_lookup.restype = ctypes.c_int
            lib.tegula_cache_lookup.argtypes = [
                ctypes.c_char_p, ctypes.POINTER(tegula_cache_key), ctypes.POINTER(P),
                ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(P)]
            lib.tegula_cache_store.restype = ctypes.c_int
            lib.tegula_cache_store.argtypes = [
                ctypes.c_char_p, ctypes.POINTER(tegula_cache_key), P, ctypes.c_size_t,
                ctypes.POINTER(P)]
            lib.tegula_cache_free.restype = None
            lib.tegula_cache_free.argtypes = [P]
            _lib = lib
        return _lib


def enabled():
    return os.environ.get("TEGULA_CACHE_DIR") != "none" and _library() is not None


def _identity(path):
    try:
        st = os.stat(path)
        return "%s:%d:%d" % (path, st.st_size, st.st_mtime_ns)
    except OSError:
        return path or "?"


class _RawKey:
    """A cache key of given fields; holds the ctypes memory the C struct
    points into. |texts|: the "NAME=VALUE" options."""

    def _fill(self, source, signature, target, plugin_name, plugin_version, texts):
        self._texts = [t.encode() for t in texts]
        self._array = (ctypes.c_char_p * max(len(self._texts), 1))(*self._texts)
        self._source = bytes(source)
        k = tegula_cache_key()
        k.struct_size = ctypes.sizeof(k)
        k.source = self._source
        k.source_size = len(self._source)
        k.signature = signature.encode()
        k.options = self._array
        k.num_options = len(self._texts)
        k.target = target.encode()
        k.plugin_name = plugin_name.encode()
        k.plugin_version = plugin_version.encode()
        self.struct = k


def _tool_identity(path):
    """The file identity tools/tegula/Compile.cpp puts in its keys."""
    try:
        st = os.stat(path)
    except OSError:
        return path
    return "%s:%d:%d.%d" % (path, st.st_size, st.st_mtime_ns // 10**9,
                            st.st_mtime_ns % 10**9)


class ToolKey(_RawKey):
    """The key `tegula compile --target` uses for compiling |bytecode| for
    |target| to |stage| (tools/tegula/Compile.cpp's cacheKey), so that the
    two command lines share entries: the plugin's version and file, the
    options, the values of the environment variables the target plugin's
    options read; the C API adds the host CPU."""

    def __init__(self, runtime, target, stage, bytecode, options):
        backend = target.split(":")[0]
        texts = ["%s=%s" % kv for kv in options] + [
            "stage=%s" % stage, "tool=tegula compile"]
        version = ""
        for p in runtime.plugins:
            if p["loaded"] and p["name"] == backend:
                version = p["version"] or ""
                texts.append("plugin-file=%s" % _tool_identity(p["path"]))
                for o in p["options"]:
                    if o["env"]:
                        value = os.environ.get(o["env"])
                        texts.append("env:%s=%s" % (o["env"],
                                                    "<unset>" if value is None else value))
                break
        self._fill(bytecode, "tile-bytecode", target, backend, version, texts)


class Key(_RawKey):
    """The key of a launch (or warmup) of a kernel."""

    def __init__(self, source, signature, device, options, runtime=None, target=None):
        """The key of a launch on |device|, or (|device| None) of one on a
        device of |target| of |runtime|'s plugins."""
        from . import _compiler
        rt = runtime if device is None else device._runtime
        target = target if device is None else device.target
        backend = target.split(":")[0]
        version, plugin_path = rt._plugin_identity.get(backend, ("", ""))
        env = ["env:%s=%s" % (name, "<unset>" if value is None else os.fsdecode(value))
               for name, value in zip(_rt._option_env_names, _rt.option_environment())]
        try:
            compiler = _compiler.library_file()
        except Exception:  # pragma: no cover - then the key names no file
            compiler = ""
        texts = ["%s=%s" % kv for kv in options] + env + [
            "plugin-file=%s" % _identity(plugin_path),
            "compiler-file=%s" % _identity(compiler)]
        self._fill(source, signature, target, backend, version, texts)


def _directory():
    d = os.environ.get("TEGULA_CACHE_DIR")
    return d.encode() if d else None


def lookup(key):
    """The entry's bytes, or None (a miss, or a cache that cannot be read)."""
    lib = _library()
    data, size, error = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
    found = lib.tegula_cache_lookup(_directory(), ctypes.byref(key.struct),
                                    ctypes.byref(data), ctypes.byref(size), ctypes.byref(error))
    lib.tegula_cache_free(error)
    if found != 1:
        return None
    try:
        return ctypes.string_at(data, size.value)
    finally:
        lib.tegula_cache_free(data)


def store(key, blob):
    """Stores |blob|; a failure is ignored (the launch goes on)."""
    lib = _library()
    error = ctypes.c_void_p()
    lib.tegula_cache_store(_directory(), ctypes.byref(key.struct), blob, len(blob),
                           ctypes.byref(error))
    lib.tegula_cache_free(error)


_ENTRY_MAGIC = b"TGARGWR2"
_UNKNOWN = 0xFFFFFFFF


def _digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).digest()
    except OSError:
        return None


def dependencies(paths):
    """((path, SHA-256 of its bytes), ...) of the files a compile read beside
    the kernel's own; None when one cannot be read (then nothing is kept)."""
    out = []
    for p in paths:
        d = _digest(p)
        if d is None:
            return None
        out.append((p, d))
    return tuple(out)


def dependencies_current(deps):
    """Whether every file of |deps| still has the bytes it had."""
    return all(_digest(p) == d for p, d in deps)


def pack_entry(container, writes, deps=()):
    """An entry's bytes: which arguments the kernel writes through (|writes|,
    a tuple of bools, or None: unknown), the files the compile read beside
    the kernel's (|deps|, from dependencies()), then the container."""
    if writes is None:
        head = struct.pack("<I", _UNKNOWN)
    else:
        head = struct.pack("<I", len(writes)) + bytes(1 if w else 0 for w in writes)
    head += struct.pack("<I", len(deps))
    for path, digest in deps:
        name = os.fsencode(path)
        head += struct.pack("<I", len(name)) + name + digest
    return _ENTRY_MAGIC + head + container


def unpack_entry(blob):
    """(container, writes, deps) of an entry's bytes; (None, None, ()) for
    None or for an entry not in this format (a miss: the launch compiles and
    replaces it)."""
    miss = None, None, ()
    if blob is None or not blob.startswith(_ENTRY_MAGIC):
        return miss
    try:
        at = len(_ENTRY_MAGIC)
        (n,) = struct.unpack_from("<I", blob, at)
        at += 4
        writes = None
        if n != _UNKNOWN:
            flags = blob[at:at + n]
            if len(flags) != n or any(f not in (0, 1) for f in flags):
                return miss
            writes = tuple(f == 1 for f in flags)
            at += n
        (count,) = struct.unpack_from("<I", blob, at)
        at += 4
        deps = []
        for _ in range(count):
            (size,) = struct.unpack_from("<I", blob, at)
            at += 4
            name, digest = blob[at:at + size], blob[at + size:at + size + 32]
            if len(name) != size or len(digest) != 32:
                return miss
            deps.append((os.fsdecode(name), digest))
            at += size + 32
    except struct.error:
        return miss
    return blob[at:], writes, tuple(deps)


def one_image_container(lib, metadata, data, size):
    """The bytes of a kernel container holding one image."""
    writer = ctypes.c_void_p()
    _rt.check(lib, lib.tegula_container_writer_create(ctypes.byref(writer)))
    try:
        _rt.check(lib, lib.tegula_container_writer_add(writer, metadata, data, size))
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        _rt.check(lib, lib.tegula_container_writer_finish(writer, ctypes.byref(out),
                                                          ctypes.byref(n)))
        return ctypes.string_at(out, n.value)
    finally:
        lib.tegula_container_writer_destroy(writer)


def load_one_image(device, blob):
    """The CompiledKernel of the one image of container bytes |blob|."""
    from ._launch import CompiledKernel
    lib = device._runtime._lib
    handle = ctypes.c_void_p()
    _rt.check(lib, lib.tegula_container_read(blob, len(blob), ctypes.byref(handle)))
    try:
        entry = _rt.sized(_rt.tegula_container_entry)
        _rt.check(lib, lib.tegula_container_get_entry(handle, 0, ctypes.byref(entry)))
        return CompiledKernel.from_image(device, entry.metadata.contents, entry.image,
                                         entry.image_size)
    finally:
        lib.tegula_container_destroy(handle)
