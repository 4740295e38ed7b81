#!/usr/bin/env python3
"""The launch path of torch CUDA tensors, measured without a GPU.

gpu_bench.py `--only launch` times `add_kernel[(1,)](x, y, out, n,
BLOCK_SIZE=1024, device=dev)` on torch CUDA tensors: the launcher reads each
tensor (data_ptr(), dtype, is_cuda, get_device()), PyTorch's current stream
(torch._C._cuda_getCurrentRawStream) and calls tegula_kernel_launch on the
nvidia plugin. This runs the same Python and C steps on the fake `testdev`
backend of the runtime tests (tests/runtime/plugins, built by `ninja
runtime-tests`), whose memory is host memory: a stand-in `torch` module
whose tensors point into testdev buffers and answer those reads from C
callables, as torch's do; testdev "owns" CUDA memory here
(_interop.CUDA_BACKEND) and wraps native streams. The kernel is testdev's
built-in scale_f32 (python/tests/kernels/testdev_kernels.py) on 16 elements.

Measured per launch, in the thread's CPU time (time.thread_time, which a
busy shared machine disturbs less than wall time), the minimum and median
over --batches batches of --count launches:

  call      kernel[(1,)](out, x, 2.0, n, BLOCK=16, device=dev);
  runtime   tegula_kernel_launch alone from C with the arguments packed once
            (the extension's launch); call - runtime is the Python package's
            part.

Run it once per checkout to compare launchers (`PYTHONPATH=<checkout>/python`);
`TEGULA_NO_ACCEL=1` times the Python steps.

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_PLUGIN_PATH=$PWD/build/tests/runtime/plugins TEGULA_VISIBLE_BACKENDS=testdev \\
    PYTHONPATH=python python3 bench/cuda_launch_standin.py [--count 20000] [--batches 9]
"""

import argparse
import ctypes
import itertools
import json
import os
import statistics
import sys
import time
import types

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CURRENT_STREAM = 0x5150


def fake_torch():
    """A stand-in torch: Tensor, dtype, _C._cuda_getCurrentRawStream."""
    torch = types.ModuleType("torch")

    class dtype:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return "torch." + self.name

    class device:
        def __init__(self, type_, index):
            self.type, self.index = type_, index

    class Tensor:
        """Attributes as torch's read from C: values and C callables."""

        def __init__(self, address, dt, dev):
            self.dtype, self.device = dt, dev
            self.is_cuda, self.is_cpu = dev.type == "cuda", dev.type == "cpu"
            self.data_ptr = itertools.repeat(address).__next__
            self.get_device = itertools.repeat(dev.index).__next__

    torch.Tensor, torch.dtype, torch.device = Tensor, dtype, device
    torch.float32 = dtype("float32")
    torch.version = types.SimpleNamespace(hip=None, cuda="13.0")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream={0: CURRENT_STREAM}.get)
    torch.cuda = types.SimpleNamespace(current_stream=None)
    sys.modules["torch"] = torch
    return torch


def per_call_us(fn, count, batches):
    """(min, median) thread CPU µs per call of fn."""
    for _ in range(min(count, 1000)):
        fn()
    out = []
    for _ in range(batches):
        t0 = time.thread_time()
        for _ in range(count):
            fn()
        out.append((time.thread_time() - t0) / count * 1e6)
    return min(out), statistics.median(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--batches", type=int, default=9)
    ap.add_argument("--json")
    args = ap.parse_args()

    torch = fake_torch()
    sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
    import tegula
    from tegula import _interop, _launcher
    _interop.CUDA_BACKEND = "testdev"
    accel = getattr(_launcher.accel, "available", False)
    if accel:
        _launcher.accel.set_tensor_type(torch.Tensor)
    from kernels.testdev_kernels import scale_f32

    dev = tegula.device("testdev:0")
    buf = tegula.empty(64, np.float32, device=dev)
    x = torch.Tensor(buf.device_address, torch.float32, torch.device("cuda", 0))
    out = torch.Tensor(buf.device_address + 128, torch.float32, torch.device("cuda", 0))
    n = 16

    def call():
        return scale_f32[(1,)](out, x, 2.0, n, BLOCK=16, device=dev)
    ck = call()
    result = {"steps": "C (tegula._accel)" if accel else "Python", "count": args.count}
    result["call_us"] = per_call_us(call, args.count, args.batches)
    if accel:
        # The launcher entry's own packing and call (tegula._accel.launch).
        call()
        entry, = scale_f32._fast.entries.values()
        cfg = tegula._rt.sized(tegula._rt.tegula_launch_config)
        cfg.grid[:] = [1, 1, 1]
        cfg.block[:] = list(ck.block)
        cfg_address = ctypes.addressof(cfg)
        stream = ck.device._native_stream(CURRENT_STREAM)._require()
        run, values = entry.run, (out.data_ptr(), x.data_ptr(), 2.0, n)

        def runtime():
            return run(stream, cfg_address, *values)
        assert runtime() == 0
        result["runtime_us"] = per_call_us(runtime, args.count, args.batches)
    print("steps: %s" % result["steps"])
    for name in ("call_us", "runtime_us"):
        if name in result:
            lo, med = result[name]
            print("%-10s %7.3f µs min  %7.3f µs median" % (name[:-3], lo, med))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
