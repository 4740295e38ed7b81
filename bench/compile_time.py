#!/usr/bin/env python3
"""Times `tegula compile` (whole process) on every corpus kernel.

For each kernel of tests/frontend/corpus/kernels.txt: the median wall time of
N runs of `tegula compile ... --emit tile-ir` and the peak resident memory of
the process. Prints a table; `--json FILE` also writes the numbers.

    python3 bench/compile_time.py [--tegula build/bin/tegula] [--runs 20]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_cases():
    cases = []
    with open(os.path.join(ROOT, "tests/frontend/corpus/kernels.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split("|")
            cases.append((parts[0], parts[1], parts[2]))
    return cases


def run_once(tegula, path, kernel, sig):
    before = time.perf_counter()
    # A fresh process each time, as a user or the JIT would start it. The
    # peak RSS comes from wait4's rusage of that child alone.
    proc = subprocess.Popen([tegula, "compile", path, "--kernel", kernel,
                             "--signature", sig], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - before
    if status != 0:
        sys.exit(f"compile failed: {path} {kernel}: {proc.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tegula", default=os.path.join(ROOT, "build/bin/tegula"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    for file, kernel, sig in load_cases():
        path = os.path.join(ROOT, "tests/frontend/corpus", file)
        run_once(args.tegula, path, kernel, sig)  # warm the page cache
        times, peaks = [], []
        for _ in range(args.runs):
            t, m = run_once(args.tegula, path, kernel, sig)
            times.append(t)
            peaks.append(m)
        rows.append({"file": file, "kernel": kernel,
                     "median_ms": statistics.median(times) * 1e3,
                     "min_ms": min(times) * 1e3,
                     "peak_rss_mb": max(peaks)})
    print(f"{'kernel':<42} {'median ms':>10} {'min ms':>8} {'peak MB':>8}")
    for r in rows:
        name = f"{r['file']}:{r['kernel']}"
        print(f"{name:<42} {r['median_ms']:>10.1f} {r['min_ms']:>8.1f} "
              f"{r['peak_rss_mb']:>8.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
