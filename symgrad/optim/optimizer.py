"""``Optimizer``: parameter groups, per-parameter state, and their ``state_dict``."""

from __future__ import annotations

import copy
import inspect
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad._silent import restore, silence
from symgrad.autograd import dual
from symgrad.autograd.grad_mode import enable_grad, set_grad_enabled
from symgrad.nn.modules._state import zero_grads
from symgrad.nn.modules.module import _type_name
from symgrad.ops.scaled import scaled_sum
from symgrad.optim._optimizer_hooks import (
    OptimizerHooks,
    hooked_step,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from symgrad.tensor import Tensor

__all__ = ["Optimizer", "required", "lerp_", "addcdiv_", "addcmul_", "check_nonnegative"]
__all__ += ["scalar_state"]
__all__ += ["register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """The default of a hyperparameter every group must give (SGD's ``lr`` once was one)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer(OptimizerHooks):
    """Base class of optimizers: ``param_groups`` (dicts holding ``"params"`` and the
    hyperparameters, ``defaults`` filling what a group leaves out) and ``state`` (a dict per
    parameter). Subclasses define :meth:`step`; hooks registered on the optimizer (and the
    global ones) run around it. ``params`` may be ``(name, tensor)`` pairs, e.g.
    ``model.named_parameters()``: each group then keeps the names as ``"param_names"``.

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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = hooked_step(cls.__dict__["step"])  # type: ignore[method-assign]

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self._init_hooks()
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
        if defaults.get("fused"):
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyperparameters (``defaults`` fill the
        rest), e.g. a layer to train once the others are."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
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
        _split_names(param_group)
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
        if self.param_groups and ("param_names" in param_group) != (
            "param_names" in self.param_groups[0]
        ):
            kind = "with" if "param_names" in param_group else "without"
            raise ValueError(
                "all optimizer param groups should be with/without names. cannot add param "
                f"group {kind} names to the optimizer"
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
        if type(self)._update is Optimizer._update:  # a subclass that defines no step
            raise NotImplementedError(f"{type(self).__name__} does not define step()")
        loss = self._closure_loss(closure)
        # differentiable=True records the step, so a loss after it reaches the gradients
        # inf and nan come out of the arithmetic silently, as in PyTorch (a float16 square)
        token = silence()
        try:
            with set_grad_enabled(bool(self.defaults.get("differentiable"))):
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            self._check_capturable(group)
                            self._check_foreach(group)
                            self._update(p, group)
        finally:
            restore(token)
        return loss

    # what PyTorch's refusal of capturable=True on the CPU names, and the devices it allows
    _capturable_tensors = "params and state_steps"
    # PyTorch's optimizers with a step count turn a loaded plain-number step (an older
    # checkpoint's) into their scalar tensor; the base class, and so a user's own, keeps it
    _tensor_steps = False
    _capturable_devices = ["cuda", "xpu", "hpu", "privateuseone", "xla"]

    def _check_capturable(self, group: dict) -> None:
        if group.get("capturable"):
            raise AssertionError(
                f"If capturable=True, {self._capturable_tensors} must be on supported "
                f"devices: {self._capturable_devices}."
            )

    # whether PyTorch's foreach form of the step refuses differentiable=True (SGD's records)
    _foreach_refuses_autograd = True

    def _check_foreach(self, group: dict) -> None:
        if self._foreach_refuses_autograd and group.get("foreach") and group.get("differentiable"):
            raise AssertionError("_foreach ops don't support autograd")

    step = hooked_step(step)

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
        parameters are numbered in the order of the groups, as in PyTorch; the state-dict
        hooks run before and after."""
        for entry in self._optimizer_state_dict_pre_hooks:
            entry.hook(self)
        index: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for entry in self._optimizer_state_dict_post_hooks:
            result = entry.hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        """Take the state and hyperparameters of ``state_dict`` (from :meth:`state_dict` of
        an optimizer over parameters of the same shapes, grouped alike). The saved
        ``param_names`` replace the groups' own, which stay where none were saved."""
        state_dict = dict(state_dict)
        for entry in self._optimizer_load_state_dict_pre_hooks:
            result = entry.hook(self, state_dict)
            if result is not None:
                state_dict = result
        self._load(state_dict)
        for entry in self._optimizer_load_state_dict_post_hooks:
            entry.hook(self)

    def _load(self, state_dict: dict) -> None:
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
                if self._tensor_steps:
                    _step_tensor(state[param])
            else:
                state[k] = v
        options = self._constructor_options()
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            for name, default in options.items():
                saved.setdefault(name, default)
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def _constructor_options(self) -> dict:
        """The constructor's default of each option: what PyTorch gives a loaded group saved
        before the option existed (an older checkpoint), whatever this optimizer was given."""
        signature = inspect.signature(type(self).__init__)
        return {
            name: option.default
            for name, option in signature.parameters.items()
            if name in self.defaults and option.default is not inspect.Parameter.empty
        }

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}\n"  # so a blank line parts the groups
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _split_names(param_group: dict) -> None:
    """Turn a group's ``(name, tensor)`` pairs into its ``params`` and ``param_names``."""
    named = [isinstance(p, tuple) for p in param_group["params"]]
    if not any(named):
        return
    if not all(named):
        raise ValueError(
            "all optimizer params should be with/without names. Some param names are missing"
        )
    pairs = param_group["params"]
    param_group["params"] = [param for _, param in pairs]
    param_group["param_names"] = [name for name, _ in pairs]


def scalar_state(value: float = 0.0, fused: Any = None) -> Tensor:
    """A scalar of optimizer state (a step count, NAdam's product of momenta) in PyTorch's
    ``_get_scalar_dtype(is_fused)``: float64 under a float64 default dtype unless ``fused``,
    else float32."""
    wide = not fused and dtypes.get_default_dtype() == dtypes.float64
    return creation.tensor(float(value), dtype=dtypes.float64 if wide else dtypes.float32)


def _step_tensor(state: Any) -> None:
    """A loaded plain-number ``step`` (an older checkpoint's) as the scalar tensor PyTorch's
    optimizers keep."""
    if isinstance(state, dict) and isinstance(state.get("step"), (int, float)):
        state["step"] = scalar_state(state["step"])


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
    """``x += weight * (end - x)`` in place, as PyTorch's ``lerp_`` (two forms, each exact
    at its end, each rounded once)."""
    return x.lerp_(end, weight)


def addcdiv_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 / t2`` in place, in PyTorch's order of operations."""
    return x.add_(t1 * value / t2)


def addcmul_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1.0) -> Tensor:
    """``x += value * t1 * t2`` in place, as PyTorch's ``addcmul_`` (the last product
    rounded with the sum)."""
    return x.addcmul_(t1, t2, value=value)


def check_nonnegative(*named: tuple[str, float], floor: float | None = None) -> None:
    """Raise PyTorch's ``ValueError("Invalid <what>: <value>")`` for the first negative
    hyperparameter among ``(what, value)`` pairs.

    PyTorch's optimizers write the test as ``not 0.0 <= value``, SGD's as ``value < 0.0``
    (``floor=0.0``), which a value that is not a number meets with a TypeError naming the
    operands in that order.
    """
    for what, value in named:
        if isinstance(value, Tensor) and value.numel() != 1 and what == "learning rate":
            raise ValueError("Tensor lr must be 1-element")
        if (value < floor) if floor is not None else not 0.0 <= value:
            raise ValueError(f"Invalid {what}: {value}")


def on_arrays(p: Tensor, group: dict, numbers: tuple, state: dict) -> bool:
    """Whether a step can run on the arrays (the tensor ops' numbers without a tensor op for
    each update): float32 or float64 weights and gradients of plain arrays, the ``numbers``
    hyperparameters plain numbers, not ``differentiable`` nor in forward mode, and the
    parameter's ``state`` fitting it (see :func:`state_fits`)."""
    grad = p.grad
    return (
        not group["differentiable"]
        and type(grad) is Tensor
        and type(grad._data) is np.ndarray
        and type(p._data) is np.ndarray
        and p._data.dtype in _FLOATS
        and grad._data.dtype == p._data.dtype
        and all(type(group[k]) in (int, float) for k in numbers)
        and not dual.active()
        and state_fits(p, state)
    )


def state_fits(p: Tensor, state: dict) -> bool:
    """Whether the parameter's and its gradient's shape is that of every tensor of its
    ``state`` but the scalars: a state loaded from another model's optimizer may not fit, and
    then the tensor ops raise PyTorch's RuntimeError where NumPy's broadcasting would raise
    its ValueError."""
    return p.grad.shape == p.shape and all(
        v.shape == p.shape for v in state.values() if isinstance(v, Tensor) and v.dim()
    )


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def decayed_gradient(p: Tensor, group: dict) -> np.ndarray:
    """A step's gradient on the arrays: ``p.grad`` (negated with ``maximize``) plus
    ``weight_decay * p``, the product rounded with the sum as PyTorch's ``add``."""
    grad = -p.grad._data if group["maximize"] else p.grad._data
    if group["weight_decay"] != 0:
        grad = scaled_sum(grad, p._data, group["weight_decay"])
    return grad
