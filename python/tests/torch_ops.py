"""Tegula kernels (kernels/interop_kernels.py) as PyTorch operators, the
example of docs/torch.md: ``tegula_demo::scaled_add`` and a layer norm with
autograd (``LayerNorm``: forward and backward operators paired by a
torch.autograd.Function)."""
import os
import sys

import torch

import tegula
import tegula.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels.interop_kernels import (column_sum, layer_norm_bwd,  # noqa: E402
                                     layer_norm_fwd, scaled_add as scaled_add_kernel)

#: Tests set this: outputs start as NaN, so an element a kernel fails to
#: write is seen.
POISON = False


def _empty(like, *shape, dtype=None):
    shape = shape or like.shape
    dtype = dtype or like.dtype
    if POISON:
        return torch.full(shape, float("nan"), dtype=dtype, device=like.device)
    return torch.empty(shape, dtype=dtype, device=like.device)


@tegula.torch.custom_op("tegula_demo::scaled_add",
                        fake=lambda x, y, alpha: torch.empty_like(x))
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    """x + alpha * y."""
    if x.shape != y.shape or x.dtype != y.dtype:
        raise ValueError("scaled_add: x and y must have one shape and dtype, got %s %s and "
                         "%s %s" % (tuple(x.shape), x.dtype, tuple(y.shape), y.dtype))
    x, y = x.contiguous(), y.contiguous()
    out = _empty(x)
    n = x.numel()
    scaled_add_kernel[(tegula.cdiv(n, 1024),)](x, y, out, n, alpha, BLOCK=1024)
    return out


def _ln_fwd_fake(x, weight, bias, eps):
    rows = x.numel() // x.shape[-1]
    return (torch.empty_like(x), x.new_empty(rows, dtype=torch.float32),
            x.new_empty(rows, dtype=torch.float32))


@tegula.torch.custom_op("tegula_demo::layer_norm_fwd", fake=_ln_fwd_fake)
def layer_norm_fwd_op(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                      eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(y, mean, rstd) of a layer norm over the last dimension."""
    n = x.shape[-1]
    x2 = x.reshape(-1, n).contiguous()
    rows = x2.shape[0]
    y = _empty(x2)
    mean = _empty(x, rows, dtype=torch.float32)
    rstd = _empty(x, rows, dtype=torch.float32)
    layer_norm_fwd[(rows,)](x2, y, weight.contiguous(), bias.contiguous(), mean, rstd,
                            x2.stride(0), n, eps, BLOCK=tegula.next_power_of_2(n))
    return y.view(x.shape), mean, rstd


def _ln_bwd_fake(dy, x, weight, mean, rstd):
    return torch.empty_like(x), torch.empty_like(weight), torch.empty_like(weight)


@tegula.torch.custom_op("tegula_demo::layer_norm_bwd", fake=_ln_bwd_fake)
def layer_norm_bwd_op(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                      mean: torch.Tensor, rstd: torch.Tensor
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dx, dweight, dbias) of the layer norm."""
    n = x.shape[-1]
    x2 = x.reshape(-1, n).contiguous()
    dy2 = dy.reshape(-1, n).contiguous()
    rows = x2.shape[0]
    dx = _empty(x2)
    dw_rows = _empty(x2, rows, n, dtype=torch.float32)
    db_rows = _empty(x2, rows, n, dtype=torch.float32)
    block = tegula.next_power_of_2(n)
    layer_norm_bwd[(rows,)](dx, dy2, x2, weight.contiguous(), mean, rstd, dw_rows, db_rows,
                            x2.stride(0), n, BLOCK=block)
    dw = _empty(weight)
    db = _empty(weight)
    for part, out in ((dw_rows, dw), (db_rows, db)):
        column_sum[(tegula.cdiv(n, 64),)](part, out, rows, n, BLOCK_M=32, BLOCK_N=64)
    return dx.view(x.shape), dw, db


class LayerNorm(torch.autograd.Function):
    """Layer norm over the last dimension with Tegula's forward and backward
    kernels."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        y, mean, rstd = layer_norm_fwd_op(x, weight, bias, eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        dx, dw, db = layer_norm_bwd_op(dy, x, weight, mean, rstd)
        return dx, dw, db, None


def layer_norm(x, weight, bias, eps=1e-5):
    return LayerNorm.apply(x, weight, bias, eps)
