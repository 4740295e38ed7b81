"""kernel[grid](...) against the fake `testdev` plugin.

testdev's compile ignores the bytecode and loads its built-in kernel of the
same name (kernels/testdev_kernels.py says which), so everything Python does
is real: binding, specialization, the compiler library, device compile and
module load, argument packing by the metadata, copies in and out of device
buffers (testdev is not host memory as far as launches go: it checks that
pointers are its own allocations), the launch itself and the errors."""

import os
import threading

import numpy as np
import pytest

import tegula
import tegula.language as tl
from tegula import _compiler

from kernels import mismatch
from kernels.add_kernel import add_kernel
from kernels.testdev_kernels import broken_types, fill_u32, scale_f32, typed_scale

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = 128  # testdev:0 runs num_warps (4) x 32 threads per program


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


def cdiv(a, b):
    return (a + b - 1) // b


def poisoned(n, dtype=np.float32):
    return np.full(n, np.nan if np.dtype(dtype).kind == "f" else 0xDEADBEEF, dtype)


# -- Launches that run ----------------------------------------------------------


def test_default_device_is_testdev():
    assert tegula.default_device().name == "testdev:0"
    assert not tegula.default_device().host_memory


def test_scale_matches_numpy(rng):
    n = 1000  # not a multiple of the block
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n)
    ck = scale_f32[(cdiv(n, BLOCK),)](out, x, 2.5, n, BLOCK=BLOCK)
    np.testing.assert_array_equal(out, np.float32(2.5) * x)
    assert ck.name == "scale_f32" and ck.device.name == "testdev:0"
    assert ck.block == (4 * 32, 1, 1)
    assert [a[0] for a in ck.args] == ["out", "in", "a", "n"]


def test_fill_with_a_grid_callable():
    n = 777
    out = poisoned(n, np.uint32)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (cdiv(meta["n"], meta["BLOCK"]),)

    fill_u32[grid](out, 7, n, BLOCK=tl.constexpr(BLOCK))
    assert (out == 7).all()
    assert set(seen) == {"out_ptr", "value", "n", "BLOCK"}
    assert seen["out_ptr"] is out and seen["value"] == 7 and seen["n"] == n
    assert seen["BLOCK"] == BLOCK and not isinstance(seen["BLOCK"], tl.constexpr)


def test_grid_forms():
    out = poisoned(256, np.uint32)
    fill_u32[2](out, 1, 256, BLOCK=BLOCK)  # an int
    assert (out == 1).all()
    fill_u32[[1, 2, 1]](out, 2, 256, BLOCK=BLOCK)  # a list, 3-D: 2 programs
    assert (out == 2).all()
    fill_u32[lambda m: [np.int64(2)]](out, 3, 256, BLOCK=BLOCK)
    assert (out == 3).all()


def test_second_launch_does_not_compile():
    out = poisoned(300, np.uint32)
    fill_u32[(3,)](out, 11, 300, BLOCK=BLOCK, num_warps=2)
    count = fill_u32.compile_count
    ck = fill_u32[(3,)](out, 12, 300, BLOCK=BLOCK, num_warps=2)
    assert fill_u32.compile_count == count
    assert (out == 12).all()
    # Positional or keyword constexpr: the same specialization.
    assert fill_u32[(3,)](out, 13, 300, BLOCK, num_warps=2) is ck
    assert fill_u32.compile_count == count
    # A new num_warps, num_stages, constexpr, device or specialization compiles.
    fill_u32[(3,)](out, 11, 300, BLOCK=BLOCK, num_warps=2, num_stages=2)
    fill_u32[(3,)](out, 11, 300, BLOCK=64, num_warps=2)
    fill_u32[(3,)](out, 11, 300, BLOCK=BLOCK, num_warps=2, device="testdev:1")
    fill_u32[(3,)](out, 16, 300, BLOCK=BLOCK, num_warps=2)  # value: i32:16
    assert fill_u32.compile_count == count + 4


def test_device_and_block_size():
    out = poisoned(300, np.uint32)
    d1 = tegula.device("testdev:1")
    ck = fill_u32[(3,)](out, 4, 300, BLOCK=BLOCK, device=d1)
    assert ck.device == d1 and ck.block == (4 * 64, 1, 1)  # testdev:1: 64-wide warps
    assert (out == 4).all()


def test_n_regs_n_spills_n_max_threads(rng):
    # What testdev's kernel_get_attributes makes up (TestDevPlugin.cpp).
    out = poisoned(300, np.uint32)
    ck = fill_u32.warmup(out, 4, 300, BLOCK=BLOCK, grid=(3,))
    ck._init_handles()
    assert (ck.n_regs, ck.n_spills, ck.n_max_threads) == (16, 0, 1024)
    assert ck.attributes.shared_memory == 0 and ck.attributes.local_memory == 0
    x = rng.random(100, dtype=np.float32)
    ck = scale_f32.warmup(np.empty_like(x), x, 2.0, 100, BLOCK=BLOCK, grid=(1,))
    assert (ck.n_regs, ck.n_spills) == (255, 6)
    assert ck.attributes.local_memory == 24
    # Not told: None in attributes, the device's limit for n_max_threads.
    assert ck.attributes.max_threads_per_block is None and ck.attributes.shared_memory is None
    assert ck.n_max_threads == tegula.device("testdev:0").max_threads_per_block


def test_a_block_beyond_the_kernels_thread_limit_is_out_of_resources(monkeypatch):
    # testdev's fill_u32 then says its "registers" allow 64 threads a block;
    # its blocks have 128 (4 warps of 32), as Triton's _init_handles checks.
    monkeypatch.setenv("TEGULA_TESTDEV_MAX_THREADS", "64")
    out = poisoned(300, np.uint32)
    with pytest.raises(tegula.OutOfResources) as info:
        fill_u32[(3,)](out, 5, 300, BLOCK=32)
    e = info.value
    assert (e.required, e.limit, e.name) == (128, 64, "threads")
    assert "out of resource: threads, Required: 128, Hardware limit: 64" in str(e)
    assert "with 16 registers per thread it may have at most 64" in str(e)


def test_buffers(rng):
    n = 1000
    buf = tegula.empty(n, np.uint32)
    assert buf.dtype == np.uint32 and buf.shape == (n,) and buf.nbytes == 4 * n
    fill_u32[(cdiv(n, BLOCK),)](buf, 9, n, BLOCK=BLOCK)
    assert (buf.to_numpy() == 9).all()
    x = rng.standard_normal(n).astype(np.float32)
    src = tegula.from_numpy(x)
    dst = tegula.empty((n,), tl.float32)
    scale_f32[(cdiv(n, BLOCK),)](dst, src, -1.0, n, BLOCK=BLOCK)
    np.testing.assert_array_equal(dst.to_numpy(), -x)
    # Buffers choose the device when none is given.
    b1 = tegula.empty(n, "uint32", device="testdev:1")
    ck = fill_u32[(cdiv(n, BLOCK // 2),)](b1, 5, n, BLOCK=BLOCK // 2)
    assert ck.device.name == "testdev:1" and (b1.to_numpy() == 5).all()


def test_same_array_twice_is_one_copy(rng):
    x = rng.standard_normal(500).astype(np.float32)
    y = x.copy()
    scale_f32[(cdiv(500, BLOCK),)](y, y, 3.0, 500, BLOCK=BLOCK)
    np.testing.assert_array_equal(y, np.float32(3.0) * x)


def test_read_only_input(rng):
    x = rng.standard_normal(200).astype(np.float32)
    x.setflags(write=False)
    out = poisoned(200)
    scale_f32[(2,)](out, x, 0.5, 200, BLOCK=BLOCK)
    np.testing.assert_array_equal(out, np.float32(0.5) * x)


def test_launch_on_a_stream(rng):
    dev = tegula.device("testdev:0")
    s = dev.stream()
    x = rng.standard_normal(640).astype(np.float32)
    out = poisoned(640)
    scale_f32[(5,)](out, x, 2.0, 640, BLOCK=BLOCK, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, np.float32(2.0) * x)
    s.destroy()


def test_concurrent_launches(rng):
    outs = [poisoned(1000, np.uint32) for _ in range(6)]
    errors = []

    def work(i):
        try:
            fill_u32[(8,)](outs[i], 100 + i, 1000, BLOCK=BLOCK, num_warps=4, num_stages=1)
        except Exception as e:  # pragma: no cover
            errors.append(e)

    before = fill_u32.compile_count
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(outs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, o in enumerate(outs):
        assert (o == 100 + i).all()
    # 100+i is i32 or i32:16 (for 112): at most two specializations.
    assert fill_u32.compile_count - before <= 2


# -- Binding -------------------------------------------------------------------


def test_missing_argument():
    out = poisoned(8, np.uint32)
    with pytest.raises(TypeError, match=r"^fill_u32\(\) missing 1 required positional argument: "
                                        r"'n' \(the parameters are out_ptr, value, n, BLOCK\)"):
        fill_u32[(1,)](out, 1, BLOCK=BLOCK)
    with pytest.raises(TypeError, match=r"fill_u32\(\) missing 1 required positional "
                                        r"argument: 'BLOCK'"):
        fill_u32[(1,)](out, 1, 8)


def test_too_many_arguments():
    out = poisoned(8, np.uint32)
    with pytest.raises(TypeError, match=r"fill_u32\(\) takes 4 positional arguments but 5 "
                                        r"were given"):
        fill_u32[(1,)](out, 1, 8, BLOCK, 5)


def test_unknown_keyword():
    out = poisoned(8, np.uint32)
    with pytest.raises(TypeError, match=r"fill_u32\(\) got an unexpected keyword argument "
                                        r"'BLOCK_SIZE'"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, BLOCK_SIZE=BLOCK)
    with pytest.raises(TypeError, match=r"fill_u32\(\) got multiple values for argument 'n'"):
        fill_u32[(1,)](out, 1, 8, n=8, BLOCK=BLOCK)


def test_launch_options_are_checked():
    out = poisoned(8, np.uint32)
    with pytest.raises(ValueError, match="fill_u32: num_warps must be a power of 2, not 3"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, num_warps=3)
    with pytest.raises(ValueError, match="num_stages must be an int >= 0"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, num_stages=-1)
    with pytest.raises(TypeError, match="device must be a tegula.Device"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, device=3)
    with pytest.raises(tegula.TegulaError, match="nosuch:0"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, device="nosuch:0")
    s = tegula.device("testdev:1").stream()
    with pytest.raises(ValueError, match="the stream is on testdev:1 but the launch is on "
                                         "testdev:0"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK, device="testdev:0", stream=s)
    s.destroy()
    b = tegula.empty(8, np.uint32, device="testdev:1")
    with pytest.raises(ValueError, match="argument 'out_ptr' is a buffer on testdev:1, but "
                                         "the launch is on testdev:0"):
        fill_u32[(1,)](b, 1, 8, BLOCK=BLOCK, device="testdev:0")


# -- The grid --------------------------------------------------------------------


@pytest.mark.parametrize("grid,error,message", [
    ((0,), ValueError, "grid dimension x is 0; every dimension must be at least 1"),
    ((-3,), ValueError, "grid dimension x is -3"),
    ((1, 0), ValueError, "grid dimension y is 0"),
    ((1, 1, -1), ValueError, "grid dimension z is -1"),
    ((2 ** 31,), ValueError, "grid dimension x is 2147483648, above its limit 2147483647"),
    ((1, 65536), ValueError, "grid dimension y is 65536, above its limit 65535"),
    ((1, 1, 65536), ValueError, "grid dimension z is 65536, above its limit 65535"),
    ((), ValueError, "the grid must have 1 to 3 dimensions, not 0"),
    ((1, 1, 1, 1), ValueError, "the grid must have 1 to 3 dimensions, not 4"),
    ((1.5,), TypeError, "grid dimension x must be an int"),
    ((True,), TypeError, "grid dimension x is a bool"),
    ("abc", TypeError, "the grid must be a tuple of 1 to 3 ints"),
    (lambda meta: None, TypeError, "the grid must be a tuple of 1 to 3 ints"),
    (lambda meta: (0,), ValueError, "grid dimension x is 0"),
])
def test_bad_grid(grid, error, message):
    out = poisoned(8, np.uint32)
    before = fill_u32.compile_count
    with pytest.raises(error) as info:
        fill_u32[grid](out, 1, 8, BLOCK=BLOCK)
    assert str(info.value).startswith("fill_u32: ")
    assert message in str(info.value)
    assert fill_u32.compile_count == before  # checked before compiling
    assert (out == 0xDEADBEEF).all()


# -- Arguments ---------------------------------------------------------------------


def test_str_for_a_pointer():
    with pytest.raises(TypeError, match=r"fill_u32: argument 'out_ptr': cannot specialize an "
                                        r"argument of type 'str'"):
        fill_u32[(1,)]("out", 1, 8, BLOCK=BLOCK)


def test_none_for_a_scalar():
    # As in Triton, None specializes the parameter to the constant None: a
    # kernel that stores it fails to compile, naming the use and showing
    # what the parameter became.
    out = poisoned(8, np.uint32)
    with pytest.raises(tegula.CompilationError,
                       match=r"(?s)'value' must be a tensor or a number, got None.*"
                             r"in fill_u32\(out_ptr: \*u32:16, value: None, n: i32"):
        fill_u32[(1,)](out, None, 8, BLOCK=BLOCK)


def test_array_dtype_triton_does_not_have():
    out = np.zeros(8, np.complex64)
    with pytest.raises(TypeError, match="fill_u32: argument 'out_ptr': no Triton element "
                                        "type for dtype complex64"):
        fill_u32[(1,)](out, 1, 8, BLOCK=BLOCK)


def test_int_out_of_range():
    out = poisoned(8, np.uint32)
    with pytest.raises(ValueError, match="argument 'value': integer argument 18446744073709551616 "
                                         "does not fit in 64 bits"):
        fill_u32[(1,)](out, 2 ** 64, 8, BLOCK=BLOCK)


def test_scalars_are_packed_as_the_metadata_says():
    out = poisoned(8, np.uint32)
    # testdev's fill_u32 takes a u32 value: 2**32 (i64 here) does not fit.
    with pytest.raises(ValueError, match="fill_u32: argument 'value' = 4294967296 does not fit "
                                         "the kernel's u32"):
        fill_u32[(1,)](out, 2 ** 32, 8, BLOCK=BLOCK)
    with pytest.raises(ValueError, match="argument 'value' = -1 does not fit the kernel's u32"):
        fill_u32[(1,)](out, -1, 8, BLOCK=BLOCK)
    with pytest.raises(TypeError, match="argument 'value' has type u32 in the compiled "
                                        "kernel; got a float"):
        fill_u32[(1,)](out, 2.5, 8, BLOCK=BLOCK)
    fill_u32[(1,)](out, 2 ** 32 - 1, 8, BLOCK=BLOCK)  # u64 specialization, fits u32
    assert (out == 2 ** 32 - 1).all()
    # An int where the kernel has fp32 is converted; n is an i64 in scale_f32.
    x = np.arange(8, dtype=np.float32)
    y = poisoned(8)
    scale_f32[(1,)](y, x, 3, 8, BLOCK=BLOCK)
    np.testing.assert_array_equal(y, 3 * x)


def test_numpy_scalars_are_scalars():
    x = np.arange(200, dtype=np.float32)
    y = poisoned(200)
    ck = scale_f32[(2,)](y, x, np.float32(0.25), np.int64(200), BLOCK=BLOCK)
    assert ck.signature.split(", ")[2:] == ["fp32", "i32", "128"]
    np.testing.assert_array_equal(y, np.float32(0.25) * x)


def test_non_contiguous_array_on_a_copying_device():
    x = np.zeros(64, np.uint32)[::2]
    with pytest.raises(ValueError, match="argument 'out_ptr': the array is copied to the "
                                         "device, which needs it contiguous"):
        fill_u32[(1,)](x, 1, 32, BLOCK=BLOCK)


def test_buffer_without_dtype():
    raw = tegula.device("testdev:0").alloc(64)
    with pytest.raises(TypeError, match="argument 'out_ptr' is a tegula.Buffer without a "
                                        "dtype"):
        fill_u32[(1,)](raw, 1, 16, BLOCK=BLOCK)


def test_freed_buffer():
    b = tegula.empty(8, np.uint32)
    b.free()
    with pytest.raises(ValueError, match="Buffer has been freed"):
        fill_u32[(1,)](b, 1, 8, BLOCK=BLOCK)


def test_typed_pointer_annotations(rng):
    x32 = np.zeros(8, np.float32)
    x64 = np.zeros(8, np.float64)
    assert typed_scale.constexprs == ["BLOCK"]
    with pytest.raises(TypeError, match=r"typed_scale: argument 'out_ptr' is annotated \*fp32 "
                                        r"but the array's dtype is float64 \(fp64\)"):
        typed_scale[(1,)](x64, x32, 1.0, 8)
    with pytest.raises(TypeError, match=r"argument 'in_ptr' is annotated \*fp32 but the "
                                        r"array's dtype is int32 \(i32\)"):
        typed_scale[(1,)](x32, np.zeros(8, np.int32), 1.0, 8)
    with pytest.raises(TypeError, match=r"argument 'in_ptr' is annotated \*fp32 and needs an "
                                        r"array or a tegula.Buffer, not int"):
        typed_scale[(1,)](x32, 0, 1.0, 8)
    b = tegula.empty(8, np.float16)
    with pytest.raises(TypeError, match=r"argument 'out_ptr' is annotated \*fp32 but the "
                                        r"buffer holds fp16"):
        typed_scale[(1,)](b, x32, 1.0, 8)
    # Right dtypes get as far as the device compile (testdev has no such kernel).
    raw = tegula.device("testdev:0").alloc(32)  # an untyped buffer takes the annotation
    with pytest.raises(tegula.TegulaError, match="no built-in kernel 'typed_scale'"):
        typed_scale[(1,)](raw, x32, 1.0, 8)


def test_ml_dtypes_arrays():
    ml = pytest.importorskip("ml_dtypes")
    for dt, name in [(ml.bfloat16, "bf16"), (ml.float8_e4m3fn, "fp8e4nv"),
                     (ml.float8_e5m2, "fp8e5")]:
        a = np.zeros(8, dt)
        with pytest.raises(TypeError, match=r"annotated \*fp32 but the array's dtype is "
                                            r"%s \(%s\)" % (np.dtype(dt).name, name)):
            typed_scale[(1,)](np.zeros(8, np.float32), a, 1.0, 8)
        b = tegula.empty(4, dt)
        assert b.dtype_name == name
        assert tegula.specialize_arg(a).startswith("*" + name)


def test_allocation_that_cannot_be_satisfied():
    with pytest.raises(tegula.OutOfMemoryError) as info:
        tegula.empty((1 << 40,), np.float32)
    assert isinstance(info.value, tegula.TegulaError) and isinstance(info.value, MemoryError)
    assert info.value.code_name == "TG_ERROR_OUT_OF_MEMORY"
    assert "testdev: cannot allocate 4398046511104 bytes" in str(info.value)


def test_dtype_without_triton_type_for_empty():
    with pytest.raises(TypeError, match="no Triton element type"):
        tegula.empty(4, np.complex128)


# -- Errors from compiling ---------------------------------------------------------


def test_compile_error_carries_the_diagnostics():
    out = poisoned(256, np.uint32)
    before = broken_types.compile_count
    with pytest.raises(tegula.CompilationError) as info:
        broken_types[(1,)](out, 256, BLOCK=BLOCK)
    e = info.value
    path = os.path.join(HERE, "kernels", "testdev_kernels.py")
    assert e.diagnostics.startswith(path + ":35:29: error: ")
    assert "error: incompatible shapes for +: [128] and [256]" in e.diagnostics
    assert "    a = tl.arange(0, BLOCK) + tl.arange(0, 2 * BLOCK)\n" in e.diagnostics
    assert e.signature == "*u32:16, i32:16, 128" and e.kernel == "broken_types"
    assert broken_types.compile_count == before


def test_plugin_compile_error():
    x = np.zeros(64, np.float32)
    with pytest.raises(tegula.TegulaError) as info:
        add_kernel[(1,)](x, x, x, 64, BLOCK_SIZE=64)
    assert info.value.code_name == "TG_ERROR_NOT_FOUND"
    assert info.value.message.startswith(
        "add_kernel: compiling for testdev:0 (testdev:testarch) failed: testdev: no built-in "
        "kernel 'add_kernel'")


def test_argument_count_disagreeing_with_the_metadata():
    out = poisoned(8, np.uint32)
    with pytest.raises(RuntimeError, match=r"fill_u32: the compiled kernel takes 3 arguments "
                                           r"\(its metadata\), but 2 parameters are not "
                                           r"constexprs \(out_ptr, n\)"):
        mismatch.fill_u32[(1,)](out, 8, BLOCK=BLOCK)


def test_argument_kind_disagreeing_with_the_metadata():
    x = np.zeros(8, np.float32)
    with pytest.raises(RuntimeError, match=r"scale_f32: argument 'a' \(fp32\) is a pointer in "
                                           r"the compiled kernel's metadata \(argument 'in'\)"):
        mismatch.scale_f32[(1,)](x, 2.0, x, 8, BLOCK=BLOCK)


def test_missing_compiler_library(monkeypatch):
    monkeypatch.setattr(_compiler, "_lib", None)
    monkeypatch.setenv("TEGULA_COMPILER_LIB", "/nowhere/libtegula_compiler.so")
    out = poisoned(8, np.uint32)
    with pytest.raises(tegula.CompilerLibraryNotFound, match="/nowhere/libtegula_compiler.so"):
        fill_u32[(1,)](out, 1, 8, BLOCK=32)  # a new specialization: it must compile


def test_scalar_bit_patterns():
    from tegula import _launch
    h = lambda v, t: _launch.scalar_holder(fill_u32, "v", v, t).value  # noqa: E731
    assert h(1.0, 10) == 0x3C00  # fp16
    assert h(1.0, 11) == 0x3F80  # bf16
    assert h(1.00390625, 11) == 0x3F80  # a tie rounds to even
    assert h(1.01171875, 11) == 0x3F82
    assert h(float("nan"), 11) & 0x7FC0 == 0x7FC0
    assert h(True, 1) == 1 and h(0, 1) == 0  # i1 as one byte
    assert h(-5, 5) == -5 and h(2 ** 64 - 1, 9) == 2 ** 64 - 1
    assert h(3, 13) == 3.0  # an int where the kernel has fp64


def test_fp8_scalar_bit_patterns():
    pytest.importorskip("ml_dtypes")
    from tegula import _launch
    assert _launch.scalar_holder(fill_u32, "v", 1.0, 14).value == 0x38  # fp8e4nv
    assert _launch.scalar_holder(fill_u32, "v", 1.0, 15).value == 0x3C  # fp8e5
