"""Layers PyTorch programs reach for next to the basic ones: ``Unflatten``, ``PReLU``,
``RMSNorm``, ``CosineSimilarity``, ``PairwiseDistance``, the channel dropouts, and the
parameter containers ``ParameterList`` and ``ParameterDict``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from symgrad import creation
from symgrad.nn import extras
from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
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
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

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
        self.weight = Parameter(creation.full((num_parameters,), init, dtype=dtype))

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
    def __init__(self: Any, p: float = 0.5, inplace: bool = False) -> None:
        Module.__init__(self)
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self: Any, input: Tensor) -> Tensor:
        return fn(input, self.p, self.training)

    def extra_repr(self: Any) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    doc = f"Module form of ``F.{fn.__name__}``: whole channels zeroed while training."
    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc})  # fmt: skip


Dropout1d = _channel_dropout_module("Dropout1d", extras.dropout1d)
Dropout2d = _channel_dropout_module("Dropout2d", extras.dropout2d)
Dropout3d = _channel_dropout_module("Dropout3d", extras.dropout3d)


def _lines(parameters: dict, describe: Any) -> str:
    return "\n".join(f"  ({k}): {describe(p)}" for k, p in parameters.items())


class ParameterList(Module):
    """A list of parameters, registered as ``"0"``, ``"1"``, ... (tensors become
    ``Parameter``\\ s).

    Examples
    --------
    >>> import symgrad
    >>> ps = symgrad.nn.ParameterList([symgrad.nn.Parameter(symgrad.ones(2)) for _ in range(3)])
    >>> len(ps), [n for n, _ in ps.named_parameters()]
    (3, ['0', '1', '2'])
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        for value in values or ():
            self.append(value)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._parameters.values())

    def __getitem__(self, idx: int) -> Any:
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return self._parameters[str(idx % n)]

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, str(idx % len(self)), _as_parameter(value))

    def append(self, value: Any) -> ParameterList:
        setattr(self, str(len(self)), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return _lines(self._parameters, lambda p: _describe(p, repr(p.dtype)))


class ParameterDict(Module):
    """A dict of parameters, registered under their keys (tensors become ``Parameter``\\ s).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> d = nn.ParameterDict({'scale': nn.Parameter(symgrad.ones(2))})
    >>> list(d.keys()), d['scale'].requires_grad
    (['scale'], True)
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self) -> Any:
        return self._parameters.keys()

    def values(self) -> Any:
        return self._parameters.values()

    def items(self) -> Any:
        return self._parameters.items()

    def update(self, parameters: Any) -> None:
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return _lines(
            self._parameters, lambda p: _describe(p, f"torch.{p.dtype.scalar_type}Tensor")
        )


def _as_parameter(value: Any) -> Any:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(p: Any, kind: str) -> str:
    size = "x".join(str(n) for n in p.shape)
    return f"Parameter containing: [{kind} of size {size}]"
