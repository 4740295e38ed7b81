#!/bin/sh
# Runs `tegula devices`, requires exit status 0, and checks its output with
# FileCheck. Usage: run-devices-test.sh <tegula> <FileCheck> <check-file>
tegula=$1 filecheck=$2 checks=$3
out=$("$tegula" devices 2>&1)
status=$?
printf '%s\n' "$out" | "$filecheck" "$checks" || exit 1
if [ "$status" -ne 0 ]; then
  echo "tegula devices exited with $status, expected 0" >&2
  exit 1
fi
