#!/usr/bin/env bash
# The main job: installs what Tegula needs, builds it, lists the devices
# found, then compiles the bundled example kernels (examples/*.py, Triton
# kernels: vector add, softmax, layer norm, matmul, attention) once for every
# target the loaded plugins declare, one kernel container each (in
# build/examples/), and runs each container on every device found - the host
# CPU at least - printing one table: kernel, images built, device, the image
# it ran, whether the result matched its NumPy reference, and the time
# (examples/run.py).
# Usage: scripts/main.sh [--show-ir]   (--show-ir also prints each example's
# tile IR and the target-independent pipeline over examples/*.mlir)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
show_ir=0
for arg in "$@"; do
  case $arg in
    --show-ir) show_ir=1 ;;
    *) echo "usage: scripts/main.sh [--show-ir]" >&2; exit 2 ;;
  esac
done
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TEGULA_BUILD_DIR:-$root/build}
if [ $show_ir = 1 ]; then
  for example in "$root"/examples/*.py; do
    # The first line names the kernel and its signature: "# tegula: ARGS".
    args=$(sed -n '1s/^# tegula: //p' "$example")
    [ -n "$args" ] || continue  # not a kernel file (examples/run.py)
    echo "== tegula compile examples/$(basename "$example") $args"
    eval "\"$build/bin/tegula\" compile \"$example\" $args"
  done
  for example in "$root"/examples/*.mlir; do
    echo "== tegula-opt --tile-optimize examples/$(basename "$example")"
    "$build/bin/tegula-opt" --tile-optimize "$example"
  done
fi
echo "== tegula devices"
"$build/bin/tegula" devices
echo "== examples/run.py: each kernel for every target, run on every device"
TEGULA_RUNTIME_LIB="$build/lib/libtegula_runtime.so" \
TEGULA_PLUGIN_PATH="${TEGULA_PLUGIN_PATH:-$build/lib/tegula/plugins}" \
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 "$root/examples/run.py" --out "$build/examples"
