"""The on-disk kernel cache across processes (docs/python.md): a second
process loads what the first compiled; a changed compile option, environment
variable, kernel or signature compiles again; a damaged entry is rebuilt;
TEGULA_CACHE_DIR=none turns it off; TEGULA_CACHE_STATS=1 prints the hits and
misses; entries another user could have written (the shared-folder attack of
issue #21) are never loaded. Each run is a child process of its own, checked
against NumPy."""

import os
import subprocess
import sys

import pytest

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
if os.environ.get("REPORT_COMPILER"):
    with open("/proc/self/maps") as maps:
        sys.stderr.write("compiler loaded: %s\n" % ("libtegula_compiler" in maps.read()))
"""


def run_child(cache, options="{}", **env):
    """(disk cache hits, stderr) of one child process."""
    e = dict(os.environ)
    for name in ("TEGULA_HOST_SIMT", "TEGULA_CACHE_STATS", "TEGULA_CACHE_DEBUG", "TEGULA_DEBUG"):
        e.pop(name, None)
    e.update(TEGULA_CACHE_DIR=str(cache), OPTIONS=options,
             KERNELS=os.path.dirname(os.path.abspath(__file__)), **env)
    done = subprocess.run([sys.executable, "-c", _CHILD], env=e, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    compiled, hits = map(int, done.stdout.split())
    assert compiled == 1
    return hits, done.stderr


def run(cache, options="{}", **env):
    return run_child(cache, options, **env)[0]


def entries(cache):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs
                  if f.endswith(".tgk"))


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    assert len(entries(cache)) == 1
    assert run(cache) == 1
    assert run(cache) == 1


def test_a_hit_does_not_load_the_compiler(tmp_path):
    # The key names the compiler library's file; a hit needs nothing else of
    # it, and loading it (with LLVM and MLIR) is most of a warm start.
    cache = tmp_path / "cache"
    hits, err = run_child(cache, REPORT_COMPILER="1")
    assert hits == 0 and "compiler loaded: True" in err
    hits, err = run_child(cache, REPORT_COMPILER="1")
    assert hits == 1 and "compiler loaded: False" in err, err


def test_each_kind_of_setting_compiles_again(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    # A compile option, its environment variable, another specialization
    # (n's divisibility), another constexpr, the debug mode: each misses,
    # then hits.
    for variant in ({"options": '{"simt": 4}'}, {"TEGULA_HOST_SIMT": "8"},
                    {"EXTRA": "8"}, {"BLOCK": "128"}, {"TEGULA_DEBUG": "1"}):
        assert run(cache, **variant) == 0, variant
        assert run(cache, **variant) == 1, variant
    assert len(entries(cache)) == 6
    assert run(cache) == 1


_ATTENTION = r"""
import os, sys
import numpy as np
sys.path.insert(0, os.environ["KERNELS"])
import corpus_kernels
kernel = corpus_kernels.load("flash_attention.py")["_attn_fwd"]
z, h, n, d = 1, 2, 128, 64
rng = np.random.default_rng()
q, k, v = (rng.standard_normal((z, h, n, d)).astype(np.float16) for _ in range(3))
o = np.full((z, h, n, d), np.nan, np.float16)
m = np.full(z * h * n, np.nan, np.float32)
s = lambda t: [st // t.itemsize for st in t.strides]
kernel[(n // 64, z * h, 1)](q, k, v, 0.5, m, o, *s(q), *s(k), *s(v), *s(o), z, h, n,
                            HEAD_DIM=d, BLOCK_M=64, BLOCK_N=64, STAGE=1, device="host:0")
p = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * 0.5
p = np.exp(p - p.max(axis=-1, keepdims=True))
ref = np.einsum("zhmn,zhnd->zhmd", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))
assert np.abs(o - ref).max() < 3e-3, np.abs(o - ref).max()
print(kernel.compile_count - kernel.disk_cache_hits, kernel.disk_cache_hits)
"""


def test_a_second_process_compiles_nothing_for_flash_attention(tmp_path):
    # The warm start gpu_bench.py times on the GPU: here, that the second
    # process finds everything in the cache (its own count and the cache's).
    cache = tmp_path / "cache"
    e = dict(os.environ, TEGULA_CACHE_DIR=str(cache), TEGULA_CACHE_STATS="1",
             KERNELS=os.path.dirname(os.path.abspath(__file__)))
    for name in ("TEGULA_HOST_SIMT", "TEGULA_CACHE_DEBUG", "TEGULA_DEBUG"):
        e.pop(name, None)
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _ATTENTION], env=e, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append((done.stdout.split(), done.stderr))
    (compiled, hits), err = outputs[0]
    assert (compiled, hits) == ("1", "0")
    assert "tegula: kernel cache %s: 0 hits, 1 misses" % cache in err, err
    (compiled, hits), err = outputs[1]
    assert (compiled, hits) == ("0", "1")
    assert "tegula: kernel cache %s: 1 hits, 0 misses" % cache in err, err


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


def test_stats_count_hits_and_misses(tmp_path):
    cache = tmp_path / "cache"
    hits, err = run_child(cache, TEGULA_CACHE_STATS="1")
    assert hits == 0
    assert "tegula: kernel cache %s: 0 hits, 1 misses" % cache in err, err
    hits, err = run_child(cache, TEGULA_CACHE_STATS="1")
    assert hits == 1
    assert "tegula: kernel cache %s: 1 hits, 0 misses" % cache in err, err
    # Quiet without it.
    assert run_child(cache)[1] == ""


# -- Trust: what another user could have written is never loaded -----------

NOBODY = 65534
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="needs root, to make files owned by another user (uid 65534)")


def chown_tree(path, uid):
    os.lchown(path, uid, uid)
    for d, dirs, files in os.walk(path):
        for name in dirs + files:
            os.lchown(os.path.join(d, name), uid, uid)


def planted_entry(tmp_path):
    """(path relative to the cache, bytes) of a valid entry for _CHILD's
    kernel: what an attacker running the same code would have, with the
    checksum recomputed over whatever payload they like."""
    own = tmp_path / "attacker-build"
    assert run(own) == 0
    (entry,) = entries(own)
    return os.path.relpath(entry, own), open(entry, "rb").read()


@needs_root
def test_an_entry_planted_in_a_shared_folder_is_not_loaded(tmp_path):
    # The attack of issue #21: a shared 1777 folder, in which another user
    # (nobody) put an entry for the victim's key, both where the key's entry
    # lies and in the victim's per-user subfolder, made first by them.
    rel, data = planted_entry(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    own = shared / str(os.geteuid())
    for where in (shared / rel, own / rel):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_bytes(data)
    os.chmod(own, 0o777)
    for top in (own, shared / rel.split(os.sep)[0]):
        chown_tree(top, NOBODY)
    hits, err = run_child(shared)
    assert hits == 0, "the planted entry was loaded"
    assert err.count("tegula: warning: kernel cache folder %s is owned by user 65534, "
                     "not by you (user 0); not using the cache" % own) == 1, err
    # Nothing was stored in the attacker's folder.
    assert entries(own) == [str(own / rel)]


@needs_root
def test_an_entry_of_another_user_in_the_own_folder_is_not_loaded(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    (entry,) = entries(cache)
    os.lchown(entry, NOBODY, NOBODY)
    hits, err = run_child(cache)
    assert hits == 0
    assert "kernel cache entry %s is owned by user 65534" % entry in err, err
    # The launch stored its own in its place, which the next one loads.
    assert os.stat(entry).st_uid == 0
    assert run(cache) == 1


def test_a_shared_folder_is_used_through_a_private_subfolder(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    assert run(shared) == 0
    own = shared / str(os.geteuid())
    assert os.stat(own).st_mode & 0o7777 == 0o700
    assert entries(shared) and all(e.startswith(str(own) + os.sep) for e in entries(shared))
    assert run(shared) == 1


def test_a_damaged_entry_says_why_in_debug_mode(tmp_path):
    cache = tmp_path / "cache"
    assert run(cache) == 0
    (entry,) = entries(cache)
    data = bytearray(open(entry, "rb").read())
    data[-1] ^= 0xFF
    open(entry, "wb").write(bytes(data))
    hits, err = run_child(cache, TEGULA_CACHE_DEBUG="1")
    assert hits == 0
    assert err == "tegula: kernel cache: %s: bad checksum; deleted, to be rebuilt\n" % entry


def test_both_command_lines_share_entries_and_compile_once(tmp_path):
    # `python -m tegula compile --target` and `tegula compile --target` key a
    # target compile the same way: whichever runs second compiles nothing.
    from tegula.__main__ import find_executable
    exe = find_executable()
    if exe is None:
        pytest.skip("no `tegula` executable beside the runtime library or on PATH")
    cache = tmp_path / "cache"
    kernel = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels",
                          "add_kernel.py")
    args = ["compile", kernel, "--kernel", "add_kernel", "--signature",
            "*fp32:16, *fp32:16, *fp32:16, i32, 256", "--target",
            "host:" + __import__("platform").machine()]
    e = dict(os.environ, TEGULA_CACHE_DIR=str(cache), TEGULA_CACHE_STATS="1")
    e.pop("TEGULA_HOST_SIMT", None)

    def cli(command, out):
        done = subprocess.run(command + args + ["-o", str(tmp_path / out)], env=e,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stderr

    err = cli([sys.executable, "-m", "tegula"], "py1.tgk")
    assert ": 0 hits, 1 misses, 0 compiles, 1 stores" in err, err
    err = cli([exe], "cli.tgk")
    assert ": 1 hits, 0 misses, 0 compiles, 0 stores" in err, err
    err = cli([sys.executable, "-m", "tegula"], "py2.tgk")
    assert ": 1 hits, 0 misses, 0 compiles, 0 stores" in err, err
    data = (tmp_path / "py1.tgk").read_bytes()
    assert (tmp_path / "cli.tgk").read_bytes() == data
    assert (tmp_path / "py2.tgk").read_bytes() == data
    assert len(entries(cache)) == 1
    # --no-cache compiles the same bytes without the cache: no statistics.
    done = subprocess.run([sys.executable, "-m", "tegula"] + args + [
        "--no-cache", "-o", str(tmp_path / "py3.tgk")], env=e, capture_output=True,
        text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (tmp_path / "py3.tgk").read_bytes() == data


def test_a_store_removes_what_a_killed_process_left(tmp_path):
    # kill -9 during a store leaves its temporary file (named with the host
    # and pid); the next store into that folder removes it.
    import socket
    cache = tmp_path / "cache"
    assert run(cache) == 0
    (entry,) = entries(cache)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = "".join(c if c.isalnum() or c in "-." else "_" for c in socket.gethostname())[:32]
    left = "%s.tmp-%s-%d-abcdefgh" % (entry, host, dead.pid)
    open(left, "wb").write(b"half an entry")
    os.remove(entry)
    assert run(cache) == 0
    assert not os.path.exists(left)
    assert os.listdir(os.path.dirname(entry)) == [os.path.basename(entry)]
