"""``triton.runtime.errors``: the exceptions Triton programs catch. Tegula
raises its own (``tegula.CompilationError``, ``tegula.TegulaError``);
OutOfResources is here so that ``except triton.runtime.errors.OutOfResources``
is valid code; nothing raises it (autotune skips configs that fail to
compile, whatever the error)."""

from .._runtime import TegulaError


class OutOfResources(TegulaError):
    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__("out of resource: %s, Required: %s, Hardware limit: %s"
                         % (name, required, limit), 4)


__all__ = ["OutOfResources"]
