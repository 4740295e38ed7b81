#!/usr/bin/env bash
# Checks Tegula on a machine with two or more NVIDIA GPUs (issue #23): what
# CI cannot, having no GPU (it runs the same paths on the host and testdev
# plugins: python/tests/test_multi_device.py, runtime MultiDevice.*).
#
#  1. devices: every GPU the driver lists is nvidia:<n>; one kernel
#     launched on each compiles once per architecture and loads a module
#     per device (compile_count, shared_image_loads), results checked;
#  2. mixed devices: a launch with arrays on nvidia:0 and nvidia:1 is a
#     ValueError naming both (Python), and tegula_kernel_check_buffers (the
#     C runtime) names the argument and its device; with PyTorch, cuda:N
#     tensors launch on nvidia:N with and without torch.cuda.device(M);
#  3. the kernel corpus (python/tests/test_corpus_host.py) on every GPU,
#     nvidia:1 as nvidia:0 (TEGULA_TEST_DEVICE);
#  4. examples/multi_device.py: every GPU at once, one thread and stream
#     each (and --torch, with PyTorch);
#  5. the NCCL training step (python/tests/distributed_train.py) with one
#     process per GPU (2 unless --world-size), NCCL_NVLS_ENABLE=0.
#
# Usage (repository root, after the recipe of docs/gpu.md has put the CUDA
# libraries on LD_LIBRARY_PATH and built ./build):
#   scripts/check-multi-gpu.sh [--build DIR] [--out DIR] [--python PY]
#       [--torch-python PY] [--world-size N] [--no-torch] [--skip-corpus]
# --python runs the Tegula steps (default $TEGULA_PYTHON, else python3: one
# with NumPy and pytest); --torch-python the
# PyTorch ones (default /opt/tegula-interop/bin/python when it exists, else
# --python): it needs torch with CUDA. --no-torch leaves the PyTorch steps
# out (reported as skipped); otherwise a torch without CUDA fails them.
#
# Prints one line per step and a summary; exit status 0 when every step
# passed, 1 when any failed, 2 on a usage error.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TEGULA_BUILD_DIR:-$root/build}
out=${OUT:-$root/bench/results/multi-gpu}
python=${TEGULA_PYTHON:-python3}
torch_python=
world_size=2
use_torch=1
corpus=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --torch-python) torch_python=$2; shift 2 ;;
    --world-size) world_size=$2; shift 2 ;;
    --no-torch) use_torch=0; shift ;;
    --skip-corpus) corpus=0; shift ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "check-multi-gpu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$torch_python" ]; then
  if [ -x /opt/tegula-interop/bin/python ]; then
    torch_python=/opt/tegula-interop/bin/python
  else
    torch_python=$python
  fi
fi

mkdir -p "$out"
export TEGULA_RUNTIME_LIB=${TEGULA_RUNTIME_LIB:-$build/lib/libtegula_runtime.so}
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
export TEGULA_PLUGIN_PATH=
export TEGULA_VISIBLE_BACKENDS=nvidia
# Every kernel compiles in this run: the counts of step 1 mean what they say.
export TEGULA_CACHE_DIR=none
export NCCL_NVLS_ENABLE=0

results=()
failed=0
# step NAME COMMAND...: runs COMMAND, its output in $out/NAME.log.
step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  local took=$((SECONDS - start))
  tail -n 5 "$out/$name.log" | sed 's/^/   /'
  if [ $rc -eq 0 ]; then
    results+=("PASS  $name (${took}s)")
  else
    results+=("FAIL  $name (exit $rc, ${took}s; $out/$name.log)")
    failed=$((failed + 1))
  fi
}
skip() {
  results+=("SKIP  $1 ($2)")
}

# How many NVIDIA devices Tegula sees.
count=$("$python" -c 'import tegula; print(sum(d.backend == "nvidia" for d in tegula.devices()))' \
        2>"$out/count.log") || count=0
echo "Tegula sees $count NVIDIA device(s)"
if [ "${count:-0}" -lt 2 ]; then
  echo "check-multi-gpu.sh: needs at least 2 NVIDIA devices, Tegula sees ${count:-0}" \
       "($out/count.log; \`build/bin/tegula devices\` says why)" >&2
  results+=("FAIL  device-count (need 2 or more NVIDIA devices, found ${count:-0})")
  failed=$((failed + 1))
fi

# A kernel file of this run (kernels must live in a .py file).
cat >"$out/mg_kernels.py" <<'EOF'
import tegula
import tegula.language as tl


@tegula.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * x + y, mask=mask)
EOF

cat >"$out/check_devices.py" <<'EOF'
"""Steps 1 and 2 without PyTorch: devices, one compile per arch, mixed devices."""
import ctypes
import sys

import numpy as np

import tegula
from mg_kernels import axpy

gpus = [d for d in tegula.devices() if d.backend == "nvidia"]
assert [d.name for d in gpus] == ["nvidia:%d" % i for i in range(len(gpus))], gpus
for d in gpus:
    print("%s: %s" % (d.name, d.target))
n = 100003
want = {}
bufs = {}
for i, d in enumerate(gpus):
    x = np.random.default_rng(i).standard_normal(n, dtype=np.float32)
    y = np.full(n, float(i), np.float32)
    bx, by = tegula.from_numpy(x, device=d), tegula.from_numpy(y, device=d)
    out = tegula.empty(n, np.float32, device=d)
    ck = axpy[((n + 1023) // 1024,)](bx, by, out, 2.0, n, BLOCK=1024)
    assert ck.device.name == d.name, (ck.device.name, d.name)
    got = out.to_numpy()
    assert np.allclose(got, 2.0 * x + y), d.name
    bufs[d.name] = (bx, by, out)
    print("%s: axpy matches" % d.name)
targets = {d.target for d in gpus}
print("compiles %d, shared image loads %d, targets %s"
      % (axpy.compile_count, axpy.shared_image_loads, sorted(targets)))
assert axpy.compile_count == len(targets), axpy.compile_count
assert axpy.shared_image_loads == len(gpus) - len(targets), axpy.shared_image_loads

# Mixed devices from Python: both arguments named with their devices.
x0, y0, out0 = bufs["nvidia:0"]
x1 = bufs["nvidia:1"][0]
try:
    axpy[(1,)](x0, x1, out0, 2.0, n, BLOCK=1024)
    sys.exit("a launch with arrays on nvidia:0 and nvidia:1 was not refused")
except ValueError as e:
    print("mixed devices (Python): %s" % e)
    assert "argument 'y_ptr' is a buffer on nvidia:1" in str(e), e
    assert "the launch is on nvidia:0 (the device of argument 'x_ptr'" in str(e), e

# Mixed devices through the C runtime: the kernel loaded on nvidia:0.
lib = tegula.runtime()._lib
ck = axpy[((n + 1023) // 1024,)](x0, y0, out0, 2.0, n, BLOCK=1024)
handles = (ctypes.c_void_p * 3)(x0._handle, x1._handle, out0._handle)
error = lib.tegula_kernel_check_buffers(ck._kernel, ctypes.byref(ck._metadata), handles, 3)
assert error, "tegula_kernel_check_buffers accepted a buffer of nvidia:1"
message = lib.tegula_error_get_message(error).decode()
lib.tegula_error_destroy(error)
print("mixed devices (C runtime): %s" % message)
# (Compiled kernels' metadata names the arguments arg0, arg1, ...)
assert message.startswith("kernel axpy is on nvidia:0, but argument 'arg1' (1) is a "
                          "buffer on nvidia:1"), message
print("devices and mixed-device errors: ok")
EOF

cat >"$out/check_torch.py" <<'EOF'
"""Step 2 with PyTorch: cuda:N tensors on nvidia:N, on that device's stream."""
import sys

import torch

from mg_kernels import axpy

assert torch.cuda.is_available() and torch.cuda.device_count() >= 2, \
    "PyTorch sees %d CUDA devices" % torch.cuda.device_count()
n = 65537
grid = ((n + 1023) // 1024,)
for i in range(torch.cuda.device_count()):
    x = torch.randn(n, device="cuda:%d" % i)
    y = torch.randn(n, device="cuda:%d" % i)
    out = torch.empty_like(x)
    ck = axpy[grid](x, y, out, 3.0, n, BLOCK=1024)            # no torch.cuda.device
    assert ck.device.name == "nvidia:%d" % i, ck.device.name
    torch.testing.assert_close(out, 3.0 * x + y)
    other = (i + 1) % torch.cuda.device_count()
    s = torch.cuda.Stream(device=i)
    with torch.cuda.device(other), torch.cuda.stream(s):     # another current device
        out2 = torch.empty_like(x)
        ck = axpy[grid](x, y, out2, 3.0, n, BLOCK=1024)
    assert ck.device.name == "nvidia:%d" % i, ck.device.name
    s.synchronize()
    torch.testing.assert_close(out2, 3.0 * x + y)
    print("cuda:%d -> %s: matches, also under torch.cuda.device(%d) on a side stream"
          % (i, ck.device.name, other))
x0 = torch.randn(n, device="cuda:0")
x1 = torch.randn(n, device="cuda:1")
try:
    axpy[grid](x0, x1, torch.empty_like(x0), 3.0, n, BLOCK=1024)
    sys.exit("tensors on cuda:0 and cuda:1 were not refused")
except ValueError as e:
    print("mixed devices (torch): %s" % e)
    assert "(cuda:1), which is nvidia:1, but the launch is on nvidia:0" in str(e), e
print("torch cuda:N tensors: ok")
EOF

have_torch_cuda() {
  "$torch_python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() and torch.cuda.device_count() >= 2 else 1)' \
    >/dev/null 2>&1
}

step devices env PYTHONPATH="$out:$PYTHONPATH" "$python" "$out/check_devices.py"

torch_ok=0
if [ $use_torch -eq 1 ]; then
  if have_torch_cuda; then
    torch_ok=1
  else
    results+=("FAIL  torch ($torch_python: no torch with 2+ CUDA devices; --no-torch skips)")
    failed=$((failed + 1))
  fi
fi
if [ $torch_ok -eq 1 ]; then
  step torch-devices env PYTHONPATH="$out:$PYTHONPATH" "$torch_python" "$out/check_torch.py"
else
  skip torch-devices "no PyTorch with CUDA"
fi

if [ $corpus -eq 1 ]; then
  for ((i = 0; i < ${count:-0}; i++)); do
    step "corpus-nvidia-$i" env TEGULA_TEST_DEVICE="nvidia:$i" \
      "$python" -m pytest -q -p no:cacheprovider "$root/python/tests/test_corpus_host.py"
  done
else
  skip corpus "--skip-corpus"
fi

step example-multi-device "$python" "$root/examples/multi_device.py" --backend nvidia
if [ $torch_ok -eq 1 ]; then
  step example-multi-device-torch "$torch_python" "$root/examples/multi_device.py" --torch
  mkdir -p "$out/nccl"
  step "nccl-$world_size-processes" "$torch_python" "$root/python/tests/distributed_train.py" \
    "$out/nccl" "$world_size" nccl
else
  skip example-multi-device-torch "no PyTorch with CUDA"
  skip nccl "no PyTorch with CUDA"
fi

echo
echo "Summary ($out):"
printf '  %s\n' "${results[@]}"
if [ $failed -gt 0 ]; then
  echo "check-multi-gpu: $failed failed"
  exit 1
fi
echo "check-multi-gpu: every step passed"
exit 0
