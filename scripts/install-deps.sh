#!/usr/bin/env bash
# Installs every Debian package Tegula needs to build and test, and the few
# Python packages Debian lacks (pip, for /usr/bin/python3). Idempotent:
# packages already present are skipped, so a second run does nothing.
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
set -euo pipefail

PACKAGES=(
  # build; g++ also compiles torch.compile's CPU code and tegula.jax's XLA
  # FFI handler in the interop tests
  cmake ninja-build ccache g++ python3 python3-venv python3-pip
  # `pip install --no-build-isolation ./python` offline, scripts/build-wheel.py
  python3-setuptools python3-wheel
  # python/ tests (system Python); python3-dev: the C extension tegula._accel
  python3-numpy python3-pytest python3-dev
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

# Python packages Debian 12 does not ship, for the system Python the tests
# use (/usr/bin/python3), as "pip-name:module". pip installs them into
# /usr/local (--break-system-packages: Debian marks its Python externally
# managed), with NumPy pinned to the installed Debian NumPy so that pip never
# pulls a second NumPy over it.
PIP_PACKAGES=(
  ml-dtypes:ml_dtypes   # bfloat16 / float8 NumPy dtypes (python/ tests)
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Intel's OpenCL CPU runtime (proprietary licence, ~300 MB download, ~850 MB
# installed), from PyPI into a venv of its own: it runs the intel plugin's
# SPIR-V on this CPU (tests/lit/Intel/run-opencl-cpu.test). Found by the
# tests at $TEGULA_INTEL_OPENCL_VENV, default below; TEGULA_SKIP_INTEL_OPENCL=1
# skips it.
INTEL_OPENCL_VENV=${TEGULA_INTEL_OPENCL_VENV:-/opt/tegula-intel-opencl}
if [ "${TEGULA_SKIP_INTEL_OPENCL:-0}" != 1 ] &&
   [ ! -e "$INTEL_OPENCL_VENV/lib/libintelocl.so" ]; then
  echo "install-deps: installing Intel's OpenCL CPU runtime into $INTEL_OPENCL_VENV"
  $SUDO /usr/bin/python3 -m venv "$INTEL_OPENCL_VENV"
  $SUDO "$INTEL_OPENCL_VENV/bin/pip" install --quiet --no-input \
    intel-opencl-rt intel-cmplr-lib-rt
fi

# PyTorch and JAX for the interop tests (python/tests/test_torch_host.py,
# test_jax_host.py, test_distributed_host.py), from PyPI into a venv of
# their own at $TEGULA_INTEROP_VENV (default below); TEGULA_SKIP_INTEROP=1
# skips it. PyPI's Linux torch wheel is a CUDA build that depends on ~3 GB of
# nvidia-* wheels; the CPU needs none of their code, but libtorch links some
# of them, so torch is installed with --no-deps, with its pure-Python
# dependencies, and only the CUDA library wheels that `import torch` still
# misses here (none where a compatible CUDA toolkit is on the library path):
# scripts/interop-venv.sh. pip's cache (~/.cache/pip) is kept between runs.
INTEROP_VENV=${TEGULA_INTEROP_VENV:-/opt/tegula-interop}
if [ "${TEGULA_SKIP_INTEROP:-0}" != 1 ]; then
  $SUDO "$(dirname "$0")/interop-venv.sh" "$INTEROP_VENV"
fi

missing_pip=()
for entry in "${PIP_PACKAGES[@]}"; do
  if ! /usr/bin/python3 -c "import ${entry#*:}" 2>/dev/null; then
    missing_pip+=("${entry%%:*}")
  fi
done
if [ ${#missing_pip[@]} -eq 0 ]; then
  echo "install-deps: all ${#PIP_PACKAGES[@]} Python packages present"
  exit 0
fi
numpy_version=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
echo "install-deps: pip installing ${missing_pip[*]} (numpy kept at $numpy_version)"
$SUDO /usr/bin/python3 -m pip install --quiet --no-input --break-system-packages \
  --root-user-action=ignore "${missing_pip[@]}" "numpy==$numpy_version"
