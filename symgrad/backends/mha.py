"""``symgrad.backends.mha``: PyTorch's switch for the fast path of multi-head attention's
inference (``nn.TransformerEncoder`` leaves padded positions at 0 there)."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_ENABLED = [True]


def get_fastpath_enabled() -> bool:
    """Whether the inference fast path is on (as in PyTorch, by default).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.mha.get_fastpath_enabled()
    True
    """
    return _ENABLED[0]


def set_fastpath_enabled(value: bool) -> None:
    """Switch the inference fast path on or off.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.mha.set_fastpath_enabled(False)
    >>> symgrad.backends.mha.get_fastpath_enabled()
    False
    >>> symgrad.backends.mha.set_fastpath_enabled(True)
    """
    _ENABLED[0] = bool(value)
