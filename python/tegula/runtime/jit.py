"""``triton.runtime.jit``'s names: JITFunction, jit, KernelInterface."""

from .._autotuner import KernelInterface
from .._jit import JITFunction, jit

__all__ = ["JITFunction", "jit", "KernelInterface"]
