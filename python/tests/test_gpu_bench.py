"""bench/gpu_bench.py runs only on the GPU machine; here its arguments,
imports and kernel files are checked (--help, --dry-run), so it cannot rot."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "bench", "gpu_bench.py")


def run(*args, **env):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), **env)
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True,
                          text=True, timeout=120, env=env)


def test_help():
    p = run("--help")
    assert p.returncode == 0, p.stderr
    for option in ("--quick", "--dry-run", "--out", "--only", "--device"):
        assert option in p.stdout
    assert "TRITON_CACHE_DIR" in p.stdout  # the description comes along


def test_dry_run(tmp_path):
    p = run("--dry-run", "--out", str(tmp_path / "results"))
    assert p.returncode == 0, p.stdout + p.stderr
    for case in ("vector add fp32 n=2^28", "softmax fp32 4096x4096", "softmax fp32 16384x781",
                 "layer norm fp16 4096x8192", "matmul fp16 4096^3", "matmul fp16 8192^3",
                 "flash attn fwd fp16 Z4 H32 N4096 D128"):
        assert case in p.stdout, p.stdout
    assert "PROBLEM" not in p.stdout
    assert not (tmp_path / "results").exists()  # a dry run writes nothing


def test_dry_run_quick_subset(tmp_path):
    p = run("--dry-run", "--quick", "--only", "matmul,attention-causal", "--out", str(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "matmul fp16 1024^3" in p.stdout and "causal" in p.stdout
    assert "softmax" not in p.stdout


def test_out_defaults_to_OUT_then_bench_results(tmp_path):
    p = run("--dry-run", "--only", "add", OUT=str(tmp_path / "from-env"))
    assert p.returncode == 0, p.stderr
    assert "output folder %s" % (tmp_path / "from-env") in p.stdout
    p = run("--dry-run", "--only", "add", OUT="")
    assert "output folder %s" % os.path.join(REPO, "bench", "results") in p.stdout


def test_bad_arguments():
    p = run("--dry-run", "--only", "nosuch")
    assert p.returncode == 2 and "unknown --only nosuch" in p.stderr
    p = run("--dry-run", "--impls", "tegula,cublas")
    assert p.returncode == 2 and "unknown --impls cublas" in p.stderr
