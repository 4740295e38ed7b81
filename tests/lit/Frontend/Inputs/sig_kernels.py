# Kernels for diagnostics-signature.test and diagnostics-exit-codes.test.
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr, EVEN: tl.constexpr = False):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * factor, mask=offs < n)


@triton.jit
def copy(x_ptr, out_ptr):
    tl.store(out_ptr, tl.load(x_ptr))
