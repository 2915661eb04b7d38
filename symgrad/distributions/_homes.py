"""PyTorch's module path for each distribution and transform class, whichever file of symgrad
defines it: ``type(Normal(0.0, 1.0)).__module__`` is ``symgrad.distributions.normal`` as
PyTorch's is ``torch.distributions.normal`` (each of these modules holds its classes).

Examples
--------
>>> from symgrad import distributions
>>> str(distributions.Normal), distributions.ExpTransform.__module__
("<class 'symgrad.distributions.normal.Normal'>", 'symgrad.distributions.transforms')
"""

from __future__ import annotations

import importlib

__all__ = ["HOMES"]

# torch.distributions.<file>: the classes PyTorch defines there that symgrad defines elsewhere
HOMES = {
    "bernoulli": ("Bernoulli",),
    "beta": ("Beta",),
    "binomial": ("Binomial",),
    "categorical": ("Categorical",),
    "cauchy": ("Cauchy",),
    "chi2": ("Chi2",),
    "dirichlet": ("Dirichlet",),
    "exponential": ("Exponential",),
    "fishersnedecor": ("FisherSnedecor",),
    "gamma": ("Gamma",),
    "generalized_pareto": ("GeneralizedPareto",),
    "geometric": ("Geometric",),
    "gumbel": ("Gumbel",),
    "half_cauchy": ("HalfCauchy",),
    "half_normal": ("HalfNormal",),
    "independent": ("Independent",),
    "inverse_gamma": ("InverseGamma",),
    "kumaraswamy": ("Kumaraswamy",),
    "laplace": ("Laplace",),
    "log_normal": ("LogNormal",),
    "logistic_normal": ("LogisticNormal",),
    "lowrank_multivariate_normal": ("LowRankMultivariateNormal",),
    "mixture_same_family": ("MixtureSameFamily",),
    "multinomial": ("Multinomial",),
    "negative_binomial": ("NegativeBinomial",),
    "normal": ("Normal",),
    "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"),
    "pareto": ("Pareto",),
    "poisson": ("Poisson",),
    "relaxed_bernoulli": ("RelaxedBernoulli",),
    "relaxed_categorical": ("RelaxedOneHotCategorical",),
    "studentT": ("StudentT",),
    "transforms": (
        "Transform",
        "ComposeTransform",
        "IndependentTransform",
        "ReshapeTransform",
        "ExpTransform",
        "PowerTransform",
        "SigmoidTransform",
        "SoftplusTransform",
        "TanhTransform",
        "AbsTransform",
        "AffineTransform",
        "CorrCholeskyTransform",
        "SoftmaxTransform",
        "StickBreakingTransform",
        "LowerCholeskyTransform",
        "PositiveDefiniteTransform",
        "CatTransform",
        "StackTransform",
        "CumulativeDistributionTransform",
    ),
    "uniform": ("Uniform",),
    "weibull": ("Weibull",),
}


def _settle() -> None:
    for file, names in HOMES.items():
        module = importlib.import_module(f"symgrad.distributions.{file}")
        for name in names:
            getattr(module, name).__module__ = module.__name__


_settle()
