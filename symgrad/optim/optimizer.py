"""``Optimizer``: parameter groups, per-parameter state, and their ``state_dict``."""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from symgrad.autograd.grad_mode import enable_grad, no_grad
from symgrad.nn.modules._state import zero_grads
from symgrad.nn.modules.module import _type_name
from symgrad.tensor import Tensor

__all__ = ["Optimizer", "required", "lerp_", "addcdiv_", "addcmul_", "check_nonnegative"]


class _RequiredParameter:
    """The default of a hyperparameter every group must give (SGD's ``lr`` once was one)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of optimizers: ``param_groups`` (dicts holding ``"params"`` and the
    hyperparameters, ``defaults`` filling what a group leaves out) and ``state`` (a dict per
    parameter). Subclasses define :meth:`step`.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.SGD([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([0.], requires_grad=True)
    >>> opt.zero_grad()
    >>> w.grad is None
    True
    """

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _type_name(params)
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyperparameters (``defaults`` fill the
        rest), e.g. a layer to train once the others are."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _type_name(param)
                )
            if not self.defaults.get("differentiable") and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        held = {id(p) for group in self.param_groups for p in group["params"]}
        if not held.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None, or (``set_to_none=False``)
        to zeros."""
        zero_grads((p for g in self.param_groups for p in g["params"]), set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient (each optimizer's ``_update`` rule);
        returns ``closure()``'s loss."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Any, group: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not define step()")

    def _closure_loss(self, closure: Callable[[], Any] | None) -> Any:
        """The loss ``closure`` recomputes (with the graph recorded), or None."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- state dicts -------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: state}, "param_groups": [group with "params" as indices]}``:
        parameters are numbered in the order of the groups, as in PyTorch."""
        index: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Take the state and hyperparameters of ``state_dict`` (from :meth:`state_dict` of
        an optimizer over parameters of the same shapes, grouped alike)."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    text += "\n" + f"    {key}: {group[key]}"
        return text + "\n)"


def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
    """A loaded state value in the parameter's dtype (Adam's ``step`` stays as it is)."""
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point() and value.is_floating_point():
            return value.to(param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, str):
        return type(value)(_cast(param, v) for v in value)
    return value


def lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """``x += weight * (end - x)`` in place, in PyTorch's two forms (exact at each end)."""
    if weight < 0.5:
        return x.add_(end - x, alpha=weight)
    return x.copy_(end - (end - x) * (1 - weight))


def addcdiv_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 / t2`` in place, in PyTorch's order of operations."""
    return x.add_(t1 * value / t2)


def addcmul_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 * t2`` in place, in PyTorch's order of operations."""
    return x.add_(t1 * value * t2)


def check_nonnegative(*named: tuple[str, float]) -> None:
    """Raise PyTorch's ``ValueError("Invalid <what>: <value>")`` for the first negative
    hyperparameter among ``(what, value)`` pairs."""
    for what, value in named:
        if not 0.0 <= value:
            raise ValueError(f"Invalid {what}: {value}")
