"""Bad arrays and wide scalars on the host CPU, where arrays are passed in
place: a read-only array is accepted only where the kernel never writes
(what the compiler's analysis says, tegula_compile_result_get_arg_writes), a
view whose elements overlap is refused for any pointer, and unsigned 64-bit
scalars from 2**63 up reach the kernel intact."""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import tegula
from tegula import _compiler

from kernels.reliability_kernels import (atomic_count_kernel, block_pointer_copy_kernel,
                                         copy_kernel, helper_store_kernel,
                                         store_scalar_kernel, store_u64_kernel)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "kernels", "reliability_kernels.py")
READ_ONLY = r"argument '%s' is a read-only array, but the kernel writes through it"


def writes(kernel, signature):
    with open(SOURCE) as f:
        return _compiler.compile_kernel_info(f.read(), kernel, signature)[1]


# -- What the compiler says --------------------------------------------------------


def test_the_compiler_says_which_pointers_are_written():
    assert writes("copy_kernel", "*fp32:16, *fp32:16, i32, 16")[:2] == (True, False)
    assert writes("atomic_count_kernel", "*i32, *i32, i32, 16")[:2] == (True, False)
    # Block pointers carried through a loop: each to its own iteration value.
    assert writes("block_pointer_copy_kernel", "*fp32, *fp32, i32, 16")[:2] == (True, False)
    # Through a helper (inlined) and a constexpr choice.
    assert writes("helper_store_kernel", "*fp32, *fp32, i32, True, 16")[:2] == (True, False)
    assert writes("helper_store_kernel", "*fp32, *fp32, i32, False, 16")[:2] == (False, True)


# -- Read-only arrays ----------------------------------------------------------------


def test_a_read_only_output_is_refused_and_left_alone(host):
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(64, np.float32)
    dst.setflags(write=False)
    with pytest.raises(ValueError, match="copy_kernel: " + READ_ONLY % "dst_ptr"):
        copy_kernel[(1,)](dst, src, 64, BLOCK=64, device=host)
    assert not dst.any()


def test_an_array_over_bytes_is_never_written(host):
    frozen = bytes(256)
    dst = np.frombuffer(frozen, np.float32)
    src = np.arange(64, dtype=np.float32)
    with pytest.raises(ValueError, match=READ_ONLY % "dst_ptr"):
        copy_kernel[(1,)](dst, src, 64, BLOCK=64, device=host)
    assert frozen == bytes(256)
    # Read, it is fine.
    out = np.full(64, -1, np.float32)
    copy_kernel[(1,)](out, dst, 64, BLOCK=64, device=host)
    assert not out.any()


def test_read_only_inputs_are_read(host):
    src = np.arange(100, dtype=np.float32)
    src.setflags(write=False)
    out = np.zeros(100, np.float32)
    copy_kernel[(2,)](out, src, 100, BLOCK=64, device=host)
    np.testing.assert_array_equal(out, src)
    out = np.zeros(100, np.float32)
    block_pointer_copy_kernel[(1,)](out, src, 100, BLOCK=32, device=host)
    np.testing.assert_array_equal(out, src)
    ints = np.arange(40, dtype=np.int32)
    ints.setflags(write=False)
    counter = np.zeros(1, np.int32)
    atomic_count_kernel[(1,)](counter, ints, 40, BLOCK=64, device=host)
    assert counter[0] == ints.sum()


def test_atomics_block_pointers_and_helpers_count_as_writes(host):
    ints = np.arange(40, dtype=np.int32)
    counter = np.zeros(1, np.int32)
    counter.setflags(write=False)
    with pytest.raises(ValueError, match="atomic_count_kernel: " + READ_ONLY % "counter_ptr"):
        atomic_count_kernel[(1,)](counter, ints, 40, BLOCK=64, device=host)
    src = np.ones(100, np.float32)
    dst = np.zeros(100, np.float32)
    dst.setflags(write=False)
    with pytest.raises(ValueError, match=READ_ONLY % "dst_ptr"):
        block_pointer_copy_kernel[(1,)](dst, src, 100, BLOCK=32, device=host)
    a, b = np.zeros(16, np.float32), np.arange(16, dtype=np.float32)
    b.setflags(write=False)
    helper_store_kernel[(1,)](a, b, 16, FIRST=True, BLOCK=16, device=host)  # b is read
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=READ_ONLY % "b_ptr"):
        helper_store_kernel[(1,)](a, b, 16, FIRST=False, BLOCK=16, device=host)
    assert not np.any(b != np.arange(16))


def test_the_fast_path_checks_read_only_too(host):
    src = np.arange(64, dtype=np.float32)
    for _ in range(3):  # the second launch of a kind takes the fast path
        out = np.zeros(64, np.float32)
        copy_kernel[(1,)](out, src, 64, BLOCK=64, device=host)
        np.testing.assert_array_equal(out, src)
    out.fill(0)
    out.setflags(write=False)
    with pytest.raises(ValueError, match=READ_ONLY % "dst_ptr"):
        copy_kernel[(1,)](out, src, 64, BLOCK=64, device=host)
    assert not out.any()


def test_a_container_kernel_never_writes_a_read_only_array(host, tmp_path):
    c = tegula.compile(copy_kernel, "*fp32:16, *fp32:16, i32", "host:" + platform.machine(),
                       tmp_path / "copy.tgk", constexprs={"BLOCK": 64},
                       runtime=host.runtime)
    kernel = c["copy_kernel"]
    frozen = bytes(256)
    dst = np.frombuffer(frozen, np.float32)
    kernel[(1,)](dst, np.ones(64, np.float32), 64, device=host)
    assert frozen == bytes(256)  # a private copy took the write
    src = np.arange(64, dtype=np.float32)
    src.setflags(write=False)
    out = np.zeros(64, np.float32)
    kernel[(1,)](out, src, 64, device=host)
    np.testing.assert_array_equal(out, src)


# -- Overlapping views ------------------------------------------------------------------

_OVERLAP = r"argument '%s' is a view whose elements overlap in memory"


def test_overlapping_views_are_refused_for_any_pointer(host):
    one = np.zeros(1, np.float32)
    wide = np.broadcast_to(one, (1 << 20,))
    src = np.zeros(1 << 20, np.float32)
    with pytest.raises(ValueError, match="copy_kernel: " + _OVERLAP % "dst_ptr"):
        copy_kernel[(1 << 10,)](wide, src, 1 << 20, BLOCK=1024, device=host)
    out = np.zeros(1 << 20, np.float32)
    with pytest.raises(ValueError, match=_OVERLAP % "src_ptr"):
        copy_kernel[(1 << 10,)](out, wide, 1 << 20, BLOCK=1024, device=host)
    # Writable, through as_strided: refused as well.
    base = np.zeros(16, np.float32)
    rows = np.lib.stride_tricks.as_strided(base, shape=(8, 8), strides=(4, 4))
    with pytest.raises(ValueError, match=_OVERLAP % "dst_ptr"):
        copy_kernel[(1,)](rows, src, 64, BLOCK=64, device=host)
    # The fast path refuses it too, after launches of the same kind.
    full = np.zeros((64, 64), np.float32)
    for _ in range(2):
        copy_kernel[(1,)](full[:, ::2], src, 32, BLOCK=64, device=host)
    view = np.lib.stride_tricks.as_strided(full, shape=(64, 32), strides=(4, 8))
    with pytest.raises(ValueError, match=_OVERLAP % "dst_ptr"):
        copy_kernel[(1,)](view, src, 32, BLOCK=64, device=host)


def test_strided_views_that_do_not_overlap_are_passed_in_place(host):
    full = np.zeros((4, 32), np.float32)
    src = np.arange(16, dtype=np.float32)
    copy_kernel[(1,)](full[1:, ::2], src, 16, BLOCK=16, device=host)  # its data pointer
    np.testing.assert_array_equal(full[1, :16], src)
    copy_kernel[(1,)](full.T, src, 16, BLOCK=16, device=host)


_CRASH = r"""
import os, sys
sys.path.insert(0, os.environ["TESTS"])
import numpy as np, tegula
from kernels.reliability_kernels import copy_kernel
rt = tegula.Runtime(visible_backends="host")
host = rt.find_device("host:0")
wide = np.broadcast_to(np.zeros(1, np.float32), (1 << 24,))
try:
    copy_kernel[(1 << 14,)](wide, np.ones(1 << 24, np.float32), 1 << 24, BLOCK=1024,
                            device=host)
except ValueError as e:
    print("refused:", e)
"""


def test_a_broadcast_output_does_not_crash_the_process():
    env = dict(os.environ, TESTS=HERE)
    done = subprocess.run([sys.executable, "-c", _CRASH], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, "exit status %d: %s" % (done.returncode, done.stderr)
    assert done.stdout.startswith("refused: copy_kernel: " + "argument 'dst_ptr' is a view "
                                  "whose elements overlap in memory"), done.stdout


# -- Unsigned 64-bit scalars ---------------------------------------------------------------


@pytest.mark.parametrize("value", [2 ** 63, 2 ** 63 + 1, 2 ** 64 - 16, 2 ** 64 - 1])
def test_u64_scalars_reach_the_kernel(host, value):
    for _ in range(3):  # the full path, then the fast path
        out = np.zeros(1, np.uint64)
        store_u64_kernel[(1,)](out, value, device=host)
        assert int(out[0]) == value
    out = np.zeros(1, np.uint64)
    store_u64_kernel[(1,)](out, np.uint64(value), device=host)
    assert int(out[0]) == value


def test_i64_scalars_still_work(host):
    for value in (-2 ** 63, -1, 2 ** 31, 2 ** 63 - 1):
        out = np.zeros(1, np.int64)
        store_scalar_kernel[(1,)](out, value, device=host)
        assert int(out[0]) == value


@pytest.mark.parametrize("value", [2 ** 64, 2 ** 70, -2 ** 63 - 1])
def test_integers_beyond_64_bits_are_refused_by_name(host, value):
    out = np.zeros(1, np.uint64)
    with pytest.raises(ValueError, match=r"store_u64_kernel: argument 'value': integer "
                       r"argument %d does not fit in 64 bits" % value):
        store_u64_kernel[(1,)](out, value, device=host)


def test_arange_beyond_int32_is_a_located_error(host):
    from kernels.reliability_kernels import huge_arange_kernel
    x = np.zeros(4, dtype=np.int32)
    with pytest.raises(tegula.CompilationError,
                       match=r"reliability_kernels\.py:\d+:\d+: error: arange must fit in int32"):
        huge_arange_kernel[(1,)](x, device=host)


def test_int32_annotation_refuses_wider_values(host):
    from kernels.reliability_kernels import int32_annotated_kernel
    x = np.zeros(1, dtype=np.int64)
    int32_annotated_kernel[(1,)](x, 2**31 - 1, device=host)
    assert x[0] == 2**31 - 1
    for bad in (2**31, -2**31 - 1, 2**40):
        with pytest.raises(ValueError, match=r"argument 'n' is annotated int32, which cannot "
                           r"hold %d" % bad):
            int32_annotated_kernel[(1,)](x, bad, device=host)
    assert x[0] == 2**31 - 1


def test_tiles_beyond_triton_s_maximum_are_refused(host):
    # 2^25-element tiles in scratch crashed at launch; like Triton, no tile
    # may hold more than TRITON_MAX_TENSOR_NUMEL (2^20) elements.
    from kernels.reliability_kernels import big_cumsum_kernel
    n = 1 << 20
    x = np.ones(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    big_cumsum_kernel[(1,)](x, y, N=n, device=host)
    np.testing.assert_array_equal(y, np.arange(1, n + 1, dtype=np.float32))
    for n in (1 << 21, 1 << 25):
        with pytest.raises(tegula.CompilationError,
                           match=r"reliability_kernels\.py:\d+:\d+: error: numel \(%d\) exceeds "
                                 r"triton maximum tensor numel \(1048576\)" % n):
            big_cumsum_kernel[(1,)](x, y, N=n, device=host)
