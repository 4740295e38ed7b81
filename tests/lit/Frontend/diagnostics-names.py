# Names and calls: undefined names, tl / tl.math / triton members that do
# not exist or cannot be used in kernels (a Triton name Tegula lacks, or a
# misspelling with the closest name), unknown tensor attributes, @jit
# calls with too many, unknown or missing arguments (Python's wording), an
# unknown keyword to a tl builtin, range() outside a for, calling a tensor,
# and an error inside a @jit helper (reported there, with a note at the
# call; see diagnostics-recursion.py for a chain of notes).
#
# RUN: not tegula compile %s --kernel k_undefined --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNDEFINED
# RUN: not tegula compile %s --kernel k_unknown_tl --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN-TL
# RUN: not tegula compile %s --kernel k_unknown_math --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN-MATH
# RUN: not tegula compile %s --kernel k_unsupported_tl --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNSUPPORTED-TL
# RUN: not tegula compile %s --kernel k_typo_tl --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-TL
# RUN: not tegula compile %s --kernel k_typo_stdlib --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-STDLIB
# RUN: not tegula compile %s --kernel k_typo_dtype --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-DTYPE
# RUN: not tegula compile %s --kernel k_typo_math --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-MATH
# RUN: not tegula compile %s --kernel k_typo_extra --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-EXTRA
# RUN: not tegula compile %s --kernel k_typo_import --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TYPO-IMPORT
# RUN: not tegula compile %s --kernel k_triton_attr --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TRITON-ATTR
# RUN: not tegula compile %s --kernel k_tensor_attr --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TENSOR-ATTR
# RUN: not tegula compile %s --kernel k_too_many --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TOO-MANY
# RUN: not tegula compile %s --kernel k_bad_keyword --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD-KEYWORD
# RUN: not tegula compile %s --kernel k_missing_arg --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MISSING-ARG
# RUN: not tegula compile %s --kernel k_tl_bad_keyword --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TL-KEYWORD
# RUN: not tegula compile %s --kernel k_range_outside_for --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RANGE-VALUE
# RUN: not tegula compile %s --kernel k_not_callable --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NOT-CALLABLE
# RUN: not tegula compile %s --kernel k_helper_error --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=HELPER-ERR
# RUN: not tegula compile %s --kernel k_other_module --signature '*i32' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=OTHER-MODULE


import triton
import triton.language as tl
from triton.language import maximun
from .kernel_utils import twice  # a helper in another file of the package


@triton.jit
def helper(x, y, SCALE: tl.constexpr = 2):
    return x * y * SCALE


@triton.jit
def bad_helper(x):
    # HELPER-ERR:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:14: error: incompatible shapes for +: [16] and [8]{{$}}
    # HELPER-ERR-NEXT: {{^}}    return x + tl.arange(0, 8){{$}}
    # HELPER-ERR-NEXT: {{^}}             ^{{$}}
    return x + tl.arange(0, 8)


@triton.jit
def k_undefined(o_ptr):
    # UNDEFINED:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:21: error: name 'y' is not defined{{$}}
    # UNDEFINED-NEXT: {{^}}    tl.store(o_ptr, y){{$}}
    # UNDEFINED-NEXT: {{^}}                    ^{{$}}
    tl.store(o_ptr, y)


@triton.jit
def k_unknown_tl(o_ptr):
    # UNKNOWN-TL:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:12: error: 'tl.frobnicate' is not a name of triton.language{{$}}
    # UNKNOWN-TL-NEXT: {{^}}    x = tl.frobnicate(o_ptr){{$}}
    # UNKNOWN-TL-NEXT: {{^}}           ^{{$}}
    x = tl.frobnicate(o_ptr)


@triton.jit
def k_unsupported_tl(o_ptr):
    # UNSUPPORTED-TL: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:12: error: tl.map_elementwise is not supported yet{{$}}
    x = tl.map_elementwise(o_ptr, o_ptr)


@triton.jit
def k_typo_tl(o_ptr):
    # TYPO-TL:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:12: error: 'tl.arnage' is not a name of triton.language; did you mean 'tl.arange'?{{$}}
    # TYPO-TL-NEXT: {{^}}    x = tl.arnage(0, 16){{$}}
    # TYPO-TL-NEXT: {{^}}           ^{{$}}
    x = tl.arnage(0, 16)


@triton.jit
def k_typo_stdlib(o_ptr):
    # TYPO-STDLIB: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:12: error: 'tl.cumsun' is not a name of triton.language; did you mean 'tl.cumsum'?{{$}}
    x = tl.cumsun(tl.arange(0, 16), 0)


@triton.jit
def k_typo_dtype(o_ptr):
    # TYPO-DTYPE: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:34: error: 'tl.flaot32' is not a name of triton.language; did you mean 'tl.float32'?{{$}}
    x = tl.zeros((16,), dtype=tl.flaot32)


@triton.jit
def k_typo_math(o_ptr):
    # TYPO-MATH: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:17: error: 'tl.math.floorr' is not a name of triton.language.math; did you mean 'tl.math.floor'?{{$}}
    x = tl.math.floorr(tl.load(o_ptr))


@triton.jit
def k_typo_extra(o_ptr):
    # TYPO-EXTRA: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:18: error: 'tl.extra.libdevise' is not a name of triton.language.extra; did you mean 'tl.extra.libdevice'?{{$}}
    x = tl.extra.libdevise.exp(tl.load(o_ptr))


@triton.jit
def k_typo_import(o_ptr):
    # TYPO-IMPORT: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:9: error: 'tl.maximun' is not a name of triton.language; did you mean 'tl.maximum'?{{$}}
    x = maximun(tl.load(o_ptr), 0)


@triton.jit
def k_unknown_math(o_ptr):
    # UNKNOWN-MATH:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:17: error: 'tl.math.frobnicate' is not a name of triton.language.math{{$}}
    # UNKNOWN-MATH-NEXT: {{^}}    x = tl.math.frobnicate(o_ptr){{$}}
    # UNKNOWN-MATH-NEXT: {{^}}                ^{{$}}
    x = tl.math.frobnicate(o_ptr)


@triton.jit
def k_triton_attr(o_ptr):
    # TRITON-ATTR:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:16: error: triton.next_power_of_2 cannot be used inside a kernel{{$}}
    # TRITON-ATTR-NEXT: {{^}}    x = triton.next_power_of_2(4){{$}}
    # TRITON-ATTR-NEXT: {{^}}               ^{{$}}
    x = triton.next_power_of_2(4)


@triton.jit
def k_tensor_attr(o_ptr):
    x = tl.arange(0, 16)
    # TENSOR-ATTR:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:11: error: tensor has no attribute 'frobnicate'{{$}}
    # TENSOR-ATTR-NEXT: {{^}}    y = x.frobnicate{{$}}
    # TENSOR-ATTR-NEXT: {{^}}          ^{{$}}
    y = x.frobnicate


@triton.jit
def k_too_many(o_ptr):
    x = tl.arange(0, 16)
    # TOO-MANY:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: helper() takes 3 positional arguments but 4 were given{{$}}
    # TOO-MANY-NEXT: {{^}}    y = helper(x, x, 3, 4){{$}}
    # TOO-MANY-NEXT: {{^}}        ^{{$}}
    y = helper(x, x, 3, 4)


@triton.jit
def k_bad_keyword(o_ptr):
    x = tl.arange(0, 16)
    # BAD-KEYWORD:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: helper() got an unexpected keyword argument 'scale'{{$}}
    # BAD-KEYWORD-NEXT: {{^}}    y = helper(x, x, scale=3){{$}}
    # BAD-KEYWORD-NEXT: {{^}}        ^{{$}}
    y = helper(x, x, scale=3)


@triton.jit
def k_missing_arg(o_ptr):
    x = tl.arange(0, 16)
    # MISSING-ARG:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: helper() missing required argument 'y'{{$}}
    # MISSING-ARG-NEXT: {{^}}    y = helper(x){{$}}
    # MISSING-ARG-NEXT: {{^}}        ^{{$}}
    y = helper(x)


@triton.jit
def k_tl_bad_keyword(o_ptr):
    # TL-KEYWORD:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: tl.load() got an unexpected keyword argument 'maks'{{$}}
    # TL-KEYWORD-NEXT: {{^}}    x = tl.load(o_ptr, maks=None){{$}}
    # TL-KEYWORD-NEXT: {{^}}        ^{{$}}
    x = tl.load(o_ptr, maks=None)


@triton.jit
def k_range_outside_for(o_ptr):
    # RANGE-VALUE:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: range() can only be used as the iterable of a for loop{{$}}
    # RANGE-VALUE-NEXT: {{^}}    r = range(10){{$}}
    # RANGE-VALUE-NEXT: {{^}}        ^{{$}}
    r = range(10)


@triton.jit
def k_not_callable(o_ptr):
    x = tl.arange(0, 16)
    # NOT-CALLABLE:      {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: error: 'x' is not callable{{$}}
    # NOT-CALLABLE-NEXT: {{^}}    y = x(3){{$}}
    # NOT-CALLABLE-NEXT: {{^}}        ^{{$}}
    y = x(3)


@triton.jit
def k_helper_error(o_ptr):
    x = tl.arange(0, 16)
    # HELPER-ERR-NEXT: {{^}}{{.*}}diagnostics-names.py:[[@LINE+3]]:9: note: in call to 'bad_helper'{{$}}
    # HELPER-ERR-NEXT: {{^}}    y = bad_helper(x){{$}}
    # HELPER-ERR-NEXT: {{^}}        ^{{$}}
    y = bad_helper(x)


@triton.jit
def k_other_module(o_ptr):
    x = tl.arange(0, 16)
    # OTHER-MODULE: {{^}}{{.*}}diagnostics-names.py:[[@LINE+1]]:9: error: cannot import '.kernel_utils.twice' (bound to 'twice'): cannot find module '.kernel_utils': package '.' ({{.*}}Frontend) has no module or name 'kernel_utils'{{$}}
    y = twice(x)
