"""``symgrad.nn.modules.flatten``: PyTorch's module path of Flatten, Unflatten
(kept in ``symgrad.nn``)."""

from symgrad.nn.modules._paths import forward_names, names_elsewhere

__all__ = list(names_elsewhere(__name__))
__getattr__ = forward_names(__name__)
