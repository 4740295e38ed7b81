"""Adds two vectors of NumPy arrays with a Triton kernel.

The NumPy twin of vector_add.py (for Pythons without torch), written for
Tegula's tests in the shape of Triton's first tutorial; `import tegula as
triton` is its only Tegula-specific line. Checks each sum against NumPy,
prints a bandwidth table and exits 1 on a mismatch.
"""

import sys

import numpy as np

import tegula as triton
import tegula.language as tl


@triton.jit
def vadd_kernel(a_ptr, b_ptr, c_ptr, length, CHUNK: tl.constexpr):
    first = tl.program_id(axis=0) * CHUNK
    idx = first + tl.arange(0, CHUNK)
    inside = idx < length
    tl.store(c_ptr + idx, tl.load(a_ptr + idx, mask=inside) + tl.load(b_ptr + idx, mask=inside),
             mask=inside)


def vadd(a, b, chunk=1024):
    c = np.empty_like(a)
    length = c.size
    vadd_kernel[(triton.cdiv(length, chunk),)](a, b, c, length, CHUNK=chunk)
    return c


failed = []
rng = np.random.default_rng(1234)
for length, chunk in ((1, 64), (1000, 256), (12345, 1024), (65536, 4096)):
    a = rng.random(length, dtype=np.float32)
    b = rng.random(length, dtype=np.float32)
    diff = float(np.abs(vadd(a, b, chunk) - (a + b)).max())
    ok = diff == 0.0
    print("%s vector_add_numpy n=%d chunk=%d: largest difference from numpy %g"
          % ("PASS" if ok else "FAIL", length, chunk, diff))
    if not ok:
        failed.append(length)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["size"],
        x_vals=[1 << p for p in range(12, 17, 2)],
        x_log=True,
        line_arg="impl",
        line_vals=["triton", "numpy"],
        line_names=["Triton", "NumPy"],
        ylabel="GB/s",
        plot_name="vector-add-bandwidth",
        args={},
    ))
def bandwidth(size, impl):
    a = rng.random(size, dtype=np.float32)
    b = rng.random(size, dtype=np.float32)
    run = (lambda: vadd(a, b)) if impl == "triton" else (lambda: a + b)
    ms, slow, fast = triton.testing.do_bench(run, warmup=5, rep=20, quantiles=[0.5, 0.8, 0.2])
    return tuple(3 * a.nbytes / (t * 1e-3) / 1e9 for t in (ms, slow, fast))


bandwidth.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
