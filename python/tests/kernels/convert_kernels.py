# Kernels whose layout conversions go through shared memory
# (test_chunked_convert_host.py runs them with the conversions in chunks).
import tegula
import tegula.language as tl


@tegula.jit
def trans_kernel(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    tl.store(y_ptr + offs_n[:, None] * M + offs_m[None, :], tl.trans(x))


@tegula.jit
def dot_epilogue_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                        K: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c.to(tl.float16))


@tegula.jit
def row_max_kernel(x_ptr, y_ptr, m_ptr, s_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    m = tl.max(x, axis=1)
    tl.store(m_ptr + offs_m, m)
    tl.store(s_ptr + offs_n, tl.sum(x, axis=0))
    tl.store(y_ptr + offs_m[:, None] * N + offs_n[None, :], x - m[:, None])
