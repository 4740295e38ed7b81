#!/usr/bin/env python3
"""tegula.jax.kernel_call on an NVIDIA GPU (issue #22, part 3; docs/jax.md):
the XLA FFI handler's GPU path, launching on XLA's stream and device.
Checks a jax.jit program with two kernel_calls against NumPy float64 and
prints the time per call of the jitted program and how many of its
launches ran in C (all of them, after the first calls: docs/jax.md).

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_VISIBLE_BACKENDS=nvidia PYTHONPATH=python \\
    python3 bench/jax_gpu_check.py

Needs jax with CUDA (pip install "jax[cuda13]") and the nvidia plugin.
Exits non-zero on a mismatch, or when a timed launch went through Python.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import tegula  # noqa: E402
import tegula.jax as tj  # noqa: E402
from kernels.interop_kernels import scaled_add  # noqa: E402


def main():
    if jax.default_backend() != "gpu":
        sys.exit("jax_gpu_check.py: JAX's default backend is %s, not gpu"
                 % jax.default_backend())
    n = 1 << 20

    def add(x, y, alpha):
        return tj.kernel_call(scaled_add, x, y, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                              grid=lambda m: (tegula.cdiv(n, m["BLOCK"]),), n=n, alpha=alpha,
                              BLOCK=1024)

    @jax.jit
    def program(x, y):
        return add(jnp.sin(add(x, y, 0.5)), y, -2.0)

    rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    got = np.asarray(program(jnp.asarray(x), jnp.asarray(y)))
    want = np.sin(x + 0.5 * y.astype(np.float64)) - 2.0 * y
    err = np.abs(got - want).max()
    print("jax.jit with two kernel_calls on %s: max |error| %.3g" % (jax.devices()[0], err))
    xd, yd = jnp.asarray(x), jnp.asarray(y)
    program(xd, yd).block_until_ready()
    before = tj.launch_counts()
    t = time.perf_counter()
    for _ in range(100):
        r = program(xd, yd)
    r.block_until_ready()
    print("per call of the jitted program: %.1f us" % ((time.perf_counter() - t) * 1e4))
    # After the first calls (through Python: they give the handler the
    # device's records and XLA's stream), every launch runs in C.
    after = tj.launch_counts()
    in_c, in_python = after["c"] - before["c"], after["python"] - before["python"]
    print("launches in C %d, through Python %d (of 200)" % (in_c, in_python))
    return 0 if err < 1e-4 and in_c == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
