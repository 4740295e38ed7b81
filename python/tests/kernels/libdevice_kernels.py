"""Kernels calling Triton's libdevice functions (test_libdevice_host.py),
imported the ways Triton's users import them."""

import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice

try:
    from triton.language.extra.cuda.libdevice import tanh as guarded_tanh
except ImportError:
    from triton.language.math import tanh as guarded_tanh


@triton.jit
def unary_kernel(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if FN == "tanh":
        y = libdevice.tanh(x)
    elif FN == "sinh":
        y = libdevice.sinh(x)
    elif FN == "cosh":
        y = libdevice.cosh(x)
    elif FN == "tan":
        y = libdevice.tan(x)
    elif FN == "asin":
        y = libdevice.asin(x)
    elif FN == "acos":
        y = libdevice.acos(x)
    elif FN == "atan":
        y = libdevice.atan(x)
    elif FN == "asinh":
        y = libdevice.asinh(x)
    elif FN == "acosh":
        y = libdevice.acosh(x)
    elif FN == "atanh":
        y = libdevice.atanh(x)
    elif FN == "expm1":
        y = libdevice.expm1(x)
    elif FN == "log10":
        y = libdevice.log10(x)
    elif FN == "exp10":
        y = libdevice.exp10(x)
    elif FN == "cbrt":
        y = libdevice.cbrt(x)
    elif FN == "rcbrt":
        y = libdevice.rcbrt(x)
    elif FN == "erf":
        y = libdevice.erf(x)
    elif FN == "erfc":
        y = libdevice.erfc(x)
    elif FN == "normcdf":
        y = libdevice.normcdf(x)
    elif FN == "round":
        y = libdevice.round(x)
    elif FN == "rint":
        y = libdevice.rint(x)
    elif FN == "trunc":
        y = libdevice.trunc(x)
    elif FN == "sinpi":
        y = libdevice.sinpi(x)
    elif FN == "cospi":
        y = libdevice.cospi(x)
    elif FN == "rsqrt_rn":
        y = libdevice.rsqrt_rn(x)
    elif FN == "sqrt_rn":
        y = libdevice.sqrt_rn(x)
    elif FN == "rcp_rn":
        y = libdevice.rcp_rn(x)
    elif FN == "saturatef":
        y = libdevice.saturatef(x)
    elif FN == "fast_expf":
        y = cuda_libdevice.fast_expf(x)
    elif FN == "guarded_tanh":
        y = guarded_tanh(x)
    elif FN == "cast":
        y = x.cast(tl.float16).cast(tl.float32)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def binary_kernel(x_ptr, z_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    if FN == "atan2":
        y = libdevice.atan2(x, z)
    elif FN == "pow":
        y = libdevice.pow(x, z)
    elif FN == "hypot":
        y = libdevice.hypot(x, z)
    elif FN == "rhypot":
        y = libdevice.rhypot(x, z)
    elif FN == "fmod":
        y = libdevice.fmod(x, z)
    elif FN == "fdim":
        y = libdevice.fdim(x, z)
    elif FN == "copysign":
        y = libdevice.copysign(x, z)
    elif FN == "div_rn":
        y = libdevice.div_rn(x, z)
    elif FN == "norm3d":
        y = libdevice.norm3d(x, z, x + z)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def int_power_kernel(x_ptr, n_ptr, y_ptr, const_y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    k = tl.load(n_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, libdevice.pow(x, k), mask=mask)
    tl.store(const_y_ptr + offs, libdevice.pow(x, 3) + libdevice.pow(x, -2), mask=mask)


@triton.jit
def ldexp_kernel(x_ptr, e_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    e = tl.load(e_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, libdevice.ldexp(x, e), mask=mask)


@triton.jit
def classify_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Five int32 columns: isnan, isinf, signbit != 0, finitef, float2int_rd.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs * 5, libdevice.isnan(x).to(tl.int32), mask=mask)
    tl.store(out_ptr + offs * 5 + 1, libdevice.isinf(x).to(tl.int32), mask=mask)
    tl.store(out_ptr + offs * 5 + 2, (libdevice.signbit(x) != 0).to(tl.int32), mask=mask)
    tl.store(out_ptr + offs * 5 + 3, libdevice.finitef(x), mask=mask)
    tl.store(out_ptr + offs * 5 + 4, libdevice.float2int_rd(x), mask=mask)


@triton.jit
def bits_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Six int32 columns: clz, popc, ffs, mulhi, hadd, rhadd.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs * 6, libdevice.clz(x), mask=mask)
    tl.store(out_ptr + offs * 6 + 1, libdevice.popc(x), mask=mask)
    tl.store(out_ptr + offs * 6 + 2, libdevice.ffs(x), mask=mask)
    tl.store(out_ptr + offs * 6 + 3, libdevice.mulhi(x, y), mask=mask)
    tl.store(out_ptr + offs * 6 + 4, libdevice.hadd(x, y), mask=mask)
    tl.store(out_ptr + offs * 6 + 5, libdevice.rhadd(x, y), mask=mask)


@triton.jit
def f64_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = libdevice.tanh(x) + libdevice.atan2(x, 0.5) + libdevice.pow(x * x, 0.75)
    tl.store(y_ptr + offs, y + libdevice.double2hiint(x).to(tl.float64) * 0.0, mask=mask)


@triton.jit
def wrong_dtype_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, libdevice.tanh(x))


@triton.jit
def unsupported_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, libdevice.lgamma(x))


@triton.jit
def misspelled_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, libdevice.tanhh(x))
