"""An autotuned fp16 matrix multiplication of NumPy arrays.

The NumPy twin of matmul.py (for Pythons without torch), written for
Tegula's tests in the shape of Triton's matrix-multiplication tutorial (03);
`import tegula as triton` is its only Tegula-specific line: grouped tile
order, `triton.autotune` over `triton.Config`s keyed on (M, N, K), a leaky
ReLU from a `@triton.jit` helper. Checked against NumPy in fp32; exits 1 on
a mismatch.
"""

import sys

import numpy as np

import tegula as triton
import tegula.language as tl

CONFIGS = [
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_SIZE_M": 4},
                  num_stages=2, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_SIZE_M": 8},
                  num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_SIZE_M": 8},
                  num_stages=3, num_warps=4),
]


@triton.jit
def leaky_relu(v):
    return tl.where(v >= 0, v, 0.01 * v)


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_SIZE_M * tiles_n
    group_row = (pid // in_group) * GROUP_SIZE_M
    group_height = tl.minimum(tl.cdiv(M, BLOCK_M) - group_row, GROUP_SIZE_M)
    tile_m = group_row + (pid % in_group) % group_height
    tile_n = (pid % in_group) // group_height
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * s_am + (k + ks)[None, :] * s_ak,
                    mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + ks)[:, None] * s_bk + cols[None, :] * s_bn,
                    mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    tl.store(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b, activation=""):
    M, K = a.shape
    N = b.shape[1]
    c = np.empty((M, N), dtype=np.float16)
    e = a.itemsize
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.strides[0] // e, a.strides[1] // e,
                        b.strides[0] // e, b.strides[1] // e, c.strides[0] // e,
                        c.strides[1] // e, ACTIVATION=activation)
    return c


failed = []
rng = np.random.default_rng(3)
for (M, N, K) in ((128, 128, 128), (150, 70, 200)):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    for activation in ("", "leaky_relu"):
        want = a.astype(np.float32) @ b.astype(np.float32)
        if activation:
            want = np.where(want >= 0, want, np.float32(0.01) * want)
        got = matmul(a, b, activation).astype(np.float32)
        ok = np.allclose(got, want, atol=5e-2, rtol=1e-2)
        name = "matmul_numpy %dx%dx%d activation=%r" % (M, N, K, activation)
        print("%s %s: largest difference from numpy %.3g (best config %s)"
              % ("PASS" if ok else "FAIL", name, float(np.abs(got - want).max()),
                 matmul_kernel.best_config))
        if not ok:
            failed.append(name)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["M", "N", "K"],
        x_vals=[128, 256],
        line_arg="impl",
        line_vals=["numpy", "triton"],
        line_names=["NumPy", "Triton"],
        ylabel="TFLOPS",
        plot_name="matmul-fp16",
        args={},
    ))
def throughput(M, N, K, impl):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    run = (lambda: a @ b) if impl == "numpy" else (lambda: matmul(a, b))
    ms = triton.testing.do_bench(run, warmup=5, rep=20)
    return 2 * M * N * K * 1e-12 / (ms * 1e-3)


throughput.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
