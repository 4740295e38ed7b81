#!/bin/sh
# Writes (or with --check, compares) docs/compile-options.md: a fixed
# preamble, then `tegula targets --markdown`, the stages and compile options
# every plugin of the build declares.
# Usage: compile-options.sh TEGULA OUT.md [--check]
set -eu
tegula=$1
out=$2
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
{
  cat <<'PREAMBLE'
# Compile stages and options

Generated from what the plugins declare (`tegula targets --markdown`; the
`docs-compile-options` test keeps this page current, `ninja
update-option-docs` rewrites it). Each option is set, in order of
precedence, by the compile (`tegula compile --option KEY=VALUE`, the C API's
`tg_compile_option`s, Python's `kernel[grid](..., KEY=VALUE)`), by its
environment variable, or by its default. Every option's value is part of a
compiled kernel's cache key. `tegula compile --emit STAGE` stops at a stage;
`image` is the loadable kernel image, put in a kernel container.

PREAMBLE
  "$tegula" targets --markdown
} > "$generated"
if [ "${3:-}" = "--check" ]; then
  if ! cmp -s "$generated" "$out"; then
    echo "$out is stale: run ninja update-option-docs" >&2
    diff -u "$out" "$generated" >&2 || true
    exit 1
  fi
else
  cp "$generated" "$out"
fi
