"""``torch.nn.grad``: the gradients of a convolution with respect to its input and to its
weight, for given output gradients (what a custom ``Function`` wrapping a convolution
returns from ``backward``).

Each is the vector-Jacobian product of the convolution, taken by the engine; recorded (so
differentiable again) when grad mode is on and the weight, input or output gradient requires
grad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import creation
from symgrad.autograd import grad_mode
from symgrad.autograd.grad_api import grad
from symgrad.nn.convolution import conv1d, conv2d, conv3d
from symgrad.tensor import Tensor

__all__ = [
    "conv1d_input",
    "conv1d_weight",
    "conv2d_input",
    "conv2d_weight",
    "conv3d_input",
    "conv3d_weight",
]


def _vjp(conv: Callable, x: Tensor, w: Tensor, grad_output: Tensor, of: Tensor, *args: Any):
    """``grad_output``'s product with the Jacobian of ``conv(x, w, None, *args)`` in ``of``."""
    record = grad_mode.is_grad_enabled() and any(
        t.requires_grad for t in (x, w, grad_output) if t is not of
    )
    with grad_mode.enable_grad():
        out = conv(x, w, None, *args)
        (result,) = grad(out, of, grad_output, create_graph=record)
    return result


def _input(conv: Callable, input_size, weight, grad_output, *args) -> Tensor:  # noqa: ANN001
    # the convolution is linear in its input: the product is the same at any input
    x = creation.zeros(tuple(input_size), dtype=grad_output.dtype).requires_grad_()
    return _vjp(conv, x, weight, grad_output, x, *args)


def _weight(conv: Callable, input, weight_size, grad_output, *args) -> Tensor:  # noqa: ANN001
    w = creation.zeros(tuple(weight_size), dtype=input.dtype).requires_grad_()
    return _vjp(conv, input, w, grad_output, w, *args)


def conv1d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to an input of shape ``input_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv1d_input
    >>> conv1d_input((1, 1, 3), symgrad.tensor([[[1.0, 2.0]]]), symgrad.ones(1, 1, 2))
    tensor([[[1., 3., 2.]]])
    """
    return _input(conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to a weight of shape ``weight_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv1d_weight
    >>> conv1d_weight(symgrad.tensor([[[1.0, 2.0, 3.0]]]), (1, 1, 2), symgrad.ones(1, 1, 2))
    tensor([[[3., 5.]]])
    """
    return _weight(conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to an input of shape ``input_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv2d_input
    >>> conv2d_input((1, 1, 2, 2), symgrad.ones(1, 1, 1, 1) * 2, symgrad.ones(1, 1, 2, 2))
    tensor([[[[2., 2.],
              [2., 2.]]]])
    """
    return _input(conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to a weight of shape ``weight_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv2d_weight
    >>> conv2d_weight(symgrad.ones(1, 1, 2, 2), (1, 1, 1, 1), symgrad.ones(1, 1, 2, 2))
    tensor([[[[4.]]]])
    """
    return _weight(conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to an input of shape ``input_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv3d_input
    >>> conv3d_input((1, 1, 1, 1, 2), symgrad.ones(1, 1, 1, 1, 1), symgrad.ones(1, 1, 1, 1, 2))
    tensor([[[[[1., 1.]]]]])
    """
    return _input(conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to a weight of shape ``weight_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.grad import conv3d_weight
    >>> conv3d_weight(symgrad.ones(1, 1, 1, 1, 2), (1, 1, 1, 1, 1), symgrad.ones(1, 1, 1, 1, 2))
    tensor([[[[[2.]]]]])
    """
    return _weight(conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
