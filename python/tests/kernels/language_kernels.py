"""Kernels for test_language_host.py: pointer casts (the grouped-GEMM
tutorial's per-problem base addresses), None arguments and helpers from
another module of the kernel's package."""

import triton
import triton.language as tl


@triton.jit
def grouped_scale_kernel(addrs_ptr, sizes_ptr, scale, BLOCK: tl.constexpr):
    # Program g scales problem g in place; its base address is an int64.
    g = tl.program_id(0)
    base = tl.load(addrs_ptr + g).to(tl.pointer_type(tl.float32))
    n = tl.load(sizes_ptr + g)
    offs = tl.arange(0, BLOCK)
    x = tl.load(base + offs, mask=offs < n)
    tl.store(base + offs, x * scale, mask=offs < n)


@triton.jit
def address_roundtrip_kernel(x_ptr, out_ptr):
    # A pointer to int64 and back.
    address = x_ptr.to(tl.int64)
    tl.store(out_ptr, address)
    p = (address + 4).to(tl.pointer_type(tl.float32))
    tl.store(p, tl.load(x_ptr) + 1.0)


@triton.jit
def optional_bias_kernel(x_ptr, bias_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # bias_ptr may be None: the branch is decided at compile time.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x, mask=mask)
