#!/usr/bin/env bash
# The main job: installs what Tegula needs, builds it, then, for the bundled
# examples, compiles each Triton kernel (examples/*.py) to tile IR and runs
# the target-independent pipeline over the tile IR example (examples/*.mlir),
# printing the results, and lists the devices found. (Once the backends run
# kernels, this runs the bundled kernels on every device found.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
for example in "$root"/examples/*.py; do
  # The first line names the kernel and its signature: "# tegula: ARGS".
  args=$(sed -n '1s/^# tegula: //p' "$example")
  echo "== tegula compile examples/$(basename "$example") $args"
  start=$(date +%s%N)
  eval "\"$build/bin/tegula\" compile \"$example\" $args"
  end=$(date +%s%N)
  echo "   (compiled in $(( (end - start) / 1000000 )) ms)"
done
for example in "$root"/examples/*.mlir; do
  echo "== tegula-opt --tile-optimize examples/$(basename "$example")"
  "$build/bin/tegula-opt" --tile-optimize "$example"
done
echo "== tegula devices"
"$build/bin/tegula" devices
