"""``functional_call``: a module called with other parameters and buffers."""

from __future__ import annotations

from typing import Any

__all__ = ["functional_call"]


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: Any = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module`` with its parameters and buffers replaced by the tensors of the given
    dict(s) (keys as ``named_parameters()`` gives them, ``"0.weight"``), restored afterwards.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.func import functional_call
    >>> net = nn.Linear(2, 1)
    >>> params = {"weight": symgrad.tensor([[1.0, 2.0]]), "bias": symgrad.tensor([0.5])}
    >>> functional_call(net, params, (symgrad.tensor([1.0, 1.0]),))
    tensor([3.5000])
    """
    dicts = parameter_and_buffer_dicts
    dicts = tuple(dicts) if isinstance(dicts, (tuple, list)) else (dicts,)
    given: dict = {}
    for d in dicts:
        for key in d:
            if key in given:
                raise ValueError(
                    f"{key} appeared in multiple dictionaries; behavior of functional call is "
                    "ambiguous"
                )
        given.update(d)
    known = dict(module.named_parameters()) | dict(module.named_buffers())
    if strict:
        missing = sorted(set(known) - set(given))
        unexpected = sorted(set(given) - set(known))
        if missing or unexpected:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}: missing keys "
                f"{missing}, unexpected keys {unexpected}"
            )
    swaps = []
    for key, value in given.items():
        owner_path, _, name = key.rpartition(".")
        owner = module.get_submodule(owner_path) if owner_path else module
        store = owner._parameters if name in owner._parameters else owner._buffers
        if name not in store:
            raise AttributeError(
                f"{type(owner).__name__} has no parameter or buffer {name!r} ({key})"
            )
        swaps.append((store, name, store[name]))
        store[name] = value
    try:
        args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for store, name, old in reversed(swaps):
            store[name] = old
