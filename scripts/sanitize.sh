#!/usr/bin/env bash
# Builds the runtime, the host plugin, the compiler library and the Python
# launch path with AddressSanitizer and UndefinedBehaviorSanitizer in a build
# folder of their own and runs their tests there:
#   - runtime-tests, kernel-cache-tests, host-plugin-tests and
#     compiler-api-tests (GoogleTest, instrumented executables);
#   - the `python` suite (the runtime and the launcher against the testdev
#     plugin) and the `python.host` suite (kernels compiled and run on the
#     host plugin), in the system's Python with the ASan runtime preloaded.
# Any report fails the run (UBSan does not recover; ASan stops at the first
# error). Python and NumPy are not instrumented, and CPython's own memory at
# exit is not a leak of ours: leak checking is on for the C++ tests only.
#
# --scope all (the default; ./build-sanitize, or $TEGULA_SANITIZE_BUILD_DIR)
#   instruments every target: a full extra build, about as long as ./build's
#   from scratch.
# --scope launch (./build-sanitize-launch) instruments only the code of the
#   launch path: the runtime and kernel cache, the compiler library's C API,
#   the backend kit, the host plugin and its code generator, tegula._accel,
#   the testdev plugin and the test executables (TEGULA_SANITIZE_TARGETS). The rest (MLIR passes, lowering, front end)
#   is compiled exactly as ./build compiles it, so ccache serves it after a
#   normal build, and only linked with the sanitizer runtime.
# Neither is part of CI's budget (docs/building.md, "Sanitizers").
#
# Usage: scripts/sanitize.sh [--scope all|launch] [--sanitize address,undefined]
#                            [--suites LIST] [--no-build | --build-only]
#                            [-k PYTEST_EXPR] [--jobs N]
#   --suites: a comma-separated subset of runtime-tests, kernel-cache-tests,
#   host-plugin-tests, compiler-api-tests, python, python.host (default: all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=address,undefined
scope=all
do_build=1
do_test=1
jobs=2
filter=()
all_suites=runtime-tests,kernel-cache-tests,host-plugin-tests,compiler-api-tests,python,python.host
suites=$all_suites
while [ $# -gt 0 ]; do
  case "$1" in
    --scope) scope=${2:-}; shift 2 ;;
    --sanitize) sanitize=${2:-}; shift 2 ;;
    --suites) suites=${2:-}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --build-only) do_test=0; shift ;;
    --jobs) jobs=${2:-}; shift 2 ;;
    -k) filter=(-k "${2:-}"); shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$scope" in
  all) build=${TEGULA_SANITIZE_BUILD_DIR:-$root/build-sanitize}; targets= ;;
  launch)
    build=${TEGULA_SANITIZE_BUILD_DIR:-$root/build-sanitize-launch}
    targets="TegulaRuntime;TegulaKernelCache;TegulaCompiler;TegulaBackendKit"
    targets+=";TegulaHostCodegen;tegula_plugin_host;tegula_test_plugin_testdev"
    targets+=";runtime-tests;kernel-cache-tests;host-plugin-tests;compiler-api-tests"
    targets+=";tegula_accel?" ;;  # ?: where Python's headers are
  *) echo "sanitize.sh: --scope is all or launch, not '$scope'" >&2; exit 2 ;;
esac
IFS=, read -r -a wanted <<< "$suites"
for s in "${wanted[@]}"; do
  case ",$all_suites," in
    *",$s,"*) ;;
    *) echo "sanitize.sh: no suite '$s' (the suites: $all_suites)" >&2; exit 2 ;;
  esac
done
wants() { case ",$suites," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

export CCACHE_BASEDIR=$root
export CCACHE_NOHASHDIR=1
if [ "$do_build" = 1 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTEGULA_SANITIZE="$sanitize" -DTEGULA_SANITIZE_TARGETS="$targets"
  fi
  if [ -n "$targets" ] && cmake -LA -N "$build" | grep -q '^TEGULA_SANITIZE_TARGETS:STRING=$'; then
    echo "sanitize.sh: $build instruments every target; --scope launch needs a folder of its own" >&2
    exit 2
  fi
  # Only what the tests below load: the GPU plugins only because
  # runtime-tests depends on them (instrumented only with --scope all).
  tgt=(TegulaRuntime TegulaCompiler tegula_plugin_host tegula
       tegula_test_plugin_testdev tegula_test_plugin_bad_missing_entry
       tegula_test_plugin_bad_major tegula_test_plugin_newer_minor
       tegula_test_plugin_failing_init tegula_test_plugin_all_errors
       tegula_test_plugin_not_a_library)
  for s in runtime-tests kernel-cache-tests host-plugin-tests compiler-api-tests; do
    if wants "$s"; then tgt+=("$s"); fi
  done
  if ninja -C "$build" -t targets all | grep -q '^tegula_accel:'; then
    tgt+=(tegula_accel)
  fi
  cmake --build "$build" -j "$jobs" --target "${tgt[@]}"
fi
if [ "$do_test" = 0 ]; then
  exit 0
fi

asan_runtime=$(clang++-19 -print-file-name=libclang_rt.asan-x86_64.so)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# An allocation too large to serve returns NULL, as glibc's does: the tests
# check that such requests (2^62 bytes of scratch) become out-of-memory
# errors, which ASan would otherwise stop the program for.
asan=allocator_may_return_null=1
status=0
log=$build/sanitize-logs
mkdir -p "$log"

run() {  # run NAME COMMAND...: one suite, its output in $log/NAME.log
  local name=$1
  shift
  echo "sanitize: $name"
  local rc=0
  "$@" > "$log/$name.log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    echo "sanitize: $name passed"
  else
    echo "sanitize: $name FAILED (status $rc); the end of $log/$name.log:"
    tail -n 40 "$log/$name.log"
    status=1
  fi
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log/$name.log"; then
    echo "sanitize: $name has sanitizer reports:"
    grep -E -A3 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log/$name.log" | head -n 40
    status=1
  fi
}

for s in runtime-tests kernel-cache-tests host-plugin-tests compiler-api-tests; do
  if wants "$s"; then
    ASAN_OPTIONS=$asan:detect_leaks=1 run "$s" "$build/bin/$s"
  fi
done

# The Python suites as ctest runs them (tests/CMakeLists.txt), in the
# system's uninstrumented Python with the runtime preloaded; without
# pytest's faulthandler, which would take a crash's signal before ASan
# reports where it was.
py() {
  env LD_PRELOAD="$asan_runtime" ASAN_OPTIONS=$asan:detect_leaks=0 PYTHONMALLOC=malloc \
    TEGULA_RUNTIME_LIB="$build/lib/libtegula_runtime.so" \
    PYTHONPATH="$root/python" TEGULA_CACHE_DIR=none "$@"
}
# python.host: every host test file but the install test (python.install,
# which installs the build; nothing of the launch path of its own).
host_tests=()
ignored=()
for t in "$root"/python/tests/test_*_host.py; do
  ignored+=(--ignore="$t")
  case "$t" in */test_install_host.py) ;; *) host_tests+=("$t") ;; esac
done
if wants python; then
  run python py TEGULA_PLUGIN_PATH="$build/tests/runtime/plugins" \
    TEGULA_VISIBLE_BACKENDS=testdev \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:faulthandler -rs "${filter[@]}" "${ignored[@]}" \
    "$root/python/tests"
fi
if wants python.host; then
  run python.host py TEGULA_PLUGIN_PATH= TEGULA_VISIBLE_BACKENDS=host \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:faulthandler -rs "${filter[@]}" "${host_tests[@]}"
fi

if [ "$status" = 0 ]; then
  echo "sanitize: every suite passed with no report ($sanitize, --scope $scope: $suites)"
fi
exit $status
