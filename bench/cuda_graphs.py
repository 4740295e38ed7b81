#!/usr/bin/env python3
"""Tegula launches inside CUDA graphs, on an NVIDIA GPU with PyTorch
(issue #22, part 2; docs/torch.md, "CUDA graphs").

1. A loop of --count Tegula launches (python/tests/kernels/interop_kernels.py's
   scaled_add on torch CUDA tensors, each launch reading the previous one's
   output) is run eagerly, then captured with torch.cuda.graph and replayed
   on fresh inputs copied into the static ones; the replay must equal the
   eager loop bit for bit (and the float64 reference closely).
2. The same loop through the tegula.torch operator (tegula_demo::scaled_add,
   python/tests/torch_ops.py) under torch.compile(mode="reduce-overhead"),
   which captures its own graph: equal to eager.
3. A host (CPU) array passed to a launch during capture is refused with a
   clear RuntimeError, and the capture is abandoned cleanly.
4. Timing: per launch, eager (kernel[grid](...) from Python) against inside
   a replayed graph, the median of --batches batches, CUDA events.

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_VISIBLE_BACKENDS=nvidia PYTHONPATH=python \\
    python3 bench/cuda_graphs.py [--count 200] [--batches 20] [--n 4096] [--json out.json]

Needs torch with CUDA and the nvidia plugin. Exits non-zero on any mismatch.
"""

import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))

import torch  # noqa: E402

import tegula  # noqa: E402
from kernels.interop_kernels import scaled_add  # noqa: E402

BLOCK = 1024


def loop(a, b, outs, alpha, count):
    """outs[i] = outs[i-1] + alpha * b, outs[-1] being a: |count| launches."""
    n = a.numel()
    grid = (tegula.cdiv(n, BLOCK),)
    prev = a
    for i in range(count):
        scaled_add[grid](prev, b, outs[i % 2], n, alpha, BLOCK=BLOCK)
        prev = outs[i % 2]
    return prev


def per_launch_us(fn, count, batches):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(batches):
        torch.cuda.synchronize()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / count)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=200, help="launches per loop")
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--n", type=int, default=4096, help="elements per tensor")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("cuda_graphs.py: torch sees no CUDA device")
    dev = torch.device("cuda", 0)
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    failures = []
    alpha = 0.001

    # -- 1. capture and replay ------------------------------------------------
    a = torch.randn(args.n, device=dev)
    b = torch.randn(args.n, device=dev)
    outs = [torch.full((args.n,), float("nan"), device=dev) for _ in range(2)]
    loop(a, b, outs, alpha, args.count)  # warm-up: compile and load before capturing
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_result = loop(a, b, outs, alpha, args.count)

    fresh_a, fresh_b = torch.randn(args.n, device=dev), torch.randn(args.n, device=dev)
    a.copy_(fresh_a)
    b.copy_(fresh_b)
    for o in outs:
        o.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    replayed = static_result.clone()

    eager_outs = [torch.full((args.n,), float("nan"), device=dev) for _ in range(2)]
    eager = loop(fresh_a, fresh_b, eager_outs, alpha, args.count)
    torch.cuda.synchronize()
    reference = fresh_a.double() + args.count * alpha * fresh_b.double()
    if not torch.equal(replayed, eager):
        failures.append("graph replay differs from the eager loop (max |diff| %g)"
                        % (replayed - eager).abs().max().item())
    if not torch.allclose(replayed.double(), reference, atol=1e-3, rtol=1e-4):
        failures.append("graph replay differs from the float64 reference")
    print("capture/replay of %d launches: %s" % (
        args.count, "equal to eager" if torch.equal(replayed, eager) else "MISMATCH"))

    # -- 2. torch.compile(mode="reduce-overhead") --------------------------------
    import torch_ops

    def program(x, y):
        for _ in range(8):
            x = torch_ops.scaled_add(x, y, alpha)
        return x

    compiled = torch.compile(program, mode="reduce-overhead", fullgraph=True)
    for _ in range(3):  # reduce-overhead records on a later call, then replays
        x, y = torch.randn(args.n, device=dev), torch.randn(args.n, device=dev)
        got = compiled(x, y).clone()
        want = program(x, y)
        if not torch.equal(got, want):
            failures.append("torch.compile(mode='reduce-overhead') differs from eager")
    print("torch.compile(mode='reduce-overhead', fullgraph=True): %s" % (
        "equal to eager" if not any("reduce" in f for f in failures) else "MISMATCH"))

    # -- 3. host memory during a capture -----------------------------------------
    host = torch.randn(args.n)
    g2 = torch.cuda.CUDAGraph()
    refused = None
    try:
        with torch.cuda.graph(g2):
            scaled_add[(tegula.cdiv(args.n, BLOCK),)](host, b, outs[0], args.n, 1.0,
                                                      BLOCK=BLOCK)
    except RuntimeError as e:
        refused = str(e)
    if refused is None or "CUDA graph capture" not in refused:
        failures.append("a host tensor during capture was not refused clearly: %r" % refused)
    print("host tensor during capture: %s" % (refused or "NOT REFUSED"))

    # -- 4. timing -------------------------------------------------------------
    eager_us = per_launch_us(lambda: loop(a, b, outs, alpha, args.count), args.count,
                             args.batches)
    graph_us = per_launch_us(graph.replay, args.count, args.batches)
    print("per launch, %d-element scaled_add, %d launches a loop: eager %.2f us, "
          "in a replayed CUDA graph %.2f us (%.1fx)"
          % (args.n, args.count, eager_us, graph_us, eager_us / graph_us))
    result = {"device": torch.cuda.get_device_name(0), "count": args.count, "n": args.n,
              "eager_us_per_launch": eager_us, "graph_us_per_launch": graph_us,
              "failures": failures}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
