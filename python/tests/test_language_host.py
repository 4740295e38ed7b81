"""Language features of issue #18 on the host CPU, against NumPy with
outputs poisoned first: integer-to-pointer casts (tl.pointer_type) and None
passed for a non-constexpr parameter."""

import os

import numpy as np
import pytest

import tegula

HERE = os.path.dirname(os.path.abspath(__file__))
K = tegula.import_triton_file(os.path.join(HERE, "kernels", "language_kernels.py"))


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def test_grouped_bases_from_int64_addresses(host, rng):
    # Three problems of different sizes, each found through its address.
    sizes = [5, 64, 33]
    problems = [rng.standard_normal(n).astype(np.float32) for n in sizes]
    before = [p.copy() for p in problems]
    addrs = np.array([p.ctypes.data for p in problems], dtype=np.int64)
    K.grouped_scale_kernel[(len(sizes),)](addrs, np.array(sizes, dtype=np.int32), 3.0,
                                          BLOCK=64, device=host)
    for p, b in zip(problems, before):
        np.testing.assert_array_equal(p, b * np.float32(3.0))


def test_pointer_to_int_and_back(host):
    x = np.array([2.5, np.nan], dtype=np.float32)
    out = np.zeros(1, dtype=np.int64)
    K.address_roundtrip_kernel[(1,)](x, out, device=host)
    assert out[0] == x.ctypes.data
    assert x[1] == np.float32(3.5)  # stored through address + 4 bytes


@pytest.mark.parametrize("with_bias", [False, True])
def test_none_for_a_pointer(host, rng, with_bias):
    n = 100
    x = rng.standard_normal(n).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32) if with_bias else None
    y = np.full(n, np.nan, dtype=np.float32)
    ck = K.optional_bias_kernel[(1,)](x, bias, y, n, BLOCK=128, device=host)
    np.testing.assert_array_equal(y, x + bias if with_bias else x)
    # None is a constant of the kernel, not one of its arguments.
    assert len(ck.args) == (4 if with_bias else 3)
