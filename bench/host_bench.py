#!/usr/bin/env python3
"""Kernel run time on the host CPU (the `host` plugin) against a copy ceiling and NumPy.

Four measurements, each kernel checked against NumPy once before it is timed:

1. copy ceiling: a plain copy of a large fp32 array (default 2^26 elements,
   256 MiB, over 4x the last-level cache), bytes = read + written, with NumPy
   (np.copyto, one thread) and with Tegula load+store kernels (BLOCK
   1024/2048/4096, all device threads): copy_kernel (masked, as Triton
   kernels are written) and copy_kernel_nomask; the highest is the ceiling.
2. vector add fp32 (examples/vector_add.py's add_kernel), bytes = 3 x 4 x n,
   BLOCK 1024/2048/4096: GB/s and fraction of the ceiling; np.add for
   reference, and add_kernel_nomask (the same without the mask) to show what
   the mask costs.
3. softmax fp32 (examples/softmax.py's softmax_kernel, one program per row,
   BLOCK = next power of 2 of the columns), 4096 x 4096 and 16384 x 781,
   bytes = 2 x 4 x rows x cols; NumPy's softmax for reference.
4. matmul fp32 1024^3, the tutorial's tiled matmul_kernel
   (tests/frontend/corpus/matmul.py) with fp32 output, block shapes
   32x32x32, 64x64x32, 64x64x64, 128x128x32, GROUP_SIZE_M 8, in GFLOP/s
   (2*M*N*K / time), next to np.matmul (whatever BLAS NumPy loaded).

Timing: wall time of the launch call from Python (a launch on the NULL
stream returns when the grid has run), median of --runs runs after --warmup
runs; compile excluded. Compile time = the first launch minus a steady launch,
both on a one-program grid. A tiny kernel loads the libraries (compiler,
MLIR, LLVM) first; its first launch is reported on its own line.

%paired: the drift of the machine's memory bandwidth (other tenants of the
host) moves whole passes between levels, so the memory-bound cases also
report their rate as a fraction of the copy's with each run right after a
run of the fastest copy kernel (the median of those ratios).

On a shared machine: every case records the share of the machine's CPU time
other processes used while it was timed ("others"); --wait-idle S waits up to
S seconds before each case for the machine to go idle; --repeat N runs every
section N times and reports the median of the per-pass medians.

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_PLUGIN_PATH=$PWD/build/lib/tegula/plugins TEGULA_VISIBLE_BACKENDS=host \\
    PYTHONPATH=python python3 bench/host_bench.py [--runs 15] [--repeat 3]
        [--wait-idle 60] [--threads 1,2] [--only launch,copy,add,softmax,matmul]
        [--json out.json]

--threads 1,2 also reruns the copy and vector-add sections in child processes
with TEGULA_NUM_THREADS set to each value (how the figures scale with cores).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import tegula
import tegula.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GB = 1e9


# -- Kernels defined here (the launcher hands this whole file to the front end) --


@tegula.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


@tegula.jit
def copy_kernel_nomask(src_ptr, dst_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))


@tegula.jit
def add_kernel_nomask(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))


@tegula.jit
def warmup_kernel(dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, offsets.to(tl.float32), mask=offsets < n)


@tegula.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    # tests/frontend/corpus/matmul.py's matmul_kernel, fp32 in and out, no
    # activation.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


# -- Helpers ---------------------------------------------------------------------


def load_example(name):
    """examples/NAME.py (written for Triton: `import triton`)."""
    return tegula.import_triton_file(os.path.join(ROOT, "examples", name + ".py"))


def cdiv(a, b):
    return (a + b - 1) // b


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


WAIT_IDLE = {"max_s": 0.0, "waited_s": 0.0}


def wait_idle():
    """With --wait-idle S: waits (at most S seconds) until other processes
    have used under 10% of the machine's CPU time for 3 seconds in a row."""
    if WAIT_IDLE["max_s"] <= 0:
        return
    start = time.monotonic()
    calm = 0
    prev = cpu_busy()
    while calm < 3 and time.monotonic() - start < WAIT_IDLE["max_s"]:
        time.sleep(1)
        cur = cpu_busy()
        share = contention(prev, cur)
        calm = calm + 1 if share is not None and share < 0.10 else 0
        prev = cur
    WAIT_IDLE["waited_s"] += time.monotonic() - start


def measure(fn, runs, warmup):
    """Median of |runs| timed calls after |warmup|; other_cpu_share is what
    other processes used of the machine meanwhile."""
    for _ in range(warmup):
        fn()
    wait_idle()
    start = cpu_busy()
    times = [timed(fn) for _ in range(runs)]
    return {"median_s": statistics.median(times), "min_s": min(times),
            "max_s": max(times), "runs": runs,
            "other_cpu_share": contention(start, cpu_busy())}


def cpu_busy():
    """(busy jiffies of the whole machine, CPU seconds of this process and its
    waited-for children): what other processes used during a run."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    busy = sum(fields[:8]) - idle  # user..steal
    own = os.times()
    return busy / os.sysconf("SC_CLK_TCK"), own.user + own.system + \
        own.children_user + own.children_system, time.monotonic()


def contention(start, end):
    """Share of the machine's CPUs used by other processes between two
    cpu_busy() readings (0 = we had the machine to ourselves)."""
    wall = end[2] - start[2]
    if wall < 0.2:  # /proc/stat counts in 10 ms ticks: too coarse below that
        return None
    others = (end[0] - start[0]) - (end[1] - start[1])
    return min(1.0, max(0.0, others / (wall * (os.cpu_count() or 1))))


def sh(*cmd):
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def last_level_cache():
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in os.listdir(base):
            if not entry.startswith("index"):
                continue
            path = os.path.join(base, entry)
            with open(os.path.join(path, "level")) as f:
                level = int(f.read())
            with open(os.path.join(path, "size")) as f:
                text = f.read().strip()
            size = int(text[:-1]) * {"K": 1 << 10, "M": 1 << 20}[text[-1]] \
                if text[-1] in "KM" else int(text)
            best = max(best, level * (1 << 40) + size)
    except (OSError, ValueError):
        return None
    return best & ((1 << 40) - 1) if best else None


def blas_name():
    """The BLAS library NumPy has loaded (after one matmul), from /proc/self/maps."""
    a = np.ones((8, 8), np.float32)
    a @ a
    names = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                base = os.path.basename(path).lower()
                if any(k in base for k in ("blas", "mkl", "blis", "lapack")):
                    names.add(os.path.realpath(path))
    except OSError:
        pass
    return ", ".join(sorted(names)) or "unknown"


def llvm_version():
    """The LLVM the build in build/ was configured with (CMakeCache's LLVM_DIR)."""
    try:
        with open(os.path.join(ROOT, "build", "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("LLVM_DIR:"):
                    prefix = line.split("=", 1)[1].strip()
                    tool = os.path.normpath(os.path.join(prefix, "../../../bin/llvm-config"))
                    return sh(tool, "--version") or prefix
    except OSError:
        pass
    return "unknown"


def plugin_build(device):
    """The host plugin that was loaded and when it was built (its mtime)."""
    for p in device.runtime.plugins:
        if p.get("loaded") and p.get("name") == "host":
            try:
                built = datetime.datetime.fromtimestamp(
                    os.path.getmtime(p["path"]), datetime.timezone.utc)
                return {"path": p["path"], "built": built.strftime("%Y-%m-%d %H:%M:%S UTC")}
            except OSError:
                return {"path": p["path"], "built": None}
    return None


def header(device):
    commit = sh("git", "rev-parse", "--short=12", "HEAD")
    # Plumbing only (does not refresh or write the index).
    changed = sh("git", "diff-index", "--name-only", "HEAD", "--").split() if commit else []
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "device": device.name,
        "device_name": device.marketing_name,
        "device_threads": device.compute_units,
        "TEGULA_NUM_THREADS": os.environ.get("TEGULA_NUM_THREADS"),
        "last_level_cache_bytes": last_level_cache(),
        "numpy": np.__version__,
        "numpy_blas": blas_name(),
        "python": platform.python_version(),
        "llvm": llvm_version(),
        "tegula_commit": commit,
        "uncommitted_files": changed,
        "host_plugin": plugin_build(device),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


# -- Sections ----------------------------------------------------------------------
#
# Each section appends rows: {"impl", variant fields, "ok", "bytes" or "flops",
# "median_s", "min_s", "max_s", "runs", "other_cpu_share", and for Tegula
# kernels "compile_s", "first_launch_s"}. finish() derives the rates.


def bench_launch(dev, args, results):
    """Launch overhead: a one-program vector add of 1024 elements."""
    module = load_example("vector_add")
    n = 1024
    x = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)

    def launch():
        module.add_kernel[(1,)](x, x, out, n, BLOCK_SIZE=1024, device=dev)
    launch()
    m = measure(launch, max(args.runs, 200), 20)
    results["launch"] = {"rows": [{"impl": "add_kernel, 1 program of 1024 elements",
                                   "ok": True, **m}]}


def compile_time(launch):
    """First launch minus a steady launch, both on a one-program grid so
    that the kernel's own run time (and its noise) stays out of it."""
    first = timed(lambda: launch((1,)))
    steady = statistics.median(timed(lambda: launch((1,))) for _ in range(5))
    return {"compile_s": first - steady, "first_launch_s": first}


def paired(fn, nbytes, pair, runs):
    """The rate of fn as a fraction of the copy ceiling kernel's, each run of
    fn right after a run of the copy: the machine's memory bandwidth drifts
    (other tenants of the host), and a pair sees the same state."""
    if not pair:
        return {}
    ratios, copies = [], []
    for _ in range(runs):
        tc = timed(pair["launch"])
        t = timed(fn)
        copies.append(pair["bytes"] / tc / GB)
        ratios.append((nbytes / t / GB) / copies[-1])
    return {"of_copy_paired": statistics.median(ratios),
            "paired_copy_gbps": statistics.median(copies)}


def tegula_case(launch, check, args, runs=None, warmup=None, nbytes=None, pair=None):
    """launch(grid or None): compile on one program, check a full run, time it;
    with |pair|, also its rate next to the copy's (paired())."""
    ct = compile_time(launch)
    launch(None)
    ok = bool(check())
    m = measure(lambda: launch(None), runs or args.runs,
                args.warmup if warmup is None else warmup)
    return {"ok": ok, **ct, **m, **paired(lambda: launch(None), nbytes, pair, args.runs)}


BLOCKS = (1024, 2048, 4096)


def bench_copy(dev, args, results, x, out):
    n = x.size
    nbytes = 2 * 4 * n  # read + written
    rows = []
    out.fill(np.nan)
    np.copyto(out, x)
    ok = bool(np.array_equal(out, x))
    rows.append({"impl": "numpy", "block": None, "ok": ok, "bytes": nbytes,
                 **measure(lambda: np.copyto(out, x), args.runs, args.warmup)})

    launchers = [lambda: np.copyto(out, x)]

    def check():
        return np.array_equal(out, x)
    for block in BLOCKS:
        out.fill(np.nan)

        def launch(g, b=block):
            copy_kernel[g or (cdiv(n, b),)](x, out, n, BLOCK=b, device=dev)
        rows.append({"impl": "copy_kernel", "block": block, "bytes": nbytes,
                     **tegula_case(launch, check, args)})
        launchers.append(lambda launch=launch: launch(None))
    if n % BLOCKS[-1] == 0:
        # The same copy without a mask (n is a multiple of every BLOCK): what
        # the masked loads and stores cost.
        for block in BLOCKS:
            out.fill(np.nan)

            def launch(g, b=block):
                copy_kernel_nomask[g or (n // b,)](x, out, BLOCK=b, device=dev)
            rows.append({"impl": "copy_kernel_nomask", "block": block, "bytes": nbytes,
                         **tegula_case(launch, check, args)})
            launchers.append(lambda launch=launch: launch(None))
    results["copy"] = {"n": n, "rows": rows}
    # The fastest copy of this pass is what the later sections pair with.
    best = min(range(len(rows)), key=lambda i: rows[i]["median_s"])
    return {"launch": launchers[best], "bytes": nbytes, "impl": rows[best]["impl"],
            "block": rows[best]["block"]}


def bench_add(dev, args, results, x, y, out, pair):
    module = load_example("vector_add")
    n = x.size
    nbytes = 3 * 4 * n
    rows = []
    expect = x + y
    m = measure(lambda: np.add(x, y, out=out), args.runs, args.warmup)
    rows.append({"impl": "numpy", "block": None, "ok": bool(np.array_equal(out, expect)),
                 "bytes": nbytes, **m,
                 **paired(lambda: np.add(x, y, out=out), nbytes, pair, args.runs)})

    def check():
        return np.array_equal(out, expect)
    for block in BLOCKS:
        out.fill(np.nan)
        rows.append({"impl": "add_kernel", "block": block, "bytes": nbytes, **tegula_case(
            lambda g, b=block: module.add_kernel[g or (cdiv(n, b),)](
                x, y, out, n, BLOCK_SIZE=b, device=dev), check, args, nbytes=nbytes,
            pair=pair)})
    if n % BLOCKS[-1] == 0:
        for block in BLOCKS:
            out.fill(np.nan)
            rows.append({"impl": "add_kernel_nomask", "block": block, "bytes": nbytes,
                         **tegula_case(lambda g, b=block: add_kernel_nomask[g or (n // b,)](
                             x, y, out, BLOCK=b, device=dev), check, args, nbytes=nbytes,
                             pair=pair)})
    results["add"] = {"n": n, "rows": rows}


def np_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def bench_softmax(dev, args, results, rng, pair):
    module = load_example("softmax")
    rows = []
    for shape in ((4096, 4096), (16384, 781)):
        n_rows, n_cols = shape
        x = rng.standard_normal(shape, dtype=np.float32)
        out = np.full(shape, np.nan, np.float32)
        nbytes = 2 * 4 * n_rows * n_cols
        block = next_pow2(n_cols)
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        del x64, e

        def launch(g):
            module.softmax_kernel[g or (n_rows,)](out, x, x.strides[0] // 4,
                                                  out.strides[0] // 4, n_cols, BLOCK=block,
                                                  device=dev)
        rows.append({"impl": "softmax_kernel", "shape": list(shape), "block": block,
                     "bytes": nbytes, **tegula_case(
                         launch, lambda: np.allclose(out, ref, rtol=1e-5, atol=1e-6), args,
                         nbytes=nbytes, pair=pair)})
        ok = bool(np.allclose(np_softmax(x), ref, rtol=1e-5, atol=1e-6))
        rows.append({"impl": "numpy", "shape": list(shape), "block": None, "ok": ok,
                     "bytes": nbytes, **measure(lambda: np_softmax(x), args.runs,
                                                args.warmup),
                     **paired(lambda: np_softmax(x), nbytes, pair, args.runs)})
    results["softmax"] = {"rows": rows}


MATMUL_CONFIGS = ((32, 32, 32), (64, 64, 32), (64, 64, 64), (128, 128, 32))


def bench_matmul(dev, args, results, rng):
    M = N = K = args.matmul_size
    flops = 2 * M * N * K
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    ref64 = a.astype(np.float64) @ b.astype(np.float64)
    rows = []
    ref32 = np.matmul(a, b)
    rows.append({"impl": "numpy", "config": None, "ok": True, "flops": flops,
                 "max_abs_err_vs_fp64": float(np.abs(ref32 - ref64).max()),
                 **measure(lambda: np.matmul(a, b), args.matmul_runs, 1)})
    for bm, bn, bk in MATMUL_CONFIGS:
        c = np.full((M, N), np.nan, np.float32)
        grid = (cdiv(M, bm) * cdiv(N, bn),)

        def launch(g, bm=bm, bn=bn, bk=bk, c=c, grid=grid):
            matmul_kernel[g or grid](a, b, c, M, N, K, a.strides[0] // 4, a.strides[1] // 4,
                                     b.strides[0] // 4, b.strides[1] // 4,
                                     c.strides[0] // 4, c.strides[1] // 4,
                                     BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                     GROUP_SIZE_M=8, device=dev)
        # Against NumPy's fp32 result, rtol 1e-4; atol 1e-3 because entries
        # near zero have no meaningful relative error (entries are ~sqrt(K)).
        r = tegula_case(launch, lambda c=c: np.allclose(c, ref32, rtol=1e-4, atol=1e-3),
                        args, runs=args.matmul_runs, warmup=2)
        rows.append({"impl": "matmul_kernel", "config": "%dx%dx%d G8" % (bm, bn, bk),
                     "flops": flops, "max_abs_err_vs_fp64": float(np.abs(c - ref64).max()),
                     **r})
    results["matmul"] = {"M": M, "N": N, "K": K, "rows": rows}


SECTIONS = ("launch", "copy", "add", "softmax", "matmul")


def run_pass(dev, args, only, rng):
    """One pass over the sections asked for."""
    results = {}

    def section(name, fn, *fn_args):
        start = cpu_busy()
        value = fn(*fn_args)
        results[name]["other_cpu_share"] = contention(start, cpu_busy())
        return value

    if "launch" in only:
        section("launch", bench_launch, dev, args, results)
    if only & {"copy", "add", "softmax"}:
        n = 1 << args.n_log2
        x = rng.standard_normal(n, dtype=np.float32)
        out = np.full(n, np.nan, np.float32)  # touched: no page faults in the timing
        # The ceiling, always; its fastest kernel is paired with the others.
        pair = section("copy", bench_copy, dev, args, results, x, out)
        results["copy"]["paired_with"] = {k: pair[k] for k in ("impl", "block")}
        if "add" in only:
            y = rng.standard_normal(n, dtype=np.float32)
            section("add", bench_add, dev, args, results, x, y, out, pair)
            del y
        if "softmax" in only:
            section("softmax", bench_softmax, dev, args, results, rng, pair)
        del x, out, pair
    if "matmul" in only:
        section("matmul", bench_matmul, dev, args, results, rng)
    return results


def merge_passes(passes):
    """One result from several passes: per row, the median of the passes'
    medians (and each pass's median kept), the overall min and max; the
    compile time of the first pass."""
    if len(passes) == 1:
        return passes[0]
    merged = {}
    for name, first in passes[0].items():
        out = {k: v for k, v in first.items() if k != "rows"}
        out["other_cpu_share"] = statistics.mean(
            p[name]["other_cpu_share"] or 0.0 for p in passes)
        out["rows"] = []
        for i, row in enumerate(first["rows"]):
            same = [p[name]["rows"][i] for p in passes]
            r = dict(row)
            r["pass_medians_s"] = [x["median_s"] for x in same]
            r["median_s"] = statistics.median(r["pass_medians_s"])
            r["min_s"] = min(x["min_s"] for x in same)
            r["max_s"] = max(x["max_s"] for x in same)
            r["runs"] = sum(x["runs"] for x in same)
            r["ok"] = all(x["ok"] for x in same)
            shares = [x["other_cpu_share"] for x in same if x.get("other_cpu_share") is not None]
            r["other_cpu_share"] = statistics.mean(shares) if shares else None
            for key in ("of_copy_paired", "paired_copy_gbps"):
                if key in row:
                    r[key] = statistics.median(x[key] for x in same)
            # compile_s and first_launch_s stay those of the first pass (the
            # later passes find the kernels compiled).
            out["rows"].append(r)
        merged[name] = out
    return merged


def finish(results):
    """Rates from the medians; the copy ceiling; fractions of it."""
    for name in SECTIONS:
        for r in results.get(name, {}).get("rows", []):
            if "bytes" in r:
                r["gbps"] = r["bytes"] / r["median_s"] / GB
            if "flops" in r:
                r["gflops"] = r["flops"] / r["median_s"] / 1e9
    ceiling = None
    if "copy" in results:
        ceiling = max(r["gbps"] for r in results["copy"]["rows"] if r["ok"])
        results["copy"]["ceiling_gbps"] = ceiling
    for name in ("add", "softmax"):
        for r in results.get(name, {}).get("rows", []):
            r["of_ceiling"] = r["gbps"] / ceiling if ceiling else None
    if "add" in results:
        best = max((r for r in results["add"]["rows"] if r["impl"] == "add_kernel" and r["ok"]),
                   key=lambda r: r["gbps"], default=None)
        if best:
            results["add"].update(best_block=best["block"], best_gbps=best["gbps"],
                                  best_of_ceiling=best["of_ceiling"])


def thread_sweep(args):
    """Reruns copy and add in children with TEGULA_NUM_THREADS=t."""
    sweep = {}
    for t in [int(v) for v in args.threads.split(",") if v]:
        path = "/tmp/host_bench_threads_%d_%d.json" % (os.getpid(), t)
        env = dict(os.environ, TEGULA_NUM_THREADS=str(t))
        cmd = [sys.executable, os.path.abspath(__file__), "--only", "copy,add",
               "--runs", str(args.runs), "--warmup", str(args.warmup),
               "--repeat", str(args.repeat), "--n-log2", str(args.n_log2),
               "--wait-idle", str(args.wait_idle), "--json", path, "--quiet"]
        subprocess.run(cmd, env=env, check=True)
        with open(path) as f:
            sweep[str(t)] = json.load(f)
        os.unlink(path)
    return sweep


# -- Output --------------------------------------------------------------------------


def print_table(results):
    h = results["header"]
    a = results["args"]
    print("# host_bench  %s" % h["date"])
    print("# CPU: %s; %s logical CPUs; device %s: %s threads%s" % (
        h["cpu"], h["logical_cpus"], h["device"], h["device_threads"],
        " (TEGULA_NUM_THREADS=%s)" % h["TEGULA_NUM_THREADS"] if h["TEGULA_NUM_THREADS"] else ""))
    print("# LLC %s MiB; numpy %s (BLAS: %s); Python %s; LLVM %s" % (
        (h["last_level_cache_bytes"] or 0) >> 20, h["numpy"], h["numpy_blas"], h["python"],
        h["llvm"]))
    print("# Tegula %s%s" % (h["tegula_commit"], " + uncommitted changes to %s" % ", ".join(
        h["uncommitted_files"]) if h["uncommitted_files"] else ""))
    if h.get("host_plugin"):
        print("# host plugin %s, built %s" % (h["host_plugin"]["path"],
                                             h["host_plugin"]["built"]))
    print("# times: median of %d runs after %d warm-up (matmul %d runs)%s; compile = first "
          "launch - steady launch (one program)" % (
              a["runs"], a["warmup"], a["matmul_runs"],
              "; %d passes, median of the pass medians" % a["repeat"] if a["repeat"] > 1
              else ""))
    print("# others = share of the machine's CPU time other processes used while a case "
          "was timed; load average %s at start, %s at end%s" % (
              h["loadavg_start"], h.get("loadavg_end"),
              "; waited %.0f s for idle" % h["waited_for_idle_s"]
              if h.get("waited_for_idle_s") else ""))
    print("# first compile in the process (libraries loaded, tiny kernel): %.3f s"
          % results["libraries_s"])
    print()
    fmt = "%-30s %-18s %-3s %9s %9s %9s %8s %7s %9s %6s"
    print(fmt % ("benchmark", "variant", "ok", "median ms", "min ms", "GB/s", "%ceiling",
                 "%paired", "compile s", "others"))

    def pct(v):
        return "%.0f%%" % (100 * v) if v is not None else ""

    def line(name, variant, r, rate):
        comp = r.get("compile_s")
        print(fmt % (name, variant, "yes" if r["ok"] else "NO", ms(r["median_s"]),
                     ms(r["min_s"]), rate, pct(r.get("of_ceiling")),
                     pct(r.get("of_copy_paired")),
                     "%.3f" % comp if comp is not None else "", pct(r.get("other_cpu_share"))))

    def variant(r):
        if r["impl"] == "numpy":
            return "numpy"
        return ("nomask " if "nomask" in r["impl"] else "") + "BLOCK %d" % r["block"]
    if "launch" in results:
        r = results["launch"]["rows"][0]
        print(fmt % ("launch overhead (1 program)", "", "", ms(r["median_s"]), ms(r["min_s"]),
                     "", "", "", "", pct(r.get("other_cpu_share"))))
    if "copy" in results:
        c = results["copy"]
        for r in c["rows"]:
            line("copy fp32 n=2^%d" % (c["n"].bit_length() - 1), variant(r), r,
                 "%.2f" % r["gbps"])
        pw = c["paired_with"]
        print("%-30s %.2f GB/s (%%paired: each run right after a run of the fastest copy, %s)"
              % ("copy ceiling", c["ceiling_gbps"],
                 pw["impl"] + (" BLOCK %d" % pw["block"] if pw["block"] else "")))
    if "add" in results:
        a = results["add"]
        for r in a["rows"]:
            line("vector add fp32 n=2^%d" % (a["n"].bit_length() - 1), variant(r), r,
                 "%.2f" % r["gbps"])
    if "softmax" in results:
        for r in results["softmax"]["rows"]:
            line("softmax fp32 %dx%d" % tuple(r["shape"]), variant(r), r, "%.2f" % r["gbps"])
    if "matmul" in results:
        mm = results["matmul"]
        for r in mm["rows"]:
            line("matmul fp32 %d^3 (GFLOP/s)" % mm["M"], r["config"] or "numpy", r,
                 "%.1f GF" % r["gflops"])
    if "threads" in results:
        print()
        print("# thread scaling (child processes with TEGULA_NUM_THREADS; best BLOCK, GB/s)")
        for t, child in sorted(results["threads"].items(), key=lambda kv: int(kv[0])):
            def best(rows, impl):
                return max((r["gbps"] for r in rows if r["impl"] == impl), default=0.0)
            c, ad = child["copy"]["rows"], child["add"]["rows"]
            print("threads=%s: copy %.2f (nomask %.2f), add %.2f (nomask %.2f); numpy copy "
                  "%.2f, add %.2f; others %s" % (
                      t, best(c, "copy_kernel"), best(c, "copy_kernel_nomask"),
                      best(ad, "add_kernel"), best(ad, "add_kernel_nomask"),
                      best(c, "numpy"), best(ad, "numpy"),
                      pct(child["header"].get("other_cpu_share"))))


def ms(s):
    return "%.3f" % (s * 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="timed runs per case (median)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--matmul-runs", type=int, default=10)
    ap.add_argument("--matmul-size", type=int, default=1024)
    ap.add_argument("--n-log2", type=int, default=26, help="copy/add size: 2^N fp32")
    ap.add_argument("--only", default=",".join(SECTIONS))
    ap.add_argument("--repeat", type=int, default=1,
                    help="passes over the sections; rows report the median of the passes")
    ap.add_argument("--threads", default="", help="e.g. 1,2: rerun copy+add per count")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="S",
                    help="before each timed case wait up to S s for other processes to "
                         "go (nearly) idle (a shared machine)")
    ap.add_argument("--json")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    only = set(args.only.split(","))
    WAIT_IDLE["max_s"] = args.wait_idle

    dev = tegula.device("host:0")
    results = {"header": header(dev), "args": vars(args)}
    rng = np.random.default_rng(0)

    scratch = np.zeros(64, np.float32)
    results["libraries_s"] = timed(
        lambda: warmup_kernel[(1,)](scratch, 64, BLOCK=64, device=dev))

    run_start = cpu_busy()
    passes = [run_pass(dev, args, only, rng) for _ in range(max(args.repeat, 1))]
    results.update(merge_passes(passes))
    finish(results)
    if "copy" not in only and "copy" in results:
        results["copy_ceiling_gbps"] = results.pop("copy")["ceiling_gbps"]
    results["header"]["other_cpu_share"] = contention(run_start, cpu_busy())
    results["header"]["waited_for_idle_s"] = round(WAIT_IDLE["waited_s"], 1)
    if args.threads:
        results["threads"] = thread_sweep(args)
    results["header"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]

    if not args.quiet:
        print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    bad = [k for k in ("copy", "add", "softmax", "matmul")
           if k in results and not all(r["ok"] for r in results[k]["rows"])]
    if bad:
        print("MISMATCH against NumPy in: %s" % ", ".join(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
