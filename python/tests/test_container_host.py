"""Kernels compiled ahead of time (tegula.compile, `tegula compile --target`)
into one kernel container for several targets, then loaded (tegula.load) and
run on the host CPU without compiling anything: the image is picked for the
device, the arguments are the compiled kernel's."""

import os
import platform
import subprocess

import numpy as np
import pytest

import tegula
from kernels.add_kernel import add_kernel

HOST = "host:" + platform.machine()
SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32"


@pytest.fixture(scope="module")
def rt():
    r = tegula.Runtime(visible_backends="host,nvidia")
    yield r
    r.close()


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(4), "little"))


def _add(kernel, device, rng, n=5000, block=256):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    kernel[(-(-n // block),)](x, y, z, n, device=device)
    np.testing.assert_array_equal(z, x + y)


def test_compile_for_several_targets_and_run_on_the_host(rt, rng, tmp_path):
    path = tmp_path / "add.tgk"
    count = add_kernel.compile_count
    c = tegula.compile(add_kernel, SIGNATURE, [HOST, "nvidia:sm_80", "nvidia:sm_90a"], path,
                       constexprs={"BLOCK_SIZE": 256}, runtime=rt)
    assert [e["target"] for e in c.entries] == [HOST, "nvidia:sm_80", "nvidia:sm_90a"]
    assert c.kernels == ["add_kernel"] and c.version[0] == 1
    assert c.entries[1]["num_warps"] == 4 and len(c.entries[0]["arguments"]) == 4
    host = rt.find_device("host:0")
    _add(c["add_kernel"], host, rng)
    # Loaded again from the file, in a fresh object: it runs as well.
    _add(tegula.load(path).kernel("add_kernel"), host, rng, n=777)
    # Nothing was compiled at launch.
    assert add_kernel.compile_count == count


def test_a_container_from_the_command_line(rt, rng, tmp_path):
    tool = os.path.join(os.path.dirname(os.environ["TEGULA_RUNTIME_LIB"]), "..", "bin",
                        "tegula")
    path = tmp_path / "cli.tgk"
    subprocess.run([tool, "compile", add_kernel.source_file, "--kernel", "add_kernel",
                    "--signature", SIGNATURE + ", 1024", "--target", HOST,
                    "--target", "nvidia:sm_90a", "-o", str(path)], check=True,
                   env=dict(os.environ, TEGULA_VISIBLE_BACKENDS="host,nvidia"))
    c = tegula.load(path)
    assert c.targets() == [HOST, "nvidia:sm_90a"]
    _add(c["add_kernel"], rt.find_device("host:0"), rng, block=1024)


def test_errors_name_what_is_wrong(rt, rng, tmp_path):
    host = rt.find_device("host:0")
    gpu_only = tegula.compile(add_kernel, SIGNATURE, "nvidia:sm_90a", tmp_path / "gpu.tgk",
                              constexprs={"BLOCK_SIZE": 256}, runtime=rt)
    with pytest.raises(tegula.TegulaError, match="no image for %s of kernel add_kernel in the "
                       "kernel container \\(it has: nvidia:sm_90a\\)" % HOST):
        _add(gpu_only["add_kernel"], host, rng)
    with pytest.raises(KeyError, match="holds no kernel 'sub_kernel' \\(it holds add_kernel\\)"):
        gpu_only["sub_kernel"]
    c = tegula.compile(add_kernel, SIGNATURE, HOST, tmp_path / "host.tgk",
                       constexprs={"BLOCK_SIZE": 256}, runtime=rt)
    with pytest.raises(TypeError, match="the compiled kernel takes 4 arguments"):
        c["add_kernel"][(1,)](np.zeros(4, np.float32), device=host)
    with pytest.raises(TypeError, match="argument 'arg0' is a pointer"):
        c["add_kernel"][(1,)](1, 2, 3, 4, device=host)
    with pytest.raises(tegula.TegulaError, match="no xyz plugin is loaded"):
        tegula.compile(add_kernel, SIGNATURE, "xyz:1", tmp_path / "x.tgk",
                       constexprs={"BLOCK_SIZE": 256}, runtime=rt)
    with pytest.raises(tegula.TegulaError, match="compile option mma=2 is not 1 or 0"):
        tegula.compile(add_kernel, SIGNATURE, "nvidia:sm_90a", tmp_path / "x.tgk",
                       constexprs={"BLOCK_SIZE": 256}, runtime=rt, mma=2)
    (tmp_path / "bad.tgk").write_bytes(b"not a container")
    with pytest.raises(tegula.TegulaError, match="invalid kernel container"):
        tegula.load(tmp_path / "bad.tgk")
