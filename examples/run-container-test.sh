#!/bin/sh
# Makes a kernel container of examples/vector_add.py for the host and two
# NVIDIA targets, then runs it with run_container, which must find an image
# for, run and check at least the host device.
# Usage: run-container-test.sh TEGULA RUN_CONTAINER VECTOR_ADD.PY OUT.tgk
set -eu
tegula=$1 run=$2 source=$3 out=$4
host=$("$tegula" targets | sed -n 's/^  targets: \(host:[^ ]*\).*/\1/p')
[ -n "$host" ] || { echo "no host target in 'tegula targets'" >&2; exit 1; }
"$tegula" compile "$source" --kernel add_kernel \
  --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  --target "$host" --target nvidia:sm_80 --target nvidia:sm_90a -o "$out"
"$tegula" inspect "$out"
output=$("$run" "$out" 300001)
echo "$output"
echo "$output" | grep -q "^host:0 .* $host .*match$" ||
  { echo "the host device did not run the container's host image" >&2; exit 1; }
