"""Package-level helpers, used as `import kpkg.utils as u; u.twice(x)`."""

import triton
import triton.language as tl

SCALE: tl.constexpr = 2.0


@triton.jit
def twice(x):
    return x * SCALE
