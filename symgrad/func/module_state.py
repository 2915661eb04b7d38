"""Modules' state for the transforms: ``stack_module_state`` (an ensemble's parameters and
buffers stacked for ``vmap``) and ``replace_all_batch_norm_modules_``."""

from __future__ import annotations

from typing import Any

from symgrad import ops as _ops
from symgrad.nn.modules.normalization import _BatchNorm

__all__ = ["stack_module_state", "replace_all_batch_norm_modules_"]


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """``(params, buffers)``: the parameters and the buffers of ``models`` (modules of one
    class, all training or all in eval mode), each name's tensors stacked along a new first
    dimension, for :func:`~symgrad.func.functional_call` under :func:`~symgrad.func.vmap`.

    The stacked parameters are new leaves that require grad (where the models' do), with no
    graph back to the models' own parameters: an optimizer can train them directly.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.func import functional_call, stack_module_state, vmap
    >>> _ = symgrad.manual_seed(0)
    >>> models = [nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = stack_module_state(models)
    >>> params["weight"].shape, params["weight"].requires_grad, params["weight"].is_leaf
    (symgrad.Size([4, 2, 3]), True, True)
    >>> call = lambda p, b, x: functional_call(models[0], (p, b), (x,))
    >>> vmap(call, in_dims=(0, 0, None))(params, buffers, symgrad.ones(5, 3)).shape
    symgrad.Size([4, 5, 2])
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return (
        {k: _stacked_leaf([p[k] for p in params], k) for k in params[0]},
        {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]},
    )


def _stacked_leaf(tensors: list, name: str) -> Any:
    flags = {t.requires_grad for t in tensors}
    if len(flags) != 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = _ops.stack([t.detach() for t in tensors])
    return stacked.requires_grad_(True) if flags.pop() else stacked


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Make every batch norm module under ``root`` (``root`` included) use the batch's own
    statistics, in training and in eval mode alike: their running statistics are dropped
    (``running_mean``, ``running_var``, ``num_batches_tracked`` become None) and
    ``track_running_stats`` is False, so that a ``vmap`` over them does not update a buffer
    shared by the batch. In place; returns ``root``.

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.func import replace_all_batch_norm_modules_
    >>> net = replace_all_batch_norm_modules_(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    >>> net[1].running_mean is None, net[1].track_running_stats
    (True, False)
    """
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
