"""``symgrad.nn.modules.pixelshuffle``: PyTorch's module path of PixelShuffle, PixelUnshuffle
(kept in ``symgrad.nn``; :mod:`symgrad.nn.modules._homes` places them here)."""
