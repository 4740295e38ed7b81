#!/usr/bin/env python3
"""The main job: runs the bundled example kernels (examples/*.py, written for
Triton) on every device Tegula finds, each checked against a NumPy reference
on fresh random inputs with its output poisoned first, and prints per kernel
the device, whether the result matched and the median launch time.

Usage: examples/run.py [--repeat N]   (exit status 1 when a result differs)
"""
import argparse
import pathlib
import sys
import time

import numpy as np

import tegula
import tegula.language

HERE = pathlib.Path(__file__).resolve().parent


def load_example(name):
    """Imports examples/NAME.py (written for Triton: `import triton`)."""
    return tegula.import_triton_file(HERE / (name + ".py"))


def run_vector_add(module, device, rng):
    n = 1_000_003  # not a multiple of the block
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    block = 1024

    def launch():
        module.add_kernel[(triton_cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block,
                                                    device=device)
    return launch, lambda: np.array_equal(out, x + y), out


def run_softmax(module, device, rng):
    rows, cols = 1823, 781
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.full((rows, cols), np.nan, dtype=np.float32)

    def launch():
        module.softmax_kernel[(rows,)](out, x, x.strides[0] // 4, out.strides[0] // 4,
                                       cols, BLOCK=1024, device=device)

    def check():
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        return np.allclose(out, ref, rtol=1e-5, atol=1e-6)
    return launch, check, out


def triton_cdiv(a, b):
    return (a + b - 1) // b


EXAMPLES = [("vector_add", run_vector_add), ("softmax", run_softmax)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    devices = tegula.devices()
    if not devices:
        print("no device found (tegula devices says why)")
        return 0
    rng = np.random.default_rng()
    failed = False
    print("%-10s %-12s %-9s %12s" % ("device", "kernel", "result", "median"))
    for device in devices:
        for name, setup in EXAMPLES:
            module = load_example(name)
            try:
                launch, check, _ = setup(module, device, rng)
                launch()  # compile, and the checked run
                ok = bool(check())
                times = []
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    launch()
                    times.append(time.perf_counter() - start)
                median = sorted(times)[len(times) // 2] * 1e3
                print("%-10s %-12s %-9s %9.3f ms" % (device.name, name,
                                                      "match" if ok else "MISMATCH",
                                                      median))
                failed |= not ok
            except tegula.TegulaError as error:
                # A device whose backend cannot run kernels yet says why.
                print("%-10s %-12s %-9s %s" % (device.name, name, "skipped",
                                               str(error).splitlines()[0]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
