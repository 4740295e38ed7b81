"""The ops' helpers: `from kpkg.ops.utils import exp, safe_exp` and
`from .utils import inv_sqrt`. libdevice is imported the way libraries
support several Triton versions."""

import triton
import triton.language as tl

try:
    from triton.language.extra.cuda.libdevice import rsqrt
except ImportError:
    from triton.language.extra.libdevice import rsqrt
from triton.language.math import exp2

LOG2E: tl.constexpr = 1.4426950408889634
BLOCK = tl.constexpr(64)


@triton.jit
def exp(x):
    return exp2(x * LOG2E)


@triton.jit
def safe_exp(x):
    # A helper of this module calling another one of it.
    return exp(tl.minimum(x, 0.0))


@triton.jit(noinline=True)
def inv_sqrt(x):
    return rsqrt(x)
