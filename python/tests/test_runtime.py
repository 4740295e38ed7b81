"""tegula's runtime bindings against the fake `testdev` plugin (two devices,
memory in host memory; tests/runtime/plugins/TestDevPlugin.cpp)."""

import ctypes
import gc
import os

import numpy as np
import pytest

import tegula
from tegula import _runtime


@pytest.fixture(scope="module")
def rt():
    # An explicit runtime that sees only testdev, whatever the environment's
    # TEGULA_VISIBLE_BACKENDS; no default plugin folder (vendor plugins).
    r = tegula.Runtime(visible_backends="testdev", default_plugin_dir="")
    yield r
    r.close()


@pytest.fixture
def dev(rt):
    return rt.find_device("testdev:0")


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(8), "little"))


# -- Library and discovery ------------------------------------------------------


def test_library_loads_from_env():
    lib = _runtime.load_library()
    assert os.path.samefile(lib._name, os.environ["TEGULA_RUNTIME_LIB"])
    major, minor = tegula.abi_version()
    assert major >= 1 and minor >= 0


def test_missing_library_error_names_what_was_tried(monkeypatch):
    monkeypatch.setattr(_runtime, "_lib", None)
    monkeypatch.setenv("TEGULA_RUNTIME_LIB", "/no/such/dir/libtegula_runtime.so")
    with pytest.raises(tegula.RuntimeLibraryNotFound) as info:
        _runtime.load_library()
    msg = str(info.value)
    assert "TEGULA_RUNTIME_LIB" in msg and "/no/such/dir/libtegula_runtime.so" in msg


def test_devices_lists_both_testdev_devices():
    devs = tegula.devices()  # the default runtime, from the environment
    names = [d.name for d in devs]
    assert "testdev:0" in names and "testdev:1" in names
    d0 = next(d for d in devs if d.name == "testdev:0")
    d1 = next(d for d in devs if d.name == "testdev:1")
    assert d0.backend == "testdev" and d1.backend == "testdev"
    assert d0.arch == "testarch" and d1.arch == "testarch2"
    assert d0.target == "testdev:testarch" and d1.target == "testdev:testarch2"
    assert d0.marketing_name == "Tegula test device 0"
    assert d0.properties["name"] == "Tegula test device 0"
    assert d0.properties["arch"] == "testarch"
    assert d0.global_memory == d0.properties["global_memory"] == 1 << 30
    assert set(d0.properties) >= {"compute_units", "warp_size", "max_threads_per_block",
                                  "shared_memory_per_block", "clock_khz"}
    assert tegula.device("testdev:1") == d1


def test_explicit_runtime_sees_only_testdev(rt):
    assert [d.name for d in rt.devices] == ["testdev:0", "testdev:1"]
    loaded = [p for p in rt.plugins if p["loaded"]]
    assert [p["name"] for p in loaded] == ["testdev"]
    assert loaded[0]["num_devices"] == 2
    assert loaded[0]["targets"] == ["testarch", "testarch2"]
    assert any(os.path.samefile(d, os.environ["TEGULA_PLUGIN_PATH"].split(":")[0])
               for d in rt.search_dirs)


def test_skipped_plugins_are_reported_with_a_reason():
    with tegula.Runtime(visible_backends="bad_major,testdev", default_plugin_dir="") as r:
        bad = [p for p in r.plugins if p["name"] == "bad_major"]
        assert len(bad) == 1 and not bad[0]["loaded"]
        assert "major" in bad[0]["skip_reason"]


def test_find_device_says_why_its_plugin_is_missing():
    """A device whose plugin was skipped: the error names the plugin file and
    the reason, not just the name."""
    with tegula.Runtime(visible_backends="bad_major,testdev", default_plugin_dir="") as r:
        with pytest.raises(tegula.TegulaError) as info:
            r.find_device("bad_major:0")
    text = str(info.value)
    assert "no device named 'bad_major:0'" in text
    assert "libtegula_plugin_bad_major.so" in text and "major" in text


def test_find_device_unknown_name(rt):
    with pytest.raises(tegula.TegulaError) as info:
        rt.find_device("testdev:7")
    assert info.value.code == 3 and info.value.code_name == "TG_ERROR_NOT_FOUND"
    assert "testdev:7" in str(info.value)


# -- Memory --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64", "float16"])
@pytest.mark.parametrize("devname", ["testdev:0", "testdev:1"])
def test_round_trip(rt, rng, dtype, devname):
    d = rt.find_device(devname)
    src = rng.integers(0, 256, size=4099, dtype=np.uint8).view(np.uint8)
    src = src[: (src.nbytes // np.dtype(dtype).itemsize) * np.dtype(dtype).itemsize]
    src = src.view(dtype).copy()
    with d.alloc(src.nbytes) as buf:
        assert buf.nbytes == src.nbytes and buf.device == d
        buf.copy_from(src)
        dst = np.full_like(src.view(np.uint8), 0xA5).view(dtype)  # poisoned
        buf.copy_to(dst)
        assert dst.tobytes() == src.tobytes()
        back = buf.to_numpy(dtype, src.shape)
        assert back.tobytes() == src.tobytes()


def test_round_trip_2d_and_offsets(dev, rng):
    a = rng.standard_normal((13, 7)).astype(np.float32)
    with dev.alloc(a.nbytes + 64) as buf:
        buf.memset(0)
        buf.copy_from(a, offset=64)
        assert np.array_equal(buf.to_numpy(np.float32, a.shape, offset=64), a)
        assert not buf.to_numpy(np.uint8, (64,)).any()


def test_round_trip_bytes(dev):
    data = os.urandom(100)
    with dev.alloc(100) as buf:
        buf.copy_from(data)
        out = bytearray(b"\xee" * 100)
        buf.copy_to(out)
        assert bytes(out) == data


def test_device_to_device_copy(rt, rng):
    a = rng.integers(0, 2 ** 31, size=257, dtype=np.int32)
    d0, d1 = rt.devices
    with d0.alloc(a.nbytes) as x, d1.alloc(a.nbytes) as y:
        x.copy_from(a)
        y.memset(0xCC)
        y.copy_from_buffer(x)
        assert np.array_equal(y.to_numpy(np.int32), a)


def test_memset(dev, rng):
    with dev.alloc(1000) as buf:
        buf.copy_from(rng.integers(0, 256, 1000, dtype=np.uint8))
        buf.memset(0x5A)
        assert (buf.to_numpy() == 0x5A).all()
        buf.memset(0x01, offset=100, nbytes=10)
        out = buf.to_numpy()
        assert (out[100:110] == 1).all()
        assert (out[:100] == 0x5A).all() and (out[110:] == 0x5A).all()


def test_memset_bad_value(dev):
    with dev.alloc(16) as buf:
        with pytest.raises(ValueError, match="byte"):
            buf.memset(256)


def test_memset_out_of_range_is_a_tegula_error(dev):
    # Not checked in Python: the runtime's own range check answers.
    with dev.alloc(16) as buf:
        with pytest.raises(tegula.TegulaError) as info:
            buf.memset(0, offset=8, nbytes=16)
        assert info.value.code_name == "TG_ERROR_OUT_OF_RANGE"
        assert info.value.message


def test_copy_size_mismatch(dev):
    with dev.alloc(16) as buf:
        with pytest.raises(ValueError, match="do not fit in the 16-byte buffer"):
            buf.copy_from(np.zeros(5, np.float32))
        with pytest.raises(ValueError, match="do not fit"):
            buf.copy_to(np.zeros(17, np.uint8))
        with pytest.raises(ValueError, match="do not fit"):
            buf.copy_from(np.zeros(4, np.float32), offset=4)


def test_copy_rejects_bad_host_arrays(dev):
    with dev.alloc(64) as buf:
        with pytest.raises(ValueError, match="C-contiguous"):
            buf.copy_from(np.zeros((4, 4), np.float32).T[:, :2])
        ro = np.zeros(4, np.float32)
        ro.flags.writeable = False
        buf.copy_from(ro)  # reading from a read-only array is fine
        with pytest.raises(ValueError, match="read-only"):
            buf.copy_to(ro)
        with pytest.raises(TypeError, match="NumPy array"):
            buf.copy_from([1, 2, 3])


def test_alloc_too_large_is_a_tegula_error(dev):
    with pytest.raises(tegula.TegulaError) as info:
        dev.alloc(2 << 30)  # testdev devices have 1 GiB
    assert info.value.code_name == "TG_ERROR_OUT_OF_MEMORY"
    assert "testdev" in info.value.message


def test_alloc_negative(dev):
    with pytest.raises(ValueError, match="negative"):
        dev.alloc(-1)


def test_alloc_on_a_failing_device():
    # all_errors fails every call; its device is listed but alloc fails.
    with tegula.Runtime(visible_backends="all_errors", default_plugin_dir="") as r:
        (d,) = r.devices
        assert d.properties_error is not None
        with pytest.raises(tegula.TegulaError) as info:
            d.alloc(16)
        assert "all_errors" in str(info.value) and "buffer_alloc" in str(info.value)


def test_double_free_is_harmless(dev):
    buf = dev.alloc(32)
    assert buf.alive
    buf.free()
    assert not buf.alive
    buf.free()
    with buf:
        pass
    del buf
    gc.collect()


def test_use_after_free_raises(dev):
    buf = dev.alloc(32)
    buf.free()
    with pytest.raises(ValueError, match="freed"):
        buf.copy_from(np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="freed"):
        buf.memset(0)


def test_context_manager_frees(dev):
    with dev.alloc(8) as buf:
        assert buf.alive
    assert not buf.alive


def test_closing_the_runtime_frees_live_objects():
    r = tegula.Runtime(visible_backends="testdev", default_plugin_dir="")
    d = r.devices[0]
    b, s, e = d.alloc(64), d.stream(), d.event()
    r.close()
    assert not b.alive and not s.alive and not e.alive
    b.free()
    s.destroy()
    e.destroy()
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.devices
    with pytest.raises(ValueError, match="closed"):
        d.alloc(8)


def test_garbage_collected_buffers_are_freed(dev):
    for _ in range(50):
        dev.alloc(1 << 20)
    gc.collect()


# -- Streams and events --------------------------------------------------------


def test_stream_copies(dev, rng):
    a = rng.standard_normal(1024).astype(np.float32)
    out = np.full_like(a, np.nan)
    with dev.stream() as s, dev.alloc(a.nbytes) as buf:
        buf.memset(0, stream=s)
        buf.copy_from(a, stream=s)
        buf.copy_to(out, stream=s)
        s.synchronize()
        assert np.array_equal(out, a)


def test_events_elapsed_time(dev):
    with dev.stream() as s, dev.event() as start, dev.event() as end:
        start.record(s)
        with dev.alloc(1 << 16) as buf:
            buf.memset(1, stream=s)
            end.record(s)
            s.wait_event(end)
            end.synchronize()
            s.synchronize()
        ms = start.elapsed_time(end)
        assert isinstance(ms, float) and ms >= 0.0


def test_elapsed_time_of_unrecorded_event_is_a_tegula_error(dev):
    with dev.event() as a, dev.event() as b:
        with pytest.raises(tegula.TegulaError) as info:
            a.elapsed_time(b)
        assert "never recorded" in info.value.message


def test_stream_and_event_double_destroy(dev):
    s = dev.stream()
    e = dev.event()
    s.destroy()
    s.destroy()
    e.destroy()
    e.destroy()
    with pytest.raises(ValueError, match="freed"):
        s.synchronize()
    with pytest.raises(ValueError, match="freed"):
        e.record(None)
