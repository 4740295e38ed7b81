#!/usr/bin/env python3
"""One process, every GPU: a kernel runs on each device of the machine at
the same time, one thread and one stream per device, and each result is
checked against NumPy.

The devices: every device of --backend (default: every non-host device,
e.g. nvidia:0 ... nvidia:7; on a machine without a GPU, host:0), or the
ones --devices names. Each thread puts its inputs on its device
(tegula.from_numpy), launches the kernel --repeat times on a stream of its
own, waits for that stream and reads the result back. A kernel compiles
once per target: the devices of one architecture share the image (a module
is loaded on each), which the summary shows (compiles and shared loads).

With --torch (PyTorch with CUDA), the arrays are torch tensors on cuda:N,
each launch on device N's current stream (torch.cuda.stream(s) per
thread), as a PyTorch program drives several GPUs.

Usage: examples/multi_device.py [--backend B | --devices D,D,...]
                                [--n N] [--repeat R] [--torch]
Exit status 1 when a device's result differs or a launch fails, 2 when no
device was found.
"""
import argparse
import sys
import threading
import time

import numpy as np

import tegula
import tegula.language as tl


@tegula.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    """out = a * x + y."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * x + y, mask=mask)


BLOCK = 1024


def pick_devices(args):
    if args.devices:
        return [tegula.device(name.strip()) for name in args.devices.split(",")
                if name.strip()]
    devices = tegula.devices()
    if args.backend:
        return [d for d in devices if d.backend == args.backend]
    gpus = [d for d in devices if d.backend != "host"]
    return gpus or devices[:1]


def run_tegula(device, n, repeat, seed):
    """Inputs on |device|, |repeat| launches on a stream of its own."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = float(seed % 7) + 0.5
    dx, dy = tegula.from_numpy(x, device=device), tegula.from_numpy(y, device=device)
    out = tegula.from_numpy(np.full(n, np.nan, np.float32), device=device)
    stream = device.stream()
    grid = ((n + BLOCK - 1) // BLOCK,)
    for _ in range(repeat):
        ck = axpy_kernel[grid](dx, dy, out, a, n, BLOCK=BLOCK, stream=stream)
    stream.synchronize()
    assert ck.device is device or ck.device.name == device.name, ck.device.name
    got = out.to_numpy()
    return got, a * x + y


def run_torch(index, n, repeat, seed):
    """Tensors on cuda:|index|, launched on that device's current stream."""
    import torch
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g).to(f"cuda:{index}")
    y = torch.randn(n, generator=g).to(f"cuda:{index}")
    out = torch.full((n,), float("nan"), device=f"cuda:{index}")
    a = float(seed % 7) + 0.5
    stream = torch.cuda.Stream(device=index)
    grid = ((n + BLOCK - 1) // BLOCK,)
    with torch.cuda.device(index), torch.cuda.stream(stream):
        for _ in range(repeat):
            ck = axpy_kernel[grid](x, y, out, a, n, BLOCK=BLOCK)
    stream.synchronize()
    assert ck.device.name == "nvidia:%d" % index, ck.device.name
    return out.cpu().numpy(), (a * x + y).cpu().numpy()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", help="every device of this backend (nvidia, host, ...)")
    p.add_argument("--devices", help="comma-separated device names (nvidia:0,nvidia:1)")
    p.add_argument("--n", type=int, default=1 << 20, help="elements per device")
    p.add_argument("--repeat", type=int, default=10, help="launches per device")
    p.add_argument("--torch", action="store_true",
                   help="torch tensors on cuda:N (needs PyTorch with CUDA)")
    args = p.parse_args(argv)

    if args.torch:
        import torch
        if not torch.cuda.is_available():
            print("--torch: PyTorch sees no CUDA device", file=sys.stderr)
            return 2
        names = ["nvidia:%d" % i for i in range(torch.cuda.device_count())]
    else:
        names = [d.name for d in pick_devices(args)]
    if not names:
        print("no device found (see `tegula devices`)", file=sys.stderr)
        return 2

    results, errors = {}, {}

    def work(i, name):
        try:
            start = time.perf_counter()
            if args.torch:
                got, want = run_torch(int(name.split(":")[1]), args.n, args.repeat, 1000 + i)
            else:
                got, want = run_tegula(tegula.device(name), args.n, args.repeat, 1000 + i)
            results[name] = (np.allclose(got, want, rtol=1e-5, atol=1e-5),
                             time.perf_counter() - start)
        except Exception as e:  # reported in the summary
            errors[name] = "%s: %s" % (type(e).__name__, e)

    threads = [threading.Thread(target=work, args=(i, name)) for i, name in enumerate(names)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    failed = 0
    print("%-12s %-22s %-8s %s" % ("device", "target", "result", "time"))
    for name in names:
        target = tegula.device(name).target
        if name in errors:
            failed += 1
            print("%-12s %-22s %-8s %s" % (name, target, "ERROR", errors[name]))
            continue
        ok, seconds = results[name]
        failed += not ok
        print("%-12s %-22s %-8s %.3f s" % (name, target, "match" if ok else "MISMATCH",
                                           seconds))
    print("%d device(s), %d launch(es) each, concurrently; %d compile(s), %d shared "
          "image load(s)" % (len(names), args.repeat, axpy_kernel.compile_count,
                             axpy_kernel.shared_image_loads))
    print("multi-device: %s" % ("FAILED on %d device(s)" % failed if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
