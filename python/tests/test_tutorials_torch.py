"""The torch programs of triton_programs/ run as Triton users run them.

vector_add.py, softmax.py, matmul.py, dropout.py, layer_norm.py and
attention.py are programs in the shape of Triton's tutorials 01 to 06,
written for Tegula's tests (docs/python.md): each uses `import tegula as
triton`, runs on torch tensors of
`triton.runtime.driver.active.get_active_torch_device()`, prints a `PASS
<check>` line per check (`FAIL` on a mismatch, then exits 1) and a
perf_report table. Here each runs in a child process under this Python, in
a temporary folder, on the default device: host:0 with CPU tensors under
TEGULA_VISIBLE_BACKENDS=host (the ctest `python.interop`). Skipped where
torch is not installed.
"""

import pytest

from program_support import check_exit, perf_table, start_program

torch = pytest.importorskip("torch")


def run_program(name, tmp_path, timeout=300):
    """triton_programs/|name| run on this Python in |tmp_path|."""
    return start_program(name, tmp_path, timeout)


def passed(proc, name):
    """The program's PASS lines, once it exited with 0 and printed no FAIL."""
    check_exit(proc, name)
    return [line for line in proc.stdout.splitlines() if line.startswith("PASS ")]


@pytest.fixture(scope="module", autouse=True)
def on_host():
    import tegula
    dev = tegula.default_device()
    if dev.backend != "host":
        pytest.skip("these tests run on host:0 (TEGULA_VISIBLE_BACKENDS=host), not %s" % dev.name)


def test_get_active_torch_device_is_cpu_on_host():
    import tegula as triton
    assert triton.runtime.driver.active.get_active_torch_device() == torch.device("cpu")


def test_vector_add(tmp_path):
    proc = run_program("vector_add.py", tmp_path)
    lines = passed(proc, "vector_add.py")
    assert len(lines) == 4 and all("largest difference from torch 0" in x for x in lines)
    header, rows = perf_table(proc.stdout, "vector-add-bandwidth")
    assert header == ["size", "Triton", "Torch"]
    assert [r[0] for r in rows] == [4096, 16384, 65536] and all(min(r) > 0 for r in rows)


def test_softmax(tmp_path):
    proc = run_program("softmax.py", tmp_path)
    shapes = ("37x5", "97x643", "64x1024", "300x129")
    for shape in shapes:
        assert "PASS softmax one-program-per-row %s:" % shape in proc.stdout, proc.stdout
    lines = passed(proc, "softmax.py")
    for shape in shapes:
        assert any(x.startswith("PASS softmax persistent %s:" % shape) for x in lines)
    assert any(x.startswith("PASS softmax strided view") for x in lines)
    header, rows = perf_table(proc.stdout, "softmax-bandwidth")
    assert header == ["N", "Triton", "Torch"]
    assert [r[0] for r in rows] == [256, 512, 1024] and all(min(r) > 0 for r in rows)


def test_matmul(tmp_path):
    proc = run_program("matmul.py", tmp_path)
    lines = passed(proc, "matmul.py")
    for shape in ("128x128x128", "150x70x200"):
        for activation in ("''", "'leaky_relu'"):
            assert any(x.startswith("PASS matmul %s activation=%s:" % (shape, activation))
                       and "best config BLOCK_M:" in x for x in lines), lines
    assert "PASS matmul 96x80x64 against torch.matmul in fp16" in lines
    header, rows = perf_table(proc.stdout, "matmul-fp16")
    assert header == ["M", "N", "K", "Torch", "Triton"]
    assert [r[:3] for r in rows] == [[128] * 3, [256] * 3] and all(min(r) > 0 for r in rows)


def test_dropout(tmp_path):
    proc = run_program("dropout.py", tmp_path)
    lines = passed(proc, "dropout.py")
    names = [x.split(":")[0] for x in lines]
    assert names == ["PASS dropout same seed", "PASS dropout same seed other block",
                     "PASS dropout other seed", "PASS dropout rate", "PASS dropout scale",
                     "PASS dropout p=0"]


def test_layer_norm(tmp_path):
    proc = run_program("layer_norm.py", tmp_path)
    lines = passed(proc, "layer_norm.py")
    for shape in ("151x1000", "64x77", "300x256"):
        for what in ("y", "dx", "dw", "db"):
            assert any(x.startswith("PASS layer_norm %s float16 %s:" % (shape, what))
                       for x in lines), lines
    assert any(x.startswith("PASS layer_norm 3x20x96 float16 dx:") for x in lines)
    header, rows = perf_table(proc.stdout, "layer-norm-backward")
    assert header == ["N", "Triton", "Torch"]
    assert [r[0] for r in rows] == [512, 1024] and all(min(r) > 0 for r in rows)
    assert (tmp_path / "layer-norm-backward.csv").exists()


def test_attention(tmp_path):
    proc = run_program("attention.py", tmp_path)
    lines = passed(proc, "attention.py")
    for shape in ("Z=1 H=2 N_CTX=128 HEAD_DIM=64", "Z=2 H=3 N_CTX=100 HEAD_DIM=32"):
        for causal in (False, True):
            assert any(x.startswith("PASS attention %s causal=%s:" % (shape, causal))
                       for x in lines), lines
    for causal in (False, True):
        header, rows = perf_table(proc.stdout, "attention-fwd-z1-h2-d64-causal=%s" % causal)
        assert header == ["N_CTX", "Triton", "Torch"]
        assert [r[0] for r in rows] == [128, 256] and all(min(r) > 0 for r in rows)
