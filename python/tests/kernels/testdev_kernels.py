# Kernels named like the built-in kernels of the fake `testdev` plugin
# (tests/runtime/plugins/TestDevPlugin.cpp), with the same parameters: the
# front end compiles them for real, and testdev's "compile" then loads its
# built-in of that name, which computes the same thing on the host. So a
# launch on testdev exercises the whole Python path (binding, signature,
# compiler library, device compile, module load, packing, copies, launch).
import tegula
import tegula.language as tl


@tegula.jit
def fill_u32(out_ptr, value, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, value, mask=offsets < n)


@tegula.jit
def scale_f32(out_ptr, in_ptr, a, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(in_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * x, mask=mask)


@tegula.jit
def typed_scale(out_ptr: "*fp32", in_ptr: tl.pointer_type(tl.float32), a, n,
                BLOCK: tl.constexpr = 128):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, a * tl.load(in_ptr + offsets, mask=mask), mask=mask)


@tegula.jit
def broken_types(x_ptr, n, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK) + tl.arange(0, 2 * BLOCK)
    tl.store(x_ptr + a, a, mask=a < n)
