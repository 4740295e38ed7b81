"""``tegula.runtime``: Triton's ``triton.runtime`` names (``driver``,
``Autotuner``, ``Heuristics``, ``JITFunction``, ``Config``, ``autotune``,
``heuristics``, ``KernelInterface``, ``OutOfResources``, ``MockTensor``,
``TensorWrapper``, ``reinterpret``; the modules
``driver``, ``jit``, ``autotuner``, ``errors``).

It is also what ``tegula.runtime()`` always was: calling the module returns
the process-wide ``tegula.Runtime`` (created on first use). A module whose
class has ``__call__`` keeps both spellings working.
"""

import sys
import types

from . import autotuner, errors, jit  # noqa: F401  (Triton's submodules)
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .jit import JITFunction, KernelInterface, MockTensor, TensorWrapper, reinterpret
from .errors import OutOfResources
from .driver import driver

# While this module runs, the package's `runtime` is still the function the
# package defines; once it has run, the import binds the name to this module.
_default_runtime = sys.modules[__name__.rsplit(".", 1)[0]].__dict__["runtime"]

__all__ = ["driver", "Autotuner", "Config", "Heuristics", "KernelInterface", "JITFunction",
           "autotune", "heuristics", "OutOfResources", "MockTensor", "TensorWrapper",
           "reinterpret"]


class _CallableModule(types.ModuleType):
    def __call__(self):
        """The process-wide tegula.Runtime, created on first use from the
        environment."""
        return _default_runtime()


sys.modules[__name__].__class__ = _CallableModule
