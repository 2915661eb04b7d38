"""Probability distributions with ``log_prob``, ``entropy``, ``sample`` and ``rsample``, as
``torch.distributions``: the families, their ``constraints``, and ``kl_divergence`` between
them."""

from symgrad.distributions import constraints, utils
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.families import (
    Bernoulli,
    Categorical,
    Independent,
    MultivariateNormal,
    Normal,
    Uniform,
)
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions import constraint_registry, transforms
from symgrad.distributions.constraint_registry import biject_to, transform_to
from symgrad.distributions.transformed_distribution import TransformedDistribution
from symgrad.distributions.counts import Binomial, Poisson
from symgrad.distributions.trials import Geometric, NegativeBinomial
from symgrad.distributions.one_hot import (
    Multinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from symgrad.distributions.mixture import MixtureSameFamily
from symgrad.distributions import kl_discrete  # noqa: F401  (registers the discrete KL pairs)
from symgrad.distributions.continuous import Cauchy, Exponential, Laplace
from symgrad.distributions.gamma_family import Beta, Chi2, Dirichlet, Gamma
from symgrad.distributions.heavy_tails import FisherSnedecor, StudentT
from symgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from symgrad.distributions.lowrank_normal import LowRankMultivariateNormal
from symgrad.distributions.von_mises import VonMises
from symgrad.distributions.wishart import Wishart
from symgrad.distributions.lkj_cholesky import LKJCholesky
from symgrad.distributions import kl_continuous  # noqa: F401  (registers the continuous pairs)
from symgrad.distributions.transformed_families import (
    Gumbel,
    HalfCauchy,
    HalfNormal,
    LogisticNormal,
    LogNormal,
)
from symgrad.distributions.transformed_tails import (
    GeneralizedPareto,
    InverseGamma,
    Kumaraswamy,
    Pareto,
    Weibull,
)
from symgrad.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from symgrad.distributions import kl_transformed  # noqa: F401  (registers the transformed pairs)
from symgrad.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)

# PyTorch's per-family module paths (torch.distributions.normal, ...): programs import from
# them and read them as attributes
from symgrad.distributions import (
    bernoulli,
    beta,
    binomial,
    categorical,
    cauchy,
    chi2,
    dirichlet,
    exponential,
    fishersnedecor,
    gamma,
    generalized_pareto,
    geometric,
    gumbel,
    half_cauchy,
    half_normal,
    independent,
    inverse_gamma,
    kumaraswamy,
    laplace,
    log_normal,
    logistic_normal,
    lowrank_multivariate_normal,
    mixture_same_family,
    multinomial,
    negative_binomial,
    normal,
    one_hot_categorical,
    pareto,
    poisson,
    relaxed_bernoulli,
    relaxed_categorical,
    studentT,
    uniform,
    weibull,
)

__all__ = [
    "constraints",
    "utils",
    "Distribution",
    "ExponentialFamily",
    "Normal",
    "Uniform",
    "Bernoulli",
    "Categorical",
    "Independent",
    "MultivariateNormal",
    "kl_divergence",
    "register_kl",
    "constraint_registry",
    "transforms",
    "biject_to",
    "transform_to",
    "TransformedDistribution",
    "LogNormal",
    "HalfNormal",
    "HalfCauchy",
    "LogisticNormal",
    "Gumbel",
    "Weibull",
    "Pareto",
    "Kumaraswamy",
    "GeneralizedPareto",
    "InverseGamma",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
    "Poisson",
    "Binomial",
    "Geometric",
    "NegativeBinomial",
    "Multinomial",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "MixtureSameFamily",
    "Exponential",
    "Laplace",
    "Cauchy",
    "Gamma",
    "Chi2",
    "Beta",
    "Dirichlet",
    "StudentT",
    "FisherSnedecor",
    "ContinuousBernoulli",
    "LowRankMultivariateNormal",
    "VonMises",
    "Wishart",
    "LKJCholesky",
]

from symgrad.distributions import _homes  # noqa: E402, F401  (every class under PyTorch's module path)
