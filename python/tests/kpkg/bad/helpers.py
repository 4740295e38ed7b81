import triton
import triton.language as tl


@triton.jit
def bad_shape(x):
    return x + tl.arange(0, 32)
