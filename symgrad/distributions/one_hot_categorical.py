"""PyTorch's import path ``torch.distributions.one_hot_categorical``: ``OneHotCategorical``,
``OneHotCategoricalStraightThrough`` (defined in ``symgrad.distributions.one_hot``)."""

from symgrad.distributions.one_hot import OneHotCategorical, OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]
