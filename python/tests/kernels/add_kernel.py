# A Triton-style kernel file, as `tegula compile` reads it; Python imports it
# only to get at the @tegula.jit object.
import tegula
import tegula.language as tl


@tegula.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tegula.jit
def scale_kernel(x_ptr, alpha, n, flag, ACT: tl.constexpr = "none", DT: tl.constexpr = tl.float16):
    pass
