"""PyTorch's older, hook-based ``torch.nn.utils.weight_norm``: the weight replaced by two
parameters ``<name>_g`` (its size) and ``<name>_v`` (its direction), recomputed as
``g * v / ||v||`` by a forward pre-hook before every call of the module. Deprecated in PyTorch
(a FutureWarning) in favour of :func:`symgrad.nn.utils.parametrizations.weight_norm`."""

from __future__ import annotations

import sys
import warnings
from typing import Any

from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.ops.weight_norm import norm_except_dim, weight_norm_interface
from symgrad.tensor import Tensor

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_DEPRECATED = (
    "`torch.nn.utils.weight_norm` is deprecated in favor of "
    "`torch.nn.utils.parametrizations.weight_norm`."
)


def warn_deprecated(message: str) -> None:
    """A FutureWarning pointing at the first caller outside symgrad."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("symgrad"):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, FutureWarning, stacklevel=level)


def find_hook(module: Module, kind: type, name: str) -> Any:
    """The key of ``module``'s forward pre-hook that is a ``kind`` hook for ``name``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key
    return None


def remove_hook(module: Module, kind: type, name: str, what: str) -> Module:
    """Take ``module``'s ``kind`` hook for ``name`` off, its parameter made plain again
    (PyTorch's ValueError, naming ``what`` the hook came from, if there is none)."""
    key = find_hook(module, kind, name)
    if key is None:
        raise ValueError(f"{what} of '{name}' not found in {module}")
    module._forward_pre_hooks.pop(key).remove(module)
    return module


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: sets ``module.<name>`` to
    ``g * v / ||v||`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: Any) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return weight_norm_interface(v, g, self.dim)

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: Any = 0) -> Module:
    """Replace ``module.<name>`` by parameters ``<name>_g`` (``||w||`` over every dimension
    but ``dim``; ``dim=None`` for the whole tensor) and ``<name>_v`` (``w`` itself); a forward
    pre-hook recomputes ``<name> = g * v / ||v||`` before each call. Deprecated, as in
    PyTorch (a FutureWarning): prefer :func:`symgrad.nn.utils.parametrizations.weight_norm`.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = symgrad.nn.utils.weight_norm(symgrad.nn.Linear(3, 2))
    >>> [n for n, _ in lin.named_parameters()]
    ['bias', 'weight_g', 'weight_v']
    >>> lin.weight_g.shape, lin.weight.grad_fn.name()
    (symgrad.Size([2, 1]), 'WeightNormInterfaceBackward0')
    """
    warn_deprecated(_DEPRECATED)
    if find_hook(module, WeightNorm, name) is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    hook = WeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, hook.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``module.<name>`` becomes a parameter again, holding
    ``g * v / ||v||``.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = symgrad.nn.utils.weight_norm(symgrad.nn.Linear(3, 2))
    >>> lin = symgrad.nn.utils.remove_weight_norm(lin)
    >>> [n for n, _ in lin.named_parameters()]
    ['bias', 'weight']
    """
    return remove_hook(module, WeightNorm, name, "weight_norm")
