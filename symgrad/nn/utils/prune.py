"""Pruning, as ``torch.nn.utils.prune``: zero some entries of a module's parameter through a
mask.

Pruning ``module.weight`` moves the parameter to ``module.weight_orig``, adds the buffer
``module.weight_mask`` (1 where kept, 0 where pruned) and makes ``module.weight`` the plain
attribute ``weight_mask * weight_orig``, recomputed by a forward pre-hook (the pruning
method itself) before every call, so gradients reach ``weight_orig`` only where the mask is
1. Pruning the same parameter again prunes among what is left (a
:class:`PruningContainer`); :func:`remove` makes the pruned values permanent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from symgrad.nn.modules.module import Module
from symgrad.nn.utils._pruning import (
    BasePruningMethod,
    CustomFromMask,
    Identity,
    L1Unstructured,
    LnStructured,
    PruningContainer,
    RandomStructured,
    RandomUnstructured,
    pruning_hooks,
)
from symgrad.nn.utils.convert_parameters import parameters_to_vector
from symgrad.tensor import Tensor

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


def identity(module: Module, name: str) -> Module:
    """Set up pruning of ``module.<name>`` with a mask of ones (nothing pruned yet).

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = prune.identity(nn.Linear(2, 3), "weight")
    >>> [n for n, _ in layer.named_parameters()], [n for n, _ in layer.named_buffers()]
    (['bias', 'weight_orig'], ['weight_mask'])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    """Prune ``amount`` entries of ``module.<name>`` (a count, or a fraction of them)
    chosen at random.

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = prune.random_unstructured(nn.Linear(4, 5), "weight", amount=0.25)
    >>> int((layer.weight_mask == 0).sum())
    5
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: Any, importance_scores: Tensor | None = None
) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` (a count, or a fraction) of
    smallest absolute value (of ``importance_scores``, if given).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = nn.Linear(3, 1)
    >>> with symgrad.no_grad():
    ...     _ = layer.weight.copy_(symgrad.tensor([[0.5, -0.1, 2.0]]))
    >>> _ = prune.l1_unstructured(layer, "weight", amount=1)
    >>> layer.weight
    tensor([[0.5000, -0.0000, 2.0000]], grad_fn=<MulBackward0>)
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    """Prune ``amount`` whole channels of ``module.<name>`` along ``dim`` (a count, or a
    fraction of them), chosen at random.

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = prune.random_structured(nn.Linear(3, 4), "weight", amount=2, dim=0)
    >>> (layer.weight_mask.sum(1) == 0).sum().item()
    2
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module,
    name: str,
    amount: Any,
    n: Any,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Module:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` (a count, or a
    fraction) of smallest ``n``-norm (``n`` as ``symgrad.norm``'s ``p``: 1, 2, ``inf``...).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = nn.Linear(2, 3)
    >>> with symgrad.no_grad():
    ...     _ = layer.weight.copy_(symgrad.tensor([[1.0, 1.0], [0.1, 0.2], [3.0, 0.0]]))
    >>> _ = prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    >>> layer.weight_mask
    tensor([[1., 1.],
            [0., 0.],
            [1., 1.]])
    """
    LnStructured.apply(
        module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
    )
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` where ``mask`` is 0.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = prune.custom_from_mask(nn.Linear(3, 2), "bias", symgrad.tensor([1.0, 0.0]))
    >>> layer.bias_mask, layer.bias.grad_fn
    (tensor([1., 0.]), <MulBackward0 object at 0x...>)
    """
    CustomFromMask.apply(module, name, mask=mask)
    return module


def global_unstructured(
    parameters: Iterable, pruning_method: type, importance_scores: dict | None = None, **kwargs
) -> None:
    """Prune the ``(module, name)`` pairs of ``parameters`` together, as one vector: e.g.
    the ``amount`` entries of smallest absolute value among all of them, with
    ``pruning_method=L1Unstructured`` (an unstructured method; ``kwargs`` are its
    arguments). ``importance_scores`` may give scores by ``(module, name)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> a, b = nn.Linear(2, 1), nn.Linear(2, 1)
    >>> with symgrad.no_grad():
    ...     _ = a.weight.copy_(symgrad.tensor([[1.0, -4.0]]))
    ...     _ = b.weight.copy_(symgrad.tensor([[0.5, 3.0]]))
    >>> prune.global_unstructured(
    ...     [(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=2
    ... )
    >>> a.weight_mask, b.weight_mask
    (tensor([[0., 1.]]), tensor([[0., 1.]]))
    """
    from symgrad import ones_like

    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [importance_scores.get((m, name), getattr(m, name)) for m, name in parameters]
    )
    default_mask = parameters_to_vector(
        [getattr(m, name + "_mask", ones_like(getattr(m, name))) for m, name in parameters]
    )
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores.detach(), default_mask.detach())
    pointer = 0
    for m, name in parameters:
        param = getattr(m, name)
        n = param.numel()
        custom_from_mask(m, name, mask=final_mask[pointer : pointer + n].view_as(param))
        pointer += n


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent: it is a parameter again (holding the
    pruned values), without ``<name>_orig``, ``<name>_mask`` or the pre-hook.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> layer = prune.custom_from_mask(nn.Linear(1, 2), "bias", symgrad.tensor([1.0, 0.0]))
    >>> _ = prune.remove(layer, "bias")
    >>> [n for n, _ in layer.named_parameters()], layer.bias[1] == 0, prune.is_pruned(layer)
    (['weight', 'bias'], tensor(True), False)
    """
    for key, hook in pruning_hooks(module):
        if hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or one of its submodules has a pruned parameter.

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import prune
    >>> net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    >>> prune.is_pruned(net)
    False
    >>> _ = prune.identity(net[0], "weight")
    >>> prune.is_pruned(net)
    True
    """
    return any(pruning_hooks(m) for m in module.modules())
