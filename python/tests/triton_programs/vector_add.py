"""Adds two vectors of PyTorch tensors with a Triton kernel.

A program in the shape of Triton's first tutorial (vector addition), written
for Tegula's tests: a Triton user's program whose only Tegula-specific line
is `import tegula as triton`. It runs on the device the driver reports
(CPU tensors on the host, CUDA tensors on an NVIDIA GPU), checks each sum
against torch and prints a bandwidth table. Exits 1 on a mismatch.
"""

import sys

import torch

import tegula as triton
import tegula.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def vadd_kernel(a_ptr, b_ptr, c_ptr, length, CHUNK: tl.constexpr):
    # Each program adds one CHUNK of elements; the last one is partial.
    first = tl.program_id(axis=0) * CHUNK
    idx = first + tl.arange(0, CHUNK)
    inside = idx < length
    lhs = tl.load(a_ptr + idx, mask=inside)
    rhs = tl.load(b_ptr + idx, mask=inside)
    tl.store(c_ptr + idx, lhs + rhs, mask=inside)


def vadd(a, b, chunk=1024):
    assert a.shape == b.shape and a.device == b.device == DEVICE
    c = torch.empty_like(a)
    length = c.numel()
    vadd_kernel[lambda meta: (triton.cdiv(length, meta["CHUNK"]),)](a, b, c, length,
                                                                     CHUNK=chunk)
    return c


failed = []


def report(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
    if not ok:
        failed.append(name)


gen = torch.Generator().manual_seed(1234)
for length, chunk in ((1, 64), (1000, 256), (12345, 1024), (65536, 4096)):
    a = torch.rand(length, generator=gen).to(DEVICE)
    b = torch.rand(length, generator=gen).to(DEVICE)
    got = vadd(a, b, chunk)
    diff = (got - (a + b)).abs().max().item()
    report("vector_add n=%d chunk=%d" % (length, chunk), diff == 0.0,
           "largest difference from torch %g" % diff)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["size"],
        x_vals=[1 << p for p in range(12, 17, 2)],
        x_log=True,
        line_arg="impl",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        styles=[("blue", "-"), ("green", "--")],
        ylabel="GB/s",
        plot_name="vector-add-bandwidth",
        args={},
    ))
def bandwidth(size, impl):
    a = torch.rand(size, device=DEVICE)
    b = torch.rand(size, device=DEVICE)
    run = (lambda: vadd(a, b)) if impl == "triton" else (lambda: a + b)
    ms, slow, fast = triton.testing.do_bench(run, warmup=5, rep=20, quantiles=[0.5, 0.8, 0.2])
    to_gbps = lambda t: 3 * a.numel() * a.element_size() / (t * 1e-3) / 1e9
    return to_gbps(ms), to_gbps(slow), to_gbps(fast)


bandwidth.run(print_data=True, show_plots=False)
sys.exit(1 if failed else 0)
