"""The errors of a launch, as Triton raises them (docs/python.md, "Errors"),
on the host (python.host): CompilationError with the compiler's location,
the source line and a caret; OutOfResources (the host's SIMT emulation
with simt_shared_bytes, and nvidia targets compiled without a GPU when the
nvidia plugin is there); argument errors that name the parameter;
do_not_specialize on pointers; the launch hooks."""

import pickle

import numpy as np
import pytest

import tegula
import tegula.language as tl
from tegula import _launch
from kernels import error_kernels as E

KERNELS = E.__file__
with open(KERNELS) as _f:
    KERNEL_LINES = _f.read().split("\n")


def line_of(text):
    """The 1-based line of kernels/error_kernels.py that holds |text|."""
    hits = [i + 1 for i, line in enumerate(KERNEL_LINES) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def aligned(n, dtype=np.float32, misalign=0, fill=None):
    """An array of n elements whose data address is 16-aligned + misalign bytes."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 16 + misalign
    a = raw[start:start + n * dtype.itemsize].view(dtype)
    assert a.ctypes.data % 16 == misalign
    if fill is not None:
        a[:] = fill
    return a


@pytest.fixture
def full(monkeypatch):
    """The kernels whose calls took the full launch path, in order."""
    calls = []
    real = _launch._full_launch

    def counted(fn, *args, **kwargs):
        calls.append(fn.__name__)
        return real(fn, *args, **kwargs)
    monkeypatch.setattr(_launch, "_full_launch", counted)
    return calls


# -- CompilationError ----------------------------------------------------------------


def test_compilation_error_shows_the_line_and_a_caret(host):
    x = np.zeros(16, np.float32)
    with pytest.raises(tegula.CompilationError) as info:
        E.shape_error[(1,)](x, N=16, device=host)
    e = info.value
    line = line_of("a = tl.arange(0, N) + tl.arange(0, 2 * N)")
    col = KERNEL_LINES[line - 1].index("+ tl.arange") + 1
    assert (e.filename, e.lineno, e.col) == (KERNELS, line, col)
    assert e.node.lineno == line and e.node.col_offset == col - 1
    assert e.error_message == "incompatible shapes for +: [16] and [32]"
    text = str(e).split("\n")
    assert text[0] == "%s:%d:%d: error: incompatible shapes for +: [16] and [32]" % (
        KERNELS, line, col)
    assert text[1] == KERNEL_LINES[line - 1]
    assert text[2] == " " * (col - 1) + "^"
    # The parameters with what each argument made of them.
    assert text[3] == "in shape_error(x_ptr: *fp32:16, N=16)"
    assert e.src == open(KERNELS).read()
    assert e.kernel == "shape_error" and e.signature == "*fp32:16, 16"
    assert e.code_name == "TEGULA_COMPILER_ERROR_KERNEL"
    # The type the launch raised before, and Triton's names for it.
    assert isinstance(e, tegula.TegulaError) and isinstance(e, RuntimeError)
    assert tegula.compiler.CompilationError is tegula.CompilationError
    assert tegula.compiler.errors.CompilationError is tegula.CompilationError
    assert tegula._compiler.CompilationError is tegula.CompilationError
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is type(e) and str(again) == str(e) and again.lineno == line


def test_the_subclasses_triton_raises(host):
    x = np.zeros(128, np.float32)
    with pytest.raises(tegula.compiler.errors.CompileTimeAssertionFailure) as info:
        E.asserts_small[(1,)](x, N=128, device=host)
    e = info.value
    assert e.lineno == line_of("tl.static_assert(N <= 64")
    assert e.error_message == "static_assert failed: N is at most 64"
    assert isinstance(e, tegula.CompilationError)
    E.asserts_small[(1,)](x, N=64, device=host)  # fits: compiles and runs

    with pytest.raises(tegula.compiler.errors.UnsupportedLanguageConstruct) as info:
        E.with_statement[(1,)](x, N=16, device=host)
    e = info.value
    line = line_of('with open("f") as f:')
    assert (e.lineno, e.col) == (line, 5)
    assert str(e).split("\n")[1:3] == [KERNEL_LINES[line - 1], "    ^"]


def test_compile_only_errors_are_the_same():
    # tegula.compile (ahead of time) raises what a launch raises.
    with pytest.raises(tegula.CompilationError) as info:
        tegula.compile(E.shape_error, "*fp32:16", "host:x86_64", "/nonexistent/k.tgc",
                       constexprs={"N": 16})
    assert info.value.lineno == line_of("a = tl.arange(0, N) + tl.arange(0, 2 * N)")
    assert str(info.value).startswith(KERNELS + ":")


def test_a_plugin_error_at_an_operation_becomes_a_compilation_error():
    # A plugin's compile reports one line, with the operation's location in
    # it (here as the nvidia plugin words one it cannot lower).
    from tegula import _errors
    line = line_of("acc += tl.dot(a, b)")
    col = KERNEL_LINES[line - 1].index("tl.dot") + 1
    message = ("dot_loop: compiling for nvidia:sm_75 failed: nvidia: cannot compile the "
               "kernel for nvidia:sm_75: %s:%d:%d: cannot lower 'tile.dot': fp8 dot "
               "operands are not supported by this lowering yet" % (KERNELS, line, col))
    e = _errors.from_plugin_error(message, 2, kernel="dot_loop", signature="*fp8e4nv:16",
                                  source_file=KERNELS, src=open(KERNELS).read())
    assert type(e) is tegula.CompilationError
    assert (e.filename, e.lineno, e.col) == (KERNELS, line, col)
    assert e.code_name == "TG_ERROR_INVALID_ARGUMENT" and isinstance(e, tegula.TegulaError)
    text = str(e).split("\n")
    assert text[0] == "%s:%d:%d: error: cannot lower 'tile.dot': fp8 dot operands are not " \
        "supported by this lowering yet" % (KERNELS, line, col)
    assert text[1:3] == [KERNEL_LINES[line - 1], " " * (col - 1) + "^"]
    assert text[-1] == ("(dot_loop: compiling for nvidia:sm_75 failed: nvidia: cannot "
                        "compile the kernel for nvidia:sm_75)")
    # Nothing to point at: the TegulaError stays as it was.
    assert _errors.from_plugin_error("host: not implemented", 5, source_file=KERNELS) is None


# -- OutOfResources --------------------------------------------------------------------


def test_out_of_shared_memory_on_the_host(host):
    # The host's SIMT emulation bounds shared memory as a GPU does
    # (simt_shared_bytes): the compile refuses a kernel over it.
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    y = np.zeros((32, 64), np.float32)
    assert E.transpose[(1,)](x, y, M=64, N=32, TRANS=True, device=host,
                             simt=4).shared_memory > 16
    with pytest.raises(tegula.runtime.errors.OutOfResources) as info:
        E.transpose[(1,)](x, y, M=64, N=32, TRANS=True, device=host, simt=4,
                          simt_shared_bytes=16)
    e = info.value
    # (What the compile tried under the limit: more than without.)
    need = e.required
    assert need > 16 and (e.limit, e.name) == (16, "shared memory")
    assert str(e).startswith("out of resource: shared memory, Required: %d, Hardware limit: "
                             "16. Reducing block sizes or `num_stages` may help.\n" % need)
    assert "needs %d bytes of shared memory per program; simt_shared_bytes allows at most " \
        "16" % need in str(e)
    assert isinstance(e, tegula.TegulaError) and e.code_name == "TG_ERROR_INVALID_ARGUMENT"
    assert tegula.OutOfResources is tegula.runtime.OutOfResources is type(e)
    again = pickle.loads(pickle.dumps(e))
    assert (again.required, again.limit, again.name, str(again)) == (need, 16,
                                                                      "shared memory", str(e))


def test_out_of_threads_on_the_host(host):
    # simt=32: warps of 32 threads, at most 1024 threads a program.
    x = np.zeros((8, 8), np.float32)
    with pytest.raises(tegula.OutOfResources) as info:
        E.transpose[(1,)](x, x.copy(), M=8, N=8, TRANS=False, device=host, simt=32,
                          num_warps=64)
    e = info.value
    assert (e.required, e.limit, e.name) == (64 * 32, 1024, "threads")
    assert str(e).startswith("out of resource: threads, Required: 2048, Hardware limit: 1024.")


def _nvidia_runtime():
    rt = tegula.Runtime(visible_backends="nvidia")
    if not any(p["loaded"] and p["name"] == "nvidia" for p in rt.plugins):
        rt.close()
        pytest.skip("no nvidia plugin beside the runtime library (%s)" % rt.search_dirs)
    return rt


def test_out_of_shared_memory_compiling_for_sm_90a(tmp_path):
    # No GPU needed: tegula.compile compiles for a target. A 256x256 fp32
    # accumulator and its pipelined tiles do not fit sm_90a's 227 KB.
    rt = _nvidia_runtime()
    try:
        with pytest.raises(tegula.OutOfResources) as info:
            tegula.compile(E.dot_loop, "*fp16:16, *fp16:16, *fp32:16", "nvidia:sm_90a",
                           tmp_path / "k.tgc", constexprs={"M": 256, "N": 256, "K": 128},
                           num_stages=4, runtime=rt)
        e = info.value
        assert e.name == "shared memory" and e.limit == 232448 and e.required > e.limit
        assert "bytes of shared memory per block; sm_90a allows at most 232448" in str(e)
        # Small tiles fit.
        c = tegula.compile(E.dot_loop, "*fp16:16, *fp16:16, *fp32:16", "nvidia:sm_90a",
                           tmp_path / "k.tgc", constexprs={"M": 64, "N": 64, "K": 32},
                           runtime=rt)
        assert 0 < c.entries[0]["shared_memory"] <= 232448
    finally:
        rt.close()


def test_out_of_resources_from_the_load_time_check():
    # A device refuses a kernel whose shared memory exceeds its own
    # (checkImage's message, TG_ERROR_OUT_OF_RANGE).
    from tegula import _errors
    e = _errors.out_of_resources("nvidia: kernel k needs 300000 bytes of shared memory per "
                                 "block; nvidia:0 allows 232448", 9)
    assert (e.required, e.limit, e.name, e.code_name) == (300000, 232448, "shared memory",
                                                         "TG_ERROR_OUT_OF_RANGE")
    assert _errors.out_of_resources("num_warps must be a power of 2 from 1 to 32 (at most "
                                    "1024 threads per block), not 3", 2) is None


def test_autotune_skips_a_config_out_of_resources(host, capsys, monkeypatch):
    monkeypatch.setenv("TEGULA_PRINT_AUTOTUNING", "1")
    timed = []

    def bench(fn, quantiles=None):
        fn()
        timed.append(1)
        return [1.0, 1.0, 1.0]

    # simt=4 needs shared memory over simt_shared_bytes; simt=0 (one thread
    # a program) has no such limit.
    configs = [tegula.Config({"TRANS": True, "simt": 4}, num_warps=1),
               tegula.Config({"TRANS": True, "simt": 0}, num_warps=1)]
    kernel = tegula.autotune(configs=configs, key=["M"], do_bench=bench)(E.transpose)
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    y = np.zeros((32, 64), np.float32)
    kernel[(1,)](x, y, M=64, N=32, device=host, simt_shared_bytes=16)
    np.testing.assert_array_equal(y, x.T)
    assert kernel.configs_timings[configs[0]] == [float("inf")] * 3
    assert kernel.best_config is configs[1] and len(timed) == 1
    assert "Autotuning failed with out of resource: shared memory, Required: " \
        in capsys.readouterr().out


# -- Argument errors ---------------------------------------------------------------------


PARAMS = "(the parameters are x_ptr, y_ptr, n, BLOCK)"


@pytest.mark.parametrize("call,message", [
    (lambda x, h: E.add_one[(1,)](x, x, BLOCK=16, device=h),
     "add_one() missing 1 required positional argument: 'n' " + PARAMS),
    (lambda x, h: E.add_one[(1,)](x, x, 16, device=h),
     "add_one() missing 1 required positional argument: 'BLOCK' " + PARAMS),
    (lambda x, h: E.add_one[(1,)](x, device=h),
     "add_one() missing 3 required positional arguments: 'y_ptr', 'n', and 'BLOCK' " + PARAMS),
    (lambda x, h: E.add_one[(1,)](x, x, 16, 16, 3, device=h),
     "add_one() takes 4 positional arguments but 5 were given " + PARAMS),
    (lambda x, h: E.add_one[(1,)](x, x, 16, BLOCK=16, block=3, device=h),
     "add_one() got an unexpected keyword argument 'block' " + PARAMS),
    # Raised by Python as it calls the launcher generated with the kernel's
    # parameters (before any of its code runs), so without the list.
    (lambda x, h: E.add_one[(1,)](x, x, 16, n=16, BLOCK=16, device=h),
     "add_one() got multiple values for argument 'n'"),
])
def test_binding_errors_are_pythons(host, call, message):
    x = aligned(16, fill=1.0)
    for _ in range(2):  # the full path, then after a launch recorded the fast one
        with pytest.raises(TypeError) as info:
            call(x, host)
        assert str(info.value) == message
        E.add_one[(1,)](x, x.copy(), 16, BLOCK=16, device=host)


def test_annotated_scalars_refuse_arrays(host):
    x = aligned(16, fill=2.0)
    y = aligned(16)
    E.scale[(1,)](x, y, 16, 1.5, BLOCK=16, device=host)
    np.testing.assert_array_equal(y, 3.0)
    E.scale[(1,)](x, y, np.int32(16), 2, BLOCK=16, device=host)  # an int is a float too
    np.testing.assert_array_equal(y, 4.0)
    with pytest.raises(TypeError, match=r"^scale: argument 'n' is annotated int32 \(a scalar\) "
                                        r"and needs an int, not an array \(ndarray\)$"):
        E.scale[(1,)](x, y, x, 1.5, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"^scale: argument 'n' is annotated int32 \(a scalar\) "
                                        r"and needs an int, not float$"):
        E.scale[(1,)](x, y, 16.0, 1.5, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"^scale: argument 'factor' is annotated float \(a "
                                        r"scalar\) and needs a float or an int, not an array "
                                        r"\(Buffer\)$"):
        E.scale[(1,)](x, y, 16, tegula.empty(16, "float32", device=host), BLOCK=16,
                      device=host)
    with pytest.raises(TypeError, match=r"^scale: argument 'x_ptr' is annotated \*fp32 and "
                                        r"needs an array or a tegula.Buffer, not int$"):
        E.scale[(1,)](7, y, 16, 1.5, BLOCK=16, device=host)
    with pytest.raises(TypeError, match=r"^scale: argument 'n' is annotated int32 \(a scalar\)"):
        E.scale.warmup(x, y, x, 1.5, BLOCK=16, device=host, grid=(1,))


def test_unannotated_mismatches_name_the_parameter(host):
    # Without annotations the kernel's use decides: the compile error's
    # last line shows what each argument became.
    x = aligned(16, fill=1.0)
    with pytest.raises(tegula.CompilationError) as info:
        E.add_one[(1,)](x, x, x, BLOCK=16, device=host)
    assert str(info.value).split("\n")[-1] == \
        "in add_one(x_ptr: *fp32:16, y_ptr: *fp32:16, n: *fp32:16, BLOCK=16)"
    with pytest.raises(tegula.CompilationError) as info:
        E.add_one[(1,)](3, x, 16, BLOCK=16, device=host)
    assert "unsupported ptr type" in info.value.error_message
    assert str(info.value).split("\n")[-1] == \
        "in add_one(x_ptr: i32, y_ptr: *fp32:16, n: i32:16, BLOCK=16)"
    with pytest.raises(TypeError, match=r"^add_one: argument 'x_ptr': cannot specialize an "
                                        r"argument of type 'list'"):
        E.add_one[(1,)]([1.0], x, 16, BLOCK=16, device=host)
    with pytest.raises(tegula.CompilationError) as info:  # None is a constant
        E.add_one[(1,)](x, x, None, BLOCK=16, device=host)
    assert "got None" in info.value.error_message
    assert str(info.value).split("\n")[-1] == \
        "in add_one(x_ptr: *fp32:16, y_ptr: *fp32:16, n: None, BLOCK=16)"
    with pytest.raises(TypeError, match=r"^add_one: constexpr 'BLOCK': constexpr value of type "
                                        r"ndarray is not an int"):
        E.add_one[(1,)](x, x, 16, BLOCK=x, device=host)


# -- do_not_specialize on pointers ---------------------------------------------------


@pytest.mark.parametrize("kernel", [E.add_one_nospec, E.add_one_noalign],
                         ids=["do_not_specialize", "do_not_specialize_on_alignment"])
def test_do_not_specialize_drops_the_pointer_alignment(host, kernel, full):
    kernel._fast = None
    base = aligned(65, fill=0.0)
    base[:] = np.arange(65)
    x = base[:64]
    y = aligned(64, fill=np.nan)
    before = kernel.compile_count
    ck = kernel[(1,)](x, y, 64, BLOCK=64, device=host)
    assert ck.signature == "*fp32, *fp32:16, i32:16, 64"
    np.testing.assert_array_equal(y, np.arange(64) + 1.0)
    # An unaligned view of the same memory: the same kernel, right results.
    view = base[1:]
    assert view.ctypes.data % 16 == 4
    out = aligned(64, fill=np.nan)
    ck2 = kernel[(1,)](view, out, 64, BLOCK=64, device=host)
    assert ck2 is ck and kernel.compile_count == before + 1
    np.testing.assert_array_equal(out, np.arange(1, 65) + 1.0)
    # Again on the fast path, aligned and not.
    calls = len(full)
    y[:] = np.nan
    out[:] = np.nan
    assert kernel[(1,)](x, y, 64, BLOCK=64, device=host) is ck
    assert kernel[(1,)](view, out, 64, BLOCK=64, device=host) is ck
    assert len(full) == calls
    np.testing.assert_array_equal(y, np.arange(64) + 1.0)
    np.testing.assert_array_equal(out, np.arange(1, 65) + 1.0)
    assert kernel.compile_count == before + 1
    # warmup specializes as the launch does.
    assert kernel.warmup(tl.float32, y, 64, BLOCK=64, device=host, grid=(1,)) is ck


def test_a_specialized_pointer_still_compiles_per_alignment(host):
    x = aligned(65, fill=1.0)
    y = aligned(64)
    before = E.add_one.compile_count
    a = E.add_one[(1,)](x[:64], y, 64, BLOCK=64, device=host)
    b = E.add_one[(1,)](x[1:], y, 64, BLOCK=64, device=host)
    assert a.signature.startswith("*fp32:16,") and b.signature.startswith("*fp32,")
    assert a is not b and E.add_one.compile_count >= before + 1


# -- Launch hooks ------------------------------------------------------------------------


@pytest.fixture
def hooks():
    """Records what the launch hooks get; unsets them afterwards."""
    seen = []
    CK = tegula.CompiledKernel
    CK.launch_enter_hook = lambda md: seen.append(("enter", md, md.get()))
    CK.launch_exit_hook = lambda md: seen.append(("exit", md, None))
    try:
        yield seen
    finally:
        CK.launch_enter_hook = None
        CK.launch_exit_hook = None
    assert not _launch._HOOKED


def test_hooks_are_off_by_default():
    assert tegula.CompiledKernel.launch_enter_hook is None
    assert tegula.CompiledKernel.launch_exit_hook is None
    assert tegula.compiler.CompiledKernel is tegula.CompiledKernel is _launch.CompiledKernel
    assert not _launch._HOOKED


def test_launch_hooks_get_the_metadata(host, hooks, full):
    E.add_one_meta._fast = None
    x = aligned(32, fill=1.0)
    y = aligned(32, fill=np.nan)
    for _ in range(2):  # the full path, then the fast one
        ck = E.add_one_meta[(2,)](x, y, 32, BLOCK=16, device=host)
    assert full.count("add_one_meta") == 1
    np.testing.assert_array_equal(y, 2.0)
    assert [h[0] for h in hooks] == ["enter", "exit"] * 2
    for kind, md, got in hooks:
        assert md.name == "add_one_meta" and md.grid == (2, 1, 1) and md.stream is None
        assert md.function == ck._kernel and md.kernel is ck
        assert md.data == {"name": "add_one_meta<16>", "bytes": 256, "grid_x": 2}
    assert hooks[0][2] == {"name": "add_one_meta<16>", "function": ck._kernel,
                           "stream": None, "bytes": 256, "grid_x": 2}
    assert hooks[0][1] is hooks[1][1]  # enter and exit share one object

    # A kernel without launch_metadata: the name, the grid, no data.
    hooks.clear()
    s = host.stream()
    E.add_one[(1,)](x, y, 32, BLOCK=32, device=host, stream=s)
    s.synchronize()
    md = hooks[0][1]
    assert md.name == "add_one" and md.grid == (1, 1, 1) and md.stream is s
    assert md.data is None and hooks[0][2]["name"] == "add_one"


def test_only_the_enter_hook(host):
    seen = []
    tegula.CompiledKernel.launch_enter_hook = lambda md: seen.append(md.name)
    try:
        x = aligned(16, fill=1.0)
        for _ in range(3):
            E.add_one[(1,)](x, x.copy(), 16, BLOCK=16, device=host)
    finally:
        tegula.CompiledKernel.launch_enter_hook = None
    assert seen == ["add_one"] * 3 and not _launch._HOOKED
    E.add_one[(1,)](x, x.copy(), 16, BLOCK=16, device=host)
    assert seen == ["add_one"] * 3


def test_triton_programs_see_the_same_names(tmp_path):
    path = tmp_path / "uses_triton.py"
    path.write_text("import triton\n"
                    "from triton.compiler.errors import CompilationError\n"
                    "from triton.compiler import CompiledKernel\n"
                    "from triton.runtime.errors import OutOfResources\n")
    m = tegula.import_triton_file(path)
    assert m.CompilationError is tegula.CompilationError
    assert m.OutOfResources is tegula.OutOfResources
    assert m.CompiledKernel is tegula.CompiledKernel
