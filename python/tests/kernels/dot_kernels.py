# Dots of each matrix-unit input type (test_cuda.py runs them on NVIDIA).
import tegula
import tegula.language as tl


@tegula.jit
def int8_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c)


@tegula.jit
def f32_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   PRECISION: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c)


@tegula.jit
def int64_loop_dot_kernel(a_ptr, b_ptr, c_ptr, T, BT: tl.constexpr):
    # A loop whose bounds are int64 (pid.to(tl.int64) * BT), as chunked
    # attention kernels write it: each program sums the products of the
    # BT x BT blocks i, i + BT, ... of A and B from its own block on.
    pid = tl.program_id(0)
    offs = tl.arange(0, BT)
    tile = offs[:, None] * BT + offs[None, :]
    acc = tl.zeros((BT, BT), dtype=tl.float32)
    for i in range(pid.to(tl.int64) * BT, T, BT):
        a = tl.load(a_ptr + i * BT + tile)
        b = tl.load(b_ptr + i * BT + tile)
        acc += tl.dot(a, b)
    tl.store(c_ptr + pid * BT * BT + tile, acc)
