"""Row softmax of a NumPy matrix with a persistent Triton kernel.

The NumPy twin of softmax.py (for Pythons without torch), written for
Tegula's tests in the shape of Triton's fused-softmax tutorial (02); `import
tegula as triton` is its only Tegula-specific line. The program count comes
from the warmed-up kernel's `n_regs`, `n_spills` and `metadata.shared` and
the device's properties. Checked against NumPy; exits 1 on a mismatch.
"""

import sys

import numpy as np

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
PROPS = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)


@triton.jit
def softmax_kernel(dst_ptr, src_ptr, src_row_stride, dst_row_stride, rows, cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    for r in tl.range(tl.program_id(0), rows, tl.num_programs(0), num_stages=num_stages):
        offs = tl.arange(0, BLOCK_SIZE)
        live = offs < cols
        vals = tl.load(src_ptr + r * src_row_stride + offs, mask=live, other=-float("inf"))
        num = tl.exp(vals - tl.max(vals, axis=0))
        tl.store(dst_ptr + r * dst_row_stride + offs, num / tl.sum(num, axis=0), mask=live)


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def occupancy(kernel, warps):
    fits = []
    if PROPS["max_num_regs"] and kernel.n_regs:
        fits.append(PROPS["max_num_regs"] // (kernel.n_regs * PROPS["warpSize"] * warps))
    if PROPS["max_shared_mem"] and kernel.metadata.shared:
        fits.append(PROPS["max_shared_mem"] // kernel.metadata.shared)
    return PROPS["multiprocessor_count"] * max(1, min(fits) if fits else 1)


warmed = {}


def softmax(x, persistent=True):
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    warps, stages = (4 if block <= 1024 else 8), 2
    y = np.empty_like(x)
    rs, ys = x.strides[0] // x.itemsize, y.strides[0] // y.itemsize
    if not persistent:
        softmax_kernel[(rows,)](y, x, rs, ys, rows, cols, BLOCK_SIZE=block,
                                num_stages=stages, num_warps=warps)
        return y
    if block not in warmed:
        kernel = softmax_kernel.warmup(y, x, rs, ys, rows, cols, BLOCK_SIZE=block,
                                       num_stages=stages, num_warps=warps, grid=(1,))
        kernel._init_handles()
        warmed[block] = (kernel, occupancy(kernel, warps))
        print("softmax kernel BLOCK_SIZE=%d: %d registers, %d spills, %d bytes of shared "
              "memory; %d programs at once" % (block, kernel.n_regs, kernel.n_spills,
                                                kernel.metadata.shared, warmed[block][1]))
    kernel, count = warmed[block]
    kernel[(min(count, rows), 1, 1)](y, x, rs, ys, rows, cols, block, stages)
    return y


failed = []
rng = np.random.default_rng(7)
for persistent in (False, True):
    for rows, cols in ((37, 5), (97, 643), (300, 129)):
        x = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
        got, want = softmax(x, persistent), reference(x)
        ok = np.allclose(got, want, atol=2e-6, rtol=1e-4)
        name = "softmax_numpy %s %dx%d" % ("persistent" if persistent else "one-program-per-row",
                                           rows, cols)
        print("%s %s: largest difference from numpy %.3g"
              % ("PASS" if ok else "FAIL", name, float(np.abs(got - want).max())))
        if not ok:
            failed.append(name)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["N"],
        x_vals=[256, 512, 1024],
        line_arg="impl",
        line_vals=["triton", "numpy"],
        line_names=["Triton", "NumPy"],
        ylabel="GB/s",
        plot_name="softmax-bandwidth",
        args={"M": 256},
    ))
def bandwidth(M, N, impl):
    x = rng.standard_normal((M, N)).astype(np.float32)
    run = (lambda: softmax(x)) if impl == "triton" else (lambda: reference(x))
    ms = triton.testing.do_bench(run, warmup=5, rep=20)
    return 2 * x.nbytes / (ms * 1e-3) / 1e9


bandwidth.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
