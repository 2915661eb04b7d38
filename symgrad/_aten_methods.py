"""The Tensor methods PyTorch has for the activations of :mod:`symgrad.nn.functional`
(``x.prelu(weight)``, ``x.hardshrink()``), bound when :mod:`symgrad` loads.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([-2.0, 3.0]).prelu(symgrad.tensor([0.25]))
tensor([-0.5000,  3.0000])
"""

from __future__ import annotations

from symgrad._arguments import require_tensor
from symgrad.nn import activations as _activations
from symgrad.nn import extras as _extras
from symgrad.tensor import Tensor, bind_methods

__all__: list = []


def prelu(self: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, ``weight`` one number or one per channel (dim 1)
    (node ``PreluKernelBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([-2.0, 3.0]).prelu(symgrad.tensor([0.5]))
    tensor([-1.,  3.])
    """
    if type(weight) is not Tensor:
        require_tensor("prelu", "weight", 1, weight)
    return _extras.prelu(self, weight)


def hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([-1.0, 0.25, 2.0]).hardshrink()
    tensor([-1.,  0.,  2.])
    """
    return _activations.hardshrink(self, lambd)


bind_methods({"prelu": prelu, "hardshrink": hardshrink})
