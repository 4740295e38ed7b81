#!/bin/sh
# Checks that the core's programs and libraries hold no plugin code: none
# of them needs a plugin library or a plugin's static library, defines a
# symbol of a plugin's namespace (tegula::nvidia, tegula::host, tegula::amd,
# tegula::intel), or calls into a GPU target of LLVM (NVPTX, AMDGPU). Target
# code comes from the plugins, loaded at run time.
# Usage: check-core-has-no-plugin-code.sh FILE...
set -eu
status=0
for file in "$@"; do
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if printf '%s\n' "$needed" | grep -E 'tegula_plugin|tegula_nvidia|tegula_host|tegula_amd|tegula_intel'; then
    echo "FAIL: $file needs a plugin library" >&2
    status=1
  fi
  symbols=$(nm -C "$file" 2>/dev/null; nm -D -C "$file" 2>/dev/null)
  if printf '%s\n' "$symbols" | grep -E 'tegula::(nvidia|host|amd|intel)::' | head -5 | grep .; then
    echo "FAIL: $file holds plugin code (symbols above)" >&2
    status=1
  fi
  if printf '%s\n' "$symbols" | grep -E 'LLVMInitialize(NVPTX|AMDGPU)' | head -5 | grep .; then
    echo "FAIL: $file initializes a GPU target of LLVM (symbols above)" >&2
    status=1
  fi
  [ $status -eq 0 ] && echo "ok $file"
done
exit $status
