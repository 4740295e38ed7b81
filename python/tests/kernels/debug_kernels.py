# Kernels for test_debug_host.py: loads, stores and atomics inside and
# outside the buffers a launch gives, for the bounds-checked debug mode.
import tegula
import tegula.language as tl


@tegula.jit
def unmasked_store_kernel(dst_ptr, src_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))


@tegula.jit
def cache_key_kernel(dst_ptr, src_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))


@tegula.jit
def fast_path_kernel(dst_ptr, src_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))


@tegula.jit(debug=True)
def shifted_load_kernel(dst_ptr, src_ptr, shift, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets + shift))


@tegula.jit(debug=False)
def never_checked_kernel(dst_ptr, src_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))


@tegula.jit
def rows_kernel(dst_ptr, rows, cols, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    v = (r * 100 + c).to(tl.float32)
    tl.store(dst_ptr + r * stride + c, v, mask=(r < rows) & (c < cols))


@tegula.jit
def loop_kernel(dst_ptr, src_ptr, n, steps, BLOCK: tl.constexpr):
    src = src_ptr + tl.arange(0, BLOCK)
    dst = dst_ptr + tl.arange(0, BLOCK)
    for i in range(steps):
        tl.store(dst, tl.load(src, mask=tl.arange(0, BLOCK) + i * BLOCK < n, other=0.0) + 1.0)
        src += BLOCK
        dst += BLOCK


@tegula.jit
def atomic_kernel(counter_ptr, index):
    tl.atomic_add(counter_ptr + index, 1)


@tegula.jit
def scalar_store_kernel(dst_ptr, index, value):
    tl.store(dst_ptr + index, value)


@tegula.jit
def select_kernel(a_ptr, b_ptr, use_a, index):
    p = tl.where(use_a != 0, a_ptr, b_ptr)
    tl.store(p + index, 7.0)
