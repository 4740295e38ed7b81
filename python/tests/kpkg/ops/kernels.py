"""Kernels of the package, using the helpers of its other modules."""

import triton
import triton.language as tl

import kpkg
import kpkg.utils as u
from kpkg.ops.utils import BLOCK, exp, safe_exp

from . import utils as ops_utils
from .utils import inv_sqrt


@triton.jit
def fused_kernel(X, Y, Z, N, BLOCK_N: tl.constexpr = BLOCK):
    offs = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(X + offs, mask=mask, other=1.0)
    y = exp(x) + safe_exp(x) + u.twice(x) + inv_sqrt(x)
    y += kpkg.utils.twice(ops_utils.exp(x))
    if Z is not None:
        y += tl.load(Z + offs, mask=mask, other=0.0)
    # The tensor method .cast with keyword arguments.
    y = y.cast(dtype=tl.float16, fp_downcast_rounding="rtz").cast(tl.float32)
    tl.store(Y + offs, y, mask=mask)


@triton.jit
def cast_rtz_kernel(X, Y, N, BLOCK_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(X + offs, mask=mask)
    tl.store(Y + offs, x.cast(tl.float16, fp_downcast_rounding="rtz"), mask=mask)


@triton.jit
def cast_rtz_bf16_kernel(X, Y, N, BLOCK_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(X + offs, mask=mask)
    y = tl.cast(x, tl.bfloat16, fp_downcast_rounding="rtz")
    tl.store(Y + offs, y.cast(tl.uint16, bitcast=True), mask=mask)
