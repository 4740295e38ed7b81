"""Wide scalars on the host CPU: unsigned 64-bit scalars from 2**63 up reach
the kernel intact, and ints past 64 bits are refused by name."""

import numpy as np
import pytest

from kernels.reliability_kernels import store_scalar_kernel, store_u64_kernel


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
