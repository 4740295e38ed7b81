"""Kernels whose imports the compiler refuses: a cycle, a missing module, a
missing relative module, a missing name. Python cannot import this module
either; only the compiler reads it (tests/lit/Frontend/modules-errors.test)."""

import triton

from kpkg.bad.cycle_a import looped
from kpkg.bad.helpers import missing_name
from kpkg.nowhere import ghost
from .helpers_gone import gone


@triton.jit
def cycle_kernel(X):
    looped(X)


@triton.jit
def missing_module_kernel(X):
    ghost(X)


@triton.jit
def missing_relative_kernel(X):
    gone(X)


@triton.jit
def missing_name_kernel(X):
    missing_name(X)
