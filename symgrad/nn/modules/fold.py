"""``symgrad.nn.modules.fold``: PyTorch's module path of Fold, Unfold
(kept in ``symgrad.nn``; :mod:`symgrad.nn.modules._homes` places them here)."""
