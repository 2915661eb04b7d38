"""``symgrad.nn.modules.channelshuffle``: PyTorch's module path of ChannelShuffle
(kept in ``symgrad.nn``; :mod:`symgrad.nn.modules._homes` places them here)."""
