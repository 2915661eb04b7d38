"""``symgrad.backends.cpu``: the CPU's vector capability, as PyTorch reports it.

symgrad's kernels are NumPy's, which picks its own vector instructions at run time, so it
reports ``"DEFAULT"`` (PyTorch's name for kernels without a vector capability of their own).
"""

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """``"DEFAULT"``: symgrad has no vectorised kernels of its own (NumPy's are chosen by NumPy).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.cpu.get_cpu_capability()
    'DEFAULT'
    """
    return "DEFAULT"
