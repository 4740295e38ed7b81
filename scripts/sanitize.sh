#!/usr/bin/env bash
# Builds the runtime, the host plugin, the compiler library and the Python
# launch path with AddressSanitizer and UndefinedBehaviorSanitizer in a build
# folder of their own (./build-sanitize, or $TEGULA_SANITIZE_BUILD_DIR) and
# runs their tests there:
#   - kernel-cache-tests and compiler-api-tests (GoogleTest, instrumented
#     executables);
#   - the `python` suite (the runtime and the launcher against the testdev
#     plugin) and the `python.host` suite (kernels compiled and run on the
#     host plugin), in the system's Python with the ASan runtime preloaded.
# Any report fails the run (UBSan does not recover; ASan stops at the first
# error). Python and NumPy are not instrumented, and CPython's own memory at
# exit is not a leak of ours: leak checking is on for the C++ tests only.
#
# A full extra build (about as long as ./build's from scratch): it is not part
# of CI's budget (docs/building.md, "Sanitizers").
#
# Usage: scripts/sanitize.sh [--sanitize address,undefined] [--no-build]
#                            [-k PYTEST_EXPR] [--jobs N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TEGULA_SANITIZE_BUILD_DIR:-$root/build-sanitize}
sanitize=address,undefined
do_build=1
jobs=2
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    -k) filter=(-k "$2"); shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

export CCACHE_BASEDIR=$root
export CCACHE_NOHASHDIR=1
if [ "$do_build" = 1 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTEGULA_SANITIZE="$sanitize"
  fi
  # Only what the tests below load: no GPU plugin, no tegula-opt.
  cmake --build "$build" -j "$jobs" --target \
    TegulaRuntime TegulaCompiler tegula_plugin_host tegula \
    kernel-cache-tests compiler-api-tests \
    tegula_test_plugin_testdev tegula_test_plugin_bad_missing_entry \
    tegula_test_plugin_bad_major tegula_test_plugin_newer_minor \
    tegula_test_plugin_failing_init tegula_test_plugin_all_errors \
    tegula_test_plugin_not_a_library
fi

asan_runtime=$(clang++-19 -print-file-name=libclang_rt.asan-x86_64.so)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
log=$build/sanitize-logs
mkdir -p "$log"

run() {  # run NAME COMMAND...: one suite, its output in $log/NAME.log
  local name=$1
  shift
  echo "sanitize: $name"
  if "$@" > "$log/$name.log" 2>&1; then
    echo "sanitize: $name passed"
  else
    echo "sanitize: $name FAILED (status $?); the end of $log/$name.log:"
    tail -n 40 "$log/$name.log"
    status=1
  fi
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log/$name.log"; then
    echo "sanitize: $name has sanitizer reports:"
    grep -E -A3 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log/$name.log" | head -n 40
    status=1
  fi
}

ASAN_OPTIONS=detect_leaks=1 run kernel-cache-tests "$build/bin/kernel-cache-tests"
ASAN_OPTIONS=detect_leaks=1 run compiler-api-tests "$build/bin/compiler-api-tests"

# The Python suites as ctest runs them (tests/CMakeLists.txt), in the
# system's uninstrumented Python with the runtime preloaded.
py() {
  env LD_PRELOAD="$asan_runtime" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
    TEGULA_RUNTIME_LIB="$build/lib/libtegula_runtime.so" \
    PYTHONPATH="$root/python" TEGULA_CACHE_DIR=none "$@"
}
host_tests=()
for t in launch simt chunked_convert options container disk_cache hints block_pointer \
         triton_api reliability libdevice descriptor language dot_scaled errors debug corpus; do
  host_tests+=("$root/python/tests/test_${t}_host.py")
done
ignored=()
for t in "$root"/python/tests/test_*_host.py; do ignored+=(--ignore="$t"); done
run python py TEGULA_PLUGIN_PATH="$build/tests/runtime/plugins" TEGULA_VISIBLE_BACKENDS=testdev \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider -rs "${filter[@]}" "${ignored[@]}" \
  "$root/python/tests"
run python.host py TEGULA_PLUGIN_PATH= TEGULA_VISIBLE_BACKENDS=host \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider -rs "${filter[@]}" "${host_tests[@]}"

if [ "$status" = 0 ]; then
  echo "sanitize: every suite passed with no report ($sanitize)"
fi
exit $status
