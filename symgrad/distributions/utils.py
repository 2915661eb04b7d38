"""Helpers the distributions share, as ``torch.distributions.utils``: broadcasting parameters,
converting between probabilities and logits, lazily computed attributes, and packing a
lower triangle into a vector.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions.utils import probs_to_logits
>>> probs_to_logits(symgrad.tensor([0.5]), is_binary=True)
tensor([0.])
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

from symgrad import creation, dtypes, type_info
from symgrad.autograd import grad_mode
from symgrad.nn import functional as F
from symgrad.ops import tiling
from symgrad.tensor import Tensor

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def broadcast_all(*values: Any) -> tuple:
    """Numbers and tensors broadcast to one shape; numbers become tensors of the first
    tensor's dtype (the default dtype when all are numbers).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import broadcast_all
    >>> loc, scale = broadcast_all(symgrad.zeros(2), 1.0)
    >>> scale
    tensor([1., 1.])
    """
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "symgrad.Tensor or objects implementing __torch_function__."
        )
    if all(isinstance(v, Tensor) for v in values):
        return tiling.broadcast_tensors(*values)
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = dtypes.get_default_dtype() if first is None else first.dtype
    made = [v if isinstance(v, Tensor) else creation.tensor(v, dtype=dtype) for v in values]
    return tiling.broadcast_tensors(*made)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its last ``dim`` dimensions."""
    if dim == 0:
        return value
    return value.reshape(*value.shape[: value.ndim - dim], -1).sum(-1)


def _assign_where(result: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``result`` with ``value`` written where ``mask`` holds, in place (``result[mask] =
    value``), as PyTorch writes its special cases: the node is ``IndexPutBackward0`` and no
    gradient reaches the replaced entries."""
    if mask.shape != result.shape:
        mask = mask.expand(result.shape)
    result[mask] = value
    return result


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` of log-odds when ``is_binary``, else the
    ``softmax`` over the last dimension.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import logits_to_probs
    >>> logits_to_probs(symgrad.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    if is_binary:
        return logits.sigmoid()
    return F.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped into ``[eps, 1 - eps]``, ``eps`` the dtype's machine epsilon.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import clamp_probs
    >>> clamp_probs(symgrad.tensor([0.0, 0.5, 1.0]))
    tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = type_info.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from (clamped) probabilities: log-odds when ``is_binary``, else the logs.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import probs_to_logits
    >>> probs_to_logits(symgrad.tensor([0.25, 0.75]))
    tensor([-1.3863, -0.2877])
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property:
    """A decorator computing an attribute on first access and storing it on the instance
    (computed with gradients on, as PyTorch does, so it works under ``no_grad`` later).

    Examples
    --------
    >>> from symgrad.distributions.utils import lazy_property
    >>> class Box:
    ...     @lazy_property
    ...     def area(self):
    ...         print("computing")
    ...         return 6
    >>> b = Box()
    >>> b.area
    computing
    6
    >>> b.area
    6
    """

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    # read on the class: a property for documentation tools, a lazy_property for validation
    def __init__(self, wrapped: Callable) -> None:
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    rows = creation.arange(n)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (below diagonal ``diag``) of a batch of square matrices, as
    vectors read row by row.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import tril_matrix_to_vec
    >>> tril_matrix_to_vec(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 3., 4.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of :func:`tril_matrix_to_vec`: square lower-triangular matrices filled
    row by row from ``vec``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.utils import vec_to_tril_matrix
    >>> vec_to_tril_matrix(symgrad.tensor([1.0, 3.0, 4.0]))
    tensor([[1., 0.],
            [3., 4.]])
    """
    # solve n (n + 1) / 2 + diag terms = len for n
    b = 1 + 2 * diag
    n = (-b + (b**2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > type_info.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    out = vec.new_zeros((*vec.shape[:-1], n, n))
    out[..., _tril_mask(n, diag)] = vec
    return out
