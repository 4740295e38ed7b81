from .cycle_a import looped  # noqa: F401
