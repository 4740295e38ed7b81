"""The on-disk kernel cache across processes (docs/python.md): a second
process loads what the first compiled; a changed compile option, environment
variable, kernel or signature compiles again; a damaged entry is rebuilt;
TEGULA_CACHE_DIR=none turns it off. Each run is a child process of its own,
checked against NumPy."""

import os
import subprocess
import sys

_CHILD = r"""
import os, sys, json
import numpy as np
import tegula
sys.path.insert(0, os.environ["KERNELS"])
from kernels.add_kernel import add_kernel
opts = json.loads(os.environ["OPTIONS"])
n = 1000 + int(os.environ.get("EXTRA", "0"))
rng = np.random.default_rng()
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
z = np.full(n, np.nan, np.float32)
block = int(os.environ.get("BLOCK", "256"))
add_kernel[(-(-n // block),)](x, y, z, n, BLOCK_SIZE=block, device="host:0", **opts)
assert np.array_equal(z, x + y)
print(add_kernel.compile_count, add_kernel.disk_cache_hits)
"""


def run(cache, options="{}", **env):
    e = dict(os.environ)
    e.pop("TEGULA_HOST_SIMT", None)
    e.update(TEGULA_CACHE_DIR=str(cache), OPTIONS=options,
             KERNELS=os.path.dirname(os.path.abspath(__file__)), **env)
    done = subprocess.run([sys.executable, "-c", _CHILD], env=e, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    compiled, hits = map(int, done.stdout.split())
    assert compiled == 1
    return hits


def entries(cache):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs
                  if f.endswith(".tgk"))


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    assert len(entries(cache)) == 1
    assert run(cache) == 1
    assert run(cache) == 1


def test_each_kind_of_setting_compiles_again(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    # A compile option, its environment variable, another specialization
    # (n's divisibility), another constexpr: each misses, then hits.
    for variant in ({"options": '{"simt": 4}'}, {"TEGULA_HOST_SIMT": "8"},
                    {"EXTRA": "8"}, {"BLOCK": "128"}):
        assert run(cache, **variant) == 0, variant
        assert run(cache, **variant) == 1, variant
    assert len(entries(cache)) == 5
    assert run(cache) == 1


def test_a_damaged_entry_is_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    (entry,) = entries(cache)
    data = bytearray(open(entry, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(entry, "wb").write(bytes(data))
    assert run(cache) == 0
    assert run(cache) == 1


def test_none_turns_it_off(tmp_path):
    assert run("none") == 0
    assert run("none") == 0
    assert not os.path.exists("none") or not entries("none")


_WARMUP = r"""
import os, sys, platform
import tegula
sys.path.insert(0, os.environ["KERNELS"])
from kernels.add_kernel import add_kernel
# The launch of _CHILD specializes n=1000 (not a multiple of 16) this way.
print(tegula.warmup(add_kernel, "*fp32:16, *fp32:16, *fp32:16, i32, 256",
                    ["host:" + platform.machine()]))
"""


def test_warmup_fills_the_cache_for_a_later_launch(tmp_path):
    cache = tmp_path / "cache"
    e = dict(os.environ, TEGULA_CACHE_DIR=str(cache),
             KERNELS=os.path.dirname(os.path.abspath(__file__)))
    e.pop("TEGULA_HOST_SIMT", None)
    done = subprocess.run([sys.executable, "-c", _WARMUP], env=e, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(entries(cache)) == 1
    assert run(cache) == 1
