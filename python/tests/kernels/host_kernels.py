# Kernels for the launch tests on the host CPU (test_launch_host.py).
import tegula
import tegula.language as tl


@tegula.jit
def axpy_kernel(out_ptr, x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


@tegula.jit
def copy_2d_kernel(dst_ptr, src_ptr, cols, src_stride, dst_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < cols
    v = tl.load(src_ptr + row * src_stride + offsets, mask=mask)
    tl.store(dst_ptr + row * dst_stride + offsets, v, mask=mask)
