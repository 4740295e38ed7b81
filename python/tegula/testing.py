"""``triton.testing`` for Tegula: ``do_bench``, ``do_bench_cudagraph``,
``assert_close``, ``Benchmark`` and ``perf_report``, with Triton's names,
arguments and results, over NumPy arrays, torch tensors and tegula Buffers.

Timing: with torch imported and CUDA available, and the current device
(``tegula.runtime.driver.active``) a GPU of torch's backend, CUDA events on
torch's current stream, as Triton times; otherwise the wall clock around
each call. Kernels launched with ``stream=None`` and no torch CUDA tensors
run on the NULL stream, which completes before the launch returns, so the
wall clock covers the kernel; a function that launches on a
``tegula.Stream`` must synchronize it itself.

Between repetitions a buffer is zeroed so that the inputs are not in the
cache: 256 MB in device memory on a GPU (Triton's size), and on the host CPU
twice its largest cache (from sysfs; 256 MB when it cannot be read), so
that a host benchmark does not spend most of its time clearing memory.

pandas is not needed: ``perf_report`` prints the table ``DataFrame.to_string``
prints, and returns a pandas DataFrame only where pandas is installed;
plots need matplotlib (without it, the CSV is written and a warning says
that there is no plot).
"""

import math
import os
import sys
import time
import warnings

__all__ = ["do_bench", "do_bench_cudagraph", "assert_close", "Benchmark", "Mark",
           "perf_report"]

_GPU_FLUSH_BYTES = 256 * 1024 * 1024


# -- Timing --------------------------------------------------------------------


def _torch_cuda():
    """torch, when the caller imported it, CUDA is available and the current
    device is a GPU of torch's backend; else None."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "cuda"):
        return None
    try:
        if not torch.cuda.is_available():
            return None
    except Exception:
        return None
    from .runtime import driver
    try:
        dev = driver.active.get_current_tegula_device()
    except Exception:
        return None
    from ._interop import _torch_gpu_backend
    return torch if dev.backend == _torch_gpu_backend() else None


class _WallEvent:
    """An event of the wall clock (perf_counter), for work that is complete
    when the call that started it returns."""

    __slots__ = ("t",)

    def __init__(self, enable_timing=True):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def _host_cache_bytes():
    """Twice the largest CPU cache sysfs reports, else 256 MB."""
    largest = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in os.listdir(base):
            try:
                with open(os.path.join(base, entry, "size")) as f:
                    text = f.read().strip().upper()
            except OSError:
                continue
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
            digits = text[:-1] if text[-1:] in "KMG" else text
            if digits.isdigit():
                largest = max(largest, int(digits) * scale)
    except OSError:
        pass
    return min(2 * largest, _GPU_FLUSH_BYTES) if largest else _GPU_FLUSH_BYTES


class _Flush:
    """The buffer zeroed between repetitions, with ``zero_()`` as Triton's."""

    def __init__(self, device):
        self.buffer = None
        self.array = None
        if device is not None and not device.host_memory:
            from . import Buffer
            self.buffer = Buffer(device, _GPU_FLUSH_BYTES)
        else:
            try:
                import numpy as np
                self.array = np.empty(_host_cache_bytes(), dtype=np.uint8)
            except ImportError:  # pragma: no cover
                self.array = bytearray(_host_cache_bytes())

    def zero_(self):
        if self.buffer is not None:
            self.buffer.memset(0)
        elif hasattr(self.array, "fill"):
            self.array.fill(0)
        else:  # pragma: no cover
            self.array[:] = bytes(len(self.array))


_flushes = {}


def _empty_cache(torch):
    """The flush buffer for the current device (made once per device)."""
    if torch is not None:
        return torch.empty(_GPU_FLUSH_BYTES // 4, dtype=torch.int, device="cuda")
    from .runtime import driver
    try:
        dev = driver.active.get_current_tegula_device()
    except Exception:  # no device at all: the host's memory
        dev = None
    key = None if dev is None or dev.host_memory else (id(dev.runtime), dev.name)
    flush = _flushes.get(key)
    if flush is None or (flush.buffer is not None and not flush.buffer.alive):
        flush = _flushes[key] = _Flush(dev if key is not None else None)
    return flush


def _lower_median(times):
    s = sorted(times)
    return s[(len(s) - 1) // 2]  # torch.median's: the lower of the two middle values


def _quantile(times, q):
    """Linear interpolation between the closest ranks (torch.quantile's)."""
    s = sorted(times)
    if not 0.0 <= q <= 1.0:
        raise ValueError("quantiles must be in [0, 1], not %r" % (q,))
    pos = q * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _summarize_statistics(times, quantiles, return_mode):
    times = [float(t) for t in times]
    if quantiles is not None:
        ret = [_quantile(times, float(q)) for q in quantiles]
        if len(ret) == 1:
            ret = ret[0]
        return ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return _lower_median(times)
    return sum(times) / len(times)


_RETURN_MODES = ("min", "max", "mean", "median", "all")


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runs |fn| for about |warmup| ms, then about |rep| ms, each call timed
    on its own with the cache flushed before it; returns the |return_mode|
    ("min", "max", "mean", "median", "all") of the times in ms, or, with
    |quantiles|, those quantiles (a list; one value alone for one). Gradients
    of the tensors in |grad_to_none| are cleared before each call."""
    assert return_mode in _RETURN_MODES
    torch = _torch_cuda()
    if torch is not None:
        event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
        synchronize = torch.cuda.synchronize
    else:
        event = _WallEvent
        synchronize = lambda: None  # noqa: E731  (see the module's doc)

    fn()
    synchronize()
    cache = _empty_cache(torch)

    # Estimate the runtime of the function.
    start_event, end_event = event(), event()
    start_event.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end_event.record()
    synchronize()
    estimate_ms = max(start_event.elapsed_time(end_event) / 5, 1e-6)

    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    start_events = [event() for _ in range(n_repeat)]
    end_events = [event() for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        # A backward pass in fn must not accumulate gradients.
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        start_events[i].record()
        fn()
        end_events[i].record()
    synchronize()
    times = [s.elapsed_time(e) for s, e in zip(start_events, end_events)]
    return _summarize_statistics(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Times |fn| replayed from a CUDA graph of about |rep| ms of calls (no
    launch overhead), as Triton does, where torch's CUDA is available and the
    current device is its GPU. Elsewhere — the host CPU, a GPU without
    torch — there are no graphs to capture Tegula launches in: this is
    ``do_bench(fn, rep=rep, ...)``, whose times include the launch
    overhead."""
    assert return_mode in _RETURN_MODES
    torch = _torch_cuda()
    if torch is None:
        return do_bench(fn, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                        return_mode=return_mode)
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        if grad_to_none is not None:
            for x in grad_to_none:
                x.detach_()
                x.requires_grad_(True)
                x.grad = None
        # The estimate is made without a graph: building one is expensive.
        start_event = torch.cuda.Event(enable_timing=True)
        end_event = torch.cuda.Event(enable_timing=True)
        start_event.record()
        for _ in range(5):
            fn()
        end_event.record()
        torch.cuda.synchronize()
        estimate_ms = max(start_event.elapsed_time(end_event) / 5, 1e-6)
        n_repeat = max(1, int(rep / estimate_ms))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n_repeat):
                if grad_to_none is not None:
                    for x in grad_to_none:
                        x.grad = None
                fn()
        torch.cuda.synchronize()
        ret = []
        for _ in range(10):
            start_event = torch.cuda.Event(enable_timing=True)
            end_event = torch.cuda.Event(enable_timing=True)
            start_event.record()
            g.replay()
            end_event.record()
            torch.cuda.synchronize()
            ret.append(start_event.elapsed_time(end_event) / n_repeat)
        return _summarize_statistics(ret, quantiles, return_mode)


# -- assert_close ----------------------------------------------------------------


def _to_numpy(x):
    """A NumPy array of |x| (torch tensor, tegula.Buffer, array, scalar,
    list); bf16 and fp8 as float32, which NumPy's comparisons handle."""
    import numpy as np
    from . import Buffer
    if isinstance(x, Buffer):
        x = x.to_numpy()
    elif hasattr(x, "detach") and hasattr(x, "cpu"):  # torch
        if str(getattr(x, "dtype", "")) in ("torch.bfloat16", "torch.float8_e4m3fn",
                                            "torch.float8_e5m2"):
            x = x.float()
        x = x.detach().cpu().numpy()
    x = np.asarray(x)
    if x.dtype.kind == "V" or x.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        x = x.astype(np.float32)
    return x


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Raises AssertionError unless |x| and |y| (NumPy arrays, torch tensors,
    tegula Buffers, scalars, lists) are equal within ``atol`` (default 1e-2)
    plus ``rtol`` (default 0) times |y|; NaNs compare equal. A callable
    tolerance is called with the dtype of |x|. The message starts with
    |err_msg|."""
    import numpy as np
    dtype = getattr(x, "dtype", None)
    if atol is None:
        atol = 1e-2
    atol = atol(dtype) if callable(atol) else atol
    if rtol is None:
        rtol = 0.0
    rtol = rtol(dtype) if callable(rtol) else rtol
    x, y = _to_numpy(x), _to_numpy(y)
    # A single value gets a message of its own, clearer than NumPy's.
    if x.size > 1 or y.size > 1:
        np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=err_msg)
        return
    if not np.allclose(x, y, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError("%s %s is not close to %s (atol=%s, rtol=%s)"
                             % (err_msg, x, y, atol, rtol))


# -- perf_report -------------------------------------------------------------------


class Benchmark:
    """One table (and plot) of ``perf_report``: a row per |x_vals| value (for
    every name in |x_names|, or a tuple, one value per name), a column per
    |line_vals| value (named by |line_names|), the function called with
    ``**x_args, line_arg=line_value, **args``."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        self.x_names = x_names
        self.x_vals = x_vals
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = args


def _is_missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


class Table:
    """The results of one Benchmark where pandas is missing: ``columns``,
    ``rows`` (lists of values), ``df[column]`` (a list), ``to_string()`` (as
    ``DataFrame.to_string``), ``to_csv(path, float_format, index=False)``."""

    def __init__(self, columns, rows=None):
        self.columns = list(columns)
        self.rows = [list(r) for r in rows or []]

    def __getitem__(self, column):
        if isinstance(column, list):
            i = [self.columns.index(c) for c in column]
            return Table(column, [[r[j] for j in i] for r in self.rows])
        j = self.columns.index(column)
        return [r[j] for r in self.rows]

    def __len__(self):
        return len(self.rows)

    @property
    def shape(self):
        return (len(self.rows), len(self.columns))

    @staticmethod
    def _format_column(values):
        """pandas' rendering of a float64 column: six decimals, trailing
        zeros trimmed as far as every value allows (at least one kept);
        NaN for a missing value; other values as str()."""
        if not all(_is_missing(v) or _is_number(v) for v in values):
            return [("NaN" if _is_missing(v) else str(v)) for v in values]
        texts = ["%.6f" % float(v) if not _is_missing(v) else None for v in values]
        nums = [t for t in texts if t is not None and "." in t]
        while nums and all(t.endswith("0") and not t.endswith(".0") for t in nums):
            nums = [t[:-1] for t in nums]
            texts = [t[:-1] if t is not None and "." in t else t for t in texts]
        return ["NaN" if t is None else t for t in texts]

    def to_string(self):
        index = [str(i) for i in range(len(self.rows))]
        iw = max([len(s) for s in index] + [0])
        cols = []
        for j, name in enumerate(self.columns):
            cells = self._format_column([r[j] for r in self.rows])
            w = max([len(str(name))] + [len(c) for c in cells])
            cols.append((str(name).rjust(w), [c.rjust(w) for c in cells]))
        lines = [" " * iw + "".join("  " + h for h, _ in cols)]
        for i, s in enumerate(index):
            lines.append(s.ljust(iw) + "".join("  " + c[i] for _, c in cols))
        return "\n".join(lines)

    def __str__(self):
        return self.to_string()

    def to_csv(self, path, float_format="%.6f", index=False):
        with open(path, "w") as f:
            f.write(",".join(str(c) for c in self.columns) + "\n")
            for r in self.rows:
                f.write(",".join("" if _is_missing(v) else
                                 (float_format % v if isinstance(v, float) else str(v))
                                 for v in r) + "\n")


def _is_number(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    try:
        import numpy as np
        return isinstance(v, (np.integer, np.floating))
    except ImportError:  # pragma: no cover
        return False


def _as_float(v):
    return float("nan") if v is None else float(v) if _is_number(v) else v


class Mark:
    """What ``perf_report`` makes: ``run(show_plots=False, print_data=False,
    save_path='', return_df=False, **kwargs)`` runs every Benchmark."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False,
             save_precision=6, **kwargs):
        y_mean = list(bench.line_names)
        y_min = ["%s-min" % x for x in bench.line_names]
        y_max = ["%s-max" % x for x in bench.line_names]
        x_names = list(bench.x_names)
        rows = []
        for x in bench.x_vals:
            # One value for every name, or one per name.
            if not isinstance(x, (list, tuple)):
                x = [x for _ in x_names]
            if len(x) != len(x_names):
                raise ValueError("Expected %d values, got %s" % (len(x_names), x))
            x_args = dict(zip(x_names, x))
            row_mean, row_min, row_max = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                try:
                    m, lo, hi = ret
                except TypeError:
                    m, lo, hi = ret, None, None
                row_mean.append(m)
                row_min.append(lo)
                row_max.append(hi)
            # A DataFrame row of numbers is float64: so are these.
            rows.append([_as_float(v) for v in list(x) + row_mean + row_min + row_max])
        full = Table(x_names + y_mean + y_min + y_max, rows)
        if bench.plot_name and (show_plots or save_path):
            self._plot(bench, full, x_names[0], save_path, show_plots)
        table = full[x_names + y_mean]
        if diff_col and table.shape[1] == 2:
            col0, col1 = table.columns
            table = Table(table.columns + ["Diff"],
                          [r + [r[1] - r[0]] for r in table.rows])
        df = _to_dataframe(table)
        if print_data:
            print(bench.plot_name + ":")
            print(df.to_string())
        if save_path:
            df.to_csv(os.path.join(save_path, "%s.csv" % bench.plot_name),
                      float_format="%%.%df" % save_precision, index=False)
        return df

    @staticmethod
    def _plot(bench, table, first_x, save_path, show_plots):
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            warnings.warn("perf_report: matplotlib is not installed, so there is no plot "
                          "for %r%s" % (bench.plot_name, " (the CSV is written)"
                                        if save_path else ""), stacklevel=4)
            return
        plt.figure()
        ax = plt.subplot()
        xs = table[first_x]
        for i, y in enumerate(bench.line_names):
            lo, hi = table[y + "-min"], table[y + "-max"]
            col = bench.styles[i][0] if bench.styles else None
            sty = bench.styles[i][1] if bench.styles else None
            ax.plot(xs, table[y], label=y, color=col, ls=sty)
            if not all(_is_missing(v) for v in lo) and not all(_is_missing(v) for v in hi):
                ax.fill_between(xs, lo, hi, alpha=0.15, color=col)
        ax.legend()
        ax.set_xlabel(bench.xlabel or first_x)
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            plt.savefig(os.path.join(save_path, "%s.png" % bench.plot_name))

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False,
            **kwargs):
        has_single_bench = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if has_single_bench else self.benchmarks
        result_dfs = []
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        for bench in benchmarks:
            result_dfs.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
        if save_path:
            with open(os.path.join(save_path, "results.html"), "w") as html:
                html.write("<html><body>\n")
                for bench in benchmarks:
                    if os.path.exists(os.path.join(save_path, "%s.png" % bench.plot_name)):
                        html.write("<image src=\"%s.png\"/>\n" % bench.plot_name)
                html.write("</body></html>\n")
        if return_df:
            return result_dfs[0] if has_single_bench else result_dfs
        return None


def _to_dataframe(table):
    """A pandas DataFrame of |table| where pandas is installed, else |table|."""
    try:
        import pandas as pd
    except ImportError:
        return table
    return pd.DataFrame(table.rows, columns=table.columns)


def perf_report(benchmarks):
    """Decorator: ``@perf_report(Benchmark(...))`` (or a list of them) makes
    the function a Mark, to ``.run(print_data=True, ...)``."""
    return lambda fn: Mark(fn, benchmarks)
