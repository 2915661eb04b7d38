"""``symgrad.backends.openmp``: PyTorch's OpenMP switch; symgrad is not built with OpenMP."""

__all__ = ["is_available"]


def is_available() -> bool:
    """False: symgrad computes with NumPy, without OpenMP of its own.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.openmp.is_available()
    False
    """
    return False
