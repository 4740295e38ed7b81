# Kernels for test_reliability_host.py: scalars of every width.
import tegula
import tegula.language as tl


@tegula.jit
def store_u64_kernel(out_ptr, value):
    tl.store(out_ptr, value)


@tegula.jit
def store_scalar_kernel(out_ptr, value):
    tl.store(out_ptr, value)
