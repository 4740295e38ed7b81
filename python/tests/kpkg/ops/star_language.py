"""Kernels that take Triton's names from `from triton.language import *`
and `from triton.language.math import *`: builtins, dtypes, constexpr,
functions of the standard library, the math namespace, and `range` and
`max`, which the star import rebinds as in Python."""

import triton
from triton.language import *  # noqa: F401,F403
from triton.language.math import *  # noqa: F401,F403


@triton.jit
def star_language_kernel(X, Y, Z, n, BLOCK: constexpr):  # noqa: F405
    offs = program_id(0) * BLOCK + arange(0, BLOCK)  # noqa: F405
    mask = offs < n
    x = load(X + offs, mask=mask, other=0.0)  # noqa: F405
    acc = zeros((BLOCK,), dtype=float32)  # noqa: F405
    for i in range(0, 2):  # tl.range
        acc += exp2(x.to(float32)) * (i + 1)  # noqa: F405
    store(Y + offs, where(mask, acc, 0.0) + cdiv(n, BLOCK), mask=mask)  # noqa: F405
    # max is tl.max here, a reduction: Z[program] = the block's largest x.
    store(Z + program_id(0), max(where(mask, x, -float("inf")), axis=0))  # noqa: F405
