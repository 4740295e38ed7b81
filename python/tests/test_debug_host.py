"""The bounds-checked debug mode on the host CPU (docs/runtime.md, "Debug
mode"): with TEGULA_DEBUG=1 or @jit(debug=True), a load, store or atomic
outside the buffers the launch passed fails the launch with the kernel's
name, the source line and the offending index, and touches nothing outside;
accesses inside run as without it. The buffer is what the launch was given:
a view of a larger array ends where the view ends."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tegula
from tegula import _accel_py, _launch, _launcher

from kernels import debug_kernels as dk
from kernels.reliability_kernels import copy_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "kernels", "debug_kernels.py")


def line_of(text, after=None):
    """The 1-based line of |text| in debug_kernels.py (after line |after|)."""
    with open(SOURCE) as f:
        for i, line in enumerate(f, 1):
            if (after is None or i > after) and text in line:
                return i
    raise AssertionError("%r not in %s" % (text, SOURCE))


def def_line(kernel):
    return line_of("def %s(" % kernel)


def report(access, kernel, line, index, begin, end):
    """The error's text, as a regex."""
    return (r"out-of-bounds %s at %s:%d in %s: index %d is outside \[%d, %d\) \(program "
            % (re.escape(access), re.escape(SOURCE), line, kernel, index, begin, end))


@pytest.fixture
def debug(monkeypatch):
    monkeypatch.setenv("TEGULA_DEBUG", "1")


def test_accesses_inside_run_as_without_debug(host, debug):
    rng = np.random.default_rng()
    src = rng.standard_normal(1000).astype(np.float32)
    dst = np.full(1000, np.nan, np.float32)
    copy_kernel[(8,)](dst, src, 1000, BLOCK=128, device=host)
    np.testing.assert_array_equal(dst, src)
    # 2-D, a loop-carried pointer, an atomic, a scalar store: all inside.
    out = np.full((5, 16), -1, np.float32)
    dk.rows_kernel[(1,)](out, 5, 12, 16, ROWS=8, COLS=16, device=host)
    r, c = np.mgrid[0:5, 0:12]
    np.testing.assert_array_equal(out[:, :12], (r * 100 + c).astype(np.float32))
    assert (out[:, 12:] == -1).all()
    dst = np.zeros(256, np.float32)
    dk.loop_kernel[(1,)](dst, src, 250, 4, BLOCK=64, device=host)
    np.testing.assert_array_equal(dst[:250], src[:250] + 1)
    np.testing.assert_array_equal(dst[250:], np.ones(6, np.float32))
    counter = np.zeros(4, np.int32)
    dk.atomic_kernel[(3,)](counter, 2, device=host)
    assert list(counter) == [0, 0, 3, 0]


def test_a_store_past_the_end_is_reported_and_not_made(host, debug):
    src = np.arange(128, dtype=np.float32)
    big = np.full(128, -1, np.float32)
    dst = big[:100]  # the launch gives 100 elements; memory goes on
    line = line_of("tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))")
    with pytest.raises(tegula.TegulaError,
                       match=report("store to 'dst_ptr'", "unmasked_store_kernel", line,
                                    100, 0, 100) + r"\(0, 0, 0\)\)"):
        dk.unmasked_store_kernel[(1,)](dst, src, BLOCK=128, device=host)
    np.testing.assert_array_equal(big[:100], src[:100])
    assert (big[100:] == -1).all()  # the offending elements were not stored


def test_the_program_id_names_the_failing_program(host, debug):
    src = np.arange(256, dtype=np.float32)
    dst = np.zeros(200, np.float32)
    with pytest.raises(tegula.TegulaError, match=r"index 200 is outside \[0, 200\) "
                       r"\(program \(3, 0, 0\)\)"):
        dk.unmasked_store_kernel[(4,)](dst, src[:256], BLOCK=64, device=host)


def test_a_load_before_the_start_is_reported(host):
    # @jit(debug=True): no environment variable needed.
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    line = line_of("tl.load(src_ptr + offsets + shift)")
    with pytest.raises(tegula.TegulaError,
                       match=report("load from 'src_ptr'", "shifted_load_kernel", line,
                                    -3, 0, 60)):
        dk.shifted_load_kernel[(1,)](dst, src[4:], -3, BLOCK=16, device=host)
    dk.shifted_load_kernel[(1,)](dst, src[4:], 44, BLOCK=16, device=host)
    np.testing.assert_array_equal(dst, src[48:])
    with pytest.raises(tegula.TegulaError, match=r"index 60 is outside \[0, 60\)"):
        dk.shifted_load_kernel[(1,)](dst, src[4:], 45, BLOCK=16, device=host)


def test_debug_false_wins_over_the_environment(host, debug):
    big = np.arange(64, dtype=np.float32)
    dst = np.zeros(32, np.float32)
    dk.never_checked_kernel[(1,)](dst, big[:16], BLOCK=32, device=host)  # reads past the view
    np.testing.assert_array_equal(dst, big[:32])


def test_two_dimensional_stores_report_the_smallest_offending_index(host, debug):
    out = np.zeros((4, 16), np.float32)
    line = line_of("tl.store(dst_ptr + r * stride + c, v")
    # Rows up to 5 of a 4-row array: element 4 * 16 = 64 is the first outside.
    with pytest.raises(tegula.TegulaError,
                       match=report("store to 'dst_ptr'", "rows_kernel", line, 64, 0, 64)):
        dk.rows_kernel[(1,)](out, 5, 16, 16, ROWS=8, COLS=16, device=host)
    r, c = np.mgrid[0:4, 0:16]
    np.testing.assert_array_equal(out, (r * 100 + c).astype(np.float32))


def test_loop_carried_pointers_are_checked(host, debug):
    src = np.arange(256, dtype=np.float32)
    dst = np.zeros(192, np.float32)
    with pytest.raises(tegula.TegulaError, match=r"store to 'dst_ptr' .* index 192 is "
                       r"outside \[0, 192\)"):
        dk.loop_kernel[(1,)](dst, src, 256, 4, BLOCK=64, device=host)
    np.testing.assert_array_equal(dst, src[:192] + 1)


def test_atomics_and_scalar_accesses_are_checked(host, debug):
    counter = np.zeros(4, np.int32)
    with pytest.raises(tegula.TegulaError, match=r"out-of-bounds atomic on 'counter_ptr' "
                       r".* index 4 is outside \[0, 4\)"):
        dk.atomic_kernel[(1,)](counter, 4, device=host)
    assert not counter.any()
    dst = np.zeros(8, np.float32)
    with pytest.raises(tegula.TegulaError, match=r"store to 'dst_ptr' .* index -1 is "
                       r"outside \[0, 8\)"):
        dk.scalar_store_kernel[(1,)](dst, -1, 2.0, device=host)
    dk.scalar_store_kernel[(1,)](dst, 7, 2.0, device=host)
    assert list(dst) == [0] * 7 + [2]


def test_a_pointer_of_either_argument_is_checked_against_both(host, debug):
    # a's memory goes on (so a + 9 is mapped) and b lies elsewhere.
    a, b = np.zeros(1 << 16, np.float32)[:4], np.zeros(8, np.float32)
    dk.select_kernel[(1,)](a, b, 0, 6, device=host)
    assert b[6] == 7
    with pytest.raises(tegula.TegulaError, match=r"store to 'a_ptr' \(or 1 other buffer\) "
                       r".* index 9 is outside \[0, 4\)"):
        dk.select_kernel[(1,)](a, b, 2, 9, device=host)  # (1 would specialize to a_ptr)


def test_the_debug_mode_is_part_of_the_kernel_cache_key(host, monkeypatch):
    src = np.arange(128, dtype=np.float32)
    dst = np.zeros(128, np.float32)
    kernel = dk.cache_key_kernel
    monkeypatch.delenv("TEGULA_DEBUG", raising=False)
    kernel[(1,)](dst, src, BLOCK=128, device=host)
    compiled = kernel.compile_count
    monkeypatch.setenv("TEGULA_DEBUG", "1")
    with pytest.raises(tegula.TegulaError, match="index 64 is outside"):
        kernel[(1,)](dst[:64], src, BLOCK=128, device=host)
    assert kernel.compile_count == compiled + 1
    monkeypatch.setenv("TEGULA_DEBUG", "0")
    kernel[(1,)](dst, src, BLOCK=128, device=host)  # the first kernel again
    assert kernel.compile_count == compiled + 1


@pytest.mark.parametrize("steps", ["C", "python"])
def test_the_launchers_entries_pass_each_calls_bounds(host, debug, monkeypatch, steps):
    # After the first (full) launch, launches of the same kind go through
    # the generated launcher's entry: its hidden arguments must be the
    # bounds of this call's arrays, not of the first call's.
    if steps == "python":
        monkeypatch.setattr(_launcher, "accel", _accel_py._Fallback)
    elif not getattr(_launcher.accel, "available", False):
        pytest.skip("tegula._accel is not built")
    kernel = dk.fast_path_kernel
    kernel._fast = None
    full = []
    real = _launch._full_launch

    def counted(fn, *args, **kwargs):
        full.append(fn.__name__)
        return real(fn, *args, **kwargs)
    monkeypatch.setattr(_launch, "_full_launch", counted)
    rng = np.random.default_rng()
    src = rng.standard_normal(128).astype(np.float32)
    ck = kernel[(1,)](np.zeros(128, np.float32), src, BLOCK=128, device=host)
    assert full == ["fast_path_kernel"] and ck.debug
    assert len(kernel._fast.entries) == 1
    compiled = kernel.compile_count
    dst = np.full(128, np.nan, np.float32)
    assert kernel[(1,)](dst, src, BLOCK=128, device=host) is ck
    np.testing.assert_array_equal(dst, src)
    # Same key (aligned, writable fp32 arrays), a shorter one: reported by
    # the entry's launch, and nothing stored past the view.
    big = np.full(128, -1, np.float32)
    line = line_of("tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets))",
                   after=def_line("fast_path_kernel"))
    with pytest.raises(tegula.TegulaError,
                       match=report("store to 'dst_ptr'", "fast_path_kernel", line, 96, 0, 96)):
        kernel[(1,)](big[:96], src, BLOCK=128, device=host)
    np.testing.assert_array_equal(big[:96], src[:96])
    assert (big[96:] == -1).all()
    # A strided view (the same key): its span is 2 * 63 + 1 elements.
    with pytest.raises(tegula.TegulaError, match=r"load from 'src_ptr' .* index 127 is "
                       r"outside \[0, 127\)"):
        kernel[(1,)](dst, np.zeros(128, np.float32)[::2], BLOCK=128, device=host)
    assert full == ["fast_path_kernel"] and kernel.compile_count == compiled
    # The hidden arguments, as the full launch would pass them.
    assert _accel_py.arg_bounds(big[:96]) == (0, 384)
    assert _accel_py.arg_bounds(big[::-2]) == (-504, 4)
    assert _accel_py.arg_bounds(big[:0]) == (0, 0)
    for view in (big[:96], big[::-2], big[:0], big.reshape(8, 16).T):
        assert _accel_py.arg_bounds(view) == _launch._object_span(view)


def test_the_launchers_key_holds_the_debug_mode(host, monkeypatch):
    kernel = dk.cache_key_kernel
    args = ((1,), np.zeros(64, np.float32), np.zeros(64, np.float32))
    monkeypatch.delenv("TEGULA_DEBUG", raising=False)
    off = kernel._launcher().key(*args, BLOCK=64)
    monkeypatch.setenv("TEGULA_DEBUG", "1")
    on = kernel._launcher().key(*args, BLOCK=64)
    assert off is not None and on is not None and off != on
    # jit(debug=) decides whatever the environment says.
    fixed = dk.never_checked_kernel._launcher()
    with_env = fixed.key(*args, BLOCK=64)
    monkeypatch.delenv("TEGULA_DEBUG")
    assert fixed.key(*args, BLOCK=64) == with_env


def test_read_only_inputs_still_run(host, debug):
    src = np.arange(64, dtype=np.float32)
    src.setflags(write=False)
    dst = np.zeros(64, np.float32)
    copy_kernel[(1,)](dst, src, 64, BLOCK=64, device=host)
    np.testing.assert_array_equal(dst, src)


def test_tegula_compile_debug_adds_the_checks_and_arguments(tmp_path):
    tool = os.path.join(os.path.dirname(os.environ["TEGULA_RUNTIME_LIB"]), "..", "bin",
                        "tegula")
    if not os.path.exists(tool):
        pytest.skip("no tegula executable beside the runtime library (%s)" % tool)
    sig = "*fp32:16, *fp32:16, 128"
    cmd = [tool, "compile", SOURCE, "--kernel", "unmasked_store_kernel", "--signature", sig]
    plain = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    debug = subprocess.run(cmd + ["--debug"], capture_output=True, text=True,
                           check=True).stdout
    assert "out_of_bounds" not in plain
    assert len(re.findall(r"\bout_of_bounds %", debug)) == 2, debug
    assert "\"load from 'src_ptr'\"" in debug and "\"store to 'dst_ptr'\"" in debug
    header = next(line for line in debug.splitlines() if "tile.func" in line)
    assert len(re.findall(r"%arg\d+: i64", header)) == 4, header  # two per pointer
