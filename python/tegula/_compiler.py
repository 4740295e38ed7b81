"""ctypes over the Tegula compiler C API (tegula/compiler.h,
libtegula_compiler): kernel source + kernel name + signature -> tile-dialect
bytecode, the bytes ``tegula compile --emit tile-bytecode`` writes.

The library is found, in order: ``$TEGULA_COMPILER_LIB`` (when set, nothing
else is tried); beside the runtime library that was loaded
(``libtegula_runtime.so``'s folder); ``ctypes.util.find_library`` and the
loader's default search for ``libtegula_compiler.so.1``; the installed
``lib/`` folders the runtime lookup also tries.
"""

import ctypes
import ctypes.util
import os
import threading

from . import _runtime as _rt
from ._errors import COMPILER_ERROR_CODE_NAMES, CompilationError, compilation_error  # noqa: F401

c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int32 = ctypes.c_int32

LIB_NAMES = ("libtegula_compiler.so.1", "libtegula_compiler.so")

#: tegula_compiler_error_code (compiler.h).
ERROR_CODE_NAMES = COMPILER_ERROR_CODE_NAMES


class CompilerLibraryNotFound(_rt.TegulaError, OSError):
    """libtegula_compiler.so could not be found or loaded."""

    def __init__(self, message):
        super().__init__(message, 6)  # TG_ERROR_UNAVAILABLE


class tegula_compile_options(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("source", c_void_p),
        ("source_size", c_size_t),
        ("file_name", c_char_p),
        ("kernel_name", c_char_p),
        ("signature", c_char_p),
        ("constexprs", ctypes.POINTER(c_char_p)),
        ("num_constexprs", c_size_t),
        ("num_warps", c_int32),
        ("num_stages", c_int32),
        ("disable_assertions", c_int32),
        # API 1.2
        ("search_paths", ctypes.POINTER(c_char_p)),
        ("num_search_paths", c_size_t),
        ("debug", c_int32),  # API 1.3
    ]


def candidates(env=None, runtime_dir=None):
    """(description, path or name) pairs in the order they are tried.

    |env| defaults to os.environ; |runtime_dir| to the folder of the loaded
    runtime library (found lazily; skipped when the runtime cannot load)."""
    env = os.environ if env is None else env
    explicit = env.get("TEGULA_COMPILER_LIB")
    if explicit:
        return [("$TEGULA_COMPILER_LIB", explicit)]  # not second-guessed
    out = []
    if runtime_dir is None:
        try:
            path = _rt.library_path()
            runtime_dir = os.path.dirname(path) if path else None
        except _rt.TegulaError:
            runtime_dir = None
    if runtime_dir:
        for name in LIB_NAMES:
            out.append(("beside the runtime library", os.path.join(runtime_dir, name)))
    # Asked only when the candidates before it fail: find_library runs
    # ldconfig and the compiler driver (tens of milliseconds).
    out.append(('ctypes.util.find_library("tegula_compiler")',
                lambda: ctypes.util.find_library("tegula_compiler")))
    out.append(("the loader's default search", LIB_NAMES[0]))
    for d in _rt.installed_lib_dirs():
        out.append(("installed lib dir", os.path.join(d, LIB_NAMES[0])))
    return out


def load_from(cands):
    """Loads the first candidate that loads; CompilerLibraryNotFound lists
    every one tried and why."""
    tried = []
    seen = set()
    for what, path in cands:
        if callable(path):
            path = path()
        if not path:
            tried.append("%s: not found" % what)
            continue
        if path in seen:
            continue
        seen.add(path)
        if os.sep in path and not os.path.exists(path):
            tried.append("%s: %s (no such file)" % (what, path))
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s: %s (%s)" % (what, path, e))
            continue
        try:
            _declare(lib)
        except AttributeError as e:
            tried.append("%s: %s (not the compiler library: %s)" % (what, path, e))
            continue
        return lib
    raise CompilerLibraryNotFound(
        "cannot load the Tegula compiler library (libtegula_compiler.so), which "
        "launching kernels needs; set TEGULA_COMPILER_LIB to its path. Tried: %s"
        % "; ".join(tried))


_lib = None
_lib_lock = threading.Lock()


def load_library():
    """Loads libtegula_compiler once (see the module doc for the order)."""
    global _lib
    with _lib_lock:
        if _lib is None:
            _lib = load_from(candidates())
        return _lib


def library_file():
    """The path of the compiler library launches would load, without
    loading it where that can be told from the file system (the kernel
    cache keys name it: a cache hit then never loads the compiler); loads
    it where only the dynamic loader knows."""
    if _lib is not None:
        return _rt.loaded_path(_lib.tegula_compile_kernel)
    for what, path in candidates():
        if callable(path):
            break
        if path and os.sep in path and os.path.isfile(path):
            return os.path.realpath(path)  # as loaded_path() names it
        if what.startswith("$"):
            break
    return _rt.loaded_path(load_library().tegula_compile_kernel)


def _fn(lib, name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


def _declare(lib):
    E = c_void_p  # tegula_compiler_error_t*
    R = c_void_p  # tegula_compile_result_t*
    _fn(lib, "tegula_compiler_error_get_code", ctypes.c_int, E)
    _fn(lib, "tegula_compiler_error_get_message", c_char_p, E)
    _fn(lib, "tegula_compiler_error_destroy", None, E)
    _fn(lib, "tegula_compiler_get_api_version", None,
        ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32))
    _fn(lib, "tegula_compile_kernel", E, ctypes.POINTER(tegula_compile_options),
        ctypes.POINTER(R))
    _fn(lib, "tegula_compile_result_get_bytecode", c_void_p, R)
    _fn(lib, "tegula_compile_result_get_bytecode_size", c_size_t, R)
    _fn(lib, "tegula_compile_result_get_diagnostics", c_char_p, R)
    _fn(lib, "tegula_compile_result_destroy", None, R)
    try:  # API 1.1
        _fn(lib, "tegula_compile_result_get_num_args", c_size_t, R)
        _fn(lib, "tegula_compile_result_get_arg_writes", ctypes.c_int32, R, c_size_t)
    except AttributeError:  # a 1.0 library: which arguments are written is unknown
        pass
    try:  # API 1.2
        _fn(lib, "tegula_compile_result_get_num_imported_files", c_size_t, R)
        _fn(lib, "tegula_compile_result_get_imported_file", c_char_p, R, c_size_t)
    except AttributeError:  # an older library reads no other module
        pass


def api_version():
    lib = load_library()
    major, minor = ctypes.c_uint32(), ctypes.c_uint32()
    lib.tegula_compiler_get_api_version(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def compile_kernel(source, kernel, signature, file_name=None, constexprs=None,
                   num_warps=4, num_stages=3, assertions=True, search_paths=None,
                   debug=False):
    """Tile-dialect bytecode (bytes) of |kernel| in |source| (the whole file,
    str or bytes) for |signature|. |constexprs|: {name: literal text}.
    |search_paths|: the folders where the modules the kernel imports helpers
    from are looked for first (default: sys.path). |debug|: the
    bounds-checked debug mode (tegula_compile_options.debug). Raises
    CompilationError with the compiler's diagnostics (and |source| as its
    ``src``)."""
    return compile_kernel_info(source, kernel, signature, file_name, constexprs, num_warps,
                               num_stages, assertions, search_paths, debug=debug)[0]


def default_search_paths():
    """sys.path as folders ('' is the current folder), as Python's imports
    see them."""
    import sys
    return [p or os.getcwd() for p in sys.path if isinstance(p, str)]


def compile_kernel_info(source, kernel, signature, file_name=None, constexprs=None,
                        num_warps=4, num_stages=3, assertions=True, search_paths=None,
                        imported=None, debug=False):
    """(bytecode, writes) as compile_kernel compiles: |writes| has one bool per
    kernel argument (the non-constexpr parameters, in order), True when the
    kernel may write through it (tegula_compile_result_get_arg_writes), or
    is None when the library cannot say (API 1.0). |imported|, a list, gets
    the paths of the other modules the compile read (helpers imported from
    the user's package)."""
    lib = load_library()
    if debug and api_version() < (1, 3):
        raise RuntimeError("%s: the debug mode needs compiler API 1.3, but %s implements "
                           "%d.%d" % ((kernel, _rt.loaded_path(lib.tegula_compile_kernel))
                                      + api_version()))
    if search_paths is None:
        search_paths = default_search_paths()
    roots = [os.fsencode(p) for p in search_paths]
    src = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    src_buf = ctypes.create_string_buffer(src, len(src))
    entries = ["%s=%s" % (k, v) for k, v in (constexprs or {}).items()]
    ce = (c_char_p * max(len(entries), 1))(*[e.encode("utf-8") for e in entries])
    o = tegula_compile_options()
    o.struct_size = ctypes.sizeof(o)
    o.source = ctypes.cast(src_buf, c_void_p)
    o.source_size = len(src)
    o.file_name = _rt.encode(file_name)
    o.kernel_name = kernel.encode("utf-8")
    o.signature = signature.encode("utf-8")
    o.constexprs = ce
    o.num_constexprs = len(entries)
    o.num_warps = int(num_warps)
    o.num_stages = int(num_stages)
    o.disable_assertions = 0 if assertions else 1
    root_array = (c_char_p * max(len(roots), 1))(*roots)
    o.search_paths = root_array
    o.num_search_paths = len(roots)
    o.debug = 1 if debug else 0
    result = c_void_p()
    err = lib.tegula_compile_kernel(ctypes.byref(o), ctypes.byref(result))
    if err:
        try:
            code = lib.tegula_compiler_error_get_code(err)
            msg = _rt.decode(lib.tegula_compiler_error_get_message(err)) or ""
        finally:
            lib.tegula_compiler_error_destroy(err)
        if code == 1:  # INVALID_ARGUMENT: a bad call, not a bad kernel
            raise ValueError("%s: %s" % (kernel, msg))
        raise compilation_error(msg, kernel=kernel, signature=signature, code=code,
                                src=src.decode("utf-8", "replace"))
    try:
        size = lib.tegula_compile_result_get_bytecode_size(result)
        data = lib.tegula_compile_result_get_bytecode(result)
        bytecode = ctypes.string_at(data, size)
        writes = None
        if hasattr(lib, "tegula_compile_result_get_arg_writes"):
            n = lib.tegula_compile_result_get_num_args(result)
            flags = [lib.tegula_compile_result_get_arg_writes(result, i) for i in range(n)]
            if all(f in (0, 1) for f in flags):
                writes = tuple(f == 1 for f in flags)
        if imported is not None and hasattr(lib, "tegula_compile_result_get_imported_file"):
            imported.extend(
                os.fsdecode(lib.tegula_compile_result_get_imported_file(result, i))
                for i in range(lib.tegula_compile_result_get_num_imported_files(result)))
        return bytecode, writes
    finally:
        lib.tegula_compile_result_destroy(result)
