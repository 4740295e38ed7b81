#!/usr/bin/env python3
"""The main job: compiles each bundled example kernel (examples/*.py, written
for Triton) once for every target the loaded plugins declare, into one
kernel container per kernel, then runs each container on every device found,
each run checked against a NumPy reference on fresh random inputs with its
output poisoned first. Prints one table: kernel, images built (of the
targets declared), device, the image the device ran, result, median time.

Usage: examples/run.py [--repeat N] [--out DIR]
Exit status 1 when a result differs or a kernel builds for no target.
"""
import argparse
import math
import pathlib
import sys
import tempfile
import time

import numpy as np

import tegula

HERE = pathlib.Path(__file__).resolve().parent


def load_example(name):
    """Imports examples/NAME.py (written for Triton: `import triton`)."""
    return tegula.import_triton_file(HERE / (name + ".py"))


def cdiv(a, b):
    return (a + b - 1) // b


class Arrays:
    """Arrays of one run: passed in place on a host-memory device, else put
    in device buffers (so that the timed launches do not copy)."""

    def __init__(self, device):
        self.device = device
        self.buffers = []

    def put(self, array):
        if self.device.host_memory:
            return array
        buf = tegula.from_numpy(np.ascontiguousarray(array), device=self.device)
        self.buffers.append(buf)
        return buf

    def get(self, value, like):
        if isinstance(value, np.ndarray):
            return value
        return value.to_numpy(dtype=like.dtype, shape=like.shape)

    def free(self):
        for b in self.buffers:
            b.free()


def run_vector_add(kernel, arrays, rng):
    n = 1_000_003  # not a multiple of the block
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    dx, dy, dout = arrays.put(x), arrays.put(y), arrays.put(out)

    def launch():
        kernel[(cdiv(n, 1024),)](dx, dy, dout, n, device=arrays.device)
    return launch, lambda: np.array_equal(arrays.get(dout, out), x + y)


def run_softmax(kernel, arrays, rng):
    rows, cols = 1823, 781
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.full((rows, cols), np.nan, dtype=np.float32)
    dx, dout = arrays.put(x), arrays.put(out)

    def launch():
        kernel[(rows,)](dout, dx, cols, cols, cols, device=arrays.device)

    def check():
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        return np.allclose(arrays.get(dout, out), e / e.sum(axis=1, keepdims=True),
                           rtol=1e-5, atol=1e-6)
    return launch, check


def run_layer_norm(kernel, arrays, rng):
    rows, cols, eps = 1151, 2999, 1e-5
    x = rng.standard_normal((rows, cols), dtype=np.float32) * 3 + 1
    w = rng.standard_normal(cols, dtype=np.float32)
    b = rng.standard_normal(cols, dtype=np.float32)
    y = np.full((rows, cols), np.nan, dtype=np.float32)
    dx, dy, dw, db = arrays.put(x), arrays.put(y), arrays.put(w), arrays.put(b)

    def launch():
        kernel[(rows,)](dx, dy, dw, db, cols, cols, eps, device=arrays.device)

    def check():
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=1, keepdims=True)
        ref = (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True) + eps) * w + b
        return np.allclose(arrays.get(dy, y), ref, rtol=1e-4, atol=1e-4)
    return launch, check


def run_matmul(kernel, arrays, rng):
    m, n, k = 509, 384, 320  # m not a multiple of the block
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, dtype=np.float32)
    da, db, dc = arrays.put(a), arrays.put(b), arrays.put(c)

    def launch():
        kernel[(cdiv(m, 64) * cdiv(n, 64),)](da, db, dc, m, n, k, k, 1, n, 1, n, 1,
                                             device=arrays.device)

    def check():
        ref = a.astype(np.float64) @ b.astype(np.float64)
        return np.allclose(arrays.get(dc, c), ref, rtol=1e-2, atol=1e-2)
    return launch, check


def run_attention(kernel, arrays, rng):
    heads, ctx, dim = 3, 300, 64  # ctx not a multiple of the blocks
    q, k, v = (rng.standard_normal((heads, ctx, dim)).astype(np.float16) for _ in range(3))
    out = np.full((heads, ctx, dim), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(dim)
    dq, dk, dv, dout = (arrays.put(t) for t in (q, k, v, out))

    def launch():
        kernel[(cdiv(ctx, 64), heads)](dq, dk, dv, dout, scale, ctx, device=arrays.device)

    def check():
        s = np.einsum("hmd,hnd->hmn", q.astype(np.float64), k.astype(np.float64)) * scale
        p = np.exp(s - s.max(axis=2, keepdims=True))
        ref = np.einsum("hmn,hnd->hmd", p / p.sum(axis=2, keepdims=True), v.astype(np.float64))
        return np.allclose(arrays.get(dout, out).astype(np.float64), ref,
                           rtol=2e-2, atol=2e-2)
    return launch, check


# (example file, kernel, signature of the non-constexpr parameters, constexprs, run)
EXAMPLES = [
    ("vector_add", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32",
     {"BLOCK_SIZE": 1024}, run_vector_add),
    ("softmax", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32",
     {"BLOCK": 1024}, run_softmax),
    ("layer_norm", "layer_norm_fwd", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32",
     {"BLOCK_SIZE": 1024}, run_layer_norm),
    ("matmul", "matmul_kernel",
     "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1",
     {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
     run_matmul),
    ("attention", "attn_fwd", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32",
     {"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64}, run_attention),
]


def declared_targets(runtime):
    return ["%s:%s" % (p["name"], t) for p in runtime.plugins if p["loaded"]
            for t in p["targets"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--out", help="folder for the containers (default: a temporary one)")
    args = parser.parse_args()
    runtime = tegula.runtime()
    targets = declared_targets(runtime)
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="tegula-main-"))
    out.mkdir(parents=True, exist_ok=True)
    print("targets declared by the loaded plugins: %s" % ", ".join(targets))
    print("containers in %s" % out)
    rng = np.random.default_rng()
    failed = False
    rows = []
    for name, kernel_name, signature, constexprs, run in EXAMPLES:
        fn = getattr(load_example(name), kernel_name)
        start = time.perf_counter()
        try:
            container = tegula.compile(fn, signature, targets, out / (name + ".tgk"),
                                       constexprs=constexprs, runtime=runtime,
                                       skip_failed=True)
        except tegula.TegulaError as error:
            print("%s: %s" % (name, error))
            failed = True
            continue
        seconds = time.perf_counter() - start
        built = "%d/%d" % (len(targets) - len(container.failed), len(targets))
        print("%s: %s images in %.2f s%s" % (name, built, seconds, "".join(
            "\n  not built for %s: %s" % item for item in container.failed.items())))
        for device in tegula.devices():
            arrays = Arrays(device)
            try:
                kernel = container[kernel_name]
                launch, check = run(kernel, arrays, rng)
                launch()  # the checked run
                ok = bool(check())
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    launch()
                    times.append(time.perf_counter() - t0)
                image = container.load(kernel_name, device).target
                rows.append((name, built, device.name, image, "match" if ok else "MISMATCH",
                             "%.3f ms" % (sorted(times)[len(times) // 2] * 1e3)))
                failed |= not ok
            except tegula.TegulaError as error:
                # A device whose container has no image, or whose backend
                # cannot run kernels yet, says why.
                rows.append((name, built, device.name, "-", "skipped",
                             str(error).splitlines()[0]))
            finally:
                arrays.free()
    header = ("kernel", "images", "device", "image", "result", "median")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
    print()
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)) + "  " + str(r[5]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
