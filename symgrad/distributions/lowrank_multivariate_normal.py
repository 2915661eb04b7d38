"""PyTorch's import path ``torch.distributions.lowrank_multivariate_normal``:
``LowRankMultivariateNormal`` (defined in ``symgrad.distributions.lowrank_normal``)."""

from symgrad.distributions.lowrank_normal import LowRankMultivariateNormal

__all__ = ["LowRankMultivariateNormal"]
