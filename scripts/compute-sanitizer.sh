#!/usr/bin/env bash
# Runs the kernel corpus on an NVIDIA GPU under compute-sanitizer (CUDA's
# memcheck, racecheck and synccheck tools) and summarizes what each tool
# reports, per kernel.
#
# The corpus is python/tests/test_corpus_host.py with TEGULA_TEST_DEVICE set
# (the same tests and NumPy references as on the host, arrays in device
# memory), as bench/gpu_bench.py runs it; one pytest process per tool, so a
# tool that stops the process loses its own run only.
#
# Usage (on the GPU machine, from the repository root, after the recipe of
# docs/gpu.md / DEVICE.md has put the libraries on LD_LIBRARY_PATH):
#   TEGULA_RUNTIME_LIB=$PWD/build/lib/libtegula_runtime.so \
#     scripts/compute-sanitizer.sh [--tools memcheck,racecheck,synccheck]
#       [--device nvidia:0] [--out DIR] [--timeout S] [-k PYTEST_EXPR]
#
# Output in --out (default $OUT, else bench/results/compute-sanitizer):
# <tool>.log (the sanitizer's own report, --log-file), <tool>.pytest.log,
# summary.md (the table, also printed last). Exit status: 0 when every tool
# ran and reported no error, 1 when any reported one or a test failed, 2 on
# a usage error, 3 when compute-sanitizer is missing.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools=memcheck,racecheck,synccheck
device=nvidia:0
out=${OUT:-$root/bench/results/compute-sanitizer}
timeout_s=540
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tools) tools=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    -k) filter=(-k "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "compute-sanitizer.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

sanitizer=$(command -v compute-sanitizer || true)
if [ -z "$sanitizer" ]; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ]; then
      sanitizer=$d/bin/compute-sanitizer
      break
    fi
  done
fi
if [ -z "$sanitizer" ]; then
  echo "compute-sanitizer.sh: compute-sanitizer not found (PATH, \$CUDA_HOME/bin," \
       "/usr/local/cuda/bin); it comes with the CUDA toolkit" >&2
  exit 3
fi

mkdir -p "$out"
export TEGULA_TEST_DEVICE=$device
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
# Every kernel compiles fresh: a cached image would hide nothing, but a
# private cache keeps the runs apart from the user's.
export TEGULA_CACHE_DIR=$out/kernel-cache

status=0
summary=$out/summary.md
{
  echo "# compute-sanitizer over the corpus on $device"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $("$sanitizer" --version | tail -n1)," \
       "git $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  echo "| tool | tests (pytest) | sanitizer errors | kernels with reports | wall s |"
  echo "|---|---|---|---|---|"
} > "$summary"

IFS=, read -r -a tool_list <<< "$tools"
for tool in "${tool_list[@]}"; do
  case "$tool" in
    memcheck) extra=() ;;  # kernels only: device memory left at exit is not a kernel error
    racecheck) extra=(--racecheck-report all) ;;
    synccheck|initcheck) extra=() ;;
    *) echo "compute-sanitizer.sh: unknown tool '$tool'" >&2; exit 2 ;;
  esac
  log=$out/$tool.log
  rm -f "$log"
  echo "compute-sanitizer --tool $tool over the corpus on $device ..." >&2
  start=$(date +%s)
  # --target-processes all: pytest may fork; --error-exitcode tells a
  # sanitizer report apart from a failing test.
  timeout "$timeout_s" "$sanitizer" --tool "$tool" "${extra[@]}" \
    --target-processes all --error-exitcode 86 --print-limit 1000 \
    --log-file "$log" \
    python3 -m pytest -q -rs -p no:cacheprovider "${filter[@]}" \
      "$root/python/tests/test_corpus_host.py" > "$out/$tool.pytest.log" 2>&1
  rc=$?
  wall=$(( $(date +%s) - start ))
  tests=$(grep -E '^[0-9]+ (passed|failed)|[0-9]+ passed|[0-9]+ failed' \
            "$out/$tool.pytest.log" | tail -n1)
  [ -n "$tests" ] || tests="no pytest summary (rc $rc)"
  errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$log" 2>/dev/null |
             awk '{s += $3} END {print s + 0}')
  # Reports name the kernel as "in NAME" on their "at ..." line (memcheck)
  # or "in function NAME" (racecheck, synccheck).
  kernels=$(grep -Eo '(in function|in) [A-Za-z_][A-Za-z0-9_]*' "$log" 2>/dev/null |
              awk '{print $NF}' | sort | uniq -c | sort -rn |
              awk '{printf "%s%s (%d)", sep, $2, $1; sep=", "}')
  [ -n "$kernels" ] || kernels="none"
  case $rc in
    0) ;;
    124) tests="$tests; stopped after ${timeout_s} s"; status=1 ;;
    86) status=1 ;;
    *) status=1 ;;
  esac
  [ "$errors" = 0 ] || status=1
  echo "| $tool | $tests | $errors | $kernels | $wall |" >> "$summary"
done

echo >> "$summary"
echo "Logs: $out/<tool>.log (compute-sanitizer), $out/<tool>.pytest.log (pytest)." >> "$summary"
cat "$summary"
exit $status
