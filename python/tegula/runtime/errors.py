"""``triton.runtime.errors``: OutOfResources, raised when a kernel needs
more shared memory or threads than its target has (the plugin's compile,
or the device when it loads the kernel, refused it); autotune skips a
config that raises it (its timings are inf), as Triton does. It is a
``tegula.TegulaError``."""

from .._errors import OutOfResources

__all__ = ["OutOfResources"]
