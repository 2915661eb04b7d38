"""Parameters as one flat vector and back, as ``torch.nn.utils``."""

from __future__ import annotations

from collections.abc import Iterable

from symgrad.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and joined into one vector (recorded: differentiable).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parameters_to_vector
    >>> layer = nn.Linear(2, 1)
    >>> parameters_to_vector(layer.parameters()).shape
    symgrad.Size([3])
    """
    from symgrad import cat

    # a view, as PyTorch: a parameter whose memory can't be read flat raises
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the vector ``vec`` into the parameters' ``.data``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import vector_to_parameters
    >>> layer = nn.Linear(2, 1)
    >>> vector_to_parameters(symgrad.tensor([1.0, 2.0, 3.0]), layer.parameters())
    >>> layer.weight.data, layer.bias.data
    (tensor([[1., 2.]]), tensor([3.]))
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    # PyTorch copies the leading slices and leaves any extra entries unread
    if vec.ndim != 1 or vec.numel() < total:
        raise RuntimeError(
            f"vector_to_parameters: the vector has shape {list(vec.shape)}, the parameters "
            f"{total} entries in all: give a 1-D vector of at least that length"
        )
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer : pointer + n].view_as(p).data
        pointer += n
