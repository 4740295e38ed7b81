"""An autotuned fp16 matrix multiplication of PyTorch tensors.

A program in the shape of Triton's matrix-multiplication tutorial (03),
written for Tegula's tests; `import tegula as triton` is its only
Tegula-specific line. One program computes one BLOCK_M x BLOCK_N tile of
C = A @ B, tiles taken in groups of GROUP_SIZE_M rows of tiles so that the
programs running together share panels of A and B; `triton.autotune`
chooses among `triton.Config`s per (M, N, K); an optional leaky ReLU from a
`@triton.jit` helper is applied to the fp32 accumulator before the fp16
store. Checked against torch.matmul; a TFLOPS table follows. Exits 1 on a
mismatch.
"""

import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
ON_GPU = triton.runtime.driver.active.get_current_target().backend in ("cuda", "hip")


def tuning_space():
    # (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_SIZE_M, num_stages, num_warps)
    small = [(32, 32, 32, 4, 2, 4), (64, 32, 32, 8, 3, 4), (32, 64, 64, 8, 3, 4)]
    large = [(128, 128, 64, 8, 3, 8), (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4)]
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_SIZE_M": g},
                          num_stages=s, num_warps=w)
            for bm, bn, bk, g, s, w in small + (large if ON_GPU else [])]


@triton.jit
def leaky_relu(v):
    return tl.where(v >= 0, v, 0.01 * v)


@triton.autotune(configs=tuning_space(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    # Program ids walk a group of GROUP_SIZE_M tile rows column by column
    # before moving to the next group.
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_SIZE_M * tiles_n
    group_row = (pid // in_group) * GROUP_SIZE_M
    group_height = tl.minimum(tiles_m - group_row, GROUP_SIZE_M)
    tile_m = group_row + (pid % in_group) % group_height
    tile_n = (pid % in_group) // group_height

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_at = a_ptr + rows[:, None] * s_am + ks[None, :] * s_ak
    b_at = b_ptr + ks[:, None] * s_bk + cols[None, :] * s_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_at, mask=(rows[:, None] < M) & (ks[None, :] < K - k), other=0.0)
        b = tl.load(b_at, mask=(ks[:, None] < K - k) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_at += BLOCK_K * s_ak
        b_at += BLOCK_K * s_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    tl.store(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b, activation=""):
    assert a.shape[1] == b.shape[0] and a.dtype == b.dtype == torch.float16
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), ACTIVATION=activation)
    return c


failed = []
gen = torch.Generator().manual_seed(3)
for (M, N, K) in ((128, 128, 128), (150, 70, 200)):
    a = torch.randn(M, K, generator=gen).half().to(DEVICE)
    b = torch.randn(K, N, generator=gen).half().to(DEVICE)
    for activation in ("", "leaky_relu"):
        want = a.float() @ b.float()
        if activation:
            want = torch.where(want >= 0, want, 0.01 * want)
        got = matmul(a, b, activation).float()
        err = (got - want).abs().max().item()
        ok = torch.allclose(got, want, atol=5e-2, rtol=1e-2)
        name = "matmul %dx%dx%d activation=%r" % (M, N, K, activation)
        print("%s %s: largest difference from torch.matmul %.3g (best config %s)"
              % ("PASS" if ok else "FAIL", name, err, matmul_kernel.best_config))
        if not ok:
            failed.append(name)
# torch.matmul itself in fp16, as a user would compare.
a = torch.randn(96, 64, generator=gen).half().to(DEVICE)
b = torch.randn(64, 80, generator=gen).half().to(DEVICE)
ok = torch.allclose(matmul(a, b), torch.matmul(a, b), atol=5e-2, rtol=1e-2)
print("%s matmul 96x80x64 against torch.matmul in fp16" % ("PASS" if ok else "FAIL"))
if not ok:
    failed.append("fp16")


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["M", "N", "K"],
        x_vals=[128, 256],
        line_arg="impl",
        line_vals=["torch", "triton"],
        line_names=["Torch", "Triton"],
        styles=[("green", "-"), ("blue", "-")],
        ylabel="TFLOPS",
        plot_name="matmul-fp16",
        args={},
    ))
def throughput(M, N, K, impl):
    a = torch.randn((M, K), device=DEVICE, dtype=torch.float16)
    b = torch.randn((K, N), device=DEVICE, dtype=torch.float16)
    run = (lambda: torch.matmul(a, b)) if impl == "torch" else (lambda: matmul(a, b))
    ms, slow, fast = triton.testing.do_bench(run, warmup=5, rep=20, quantiles=[0.5, 0.8, 0.2])
    return tuple(2 * M * N * K * 1e-12 / (t * 1e-3) for t in (ms, slow, fast))


throughput.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
