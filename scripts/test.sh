#!/usr/bin/env bash
# Installs what Tegula needs, builds it, and runs every test (ctest: lit +
# FileCheck, GoogleTest, docs and packaging checks).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j2
