"""``triton.cdiv`` and ``triton.next_power_of_2``, for host code."""

__all__ = ["cdiv", "next_power_of_2"]


def cdiv(x, y):
    """The ceiling of x / y (for grids: programs of y elements covering x)."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of 2 >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()
