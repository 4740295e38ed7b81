"""Triton's host-side tuning API: ``Config``, ``autotune``, ``heuristics``.

Same names, arguments and behaviour as ``triton.runtime.autotuner`` (Triton
3.x), over ``JITFunction.run``/``warmup``: a program written for Triton
tunes its kernels the same way here. Arrays may be NumPy arrays, torch
tensors or ``tegula.Buffer``s; ``reset_to_zero`` and ``restore_value``
handle all three.
"""

import builtins
import inspect
import os
import time

from ._compiler import CompilationError
from ._errors import OutOfResources
from ._runtime import TegulaError

__all__ = ["Config", "Autotuner", "autotune", "Heuristics", "heuristics", "KernelInterface"]


def _print_autotuning():
    """Whether to print what autotune does (Triton's TRITON_PRINT_AUTOTUNING,
    or TEGULA_PRINT_AUTOTUNING)."""
    return any(os.environ.get(v, "0").strip().lower() in ("1", "true", "on", "yes")
               for v in ("TEGULA_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"))


class KernelInterface:
    """``kernel[grid](*args, **kwargs)`` calls ``run(*args, grid=grid,
    warmup=False, **kwargs)`` (Triton's protocol, which Autotuner and
    Heuristics implement; JITFunction has its own ``__getitem__``)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def _base_jit(fn):
    """The JITFunction under Autotuner/Heuristics wrappers."""
    from ._jit import JITFunction
    while not isinstance(fn, JITFunction):
        inner = getattr(fn, "fn", None)
        if inner is None:
            raise TypeError("expected a @tegula.jit kernel (or an autotune/heuristics "
                            "wrapper of one), not %r" % (fn,))
        fn = inner
    return fn


class Config:
    """A kernel configuration to try: ``kwargs`` (meta-parameters, passed as
    constexprs), ``num_warps``, ``num_stages``, ``num_ctas`` (1 on every
    Tegula backend), ``maxnreg`` (passed as a compile option where a plugin
    declares one, else ignored, as Triton ignores it where the backend has
    no such limit) and ``pre_hook`` (called with the arguments before each
    launch with this config)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        return {
            **self.kwargs, **{
                k: v for (k, v) in (
                    ("num_warps", self.num_warps),
                    ("num_ctas", self.num_ctas),
                    ("num_stages", self.num_stages),
                    ("maxnreg", self.maxnreg),
                ) if v is not None
            }
        }

    def __str__(self):
        res = ["%s: %s" % (k, v) for k, v in self.kwargs.items()]
        res.append("num_warps: %s" % (self.num_warps,))
        res.append("num_ctas: %s" % (self.num_ctas,))
        res.append("num_stages: %s" % (self.num_stages,))
        res.append("maxnreg: %s" % (self.maxnreg,))
        return ", ".join(res)

    def __repr__(self):
        return "Config(%s)" % self

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return (tuple(self.all_kwargs().items()) + (self.pre_hook,) ==
                tuple(other.all_kwargs().items()) + (other.pre_hook,))


# -- reset_to_zero / restore_value over NumPy, torch and tegula.Buffer ---------


def _zero(x):
    from . import Buffer
    if isinstance(x, Buffer):
        x.memset(0)
    elif hasattr(x, "zero_"):  # torch
        x.zero_()
    else:  # NumPy and anything with item assignment
        x[...] = 0


def _clone(x):
    from . import Buffer
    if isinstance(x, Buffer):
        copy = Buffer(x.device, x.nbytes, dtype=x.dtype, shape=x.shape)
        return copy.copy_from_buffer(x)
    if hasattr(x, "clone"):  # torch
        return x.clone()
    return x.copy()


def _restore(dst, src):
    from . import Buffer
    if isinstance(dst, Buffer):
        dst.copy_from_buffer(src)
        src.free()
    elif hasattr(dst, "copy_") and hasattr(dst, "clone"):  # torch
        dst.copy_(src)
    else:
        dst[...] = src


class Autotuner(KernelInterface):
    """What ``@autotune`` makes: on the first call for a key it benchmarks
    every config (after pruning) and keeps the fastest in ``cache``
    (key -> Config); ``best_config`` is the config of the last call."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None):
        self.configs = list(configs) if configs else [Config({}, num_warps=4, num_stages=3,
                                                             num_ctas=1)]
        self.keys = list(key) if not isinstance(key, str) else [key]
        self.cache = {}
        self.arg_names = list(arg_names)
        self.configs_timings = None
        self.bench_time = 0.0
        self.best_config = None
        self.nargs = None
        self.reset_to_zero = list(reset_to_zero) if reset_to_zero is not None else []
        self.restore_value = list(restore_value) if restore_value is not None else []
        for what, names in (("reset_to_zero", self.reset_to_zero),
                            ("restore_value", self.restore_value), ("key", self.keys)):
            for n in names:
                if n not in self.arg_names:
                    raise ValueError("autotune %s names %r, which is no parameter of %s "
                                     "(the parameters are %s)" % (
                                         what, n, getattr(fn, "__name__", fn),
                                         ", ".join(self.arg_names)))
        self.restore_copies = {}

        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        if pre_hook is not None:
            self.pre_hook = pre_hook
        elif self.reset_to_zero or self.restore_value:
            def _pre_hook(kwargs, reset_only=False):
                for name in self.reset_to_zero:
                    if kwargs[name] is not None:
                        _zero(kwargs[name])
                if not reset_only:
                    self.restore_copies = {name: _clone(kwargs[name])
                                           for name in self.restore_value
                                           if kwargs[name] is not None}
            self.pre_hook = _pre_hook
        else:
            self.pre_hook = lambda kwargs, reset_only=False: 0
        if post_hook is not None:
            self.post_hook = post_hook
        elif self.restore_value:
            def _post_hook(kwargs, exception):
                for name, value in self.restore_copies.items():
                    _restore(kwargs[name], value)
                self.restore_copies = {}
            self.post_hook = _post_hook
        else:
            self.post_hook = lambda kwargs, exception: 0

        self.perf_model = None
        self.configs_top_k = 1.0
        self.early_config_prune = None
        if prune_configs_by:
            self.perf_model = prune_configs_by.get("perf_model", self.perf_model)
            self.configs_top_k = prune_configs_by.get("top_k", self.configs_top_k)
            self.early_config_prune = prune_configs_by.get("early_config_prune",
                                                           self.early_config_prune)

        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self.__name__ = getattr(fn, "__name__", self.base_fn.__name__)

        self._do_bench = do_bench
        self.num_warmups = warmup
        self.num_reps = rep
        self.use_cuda_graph = use_cuda_graph
        if do_bench is None and (warmup is not None or rep is not None or use_cuda_graph):
            # Triton's older interface: the benchmark's own parameters.
            from . import testing
            if use_cuda_graph:
                self._do_bench = lambda kernel_call, quantiles: testing.do_bench_cudagraph(
                    kernel_call, rep=rep if rep is not None else 100, quantiles=quantiles)
            else:
                self._do_bench = lambda kernel_call, quantiles: testing.do_bench(
                    kernel_call, warmup=warmup if warmup is not None else 25,
                    rep=rep if rep is not None else 100, quantiles=quantiles)

    @property
    def do_bench(self):
        if self._do_bench is None:
            from . import testing
            return testing.do_bench
        return self._do_bench

    def _bench(self, *args, config, **meta):
        verbose = _print_autotuning()
        if verbose:
            print("Autotuning kernel %s with config %s" % (self.base_fn.__name__, config))
        # Meta-parameters given both by the call and by the config conflict.
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError("Conflicting meta-parameters: %s. Make sure that you don't "
                             "re-define auto-tuned symbols." % ", ".join(sorted(conflicts)))
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        # Compiling first tells a config that does not compile
        # (OutOfResources: too much shared memory, too many threads; a
        # CompilationError: a failed tl.static_assert; another plugin
        # limit), which is skipped as Triton skips OutOfResources, from one
        # that fails to run, which is an error.
        try:
            self.fn.run(*args, **dict(current, warmup=True))
        except (CompilationError, TegulaError) as e:
            if verbose:
                print("Autotuning failed with %s" % (e,))
            return [float("inf"), float("inf"), float("inf")]

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except (OutOfResources, CompilationError) as e:
            # As Triton: a config that runs out of resources when it runs
            # (a device that refuses to load the kernel) is skipped too.
            if verbose:
                print("Autotuning failed with %s" % (e,))
            return [float("inf"), float("inf"), float("inf")]

    def _key(self, args, kwargs):
        all_args = {**self.nargs, **kwargs}
        _args = {k: v for (k, v) in all_args.items() if k in self.arg_names}
        key = [_args[k] for k in self.keys if k in _args]
        for _, arg in _args.items():
            if hasattr(arg, "dtype"):
                key.append(str(arg.dtype))
        return tuple(key)

    def run(self, *args, **kwargs):
        if kwargs.get("warmup"):
            return self.warmup(*args, **kwargs)
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        key = None
        if len(self.configs) > 1:
            key = self._key(args, kwargs)
            if key not in self.cache:
                used_cached_result = False
                pruned_configs = self.prune_configs(kwargs)
                if len(pruned_configs) == 1:
                    # One config left: nothing to measure.
                    self.cache[key] = pruned_configs[0]
                    used_cached_result = True
                else:
                    bench_start = time.time()
                    timings = {config: self._bench(*args, config=config, **kwargs)
                               for config in pruned_configs}
                    self.bench_time = time.time() - bench_start
                    self.cache[key] = builtins.min(timings, key=timings.get)
                    full_nargs = {**self.nargs, **kwargs, **self.cache[key].all_kwargs()}
                    self.pre_hook(full_nargs, reset_only=True)
                    self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if _print_autotuning() and not used_cached_result:
            print("Triton autotuning for function %s,\nwith key as %s,\nfinished after "
                  "%.2fs,\nbest config selected: %s;" % (self.base_fn.__name__, key,
                                                        self.bench_time, self.best_config))
        if config.pre_hook is not None:
            full_nargs = {**self.nargs, **kwargs, **config.all_kwargs()}
            config.pre_hook(full_nargs)
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def prune_configs(self, kwargs):
        pruned_configs = self.configs
        if self.early_config_prune:
            pruned_configs = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned_configs:
                raise RuntimeError("No valid autotuner configs after pruning. "
                                   "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned_configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either 1) a "
                                "float <= 1.0 or 2) an int")
            if len(pruned_configs) > top_k:
                est_timing = {config: self.perf_model(**self.nargs, **kwargs,
                                                      **config.all_kwargs())
                              for config in pruned_configs}
                pruned_configs = sorted(est_timing.keys(), key=lambda x: est_timing[x])[:top_k]
        return pruned_configs

    def warmup(self, *args, **kwargs):
        """Compiles every config (after pruning); returns the CompiledKernels."""
        kwargs.pop("warmup", None)
        self.nargs = dict(zip(self.arg_names, args))
        ret = []
        for config in self.prune_configs(kwargs):
            ret.append(self.fn.run(*args, **dict(kwargs, warmup=True), **config.all_kwargs()))
        self.nargs = None
        return ret

    def __repr__(self):
        return "<tegula.Autotuner of %s, %d configs>" % (self.base_fn.__name__,
                                                         len(self.configs))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None):
    """Decorator: tunes a ``@tegula.jit`` kernel (or a ``@heuristics`` one)
    over |configs| for each value of the |key| arguments (and the dtypes of
    the array arguments), as ``triton.autotune`` does. Set
    ``TEGULA_PRINT_AUTOTUNING=1`` (or ``TRITON_PRINT_AUTOTUNING=1``) to see
    each config tried and the one chosen."""
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench)
    return decorator


class Heuristics(KernelInterface):
    """What ``@heuristics`` makes: computes meta-parameters from the
    arguments before each launch."""

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = list(arg_names)
        self.__name__ = getattr(fn, "__name__", None)
        base = _base_jit(fn)
        # Defaults the call leaves out are part of what the functions see.
        self._defaults = {p.name: p.default for p in base.params
                          if p.default is not p.empty}

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            named = dict(self._defaults)
            named.update(zip(self.arg_names, args))
            named.update(kwargs)
            kwargs[v] = heur(named)
        return self.fn.run(*args, **kwargs)

    def __repr__(self):
        return "<tegula.Heuristics %s of %r>" % (sorted(self.values), self.fn)


def heuristics(values):
    """Decorator: ``values`` maps meta-parameter names to functions of the
    arguments (a dict by name) that compute them, as ``triton.heuristics``."""
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
