"""Triton's host API under `import tegula as triton`, on the host CPU with
real kernels: cdiv, next_power_of_2, constexpr, Config, autotune,
heuristics, the @jit options, warmup, tegula.testing (do_bench,
do_bench_cudagraph, assert_close, perf_report), tegula.runtime.driver, and
the NumPy programs of triton_programs/ (in the shape of Triton's tutorials
01 to 04, written for these tests; test_tutorials_torch.py runs the torch
programs) run as programs.

Outputs are poisoned (NaN) before each launch and checked against NumPy.
The kernels live in kernels/triton_api_kernels.py (the compiler reads the
kernel's whole file). Every launch goes to the default device, which is
host:0 under TEGULA_VISIBLE_BACKENDS=host (the ctest `python.host`)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from program_support import check_exit, perf_table, start_program
import tegula
import tegula as triton
import tegula.language as tl
from tegula import _launch, testing

from kernels import triton_api_kernels as K

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module", autouse=True)
def on_host():
    dev = tegula.default_device()
    if dev.backend != "host":
        pytest.skip("these tests launch on the default device, which is %s, not the host "
                    "(run with TEGULA_VISIBLE_BACKENDS=host)" % dev.name)
    triton.runtime.driver.active.set_current_device(dev)
    return dev


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


def grid_1d(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


class FakeBench:
    """A do_bench that runs the call |calls| times and reports the time
    |times| gives for the BLOCK_SIZE the grid saw: a known winner."""

    def __init__(self, times=None, calls=1):
        self.times = times or {}
        self.calls = calls
        self.blocks = []      # BLOCK_SIZE of each benchmark
        self.grid_metas = []  # what the grid callable was given

    def grid(self, meta):
        self.grid_metas.append(dict(meta))
        return grid_1d(meta)

    def __call__(self, fn, quantiles):
        n = len(self.grid_metas)
        for _ in range(self.calls):
            fn()
        block = self.grid_metas[n]["BLOCK_SIZE"]
        self.blocks.append(block)
        t = float(self.times.get(block, 1.0))
        return [t, t * 0.9, t * 1.1]


# -- cdiv, next_power_of_2, constexpr, Config -------------------------------------------


def test_cdiv_next_power_of_2_constexpr():
    assert [triton.cdiv(n, 32) for n in (0, 1, 32, 33, 1000)] == [0, 1, 1, 2, 32]
    assert [triton.next_power_of_2(n) for n in (0, 1, 2, 3, 17, 64, 65, 1000)] == \
        [1, 1, 2, 4, 32, 64, 128, 1024]
    assert triton.constexpr is tl.constexpr
    assert triton.constexpr(8).value == 8


def test_config():
    c = triton.Config({"BLOCK_SIZE": 128}, num_warps=8)
    assert str(c) == "BLOCK_SIZE: 128, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None"
    assert repr(c) == "Config(%s)" % c
    assert c.all_kwargs() == {"BLOCK_SIZE": 128, "num_warps": 8, "num_ctas": 1,
                              "num_stages": 3}
    d = triton.Config({"BLOCK_SIZE": 128}, num_warps=8, num_stages=2, maxnreg=128)
    assert d.all_kwargs()["maxnreg"] == 128 and d.all_kwargs()["num_stages"] == 2
    assert c == triton.Config({"BLOCK_SIZE": 128}, num_warps=8) and c != d
    assert len({c, triton.Config({"BLOCK_SIZE": 128}, num_warps=8), d}) == 2
    assert triton.runtime.Config is triton.Config


# -- autotune ----------------------------------------------------------------------------


def test_autotune_picks_the_fastest_and_caches_by_key(rng):
    bench = FakeBench(times={32: 3.0, 64: 1.0, 128: 2.0})
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench)(
        K.add_kernel)
    assert isinstance(kernel, triton.runtime.Autotuner)
    assert kernel.configs == K.CONFIGS and kernel.cache == {}

    def run(n):
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        out = np.full(n, np.nan, np.float32)
        kernel[bench.grid](x, y, out, n)
        np.testing.assert_array_equal(out, x + y)

    run(1000)
    assert bench.blocks == [32, 64, 128]  # each config once
    assert kernel.best_config == K.CONFIGS[1]
    assert kernel.cache == {(1000, "float32", "float32", "float32"): K.CONFIGS[1]}
    assert set(kernel.configs_timings) == set(K.CONFIGS)
    # The grid saw every argument and the config's meta-parameters.
    final = bench.grid_metas[-1]
    assert final["BLOCK_SIZE"] == 64 and final["n_elements"] == 1000
    assert set(final) >= {"x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"}

    run(1000)  # same key: no benchmark
    run(1000)
    assert len(bench.blocks) == 3
    assert bench.grid_metas[-1]["BLOCK_SIZE"] == 64

    run(777)  # a new key benchmarks again
    assert len(bench.blocks) == 6 and len(kernel.cache) == 2
    assert kernel.cache[(777, "float32", "float32", "float32")] == K.CONFIGS[1]

    # The dtypes of the arrays are part of the key.
    x = rng.random(1000).astype(np.float64)
    out = np.full(1000, np.nan)
    kernel[bench.grid](x, x, out, 1000)
    np.testing.assert_array_equal(out, x + x)
    assert len(bench.blocks) == 9 and (1000, "float64", "float64", "float64") in kernel.cache


def test_autotune_with_do_bench_and_printing(rng, monkeypatch, capsys):
    monkeypatch.setenv("TEGULA_PRINT_AUTOTUNING", "1")
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], warmup=1, rep=2)(
        K.add_kernel)
    n = 3000
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    kernel[grid_1d](x, y, out, n)
    np.testing.assert_array_equal(out, x + y)
    for config, times in kernel.configs_timings.items():
        assert len(times) == 3 and all(0 < t < 1e3 for t in times), (config, times)
    best = min(kernel.configs_timings, key=kernel.configs_timings.get)
    assert kernel.best_config == best
    printed = capsys.readouterr().out
    for c in K.CONFIGS:
        assert "Autotuning kernel add_kernel with config %s\n" % c in printed
    assert ("Triton autotuning for function add_kernel,\nwith key as (3000, 'float32', "
            "'float32', 'float32'),\nfinished after ") in printed
    assert re.search(r"finished after \d+\.\d\ds,\nbest config selected: %s;\n"
                     % re.escape(str(best)), printed)
    kernel[grid_1d](x, y, out, n)  # from the cache: nothing printed
    assert capsys.readouterr().out == ""

    # Triton's variable does the same; unset, nothing is printed.
    monkeypatch.setenv("TEGULA_PRINT_AUTOTUNING", "0")
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    kernel[grid_1d](x, y, out, 2999)
    assert "Triton autotuning for function add_kernel" in capsys.readouterr().out
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING")
    kernel[grid_1d](x, y, out, 2998)
    assert capsys.readouterr().out == ""


def test_autotune_default_benchmark():
    # No do_bench, no warmup/rep: testing.do_bench with Triton's defaults.
    kernel = triton.autotune(configs=K.CONFIGS[:2], key=["n_elements"])(K.add_kernel)
    assert kernel.do_bench is testing.do_bench
    n = 256
    x = np.arange(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    kernel[grid_1d](x, x, out, n)
    np.testing.assert_array_equal(out, 2 * x)
    assert all(np.isfinite(t).all() and min(t) > 0 for t in kernel.configs_timings.values())


def test_reset_to_zero_between_configs(rng):
    n = 1000
    x = rng.random(n, dtype=np.float32)

    def tuned(**kw):
        bench = FakeBench(calls=3)  # as do_bench, several runs per config
        return bench, triton.autotune(configs=K.CONFIGS, key=["n_elements"],
                                      do_bench=bench, **kw)(K.sum_atomic)

    bench, kernel = tuned(reset_to_zero=["out_ptr"])
    out = np.full(1, np.nan, np.float32)  # NaN: only a reset makes it a number
    kernel[bench.grid](x, out, n)
    assert len(bench.blocks) == 3
    np.testing.assert_allclose(out[0], x.sum(dtype=np.float64), rtol=1e-5)

    # Without the reset every benchmark run adds to the output.
    bench, kernel = tuned()
    out = np.zeros(1, np.float32)
    kernel[bench.grid](x, out, n)
    np.testing.assert_allclose(out[0], 10 * x.sum(dtype=np.float64), rtol=1e-4)

    # A tegula.Buffer is zeroed too.
    bench, kernel = tuned(reset_to_zero=["out_ptr"])
    buf = tegula.from_numpy(np.full(1, 5.0, np.float32))
    kernel[bench.grid](x, buf, n)
    np.testing.assert_allclose(buf.to_numpy()[0], x.sum(dtype=np.float64), rtol=1e-5)


def test_restore_value(rng):
    n = 500
    x0 = rng.integers(0, 1000, n).astype(np.float32)  # exact sums
    bench = FakeBench(calls=2)
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench,
                             restore_value=["x_ptr"])(K.increment)
    x = x0.copy()
    kernel[bench.grid](x, n)
    assert len(bench.blocks) == 3
    np.testing.assert_array_equal(x, x0 + 1)  # once, after 6 benchmark runs

    bench = FakeBench(calls=2)
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench)(
        K.increment)
    x = x0.copy()
    kernel[bench.grid](x, n)
    np.testing.assert_array_equal(x, x0 + 7)


def test_user_pre_and_post_hooks(rng):
    seen = []
    bench = FakeBench()
    kernel = triton.autotune(
        configs=K.CONFIGS, key=["n_elements"], do_bench=bench,
        pre_hook=lambda args, reset_only=False: seen.append(("pre", args["BLOCK_SIZE"],
                                                             reset_only)),
        post_hook=lambda args, exception: seen.append(("post", args["BLOCK_SIZE"],
                                                       exception)))(K.add_kernel)
    n = 100
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    kernel[bench.grid](x, x, out, n)
    np.testing.assert_array_equal(out, x + x)
    assert seen == [("pre", 32, False), ("post", 32, None), ("pre", 64, False),
                    ("post", 64, None), ("pre", 128, False), ("post", 128, None),
                    ("pre", 32, True)]  # the winner, reset once more before the real run

    # A config's own pre_hook runs before each of its launches.
    calls = []
    configs = [triton.Config({"BLOCK_SIZE": 64}, num_warps=1,
                             pre_hook=lambda args: calls.append(args["n_elements"]))]
    kernel = triton.autotune(configs=configs, key=[])(K.add_kernel)
    kernel[grid_1d](x, x, out, n)
    assert calls == [n]


def test_prune_configs_by(rng):
    n = 1000
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)

    pruned_with = []

    def early(configs, named_args, **kwargs):
        pruned_with.append((len(configs), sorted(named_args), sorted(kwargs)))
        return [c for c in configs if c.kwargs["BLOCK_SIZE"] >= 64]

    bench = FakeBench()
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench,
                             prune_configs_by={"early_config_prune": early})(K.add_kernel)
    kernel[bench.grid](x, x, out, n)
    assert bench.blocks == [64, 128]
    assert pruned_with == [(3, ["n_elements", "out_ptr", "x_ptr", "y_ptr"],
                            ["grid", "warmup"])]
    np.testing.assert_array_equal(out, x + x)

    # perf_model ranks the configs; top_k=1 leaves one: nothing is benchmarked.
    models = []

    def model(**kwargs):
        models.append(kwargs["BLOCK_SIZE"])
        assert kwargs["n_elements"] == n and kwargs["num_warps"] == 1
        return {32: 5.0, 64: 9.0, 128: 1.0}[kwargs["BLOCK_SIZE"]]

    bench = FakeBench()
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench,
                             prune_configs_by={"perf_model": model, "top_k": 1})(K.add_kernel)
    out[:] = np.nan
    kernel[bench.grid](x, x, out, n)
    assert sorted(models) == [32, 64, 128] and bench.blocks == []
    assert kernel.best_config.kwargs == {"BLOCK_SIZE": 128}
    np.testing.assert_array_equal(out, x + x)

    # top_k=2 benchmarks the two the model ranks first.
    bench = FakeBench()
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench,
                             prune_configs_by={"perf_model": model, "top_k": 2})(K.add_kernel)
    kernel[bench.grid](x, x, out, n)
    assert bench.blocks == [128, 32]

    with pytest.raises(RuntimeError, match="No valid autotuner configs after pruning"):
        triton.autotune(configs=K.CONFIGS, key=["n_elements"],
                        prune_configs_by={"early_config_prune": lambda c, a, **k: []})(
            K.add_kernel)[grid_1d](x, x, out, n)


def test_config_that_does_not_compile_is_skipped(rng, monkeypatch, capsys):
    monkeypatch.setenv("TEGULA_PRINT_AUTOTUNING", "1")
    bench = FakeBench(times={32: 2.0, 64: 1.0})
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=bench)(
        K.block_limited)
    n = 300
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    kernel[bench.grid](x, out, n)
    np.testing.assert_array_equal(out, 2 * x)
    assert bench.blocks == [32, 64]  # 128 fails tl.static_assert: not run
    assert kernel.configs_timings[K.CONFIGS[2]] == [float("inf")] * 3
    assert kernel.best_config == K.CONFIGS[1]
    printed = capsys.readouterr().out
    assert "Autotuning failed with %s:65:5: error: static_assert failed" % K.__file__ \
        in printed


def test_conflicting_meta_parameters():
    kernel = triton.autotune(configs=K.CONFIGS, key=["n_elements"], do_bench=FakeBench())(
        K.add_kernel)
    x = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK_SIZE"):
        kernel[grid_1d](x, x, x, 16, BLOCK_SIZE=32)
    with pytest.raises(ValueError, match="autotune key names 'n', which is no parameter"):
        triton.autotune(configs=K.CONFIGS, key=["n"])(K.add_kernel)


def test_single_config_is_not_benchmarked(rng):
    bench = FakeBench()
    kernel = triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 64}, num_warps=2)],
                             key=["n_elements"], do_bench=bench)(K.add_kernel)
    n = 200
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    ck = kernel[grid_1d](x, x, out, n)
    np.testing.assert_array_equal(out, x + x)
    assert bench.blocks == [] and ck.requested == (2, 3)
    assert kernel.best_config.num_warps == 2


# -- heuristics ---------------------------------------------------------------------------


def _even_heuristics(seen):
    def even(args):
        seen.append(dict(args))
        return args["n"] % args["BLOCK_SIZE"] == 0
    return triton.heuristics({"BLOCK_SIZE": lambda args: triton.next_power_of_2(args["n"]),
                              "EVEN": even})


def test_heuristics(rng):
    seen = []
    kernel = _even_heuristics(seen)(K.scale_even)
    assert isinstance(kernel, triton.runtime.Heuristics)
    for n, even in ((100, False), (64, True)):
        x = rng.random(triton.next_power_of_2(n), dtype=np.float32)
        out = np.full(x.size, np.nan, np.float32)
        ck = kernel[(1,)](x, out, n, 3.0)
        np.testing.assert_allclose(out[:n], x[:n] * 3.0, rtol=1e-6)
        assert np.isnan(out[n:]).all()  # the mask held
        assert ck.signature.endswith(", %d, %s" % (triton.next_power_of_2(n), even))
        # EVEN saw BLOCK_SIZE, computed before it.
        assert seen[-1]["BLOCK_SIZE"] == triton.next_power_of_2(n) and seen[-1]["n"] == n


def test_autotune_over_heuristics_and_heuristics_over_autotune(rng):
    # Triton's order: @autotune, then @heuristics, then @jit.
    bench = FakeBench()
    seen = []
    metas = []
    kernel = triton.autotune(configs=[triton.Config({}, num_warps=1),
                                      triton.Config({}, num_warps=2)],
                             key=["n"], do_bench=lambda fn, quantiles: (fn(), [1.0] * 3)[1])(
        _even_heuristics(seen)(K.scale_even))
    n = 48
    x = rng.random(64, dtype=np.float32)
    out = np.full(64, np.nan, np.float32)
    ck = kernel[lambda meta: (metas.append(meta), (1,))[1]](x, out, n, 0.5)
    np.testing.assert_allclose(out[:n], x[:n] * 0.5, rtol=1e-6)
    assert ck.signature.endswith(", 64, False")
    assert all(m["BLOCK_SIZE"] == 64 for m in metas)
    assert {s["num_warps"] for s in seen} == {1, 2}  # heuristics see the config
    assert kernel.best_config in kernel.configs and bench.blocks == []

    # The other way round: the heuristic runs first, autotune picks BLOCK_SIZE.
    bench = FakeBench(times={64: 2.0, 128: 1.0})
    inner = triton.autotune(configs=[triton.Config({"BLOCK_SIZE": b}, num_warps=1)
                                     for b in (64, 128)], key=["n"], do_bench=bench)(
        K.scale_even)
    kernel = triton.heuristics({"EVEN": lambda args: False})(inner)
    out[:] = np.nan
    kernel[lambda meta: (bench.grid_metas.append(meta), (1,))[1]](x, out, n, 2.0)
    np.testing.assert_allclose(out[:n], x[:n] * 2.0, rtol=1e-6)
    assert bench.blocks == [64, 128] and inner.best_config.kwargs == {"BLOCK_SIZE": 128}


# -- @jit options, warmup, run --------------------------------------------------------------


def test_do_not_specialize(rng, monkeypatch):
    kernel = K.copy_nospec
    assert kernel.do_not_specialize == ("n_elements",) and kernel.debug is False
    before = kernel.compile_count
    for n in (64, 65, 1, 128):  # :16, none, :1, :16 for a specialized parameter
        x = rng.random(n, dtype=np.float32)
        out = np.full(n, np.nan, np.float32)
        ck = kernel[grid_1d](x, out, n, BLOCK_SIZE=64)
        np.testing.assert_array_equal(out, x)
        assert ck.signature == "*fp32:16, *fp32:16, i32, 64"
    assert kernel.compile_count - before == 1
    # By keyword too.
    ck = kernel[grid_1d](x, out, n_elements=32, BLOCK_SIZE=64)
    assert ck.signature == "*fp32:16, *fp32:16, i32, 64"

    # do_not_specialize_on_alignment (by index): 1 stays special, 16 does not.
    k2 = K.copy_unaligned
    assert k2.do_not_specialize_on_alignment == ("n_elements",)
    sigs = set()
    for n in (64, 1, 48):
        x = rng.random(n, dtype=np.float32)
        out = np.full(n, np.nan, np.float32)
        sigs.add(k2[grid_1d](x, out, n, BLOCK_SIZE=64).signature)
        np.testing.assert_array_equal(out, x)
    assert sigs == {"*fp32:16, *fp32:16, i32, 64", "*fp32:16, *fp32:16, i32:1, 64"}

    # After the first launch of each kind, the ints of such parameters go
    # through the launcher's entries: their key keeps only what the
    # specialization keeps.
    full = []
    real = _launch._full_launch

    def counted(*args, **kwargs):
        full.append(args[0].__name__)
        return real(*args, **kwargs)
    monkeypatch.setattr(_launch, "_full_launch", counted)
    for kernel in (K.copy_nospec, K.copy_unaligned):
        kernel._fast = None
        for n in (64, 65, 1, 128, 48, 1, 16):
            x = rng.random(n, dtype=np.float32)
            out = np.full(n, np.nan, np.float32)
            kernel[grid_1d](x, out, n, BLOCK_SIZE=64)
            np.testing.assert_array_equal(out, x)
    # copy_nospec: every i32 is one kind; copy_unaligned: 1 is another.
    assert full == ["copy_nospec", "copy_unaligned", "copy_unaligned"]
    assert K.copy_nospec._fast.key(grid_1d, x, out, 7, BLOCK_SIZE=64) == \
        K.copy_nospec._fast.key(grid_1d, x, out, 16, BLOCK_SIZE=64)
    assert K.copy_nospec._fast.key(grid_1d, x, out, 7, BLOCK_SIZE=64) != \
        K.copy_nospec._fast.key(grid_1d, x, out, 2 ** 40, BLOCK_SIZE=64)  # i64
    assert K.copy_unaligned._fast.key(grid_1d, x, out, 1, BLOCK_SIZE=64) != \
        K.copy_unaligned._fast.key(grid_1d, x, out, 16, BLOCK_SIZE=64)

    # A plain kernel does specialize.
    x = np.zeros(64, np.float32)
    assert K.add_kernel[grid_1d](x, x, x, 64, BLOCK_SIZE=64).signature.split(", ")[3] == \
        "i32:16"

    with pytest.raises(ValueError, match="do_not_specialize names 'm', which is no parameter"):
        tegula.jit(do_not_specialize=["m"])(K.copy_nospec.fn)
    with pytest.raises(ValueError, match="index 7 is out of range"):
        tegula.jit(do_not_specialize=[7])(K.copy_nospec.fn)
    k = tegula.jit(repr=lambda spec: "copy<%s>" % spec, launch_metadata=None,
                   noinline=True)(K.copy_nospec.fn)
    assert k.repr("x") == "copy<x>" and k.noinline is True
    assert K.add_kernel.repr(None) == "add_kernel"


def test_launch_keyword_that_names_a_parameter_sets_both():
    """Tutorial 02's softmax_kernel has a `num_stages: tl.constexpr`; Triton
    binds `num_stages=` of warmup and of a launch to it as well as taking it
    as the launch option."""
    out = np.full(16, -1, np.int32)
    ck = K.stages_param.warmup(out, BLOCK_SIZE=16, num_stages=2, grid=(1,))
    assert ck.signature == "*i32:16, 16, 2" and ck.requested == (4, 2)
    assert (out == -1).all()
    # Triton's launch of the compiled kernel, every argument positional.
    ck[(1,)](out, 16, 2)
    np.testing.assert_array_equal(out, 2)
    K.stages_param[(1,)](out, BLOCK_SIZE=16, num_stages=5, num_warps=2)
    np.testing.assert_array_equal(out, 5)
    ck5 = K.stages_param.warmup(out, BLOCK_SIZE=16, num_stages=5, num_warps=2)
    assert ck5.signature == "*i32:16, 16, 5" and ck5.requested == (2, 5)
    # Given positionally, the parameter keeps its value; the keyword is the option.
    K.stages_param[(1,)](out, 16, 4, num_stages=1)
    np.testing.assert_array_equal(out, 4)
    # Without the keyword the parameter has no value: Python's error.
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'num_stages'"):
        K.stages_param[(1,)](out, BLOCK_SIZE=16)


def test_set_allocator_is_kept_and_never_called():
    """tutorial 06 calls triton.set_allocator; no Tegula kernel asks for
    scratch memory, so the allocator is kept and never called."""
    calls = []
    triton.set_allocator(lambda size, align, stream: calls.append(size))
    try:
        assert tegula._allocator is not None
        with pytest.raises(TypeError, match="set_allocator takes a function"):
            triton.set_allocator(42)
    finally:
        triton.set_allocator(None)
    assert tegula._allocator is None and calls == []


def test_warmup_compiles_without_launching(rng):
    fn = tegula.jit(K.add_kernel.fn)  # a kernel of its own: its own compile count
    n = 100
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    ck = fn.warmup(x, x, out, n, BLOCK_SIZE=32, grid=grid_1d)
    assert isinstance(ck, tegula._launch.CompiledKernel)
    assert ck.signature == "*fp32:16, *fp32:16, *fp32:16, i32, 32"
    assert fn.compile_count == 1 and np.isnan(out).all()  # nothing ran
    fn[grid_1d](x, x, out, n, BLOCK_SIZE=32)
    assert fn.compile_count == 1  # the launch found the warmed-up kernel
    np.testing.assert_array_equal(out, x + x)
    # Triton's launch of what warmup returned: every argument, constexprs too.
    ck._init_handles()
    assert ck.metadata.num_warps == ck.num_warps and ck.metadata.shared == ck.shared_memory
    assert ck.metadata.name == "add_kernel" and ck.metadata.num_stages == 3
    # The host plugin cannot tell registers or spills: 0, as Triton's CPU
    # backend reports them; n_max_threads is the device's limit.
    assert (ck.n_regs, ck.n_spills) == (0, 0)
    assert ck.n_max_threads == ck.device.max_threads_per_block
    assert ck.attributes.registers is None and ck.attributes.spills is None
    out[:] = np.nan
    assert ck[(triton.cdiv(n, 32),)](x, x, out, n, 32) is ck
    np.testing.assert_array_equal(out, x + x)
    assert fn.compile_count == 1

    # dtypes in place of arrays, as Triton's warmup takes them.
    ck = fn.warmup(tl.float32, np.float32, np.dtype("float32"), 64, BLOCK_SIZE=32,
                   num_warps=2, grid=(1,))
    assert ck.signature == "*fp32:16, *fp32:16, *fp32:16, i32:16, 32"
    assert ck.requested == (2, 3) and fn.compile_count == 2
    ck = fn.warmup(triton.MockTensor(np.float32), triton.MockTensor(tl.float32),
                   triton.MockTensor.wrap_dtype(np.float32), 64, BLOCK_SIZE=32,
                   num_warps=2, grid=(1,))
    assert ck.signature == "*fp32:16, *fp32:16, *fp32:16, i32:16, 32"
    assert fn.compile_count == 2 and triton.MockTensor.data_ptr() == 0
    with pytest.raises(ValueError, match="grid dimension x is 0"):
        fn.warmup(x, x, out, n, BLOCK_SIZE=32, grid=(0,))

    # Autotune's warmup compiles every config; run() is Triton's entry point.
    tuned = triton.autotune(configs=K.CONFIGS, key=["n_elements"])(tegula.jit(K.add_kernel.fn))
    kernels = tuned.warmup(x, x, out, n, grid=grid_1d)
    assert [k.signature.rsplit(", ", 1)[1] for k in kernels] == ["32", "64", "128"]
    out[:] = np.nan
    fn.run(x, x, out, n, BLOCK_SIZE=64, grid=grid_1d, warmup=False)
    np.testing.assert_array_equal(out, x + x)


def test_reinterpret(rng, monkeypatch):
    # fp16 values held in uint16 arrays, passed as fp16 (as Triton passes fp8
    # data held in uint8 tensors).
    n = 100
    x, y = rng.random(n).astype(np.float16), rng.random(n).astype(np.float16)
    xb, yb = x.view(np.uint16), y.view(np.uint16)
    out = np.full(n, 0xFFFF, np.uint16)  # NaN bits
    fn = tegula.jit(K.add_kernel.fn)
    full = []
    real = _launch._full_launch
    monkeypatch.setattr(_launch, "_full_launch",
                        lambda *a, **k: full.append(1) or real(*a, **k))
    wrapped = [triton.reinterpret(a, tl.float16) for a in (xb, yb, out)]
    for _ in range(3):
        out[:] = 0xFFFF
        ck = fn[grid_1d](*wrapped, n, BLOCK_SIZE=64)
        np.testing.assert_array_equal(out.view(np.float16), x + y)
    assert ck.signature.split(", ")[:3] == ["*fp16:16" if a.ctypes.data % 16 == 0 else "*fp16"
                                            for a in (xb, yb, out)]
    assert len(full) == 1  # the launcher takes wrapped arrays from the second launch
    assert isinstance(wrapped[0], triton.TensorWrapper) and wrapped[0].base is xb
    assert triton.reinterpret(wrapped[0], xb.dtype) is xb
    assert triton.reinterpret(wrapped[0], tl.float32).dtype is tl.float32
    assert triton.runtime.reinterpret is triton.reinterpret
    with pytest.raises(TypeError, match="Cannot reinterpret a <class 'int'>"):
        triton.reinterpret(5, tl.float16)
    with pytest.raises(TypeError, match="argument 'x_ptr' .a TensorWrapper.: no Triton "
                                        "element type for dtype complex64"):
        fn[grid_1d](triton.reinterpret(xb, np.complex64), yb, out, n, BLOCK_SIZE=64)


def test_num_ctas_and_maxnreg(rng):
    n = 64
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    K.add_kernel[grid_1d](x, x, out, n, BLOCK_SIZE=64, num_ctas=1, maxnreg=128)
    np.testing.assert_array_equal(out, x + x)
    with pytest.raises(ValueError, match="num_ctas=2: only 1 is supported"):
        K.add_kernel[grid_1d](x, x, out, n, BLOCK_SIZE=64, num_ctas=2)


# -- tegula.testing ------------------------------------------------------------------------


def test_do_bench(rng):
    n = 4096
    x = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    calls = []

    def fn():
        calls.append(1)
        K.add_kernel[grid_1d](x, x, out, n, BLOCK_SIZE=128)

    ms = testing.do_bench(fn, warmup=1, rep=5)
    assert isinstance(ms, float) and 0 < ms < 1e3
    assert len(calls) >= 1 + 5 + 1 + 1  # the first call, the estimate, warmup, reps
    np.testing.assert_array_equal(out, x + x)

    q = testing.do_bench(fn, warmup=1, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert isinstance(q, list) and len(q) == 3 and q[1] <= q[0] <= q[2] and q[1] > 0
    one = testing.do_bench(fn, warmup=1, rep=5, quantiles=[0.5])
    assert isinstance(one, float) and one > 0
    times = testing.do_bench(fn, warmup=1, rep=5, return_mode="all")
    assert isinstance(times, list) and len(times) >= 1 and all(t > 0 for t in times)
    lo = testing.do_bench(fn, warmup=1, rep=5, return_mode="min")
    hi = testing.do_bench(fn, warmup=1, rep=5, return_mode="max")
    med = testing.do_bench(fn, warmup=1, rep=5, return_mode="median")
    assert 0 < lo and 0 < med and 0 < hi
    with pytest.raises(AssertionError):
        testing.do_bench(fn, return_mode="mode")

    # A sleep of 2 ms is measured as at least that.
    import time
    assert testing.do_bench(lambda: time.sleep(0.002), warmup=1, rep=10) >= 2.0

    # grad_to_none clears .grad before each repetition.
    class T:
        grad = "old"
    t = T()
    seen = []
    testing.do_bench(lambda: seen.append(t.grad), warmup=1, rep=1, grad_to_none=[t])
    assert seen[-1] is None

    # The statistics are torch's: lower median, linear quantiles.
    assert testing._summarize_statistics([4.0, 1.0, 3.0, 2.0], None, "median") == 2.0
    assert testing._summarize_statistics([1.0, 2.0, 3.0, 4.0], [0.5], "mean") == 2.5
    assert testing._summarize_statistics([1.0, 2.0, 3.0], None, "mean") == 2.0


def test_do_bench_cudagraph_falls_back_to_do_bench(rng):
    calls = []
    ms = testing.do_bench_cudagraph(lambda: calls.append(1), rep=2)
    assert isinstance(ms, float) and ms > 0 and len(calls) > 5
    q = testing.do_bench_cudagraph(lambda: None, rep=1, quantiles=[0.2, 0.8])
    assert len(q) == 2 and 0 < q[0] <= q[1]


def test_assert_close(on_host):
    x = np.linspace(0, 1, 100, dtype=np.float32)
    testing.assert_close(x, x + 0.005)  # within the default atol of 1e-2
    testing.assert_close(x, x * (1 + 1e-3), atol=0, rtol=2e-3)
    testing.assert_close(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    testing.assert_close(0.5, 0.505)
    testing.assert_close(x, x + 1e-4, atol=lambda dt: 1e-3 if dt == np.float32 else 0)
    # tegula Buffers compare by their contents.
    testing.assert_close(tegula.from_numpy(x, device=on_host), x)

    y = x.copy()
    y[37] += 0.5
    with pytest.raises(AssertionError, match=r"(?s)kernel output.*Mismatched elements: 1 / 100"):
        testing.assert_close(y, x, err_msg="kernel output")
    with pytest.raises(AssertionError, match=r"scalar 0\.5 is not close to 0\.6 "
                       r"\(atol=0\.01, rtol=0\.0\)"):
        testing.assert_close(0.5, 0.6, err_msg="scalar")
    with pytest.raises(AssertionError):
        testing.assert_close(x, x + 0.005, atol=1e-3)


def _report(x_vals=(1, 2, 4), **kw):
    calls = []

    @testing.perf_report(testing.Benchmark(
        x_names=["n"], x_vals=list(x_vals), line_arg="provider", line_vals=["a", "b"],
        line_names=["A", "B"], styles=[("blue", "-"), ("green", "-")], ylabel="ms",
        plot_name="test-report", args={"scale": 10}, **kw))
    def bench(n, provider, scale):
        calls.append((n, provider, scale))
        v = n * 1.5 if provider == "a" else n * scale + 0.25
        return v, v - 1, v + 1

    return bench, calls


def test_perf_report_prints_the_table(capsys):
    bench, calls = _report()
    assert bench.run(print_data=True) is None
    assert calls == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10),
                     (4, "b", 10)]
    # What pandas' DataFrame.to_string prints for these float64 columns.
    assert capsys.readouterr().out == (
        "test-report:\n"
        "     n    A      B\n"
        "0  1.0  1.5  10.25\n"
        "1  2.0  3.0  20.25\n"
        "2  4.0  6.0  40.25\n")
    df = bench.run(return_df=True)
    assert list(df.columns) == ["n", "A", "B"] and list(df["B"]) == [10.25, 20.25, 40.25]


def test_perf_report_save_path(tmp_path, capsys):
    bench, _ = _report(x_vals=[(3,), (1000,)])
    try:
        import matplotlib  # noqa: F401
        have_plots = True
    except ImportError:
        have_plots = False
    if have_plots:
        bench.run(save_path=str(tmp_path))
        assert (tmp_path / "test-report.png").exists()
    else:
        with pytest.warns(UserWarning, match="matplotlib is not installed, so there is no "
                          "plot for 'test-report' \\(the CSV is written\\)"):
            bench.run(save_path=str(tmp_path))
        assert not (tmp_path / "test-report.png").exists()
    assert (tmp_path / "test-report.csv").read_text() == (
        "n,A,B\n"
        "3.000000,4.500000,30.250000\n"
        "1000.000000,1500.000000,10000.250000\n")
    assert (tmp_path / "results.html").exists()
    assert capsys.readouterr().out == ""


# -- tegula.runtime ------------------------------------------------------------------------


def test_runtime_names_and_driver(on_host):
    rt = triton.runtime
    assert rt.Autotuner is tegula._autotuner.Autotuner
    assert rt.Heuristics is tegula._autotuner.Heuristics
    assert rt.JITFunction is tegula.JITFunction and isinstance(K.add_kernel, rt.JITFunction)
    assert rt.autotune is triton.autotune and rt.heuristics is triton.heuristics
    from tegula.runtime import driver
    from tegula.runtime.driver import driver as same
    from tegula.runtime.jit import JITFunction  # noqa: F401
    from tegula.runtime.autotuner import Autotuner, Config  # noqa: F401
    assert driver is same
    # Still the process-wide Runtime when called.
    assert isinstance(tegula.runtime(), tegula.Runtime)
    assert tegula.runtime() is tegula.runtime()

    active = driver.active
    assert active.get_current_device() == 0
    assert active.get_current_tegula_device() == on_host
    assert active.backend == "host"
    assert active.get_current_stream() is None
    target = active.get_current_target()
    assert (target.backend, target.arch, target.warp_size) == ("host", on_host.arch,
                                                               on_host.warp_size)
    try:
        import torch
        assert active.get_active_torch_device() == torch.device("cpu")
    except ImportError:
        assert active.get_active_torch_device() == on_host

    props = active.utils.get_device_properties(active.get_current_device())
    assert props["multiprocessor_count"] == on_host.compute_units > 0
    assert props["max_shared_mem"] == on_host.shared_memory_per_block
    assert props["warpSize"] == on_host.warp_size
    assert props["sm_clock_rate"] == on_host.clock_khz
    assert props["max_num_regs"] is None  # the host has no register file to report
    assert props["device"] == on_host
    # DEVICE.index, as tutorial 02 passes it, where DEVICE is the tegula.Device
    # get_active_torch_device() gives without torch.
    assert on_host.index == 0
    assert active.utils.get_device_properties(on_host.index)["device"] == on_host
    assert active.utils.get_device_properties("host:0")["arch"] == on_host.arch
    assert active.utils.get_device_properties(on_host)["backend"] == "host"
    with pytest.raises(tegula.TegulaError):
        active.utils.get_device_properties(5)

    di = active.get_device_interface()
    di.synchronize()
    e0, e1 = di.Event(enable_timing=True), di.Event(enable_timing=True)
    e0.record()
    e1.record()
    assert 0 <= e0.elapsed_time(e1) < 1e3
    assert di.current_device() == 0 and di.device_count() >= 1
    assert active.get_benchmarker() is testing.do_bench
    cache = active.get_empty_cache_for_benchmark()
    active.clear_cache(cache)
    assert cache.array.size >= 1 << 20 and not cache.array.any()


def test_import_triton_file_sees_the_triton_modules(tmp_path, rng):
    path = tmp_path / "prog.py"
    path.write_text(
        "import triton\n"
        "import triton.language as tl\n"
        "import triton.testing\n"
        "from triton.runtime import driver\n"
        "from triton.runtime.autotuner import Config\n"
        "\n"
        "@triton.autotune(configs=[Config({'BLOCK': 32}), Config({'BLOCK': 64})],\n"
        "                 key=['n'], do_bench=lambda fn, quantiles: (fn(), [1, 1, 1])[1])\n"
        "@triton.jit\n"
        "def double(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    m = offs < n\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)\n"
        "\n"
        "NUM_SM = driver.active.utils.get_device_properties(\n"
        "    driver.active.get_current_device())['multiprocessor_count']\n"
        "BENCH = triton.testing.do_bench\n")
    mod = tegula.import_triton_file(path)
    assert "triton" not in sys.modules or sys.modules["triton"] is not tegula
    assert mod.NUM_SM >= 1 and mod.BENCH is testing.do_bench
    x0 = rng.random(100, dtype=np.float32)
    x = x0.copy()
    mod.double[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, 100)
    # Each config ran once while tuning, then the best once more.
    np.testing.assert_array_equal(x, x0 * 8)


def run_program(name, tmp_path):
    """start_program, then its stdout once it exited with 0 and printed no
    FAIL line."""
    return check_exit(start_program(name, tmp_path), name).stdout


# The NumPy programs of triton_programs/, in the shape of Triton's tutorials
# 01 to 04 and written for these tests (docs/python.md); test_tutorials_torch.py
# runs their torch versions and those of 05 and 06.

def test_vector_add_numpy_program(tmp_path):
    """vector_add_numpy.py: masked element-wise add, a bandwidth table."""
    out = run_program("vector_add_numpy.py", tmp_path)
    for n, chunk in ((1, 64), (1000, 256), (12345, 1024), (65536, 4096)):
        assert "PASS vector_add_numpy n=%d chunk=%d: largest difference from numpy 0\n" \
            % (n, chunk) in out, out
    header, rows = perf_table(out, "vector-add-bandwidth")
    assert header == ["size", "Triton", "NumPy"]
    assert [r[0] for r in rows] == [4096, 16384, 65536] and all(min(r) > 0 for r in rows)


def test_softmax_numpy_program(tmp_path):
    """softmax_numpy.py: one program per row, then a persistent grid sized
    from warmup's kernel (n_regs, n_spills, metadata.shared) and the
    device's properties."""
    proc = start_program("softmax_numpy.py", tmp_path)
    shapes = ("37x5", "97x643", "300x129")
    for shape in shapes:
        assert "PASS softmax_numpy one-program-per-row %s:" % shape in proc.stdout, \
            proc.stdout + proc.stderr
    out = check_exit(proc, "softmax_numpy.py").stdout
    for shape in shapes:
        assert "PASS softmax_numpy persistent %s:" % shape in out
    header, rows = perf_table(out, "softmax-bandwidth")
    assert header == ["N", "Triton", "NumPy"]
    assert [r[0] for r in rows] == [256, 512, 1024] and all(min(r) > 0 for r in rows)


def test_matmul_numpy_program(tmp_path):
    """matmul_numpy.py: the autotuned grouped fp16 matmul, with and without
    its leaky ReLU."""
    out = run_program("matmul_numpy.py", tmp_path)
    for shape in ("128x128x128", "150x70x200"):
        for activation in ("''", "'leaky_relu'"):
            assert re.search(r"PASS matmul_numpy %s activation=%s: .*\(best config BLOCK_M: "
                             % (shape, activation), out), out
    header, rows = perf_table(out, "matmul-fp16")
    assert header == ["M", "N", "K", "NumPy", "Triton"]
    assert [r[:3] for r in rows] == [[128] * 3, [256] * 3] and all(min(r) > 0 for r in rows)


def test_dropout_numpy_program(tmp_path):
    """dropout_numpy.py: seeded dropout with tl.rand."""
    out = run_program("dropout_numpy.py", tmp_path)
    names = [line.split(":")[0] for line in out.splitlines()]
    assert names == ["PASS dropout_numpy same seed", "PASS dropout_numpy same seed other block",
                     "PASS dropout_numpy other seed", "PASS dropout_numpy rate",
                     "PASS dropout_numpy scale"], out
