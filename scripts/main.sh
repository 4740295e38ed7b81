#!/usr/bin/env bash
# The main job: installs what Tegula needs, builds it, and runs the bundled
# example through the target-independent pipeline, printing the result.
# (Once kernels run on devices, this runs the bundled kernels on every device.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
for example in "$root"/examples/*.mlir; do
  echo "== tegula-opt --tile-optimize $(basename "$example")"
  "$build/bin/tegula-opt" --tile-optimize "$example"
done
