"""Argument checks shared by the loss functions of :mod:`symgrad.nn.functional`."""

from __future__ import annotations

from typing import Any

from symgrad.tensor import Tensor

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> str:
    if size_average is not None or reduce is not None:
        # PyTorch's deprecated pair: reduce=False means 'none', size_average=False means 'sum'
        if reduce is False:
            return "none"
        return "sum" if size_average is False else "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{reduction} is not a valid value for reduction; use one of {_REDUCTIONS}"
        )
    return reduction


def _check_tensors(op: str, **arguments: Any) -> None:
    for name, v in arguments.items():
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' must be a Tensor, not {type(v).__name__}; "
                "wrap the values in symgrad.tensor(...)"
            )
