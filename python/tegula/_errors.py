"""The errors a kernel's compile raises, as Triton raises them:
``CompilationError`` (``triton.compiler.errors``) when the kernel's source
is at fault, ``OutOfResources`` (``triton.runtime.errors``) when the
kernel needs more shared memory or threads than the target has.

Both are ``TegulaError``s (and so ``RuntimeError``s), the type a failed
compile raised before they existed, so that ``except tegula.TegulaError``
still catches them.

Where they come from: the front end (libtegula_compiler) reports errors in
the kernel as ``file:line:col: error: text``, the source line and a caret
(``tegula compile`` prints the same); a plugin's compile reports one line,
with the kernel's ``file:line:col:`` inside it when the error is at an
operation of the kernel (an operation the backend cannot lower), or the
scratch check's ``kernel K needs N bytes of shared memory per block;
sm_90a allows at most M`` (sdk/lib/CompileKit/TileCompile.cpp,
describeKernel), or ``num_warps must be a power of 2 from 1 to W (at most
T threads per block), not N`` (resolveNumWarps). ``from_plugin_error``
turns those into these types.
"""

import re

from ._runtime import ERROR_CODE_NAMES, TegulaError

#: tegula_compiler_error_code (compiler.h).
COMPILER_ERROR_CODE_NAMES = {
    0: "TEGULA_COMPILER_SUCCESS",
    1: "TEGULA_COMPILER_ERROR_INVALID_ARGUMENT",
    2: "TEGULA_COMPILER_ERROR_INVALID_SIGNATURE",
    3: "TEGULA_COMPILER_ERROR_KERNEL",
    4: "TEGULA_COMPILER_ERROR_INTERNAL",
    5: "TEGULA_COMPILER_ERROR_OUT_OF_MEMORY",
}

# "path:line:col: error: text" (the front end's first line).
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?:error: )?(?P<text>.*)$")


class _Node:
    """What Triton's CompilationError.node gives: ``lineno`` and
    ``col_offset`` (0-based, as Python's ast)."""

    __slots__ = ("lineno", "col_offset")

    def __init__(self, lineno, col_offset):
        self.lineno = lineno
        self.col_offset = col_offset

    def __repr__(self):
        return "<node at %d:%d>" % (self.lineno, self.col_offset)


def _source_line(src, lineno):
    if src is None or lineno is None:
        return None
    lines = src.split("\n")
    if 1 <= lineno <= len(lines):
        return lines[lineno - 1].rstrip("\r")
    return None


class CompilationError(TegulaError):
    """A kernel did not compile because of its source: a syntax or type
    error, a construct Tegula does not support, a failed
    ``tl.static_assert``, an operation the backend cannot lower.

    ``str(e)`` starts with the compiler's ``file:line:col: error: text``,
    then the offending source line and a caret under the column, then a
    line saying which kernel and signature were compiled.

    Attributes: ``diagnostics`` (the compiler's text: location, source line,
    caret), ``error_message`` (the text after ``error:``), ``filename``,
    ``lineno``, ``col`` (1-based, as in the message; None when the error has
    no location), ``node`` (``lineno`` and 0-based ``col_offset``, as
    Triton's), ``src`` (the text of the kernel's source file, or None),
    ``kernel``, ``signature``, ``message`` (``str(e)``); ``parameters``,
    after a launch's compile: (name, signature entry, is constexpr) per
    parameter, which that line then shows. ``code`` and
    ``code_name`` are the compiler's (``TEGULA_COMPILER_ERROR_KERNEL``, or
    ``..._INVALID_SIGNATURE``) for an error of the front end, the plugin's
    ``tg_error_code`` (``TG_ERROR_INVALID_ARGUMENT``...) for one of a
    plugin's compile."""

    def __init__(self, diagnostics, kernel=None, signature=None, code=3, src=None, note=None,
                 plugin_error=False):
        if isinstance(src, bytes):
            src = src.decode("utf-8", "replace")
        self.diagnostics = diagnostics
        self.kernel = kernel
        self.signature = signature
        self.src = src
        self.note = note
        self.plugin_error = plugin_error
        first = diagnostics.split("\n", 1)[0]
        m = _LOCATED.match(first)
        if m:
            self.filename = m.group("file")
            self.lineno = int(m.group("line"))
            self.col = int(m.group("col"))
            self.error_message = m.group("text")
            self.node = _Node(self.lineno, max(self.col - 1, 0))
        else:
            self.filename = self.lineno = self.col = self.node = None
            self.error_message = first
        text = diagnostics.rstrip("\n")
        if m and "\n" not in text:
            # One line (a plugin's): the source line and the caret, as the
            # front end shows them.
            line = _source_line(src, self.lineno)
            if line is not None:
                text += "\n%s\n%s^" % (line, " " * (self.col - 1))
                self.diagnostics = text + "\n"
        self._text = text
        self.parameters = None
        self._format()
        self.code = int(code)
        names = ERROR_CODE_NAMES if plugin_error else COMPILER_ERROR_CODE_NAMES
        self.code_name = names.get(self.code, ("TG_ERROR_%d" if plugin_error else
                                               "TEGULA_COMPILER_ERROR_%d") % self.code)
        RuntimeError.__init__(self, self.message)
        self.args = (self.message,)

    def _format(self):
        if self.parameters is not None:
            where = "in %s(%s)" % (self.kernel, ", ".join(
                ("%s=%s" if cx else "%s: %s") % (n, e) for n, e, cx in self.parameters))
        else:
            where = "in kernel %s" % (self.kernel or "?")
            if self.signature is not None:
                where += ", compiled for signature \"%s\"" % self.signature
        parts = [self._text, where]
        if self.note:
            parts.append(self.note)
        self.message = "\n".join(parts)
        self.args = (self.message,)

    def name_parameters(self, names, constexprs=()):
        """Spells the signature with the kernel's parameter |names| (in order;
        those in |constexprs| as ``name=value``): the line after the
        diagnostics then says which argument got which type, e.g.
        ``in add(x_ptr: *fp32:16, n: *fp32:16, BLOCK=64)``. Kept as it was
        when the signature has another number of entries."""
        if self.signature is None:
            return self
        entries = [e.strip() for e in self.signature.split(",")]
        if len(entries) != len(names):
            return self
        self.parameters = [(n, e, n in constexprs) for n, e in zip(names, entries)]
        self._format()
        return self

    def __str__(self):
        return self.message

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.message)

    def __reduce__(self):
        return (_rebuild_compilation_error, (type(self), self.diagnostics, self.kernel,
                                             self.signature, self.code, self.src, self.note,
                                             self.plugin_error),
                {"parameters": self.parameters})

    def __setstate__(self, state):
        self.parameters = state.get("parameters")
        self._format()


def _rebuild_compilation_error(cls, diagnostics, kernel, signature, code, src, note,
                               plugin_error):
    return cls(diagnostics, kernel, signature, code, src, note, plugin_error)


class CompileTimeAssertionFailure(CompilationError):
    """A failed ``tl.static_assert`` (Triton's class of the same name)."""


class UnsupportedLanguageConstruct(CompilationError):
    """Python that kernels cannot use (``with``, ``try``...), as Triton
    names it."""


def compilation_error(diagnostics, **kw):
    """The CompilationError (or the subclass Triton would raise) for
    |diagnostics|."""
    first = diagnostics.split("\n", 1)[0]
    cls = CompilationError
    if ": static_assert failed" in first or first.startswith("static_assert failed"):
        cls = CompileTimeAssertionFailure
    elif "statements are not supported in kernels" in first or \
            "is not supported in kernels" in first:
        cls = UnsupportedLanguageConstruct
    return cls(diagnostics, **kw)


class OutOfResources(TegulaError):
    """The kernel needs more of a resource than the target has (Triton's
    ``triton.runtime.errors.OutOfResources``): ``required``, ``limit`` (ints)
    and ``name`` (``"shared memory"``, ``"threads"``). ``str(e)`` is
    Triton's message, then the compiler's own (``detail``). ``code`` is the
    plugin's tg_error_code (``TG_ERROR_INVALID_ARGUMENT`` when the compile
    refused the kernel, ``TG_ERROR_OUT_OF_RANGE`` when a device refused to
    load it)."""

    def __init__(self, required, limit, name, detail=None, code=9):
        self.required = required
        self.limit = limit
        self.name = name
        self.detail = detail
        text = ("out of resource: %s, Required: %s, Hardware limit: %s. Reducing block sizes "
                "or `num_stages` may help." % (name, required, limit))
        if detail:
            text += "\n" + detail
        TegulaError.__init__(self, text, code)

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name, self.detail, self.code))


# "kernel K needs N bytes of shared memory per block; sm_90a allows at most M"
# (describeKernel) and "...; nvidia:0 allows M" (the load-time check).
_NEEDS = re.compile(r"needs (?P<req>\d+) bytes of (?P<what>[^;]+?); .*? allows (?:at most )?"
                    r"(?P<limit>\d+)")
# resolveNumWarps's refusal of too many warps.
_WARPS = re.compile(r"num_warps must be a power of 2 from 1 to (?P<max>\d+) \(at most "
                    r"(?P<threads>\d+) threads per block\), not (?P<n>\d+)")


def out_of_resources(message, code):
    """The OutOfResources a plugin's |message| reports, or None."""
    m = _NEEDS.search(message)
    if m:
        what = m.group("what").strip()
        # Triton's name for each backend's (nvidia's shared memory, amd's
        # LDS, intel's shared local memory, the host's SIMT emulation's).
        name = "shared memory" if ("shared" in what or "LDS" in what) else what
        return OutOfResources(int(m.group("req")), int(m.group("limit")), name, message, code)
    m = _WARPS.search(message)
    if m:
        n, max_warps, threads = int(m.group("n")), int(m.group("max")), int(m.group("threads"))
        if n > max_warps and not n & (n - 1):
            warp = max(threads // max_warps, 1)
            return OutOfResources(n * warp, threads, "threads", message, code)
    return None


def from_plugin_error(message, code, kernel=None, signature=None, source_file=None,
                      src=None):
    """What a plugin's compile error (|message|, |code|: the TegulaError's)
    is: an OutOfResources, a CompilationError when it points into the
    kernel's source file (|source_file|), else None (a TegulaError as it
    was)."""
    oor = out_of_resources(message, code)
    if oor is not None:
        return oor
    if not source_file:
        return None
    at = message.find(source_file + ":")
    if at < 0:
        return None
    m = re.match(r"(\d+):(\d+): (?:error: )?(.*)$", message[at + len(source_file) + 1:], re.S)
    if not m:
        return None
    line, col, text = m.groups()
    before = message[:at].rstrip().rstrip(":")
    diagnostics = "%s:%s:%s: error: %s\n" % (source_file, line, col, text.strip())
    return compilation_error(diagnostics, kernel=kernel, signature=signature, code=code,
                             src=src, note=("(%s)" % before) if before else None,
                             plugin_error=True)
