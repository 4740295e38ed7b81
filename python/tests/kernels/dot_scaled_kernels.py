"""tl.dot_scaled kernels (test_dot_scaled_host.py): one block each, the
operands and their e8m0 scales loaded whole."""

import triton
import triton.language as tl


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                      A_FMT: tl.constexpr, B_FMT: tl.constexpr, SCALED: tl.constexpr):
    # A is [M, K] ([M, K // 2] bytes for e2m1), B is [K, N] ([K // 2, N]).
    AK: tl.constexpr = K // 2 if A_FMT == "e2m1" else K
    BK: tl.constexpr = K // 2 if B_FMT == "e2m1" else K
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * AK + tl.arange(0, AK)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BK)[:, None] * N + rn[None, :])
    rs = tl.arange(0, K // 32)
    if SCALED:
        a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + rs[None, :])
        b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + rs[None, :])
    else:
        a_scale = None
        b_scale = None
    c = tl.dot_scaled(a, a_scale, A_FMT, b, b_scale, B_FMT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
