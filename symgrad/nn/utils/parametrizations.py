"""``torch.nn.utils.parametrizations``: ``weight_norm``, a weight re-expressed as a direction
``v`` and a size ``g`` (``weight = g * v / ||v||``), as a parametrization whose tensors are
``original0`` (``g``) and ``original1`` (``v``); ``spectral_norm``, a weight divided by its
largest singular value (see :mod:`symgrad.nn.utils.spectral`); ``orthogonal``, a matrix kept
orthogonal (see :mod:`symgrad.nn.utils.orthogonal`)."""

from __future__ import annotations

from typing import Any

from symgrad.nn.modules.module import Module
from symgrad.nn.utils import parametrize
from symgrad.nn.utils.orthogonal import orthogonal
from symgrad.nn.utils.spectral import spectral_norm
from symgrad.ops.weight_norm import norm_except_dim, weight_norm_interface
from symgrad.tensor import Tensor

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    """``weight = g * v / ||v||``, the norm over every dimension but ``dim`` (-1: all)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_norm_interface(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Any = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every dimension
    but ``dim``; ``dim=None`` for the whole tensor): ``g`` becomes
    ``module.parametrizations.<name>.original0`` and ``v`` ``original1``, both trained in the
    weight's place. The weight's value is unchanged.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.parametrizations import weight_norm
    >>> lin = weight_norm(symgrad.nn.Linear(3, 2))
    >>> [n for n, _ in lin.named_parameters()]
    ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    >>> lin.parametrizations.weight.original0.shape
    symgrad.Size([2, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
