#sig: *fp16:16, *fp32, i32:16, i32:1, 64
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n, BLOCK):
        acc += x.to(tl.float32)
    if n > 3:
        acc = acc * 2
    tl.store(y_ptr + offs, tl.cumsum(acc, 0), mask=offs < n)
