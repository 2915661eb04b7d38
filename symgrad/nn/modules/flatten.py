"""``symgrad.nn.modules.flatten``: PyTorch's module path of Flatten, Unflatten
(kept in ``symgrad.nn``; :mod:`symgrad.nn.modules._homes` places them here)."""
