#!/usr/bin/env python3
"""tegula.jax.kernel_call's cost per call (issue #22; docs/jax.md): a
jax.jit program of two kernel_calls (a scaled add, jnp.sin, a scaled add)
on whatever backend JAX has (CPU here, CUDA on the GPU machine), timed per
call of the jitted program (wall time, and the process's CPU time, which
other processes on a shared machine disturb less), with the launches in C
and with every launch through the Python launch
(TEGULA_JAX_PYTHON_LAUNCH=1), beside the same program in jax.numpy alone
(XLA's own cost per call). Each program is checked against NumPy float64
first; the launch counts show which path ran.

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_PLUGIN_PATH=$PWD/build/lib/tegula/plugins \\
    TEGULA_VISIBLE_BACKENDS=host PYTHONPATH=python \\
    python3 bench/jax_launch_bench.py [--n 4096] [--calls 2000] [--repeat 5] [--json out.json]

On a shared machine TEGULA_NUM_THREADS=1 steadies the host plugin's
launches. On an NVIDIA GPU: TEGULA_VISIBLE_BACKENDS=nvidia and jax with
CUDA. Each time is the median over --repeat rounds of --calls calls (the
last result waited for), in microseconds per call; on a GPU the CPU time
includes the CPU's own waits for the device. Exits non-zero on a mismatch
or when the C path did not take the launches it should have.
"""
import argparse
import json
import os
import statistics
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


def make_program(n):
    def add(x, y, alpha):
        return tj.kernel_call(scaled_add, x, y, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                              grid=lambda m: (tegula.cdiv(n, m["BLOCK"]),), n=n, alpha=alpha,
                              BLOCK=1024)

    # A new function per mode: each is traced (and its launches recorded)
    # under that mode's TEGULA_JAX_PYTHON_LAUNCH.
    return jax.jit(lambda x, y: add(jnp.sin(add(x, y, 0.5)), y, -2.0))


def time_per_call(program, x, y, calls, repeat):
    """(median wall us per call, the rounds' wall us, median process CPU us
    per call: all threads, steadier than wall time on a shared machine)."""
    program(x, y).block_until_ready()
    rounds, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(calls):
            r = program(x, y)
        r.block_until_ready()
        rounds.append((time.perf_counter() - t) / calls * 1e6)
        cpu.append((time.process_time() - c) / calls * 1e6)
    return statistics.median(rounds), rounds, statistics.median(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4096, help="elements per array")
    ap.add_argument("--calls", type=int, default=2000, help="calls per round")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (the median is reported)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()

    n = args.n
    rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
    xh = rng.standard_normal(n).astype(np.float32)
    yh = rng.standard_normal(n).astype(np.float32)
    want = np.sin(xh + 0.5 * yh.astype(np.float64)) - 2.0 * yh
    x, y = jnp.asarray(xh), jnp.asarray(yh)
    device = jax.devices()[0]
    print("jax %s on %s; %d-element float32 arrays; %d calls x %d rounds"
          % (jax.__version__, device, n, args.calls, args.repeat))

    results = {"jax": jax.__version__, "device": str(device), "n": n, "calls": args.calls,
               "repeat": args.repeat, "modes": {}}
    failed = False
    modes = [("jax.numpy only", None), ("kernel_call, Python launch", "1"),
             ("kernel_call, launch in C", None)]
    for label, env in modes:
        if label == "jax.numpy only":
            program = jax.jit(lambda x, y: jnp.sin(x + 0.5 * y) - 2.0 * y)
        else:
            if env is None:
                os.environ.pop("TEGULA_JAX_PYTHON_LAUNCH", None)
            else:
                os.environ["TEGULA_JAX_PYTHON_LAUNCH"] = env
            program = make_program(n)
        err = float(np.abs(np.asarray(program(x, y)) - want).max())
        before = tj.launch_counts()
        median, rounds, cpu = time_per_call(program, x, y, args.calls, args.repeat)
        after = tj.launch_counts()
        counts = {k: after[k] - before[k] for k in after}
        print("%-28s %8.2f us per call, %8.2f us CPU  (rounds %s; max |error| %.2g; "
              "launches in C %d, Python %d)" % (label, median, cpu, ", ".join(
                  "%.1f" % r for r in rounds), err, counts["c"], counts["python"]))
        results["modes"][label] = {"us_per_call": median, "rounds": rounds, "cpu_us_per_call": cpu,
                                   "max_error": err, "launches": counts}
        expected = args.calls * args.repeat * 2 + 2
        if err > 1e-4:
            failed = True
            print("  MISMATCH against NumPy")
        if label.endswith("in C") and counts["c"] != expected:
            failed = True
            print("  expected %d launches in C" % expected)
        if label.endswith("Python launch") and counts["python"] != expected:
            failed = True
            print("  expected %d launches through Python" % expected)
    os.environ.pop("TEGULA_JAX_PYTHON_LAUNCH", None)
    m = results["modes"]
    py, c = m["kernel_call, Python launch"]["us_per_call"], m["kernel_call, launch in C"][
        "us_per_call"]
    print("launch in C: %.2fx faster per call than the Python launch; %.2f us over "
          "jax.numpy alone" % (py / c, c - m["jax.numpy only"]["us_per_call"]))
    cpy, cc = m["kernel_call, Python launch"]["cpu_us_per_call"], m[
        "kernel_call, launch in C"]["cpu_us_per_call"]
    print("in CPU time: %.2fx less per call (%.2f against %.2f us)" % (cpy / cc, cc, cpy))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
