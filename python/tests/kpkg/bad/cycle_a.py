from .cycle_b import looped  # noqa: F401
