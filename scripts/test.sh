#!/usr/bin/env bash
# Installs what Tegula needs, builds it, and runs every test: ctest (lit +
# FileCheck, GoogleTest, runtime, docs, packaging and ABI checks), then the
# front end's fuzzer for a bounded time (TEGULA_FUZZ_SECONDS, default 60).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
(cd "$build" && ctest --output-on-failure -j2)
"$root/scripts/fuzz.sh"
