"""``symgrad.nn.modules.fold``: PyTorch's module path of Fold, Unfold
(kept in ``symgrad.nn``)."""

from symgrad.nn.modules._paths import forward_names, names_elsewhere

__all__ = list(names_elsewhere(__name__))
__getattr__ = forward_names(__name__)
