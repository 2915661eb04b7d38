"""PyTorch's import path ``torch.distributions.relaxed_categorical``: ``ExpRelaxedCategorical``,
``RelaxedOneHotCategorical`` (defined in ``symgrad.distributions.relaxed``)."""

from symgrad.distributions.relaxed import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]
