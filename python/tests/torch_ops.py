"""Tegula kernels (kernels/interop_kernels.py) as PyTorch operators, the
example of docs/torch.md: ``tegula_demo::scaled_add``, and a layer norm and
an attention with autograd (``LayerNorm``, ``Attention``: forward and
backward operators paired by a torch.autograd.Function)."""
import os
import sys

import torch

import tegula
import tegula.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels.interop_kernels import (attention_bwd, attention_fwd,  # noqa: E402
                                     column_sum, layer_norm_bwd, layer_norm_fwd,
                                     scaled_add as scaled_add_kernel)

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


def _attention_shape(q, k, v):
    if q.dim() != 3 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError("attention: q, k and v must be [heads, tokens, head_dim] of one "
                         "shape, got %s, %s, %s" % (tuple(q.shape), tuple(k.shape),
                                                   tuple(v.shape)))
    heads, n, d = q.shape
    if d < 16 or d & (d - 1):
        raise ValueError("attention: head_dim must be a power of 2 >= 16, not %d" % d)
    return heads, n, d


@tegula.torch.custom_op(
    "tegula_demo::attention_fwd",
    fake=lambda q, k, v, scale: (torch.empty_like(q),
                                 q.new_empty(q.shape[:2], dtype=torch.float32)))
def attention_fwd_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(softmax(q k^T scale) v, each row's log-sum-exp), q, k, v
    [heads, tokens, head_dim] fp32, the tokens of a head in one tile."""
    heads, n, d = _attention_shape(q, k, v)
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = _empty(q)
    lse = _empty(q, heads, n, dtype=torch.float32)
    attention_fwd[(heads,)](q, k, v, o, lse, n, scale, SEQ=tegula.next_power_of_2(max(n, 16)),
                            D=d)
    return o, lse


@tegula.torch.custom_op(
    "tegula_demo::attention_bwd",
    fake=lambda q, k, v, o, do, lse, scale: (torch.empty_like(q), torch.empty_like(k),
                                             torch.empty_like(v)))
def attention_bwd_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                     do: torch.Tensor, lse: torch.Tensor, scale: float
                     ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dq, dk, dv) of attention_fwd_op."""
    heads, n, d = _attention_shape(q, k, v)
    q, k, v, o, do = (t.contiguous() for t in (q, k, v, o, do))
    dq, dk, dv = _empty(q), _empty(k), _empty(v)
    attention_bwd[(heads,)](q, k, v, o, do, lse, dq, dk, dv, n, scale,
                            SEQ=tegula.next_power_of_2(max(n, 16)), D=d)
    return dq, dk, dv


class Attention(torch.autograd.Function):
    """Softmax attention with Tegula's forward and backward kernels."""

    @staticmethod
    def forward(ctx, q, k, v, scale):
        o, lse = attention_fwd_op(q, k, v, scale)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.scale = scale
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = attention_bwd_op(q, k, v, o, do, lse, ctx.scale)
        return dq, dk, dv, None


def attention(q, k, v, scale=None):
    return Attention.apply(q, k, v, q.shape[-1] ** -0.5 if scale is None else scale)
