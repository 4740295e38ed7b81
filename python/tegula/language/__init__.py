"""``import tegula.language as tl`` in kernel files.

Kernel bodies are compiled by ``tegula compile`` (the C++ front end reads the
source), not run by Python. This module exists so that a kernel file can be
imported by Python: it provides the dtypes, ``constexpr`` and the ``tl.*``
names. The functions are stubs that raise if called outside a compiled kernel.
"""

import builtins as _builtins

__all__ = []


class dtype:
    """A Triton element type (``tl.float32``...). ``name`` is the long Triton
    name, ``short_name`` the one signatures use (``fp32``)."""

    def __init__(self, name, short_name, bits):
        self.name = name
        self.short_name = short_name
        self.primitive_bitwidth = bits

    def is_floating(self):
        return self.short_name.startswith(("fp", "bf"))

    def is_int_signed(self):
        return self.short_name.startswith("i")

    def is_int_unsigned(self):
        return self.short_name.startswith("u")

    def is_int(self):
        return self.is_int_signed() or self.is_int_unsigned()

    def is_bool(self):
        return self.short_name == "i1"

    def __str__(self):
        return self.short_name

    def __repr__(self):
        return "tl.%s" % self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class pointer_type(dtype):
    def __init__(self, element_ty):
        super().__init__("pointer<%s>" % element_ty.name, "*" + element_ty.short_name, 64)
        self.element_ty = element_ty


int1 = dtype("int1", "i1", 1)
int8 = dtype("int8", "i8", 8)
int16 = dtype("int16", "i16", 16)
int32 = dtype("int32", "i32", 32)
int64 = dtype("int64", "i64", 64)
uint8 = dtype("uint8", "u8", 8)
uint16 = dtype("uint16", "u16", 16)
uint32 = dtype("uint32", "u32", 32)
uint64 = dtype("uint64", "u64", 64)
float8e4nv = dtype("float8e4nv", "fp8e4nv", 8)
float8e5 = dtype("float8e5", "fp8e5", 8)
float16 = dtype("float16", "fp16", 16)
bfloat16 = dtype("bfloat16", "bf16", 16)
float32 = dtype("float32", "fp32", 32)
float64 = dtype("float64", "fp64", 64)

DTYPES = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
          float8e4nv, float8e5, float16, bfloat16, float32, float64)
__all__ += [d.name for d in DTYPES] + ["dtype", "pointer_type", "constexpr", "tensor"]


class constexpr:
    """A compile-time constant. As an annotation (``BLOCK: tl.constexpr``) it
    marks a parameter whose value is part of the specialization; as a value
    (``tl.constexpr(128)``) it wraps a constant."""

    def __init__(self, value):
        if isinstance(value, constexpr):
            value = value.value
        self.value = value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return _builtins.bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


class tensor:
    """Placeholder for Triton's tensor type (annotations only)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.tensor values exist only inside a kernel compiled by tegula")


def _stub(name, qual="tl"):
    def f(*args, **kwargs):
        raise RuntimeError(
            "%s.%s() can only be called inside a kernel compiled by tegula "
            "(kernel bodies are compiled by `tegula compile`, not run by Python)"
            % (qual, name))
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = "Triton's %s.%s (stub: only meaningful inside a compiled kernel)." % (qual, name)
    return f


_FUNCTIONS = """
abs advance arange argmax argmin associative_scan assume atomic_add atomic_and
atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor broadcast
broadcast_to cast cat cdiv ceil clamp cos cumprod cumsum debug_barrier
device_assert device_print div_rn dot erf exp exp2 expand_dims fdiv flip floor
fma full gather histogram interleave join load log log1p log2 make_block_ptr max
max_constancy max_contiguous maximum min minimum multiple_of num_programs permute
program_id rand rand4x randint randint4x randn randn4x ravel reduce reduce_or
reshape rsqrt sigmoid sin softmax sort split sqrt sqrt_rn static_assert
static_print store sum swizzle2d trans umulhi view where xor_sum zeros zeros_like
range static_range make_tensor_descriptor load_tensor_descriptor
store_tensor_descriptor _experimental_make_tensor_descriptor dot_scaled
inline_asm_elementwise
""".split()

for _n in _FUNCTIONS:
    globals()[_n] = _stub(_n)
__all__ += _FUNCTIONS


del _n

from . import math  # noqa: E402  (a module: `from triton.language.math import exp2`)
__all__.append("math")

from . import extra  # noqa: E402,F401  (tl.extra.libdevice, tl.extra.cuda.libdevice)
__all__.append("extra")
