#!/usr/bin/env bash
# The main job: installs what Tegula needs, builds it, lists the devices
# found, then runs the bundled example kernels (examples/*.py, Triton
# kernels) on every device found - the host CPU at least - printing for each
# whether the result matched its NumPy reference and the time
# (examples/run.py); it also shows the tile IR of each example and the
# target-independent pipeline over examples/*.mlir.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
for example in "$root"/examples/*.py; do
  # The first line names the kernel and its signature: "# tegula: ARGS".
  args=$(sed -n '1s/^# tegula: //p' "$example")
  [ -n "$args" ] || continue  # not a kernel file (examples/run.py)
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
echo "== examples/run.py: the bundled kernels on every device"
TEGULA_RUNTIME_LIB="$build/lib/libtegula_runtime.so" \
TEGULA_PLUGIN_PATH="${TEGULA_PLUGIN_PATH:-$build/lib/tegula/plugins}" \
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 "$root/examples/run.py"
