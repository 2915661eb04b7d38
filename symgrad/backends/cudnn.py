"""``symgrad.backends.cudnn``: never available; its flags are kept so scripts can set them.

``deterministic`` and ``benchmark`` start False and ``enabled`` True, as in PyTorch; symgrad's
NumPy computations are deterministic whatever they hold.
"""

__all__ = ["is_available", "version", "deterministic", "benchmark", "enabled"]

deterministic = False
benchmark = False
enabled = True


def is_available() -> bool:
    """False: symgrad computes on the CPU.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.cudnn.is_available()
    False
    """
    return False


def version() -> None:
    """None: there is no cuDNN library."""
    return None
