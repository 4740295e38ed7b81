import triton
import triton.language as tl


@triton.jit
def debug_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("x", x)
    tl.device_print("pid", tl.program_id(0))
    tl.device_print("bits", x, hex=True)
    tl.device_assert(x >= 0, "x must not be negative")
