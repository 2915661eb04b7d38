"""functorch's ``make_functional`` family: a module turned into a function of its parameters
(and buffers), the form ``torch.func.functional_call`` replaced."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from symgrad import _like
from symgrad.func.functional_call import functional_call
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.ops.joining import stack

__all__ = [
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "make_functional",
    "make_functional_with_buffers",
    "combine_state_for_ensemble",
]


def _extract(module: Module, members: Any, wrap: Any) -> tuple[tuple, dict]:
    """``(tensors, names_map)``: the module's distinct parameters (or buffers), and for each
    one's first name every name it is held under; the module keeps placeholders on the meta
    device in their place, as PyTorch's stateless copy does."""
    names_map: dict = {}
    first_name: dict = {}
    for name, tensor in members(remove_duplicate=False):
        first = first_name.setdefault(id(tensor), name)
        names_map.setdefault(first, []).append(name)
    tensors = tuple(dict(members()).values())
    placeholders: dict = {}
    for name, tensor in members(remove_duplicate=False):
        if id(tensor) not in placeholders:
            placeholders[id(tensor)] = wrap(_like.empty_like(tensor, device="meta"))
        owner_path, _, attr = name.rpartition(".")
        owner = module.get_submodule(owner_path)
        store = owner._parameters if attr in owner._parameters else owner._buffers
        store[attr] = placeholders[id(tensor)]
    return tensors, names_map


def _call(module: Module, names_map: dict, values: tuple, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` with ``values`` (one per entry of ``names_map``) in place
    of its tensors under every name each is held under."""
    if len(values) != len(names_map):
        raise RuntimeError(
            f"{module._get_name()}: expected {len(names_map)} parameter and buffer tensors, "
            f"got {len(values)}"
        )
    given = {n: v for names, v in zip(names_map.values(), values) for n in names}
    return functional_call(module, given, args, kwargs, tie_weights=False)


class FunctionalModule(Module):
    """The callable :func:`make_functional` returns: ``fmodel(params, *args, **kwargs)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._functorch.make_functional import make_functional
    >>> fmodel, params = make_functional(symgrad.nn.Linear(2, 1))
    >>> w = symgrad.tensor([[1.0, 2.0]])
    >>> fmodel((w, symgrad.tensor([0.5])), symgrad.ones(2))
    tensor([3.5000])
    """

    def __init__(self, stateless_model: Module, param_names: tuple, names_map: dict) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    def forward(self, params: Iterable, *args: Any, **kwargs: Any) -> Any:
        return _call(self.stateless_model, self.names_map, tuple(params), args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """The callable :func:`make_functional_with_buffers` returns:
    ``fmodel(params, buffers, *args, **kwargs)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._functorch.make_functional import make_functional_with_buffers
    >>> fmodel, params, buffers = make_functional_with_buffers(symgrad.nn.BatchNorm1d(2))
    >>> len(params), len(buffers)
    (2, 3)
    """

    def __init__(
        self,
        stateless_model: Module,
        param_names: tuple,
        buffer_names: tuple,
        param_names_map: dict,
        buffer_names_map: dict,
    ) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = {**param_names_map, **buffer_names_map}

    def forward(self, params: Iterable, buffers: Iterable, *args: Any, **kwargs: Any) -> Any:
        values = tuple(params) + tuple(buffers)
        return _call(self.stateless_model, self.all_names_map, values, args, kwargs)


def _stateless_copy(model: Module, disable_autograd_tracking: bool) -> tuple:
    model_copy = copy.deepcopy(model)
    params, param_map = _extract(model_copy, model_copy.named_parameters, Parameter)
    buffers, buffer_map = _extract(model_copy, model_copy.named_buffers, lambda t: t)
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return model_copy, params, param_map, buffers, buffer_map


def make_functional(model: Module, disable_autograd_tracking: bool = False) -> tuple:
    """``(fmodel, params)``: a copy of ``model`` as a function of its parameters
    (``fmodel(params, *args)``), and those parameters (the copy's own, as leaves).

    ``disable_autograd_tracking`` returns the parameters not requiring grad. A model with
    buffers needs :func:`make_functional_with_buffers` (RuntimeError).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import grad
    >>> from symgrad._functorch.make_functional import make_functional
    >>> fmodel, params = make_functional(symgrad.nn.Linear(2, 1))
    >>> x = symgrad.tensor([1.0, 3.0])
    >>> grad(lambda p: fmodel(p, x).sum())(params)[0]
    tensor([[1., 3.]])
    """
    if any(True for _ in model.buffers()):
        raise RuntimeError(
            "make_functional(model): `model` has buffers. Please use "
            "make_functional_with_buffers(model) instead."
        )
    model_copy, params, param_map, _, _ = _stateless_copy(model, disable_autograd_tracking)
    return FunctionalModule(model_copy, tuple(param_map), param_map), params


def make_functional_with_buffers(model: Module, disable_autograd_tracking: bool = False) -> tuple:
    """``(fmodel, params, buffers)``: :func:`make_functional` for a model with buffers,
    called as ``fmodel(params, buffers, *args)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._functorch.make_functional import make_functional_with_buffers
    >>> fmodel, params, buffers = make_functional_with_buffers(symgrad.nn.Linear(2, 1))
    >>> [p.shape for p in params], buffers
    ([symgrad.Size([1, 2]), symgrad.Size([1])], ())
    """
    model_copy, params, param_map, buffers, buffer_map = _stateless_copy(
        model, disable_autograd_tracking
    )
    fmodel = FunctionalModuleWithBuffers(
        model_copy, tuple(param_map), tuple(buffer_map), param_map, buffer_map
    )
    return fmodel, params, buffers


def combine_state_for_ensemble(models: Any) -> tuple:
    """``(fmodel, params, buffers)`` for an ensemble of models of one class: the function of
    the first model, and each parameter and buffer stacked over the models along a new first
    dimension (detached), for ``vmap(fmodel)(params, buffers, x)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import vmap
    >>> from symgrad._functorch.make_functional import combine_state_for_ensemble
    >>> models = [symgrad.nn.Linear(3, 2) for _ in range(4)]
    >>> fmodel, params, buffers = combine_state_for_ensemble(models)
    >>> params[0].shape, params[0].requires_grad
    (symgrad.Size([4, 2, 3]), False)
    >>> vmap(fmodel, in_dims=(0, 0, None))(params, buffers, symgrad.ones(5, 3)).shape
    symgrad.Size([4, 5, 2])
    """
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) != 1:
        raise RuntimeError(
            "combine_state_for_ensemble: Expected all models to be of the same class."
        )
    funcs, params, buffers = zip(*[make_functional_with_buffers(m) for m in models])
    return funcs[0], _transpose_stack(params), _transpose_stack(buffers)


def _transpose_stack(per_model: tuple) -> tuple:
    return tuple(stack(list(shards)).detach() for shards in zip(*per_model))
