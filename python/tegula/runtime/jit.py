"""``triton.runtime.jit``'s names: JITFunction, jit, KernelInterface,
MockTensor, TensorWrapper, reinterpret."""

from .._autotuner import KernelInterface
from .._jit import JITFunction, MockTensor, TensorWrapper, jit, reinterpret

__all__ = ["JITFunction", "jit", "KernelInterface", "MockTensor", "TensorWrapper",
           "reinterpret"]
