#!/usr/bin/env bash
# Makes the venv of the interop tests (PyTorch and JAX on the CPU) at $1
# (default /opt/tegula-interop), from PyPI. Idempotent: a venv whose stamp
# matches the packages below and whose `import torch, jax` works is left as
# it is.
#
# PyPI's Linux torch wheel is a CUDA build: its own dependencies are ~3 GB
# of nvidia-* wheels, of which the CPU runs no code but libtorch links some.
# So torch goes in with --no-deps, then its pure-Python dependencies, then
# only those CUDA library wheels whose absence (or too old a copy on the
# library path, e.g. a system NCCL) still makes `import torch` fail, one at
# a time from the loader's message. The wheels are kept ($TEGULA_PIP_CACHE),
# so making the venv again downloads nothing.
set -euo pipefail

VENV=${1:-/opt/tegula-interop}
TORCH=torch==2.15.0
JAX="jax==0.10.2 jaxlib==0.10.2"
# What `import torch` needs beside the wheel (torch 2.15's Requires-Dist less
# the CUDA wheels and triton, which the CPU does not use) and what the tests
# use.
PURE="filelock typing-extensions>=4.13.0 setuptools>=77.0.3 sympy>=1.13.3 networkx>=2.5.1
      jinja2 fsspec>=0.8.5 numpy pytest"
# The wheel of each CUDA library libtorch links, at torch 2.15's pins
# (its cuda-toolkit==13.2.2 extras and nvidia-*-cu13 requirements).
declare -A WHEEL=(
  [cudart]="nvidia-cuda-runtime==13.2.86.*"
  [cublas]="nvidia-cublas==13.4.1.3.*"
  [cublasLt]="nvidia-cublas==13.4.1.3.*"
  [cufft]="nvidia-cufft==12.2.0.57.*"
  [cufile]="nvidia-cufile==1.17.1.22.*"
  [cusparse]="nvidia-cusparse==12.7.10.12.*"
  [cusparseLt]="nvidia-cusparselt-cu13==0.8.1"
  [cusolver]="nvidia-cusolver==12.2.0.11.*"
  [cupti]="nvidia-cuda-cupti==13.2.86.*"
  [nvJitLink]="nvidia-nvjitlink==13.2.86.*"
  [nvrtc]="nvidia-cuda-nvrtc==13.2.86.*"
  [nccl]="nvidia-nccl-cu13==2.30.7"
  [cudnn]="nvidia-cudnn-cu13==9.26.0.51"
  [nvshmem_host]="nvidia-nvshmem-cu13==3.7.2"
)
# The venv is remade when what goes into it changes.
STAMP="$VENV/.tegula-interop-stamp"
want=$(echo "$TORCH $JAX $PURE $(declare -p WHEEL)" | sha256sum | cut -c1-16)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] &&
   "$VENV/bin/python" -c "import torch, jax" 2>/dev/null; then
  echo "interop-venv: $VENV ready"
  exit 0
fi

start=$(date +%s)
echo "interop-venv: making $VENV (torch and jax for the CPU)"
# A venv of other packages is made anew (only a venv: pyvenv.cfg).
if [ -f "$VENV/pyvenv.cfg" ]; then rm -rf "$VENV"; fi
/usr/bin/python3 -m venv "$VENV"
# Every wheel is downloaded into the wheelhouse $TEGULA_PIP_CACHE (default
# /var/cache/tegula-pip), which pip reuses ("already downloaded"), and
# installed from there.
WHEELS=${TEGULA_PIP_CACHE:-/var/cache/tegula-pip}
mkdir -p "$WHEELS"
fetch() {
  "$VENV/bin/pip" download --quiet --no-input --disable-pip-version-check -d "$WHEELS" "$@"
  "$VENV/bin/pip" install --quiet --no-input --disable-pip-version-check --no-index \
    --find-links "$WHEELS" "$@"
}
# shellcheck disable=SC2086
fetch $PURE $JAX
fetch --no-deps "$TORCH"

for _ in $(seq 16); do
  if err=$("$VENV/bin/python" -c "import torch" 2>&1); then
    break
  fi
  lib=""
  if [[ $err =~ lib([A-Za-z_]+)\.so[.0-9]*:\ cannot\ open ]]; then
    lib=${BASH_REMATCH[1]}
  elif [[ $err =~ undefined\ symbol:\ ([A-Za-z_]+) ]]; then
    sym=${BASH_REMATCH[1]}
    for prefix in nccl cusparseLt cusparse cublasLt cublas cudnn cufft cuFile cusolver nvrtc \
                  nvshmem cupti cuda; do
      if [[ $sym == "$prefix"* ]]; then
        case $prefix in
          cuFile) lib=cufile ;; nvshmem) lib=nvshmem_host ;; cuda) lib=cudart ;;
          *) lib=$prefix ;;
        esac
        break
      fi
    done
  fi
  if [ -z "$lib" ] || [ -z "${WHEEL[$lib]:-}" ]; then
    echo "interop-venv: import torch fails, and not for a CUDA library wheel:" >&2
    echo "$err" | tail -3 >&2
    exit 1
  fi
  echo "interop-venv: libtorch needs lib$lib: ${WHEEL[$lib]}"
  fetch --no-deps "${WHEEL[$lib]}"
done
"$VENV/bin/python" -c "import torch, jax; print('interop-venv: torch', torch.__version__, \
'jax', jax.__version__)"
echo "$want" > "$STAMP"
echo "interop-venv: done in $(( $(date +%s) - start )) s, $(du -sh "$VENV" | cut -f1)"
