# tegula: --kernel add_f32 --signature "*fp32:16, *fp32:16, *fp32:16, i32, 128"
"""out[i] = x[i] + y[i] for i < n (Triton's first tutorial)."""
import triton
import triton.language as tl


@triton.jit
def add_f32(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
