"""LKJCholesky: the LKJ distribution over Cholesky factors of correlation matrices.

A correlation matrix ``C = L L^T`` has density proportional to ``det(C)^(eta - 1)``; over its
Cholesky factor ``L`` (with the Jacobian of ``L -> L L^T``) that is
``prod_{i >= 1} L_ii^(2 (eta - 1) + dim - 1 - i)``, normalized as in Lewandowski, Kurowicka
and Joe (2009), page 1999. Samples follow their onion method (Section 3.2) written for the
Cholesky factor: row ``i`` is ``sqrt(y_i) u_i`` below the diagonal, ``y_i`` a beta draw and
``u_i`` uniform on the unit sphere of the first ``i`` coordinates, with the diagonal entry
completing the row to unit norm. (PyTorch 2.13 draws ``y_i`` from another beta law, see
``LKJCholesky.__init__``.)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import creation, type_info
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.gamma_family import Beta
from symgrad.distributions.utils import broadcast_all
from symgrad.ops import diag_embed, joining, mvlgamma
from symgrad.tensor import Tensor

__all__ = ["LKJCholesky"]


def _check_dim(dim: Any) -> None:
    if dim < 2:
        raise ValueError(
            f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
        )
    if not isinstance(dim, numbers.Integral):
        # PyTorch fails here when it builds the event shape torch.Size((dim, dim))
        raise TypeError(
            f"symgrad.Size() takes an iterable of 'int' (item 0 is '{type(dim).__name__}')"
        )


class LKJCholesky(Distribution):
    """The LKJ distribution of the lower Cholesky factor ``L`` of a ``dim x dim`` correlation
    matrix, of density proportional to ``det(L L^T)^(concentration - 1)``.

    ``concentration == 1`` is uniform over correlation matrices; larger values concentrate
    near the identity, smaller ones near singular matrices.

    Parameters
    ----------
    dim : int
        The size of the matrices, at least 2.
    concentration : float or Tensor
        The positive shape parameter (often called ``eta``); its shape is the batch shape.
    validate_args : bool, optional
        Whether to check the parameter and the values given to ``log_prob``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.LKJCholesky(2, 2.0)
    >>> d, d.event_shape
    (LKJCholesky(concentration: 2.0), symgrad.Size([2, 2]))
    >>> d.log_prob(symgrad.tensor([[1.0, 0.0], [0.6, 0.8]]))
    tensor(-0.7340)
    >>> symgrad.manual_seed(0)  # doctest: +ELLIPSIS
    <...>
    >>> L = d.sample((3,))
    >>> L.shape, bool(symgrad.distributions.constraints.corr_cholesky.check(L).all())
    (symgrad.Size([3, 2, 2]), True)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: Any = None) -> None:
        _check_dim(dim)
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Row i >= 1 of the factor has squared off-diagonal norm y_i ~ Beta(i / 2, eta +
        # (dim - 1 - i) / 2), drawn for all rows at once (row 0's draw is unused). PyTorch
        # 2.13 draws Beta(i - 1/2, ...) instead, whose samples are not LKJ for dim > 2 (their
        # correlations are too spread out); we keep its second parameter and its shapes.
        dtype = self.concentration.dtype
        steps = creation.arange(dim - 1, dtype=dtype)
        offset = joining.cat([creation.zeros(1, dtype=dtype), steps])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch)
        new._beta = self._beta.expand(Size((*batch, self.dim)))
        Distribution.__init__(new, batch, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draw Cholesky factors by the onion method, of shape ``sample_shape + batch_shape
        + (dim, dim)``; no gradient flows to ``concentration``."""
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = creation.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype)
        normal = normal.tril(-1)
        direction = normal / normal.norm(dim=-1, keepdim=True)
        direction[..., 0, :] = 0.0  # the first row has nothing below the diagonal (0 / 0)
        w = y.sqrt() * direction
        # rounding can push the squared norm of a row past 1: keep its diagonal positive
        tiny = type_info.finfo(w.dtype).tiny
        diagonal = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
        return w + diag_embed(diagonal)

    def log_prob(self, value: Any) -> Tensor:
        """The log density of the Cholesky factors ``value``, of shape ``batch_shape`` (or the
        broadcast of it with the leading dimensions of ``value``)."""
        if self._validate_args:
            self._validate_sample(value)
        eta, dim = self.concentration, self.dim
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        powers = creation.arange(dim - 2, -1, -1, dtype=eta.dtype)
        order = 2 * (eta - 1).unsqueeze(-1) + powers
        unnormalized = (order * diagonal.log()).sum(-1)
        alpha = eta + 0.5 * (dim - 1)
        log_normalizer = (
            0.5 * (dim - 1) * math.log(math.pi)
            + mvlgamma(alpha - 0.5, dim - 1)
            - (dim - 1) * alpha.lgamma()
        )
        return unnormalized - log_normalizer
