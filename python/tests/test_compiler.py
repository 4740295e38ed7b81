"""The compiler C API from Python (tegula/_compiler.py): finding
libtegula_compiler, bytecode, and the diagnostics of kernels that do not
compile."""

import os

import pytest

import tegula
from tegula import _compiler, _runtime

HERE = os.path.dirname(os.path.abspath(__file__))
ADD_KERNEL = os.path.join(HERE, "kernels", "add_kernel.py")


def read(path):
    with open(path, "rb") as f:
        return f.read()


# -- Finding the library ------------------------------------------------------


def test_found_beside_the_runtime_library(monkeypatch):
    monkeypatch.delenv("TEGULA_COMPILER_LIB", raising=False)
    cands = _compiler.candidates()
    runtime_dir = os.path.dirname(_runtime.library_path())
    assert cands[0] == ("beside the runtime library",
                        os.path.join(runtime_dir, "libtegula_compiler.so.1"))
    lib = _compiler.load_from(cands)
    assert os.path.dirname(_runtime.loaded_path(lib.tegula_compile_kernel)) == runtime_dir


def test_runtime_library_path_is_the_loaded_file():
    assert os.path.samefile(_runtime.library_path(), os.environ["TEGULA_RUNTIME_LIB"])


def test_explicit_path_is_not_second_guessed(monkeypatch):
    monkeypatch.setenv("TEGULA_COMPILER_LIB", "/no/such/dir/libtegula_compiler.so")
    cands = _compiler.candidates()
    assert cands == [("$TEGULA_COMPILER_LIB", "/no/such/dir/libtegula_compiler.so")]
    with pytest.raises(tegula.CompilerLibraryNotFound) as info:
        _compiler.load_from(cands)
    msg = str(info.value)
    assert "TEGULA_COMPILER_LIB" in msg and "/no/such/dir/libtegula_compiler.so" in msg
    assert "no such file" in msg


def test_explicit_path_works(monkeypatch):
    path = os.path.join(os.path.dirname(_runtime.library_path()), "libtegula_compiler.so")
    monkeypatch.setenv("TEGULA_COMPILER_LIB", path)
    lib = _compiler.load_from(_compiler.candidates())
    assert os.path.samefile(_runtime.loaded_path(lib.tegula_compile_kernel), path)


def test_not_found_lists_everything_tried(monkeypatch, tmp_path):
    monkeypatch.delenv("TEGULA_COMPILER_LIB", raising=False)
    monkeypatch.setattr(_compiler.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_compiler, "LIB_NAMES", ("libtegula_compiler_nonexistent.so.1",
                                                 "libtegula_compiler_nonexistent.so"))
    monkeypatch.setattr(_runtime, "installed_lib_dirs", lambda: [str(tmp_path)])
    cands = _compiler.candidates(runtime_dir=str(tmp_path / "rt"))
    with pytest.raises(tegula.CompilerLibraryNotFound) as info:
        _compiler.load_from(cands)
    msg = str(info.value)
    assert "TEGULA_COMPILER_LIB" in msg  # says how to fix it
    assert "beside the runtime library: %s" % (tmp_path / "rt") in msg
    assert 'ctypes.util.find_library("tegula_compiler"): not found' in msg
    assert "the loader's default search: libtegula_compiler_nonexistent.so.1" in msg
    assert "installed lib dir: %s" % tmp_path in msg
    assert isinstance(info.value, OSError) and isinstance(info.value, tegula.TegulaError)


def test_a_library_that_is_not_the_compiler(monkeypatch):
    # The runtime library loads but lacks the compiler's functions.
    monkeypatch.setenv("TEGULA_COMPILER_LIB", os.environ["TEGULA_RUNTIME_LIB"])
    with pytest.raises(tegula.CompilerLibraryNotFound, match="not the compiler library"):
        _compiler.load_from(_compiler.candidates())


def test_api_version():
    assert _compiler.api_version() == (1, 3)


def test_the_debug_mode_is_refused_by_name_with_an_older_library(monkeypatch):
    # A 1.2 library would ignore the field past its struct: no silent
    # launch without the checks.
    monkeypatch.setattr(_compiler, "api_version", lambda: (1, 2))
    with pytest.raises(RuntimeError, match=r"add_kernel: the debug mode needs compiler API "
                       r"1\.3, but .*libtegula_compiler\S* implements 1\.2"):
        _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel",
                                 "*fp32:16, *fp32:16, *fp32:16, i32, 1024", debug=True)
    # Without the debug mode the older library is fine.
    assert _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel",
                                    "*fp32:16, *fp32:16, *fp32:16, i32, 1024")[:4] == b"ML\xefR"


# -- Compiling -----------------------------------------------------------------


def test_bytecode():
    code = _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel",
                                    "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                                    file_name=ADD_KERNEL)
    assert isinstance(code, bytes) and code[:4] == b"ML\xefR"
    # Keyword constexprs, num_warps and str sources work too.
    code2 = _compiler.compile_kernel(read(ADD_KERNEL).decode(), "add_kernel",
                                     "*fp32:16, *fp32:16, *fp32:16, i32",
                                     file_name=ADD_KERNEL, constexprs={"BLOCK_SIZE": "1024"})
    assert code2 == code
    assert _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel",
                                    "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                                    num_warps=8) != code


def test_syntax_error_diagnostics():
    src = ("import tegula\nimport tegula.language as tl\n\n"
           "@tegula.jit\n"
           "def k(x_ptr):\n"
           "    x = tl.load(x_ptr +)\n")
    with pytest.raises(tegula.CompilationError) as info:
        _compiler.compile_kernel(src, "k", "*fp32", file_name="syntax.py")
    e = info.value
    assert e.diagnostics.startswith("syntax.py:6:24: error: ")
    assert "    x = tl.load(x_ptr +)\n" in e.diagnostics
    assert "\n                       ^\n" in e.diagnostics
    assert e.kernel == "k" and e.signature == "*fp32"
    assert e.code_name == "TEGULA_COMPILER_ERROR_KERNEL"
    assert str(e) == ('syntax.py:6:24: error: %s\n    x = tl.load(x_ptr +)\n%s^\n'
                      'in kernel k, compiled for signature "*fp32"'
                      % (e.error_message, " " * 23))
    assert (e.filename, e.lineno, e.col) == ("syntax.py", 6, 24)
    assert e.src == src and isinstance(e, tegula.TegulaError)


def test_unknown_kernel():
    with pytest.raises(tegula.CompilationError, match="no @jit function named 'nope'; "
                                                      "the file defines add_kernel"):
        _compiler.compile_kernel(read(ADD_KERNEL), "nope", "*fp32", file_name=ADD_KERNEL)


def test_bad_signature():
    with pytest.raises(tegula.CompilationError) as info:
        _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel", "*fp33, i32")
    assert info.value.code_name == "TEGULA_COMPILER_ERROR_INVALID_SIGNATURE"
    assert info.value.diagnostics.startswith("invalid signature: ")


def test_bad_call():
    with pytest.raises(ValueError, match="num_warps is 3, not a power of 2"):
        _compiler.compile_kernel(read(ADD_KERNEL), "add_kernel", "*fp32", num_warps=3)
