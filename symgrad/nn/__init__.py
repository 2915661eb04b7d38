"""Neural networks as in ``torch.nn``: :class:`Module` and its layers, :class:`Parameter`,
``symgrad.nn.init`` and ``symgrad.nn.functional``."""

from symgrad.nn import functional, grad, init, parallel, utils
from symgrad.nn.modules import *  # noqa: F403
from symgrad.nn.modules import __all__ as _modules_all
from symgrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "functional",
    "grad",
    "init",
    "parallel",
    "utils",
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    *_modules_all,
]
