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
    dict, or tuple or list of dicts (keys as ``named_parameters()`` gives them,
    ``"0.weight"``), restored afterwards.

    ``args`` is one positional argument or a tuple of them, ``kwargs`` a dict. With
    ``tie_weights`` (the default) a value given for one of several names of one tensor (weights
    shared by two layers) replaces it under every name. With ``strict`` every parameter and
    buffer must be given, and nothing else. A name the module does not hold is set as an
    attribute for the call, as PyTorch does.

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
    given = _merged(parameter_and_buffer_dicts)
    if tie_weights:
        given = _untied(module, given)
    if strict:
        _check_keys(module, given)
    swaps = []
    try:
        for key, value in given.items():
            swaps.append(_swap(module, key, value))
        args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for owner, store, name, old in reversed(swaps):
            if store is None:
                delattr(owner, name)
            else:
                store[name] = old


def _merged(dicts: Any) -> dict:
    """One dict of the given dicts, with PyTorch's errors for anything else."""
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (tuple, list)):
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(dicts)}"
        )
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    keys = [k for d in dicts for k in d]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
            "ambiguous"
        )
    return {k: v for d in dicts for k, v in d.items()}


def _all_names(module: Any) -> dict:
    """Every name of every parameter and buffer, shared tensors under each of their names."""
    found = dict(module.named_parameters(remove_duplicate=False))
    found.update(module.named_buffers(remove_duplicate=False))
    return found


def _untied(module: Any, given: dict) -> dict:
    """``given`` with a value given for a tensor held under several names set under all."""
    names_of: dict = {}
    for name, tensor in _all_names(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    out = dict(given)
    for name in [n for n in given if n in tied]:
        values = {id(given[n]) for n in tied[name] if n in given}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(tied[name])}, which are "
                "tied. Consider using tie_weights=False"
            )
        out.update({n: given[name] for n in tied[name]})
    return out


def _check_keys(module: Any, given: dict) -> None:
    known = set(_all_names(module))
    unexpected, missing = sorted(set(given) - known), sorted(known - set(given))
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors)
        )


def _swap(module: Any, key: str, value: Any) -> tuple:
    """Put ``value`` in place of the tensor named ``key``: ``(owner, store, name, old)`` to
    undo it (``store`` None: an attribute set for the call)."""
    owner_path, _, name = key.rpartition(".")
    owner = module.get_submodule(owner_path)
    for store in (owner._parameters, owner._buffers):
        if name in store:
            old, store[name] = store[name], value
            return owner, store, name, old
    if hasattr(owner, name):
        raise AttributeError(
            f"functional_call: {key!r} names an attribute of {owner._get_name()} that is not a "
            "parameter or buffer"
        )
    object.__setattr__(owner, name, value)
    return owner, None, name, None
