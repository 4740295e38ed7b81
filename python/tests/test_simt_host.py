"""The host plugin's SIMT emulation of the GPU execution model
(TEGULA_HOST_SIMT, docs/gpu.md): the distributed lowering with warps of OS
threads. The corpus runs this way in ctest (python.host.simt); these tests
pin what the corpus cannot: a bad setting is a clear compile error, and a
kernel gives the same result with several warp sizes and warp counts. Each case runs in a child
process, since the plugin reads TEGULA_HOST_SIMT when it compiles."""

import os
import subprocess
import sys

import pytest

_CHILD = r"""
import os, sys
import numpy as np
import tegula
sys.path.insert(0, os.environ["KERNELS"])
from kernels.add_kernel import add_kernel
rng = np.random.default_rng(int(os.environ["SEED"]))
n = 1000
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
z = np.full(n, np.nan, np.float32)
add_kernel[(-(-n // 256),)](x, y, z, n, BLOCK_SIZE=256, num_warps=int(os.environ["WARPS"]))
assert np.array_equal(z, x + y), "vector add differs (seed %s)" % os.environ["SEED"]
print("ok")
"""


def child(env_extra, warps=4):
    env = dict(os.environ)
    env.update(env_extra)
    env["KERNELS"] = os.path.dirname(os.path.abspath(__file__))
    env["SEED"] = str(int.from_bytes(os.urandom(4), "little"))
    env["WARPS"] = str(warps)
    return subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("value", ["3", "128", "four"])
def test_bad_warp_size_is_a_compile_error(value):
    done = child({"TEGULA_HOST_SIMT": value})
    assert done.returncode != 0
    assert "TEGULA_HOST_SIMT=%s is not " % value in done.stderr, done.stderr


@pytest.mark.parametrize("warp,warps", [("1", 1), ("4", 2), ("8", 4), ("32", 1)])
def test_vector_add_matches(warp, warps):
    done = child({"TEGULA_HOST_SIMT": warp}, warps)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
