"""Transforms between constrained and unconstrained spaces, as
``torch.distributions.transforms``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import transforms
>>> parts = [transforms.AffineTransform(1.0, 2.0), transforms.ExpTransform()]
>>> t = transforms.ComposeTransform(parts)
>>> t.inv(t(symgrad.tensor([0.25])))
tensor([0.2500])
"""

from symgrad.distributions.transform_base import (
    ComposeTransform,
    Transform,
    _InverseTransform,  # noqa: F401
    identity_transform,
)
from symgrad.distributions.transforms_elementwise import (
    AbsTransform,
    AffineTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
)
from symgrad.distributions.transforms_matrix import (
    CatTransform,
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
)
from symgrad.distributions.transforms_shape import IndependentTransform, ReshapeTransform

__all__ = [
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
]
