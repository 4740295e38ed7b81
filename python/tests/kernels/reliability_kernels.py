# Kernels for test_reliability_host.py: which pointers a kernel writes
# through, and scalars of every width.
import tegula
import tegula.language as tl


@tegula.jit
def copy_kernel(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


@tegula.jit
def atomic_count_kernel(counter_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    v = tl.load(src_ptr + offsets, mask=mask, other=0)
    tl.atomic_add(counter_ptr, tl.sum(v, axis=0))


@tegula.jit
def block_pointer_copy_kernel(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    src = tl.make_block_ptr(src_ptr, shape=(n,), strides=(1,), offsets=(0,),
                            block_shape=(BLOCK,), order=(0,))
    dst = tl.make_block_ptr(dst_ptr, shape=(n,), strides=(1,), offsets=(0,),
                            block_shape=(BLOCK,), order=(0,))
    for i in range(0, tl.cdiv(n, BLOCK)):
        tl.store(dst, tl.load(src, boundary_check=(0,)), boundary_check=(0,))
        src = tl.advance(src, (BLOCK,))
        dst = tl.advance(dst, (BLOCK,))


@tegula.jit
def _store_helper(p, offsets, v, mask):
    tl.store(p + offsets, v, mask=mask)


@tegula.jit
def helper_store_kernel(a_ptr, b_ptr, n, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    # Which pointer is written depends on a select the analysis cannot resolve.
    p = a_ptr if FIRST else b_ptr
    other = b_ptr if FIRST else a_ptr
    _store_helper(p, offsets, tl.load(other + offsets, mask=mask), mask)


@tegula.jit
def store_u64_kernel(out_ptr, value):
    tl.store(out_ptr, value)


@tegula.jit
def store_scalar_kernel(out_ptr, value):
    tl.store(out_ptr, value)


@tegula.jit
def huge_arange_kernel(x_ptr):
    offs = tl.arange(0, 2**31)
    tl.store(x_ptr + offs, offs)


@tegula.jit
def int32_annotated_kernel(x_ptr, n: tl.int32):
    tl.store(x_ptr, n)


@tegula.jit
def big_cumsum_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))
