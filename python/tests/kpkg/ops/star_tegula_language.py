"""A kernel written against tegula.language with `from tegula.language
import *`."""

import tegula
from tegula.language import *  # noqa: F401,F403


@tegula.jit
def star_tegula_kernel(X, Y, n, BLOCK: constexpr):  # noqa: F405
    offs = program_id(0) * BLOCK + arange(0, BLOCK)  # noqa: F405
    mask = offs < n
    x = load(X + offs, mask=mask)  # noqa: F405
    store(Y + offs, maximum(x, 0.0) * 2.0, mask=mask)  # noqa: F405
