"""Flash-attention forward of PyTorch tensors, causal and not.

A program in the shape of Triton's fused-attention tutorial (06, its
forward), written for Tegula's tests; `import tegula as triton` is its only
Tegula-specific line. One program takes BLOCK_M queries of one (batch,
head) and walks the keys and values BLOCK_N at a time through block
pointers (`tl.make_block_ptr`, `tl.advance`), keeping a running maximum
and sum per query (the online softmax) so that the N_CTX x N_CTX score
matrix is never stored. With CAUSAL, a query sees only keys at or before
its position and the walk stops after the diagonal block. Checked against
a torch reference in fp32; a timing table follows. Exits 1 on a mismatch.
"""

import math
import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, scale,
                         s_z, s_h, s_t, s_d, H, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    m_block = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * s_z + (zh % H).to(tl.int64) * s_h
    q_blk = tl.make_block_ptr(q_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(s_t, s_d),
                              offsets=(m_block * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM),
                              order=(1, 0))
    # K read transposed: a HEAD_DIM x BLOCK_N block of columns of K^T.
    kt_blk = tl.make_block_ptr(k_ptr + base, shape=(HEAD_DIM, N_CTX), strides=(s_d, s_t),
                               offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    v_blk = tl.make_block_ptr(v_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(s_t, s_d),
                              offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    o_blk = tl.make_block_ptr(o_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(s_t, s_d),
                              offsets=(m_block * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM),
                              order=(1, 0))
    q_pos = m_block * BLOCK_M + tl.arange(0, BLOCK_M)
    run_max = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    run_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    q = tl.load(q_blk, boundary_check=(0,), padding_option="zero")
    # Work in base 2: exp(s * scale) == exp2(s * scale * log2(e)).
    scale2 = scale * 1.4426950408889634
    end = N_CTX
    if CAUSAL:
        end = tl.minimum((m_block + 1) * BLOCK_M, N_CTX)
    for start in range(0, end, BLOCK_N):
        kt = tl.load(kt_blk, boundary_check=(1,), padding_option="zero")
        s = tl.dot(q, kt) * scale2
        k_pos = start + tl.arange(0, BLOCK_N)
        visible = k_pos[None, :] < N_CTX
        if CAUSAL:
            visible = visible & (k_pos[None, :] <= q_pos[:, None])
        s = tl.where(visible, s, -float("inf"))
        new_max = tl.maximum(run_max, tl.max(s, axis=1))
        p = tl.exp2(s - new_max[:, None])
        shrink = tl.exp2(run_max - new_max)
        run_sum = run_sum * shrink + tl.sum(p, axis=1)
        v = tl.load(v_blk, boundary_check=(0,), padding_option="zero")
        acc = tl.dot(p.to(v.dtype), v, acc * shrink[:, None])
        run_max = new_max
        kt_blk = tl.advance(kt_blk, (0, BLOCK_N))
        v_blk = tl.advance(v_blk, (BLOCK_N, 0))
    out = acc / run_sum[:, None]
    tl.store(o_blk, out.to(o_ptr.dtype.element_ty), boundary_check=(0,))


def attention(q, k, v, causal, scale=None, block_m=64, block_n=32):
    Z, H, T, D = q.shape
    assert k.shape == v.shape == q.shape and D in (16, 32, 64, 128)
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    grid = (triton.cdiv(T, block_m), Z * H, 1)
    attention_fwd_kernel[grid](q, k, v, o, scale, q.stride(0), q.stride(1), q.stride(2),
                               q.stride(3), H, T, HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=block_n,
                               CAUSAL=causal, num_warps=4)
    return o


def reference(q, k, v, causal, scale):
    q, k, v = (t.float().cpu() for t in (q, k, v))
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        T = q.shape[-2]
        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


failed = []
for Z, H, T, D in ((1, 2, 128, 64), (2, 3, 100, 32)):
    gen = torch.Generator().manual_seed(Z * 1000 + T)
    q, k, v = (torch.randn(Z, H, T, D, generator=gen).half().to(DEVICE) for _ in range(3))
    for causal in (False, True):
        got = attention(q, k, v, causal).float().cpu()
        want = reference(q, k, v, causal, 1.0 / math.sqrt(D))
        err = (got - want).abs().max().item()
        ok = torch.allclose(got, want, atol=1e-2, rtol=0)
        name = "attention Z=%d H=%d N_CTX=%d HEAD_DIM=%d causal=%s" % (Z, H, T, D, causal)
        print("%s %s: largest difference from torch %.3g" % ("PASS" if ok else "FAIL",
                                                             name, err))
        if not ok:
            failed.append(name)

BENCHES = [
    triton.testing.Benchmark(
        x_names=["N_CTX"],
        x_vals=[128, 256],
        line_arg="impl",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        styles=[("red", "-"), ("blue", "-")],
        ylabel="TFLOPS",
        plot_name="attention-fwd-z1-h2-d64-causal=%s" % causal,
        args={"Z": 1, "H": 2, "D": 64, "causal": causal},
    ) for causal in (False, True)
]


@triton.testing.perf_report(BENCHES)
def throughput(Z, H, N_CTX, D, causal, impl):
    q, k, v = (torch.randn(Z, H, N_CTX, D, dtype=torch.float16, device=DEVICE)
               for _ in range(3))
    if impl == "triton":
        run = lambda: attention(q, k, v, causal)
    else:
        run = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                       is_causal=causal)
    ms = triton.testing.do_bench(run, warmup=5, rep=20)
    flops = 4 * Z * H * N_CTX * N_CTX * D * (0.5 if causal else 1.0)
    return flops * 1e-12 / (ms * 1e-3)


throughput.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
