import triton
import triton.language as tl


@triton.jit
def bf16_round_kernel(x_ptr, y_ptr, r_ptr, n, BLOCK: tl.constexpr):
    """y = bf16(x); r = f32(bf16(y * y) + y), arithmetic on bf16 values."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(tl.bfloat16)
    tl.store(y_ptr + offs, y, mask=mask)
    r = y * y + y
    tl.store(r_ptr + offs, r.to(tl.float32), mask=mask)
