#!/usr/bin/env python3
"""What a launch from Python costs on top of the runtime's own launch call.

A one-program kernel (examples/vector_add.py's add_kernel on 16 fp32
elements) is launched many times in a row on one device (default host:0,
the NULL stream: each launch returns when the kernel has run), with NumPy
arrays as Triton programs pass them (`add_kernel[(1,)](x, y, out, n,
BLOCK_SIZE=16)`). Measured, per launch, as the median over --batches
batches of --count launches:

  launch        kernel[grid](...) from Python;
  runtime call  tegula_kernel_launch itself, called from C in a loop with the
                same packed arguments (the extension's launch); without the
                extension, through ctypes (what a ctypes caller cannot go below);
  overhead      launch - runtime call: binding, the specialization key, packing
                and the call, i.e. what the Python package adds.

With tegula._accel built, `launch` is measured with it and with the Python
fallback (TEGULA_NO_ACCEL's path), side by side. `--variants` adds a
callable grid and torch CPU tensors (where torch is installed).

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \\
    TEGULA_PLUGIN_PATH=$PWD/build/lib/tegula/plugins TEGULA_VISIBLE_BACKENDS=host \\
    PYTHONPATH=python python3 bench/launch_overhead.py [--count 2000] [--batches 15]
        [--device host:0] [--json out.json]

Run it with PYTHONPATH pointing at another checkout's python/ to compare
launchers (it uses only kernel[grid](...) and the CompiledKernel it returns).
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np

import tegula

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_example(name):
    """examples/NAME (written for Triton: `import triton`)."""
    return tegula.import_triton_file(os.path.join(ROOT, "examples", name))


def per_launch_us(fn, count, batches):
    """(median, min) microseconds per call of fn over |batches| batches."""
    for _ in range(min(count, 200)):
        fn()
    out = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        out.append((time.perf_counter() - t0) / count * 1e6)
    return statistics.median(out), min(out)


def runtime_call(ck, args, count, batches):
    """(median, min) of tegula_kernel_launch alone with |ck|'s arguments
    packed once: from C where the extension is there, else via ctypes."""
    lib = ck._runtime._lib
    holders = [ctypes.c_uint64(a.__array_interface__["data"][0]) if hasattr(
        a, "__array_interface__") else ctypes.c_int32(a) for a in args]
    packed, size = ck.pack(holders)
    cfg = tegula._rt.sized(tegula._rt.tegula_launch_config)
    cfg.grid[:] = [1, 1, 1]
    cfg.block[:] = list(ck.block)
    address = ctypes.cast(lib.tegula_kernel_launch, ctypes.c_void_p).value
    try:
        from tegula import _launcher
        accel = _launcher.accel if getattr(_launcher.accel, "available", False) else None
    except ImportError:
        accel = None
    if accel is not None:
        layout = accel.make_layout(["ptr"] * 3 + ["i32"],
                                   [0, 8, 16, 24], size)
        if layout is not None and accel.pack(layout, [h.value for h in holders]) == \
                bytes(packed)[:size]:
            kernel = ck._kernel
            cfg_address = ctypes.addressof(cfg)
            vals = [h.value for h in holders]

            def call():
                err = accel.launch(address, kernel, layout, None, cfg_address, *vals)
                if err:
                    tegula._rt.check(lib, err)
            return per_launch_us(call, count, batches) + ("C",)
    launch = lib.tegula_kernel_launch

    def call():
        tegula._rt.check(lib, launch(ck._kernel, None, ctypes.byref(cfg), packed, size))
    return per_launch_us(call, count, batches) + ("ctypes",)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="host:0")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--variants", action="store_true",
                    help="also a callable grid and torch CPU tensors")
    ap.add_argument("--json")
    args = ap.parse_args()

    dev = tegula.device(args.device)
    add_kernel = load_example("vector_add.py").add_kernel
    n = 16
    x, y = np.arange(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    ck = add_kernel[(1,)](x, y, out, n, BLOCK_SIZE=16, device=dev)
    if not np.array_equal(out, x + y):
        sys.exit("launch_overhead: add_kernel gave wrong results on %s" % dev.name)

    results = {"device": dev.name, "count": args.count, "batches": args.batches,
               "python": sys.version.split()[0], "tegula": os.path.dirname(tegula.__file__)}
    rt = runtime_call(ck, (x, y, out, n), args.count, args.batches)
    results["runtime_call_us"] = {"median": rt[0], "min": rt[1], "via": rt[2]}

    cases = [("launch", lambda: add_kernel[(1,)](x, y, out, n, BLOCK_SIZE=16, device=dev))]
    if args.variants:
        cases.append(("launch, callable grid", lambda: add_kernel[
            lambda meta: (1,)](x, y, out, n, BLOCK_SIZE=16, device=dev)))
        try:
            import torch
            tx, ty, tout = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(out)
            cases.append(("launch, torch CPU tensors", lambda: add_kernel[(1,)](
                tx, ty, tout, n, BLOCK_SIZE=16, device=dev)))
        except ImportError:
            pass
    try:
        from tegula import _accel_py, _launcher
        modes = [("python", _accel_py._Fallback)]
        if getattr(_launcher.accel, "available", False):
            modes.insert(0, ("C", _launcher.accel))
    except ImportError:  # a launcher without the generated functions
        _launcher = None
        modes = [("-", None)]

    results["launch_us"] = {}
    for mode, impl in modes:
        if _launcher is not None:
            _launcher.accel = impl
            add_kernel._fast = None  # generated again, with |impl|
        for name, fn in cases:
            med, best = per_launch_us(fn, args.count, args.batches)
            results["launch_us"]["%s [%s]" % (name, mode)] = {
                "median": med, "min": best, "overhead": med - rt[0]}

    print("launch overhead on %s (Python %s, tegula from %s), µs per launch, median "
          "(min) of %d x %d:" % (dev.name, results["python"], results["tegula"],
                                 args.batches, args.count))
    print("  %-40s %7.2f (%.2f)  [%s]" % ("tegula_kernel_launch alone", rt[0], rt[1], rt[2]))
    for name, r in results["launch_us"].items():
        print("  %-40s %7.2f (%.2f)  overhead %.2f" % (name, r["median"], r["min"],
                                                       r["overhead"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
