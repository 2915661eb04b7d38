"""``symgrad.backends.cudnn``: never available; its flags are kept so scripts can set them.

``deterministic`` and ``benchmark`` start False, ``enabled`` and ``allow_tf32`` True, as in
PyTorch; symgrad's NumPy computations are deterministic and in full precision whatever they
hold.
"""

__all__ = ["is_available", "version", "deterministic", "benchmark", "enabled", "allow_tf32"]

deterministic = False
benchmark = False
enabled = True
allow_tf32 = True


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
