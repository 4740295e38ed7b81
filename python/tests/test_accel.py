"""tegula._accel (the C extension of the launcher's per-call steps) against
_accel_py, its Python equivalent: the same key parts and values from
arg_key, the same grids from grid3, the same packed bytes (and the same
refusals) from packing. ctest builds the extension and sets
TEGULA_EXPECT_ACCEL=1, so that an extension that fails to load fails here
rather than leaving every launch to the Python steps unnoticed."""

import ctypes
import os
import struct

import numpy as np
import pytest

from tegula import _accel_py, _launcher

from test_interop import FakeDevice, fake_torch

C = _launcher.accel if getattr(_launcher.accel, "available", False) else None
needs_c = pytest.mark.skipif(C is None, reason="tegula._accel is not built or not loaded")


def test_the_extension_is_loaded_where_it_was_built():
    if os.environ.get("TEGULA_EXPECT_ACCEL") == "1":
        assert C is not None, "tegula._accel was built but not loaded (%s)" % \
            _accel_py.accel_path()


def arrays():
    base = np.zeros(64, np.float32)
    raw = np.zeros(80, np.uint8)
    ro = np.arange(8, dtype=np.int64)
    ro.flags.writeable = False
    return [
        base, base[1:], base[::2], base.reshape(8, 8).T, base.reshape(8, 8)[:, 1:3],
        np.broadcast_to(base[:1], (8,)), np.zeros((3, 0), np.float16), ro,
        raw[3:67].view(np.uint8), np.zeros(4, np.bool_), np.asfortranarray(np.ones((4, 3))),
        np.zeros((), np.int32), np.float32(1.5),
    ]


SCALARS = [0, 1, -1, 15, 16, 32, -16, 2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1,
           2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 16, 2 ** 64 - 1, 2 ** 64, -2 ** 63,
           -2 ** 63 - 1, 10 ** 30, True, False, 0.0, -0.0, 1.5, float("nan"),
           np.int8(16), np.int64(1), np.uint64(2 ** 63), np.float32(2.0), np.bool_(True),
           None, "text", [1, 2], (1,), object(), 1j]


def same(a, b):
    """Equal results, NaN equal to NaN."""
    if a is None or b is None:
        return a is b
    return a == b or repr(a) == repr(b)


@needs_c
@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_arg_key_of_scalars(value):
    assert same(C.arg_key(value), _accel_py.arg_key(value))


@needs_c
def test_arg_key_of_arrays():
    for a in arrays():
        got, want = C.arg_key(a), _accel_py.arg_key(a)
        assert got == want, (a.shape, a.strides, a.dtype)
        if want is not None and isinstance(a, np.ndarray):
            key, address = want
            assert address == a.ctypes.data
            assert key == (np.ndarray, a.dtype, a.ctypes.data % 16 == 0, a.flags.writeable)
    # A view whose elements overlap: neither takes it.
    assert C.arg_key(np.broadcast_to(np.zeros(2, np.float32), (4, 2))) is None


def test_arg_key_of_arrays_is_the_specialization():
    a = np.zeros(64, np.float32)
    aligned = _accel_py.arg_key(a)[0]
    assert aligned[2] is (a.ctypes.data % 16 == 0)
    assert _accel_py.arg_key(a[1:])[0] != aligned  # 4 bytes on: no :16
    assert _accel_py.arg_key(a[4:])[0] == aligned  # 16 bytes on
    assert _accel_py.arg_key(a.astype(np.float64))[0] != aligned


@needs_c
@pytest.mark.parametrize("kind", ["cuda", "cpu", "meta"])
def test_arg_key_of_torch_tensors(monkeypatch, kind):
    torch = fake_torch(monkeypatch)
    C.set_tensor_type(torch.Tensor)
    for address in (0x10000, 0x10004, 0x10010):
        for contiguous in (True, False):
            t = torch.Tensor(address, "float16", FakeDevice(kind, 2 if kind == "cuda" else None),
                             contiguous=contiguous)
            t.shape, t.stride = (4,), lambda: (2,)  # a strided view, not overlapping
            got, want = C.arg_key(t), _accel_py.arg_key(t)
            assert same(got, want), (kind, address, contiguous, got, want)
            if kind == "cuda":
                assert got == (("cuda", 2, t.dtype, address % 16 == 0), address)
            if kind == "meta":
                assert got is None


@needs_c
def test_grid3():
    grids = [(1,), (5, 2), (3, 4, 5), (2 ** 31 - 1,), (2 ** 31,), (1, 65535, 65535),
             (1, 65536), (1, 1, 65536), (0,), (-1,), (), (1, 2, 3, 4), (1.0,), (True,),
             (np.int64(2),), [2], 2, None, (1, None), (2 ** 70,)]
    for g in grids:
        assert C.grid3(g) == _accel_py.grid3(g), g
    assert C.grid3((7,)) == (7, 1, 1) and C.grid3((7, 3)) == (7, 3, 1)


CODES = ["ptr", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp32", "fp64"]
VALUES = [0, 1, -1, 127, 128, -128, -129, 255, 256, 2 ** 15, 2 ** 16 - 1, 2 ** 31 - 1,
          2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63,
          True, 0.5, -2.5, 1e39, 1e300, float("inf"), float("nan"), np.int16(-3),
          np.uint64(2 ** 64 - 1), np.float32(0.1), np.float64(1e-300), "x", None]


def py_pack(codes, offsets, total, values):
    fmt = _accel_py.struct_format(codes, offsets, total)
    return struct.Struct(fmt).pack(*values)


def outcome(f):
    try:
        return f()
    except (struct.error, ValueError, TypeError, OverflowError):
        return "refused"


@needs_c
@pytest.mark.parametrize("code", CODES)
def test_pack_one_value(code):
    layout = C.make_layout([code], [0], 8)
    for v in VALUES:
        want = outcome(lambda: py_pack([code], [0], 8, [v]))
        got = outcome(lambda: C.pack(layout, [v]))
        assert got == want, (code, v, got, want)


@needs_c
def test_pack_a_kernel_layout():
    codes = ["ptr", "i1", "i32", "fp32", "ptr", "u16", "i64", "fp64"]
    offsets = [0, 8, 12, 16, 24, 32, 40, 48]
    layout = C.make_layout(codes, offsets, 56)
    rng = np.random.default_rng(7)
    for _ in range(200):
        vals = [int(rng.integers(0, 2 ** 63)), bool(rng.integers(0, 2)),
                int(rng.integers(-2 ** 31, 2 ** 31)), float(rng.standard_normal()),
                int(rng.integers(0, 2 ** 63)), int(rng.integers(0, 2 ** 16)),
                int(rng.integers(-2 ** 62, 2 ** 62)), float(rng.standard_normal())]
        assert C.pack(layout, vals) == py_pack(codes, offsets, 56, vals)
    with pytest.raises(TypeError, match="takes 8 arguments, not 2"):
        C.pack(layout, [1, 2])


@needs_c
def test_layouts_c_does_not_pack():
    # Converted in Python (fp16, bf16, fp8 scalars), overlapping or too long:
    # None, and the launcher packs with struct.
    assert C.make_layout(["fp16"], [0], 8) is None
    assert C.make_layout(["i32", "i32"], [0, 2], 8) is None
    assert C.make_layout(["i64"], [4], 8) is None
    assert C.make_layout([], [], 8) is not None


@needs_c
def test_launch_calls_the_function_with_the_packed_arguments():
    seen = {}
    proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)

    def fake_launch(kernel, stream, config, packed, size):
        seen.update(kernel=kernel, stream=stream, config=config,
                    args=ctypes.string_at(packed, size))
        return 0x1234 if kernel == 7 else None
    fn = proto(fake_launch)
    address = ctypes.cast(fn, ctypes.c_void_p).value
    layout = C.make_layout(["ptr", "i32"], [0, 8], 16)
    assert C.launch(address, 5, layout, None, 0x40, 0xABC, -2) == 0
    assert seen == dict(kernel=5, stream=None, config=0x40,
                        args=struct.pack("=Qi4x", 0xABC, -2))
    assert C.launch(address, 7, layout, 0x99, 0x40, 1, 2) == 0x1234  # the error, as an int
    assert seen["stream"] == 0x99
    seen.clear()
    # A value that does not pack: None, and nothing called.
    assert C.launch(address, 5, layout, None, 0x40, 1, 2 ** 40) is None
    assert C.launch(address, 5, layout, None, 0x40, -1, 2) is None
    assert C.launch(address, 5, layout, None, 0x40, 1.5, 2) is None
    assert seen == {}


def test_struct_runner_is_the_same_call():
    seen = []
    proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)

    def fake_launch(kernel, stream, config, packed, size):
        seen.append((kernel, stream, config, ctypes.string_at(packed, size)))
        return None
    fn = proto(fake_launch)
    run, pack = _accel_py.struct_runner(fn, 5, ["ptr", "i32"], [0, 8], 16, [None, None])
    assert run(None, 0x40, 0xABC, -2) == 0
    assert seen == [(5, None, 0x40, struct.pack("=Qi4x", 0xABC, -2))]
    assert run(None, 0x40, 1, 2 ** 40) is None and len(seen) == 1
    assert pack([0xABC, -2]) == struct.pack("=Qi4x", 0xABC, -2)


@needs_c
def test_arg_keys_is_arg_key_of_each():
    a = np.zeros(8, np.float32)
    rows = [(), (1,), (a, 16, 2.5, True), (a[1:], -3, 2 ** 40), (np.int64(7), 0.0)]
    for values in rows:
        want = (tuple(_accel_py.arg_key(v)[0] for v in values),
                tuple(_accel_py.arg_key(v)[1] for v in values))
        assert C.arg_keys(*values) == want == _accel_py.arg_keys(*values)
    # One value without a key: no keys at all.
    for values in [(a, None), ("text",), (1, 2 ** 70)]:
        assert C.arg_keys(*values) is None and _accel_py.arg_keys(*values) is None


@pytest.mark.parametrize("impl", ["c", "python"])
def test_environment_key_names_the_values(impl):
    if impl == "c" and C is None:
        pytest.skip("tegula._accel is not built or not loaded")
    key = C.environment_key if impl == "c" else _accel_py.environment_key
    data = {b"A": b"1", b"B": b"x"}
    keys = [b"A", b"C"]
    first = key(data, keys)
    assert key(data, keys) == first
    data[b"B"] = b"y"  # not one of the keys: the same values
    assert key(data, keys) == first
    data[b"A"] = b"2"
    second = key(data, keys)
    assert second != first and key(data, keys) == second
    data[b"C"] = b"on"
    third = key(data, keys)
    assert third not in (first, second)
    del data[b"C"]
    data[b"A"] = b"1"
    assert key(data, keys) == first  # the values of the first call again
    keys.append(b"B")  # a new variable: its value is part of the key now
    fourth = key(data, keys)
    assert fourth not in (first, second, third)
    other = {b"A": b"1"}
    assert key(other, [b"A", b"C"]) == first  # another dict, the same values
    assert key(data, keys) == fourth
    assert key(data, [b"B", b"A"]) not in (first, second, third, fourth)  # other names
    assert key(data, keys) == fourth


class FakeStream:
    def __init__(self, handle):
        self._handle = handle


@needs_c
def test_runner_finds_config_and_stream_per_call():
    seen = []
    proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)

    def fake_launch(kernel, stream, config, packed, size):
        seen.append((kernel, stream, config, ctypes.string_at(packed, size)))
        return 0x1234 if kernel == 7 else None
    fn = proto(fake_launch)
    address = ctypes.cast(fn, ctypes.c_void_p).value
    layout = C.make_layout(["ptr", "i32"], [0, 8], 16)
    configs = {(1, 1, 1): 0x40}
    made = []

    def config(grid):
        if grid == "bad":
            raise ValueError("bad grid")
        made.append(grid)
        return 0x80, (9, 1, 1)
    current, asked = [0x51], []

    def raw(index):
        asked.append(index)
        return current[0]
    streams = {0x51: FakeStream(0xA1)}

    def handle():  # the stream of a native handle met for the first time
        streams[current[0]] = FakeStream(current[0] + 0x1000)
        return current[0] + 0x1000
    run = C.runner(address, 5, layout, configs, config, (raw, 3, streams, handle))
    packed = struct.pack("=Qi4x", 0xABC, -2)
    assert run((1,), None, (0xABC, -2)) == 0
    assert seen[-1] == (5, 0xA1, 0x40, packed) and asked == [3] and not made
    current[0] = 0x52  # PyTorch's current stream changed: the next launch follows
    assert run((1, 1, 1), None, (0xABC, -2)) == 0
    assert seen[-1][1] == 0x1052 and 0x52 in streams and asked == [3, 3]
    assert run((1,), None, (0xABC, -2)) == 0 and seen[-1][1] == 0x1052
    current[0] = 0x51
    assert run((9,), None, (0xABC, -2)) == 0
    assert seen[-1][1:3] == (0xA1, 0x80) and made == [(9,)]
    # An explicit stream wins; a freed one is left to the full launch.
    assert run((1,), FakeStream(0x77), (0xABC, -2)) == 0 and seen[-1][1] == 0x77
    n = len(seen)
    assert run((1,), FakeStream(None), (0xABC, -2)) is None
    streams[0x51]._handle = None  # freed: handle() makes it again
    assert run((1,), None, (0xABC, -2)) == 0 and seen[-1][1] == 0x1051
    # Values that do not pack: None, nothing launched.
    n = len(seen)
    assert run((1,), None, (0xABC, 2 ** 40)) is None
    assert run((1,), None, (-1, 2)) is None and len(seen) == n
    with pytest.raises(ValueError, match="bad grid"):
        run("bad", None, (0xABC, -2))
    assert len(seen) == n
    # No torch stream: the NULL stream; the error comes back as an int.
    run7 = C.runner(address, 7, layout, configs, config, None)
    assert run7((1,), None, (1, 2)) == 0x1234 and seen[-1][1] is None
    with pytest.raises(TypeError):
        run7((1,), None, [1, 2])


class FakeKernel:
    def __init__(self):
        self._handle = 1


@needs_c
def test_quick_launches_the_last_entry_only_for_its_key(monkeypatch):
    """quick(last, grid, stream, raw, *values) launches the last entry
    exactly when arg_keys would give the last call's key parts and the raw
    values of the rest of the key are the last call's, and reads each value
    as arg_key does."""
    torch = fake_torch(monkeypatch)
    C.set_tensor_type(torch.Tensor)
    seen = []
    proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)

    def fake_launch(kernel, stream, config, packed, size):
        seen.append(ctypes.string_at(packed, size))
        return None
    fn = proto(fake_launch)
    address = ctypes.cast(fn, ctypes.c_void_p).value
    layout = C.make_layout(["ptr", "ptr", "fp32", "i32"], [0, 8, 16, 20], 24)
    run = C.runner(address, 5, layout, {(2, 1, 1): 0x40}, lambda g: 1 / 0, None)
    t = torch.Tensor(0x10000, "float32", FakeDevice("cuda", 0))
    u = torch.Tensor(0x20000, "float32", FakeDevice("cuda", 0))
    first = (t, u, 2.0, 16)
    parts, vals = C.arg_keys(*first)
    kernel = FakeKernel()
    device = object()
    raw = (128, 4, 3, device, None, 0)  # constexprs, num_warps, ..., environment key
    last = ("key", "entry", parts, raw, kernel, run)
    assert C.quick(last, (2,), None, raw, *first) == 0
    assert seen == [struct.pack("=QQfi", 0x10000, 0x20000, 2.0, 16)]
    # Other key parts: arg_keys says which; quick launches for equal ones only.
    others = [
        (torch.Tensor(0x30000, "float32", FakeDevice("cuda", 0)), u, 3.5, 32),  # same parts
        (torch.Tensor(0x30004, "float32", FakeDevice("cuda", 0)), u, 2.0, 16),  # unaligned
        (torch.Tensor(0x30000, "float16", FakeDevice("cuda", 0)), u, 2.0, 16),  # dtype
        (torch.Tensor(0x30000, "float32", FakeDevice("cuda", 1)), u, 2.0, 16),  # device
        (torch.Tensor(0x30000, "float32", FakeDevice("cpu")), u, 2.0, 16),      # a CPU one
        (t, u, 2, 16), (t, u, True, 16), (t, u, np.float32(2.0), 16),           # not a float
        (t, u, 2.0, 17), (t, u, 2.0, 1), (t, u, 2.0, 2 ** 40), (t, u, 2.0, 16.0),
        (t, u, 2.0, np.int32(16)), (t, u, 2.0, 2 ** 70), (t, u, 2.0, None),
    ]
    for values in others:
        n = len(seen)
        keys = C.arg_keys(*values)
        want = keys is not None and keys[0] == parts
        got = C.quick(last, (2,), None, raw, *values)
        assert (got == 0) == want and (got is None) == (not want), values
        assert len(seen) == n + want
        if want:
            assert seen[-1] == struct.pack("=QQfi", 0x30000, 0x20000, 3.5, 32)
    # The raw values: the same objects, or equal ints and strs.
    assert C.quick(last, (2,), None, (int("128"), 4, 3, device, None, 0), *first) == 0
    assert C.quick(("key", "entry", parts, ("cuda:0",) + raw[1:], kernel, run), (2,), None,
                   ("cuda:%d" % 0,) + raw[1:], *first) == 0
    n = len(seen)
    for other in [(64, 4, 3, device, None, 0), (128.0, 4, 3, device, None, 0),
                  (True, 4, 3, device, None, 0), (128, 4, 3, object(), None, 0),
                  (128, 4, 3, device, None, 1), (128, 4, 3, device, None),
                  (1.5,) + raw[1:]]:
        assert C.quick(last, (2,), None, other, *first) is None, other
    # A float is its literal in the key (0.0 is not -0.0): only the same object.
    f = float("1.5")
    assert C.quick(("k", "e", parts, (f,) + raw[1:], kernel, run), (2,), None,
                   (float("1.5"),) + raw[1:], *first) is None
    assert C.quick(("k", "e", parts, (f,) + raw[1:], kernel, run), (2,), None,
                   (f,) + raw[1:], *first) == 0
    # Not this entry's call: another count of values, a grid that is no
    # tuple, no last call, an unloaded kernel, a value that does not pack.
    n = len(seen)
    assert C.quick(last, (2,), None, raw, t, u, 2.0) is None
    assert C.quick(last, lambda meta: (2,), None, raw, *first) is None
    assert C.quick((None,) * 6, (2,), None, raw, *first) is None
    kernel._handle = None
    assert C.quick(last, (2,), None, raw, *first) is None
    kernel._handle = 1
    big = torch.Tensor(0x10000, "float32", FakeDevice("cuda", 0))
    big.data_ptr = lambda: 2 ** 64  # aligned, but no 64-bit address
    assert C.quick(last, (2,), None, raw, big, u, 2.0, 16) is None
    assert len(seen) == n
    # The grid is checked as the launch checks it (config raises here).
    with pytest.raises(ZeroDivisionError):
        C.quick(last, (3,), None, raw, *first)
