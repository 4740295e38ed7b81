#!/bin/sh
# ctest python.interop: the PyTorch and JAX tests (test_torch_host.py,
# test_jax_host.py, test_distributed_host.py, test_tutorials_torch.py) under
# the Python of the interop venv that scripts/interop-venv.sh makes. Without that venv they
# are skipped (exit 77, ctest's SKIP_RETURN_CODE) with a message; with it,
# every failure fails.
venv=${TEGULA_INTEROP_VENV:-/opt/tegula-interop}
if [ ! -x "$venv/bin/python" ]; then
  echo "SKIPPED: no interop venv at $venv: scripts/install-deps.sh makes it" \
       "(scripts/interop-venv.sh), unless TEGULA_SKIP_INTEROP=1"
  exit 77
fi
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs --durations=0 "$@"
