# tegula: --kernel fill_u32 --signature "*u32:16, u32, i32, 64"
"""out[i] = value for i < n: a masked store of a scalar broadcast to a tile."""
import triton
import triton.language as tl


@triton.jit
def fill_u32(out_ptr, value, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, value, mask=offsets < n)
