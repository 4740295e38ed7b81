#!/bin/sh
# Runs every program in python/tests/triton_programs (programs in the shape
# of Triton's tutorials 01 to 06, written for Tegula's tests, with `import
# tegula as triton`; docs/python.md) with the given Python, each in a fresh
# temporary folder (layer_norm.py saves its benchmark table in the current
# folder), and says which passed.
#
#   scripts/run-tutorials.sh [PYTHON] [PROGRAM...]
#
# PYTHON defaults to /opt/tegula-interop/bin/python where it exists, else
# python3. PROGRAMs are names in triton_programs (softmax.py, ...), default
# all. The programs on torch tensors need torch; under a Python without it
# they are reported as skipped, the NumPy ones (*_numpy.py) still run. They
# launch on the current device, tegula.default_device(): on the GPU machine
# nvidia:0, and their tensors are CUDA tensors through
# triton.runtime.driver.active.get_active_torch_device(); under
# TEGULA_VISIBLE_BACKENDS=host, host:0 and CPU tensors.
#
# The library comes from TEGULA_RUNTIME_LIB, else build/lib. Exit status: 0
# when every program run passed, else 1.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-}
[ $# -gt 0 ] && shift
if [ -z "$py" ]; then
  if [ -x /opt/tegula-interop/bin/python ]; then py=/opt/tegula-interop/bin/python; else py=python3; fi
fi
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export TEGULA_RUNTIME_LIB="${TEGULA_RUNTIME_LIB:-$root/build/lib/libtegula_runtime.so}"
progs=$root/python/tests/triton_programs
if [ $# -eq 0 ]; then
  set -- $(cd "$progs" && ls *.py)
fi
has_torch=0
"$py" -c "import torch" 2>/dev/null && has_torch=1
device=$("$py" -c "import tegula; print(tegula.default_device().name)" 2>&1 | tail -1)
echo "python: $py ($("$py" --version 2>&1)), torch: $([ $has_torch = 1 ] && echo yes || echo no), device: $device"
failed=0 passed=0 skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in "$@"; do
  p=$(basename "$p")
  if [ $has_torch = 0 ] && grep -q '^import torch' "$progs/$p"; then
    echo "SKIP $p (needs torch)"
    skipped=$((skipped + 1))
    continue
  fi
  dir="$work/${p%.py}"
  mkdir -p "$dir"
  start=$(date +%s)
  if (cd "$dir" && "$py" "$progs/$p") >"$dir/log" 2>&1; then
    echo "PASS $p ($(( $(date +%s) - start )) s)"
    passed=$((passed + 1))
  else
    echo "FAIL $p ($(( $(date +%s) - start )) s); its output:"
    sed 's/^/    /' "$dir/log" | tail -40
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
