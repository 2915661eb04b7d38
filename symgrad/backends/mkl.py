"""``symgrad.backends.mkl``: PyTorch's MKL switch; symgrad is not built with MKL."""

__all__ = ["is_available"]


def is_available() -> bool:
    """False: symgrad computes with NumPy, without MKL of its own.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.mkl.is_available()
    False
    """
    return False
