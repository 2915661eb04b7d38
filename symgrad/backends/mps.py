"""``symgrad.backends.mps``: Apple's Metal backend, never available (symgrad uses the CPU)."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: symgrad computes on the CPU.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.mps.is_available()
    False
    """
    return False


def is_built() -> bool:
    """False: symgrad has no Metal backend."""
    return False
