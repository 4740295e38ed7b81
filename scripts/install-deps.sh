#!/usr/bin/env bash
# Installs every Debian package Tegula needs to build and test. Idempotent:
# packages already present are skipped, so a second run does nothing.
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache python3 python3-venv python3-pip
  # python/ tests (system Python)
  python3-numpy python3-pytest
  # LLVM / MLIR 19
  clang-19 lld-19 llvm-19 llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  liblld-19-dev libclang-rt-19-dev zlib1g-dev libzstd-dev libz3-dev
  # vendor runtimes (loaded at run time, never linked)
  spirv-tools libze-dev libze1 libamdhip64-dev libhsa-runtime-dev rocm-device-libs
  pocl-opencl-icd ocl-icd-opencl-dev llvm-spirv-15 clinfo
  # libraries and test tools
  libboost-dev libboost-filesystem-dev libgtest-dev libgmock-dev googletest
  abigail-tools
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
