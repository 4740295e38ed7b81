"""``triton.compiler``'s names: ``CompilationError`` (raised when a kernel's
source does not compile: see ``errors``) and ``CompiledKernel`` (what a
launch returns; its class attributes ``launch_enter_hook`` and
``launch_exit_hook`` are Triton's launch hooks)."""

from . import errors  # noqa: F401
from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
           "CompiledKernel", "errors"]


def __getattr__(name):
    # _launch is imported on first use (it is what launching needs).
    if name == "CompiledKernel":
        from .._launch import CompiledKernel
        return CompiledKernel
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
