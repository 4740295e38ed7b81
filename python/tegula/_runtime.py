"""ctypes declarations for the Tegula runtime C API (tegula/runtime.h).

Only what the Python package uses is declared. Struct layouts are copied from
runtime-abi/include/tegula/runtime.h and sdk/include/tegula/plugin.h; every
args struct begins with ``struct_size``, which :func:`sized` sets.
"""

import ctypes
import ctypes.util
import os
import sys
import threading

c_size_t = ctypes.c_size_t
c_uint8 = ctypes.c_uint8
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int = ctypes.c_int
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p

#: tg_error_code (plugin.h).
ERROR_CODE_NAMES = {
    0: "TG_SUCCESS",
    1: "TG_ERROR_UNKNOWN",
    2: "TG_ERROR_INVALID_ARGUMENT",
    3: "TG_ERROR_NOT_FOUND",
    4: "TG_ERROR_OUT_OF_MEMORY",
    5: "TG_ERROR_UNIMPLEMENTED",
    6: "TG_ERROR_UNAVAILABLE",
    7: "TG_ERROR_VERSION_MISMATCH",
    8: "TG_ERROR_INVALID_FORMAT",
    9: "TG_ERROR_OUT_OF_RANGE",
    10: "TG_ERROR_DEVICE",
    11: "TG_ERROR_INTERNAL",
}


class TegulaError(RuntimeError):
    """An error returned by the Tegula runtime C API.

    ``code`` is the tg_error_code value, ``code_name`` its name
    (e.g. ``"TG_ERROR_OUT_OF_RANGE"``), ``message`` the C message.
    """

    def __init__(self, message, code=1):
        self.message = message
        self.code = int(code)
        self.code_name = ERROR_CODE_NAMES.get(self.code, "TG_ERROR_%d" % self.code)
        super().__init__("%s [%s]" % (message, self.code_name))


class OutOfMemoryError(TegulaError, MemoryError):
    """TG_ERROR_OUT_OF_MEMORY: an allocation the device (or the host) cannot
    satisfy."""


class RuntimeLibraryNotFound(TegulaError, OSError):
    """libtegula_runtime.so could not be found or loaded."""

    def __init__(self, message):
        super().__init__(message, 6)  # TG_ERROR_UNAVAILABLE


# -- Structs ---------------------------------------------------------------


class tegula_runtime_options(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("plugin_path", c_char_p),
        ("visible_backends", c_char_p),
        ("default_plugin_dir", c_char_p),
    ]


class tg_compile_stage_info(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("binary", c_uint32),
        ("reserved", c_uint32),
        ("description", c_char_p),
    ]


class tg_compile_option_info(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_uint32),
        ("reserved", c_uint32),
        ("min", ctypes.c_int64),
        ("max", ctypes.c_int64),
        ("choices", c_char_p),
        ("default_value", c_char_p),
        ("env", c_char_p),
        ("description", c_char_p),
    ]


OPTION_TYPES = {1: "bool", 2: "int", 3: "enum", 4: "string"}

# The environment variables the loaded plugins' compile options read, in the
# order they were first seen; their values are part of every compiled
# kernel's cache key, so that changing one recompiles instead of reusing a
# kernel built under the old value. os.environ's own dict (bytes keys on
# POSIX) is read directly: a launch's fast path reads these every call.
_option_env_names = []
_option_env_keys = []
_environ_data = getattr(os.environ, "_data", None) if os.name == "posix" else None


# The names of the compile options the loaded plugins declare: a launch
# keyword that names no kernel parameter is one of these, or a TypeError.
option_names = set()


def compile_option_array(pairs):
    """(ctypes array of tg_compile_option, count) for (key, value) texts; the
    array keeps the encoded strings alive."""
    pairs = list(pairs)
    keep = [(k.encode(), v.encode()) for k, v in pairs]
    array = (tg_compile_option * max(len(keep), 1))(
        *[tg_compile_option(k, v) for k, v in keep])
    array._keep = keep
    return array, len(keep)


def add_option_env_names(names):
    """Records environment variables that compile options read."""
    for name in names:
        if name and name not in _option_env_names:
            _option_env_names.append(name)
            _option_env_keys.append(os.fsencode(name))


def option_environment():
    """The current values of those variables, as a hashable tuple."""
    if _environ_data is not None:
        return tuple(map(_environ_data.get, _option_env_keys))
    return tuple([os.environ.get(n) for n in _option_env_names])


class tegula_plugin_info(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("path", c_char_p),
        ("name", c_char_p),
        ("loaded", c_int),
        ("skip_message", c_char_p),
        ("skip_reason", c_char_p),
        ("version", c_char_p),
        ("vendor", c_char_p),
        ("abi_major", c_uint32),
        ("abi_minor", c_uint32),
        ("targets", ctypes.POINTER(c_char_p)),
        ("num_targets", c_size_t),
        ("num_devices", c_size_t),
        ("device_status", c_char_p),
        # plugin ABI 1.1
        ("stages", ctypes.POINTER(tg_compile_stage_info)),
        ("num_stages", c_size_t),
        ("options", ctypes.POINTER(tg_compile_option_info)),
        ("num_options", c_size_t),
    ]


class tg_device_properties(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("extension_start", c_void_p),
        ("name", c_char_p),
        ("arch", c_char_p),
        ("compute_units", c_uint32),
        ("warp_size", c_uint32),
        ("max_threads_per_block", c_uint32),
        ("matrix_units", c_uint32),
        ("shared_memory_per_block", c_uint64),
        ("global_memory", c_uint64),
        ("clock_khz", c_uint32),
        ("memory_clock_khz", c_uint32),
    ]


class tg_kernel_arg(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("kind", c_uint32),
        ("type", c_uint32),
        ("divisibility", c_uint32),
        ("reserved", c_uint32),
    ]


class tg_kernel_metadata(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("extension_start", c_void_p),
        ("name", c_char_p),
        ("target", c_char_p),
        ("num_warps", c_uint32),
        ("shared_memory", c_uint32),
        ("num_args", c_uint32),
        ("args", ctypes.POINTER(tg_kernel_arg)),
        ("specialization", c_char_p),
    ]


class tg_kernel_attributes(ctypes.Structure):
    """plugin ABI 1.2: a loaded kernel's resource use; every field all ones
    (KERNEL_ATTRIBUTE_UNKNOWN) where the plugin cannot tell."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("extension_start", c_void_p),
        ("registers", c_uint32),
        ("spills", c_uint32),
        ("local_memory", c_uint32),
        ("shared_memory", c_uint32),
        ("max_threads_per_block", c_uint32),
        ("vector_register_spills", c_uint32),
        ("scalar_registers", c_uint32),
        ("scalar_register_spills", c_uint32),
    ]


#: TG_KERNEL_ATTRIBUTE_UNKNOWN.
KERNEL_ATTRIBUTE_UNKNOWN = 0xFFFFFFFF


class tegula_container_entry(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("target", c_char_p),
        ("image", c_void_p),
        ("image_size", c_size_t),
        ("metadata", ctypes.POINTER(tg_kernel_metadata)),
    ]


class tg_compile_option(ctypes.Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


class tegula_launch_config(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("grid", c_uint32 * 3),
        ("block", c_uint32 * 3),
        ("dynamic_shared_memory", c_uint32),
    ]


#: tg_arg_kind and tg_scalar_type (plugin.h).
ARG_POINTER = 1
ARG_SCALAR = 2
SCALAR_TYPES = {
    1: "i1", 2: "i8", 3: "i16", 4: "i32", 5: "i64", 6: "u8", 7: "u16", 8: "u32",
    9: "u64", 10: "fp16", 11: "bf16", 12: "fp32", 13: "fp64", 14: "fp8e4nv", 15: "fp8e5",
}


def sized(struct_type):
    """A zeroed instance of |struct_type| with struct_size set."""
    s = struct_type()
    s.struct_size = ctypes.sizeof(struct_type)
    return s


# -- Library lookup --------------------------------------------------------

#: The runtime's soname: what an install (``cmake --install``, the .deb
#: packages) and a self-contained wheel always have, unlike the ``.so``
#: development link.
SONAME = "libtegula_runtime.so.1"


def bundled_lib_dir():
    """``tegula/_lib/lib``: where a self-contained wheel
    (scripts/build-wheel.py) carries the native libraries, with the plugins
    in ``tegula/_lib/lib/tegula/plugins`` (an install prefix's shape, so the
    libraries' ``$ORIGIN/../lib`` RUNPATH and the runtime's plugin folder
    beside itself hold there unchanged)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", "lib")


def _multiarch():
    try:
        import sysconfig
        return sysconfig.get_config_var("MULTIARCH") or None
    except Exception:  # pragma: no cover
        return None


def installed_lib_dirs():
    """The ``lib/`` folders of the prefixes Tegula may be installed into, in
    the order they are tried: the prefix the package itself is installed in
    (``<prefix>/lib/python3.X/site-packages/tegula`` -> ``<prefix>/lib``),
    ``sys.prefix`` and ``sys.base_prefix`` (a venv and the Python it was made
    from), ``/usr/local`` (``cmake --install``'s default prefix) and ``/usr``
    (the .deb packages); each prefix's ``lib``, its multiarch folder
    (``lib/x86_64-linux-gnu``) and ``lib64``."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = []
    d = here
    for _ in range(5):
        d = os.path.dirname(d)
        if os.path.basename(d) in ("lib", "lib64"):
            dirs.append(d)
    multiarch = _multiarch()
    for prefix in (sys.prefix, sys.base_prefix, "/usr/local", "/usr"):
        dirs.append(os.path.join(prefix, "lib"))
        if multiarch:
            dirs.append(os.path.join(prefix, "lib", multiarch))
        dirs.append(os.path.join(prefix, "lib64"))
    out, seen = [], set()
    for d in dirs:
        key = os.path.normpath(d)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _candidates():
    """(description, path or name) pairs, in the order they are tried: a name
    without a '/' goes to the dynamic loader's own search (its cache,
    LD_LIBRARY_PATH, /lib, /usr/lib)."""
    out = []
    env = os.environ.get("TEGULA_RUNTIME_LIB")
    if env:
        out.append(("$TEGULA_RUNTIME_LIB", env))
        return out  # an explicit choice is not second-guessed
    out.append(("bundled with the package", os.path.join(bundled_lib_dir(), SONAME)))
    for d in installed_lib_dirs():
        out.append(("installed lib dir", os.path.join(d, SONAME)))
    out.append(("the loader's default search", SONAME))
    found = ctypes.util.find_library("tegula_runtime")
    out.append(('ctypes.util.find_library("tegula_runtime")', found))
    for d in build_tree_lib_dirs():
        out.append(("the build tree this package was installed from", os.path.join(d, SONAME)))
    return out


def build_tree_lib_dirs():
    """``<checkout>/build/lib``, when ``pip install ./python`` ran in a
    checkout that had been built (python/setup.py records it in
    tegula/_build_tree.py); else []."""
    try:
        from . import _build_tree
    except ImportError:
        return []
    return list(getattr(_build_tree, "LIB_DIRS", []))


_lib = None
_lib_path = None
_lib_lock = threading.Lock()


class _Dl_info(ctypes.Structure):
    _fields_ = [("dli_fname", c_char_p), ("dli_fbase", c_void_p),
                ("dli_sname", c_char_p), ("dli_saddr", c_void_p)]


def loaded_path(function):
    """The absolute path of the shared library that defines |function| (a
    ctypes function of a loaded library), by dladdr; None if unknown."""
    for libname in (None, ctypes.util.find_library("dl")):
        try:
            dladdr = ctypes.CDLL(libname).dladdr
        except (OSError, AttributeError, TypeError):
            continue
        dladdr.restype = c_int
        dladdr.argtypes = [c_void_p, ctypes.POINTER(_Dl_info)]
        info = _Dl_info()
        addr = ctypes.cast(function, c_void_p).value
        if addr and dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(os.fsdecode(info.dli_fname))
    return None


def library_path():
    """The file libtegula_runtime was loaded from (loading it if needed)."""
    global _lib_path
    lib = load_library()
    if _lib_path is None:
        _lib_path = loaded_path(lib.tegula_runtime_create)
    return _lib_path


def load_library():
    """Loads libtegula_runtime once and declares its functions."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        seen = set()
        for what, path in _candidates():
            if not path:
                tried.append("%s: not found" % what)
                continue
            if path in seen:
                continue
            seen.add(path)
            if os.sep in path and not os.path.exists(path) and what[0] != "$":
                tried.append("%s: %s (no such file)" % (what, path))
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s: %s (%s)" % (what, path, e))
                continue
            _declare(lib)
            _lib = lib
            return lib
        raise RuntimeLibraryNotFound(
            "cannot load the Tegula runtime library (%s). Install Tegula (the "
            "tegula-core and tegula-plugin-* .deb packages, or `cmake --install "
            "build`), install the self-contained wheel (scripts/build-wheel.py), "
            "or set TEGULA_RUNTIME_LIB to the path of libtegula_runtime.so. "
            "Tried: %s" % (SONAME, "; ".join(tried)))


def _fn(lib, name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


def _declare(lib):
    E = c_void_p  # tegula_error_t*
    P = c_void_p  # any opaque handle
    PP = ctypes.POINTER(c_void_p)
    _fn(lib, "tegula_error_get_code", c_int, E)
    _fn(lib, "tegula_error_get_message", c_char_p, E)
    _fn(lib, "tegula_error_destroy", None, E)

    _fn(lib, "tegula_runtime_get_abi_version", None,
        ctypes.POINTER(c_uint32), ctypes.POINTER(c_uint32))
    _fn(lib, "tegula_runtime_create", E, ctypes.POINTER(tegula_runtime_options), PP)
    _fn(lib, "tegula_runtime_destroy", None, P)
    _fn(lib, "tegula_runtime_get_search_dir_count", c_size_t, P)
    _fn(lib, "tegula_runtime_get_search_dir", c_char_p, P, c_size_t)
    _fn(lib, "tegula_runtime_get_plugin_count", c_size_t, P)
    _fn(lib, "tegula_runtime_get_plugin_info", E, P, c_size_t,
        ctypes.POINTER(tegula_plugin_info))

    _fn(lib, "tegula_runtime_get_device_count", c_size_t, P)
    _fn(lib, "tegula_runtime_get_device", P, P, c_size_t)
    _fn(lib, "tegula_runtime_find_device", E, P, c_char_p, PP)
    _fn(lib, "tegula_device_get_name", c_char_p, P)
    _fn(lib, "tegula_device_get_backend", c_char_p, P)
    _fn(lib, "tegula_device_get_target", c_char_p, P)
    _fn(lib, "tegula_device_get_properties", E, P, ctypes.POINTER(tg_device_properties))

    _fn(lib, "tegula_buffer_alloc", E, P, c_uint64, PP)
    _fn(lib, "tegula_buffer_free", E, P)
    _fn(lib, "tegula_buffer_get_size", c_uint64, P)
    _fn(lib, "tegula_buffer_get_device_address", c_uint64, P)
    _fn(lib, "tegula_buffer_get_device", P, P)
    _fn(lib, "tegula_buffer_write", E, P, c_uint64, c_void_p, c_uint64, P)
    _fn(lib, "tegula_buffer_read", E, P, c_uint64, c_void_p, c_uint64, P)
    _fn(lib, "tegula_buffer_copy", E, P, c_uint64, P, c_uint64, c_uint64, P)
    _fn(lib, "tegula_buffer_memset", E, P, c_uint64, c_uint8, c_uint64, P)

    _fn(lib, "tegula_stream_create", E, P, PP)
    if hasattr(lib, "tegula_stream_create_native"):  # a runtime older than it lacks it
        _fn(lib, "tegula_stream_create_native", E, P, c_uint64, PP)
    _fn(lib, "tegula_stream_destroy", E, P)
    _fn(lib, "tegula_stream_synchronize", E, P)
    _fn(lib, "tegula_stream_wait_event", E, P, P)
    _fn(lib, "tegula_event_create", E, P, PP)
    _fn(lib, "tegula_event_destroy", E, P)
    _fn(lib, "tegula_event_record", E, P, P)
    _fn(lib, "tegula_event_synchronize", E, P)
    _fn(lib, "tegula_event_elapsed_time", E, P, P, ctypes.POINTER(ctypes.c_float))

    MD = ctypes.POINTER(tg_kernel_metadata)
    _fn(lib, "tegula_device_compile", E, P, c_void_p, c_size_t,
        ctypes.POINTER(tg_compile_option), c_size_t, PP)
    _fn(lib, "tegula_image_get_data", c_void_p, P)
    _fn(lib, "tegula_image_get_size", c_size_t, P)
    _fn(lib, "tegula_image_get_metadata", MD, P)
    _fn(lib, "tegula_image_destroy", None, P)
    _fn(lib, "tegula_module_load", E, P, c_void_p, c_size_t, PP)
    _fn(lib, "tegula_module_unload", E, P)
    _fn(lib, "tegula_module_get_kernel", E, P, c_char_p, PP)
    _fn(lib, "tegula_kernel_launch", E, P, P, ctypes.POINTER(tegula_launch_config),
        c_void_p, c_size_t)
    if hasattr(lib, "tegula_kernel_check_buffers"):  # libtegula_runtime.so.1.1
        _fn(lib, "tegula_kernel_get_device", P, P)
        _fn(lib, "tegula_kernel_check_buffers", E, P, MD, PP, c_size_t)
    if hasattr(lib, "tegula_kernel_get_attributes"):  # plugin ABI 1.2's runtime
        _fn(lib, "tegula_kernel_get_attributes", E, P, ctypes.POINTER(tg_kernel_attributes))
    _fn(lib, "tegula_scalar_type_size", c_size_t, c_uint32)
    _fn(lib, "tegula_args_layout", E, MD, ctypes.POINTER(c_size_t), ctypes.POINTER(c_size_t))
    _fn(lib, "tegula_args_pack", E, MD, ctypes.POINTER(c_void_p), c_void_p, c_size_t,
        ctypes.POINTER(c_size_t))

    _fn(lib, "tegula_container_read_file", E, c_char_p, PP)
    _fn(lib, "tegula_container_read", E, c_void_p, c_size_t, PP)
    _fn(lib, "tegula_container_destroy", None, P)
    _fn(lib, "tegula_container_get_version", None, P,
        ctypes.POINTER(c_uint32), ctypes.POINTER(c_uint32))
    _fn(lib, "tegula_container_get_entry_count", c_size_t, P)
    _fn(lib, "tegula_container_get_entry", E, P, c_size_t,
        ctypes.POINTER(tegula_container_entry))
    _fn(lib, "tegula_container_select", E, P, P, c_char_p, ctypes.POINTER(c_size_t))
    _fn(lib, "tegula_container_writer_create", E, PP)
    _fn(lib, "tegula_container_writer_destroy", None, P)
    _fn(lib, "tegula_container_writer_add", E, P, MD, c_void_p, c_size_t)
    _fn(lib, "tegula_container_writer_write_file", E, P, c_char_p)
    _fn(lib, "tegula_container_writer_finish", E, P, PP, ctypes.POINTER(c_size_t))
    if hasattr(lib, "tegula_runtime_compile"):  # a runtime older than it lacks it
        _fn(lib, "tegula_runtime_compile", E, P, c_char_p, c_void_p, c_size_t,
            ctypes.POINTER(tg_compile_option), c_size_t, PP)
    if hasattr(lib, "tegula_runtime_compile_stage"):
        _fn(lib, "tegula_runtime_compile_stage", E, P, c_char_p, c_char_p, c_void_p,
            c_size_t, ctypes.POINTER(tg_compile_option), c_size_t, PP)


def kernel_attributes(lib, kernel):
    """{field: value or None} of tg_kernel_attributes for the loaded
    |kernel| (None where the plugin cannot tell); every value None when the
    plugin tells nothing (TG_ERROR_UNIMPLEMENTED, an older plugin or runtime)
    or the query fails."""
    names = [name for name, _ in tg_kernel_attributes._fields_[2:]]
    unknown = dict.fromkeys(names)
    if not hasattr(lib, "tegula_kernel_get_attributes"):
        return unknown
    attrs = sized(tg_kernel_attributes)
    err = lib.tegula_kernel_get_attributes(kernel, ctypes.byref(attrs))
    if err:
        lib.tegula_error_destroy(err)
        return unknown
    return {name: (None if getattr(attrs, name) == KERNEL_ATTRIBUTE_UNKNOWN
                   else getattr(attrs, name)) for name in names}


def check(lib, err):
    """Raises TegulaError for a non-NULL tegula_error_t*, freeing it."""
    if not err:
        return
    try:
        code = lib.tegula_error_get_code(err)
        msg = lib.tegula_error_get_message(err)
        msg = msg.decode("utf-8", "replace") if msg else ""
    finally:
        lib.tegula_error_destroy(err)
    if code == 4:  # TG_ERROR_OUT_OF_MEMORY
        raise OutOfMemoryError(msg, code)
    raise TegulaError(msg, code)


def decode(b):
    return b.decode("utf-8", "replace") if b is not None else None


def encode(s):
    return None if s is None else os.fsencode(s) if not isinstance(s, bytes) else s
