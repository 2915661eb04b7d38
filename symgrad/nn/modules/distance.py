"""``symgrad.nn.modules.distance``: PyTorch's module path of PairwiseDistance, CosineSimilarity
(kept in ``symgrad.nn``; :mod:`symgrad.nn.modules._homes` places them here)."""
