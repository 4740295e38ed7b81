# Kernels whose names match testdev's built-ins but whose parameters do not:
# the launcher must notice that the compiled kernel's metadata disagrees.
import tegula
import tegula.language as tl


@tegula.jit
def fill_u32(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 1, mask=offsets < n)


@tegula.jit
def scale_f32(out_ptr, a, in_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, a * tl.load(in_ptr + offsets, mask=mask), mask=mask)
