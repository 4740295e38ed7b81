"""A small kernel package whose kernels import @jit helpers and constants
from its other modules (test_modules_host.py, tests/lit/Frontend/modules*):
absolute, aliased, relative and package-attribute imports."""
