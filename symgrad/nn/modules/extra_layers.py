"""Layers PyTorch programs reach for next to the basic ones: ``Unflatten``, ``PReLU``,
``RMSNorm``, ``CosineSimilarity``, ``PairwiseDistance``, the channel dropouts (the parameter
containers ``ParameterList`` and ``ParameterDict`` live in ``parameter_containers`` and are
named here too)."""

from __future__ import annotations

from typing import Any

from symgrad import creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn import extras
from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.parameter_containers import ParameterDict, ParameterList
from symgrad.nn.modules.sparse import _DropoutNd
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = [
    "Unflatten",
    "PReLU",
    "RMSNorm",
    "CosineSimilarity",
    "PairwiseDistance",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "ParameterList",
    "ParameterDict",
]


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.Unflatten(1, (2, 3))(symgrad.ones(4, 6)).shape
    symgrad.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for i, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(size).__name__} at pos {i}"
                )
        # kept as given (a list prints as one, as in PyTorch)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class PReLU(Module):
    """``max(0, x) + a * min(0, x)`` with a learned ``a`` (``num_parameters`` of them, one
    per channel, each starting at ``init``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.PReLU()(symgrad.tensor([-2.0, 3.0]))
    tensor([-0.5000,  3.0000], grad_fn=<PreluKernelBackward0>)
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        # filled afterwards, as PyTorch's: an int init (PReLU(init=0)) gives float slopes
        self.weight = Parameter(creation.empty((num_parameters,), dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope back to ``init``.

        Examples
        --------
        >>> from symgrad import nn
        >>> prelu = nn.PReLU(2, init=0.1)
        >>> _ = prelu.weight.data.fill_(3.0)
        >>> prelu.reset_parameters()
        >>> prelu.weight.tolist()
        [0.10000000149011612, 0.10000000149011612]
        """
        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return extras.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RMSNorm(Module):
    """Root-mean-square normalisation over the last ``normalized_shape`` dimensions, with a
    learned scale (``elementwise_affine``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.RMSNorm(2)(symgrad.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(
        self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape, self.eps = tuple(shape), eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """The scale back to ones.

        Examples
        --------
        >>> from symgrad import nn
        >>> norm = nn.RMSNorm(2)
        >>> _ = norm.weight.data.fill_(3.0)
        >>> norm.reset_parameters()
        >>> norm.weight.tolist()
        [1.0, 1.0]
        """
        if self.weight is not None:
            with no_grad():
                self.weight.fill_(1.0)

    def forward(self, x: Tensor) -> Tensor:
        return extras.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class CosineSimilarity(Module):
    """``F.cosine_similarity(x1, x2, dim, eps)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.CosineSimilarity(dim=0)(symgrad.tensor([1.0, 0.0]), symgrad.tensor([1.0, 1.0]))
    tensor(0.7071)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``F.pairwise_distance(x1, x2, p, eps, keepdim)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.PairwiseDistance()(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([[3.0, 4.0]]))
    tensor([5.0000])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


def _channel_dropout_module(name: str, fn: Any) -> type:
    def forward(self: Any, input: Tensor) -> Tensor:
        return fn(input, self.p, self.training)

    doc = f"Module form of ``F.{fn.__name__}``: whole channels zeroed while training."
    return type(name, (_DropoutNd,), {"forward": forward, "__doc__": doc})


Dropout1d = _channel_dropout_module("Dropout1d", extras.dropout1d)
Dropout2d = _channel_dropout_module("Dropout2d", extras.dropout2d)
Dropout3d = _channel_dropout_module("Dropout3d", extras.dropout3d)
