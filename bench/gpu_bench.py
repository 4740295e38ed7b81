#!/usr/bin/env python3
"""Tegula against Triton and PyTorch on an NVIDIA GPU, side by side.

Run on the GPU machine (docs/performance.md, /work/shared/DEVICE.md: H200,
Python 3.12, PyTorch, Triton), one command:

    TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so PYTHONPATH=python \\
        python3 bench/gpu_bench.py [--quick] [--out DIR] [--only add,matmul,...]

1. correctness: every kernel of the corpus (tests/frontend/corpus/) on
   --device (nvidia:0): python/tests/test_corpus_host.py under pytest with
   TEGULA_TEST_DEVICE set (the same tests and references as on the host;
   arrays in device memory), in a child process; JUnit XML in the output.
2. run time, each case in a child process of its own (a kernel that faults
   the GPU loses that case only): Tegula, Triton and PyTorch in one process,
   the Triton version being the same corpus source imported with the real
   `triton`, Tegula's launched on torch tensors and PyTorch's current
   stream. Every implementation is first checked against a float64/float32
   reference on fresh random data with its output poisoned (NaN); timing is
   CUDA events around each launch, after warm-up, median of many runs, the
   L2 (60 MB) flushed before each run and inputs rotated over sets that
   together exceed it. Cases: vector add fp32 2^28; softmax fp32 4096x4096
   and 16384x781; layer norm fp16 4096x8192; matmul fp16 4096^3 and 8192^3;
   matmul fp8 (e4m3 in, fp16 out, B K-contiguous) 4096^3 and 8192^3;
   flash-attention forward fp16 (Z 4, H 32, N 4096, D 128, causal and not).
3. cold compile time per case with empty caches: Tegula a new kernel object
   and a fresh TEGULA_CACHE_DIR, Triton a fresh import of the kernel file and
   a fresh TRITON_CACHE_DIR (its launcher stub build included); both after a
   warm-up compile that loads the libraries. compile = first launch - a
   steady launch, the median of --compile-reps such cold compiles (3).
4. host launch overhead: enqueueing many launches of a one-program vector
   add of 1024 elements (µs per launch, host side; and with the final sync).
5. warm start: the first launch of the flash-attention kernel in a new
   process whose on-disk cache a previous process filled (TEGULA_CACHE_DIR,
   TRITON_CACHE_DIR), Tegula and Triton side by side, each measurement a
   process of its own (--compile-reps of them; median). The first launch is
   timed from the call to the end of its work (imports, CUDA context and
   inputs come before); Tegula's count of kernels it compiled (not loaded
   from the cache) in that process is reported and must be 0.

A Tegula compile or launch error is reported in the table ("compile error:
...") and the run goes on. Output in --out (default $OUT, else
bench/results/): gpu_bench.json, gpu_bench.png (when matplotlib imports),
corpus_junit.xml, gpu_bench.log; the table is printed last.

--dry-run checks the imports, the kernel files and the arguments without a
GPU (python/tests/test_gpu_bench.py runs it so that this script cannot rot).
"""

import argparse
import ast
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import types
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_DIR = os.path.join(ROOT, "python")
TESTS_DIR = os.path.join(ROOT, "python", "tests")
CORPUS = os.path.join(ROOT, "tests", "frontend", "corpus")
for _p in (TESTS_DIR, PYTHON_DIR):
    if _p not in sys.path:
        sys.path.insert(0, _p)

L2_BYTES = 60 << 20
ROTATE_BYTES = 4 * L2_BYTES   # the input sets of one case together exceed this
FLUSH_BYTES = 256 << 20       # zeroed before every timed run (evicts L2)
IMPLS = ("tegula", "triton", "torch")


# -- The cases ---------------------------------------------------------------------
#
# A case: the corpus file and kernel, how to make one input set, how each
# implementation launches on a set, the reference and how to compare.


class Case:
    key = name = file = kernel = None
    unit = "GB/s"     # or "TFLOP/s"
    num_warps = 4
    num_stages = 3

    def amount(self):
        """Bytes moved or flops of one run."""
        raise NotImplementedError

    def set_bytes(self):
        raise NotImplementedError

    def make(self, torch, gen):
        """One input set (a dict of tensors, outputs included)."""
        raise NotImplementedError

    def poison(self, s):
        s["out"].fill_(float("nan"))

    def grid(self):
        raise NotImplementedError

    def args(self, s):
        """(positional args, constexpr kwargs) of the kernel on set |s|."""
        raise NotImplementedError

    def torch_run(self, torch, s):
        raise NotImplementedError

    def torch_result(self, torch, s, value):
        """The tensor to check after torch_run returned |value|."""
        return value if value is not None else s["out"]

    def reference(self, torch, s):
        raise NotImplementedError

    def compare(self, torch, out, ref):
        """(ok, max abs error)."""
        raise NotImplementedError

    def describe(self):
        return {"name": self.name, "file": self.file, "kernel": self.kernel,
                "num_warps": self.num_warps, "num_stages": self.num_stages,
                "unit": self.unit, "amount": self.amount()}


def _close(torch, out, ref, atol, rtol):
    err = (out.double() - ref.double()).abs()
    bad = err > atol + rtol * ref.double().abs()
    finite = bool(torch.isfinite(out).all())
    return finite and not bool(bad.any()), float(err.max()) if finite else float("nan")


class VectorAdd(Case):
    file, kernel, unit = "vector_add.py", "add_kernel", "GB/s"
    BLOCK = 1024

    def __init__(self, log2n):
        self.n = 1 << log2n
        self.key = "add"
        self.name = "vector add fp32 n=2^%d" % log2n

    def amount(self):
        return 12 * self.n

    def set_bytes(self):
        return 12 * self.n

    def make(self, torch, gen):
        x = torch.randn(self.n, device="cuda", generator=gen)
        y = torch.randn(self.n, device="cuda", generator=gen)
        return {"x": x, "y": y, "out": torch.empty_like(x)}

    def grid(self):
        return (cdiv(self.n, self.BLOCK),)

    def args(self, s):
        return (s["x"], s["y"], s["out"], self.n), {"BLOCK_SIZE": self.BLOCK}

    def torch_run(self, torch, s):
        torch.add(s["x"], s["y"], out=s["out"])

    def reference(self, torch, s):
        return s["x"] + s["y"]

    def compare(self, torch, out, ref):
        return bool(torch.equal(out, ref)), float((out - ref).abs().max())


class Softmax(Case):
    file, kernel, unit = "softmax.py", "softmax_kernel", "GB/s"
    num_warps = 8
    PIPELINE = 4  # the kernel's num_stages constexpr (tl.range pipelining)

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.block = next_pow2(cols)
        self.key = "softmax-%dx%d" % (rows, cols)
        self.name = "softmax fp32 %dx%d" % (rows, cols)

    def amount(self):
        return 8 * self.rows * self.cols

    def set_bytes(self):
        return 8 * self.rows * self.cols

    def make(self, torch, gen):
        x = torch.randn(self.rows, self.cols, device="cuda", generator=gen) * 3
        return {"x": x, "out": torch.empty_like(x)}

    def grid(self):
        return (self.rows,)  # one program per row (the kernel loops once)

    def args(self, s):
        # Positional: the kernel has a parameter named num_stages.
        return (s["out"], s["x"], s["x"].stride(0), s["out"].stride(0), self.rows, self.cols,
                self.block, self.PIPELINE), {}

    def torch_run(self, torch, s):
        return torch.softmax(s["x"], dim=1)

    def reference(self, torch, s):
        return torch.softmax(s["x"].double(), dim=1)

    def compare(self, torch, out, ref):
        return _close(torch, out, ref, 1e-6, 1e-5)


class LayerNorm(Case):
    file, kernel, unit = "layer_norm.py", "_layer_norm_fwd_fused", "GB/s"
    num_warps = 8
    EPS = 1e-5

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.block = min(65536 // 2, next_pow2(cols))  # the tutorial's choice for fp16
        self.key = "layernorm-%dx%d" % (rows, cols)
        self.name = "layer norm fp16 %dx%d" % (rows, cols)

    def amount(self):
        return 4 * self.rows * self.cols + 4 * self.cols

    def set_bytes(self):
        return 4 * self.rows * self.cols

    def make(self, torch, gen):
        f16 = torch.float16
        x = (torch.randn(self.rows, self.cols, device="cuda", generator=gen) * 0.5 - 2.3).to(f16)
        w = torch.rand(self.cols, device="cuda", generator=gen).to(f16)
        b = torch.rand(self.cols, device="cuda", generator=gen).to(f16)
        return {"x": x, "w": w, "b": b, "out": torch.empty_like(x),
                "mean": torch.empty(self.rows, device="cuda"),
                "rstd": torch.empty(self.rows, device="cuda")}

    def poison(self, s):
        for k in ("out", "mean", "rstd"):
            s[k].fill_(float("nan"))

    def grid(self):
        return (self.rows,)

    def args(self, s):
        return (s["x"], s["out"], s["w"], s["b"], s["mean"], s["rstd"], s["x"].stride(0),
                self.cols, self.EPS), {"BLOCK_SIZE": self.block}

    def torch_run(self, torch, s):
        return torch.nn.functional.layer_norm(s["x"], (self.cols,), s["w"], s["b"], self.EPS)

    def reference(self, torch, s):
        return torch.nn.functional.layer_norm(s["x"].double(), (self.cols,), s["w"].double(),
                                              s["b"].double(), self.EPS)

    def compare(self, torch, out, ref):
        return _close(torch, out, ref, 1e-2, 1e-2)


class Matmul(Case):
    file, kernel, unit = "matmul.py", "matmul_kernel", "TFLOP/s"
    num_warps, num_stages = 8, 3
    BM, BN, BK, GM = 128, 256, 64, 8  # the first CUDA autotune config (kernels.txt)

    def __init__(self, m, n, k):
        self.m, self.n, self.k = m, n, k
        self.key = "matmul-%d" % m if m == n == k else "matmul-%dx%dx%d" % (m, n, k)
        self.name = "matmul fp16 %d^3" % m if m == n == k else "matmul fp16 %dx%dx%d" % (m, n, k)

    def amount(self):
        return 2.0 * self.m * self.n * self.k

    def set_bytes(self):
        return 2 * (self.m * self.k + self.k * self.n + self.m * self.n)

    def make(self, torch, gen):
        a = torch.randn(self.m, self.k, device="cuda", generator=gen).half()
        b = torch.randn(self.k, self.n, device="cuda", generator=gen).half()
        return {"a": a, "b": b, "out": torch.empty(self.m, self.n, device="cuda",
                                                  dtype=torch.float16)}

    def grid(self):
        return (cdiv(self.m, self.BM) * cdiv(self.n, self.BN),)

    def args(self, s):
        a, b, c = s["a"], s["b"], s["out"]
        return (a, b, c, self.m, self.n, self.k, a.stride(0), a.stride(1), b.stride(0),
                b.stride(1), c.stride(0), c.stride(1)), \
            {"BLOCK_SIZE_M": self.BM, "BLOCK_SIZE_N": self.BN, "BLOCK_SIZE_K": self.BK,
             "GROUP_SIZE_M": self.GM, "ACTIVATION": ""}

    def torch_run(self, torch, s):
        torch.matmul(s["a"], s["b"], out=s["out"])

    def reference(self, torch, s):
        return torch.matmul(s["a"].float(), s["b"].float())

    def compare(self, torch, out, ref):
        err = (out.float() - ref).abs()
        finite = bool(torch.isfinite(out).all())
        scale = float(ref.abs().max())
        return finite and float(err.max()) <= 2e-3 * scale, float(err.max())


class MatmulFp8(Matmul):
    """The matmul tutorial's fp8 variant: e4m3 inputs, B passed transposed
    (K-contiguous, as the tutorial does), fp16 output; PyTorch's fp8 GEMM
    (torch._scaled_mm, unit scales) beside it."""

    def __init__(self, m, n, k):
        super().__init__(m, n, k)
        self.key = "matmul_fp8-%d" % m
        self.name = "matmul fp8e4m3 %d^3" % m

    def set_bytes(self):
        return self.m * self.k + self.k * self.n + 2 * self.m * self.n

    def make(self, torch, gen):
        f8 = torch.float8_e4m3fn
        a = torch.randn(self.m, self.k, device="cuda", generator=gen).to(f8)
        b = torch.randn(self.n, self.k, device="cuda", generator=gen).to(f8).T
        return {"a": a, "b": b, "one": torch.ones((), device="cuda"),
                "out": torch.empty(self.m, self.n, device="cuda", dtype=torch.float16)}

    def torch_run(self, torch, s):
        return torch._scaled_mm(s["a"], s["b"], scale_a=s["one"], scale_b=s["one"],
                                out_dtype=torch.float16)


class Attention(Case):
    file, kernel, unit = "flash_attention.py", "_attn_fwd", "TFLOP/s"
    num_warps, num_stages = 4, 3
    BM, BN = 128, 64

    def __init__(self, z, h, n, d, causal):
        self.z, self.h, self.n, self.d, self.causal = z, h, n, d, causal
        self.scale = 1.0 / math.sqrt(d)
        self.key = "attention-%s%s" % ("d%d-" % d if d != 128 else "",
                                       "causal" if causal else "full")
        self.name = "flash attn fwd fp16 Z%d H%d N%d D%d%s" % (z, h, n, d,
                                                               " causal" if causal else "")

    def amount(self):
        return 4.0 * self.z * self.h * self.n * self.n * self.d * (0.5 if self.causal else 1)

    def set_bytes(self):
        return 4 * 2 * self.z * self.h * self.n * self.d

    def make(self, torch, gen):
        shape = (self.z, self.h, self.n, self.d)
        q, k, v = (torch.randn(shape, device="cuda", generator=gen).mul_(0.5).half()
                   for _ in range(3))
        return {"q": q, "k": k, "v": v, "out": torch.empty_like(q),
                "m": torch.empty(self.z * self.h * self.n, device="cuda")}

    def poison(self, s):
        s["out"].fill_(float("nan"))
        s["m"].fill_(float("nan"))

    def grid(self):
        return (cdiv(self.n, self.BM), self.z * self.h, 1)

    def args(self, s):
        q, k, v, o = s["q"], s["k"], s["v"], s["out"]
        return (q, k, v, self.scale, s["m"], o, *q.stride(), *k.stride(), *v.stride(),
                *o.stride(), self.z, self.h, self.n), \
            {"HEAD_DIM": self.d, "BLOCK_M": self.BM, "BLOCK_N": self.BN,
             "STAGE": 3 if self.causal else 1}

    def torch_run(self, torch, s):
        return torch.nn.functional.scaled_dot_product_attention(
            s["q"], s["k"], s["v"], is_causal=self.causal, scale=self.scale)

    def reference(self, torch, s):
        out = torch.empty(s["q"].shape, device="cuda", dtype=torch.float32)
        mask = torch.ones(self.n, self.n, device="cuda", dtype=torch.bool).tril() \
            if self.causal else None
        for z in range(self.z):  # one batch at a time: fp32 scores of one batch fit
            p = torch.matmul(s["q"][z].float(), s["k"][z].float().transpose(-1, -2)) * self.scale
            if mask is not None:
                p.masked_fill_(~mask, float("-inf"))
            out[z] = torch.matmul(torch.softmax(p, dim=-1), s["v"][z].float())
            del p
        return out

    def compare(self, torch, out, ref):
        return _close(torch, out, ref, 1e-2, 0)


def make_cases(quick):
    if quick:
        return [VectorAdd(24), Softmax(1024, 1024), Softmax(4096, 781), LayerNorm(1024, 8192),
                Matmul(1024, 1024, 1024), Matmul(2048, 2048, 2048), MatmulFp8(2048, 2048, 2048),
                Attention(1, 8, 1024, 128, False), Attention(1, 8, 1024, 128, True)]
    return [VectorAdd(28), Softmax(4096, 4096), Softmax(16384, 781), LayerNorm(4096, 8192),
            Matmul(4096, 4096, 4096), Matmul(8192, 8192, 8192), MatmulFp8(4096, 4096, 4096),
            MatmulFp8(8192, 8192, 8192),
            Attention(4, 32, 4096, 128, False), Attention(4, 32, 4096, 128, True),
            Attention(4, 32, 4096, 64, False), Attention(4, 32, 4096, 64, True)]


def cdiv(a, b):
    return (a + b - 1) // b


def next_pow2(n):
    return 1 << (n - 1).bit_length()


# -- Loading the kernels -------------------------------------------------------------


def _is_jit(node):
    if isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Attribute) and node.attr == "jit") or \
        (isinstance(node, ast.Name) and node.id == "jit")


def triton_source_module(path):
    """The parts of a corpus file Triton needs, as an AST module: its imports
    of triton and math, its @triton.jit functions (other decorators such as
    triton.autotune dropped: the bench fixes the configuration) and its
    constant assignments. The rest (torch at import, DEVICE, benchmarks,
    tests) stays out. Line numbers are the file's, so Triton reads each
    kernel's source from the file itself."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    keep = []
    for node in tree.body:
        if isinstance(node, ast.Import) and all(
                a.name.split(".")[0] in ("triton", "math") for a in node.names):
            keep.append(node)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
                "triton", "math") and node.module != "triton.runtime":
            keep.append(node)
        elif isinstance(node, ast.FunctionDef) and any(map(_is_jit, node.decorator_list)):
            node.decorator_list = [d for d in node.decorator_list if _is_jit(d)]
            keep.append(node)
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            try:
                ast.literal_eval(node.value)
                keep.append(node)
            except ValueError:
                call = node.value
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                        call.func.attr == "constexpr":
                    keep.append(node)
    return ast.Module(body=keep, type_ignores=[])


_TRITON_LOADS = [0]


def load_triton(file_name):
    """A fresh module of the corpus file's kernels for the real Triton (new
    JITFunction objects: no in-memory compile cache)."""
    path = os.path.join(CORPUS, file_name)
    _TRITON_LOADS[0] += 1
    name = "gpu_bench_triton_%s_%d" % (file_name[:-3], _TRITON_LOADS[0])
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(triton_source_module(path), path, "exec"), module.__dict__)
    return module


def triton_kernel(module, name):
    return getattr(module, name)


def triton_launch(kernel, grid, args, kwargs, num_warps, num_stages):
    """kernel[grid](...) on Triton; num_stages goes to the kernel itself when
    it has a parameter of that name (softmax_kernel), not to the compiler."""
    options = {"num_warps": num_warps}
    if "num_stages" not in getattr(kernel, "arg_names", ()):
        options["num_stages"] = num_stages
    return kernel[grid](*args, **options, **kwargs)


def load_tegula(file_name):
    """Fresh tegula.JITFunctions of the corpus file (python/tests/corpus_kernels.py:
    stubs with the kernels' signatures; the compiler reads the file)."""
    import corpus_kernels
    return corpus_kernels.load(file_name)


# -- Timing ----------------------------------------------------------------------------


def time_cuda(torch, fn, nsets, flush, rep_ms, warmup_ms, max_runs=1000):
    """Median (and more) of CUDA-event times of fn(i) (i: the input set),
    each run after zeroing |flush| (L2 eviction), like triton.testing.do_bench
    plus rotation over |nsets| input sets."""
    fn(0)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(3):
        flush.zero_()
        fn(i % nsets)
    e.record()
    torch.cuda.synchronize()
    estimate = max(s.elapsed_time(e) / 3, 1e-3)
    for i in range(max(1, int(warmup_ms / estimate))):
        fn(i % nsets)
    runs = max(5, min(max_runs, int(rep_ms / estimate)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for i in range(runs):
        flush.zero_()
        starts[i].record()
        fn(i % nsets)
        ends[i].record()
    torch.cuda.synchronize()
    ms = sorted(a.elapsed_time(b) for a, b in zip(starts, ends))
    q = lambda f: ms[min(len(ms) - 1, int(f * len(ms)))]  # noqa: E731
    return {"median_ms": statistics.median(ms), "min_ms": ms[0], "p20_ms": q(0.2),
            "p80_ms": q(0.8), "runs": runs}


def first_line(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0] if text else "")


def error_kind(e, impl):
    """'compile error: ...' for a kernel that does not compile, else 'error: ...'."""
    msg = first_line(e)
    if impl == "tegula":
        import tegula
        if isinstance(e, tegula.CompilationError) or "compiling for" in str(e):
            return "compile error: " + msg
    elif impl == "triton" and ("CompilationError" in type(e).__name__ or
                               "compil" in type(e).__module__):
        return "compile error: " + msg
    return "error: " + msg


class Env:
    """What a child needs: torch, the tegula device, the launch stream mode."""

    def __init__(self, args):
        import torch
        import tegula
        self.torch = torch
        self.tegula = tegula
        self.dev = tegula.device(args.device)
        torch.cuda.set_device(int(args.device.rsplit(":", 1)[1]))
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
        self.seed = seed
        self.gen = torch.Generator(device="cuda")
        self.gen.manual_seed(seed)
        # Tegula launches on torch tensors go on PyTorch's current stream: the
        # nvidia plugin wraps it (TG_EXTENSION_TYPE_NATIVE_STREAM). Until it
        # can, a Tegula stream of its own: a blocking CUDA stream, ordered
        # with the legacy default stream the events are recorded in.
        self.stream = None
        self.stream_mode = "PyTorch's current stream (native stream wrapped)"
        try:
            self.dev.stream(native=torch.cuda.current_stream().cuda_stream).destroy()
        except tegula.TegulaError as e:
            self.stream = self.dev.stream()
            self.stream_mode = ("a Tegula stream (the plugin cannot wrap PyTorch's: %s); "
                                "events on the legacy default stream order with it"
                                % e.message)

    def tegula_launch(self, kernel, case, s):
        a, kw = case.args(s)
        kernel[case.grid()](*a, num_warps=case.num_warps, num_stages=case.num_stages,
                            device=self.dev, stream=self.stream, **kw)

    def sync(self):
        self.torch.cuda.synchronize()
        if self.stream is not None:
            self.stream.synchronize()


def fresh_cache_dirs(tmp, tag):
    """Empty compile caches for Tegula and Triton."""
    tegula_dir = tempfile.mkdtemp(prefix="tegula-%s-" % tag, dir=tmp)
    triton_dir = tempfile.mkdtemp(prefix="triton-%s-" % tag, dir=tmp)
    os.environ["TEGULA_CACHE_DIR"] = tegula_dir
    os.environ["TRITON_CACHE_DIR"] = triton_dir
    try:
        import triton
        knobs = getattr(triton, "knobs", None)
        if knobs is not None and hasattr(knobs, "cache"):
            knobs.cache.dir = triton_dir
    except Exception:
        pass


def warm_libraries(env, tmp):
    """One small compile each, so that library loading is not a case's
    compile time: Tegula's compiler (MLIR, LLVM), Triton's driver utils."""
    torch = env.torch
    x = torch.ones(1024, device="cuda")
    out = {}
    fresh_cache_dirs(tmp, "warm")
    t0 = time.perf_counter()
    try:
        k = load_tegula("vector_add.py")["add_kernel"]
        k[(1,)](x, x, x, 1000, BLOCK_SIZE=256, device=env.dev, stream=env.stream)
        env.sync()
        out["tegula_s"] = time.perf_counter() - t0
    except Exception as e:
        out["tegula_error"] = error_kind(e, "tegula")
    t0 = time.perf_counter()
    try:
        k = triton_kernel(load_triton("vector_add.py"), "add_kernel")
        k[(1,)](x, x, x, 1000, BLOCK_SIZE=256)
        torch.cuda.synchronize()
        out["triton_s"] = time.perf_counter() - t0
    except Exception as e:
        out["triton_error"] = error_kind(e, "triton")
    return out


def run_case(case, env, args, tmp, result):
    """Correctness, cold compile and run time of |case| for each
    implementation, into |result| as they come (a GPU fault keeps what was
    measured before it)."""
    torch = env.torch
    nsets = max(1, min(8, math.ceil(ROTATE_BYTES / case.set_bytes())))
    result.update(case.describe(), key=case.key, input_sets=nsets, impls={})
    sets = [case.make(torch, env.gen) for _ in range(nsets)]
    ref = case.reference(torch, sets[0])
    torch.cuda.synchronize()
    for impl in IMPLS:
        if impl not in args.impls:
            continue
        r = result["impls"][impl] = {}
        try:
            if impl == "torch":
                def launch(i):
                    return case.torch_run(torch, sets[i])
                def result_of(value):
                    return case.torch_result(torch, sets[0], value)
                sync = torch.cuda.synchronize
            else:
                def cold_launcher(tag, impl=impl):
                    """A launch function on a new kernel object with empty
                    compile caches: its first call compiles from scratch."""
                    fresh_cache_dirs(tmp, "%s-%s%s" % (case.key, impl, tag))
                    if impl == "tegula":
                        kernel = load_tegula(case.file)[case.kernel]
                        def launch(i, kernel=kernel):
                            env.tegula_launch(kernel, case, sets[i])
                    else:
                        kernel = triton_kernel(load_triton(case.file), case.kernel)
                        def launch(i, kernel=kernel):
                            a, kw = case.args(sets[i])
                            triton_launch(kernel, case.grid(), a, kw, case.num_warps,
                                          case.num_stages)
                    return launch
                launch = cold_launcher("")
                sync = env.sync if impl == "tegula" else torch.cuda.synchronize
                def result_of(value):
                    return sets[0]["out"]
            # First launch: cold compile (kernels) and the checked run.
            case.poison(sets[0])
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            try:
                value = launch(0)
                sync()
            except Exception as e:
                r["error"] = error_kind(e, impl)
                r["traceback"] = traceback.format_exc(limit=4)
                continue
            first = time.perf_counter() - t0
            ok, err = case.compare(torch, result_of(value), ref)
            r.update(ok=ok, max_abs_err=err)
            steady = []
            for _ in range(3):
                t0 = time.perf_counter()
                launch(0)
                sync()
                steady.append(time.perf_counter() - t0)
            if impl != "torch":
                # More cold compiles (each a new kernel object, empty caches):
                # the host's compile times vary by a quarter from one run to
                # the next, so the figure is the median of all of them.
                samples = [first]
                for rep in range(1, args.compile_reps):
                    again = cold_launcher("-%d" % rep)
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    again(0)
                    sync()
                    samples.append(time.perf_counter() - t0)
                base = statistics.median(steady)
                r["first_launch_s"] = first
                r["compile_samples_s"] = [max(x - base, 0.0) for x in samples]
                r["compile_s"] = statistics.median(r["compile_samples_s"])
            r.update(time_cuda(torch, launch, nsets, env.flush, args.rep_ms, args.warmup_ms))
            if env.stream is not None and impl == "tegula":
                env.stream.synchronize()
            r["rate"] = case.amount() / (r["median_ms"] * 1e-3) / \
                (1e9 if case.unit == "GB/s" else 1e12)
        except Exception as e:
            r["error"] = error_kind(e, impl)
            r["traceback"] = traceback.format_exc(limit=4)
        finally:
            try:
                torch.cuda.synchronize()
            except Exception as e:  # a sticky CUDA error: the rest of this child is lost
                r.setdefault("error", error_kind(e, impl))
                raise


def launch_overhead(env, args):
    """Host time to enqueue a one-program vector add of 1024 elements."""
    torch = env.torch
    n = 1024
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    count = 500 if args.quick else 5000
    result = {"launches": count, "impls": {}}
    def make(impl):
        if impl == "tegula":
            k = load_tegula("vector_add.py")["add_kernel"]
            fn = lambda: k[(1,)](x, y, out, n, BLOCK_SIZE=1024, device=env.dev,  # noqa: E731
                                 stream=env.stream)
            fn.kernel = k
            return fn
        if impl == "triton":
            kt = triton_kernel(load_triton("vector_add.py"), "add_kernel")
            return lambda: kt[(1,)](x, y, out, n, BLOCK_SIZE=1024)
        return lambda: torch.add(x, y, out=out)
    for name in args.impls:
        r = result["impls"][name] = {}
        try:
            enqueue, with_sync = time_launches(env, make(name), count)
            r.update(enqueue_us=enqueue, with_sync_us=with_sync)
            if name == "tegula":
                r.update(tegula_launch_steps(env, make, count))
                r.update(tegula_runtime_call(env, make, count, (x, y, out, n)))
        except Exception as e:
            r["error"] = error_kind(e, name)
    return result


def time_launches(env, fn, count):
    """(enqueue, with the final sync) µs per call of |fn|, after 50 warm-up calls."""
    for _ in range(50):
        fn()
    env.sync()
    t0 = time.perf_counter()
    for _ in range(count):
        fn()
    t1 = time.perf_counter()
    env.sync()
    t2 = time.perf_counter()
    return (t1 - t0) / count * 1e6, (t2 - t0) / count * 1e6


def tegula_runtime_call(env, make, count, values):
    """Enqueue µs of the launcher entry's packing and tegula_kernel_launch
    alone (the extension's launch, on the stream a launch would use), i.e.
    what the runtime, the nvidia plugin and the driver cost; the rest of
    the enqueue time is the Python package's."""
    try:
        from tegula import _launcher
        fn = make("tegula")
        fn()
        fn()
        entry, = fn.kernel._fast.entries.values()
        cfg = next(iter(entry.configs.values()))
        h = entry.torch.handle() if entry.torch is not None else (
            env.stream._require() if env.stream is not None else None)
        vals = _launcher.accel.arg_keys(*values)[1]
        run = entry.run

        def call():
            err = run(h, cfg, *vals)
            if err:
                raise RuntimeError("tegula_kernel_launch failed")
        return {"runtime_call_enqueue_us": time_launches(env, call, count)[0]}
    except Exception as e:  # a launcher without these: leave the figure out
        return {"runtime_call_error": "%s: %s" % (type(e).__name__, e)}


def tegula_launch_steps(env, make, count):
    """Which launcher steps Tegula's launch used (the C extension
    tegula._accel or its Python equivalent), and the enqueue time with the
    Python steps too when the extension is there."""
    try:
        from tegula import _accel_py, _launcher
    except ImportError:
        return {"steps": "unknown"}
    if not getattr(_launcher.accel, "available", False):
        return {"steps": "python (tegula._accel not built)"}
    out = {"steps": "C (tegula._accel)"}
    saved = _launcher.accel
    try:
        _launcher.accel = _accel_py._Fallback
        # A kernel object of its own: its launcher uses the Python steps.
        out["python_steps_enqueue_us"] = time_launches(env, make("tegula"), count)[0]
    finally:
        _launcher.accel = saved
    return out


# -- Warm start: a new process with a filled on-disk cache ------------------------------

WARM_CASE = "attention-full"


def warm_start_child(args):
    """One process of the warm-start measurement (--warm-impl, --cache-dir):
    the first launch of WARM_CASE with the cache |args.cache_dir| (filled by
    an earlier process, or filled by this one for --tag fill)."""
    out_file = os.path.join(args.out, "cases", "warmstart-%s-%s.json" % (args.warm_impl,
                                                                          args.tag))
    result = {"impl": args.warm_impl, "tag": args.tag}
    os.environ["TEGULA_CACHE_DIR"] = args.cache_dir
    os.environ["TRITON_CACHE_DIR"] = args.cache_dir
    try:
        t_start = time.perf_counter()
        env = Env(args)
        torch = env.torch
        case = {c.key: c for c in make_cases(args.quick)}[WARM_CASE]
        s = case.make(torch, env.gen)
        ref = case.reference(torch, s)
        case.poison(s)
        if args.warm_impl == "tegula":
            kernel = load_tegula(case.file)[case.kernel]
            def launch():
                env.tegula_launch(kernel, case, s)
            sync = env.sync
        else:
            kernel = triton_kernel(load_triton(case.file), case.kernel)
            def launch():
                a, kw = case.args(s)
                triton_launch(kernel, case.grid(), a, kw, case.num_warps, case.num_stages)
            sync = torch.cuda.synchronize
        files_before = sum(len(f) for _, _, f in os.walk(args.cache_dir))
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        launch()
        sync()
        t1 = time.perf_counter()
        steady = []
        for _ in range(3):
            t2 = time.perf_counter()
            launch()
            sync()
            steady.append(time.perf_counter() - t2)
        ok, err = case.compare(torch, s["out"], ref)
        result.update(first_launch_s=t1 - t0, setup_s=t0 - t_start,
                      steady_s=statistics.median(steady), ok=ok, max_abs_err=err,
                      cache_files_added=sum(len(f) for _, _, f in os.walk(args.cache_dir))
                      - files_before)
        if args.warm_impl == "tegula":
            result["compiled"] = kernel.compile_count - kernel.disk_cache_hits
            result["disk_cache_hits"] = kernel.disk_cache_hits
    except Exception as e:
        result["error"] = error_kind(e, args.warm_impl)
        result["traceback"] = traceback.format_exc()
    with open(out_file, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "traceback"}))
    return 0


def warm_start(args, log):
    """Per implementation: a process that fills a fresh cache, then
    --compile-reps new processes that each time their first launch."""
    result = {"key": "warmstart", "case": WARM_CASE, "impls": {}}
    tmp = tempfile.mkdtemp(prefix="gpu-bench-warm-")
    try:
        for impl in ("tegula", "triton"):
            if impl not in args.impls:
                continue
            cache = tempfile.mkdtemp(prefix="%s-cache-" % impl, dir=tmp)
            r = result["impls"][impl] = {}
            runs = []
            for tag in ["fill"] + ["run%d" % i for i in range(max(1, args.compile_reps))]:
                cmd = [sys.executable, os.path.abspath(__file__), "--child", "warmstart",
                       "--warm-impl", impl, "--cache-dir", cache, "--tag", tag,
                       "--out", args.out, "--device", args.device]
                if args.quick:
                    cmd.append("--quick")
                path = os.path.join(args.out, "cases", "warmstart-%s-%s.json" % (impl, tag))
                if os.path.exists(path):
                    os.unlink(path)
                start = time.monotonic()
                try:
                    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, timeout=args.case_timeout)
                    output, rc = p.stdout, p.returncode
                except subprocess.TimeoutExpired as e:
                    output = e.stdout.decode() if isinstance(e.stdout, bytes) \
                        else (e.stdout or "")
                    rc = "timeout after %d s" % args.case_timeout
                log.write("==== warm start %s %s (%.1f s, rc %s)\n%s\n" % (
                    impl, tag, time.monotonic() - start, rc, output))
                log.flush()
                try:
                    with open(path) as f:
                        one = json.load(f)
                except (OSError, ValueError):
                    tail = " | ".join(output.strip().splitlines()[-3:])
                    one = {"error": "child failed (rc %s): %s" % (rc, tail[-300:])}
                if "error" in one:
                    r["error"] = "%s process: %s" % (tag, one["error"])
                    break
                if tag == "fill":
                    r["fill_first_launch_s"] = one["first_launch_s"]
                else:
                    runs.append(one)
            if runs:
                r["samples_s"] = [x["first_launch_s"] for x in runs]
                r["first_launch_s"] = statistics.median(r["samples_s"])
                r["setup_s"] = statistics.median(x["setup_s"] for x in runs)
                r["ok"] = all(x["ok"] for x in runs)
                if impl == "tegula":
                    r["compiled"] = max(x["compiled"] for x in runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


def print_warm_start(w, p):
    p()
    p("## warm start: first launch of %s in a new process, on-disk cache filled by an "
      "earlier one (median of the samples), seconds" % w["case"])
    p("%-8s %10s %12s %10s  %s" % ("impl", "first", "fill (cold)", "setup", "samples; notes"))
    for impl in ("tegula", "triton"):
        r = w["impls"].get(impl)
        if r is None:
            continue
        if "first_launch_s" not in r:
            p("%-8s %s" % (impl, r.get("error", "no samples")[:200]))
            continue
        notes = " ".join("%.3f" % x for x in r["samples_s"])
        if impl == "tegula":
            notes += "; kernels compiled in the new processes: %d" % r["compiled"]
        if not r["ok"]:
            notes += "; MISMATCH"
        if "error" in r:
            notes += "; " + r["error"][:120]
        p("%-8s %10.3f %12.3f %10.3f  %s" % (impl, r["first_launch_s"],
                                              r.get("fill_first_launch_s", float("nan")),
                                              r["setup_s"], notes))
    tg, tr = w["impls"].get("tegula", {}), w["impls"].get("triton", {})
    if tg.get("first_launch_s") and tr.get("first_launch_s"):
        p("tegula / triton: %.2f" % (tg["first_launch_s"] / tr["first_launch_s"]))


# -- The child: one case --------------------------------------------------------------


def child(args):
    out_file = os.path.join(args.out, "cases", args.child + ".json")
    tmp = tempfile.mkdtemp(prefix="gpu-bench-")
    result = {"key": args.child}
    try:
        env = Env(args)
        result.update(seed=env.seed, tegula_stream=env.stream_mode,
                      warmup=warm_libraries(env, tmp))
        if args.child == "launch":
            result.update(launch_overhead(env, args))
        else:
            case = {c.key: c for c in make_cases(args.quick)}[args.child]
            run_case(case, env, args, tmp, result)
    except Exception as e:
        result["error"] = error_kind(e, "child")
        result["traceback"] = traceback.format_exc()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with open(out_file, "w") as f:
            json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "traceback"}, indent=1)[:4000])
    return 0


# -- The parent ------------------------------------------------------------------------


def run_child(args, key, log):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", key, "--out", args.out,
           "--device", args.device, "--rep-ms", str(args.rep_ms),
           "--warmup-ms", str(args.warmup_ms), "--impls", ",".join(args.impls),
           "--compile-reps", str(args.compile_reps)]
    if args.quick:
        cmd.append("--quick")
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    path = os.path.join(args.out, "cases", key + ".json")
    if os.path.exists(path):
        os.unlink(path)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=args.case_timeout)
        output, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc = "timeout after %d s" % args.case_timeout
    log.write("==== %s (%.1f s, rc %s)\n%s\n" % (key, time.monotonic() - start, rc, output))
    log.flush()
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        tail = " | ".join(output.strip().splitlines()[-3:])
        return {"key": key, "error": "child failed (rc %s): %s" % (rc, tail[-300:])}


def corpus_correctness(args, log):
    """test_corpus_host.py on --device in a child pytest; per-kernel summary."""
    xml_path = os.path.join(args.out, "corpus_junit.xml")
    env = dict(os.environ, TEGULA_TEST_DEVICE=args.device,
               PYTHONPATH=os.pathsep.join([PYTHON_DIR, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
           os.path.join(TESTS_DIR, "test_corpus_host.py"), "--junitxml", xml_path]
    if os.path.exists(xml_path):
        os.unlink(xml_path)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=args.corpus_timeout, env=env, cwd=ROOT)
        output, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        output = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc = "timeout after %d s" % args.corpus_timeout
    wall = time.monotonic() - start
    log.write("==== corpus correctness (%.1f s, rc %s)\n%s\n" % (wall, rc, output))
    log.flush()
    summary = {"rc": rc, "wall_s": wall, "kernels": {}}
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError):
        summary["error"] = "no JUnit XML (rc %s): %s" % (
            rc, " | ".join(output.strip().splitlines()[-3:])[-300:])
        return summary
    for tc in root.iter("testcase"):
        test = tc.get("name", "").split("[")[0]
        k = summary["kernels"].setdefault(test, {"passed": 0, "failed": 0, "skipped": 0,
                                                 "first_failure": None, "time_s": 0.0})
        k["time_s"] += float(tc.get("time") or 0)
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        if bad is not None:
            k["failed"] += 1
            if k["first_failure"] is None:
                msg = (bad.get("message") or bad.text or "").strip().splitlines()
                k["first_failure"] = "%s: %s" % (tc.get("name"), (msg[0] if msg else "")[:200])
        elif tc.find("skipped") is not None:
            k["skipped"] += 1
        else:
            k["passed"] += 1
    return summary


def header(args):
    def sh(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                                  cwd=ROOT).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    def version(name):
        try:
            from importlib.metadata import version as v
            return v(name)
        except Exception:
            return None
    gpu = sh("nvidia-smi", "--query-gpu=name,driver_version,memory.total",
             "--format=csv,noheader")
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": gpu or None, "device": args.device, "python": sys.version.split()[0],
        "torch": version("torch"), "triton": version("triton"), "numpy": version("numpy"),
        "tegula_commit": sh("git", "rev-parse", "--short=12", "HEAD") or None,
        "TEGULA_RUNTIME_LIB": os.environ.get("TEGULA_RUNTIME_LIB"),
        "args": {k: sorted(v) if isinstance(v, set) else v
                 for k, v in vars(args).items() if k not in ("child",)},
    }


def fmt_ms(r):
    if r is None:
        return "-"
    if "error" in r:
        return None
    return "%.3f" % r["median_ms"]


def print_table(results, file=sys.stdout):
    h = results["header"]
    p = lambda *a: print(*a, file=file)  # noqa: E731
    p()
    p("# gpu_bench %s  GPU: %s  device %s" % (h["date"], h["gpu"], h["device"]))
    p("# torch %s, triton %s, Python %s, Tegula %s" % (h["torch"], h["triton"], h["python"],
                                                      h["tegula_commit"]))
    modes = {c.get("tegula_stream") for c in results["cases"] if c.get("tegula_stream")}
    for m in modes:
        p("# Tegula launches on: %s" % m)
    p("# times: CUDA events, median; L2 flushed before each run; ratio = Tegula time / other")
    corpus = results.get("corpus")
    if corpus:
        p()
        p("## correctness on %s: the corpus (test_corpus_host.py), %.0f s%s" % (
            h["device"], corpus["wall_s"], "" if not corpus.get("error")
            else ": " + corpus["error"]))
        for test, k in sorted(corpus["kernels"].items()):
            p("%-48s %3d passed %3d failed %3d skipped  %s" % (
                test, k["passed"], k["failed"], k["skipped"], k["first_failure"] or ""))
    p()
    p("## run time")
    row = "%-38s %-6s %12s %12s %12s %9s %9s %s"
    p(row % ("case", "unit", "tegula", "triton", "torch", "tg/triton", "tg/torch", "notes"))
    for c in results["cases"]:
        if c["key"] == "launch":
            continue
        imps = c.get("impls", {})
        cells, notes = [], []
        for impl in IMPLS:
            r = imps.get(impl)
            if r is None:
                cells.append("-")
            elif "error" in r:
                cells.append("ERROR")
                notes.append("%s %s" % (impl, r["error"][:160]))
            else:
                cells.append("%.3f ms" % r["median_ms"])
                if not r.get("ok", True):
                    notes.append("%s MISMATCH (max err %.3g)" % (impl, r["max_abs_err"]))
        ratio = []
        tg = imps.get("tegula", {})
        for other in ("triton", "torch"):
            o = imps.get(other, {})
            if "median_ms" in tg and "median_ms" in o:
                ratio.append("%.2f" % (tg["median_ms"] / o["median_ms"]))
            else:
                ratio.append("-")
        if "error" in c and not imps:
            notes.append(c["error"][:200])
        p(row % (c.get("name", c["key"])[:38], c.get("unit", ""), *cells, *ratio,
                 "; ".join(notes)))
        rates = ["%s %.1f" % (impl, imps[impl]["rate"]) for impl in IMPLS
                 if "rate" in imps.get(impl, {})]
        if rates:
            p("%-38s %-6s %s" % ("", "", ", ".join(rates) + " " + c.get("unit", "")))
    p()
    p("## cold compile (empty caches; first launch - steady launch; median of the"
      " samples), seconds")
    p("%-38s %10s %10s %9s  %s" % ("case", "tegula", "triton", "tg/triton",
                                  "samples tegula | triton"))
    for c in results["cases"]:
        imps = c.get("impls", {})
        tg, tr = imps.get("tegula", {}), imps.get("triton", {})
        if c["key"] == "launch" or not imps:
            continue
        cell = lambda r: "%.3f" % r["compile_s"] if "compile_s" in r else (  # noqa: E731
            "error" if "error" in r else "-")
        ratio = "%.2f" % (tg["compile_s"] / tr["compile_s"]) \
            if "compile_s" in tg and tr.get("compile_s") else "-"
        samples = " | ".join(" ".join("%.3f" % x for x in r.get("compile_samples_s", []))
                             for r in (tg, tr))
        p("%-38s %10s %10s %9s  %s" % (c.get("name", c["key"])[:38], cell(tg), cell(tr),
                                      ratio, samples))
    if results.get("warmstart"):
        w = results["warmstart"]
        if w.get("error"):
            p()
            p("## warm start: %s" % w["error"])
        else:
            print_warm_start(w, p)
    launch = next((c for c in results["cases"] if c["key"] == "launch"), None)
    if launch:
        p()
        p("## host launch overhead (one-program vector add, %s launches), µs per launch"
          % launch.get("launches"))
        for impl in IMPLS:
            r = launch.get("impls", {}).get(impl)
            if r is None:
                continue
            if "error" in r:
                p("%-8s %s" % (impl, r["error"][:200]))
            else:
                p("%-8s enqueue %8.2f   with final sync %8.2f%s" % (
                    impl, r["enqueue_us"], r["with_sync_us"],
                    "   launcher steps: %s" % r["steps"] if "steps" in r else ""))
                if "python_steps_enqueue_us" in r:
                    p("%-8s enqueue %8.2f   with the Python launcher steps (no tegula._accel)"
                      % (impl, r["python_steps_enqueue_us"]))
                if "runtime_call_enqueue_us" in r:
                    p("%-8s enqueue %8.2f   packing and tegula_kernel_launch alone"
                      % (impl, r["runtime_call_enqueue_us"]))
        imps = launch.get("impls", {})
        tg, tr = imps.get("tegula", {}), imps.get("triton", {})
        if "enqueue_us" in tg and tr.get("enqueue_us"):
            p("tegula / triton enqueue: %.2f (the goal: at most 0.50)"
              % (tg["enqueue_us"] / tr["enqueue_us"]))
        if "error" in launch:
            p("launch overhead: %s" % launch["error"][:200])


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        return "no plot: matplotlib does not import (%s)" % first_line(e)
    cases = [c for c in results["cases"] if c.get("impls") and c["key"] != "launch"]
    fig, axes = plt.subplots(1, 2, figsize=(15, 6))
    names = [c.get("name", c["key"]) for c in cases]
    ypos = range(len(cases))
    for i, other in enumerate(("triton", "torch")):
        vals = []
        for c in cases:
            tg, o = c["impls"].get("tegula", {}), c["impls"].get(other, {})
            vals.append(tg["median_ms"] / o["median_ms"]
                        if "median_ms" in tg and "median_ms" in o else 0)
        axes[0].barh([y + 0.4 * i for y in ypos], vals, height=0.4,
                     label="Tegula / %s" % other)
    axes[0].axvline(1.0, color="k", lw=0.8)
    axes[0].set_yticks([y + 0.2 for y in ypos])
    axes[0].set_yticklabels(names, fontsize=8)
    axes[0].set_xlabel("run time ratio (lower is better for Tegula; 0 = no data)")
    axes[0].legend()
    for i, impl in enumerate(("tegula", "triton")):
        vals = [c["impls"].get(impl, {}).get("compile_s", 0) for c in cases]
        axes[1].barh([y + 0.4 * i for y in ypos], vals, height=0.4, label=impl)
    axes[1].set_yticks([y + 0.2 for y in ypos])
    axes[1].set_yticklabels(names, fontsize=8)
    axes[1].set_xlabel("cold compile time, s")
    axes[1].legend()
    fig.suptitle("gpu_bench %s, %s" % (results["header"]["date"], results["header"]["gpu"]))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return None


def dry_run(args):
    """Imports, kernel files and arguments; no GPU, no runtime library."""
    problems = []
    import tegula  # noqa: F401  (pure Python: loads no library)
    cases = make_cases(args.quick)
    print("dry run: output folder %s" % args.out)
    for c in cases:
        if not wanted(args, c.key):
            continue
        path = os.path.join(CORPUS, c.file)
        try:
            stubs = load_tegula(c.file)
            if c.kernel not in stubs:
                problems.append("%s: no kernel %s in %s" % (c.key, c.kernel, c.file))
            mod = triton_source_module(path)
            names = {n.name for n in mod.body if isinstance(n, ast.FunctionDef)}
            if c.kernel not in names:
                problems.append("%s: Triton source of %s lacks %s" % (c.key, c.file, c.kernel))
            compile(mod, path, "exec")
        except Exception as e:
            problems.append("%s: %s" % (c.key, first_line(e)))
        print("  %-24s %-40s %s %s, %d input set(s) of %.0f MB, grid %s" % (
            c.key, c.name, c.file, c.kernel,
            max(1, min(8, math.ceil(ROTATE_BYTES / c.set_bytes()))), c.set_bytes() / 1e6,
            c.grid()))
    for name in ("torch", "triton", "matplotlib", "numpy"):
        try:
            import importlib.util
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        print("  %-10s %s" % (name, "importable" if found else "not found (needed on the GPU "
                              "machine)" if name in ("torch", "triton") else "not found"))
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "bench",
                                                                           "results"),
                    help="output folder (default: $OUT, else bench/results)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--dry-run", action="store_true",
                    help="check imports, kernel files and arguments only (no GPU)")
    ap.add_argument("--device", default="nvidia:0", help="the Tegula device (nvidia:N)")
    ap.add_argument("--only", default="",
                    help="comma-separated: corpus, launch, add, softmax, layernorm, matmul, "
                         "matmul_fp8, attention, warmstart (or a case key such as "
                         "matmul-8192); default all")
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help="implementations to run (default tegula,triton,torch)")
    ap.add_argument("--rep-ms", type=float, default=200.0, help="timed GPU ms per measurement")
    ap.add_argument("--warmup-ms", type=float, default=50.0)
    ap.add_argument("--compile-reps", type=int, default=3,
                    help="cold compiles per case and implementation (median reported)")
    ap.add_argument("--seed", type=int, help="input seed (default: random, recorded)")
    ap.add_argument("--case-timeout", type=int, default=240, help="seconds per case child")
    ap.add_argument("--corpus-timeout", type=int, default=300)
    ap.add_argument("--budget-s", type=float, default=560.0,
                    help="stop starting new cases after this many seconds (the GPU machine "
                         "allows 600 s a command)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--warm-impl", help=argparse.SUPPRESS)
    ap.add_argument("--cache-dir", help=argparse.SUPPRESS)
    ap.add_argument("--tag", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.only = {s for s in args.only.split(",") if s}
    args.impls = [s for s in args.impls.split(",") if s]
    bad = set(args.impls) - set(IMPLS)
    if bad:
        ap.error("unknown --impls %s" % ",".join(sorted(bad)))
    known = {"corpus", "launch", "add", "softmax", "layernorm", "matmul", "matmul_fp8",
             "attention", "warmstart"} | \
        {c.key for c in make_cases(args.quick)}
    if args.only - known:
        ap.error("unknown --only %s (known: %s)" % (",".join(sorted(args.only - known)),
                                                     ", ".join(sorted(known))))
    if not args.device.startswith("nvidia:") and not args.dry_run:
        print("note: --device %s is not an nvidia device; torch tensors need one"
              % args.device, file=sys.stderr)
    return args


def wanted(args, key):
    return not args.only or key in args.only or key.split("-")[0] in args.only


def main(argv=None):
    args = parse_args(argv)
    args.out = os.path.abspath(args.out)
    if args.dry_run:
        return dry_run(args)
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    if args.child == "warmstart":
        return warm_start_child(args)
    if args.child:
        return child(args)
    start = time.monotonic()
    results = {"header": header(args), "cases": []}
    log_path = os.path.join(args.out, "gpu_bench.log")
    with open(log_path, "w") as log:
        if wanted(args, "corpus") and "tegula" in args.impls:
            print("correctness: the corpus on %s ..." % args.device, flush=True)
            results["corpus"] = corpus_correctness(args, log)
        keys = ["launch"] + [c.key for c in make_cases(args.quick)]
        for key in keys:
            if not wanted(args, key):
                continue
            if time.monotonic() - start > args.budget_s:
                results["cases"].append({"key": key, "error": "skipped: time budget "
                                         "(--budget-s %.0f) spent" % args.budget_s})
                continue
            print("case %s ..." % key, flush=True)
            results["cases"].append(run_child(args, key, log))
        if wanted(args, "warmstart"):
            if time.monotonic() - start > args.budget_s:
                results["warmstart"] = {"key": "warmstart", "case": WARM_CASE, "impls": {},
                                        "error": "skipped: time budget spent"}
            else:
                print("warm start: %s in new processes ..." % WARM_CASE, flush=True)
                results["warmstart"] = warm_start(args, log)
    results["wall_s"] = time.monotonic() - start
    json_path = os.path.join(args.out, "gpu_bench.json")
    with open(json_path, "w") as f:
        json.dump(results, f, indent=2)
    note = plot(results, os.path.join(args.out, "gpu_bench.png"))
    with open(os.path.join(args.out, "gpu_bench.txt"), "w") as f:
        print_table(results, f)
    print_table(results)
    print()
    print("wrote %s, %s%s (log: %s)" % (json_path, os.path.join(args.out, "gpu_bench.txt"),
                                        "" if note else ", gpu_bench.png", log_path))
    if note:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
