"""The weights of convolutions laid out in another memory format, as
``torch.nn.utils.convert_conv2d_weight_memory_format`` (and the 3-d one) lay them out."""

from __future__ import annotations

from typing import Any

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Any, memory_format: Any, kinds: tuple) -> Any:
    """The weight of every layer of ``kinds`` in ``module`` (itself included) copied into
    ``memory_format``; the parameter objects and their gradients stay."""
    if isinstance(module, kinds):
        weight = module.weight
        weight.data = weight.detach().clone().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    """``module`` with the weights of its ``Conv2d`` and ``ConvTranspose2d`` layers laid out
    in ``memory_format`` (``channels_last``); the values are unchanged.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import convert_conv2d_weight_memory_format
    >>> net = symgrad.nn.Sequential(symgrad.nn.Conv2d(2, 4, 3), symgrad.nn.ReLU())
    >>> net = convert_conv2d_weight_memory_format(net, symgrad.channels_last)
    >>> net[0].weight.is_contiguous(memory_format=symgrad.channels_last)
    True
    """
    from symgrad import nn

    return _convert(module, memory_format, (nn.Conv2d, nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    """``module`` with the weights of its ``Conv3d`` and ``ConvTranspose3d`` layers laid out
    in ``memory_format`` (``channels_last_3d``); the values are unchanged.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import convert_conv3d_weight_memory_format
    >>> conv = convert_conv3d_weight_memory_format(
    ...     symgrad.nn.Conv3d(2, 4, 2), symgrad.channels_last_3d
    ... )
    >>> conv.weight.is_contiguous(memory_format=symgrad.channels_last_3d)
    True
    """
    from symgrad import nn

    return _convert(module, memory_format, (nn.Conv3d, nn.ConvTranspose3d))
