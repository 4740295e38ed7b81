import triton.language as tl
from triton import jit

N: tl.constexpr = 32

@jit
def helper(a, b):
    return a + b, a * b

@jit
def kernel(X_ptr, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    r = tl.arange(0, N)
    s, p = helper(r, r)
    i = 0
    while i < n:
        i += 1
    for j in tl.static_range(4):
        s = s + j
    v = tl.where(r < n, s, p)
    tl.store(X_ptr + r, v.to(tl.float32))
