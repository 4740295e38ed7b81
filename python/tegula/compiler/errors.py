"""``triton.compiler.errors``: CompilationError and its subclasses
CompileTimeAssertionFailure (a failed ``tl.static_assert``) and
UnsupportedLanguageConstruct. Each is a ``tegula.TegulaError``."""

from .._errors import CompilationError, CompileTimeAssertionFailure, \
    UnsupportedLanguageConstruct

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
