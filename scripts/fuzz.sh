#!/usr/bin/env bash
# Builds the front end's libFuzzer target with clang-19 (ASan + UBSan) in
# ./build-fuzz and runs it for TEGULA_FUZZ_SECONDS (default 60) on the seed
# corpus: tests/fuzz/seeds and tests/frontend/corpus. Exits non-zero on any
# finding (crash, hang over 10 s per input, more than 2 GB of memory).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TEGULA_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${TEGULA_FUZZ_SECONDS:-60}
export CCACHE_BASEDIR=$root
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DTEGULA_FUZZ=ON -DTEGULA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target tegula-frontend-fuzzer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
echo "fuzz: running tegula-frontend-fuzzer for ${seconds}s"
"$build/bin/tegula-frontend-fuzzer" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" \
  "$work/corpus" "$root/tests/fuzz/seeds" "$root/tests/frontend/corpus"
status=$?
if ls "$work/artifacts"/* >/dev/null 2>&1; then
  echo "fuzz: findings:"; ls -l "$work/artifacts"
  mkdir -p "$root/build-fuzz/findings" && cp "$work/artifacts"/* "$root/build-fuzz/findings/"
  exit 1
fi
echo "fuzz: no finding"
exit $status
