"""A kernel whose helper (in helpers.py) has a type error: Python imports
it, the compiler reports the error at the helper's line."""

import triton
import triton.language as tl

from .helpers import bad_shape


@triton.jit
def shape_kernel(X):
    x = tl.load(X + tl.arange(0, 64))
    tl.store(X + tl.arange(0, 64), bad_shape(x))
