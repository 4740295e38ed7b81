# Kernels that load tiles through block pointers (tl.make_block_ptr) and
# hand them to other layouts (test_block_pointer_host.py).
import tegula
import tegula.language as tl


@tegula.jit
def block_scale_kernel(x_ptr, y_ptr, M, N, stride_m, stride_n,
                       BM: tl.constexpr, BN: tl.constexpr, COLUMN_MAJOR: tl.constexpr,
                       CHECK: tl.constexpr):
    """y[M, N] (row-major) = 2 x + 1, x read through a block pointer whose
    order names its unit-stride dimension."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    order: tl.constexpr = (0, 1) if COLUMN_MAJOR else (1, 0)
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, stride_n),
                            offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN),
                            order=order)
    if CHECK:
        x = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    else:
        x = tl.load(src)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + offs_m[:, None] * N + offs_n[None, :], x * 2 + 1, mask=mask)


@tegula.jit
def block_dot_kernel(a_ptr, b_ptr, c_ptr, stride_bk, stride_bn,
                     M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                     B_COLUMN_MAJOR: tl.constexpr):
    """c = a @ b with a row-major and b through a block pointer of either
    order (attention's K is column-major)."""
    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(K, 1), offsets=(0, 0),
                              block_shape=(M, K), order=(1, 0))
    b_order: tl.constexpr = (0, 1) if B_COLUMN_MAJOR else (1, 0)
    b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, 0), block_shape=(K, N), order=b_order)
    c = tl.dot(tl.load(a_blk), tl.load(b_blk))
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c)


@tegula.jit
def block_copy_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """y = x, both through row-major block pointers (the loaded tile goes
    to the store as it is)."""
    pid = tl.program_id(0)
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(base=y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                            block_shape=(BM, BN), order=(1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0,)), boundary_check=(0,))
