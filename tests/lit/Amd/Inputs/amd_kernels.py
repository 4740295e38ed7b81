import triton
import triton.language as tl


@triton.jit
def print_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("x", x)


@triton.jit
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "x must not be negative")


@triton.jit
def sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.sin(x), mask=offs < n)


@triton.jit
def grid_kernel(out_ptr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    tl.store(out_ptr + pid, tl.num_programs(0) * tl.num_programs(1))


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def dot_precision_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                         PRECISION: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def atomic_scopes_kernel(cta_ptr, gpu_ptr, sys_ptr, lock_ptr, x_ptr, n,
                         BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(cta_ptr + offs, x, mask=offs < n, scope="cta")
    tl.atomic_max(gpu_ptr + offs, x, mask=offs < n, sem="relaxed", scope="gpu")
    tl.atomic_xchg(sys_ptr + offs, x, mask=offs < n, sem="release", scope="sys")
    tl.atomic_cas(lock_ptr, 0, 1, sem="acquire", scope="gpu")
