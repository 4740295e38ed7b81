"""@tegula.jit: source recording and specialization (Triton's rules);
launching is tested in test_launch.py and test_launch_host.py."""

import os

import numpy as np
import pytest

import tegula
import tegula.language as tl

from kernels.add_kernel import add_kernel, scale_kernel

HERE = os.path.dirname(os.path.abspath(__file__))


def aligned(n, dtype, misalign=0):
    """An array of n elements whose data address is 16-aligned + misalign."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 16 + misalign
    a = raw[start:start + n * dtype.itemsize].view(dtype)
    assert a.ctypes.data % 16 == misalign % 16
    return a


def test_kernel_file_imports_and_records_source():
    assert isinstance(add_kernel, tegula.JITFunction)
    assert add_kernel.__name__ == "add_kernel"
    assert add_kernel.source_file == os.path.join(HERE, "kernels", "add_kernel.py")
    assert add_kernel.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"]
    assert add_kernel.constexprs == ["BLOCK_SIZE"]


def test_specialize_vector_add():
    x, y, out = aligned(1000, np.float32), aligned(1000, np.float32), aligned(1000, np.float32)
    assert add_kernel.specialize(x, y, out, 1000, 1024) == "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
    assert add_kernel.specialize(x, y, out, 1000, BLOCK_SIZE=256) == \
        "*fp32:16, *fp32:16, *fp32:16, i32, 256"


def test_pointer_alignment():
    a = aligned(8, np.float16, misalign=2)
    assert tegula.specialize_arg(a) == "*fp16"
    assert tegula.specialize_arg(aligned(8, np.float16)) == "*fp16:16"


@pytest.mark.parametrize("dtype,name", [
    (np.bool_, "i1"), (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"),
    (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"), (np.uint64, "u64"),
    (np.float16, "fp16"), (np.float32, "fp32"), (np.float64, "fp64"),
])
def test_pointer_dtypes(dtype, name):
    assert tegula.specialize_arg(aligned(4, dtype)) == "*%s:16" % name


def test_ml_dtypes_if_available():
    ml = pytest.importorskip("ml_dtypes", reason="ml_dtypes not installed (optional)")
    assert tegula.specialize_arg(aligned(4, ml.bfloat16)) == "*bf16:16"
    assert tegula.specialize_arg(aligned(4, ml.float8_e4m3fn)) == "*fp8e4nv:16"
    assert tegula.specialize_arg(aligned(4, ml.float8_e5m2)) == "*fp8e5:16"


def test_dtype_names_without_ml_dtypes():
    class FakeDtype:
        def __init__(self, name):
            self.name = name
    assert tegula.dtype_name(FakeDtype("bfloat16")) == "bf16"
    assert tegula.dtype_name(FakeDtype("float8_e4m3fn")) == "fp8e4nv"
    assert tegula.dtype_name(FakeDtype("float8_e5m2")) == "fp8e5"
    assert tegula.dtype_name(tl.bfloat16) == "bf16"
    with pytest.raises(TypeError, match="no Triton element type"):
        tegula.dtype_name(np.dtype(np.complex64))


def test_array_interface_objects():
    class Foreign:
        def __init__(self, addr, typestr):
            self.__array_interface__ = {"data": (addr, False), "typestr": typestr,
                                        "shape": (4,), "version": 3}
    assert tegula.specialize_arg(Foreign(4096, "<f4")) == "*fp32:16"
    assert tegula.specialize_arg(Foreign(4100, "<i8")) == "*i64"
    assert tegula.specialize_arg(Foreign(32, "|b1")) == "*i1:16"

    class Cuda:
        __cuda_array_interface__ = {"data": (0x7F0000000010, False), "typestr": "<f2",
                                    "shape": (4,), "version": 3}
    assert tegula.specialize_arg(Cuda()) == "*fp16:16"


@pytest.mark.parametrize("value,entry", [
    (7, "i32"), (-7, "i32"), (1, "i32:1"), (16, "i32:16"), (0, "i32:16"), (-32, "i32:16"),
    (2 ** 31 - 1, "i32"), (2 ** 31, "i64:16"), (-2 ** 31, "i32:16"), (-2 ** 31 - 1, "i64"),
    (2 ** 40 + 3, "i64"), (2 ** 63 - 1, "i64"), (2 ** 63, "u64:16"), (2 ** 64 - 1, "u64"),
    (True, "i1"), (False, "i1"), (np.int64(48), "i32:16"), (np.bool_(True), "i1"),
    (1.0, "fp32"), (0.5, "fp32"), (np.float64(2.5), "fp32"),
])
def test_scalar_rules(value, entry):
    assert tegula.specialize_arg(value) == entry


def test_out_of_range_int():
    with pytest.raises(ValueError, match="64 bits"):
        tegula.specialize_arg(2 ** 64)
    with pytest.raises(ValueError, match="64 bits"):
        tegula.specialize_arg(-2 ** 63 - 1)


def test_constexpr_literals_and_defaults():
    x = aligned(4, np.float32)
    assert scale_kernel.specialize(x, 2.0, 17, True) == '*fp32:16, fp32, i32, i1, "none", fp16'
    assert scale_kernel.specialize(x, 2.0, 1, False, ACT="relu", DT=tl.float32) == \
        '*fp32:16, fp32, i32:1, i1, "relu", fp32'
    assert scale_kernel.specialize(x, 2.0, 32, 0, ACT=None, DT=np.float64) == \
        "*fp32:16, fp32, i32:16, i32:16, None, fp64"
    assert scale_kernel.specialize(x, 1, 3, 5, tl.constexpr(True), 0.25) == \
        "*fp32:16, i32:1, i32, i32, True, 0.25"


def test_specialize_errors():
    x = aligned(4, np.float32)
    with pytest.raises(TypeError, match="add_kernel.specialize"):
        add_kernel.specialize(x, x)
    with pytest.raises(TypeError, match="argument 'n_elements'"):
        add_kernel.specialize(x, x, x, "ten", 128)
    with pytest.raises(TypeError, match="None is only allowed"):
        add_kernel.specialize(x, None, x, 1, 128)


def test_string_annotations(tmp_path):
    f = tmp_path / "future_kernel.py"
    f.write_text(
        "from __future__ import annotations\n"
        "import tegula\nimport tegula.language as tl\n\n"
        "@tegula.jit\n"
        "def k(p, n, BLOCK: tl.constexpr):\n"
        "    tl.store(p, n)\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("future_kernel", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.k.constexprs == ["BLOCK"]
    assert mod.k.source_file == str(f)
    assert mod.k.specialize(aligned(2, np.int8), 5, 64) == "*i8:16, i32, 64"


def test_direct_call_is_refused():
    with pytest.raises(RuntimeError, match=r"add_kernel\[grid\]"):
        add_kernel(1, 2, 3, 4, 5)


def test_language_module():
    for name in ["int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float8e4nv", "float8e5", "float16", "bfloat16", "float32",
                 "float64"]:
        assert isinstance(getattr(tl, name), tl.dtype)
    assert str(tl.float32) == "fp32" and tl.float16.primitive_bitwidth == 16
    assert tl.constexpr(128).value == 128 and tl.constexpr(128) == 128
    assert tl.constexpr(tl.constexpr(3)).value == 3
    for fn in ["program_id", "arange", "load", "store", "dot", "sum", "where", "zeros",
               "static_range", "cdiv"]:
        with pytest.raises(RuntimeError, match=r"tl\.%s\(\) can only be called inside a "
                                               r"kernel compiled by tegula" % fn):
            getattr(tl, fn)(0)
    with pytest.raises(RuntimeError, match=r"tl\.math\.exp\(\)"):
        tl.math.exp(1.0)
