"""``symgrad.backends.mkldnn``: PyTorch's oneDNN switch; symgrad is not built with oneDNN."""

__all__ = ["is_available"]


def is_available() -> bool:
    """False: symgrad computes with NumPy, without oneDNN of its own.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.mkldnn.is_available()
    False
    """
    return False
