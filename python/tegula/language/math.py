"""``tl.math``: Triton's math functions, also importable as a module by
kernel files imported from Python (``from triton.language.math import
exp2``). The compiler reads the calls in a kernel; these stubs raise if
called from Python."""

from . import _stub

_NAMES = """
abs ceil cos div_rn erf exp exp2 fdiv floor fma log log1p log2 max min rsqrt
sin sqrt sqrt_rn umulhi cdiv
""".split()

for _n in _NAMES:
    globals()[_n] = _stub(_n, "tl.math")
__all__ = list(_NAMES)
del _n
