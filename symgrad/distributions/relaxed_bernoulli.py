"""PyTorch's import path ``torch.distributions.relaxed_bernoulli``: ``LogitRelaxedBernoulli``,
``RelaxedBernoulli`` (defined in ``symgrad.distributions.relaxed``)."""

from symgrad.distributions.relaxed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]
