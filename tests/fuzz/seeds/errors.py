import triton
import triton.language as tl

@triton.jit
def bad(x_ptr, n):
    a = tl.arange(0, 128) + tl.arange(0, 64)
    with open("f") as f:
        pass
    return y
