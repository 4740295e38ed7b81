"""Kernels the PyTorch and JAX interop tests launch: an elementwise op and
layer normalization forward and backward (after Triton's tutorial 05: the
forward keeps each row's mean and 1/std for the backward, which writes each
row's share of dW and dB for a column sum to add up)."""
import tegula
import tegula.language as tl


@tegula.jit
def scaled_add(X, Y, Out, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Out + offs, x + alpha * y, mask=mask)


@tegula.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    layer_norm_fwd_row(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK)


@tegula.jit
def layer_norm_fwd_jax(X, W, B, Y, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    """layer_norm_fwd with the inputs first and the outputs after them, the
    order tegula.jax.kernel_call passes pointers in."""
    layer_norm_fwd_row(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK)


@tegula.jit
def layer_norm_fwd_row(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * stride + cols, xc * rstd * w + b, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@tegula.jit
def layer_norm_bwd(DX, DY, X, W, Mean, Rstd, DWp, DBp, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    tl.store(DWp + row * N + cols, dy * xhat, mask=mask)
    tl.store(DBp + row * N + cols, dy, mask=mask)


@tegula.jit
def column_sum(P, Out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for r in range(0, M, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.sum(tl.load(P + rows[:, None] * N + cols[None, :], mask=mask, other=0.),
                      axis=0)
    tl.store(Out + cols, acc, mask=cols < N)


@tegula.jit
def attention_fwd(Q, K, V, O, LSE, n, scale, SEQ: tl.constexpr, D: tl.constexpr):
    """Softmax(Q K^T scale) V of one head a program, the whole sequence in
    one tile (n <= SEQ); LSE keeps each row's log-sum-exp for the backward."""
    base = tl.program_id(0).to(tl.int64) * n * D
    rows = tl.arange(0, SEQ)
    d = tl.arange(0, D)
    valid = rows < n
    q = tl.load(Q + base + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.)
    kt = tl.load(K + base + rows[None, :] * D + d[:, None], mask=valid[None, :], other=0.)
    v = tl.load(V + base + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.)
    s = tl.where(valid[None, :], tl.dot(q, kt) * scale, -float("inf"))
    m = tl.max(s, 1)
    p = tl.exp(s - m[:, None])
    l = tl.sum(p, 1)
    o = tl.dot(p / l[:, None], v)
    tl.store(O + base + rows[:, None] * D + d[None, :], o, mask=valid[:, None])
    tl.store(LSE + tl.program_id(0) * n + rows, m + tl.log(l), mask=valid)


@tegula.jit
def attention_bwd(Q, K, V, O, DO, LSE, DQ, DK, DV, n, scale, SEQ: tl.constexpr,
                  D: tl.constexpr):
    """dQ, dK, dV of attention_fwd, recomputing the probabilities from LSE."""
    base = tl.program_id(0).to(tl.int64) * n * D
    rows = tl.arange(0, SEQ)
    d = tl.arange(0, D)
    valid = rows < n
    tile = base + rows[:, None] * D + d[None, :]
    tile_t = base + rows[None, :] * D + d[:, None]
    q = tl.load(Q + tile, mask=valid[:, None], other=0.)
    k = tl.load(K + tile, mask=valid[:, None], other=0.)
    kt = tl.load(K + tile_t, mask=valid[None, :], other=0.)
    vt = tl.load(V + tile_t, mask=valid[None, :], other=0.)
    o = tl.load(O + tile, mask=valid[:, None], other=0.)
    do = tl.load(DO + tile, mask=valid[:, None], other=0.)
    lse = tl.load(LSE + tl.program_id(0) * n + rows, mask=valid, other=0.)
    s = tl.dot(q, kt) * scale
    p = tl.where(valid[:, None] & valid[None, :], tl.exp(s - lse[:, None]), 0.)
    dv = tl.dot(tl.trans(p), do)
    dp = tl.dot(do, vt)
    delta = tl.sum(do * o, 1)
    ds = p * (dp - delta[:, None])
    dq = tl.dot(ds, k) * scale
    dk = tl.dot(tl.trans(ds), q) * scale
    tl.store(DQ + tile, dq, mask=valid[:, None])
    tl.store(DK + tile, dk, mask=valid[:, None])
    tl.store(DV + tile, dv, mask=valid[:, None])
