"""Ops of :mod:`symgrad.nn.functional` over whole channels or windows of channels:
``feature_alpha_dropout`` (and the feature dropouts behind ``symgrad.feature_dropout``),
``channel_shuffle``, ``native_channel_shuffle`` and ``local_response_norm``; and
``gumbel_softmax``. Each is composed of recorded ops as PyTorch composes it, so its nodes are
PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np

from symgrad import _like, creation
from symgrad._arguments import require_python_bool, require_tensor
from symgrad._memory_format import contiguous_format
from symgrad.nn import sparse as _sparse
from symgrad.nn.pooling import avg_pool2d, avg_pool3d, pad
from symgrad.ops.inplace import inplace as _inplace
from symgrad.ops.pixel_shuffle import channel_shuffle_node
from symgrad.tensor import Tensor

__all__ = [
    "feature_alpha_dropout",
    "channel_shuffle",
    "native_channel_shuffle",
    "local_response_norm",
    "gumbel_softmax",
]


def feature_dropout_impl(
    input: Tensor, p: float, train: bool, alpha: bool, name: str | None
) -> Tensor:
    """ATen's ``_dropout_impl`` with feature noise: the whole of each ``input[n, c]`` kept or
    dropped together (``alpha``: as alpha dropout); ``name``: the in-place op's name, or None
    for a new tensor. ``p`` is checked by the caller."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        compute = lambda x: x * creation.zeros((), dtype=x.dtype)  # noqa: E731
    else:
        # as ATen, the rank is checked only where a noise tensor is drawn
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = (*input.shape[:2], *([1] * (input.ndim - 2)))
        keep = _sparse._keep_mask(creation.empty(shape, dtype=input.dtype), p)
        keep = keep.astype(input._data.dtype)
        if alpha:
            a = 1.0 / np.sqrt((_sparse._ALPHA**2 * p + 1) * (1 - p))
            mult, shift = (Tensor._make(t) for t in _sparse._alpha_terms(keep, p, a))
            compute = lambda x: x * mult + shift  # noqa: E731
        else:
            mult = Tensor._make(keep * np.asarray(1.0 / (1.0 - p), dtype=keep.dtype))
            compute = lambda x: x * mult  # noqa: E731
    return compute(input) if name is None else _inplace(input, name, compute)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout of whole feature maps ``input[n, c]`` in ``training`` (dropped maps take
    SELU's negative saturation value, then an affine map keeps the mean and variance; nodes
    ``MulBackward0`` and ``AddBackward0``); the input itself otherwise. Masks come from
    symgrad's generator.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.feature_alpha_dropout(symgrad.ones(1, 2), 0.5)
    tensor([[1., 1.]])
    >>> F.feature_alpha_dropout(symgrad.ones(1, 2), 0.0, training=True)
    tensor([[1., 1.]])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if type(training) is not bool:
        require_python_bool("feature_alpha_dropout", "train", training, 3)
    name = "feature_alpha_dropout_" if inplace else None
    return feature_dropout_impl(input, p, training, True, name)


def _check_shuffle(input: Tensor, groups: int) -> None:
    if input.ndim <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.shape[1] % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {input.shape[1]} channels "
            f"and {groups} groups."
        )


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Split the channels (dim 1) into ``groups`` groups and interleave them: channel
    ``g * (C / groups) + k`` moves to ``k * groups + g`` (node ``ChannelShuffleBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.channel_shuffle(symgrad.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if type(input) is not Tensor:
        require_tensor("channel_shuffle", "input", 1, input)
    _check_shuffle(input, groups)
    return channel_shuffle_node(input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """:func:`channel_shuffle` (PyTorch's kernel without autograd support: here it is
    differentiable).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.native_channel_shuffle(symgrad.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if type(input) is not Tensor:
        require_tensor("native_channel_shuffle", "input", 1, input)
    return channel_shuffle(input, groups)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """``input / (k + alpha * mean of input**2 over size neighbouring channels)**beta``,
    the window zero-padded at both ends of the channels (dim 1) of a 3-d or larger input.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.local_response_norm(symgrad.tensor([[[1.0], [3.0]]]), 2, alpha=1.0, beta=1.0)
    tensor([[[0.6667],
             [0.5000]]])
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    ``g = -log(E)``, ``E`` exponential noise from symgrad's generator; ``hard=True`` gives the
    one-hot of the sample's largest entry with the soft sample's gradient (straight through).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> _ = symgrad.manual_seed(0)
    >>> y = F.gumbel_softmax(symgrad.zeros(2, 3), hard=True)
    >>> y.sum(1)
    tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # (a row-major tensor of noise, as PyTorch's legacy_contiguous_format, whatever the layout)
    gumbels = -_like.empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _like.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
