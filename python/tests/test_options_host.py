"""Compile options from Python (docs/compile-options.md): keywords of a launch
that name no kernel parameter reach the plugin as compile options, and the
options and the environment variables they read are part of the compiled
kernel's cache key, so a change of either compiles again and never reuses a
kernel built under the old setting. On the host plugin: its simt option
(TEGULA_HOST_SIMT) switches to the GPU lowering's SIMT emulation."""

import os

import numpy as np
import pytest

import tegula
from kernels.add_kernel import add_kernel


def _run(host, rng, **options):
    n = 3000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    ck = add_kernel[(-(-n // 256),)](x, y, z, n, BLOCK_SIZE=256, device=host, **options)
    np.testing.assert_array_equal(z, x + y)
    return ck


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(4), "little"))


@pytest.fixture
def no_simt(monkeypatch):
    monkeypatch.delenv("TEGULA_HOST_SIMT", raising=False)


def test_plugin_declares_its_options(host):
    plugin = [p for p in host.runtime.plugins if p["name"] == "host" and p["loaded"]][0]
    simt = [o for o in plugin["options"] if o["name"] == "simt"][0]
    assert simt["type"] == "int" and simt["env"] == "TEGULA_HOST_SIMT"
    assert simt["default"] == "0" and (simt["min"], simt["max"]) == (0, 64)
    assert plugin["stages"] == ["image", "llvm-ir", "asm", "object"]


def test_an_option_compiles_again_and_is_then_cached(host, rng, no_simt):
    plain = _run(host, rng)
    count = add_kernel.compile_count
    simt = _run(host, rng, simt=4, num_warps=2)
    assert simt is not plain and add_kernel.compile_count == count + 1
    # The same options again (also through the fast path): no compile.
    for _ in range(3):
        assert _run(host, rng, simt=4, num_warps=2) is simt
    assert _run(host, rng) is plain
    assert add_kernel.compile_count == count + 1


def test_the_environment_is_part_of_the_key(host, rng, no_simt, monkeypatch):
    plain = _run(host, rng)
    assert _run(host, rng) is plain
    count = add_kernel.compile_count
    monkeypatch.setenv("TEGULA_HOST_SIMT", "8")
    simt = _run(host, rng)
    assert simt is not plain and add_kernel.compile_count == count + 1
    assert _run(host, rng) is simt
    monkeypatch.setenv("TEGULA_HOST_SIMT", "0")
    zero = _run(host, rng)
    assert zero is not simt and add_kernel.compile_count == count + 2
    monkeypatch.delenv("TEGULA_HOST_SIMT")
    assert _run(host, rng) is plain
    assert add_kernel.compile_count == count + 2


def test_an_option_of_another_plugin_is_named(host, rng, no_simt):
    # `mma` is the nvidia plugin's (a runtime loading it makes it a known
    # option name); the host plugin says it has no such option.
    rt = tegula.Runtime(visible_backends="host,nvidia")
    try:
        with pytest.raises(tegula.TegulaError) as info:
            _run(host, rng, mma=0)
        assert "no compile option 'mma' (options: num_warps, num_stages, simt, simt_shared_bytes)" \
            in str(info.value)
    finally:
        rt.close()


def test_a_keyword_that_is_neither_parameter_nor_option(host, rng, no_simt):
    with pytest.raises(TypeError) as info:
        _run(host, rng, no_such_option=1)
    assert "unexpected keyword argument 'no_such_option'" in str(info.value)


def test_a_bad_value_is_named(host, rng, no_simt):
    with pytest.raises(tegula.TegulaError) as info:
        _run(host, rng, simt=3)
    assert "compile option simt=3 is not a warp size" in str(info.value)
    with pytest.raises(tegula.TegulaError) as info:
        _run(host, rng, simt=128)
    assert "compile option simt=128 is not an integer from 0 to 64" in str(info.value)


def test_an_option_value_of_another_type_is_a_type_error(host, rng, no_simt):
    with pytest.raises(TypeError) as info:
        _run(host, rng, simt=4.0)
    assert "compile option simt=4.0: expected a bool, an int or a str" in str(info.value)
