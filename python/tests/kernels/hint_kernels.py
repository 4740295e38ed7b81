# Kernels with hints on tensors (tl.multiple_of / tl.max_contiguous) for the
# host tests (test_hints_host.py): on arithmetic, on tl.where (as Triton's
# persistent-matmul tutorial does), on pointers, and in 2-D.
import tegula
import tegula.language as tl


@tegula.jit
def offset_copy_kernel(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.multiple_of(tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) + M, BLOCK)
    offs = tl.max_contiguous(offs, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)


@tegula.jit
def where_copy_kernel(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.where(offs < M, offs, 0)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0, mask=offs < M)


@tegula.jit
def copy_2d_kernel(x_ptr, y_ptr, stride, R: tl.constexpr, C: tl.constexpr):
    offs = (tl.program_id(0) * R + tl.arange(0, R))[:, None] * stride + tl.arange(0, C)[None, :]
    offs = tl.max_contiguous(tl.multiple_of(offs, (1, C)), [1, C])
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) - 3.0)


@tegula.jit
def pointer_hint_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # Hints on a tensor of pointers.
    p = tl.multiple_of(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), 16)
    p = tl.max_contiguous(p, BLOCK)
    tl.store(y_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(p) * 0.5)


@tegula.jit
def persistent_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    # Triton's tutorial 09 (persistent matmul), its plain variant.
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            # offs_k already counts from the tile's start: compare it with K
            # (the mask `offs_k < K - ki * BLOCK_K` would drop valid columns).
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator, mask=c_mask)
