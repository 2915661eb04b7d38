"""Transforms over vectors and matrices (softmax, stick-breaking, Cholesky factors) and the
structural ``CatTransform`` and ``StackTransform``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions.transforms import StickBreakingTransform
>>> StickBreakingTransform()(symgrad.zeros(2))
tensor([0.3333, 0.3333, 0.3333])
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from symgrad import creation, linalg, type_info
from symgrad.distributions import constraints
from symgrad.distributions.constraint_base import _require
from symgrad.distributions.transform_base import Transform
from symgrad.distributions.transforms_elementwise import (
    _Bijective,
    _clipped_sigmoid,
    _Stateless,
)
from symgrad.distributions.utils import _sum_rightmost, lazy_property
from symgrad.distributions.utils import tril_matrix_to_vec as _tril_to_vec
from symgrad.distributions.utils import vec_to_tril_matrix as _vec_to_tril
from symgrad.nn import functional as F
from symgrad.ops import joining
from symgrad.tensor import Tensor

__all__ = [
    "CatTransform",
    "CorrCholeskyTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
]


def _need_dims(shape: Any, count: int) -> tuple:
    """``shape`` as a tuple, once it has at least ``count`` dimensions."""
    if len(shape) >= count:
        return tuple(shape)
    raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_Stateless):
    """Unconstrained vectors to the simplex by ``softmax`` (not bijective).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import SoftmaxTransform
    >>> SoftmaxTransform()(symgrad.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        # PyTorch's steps (shift by the row's largest entry, exponentiate, normalize), so the
        # result's node is its DivBackward0
        weights = (x - x.max(-1, True)[0]).exp()
        return weights / weights.sum(-1, True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        _need_dims(shape, 1)
        return shape

    inverse_shape = forward_shape


def _log_pieces_left(count: int, like: Tensor) -> Tensor:
    # log(count), log(count - 1), ..., log(count - n + 1) for n = like.shape[-1]: shifting
    # the logits by these makes x = 0 break the stick into equal pieces
    return (count - like.new_ones(like.shape[-1]).cumsum(-1)).log()


class StickBreakingTransform(_Bijective):
    """Vectors of ``K - 1`` reals to the ``K``-simplex by stick-breaking (bijective).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import StickBreakingTransform
    >>> t = StickBreakingTransform()
    >>> t.inv(symgrad.tensor([0.5, 0.25, 0.25])), t.forward_shape((4,))
    (tensor([0.6931, 0.0000]), (5,))
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    @staticmethod
    def _shifted(x: Tensor) -> Tensor:
        return x - _log_pieces_left(x.shape[-1] + 1, x)

    def _call(self, x: Tensor) -> Tensor:
        # each fraction breaks off a part of what is left of the stick; the rest is the last
        fraction = _clipped_sigmoid(self._shifted(x))
        left_before = F.pad((1 - fraction).cumprod(-1), [1, 0], value=1)
        return F.pad(fraction, [0, 1], value=1) * left_before

    def _inverse(self, y: Tensor) -> Tensor:
        pieces = y[..., :-1]
        left_after = (1 - pieces.cumsum(-1)).clamp(min=type_info.finfo(y.dtype).tiny)
        # logit of each fraction (piece / what was left before it), unshifted
        return (pieces.log() - left_after.log()) + _log_pieces_left(y.shape[-1], pieces)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        s = self._shifted(x)
        # 1 - sigmoid(s) = exp(-s) sigmoid(s), summed in PyTorch's order
        return (-s + F.logsigmoid(s) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        *batch, n = _need_dims(shape, 1)
        return (*batch, n + 1)

    def inverse_shape(self, shape: Any) -> Any:
        *batch, n = _need_dims(shape, 1)
        return (*batch, n - 1)


def _on_diagonal(m: Tensor, f: Any) -> Tensor:
    # the strict lower triangle of m as it is, f applied to its diagonal, zeros above
    # the triangle first: a tensor of fewer than 2 dims fails there (tril's RuntimeError)
    below = m.tril(-1)
    return below + f(m.diagonal(dim1=-2, dim2=-1)).diag_embed()


class LowerCholeskyTransform(_Stateless):
    """Square matrices to lower-triangular ones with a positive diagonal: the strict lower
    triangle is kept and the diagonal exponentiated.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import LowerCholeskyTransform
    >>> LowerCholeskyTransform()(symgrad.tensor([[0.0, 5.0], [2.0, 0.0]]))
    tensor([[1., 0.],
            [2., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Tensor) -> Tensor:
        return _on_diagonal(x, Tensor.exp)

    def _inverse(self, y: Tensor) -> Tensor:
        return _on_diagonal(y, Tensor.log)


class PositiveDefiniteTransform(_Stateless):
    """Square matrices to positive definite ones: ``L @ L.mT`` of their lower Cholesky form.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import PositiveDefiniteTransform
    >>> PositiveDefiniteTransform()(symgrad.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Tensor) -> Tensor:
        factor = _on_diagonal(x, Tensor.exp)
        return factor @ factor.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return _on_diagonal(linalg.cholesky(y), Tensor.log)


def _unit_norm_left(y: Tensor) -> Tensor:
    # per row of y: 1 minus the squared norm of the entries up to and including each one
    return 1 - (y * y).cumsum(-1)


def _shift_right(rows: Tensor) -> Tensor:
    # each row moved one place right, starting with 1 (the value before any entry)
    return F.pad(rows[..., :-1], [1, 0], value=1)


class CorrCholeskyTransform(_Bijective):
    """Vectors of ``D (D - 1) / 2`` reals to Cholesky factors of ``D x D`` correlation
    matrices (``tanh`` then stick-breaking along each row).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import CorrCholeskyTransform
    >>> CorrCholeskyTransform()(symgrad.zeros(1))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky

    def _call(self, x: Tensor) -> Tensor:
        # tanh gives partial correlations in (-1, 1); kept off the ends so that rows stay
        # strictly inside the unit sphere
        eps = type_info.finfo(x.dtype).eps
        partial = _vec_to_tril(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # the norm of a row not yet used before each entry: prod over earlier sqrt(1 - z^2)
        scale = _shift_right((1 - partial.square()).sqrt().cumprod(-1))
        diagonal = creation.eye(partial.shape[-1], dtype=partial.dtype)
        return (partial + diagonal) * scale

    def _inverse(self, y: Tensor) -> Tensor:
        # the root of the strict lower triangle only: the zeros above it would give the
        # gradient 0 * inf = nan
        left = _tril_to_vec(_shift_right(_unit_norm_left(y)), diag=-1)
        partial = _tril_to_vec(y, diag=-1) / left.sqrt()
        return (partial.log1p() - (-partial).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor, intermediates: Any = None) -> Tensor:
        # PyTorch's steps: the stick-breaking part, then the tanh part written out
        from_rows = 0.5 * _tril_to_vec(_unit_norm_left(y), diag=-2).log().sum(-1)
        from_tanh = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return from_rows + from_tanh

    def forward_shape(self, shape: Any) -> Any:
        *batch, n = _need_dims(shape, 1)
        # the side d with d (d - 1) / 2 = n, the root of the quadratic
        side = round(0.5 + (2 * n + 0.25) ** 0.5)
        if side * (side - 1) != 2 * n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return (*batch, side, side)

    def inverse_shape(self, shape: Any) -> Any:
        *batch, rows, cols = _need_dims(shape, 2)
        if rows != cols:
            raise ValueError("Input is not square")
        return (*batch, rows * (cols - 1) // 2)


def _check_transforms(tseq: Sequence, cache_size: int) -> list:
    _require(
        all(isinstance(t, Transform) for t in tseq),
        "All elements of tseq must be Transform instances",
    )
    return [t.with_cache(cache_size) if cache_size else t for t in tseq]


def _check_size(z: Tensor, dim: int, size: int, label: str, what: str) -> None:
    # label: "x" or "y" names the argument; "tensor x" reads "tensor" in the range message
    if not -z.ndim <= dim < z.ndim:
        where = label.split()[0]
        raise AssertionError(f"dim {dim} out of range for {where} with {z.ndim} dimensions")
    if z.shape[dim] != size:
        name = label.split()[-1]
        raise AssertionError(f"{name}.size({dim}) = {z.shape[dim]} must equal {what}")


class CatTransform(Transform):
    """The transforms ``tseq`` applied to consecutive slices of ``lengths`` along ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import CatTransform, ExpTransform
    >>> from symgrad.distributions.transforms import identity_transform
    >>> t = CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[1, 1])
    >>> t(symgrad.tensor([0.0, 5.0]))
    tensor([1., 5.])
    """

    def __init__(
        self, tseq: Sequence, dim: int = 0, lengths: Sequence | None = None, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = _check_transforms(tseq, cache_size), dim
        count = len(self.transforms)
        self.lengths = list(lengths) if lengths is not None else [1] * count
        _require(
            len(self.lengths) == count,
            f"lengths ({len(self.lengths)}) must match transforms ({count})",
        )

    @lazy_property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._recached(cache_size, CatTransform, self.transforms, self.dim, self.lengths)

    def _pieces(self, z: Tensor, label: str) -> list:
        _check_size(z, self.dim, self.length, label, f"length {self.length}")
        starts = itertools.accumulate(self.lengths[:-1], initial=0)
        return [z.narrow(self.dim, at, n) for at, n in zip(starts, self.lengths)]

    def _call(self, x: Tensor) -> Tensor:
        parts = zip(self.transforms, self._pieces(x, "tensor x"))
        return joining.cat([t(piece) for t, piece in parts], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        parts = zip(self.transforms, self._pieces(y, "tensor y"))
        return joining.cat([t.inv(piece) for t, piece in parts], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        triples = zip(self.transforms, self._pieces(x, "x"), self._pieces(y, "y"))
        # every piece's log-det is brought to this transform's (widest) event shape
        terms = [
            _sum_rightmost(t.log_abs_det_jacobian(a, b), self.event_dim - t.event_dim)
            for t, a, b in triples
        ]
        # where the cat dim falls in the log-det's shape, counted from the right
        from_right = self.dim % x.ndim - x.ndim + self.event_dim
        # inside the event it was summed away; in the batch it keeps the pieces apart
        return sum(terms) if from_right >= 0 else joining.cat(terms, from_right)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))

    domain = constraints.dependent_property(lambda self: self._joined("domain"))
    codomain = constraints.dependent_property(lambda self: self._joined("codomain"))

    def _joined(self, side: str) -> Any:
        parts = [getattr(t, side) for t in self.transforms]
        return constraints.cat(parts, self.dim, self.lengths)


class StackTransform(Transform):
    """The transforms ``tseq`` applied to the slices along ``dim``, one each.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import ExpTransform, StackTransform
    >>> from symgrad.distributions.transforms import identity_transform
    >>> t = StackTransform([ExpTransform(), identity_transform], dim=1)
    >>> t(symgrad.tensor([[0.0, 5.0]]))
    tensor([[1., 5.]])
    """

    def __init__(self, tseq: Sequence, dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = _check_transforms(tseq, cache_size), dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._recached(cache_size, StackTransform, self.transforms, self.dim)

    def _slices(self, z: Tensor, label: str) -> list:
        n = len(self.transforms)
        _check_size(z, self.dim, n, label, f"len(transforms) {n}")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x: Tensor) -> Tensor:
        parts = zip(self.transforms, self._slices(x, "tensor x"))
        return joining.stack([t(s) for t, s in parts], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        parts = zip(self.transforms, self._slices(y, "tensor y"))
        return joining.stack([t.inv(s) for t, s in parts], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        xs, ys = self._slices(x, "x"), self._slices(y, "y")
        terms = [t.log_abs_det_jacobian(a, b) for t, a, b in zip(self.transforms, xs, ys)]
        return joining.stack(terms, self.dim)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))

    domain = constraints.dependent_property(lambda self: self._joined("domain"))
    codomain = constraints.dependent_property(lambda self: self._joined("codomain"))

    def _joined(self, side: str) -> Any:
        return constraints.stack([getattr(t, side) for t in self.transforms], self.dim)
