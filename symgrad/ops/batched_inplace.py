"""In-place ops inside ``vmap``: the op's batched out-of-place result written into the physical
tensor that holds the batch of ``self``.

An in-place op on a batched ``self`` runs once on the whole batch: the out-of-place op goes
through its own batching rule (scatter, index_put, masked_fill, arithmetic, ...), and its
physical result replaces ``self``'s physical tensor as an ordinary in-place op on a plain
tensor, so versions, views and the recorded history behave as outside ``vmap``. ``self`` must be
batched at every level where one of the other tensors is: an unbatched ``self`` can't hold a
batch of results, and PyTorch refuses with the error built here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["batched_inplace", "refusal"]

# how PyTorch names the op when it refuses to write a batch into an unbatched tensor, and
# whether it names the level (its own batching rules) or says "in a vmap" (the fallback)
_ARITHMETIC = "inplace arithmetic"
_OWN_NAME = {"scatter_add_", "scatter_reduce_", "index_add_", "index_fill_", "index_put_", "fill_"}
_ARITHMETIC_OPS = {"sub_", "mul_", "div_", "copy_", "setitem"}


def _levels(t: Any) -> set:
    found = set()
    while type(t) is batching.BatchedTensor:
        found.add(t._level)
        t = t._physical
    return found


def _torch_name(op: str, others: tuple, level: int) -> tuple:
    """``(name, where)`` as PyTorch's refusal words it for ``op``."""
    if op in _OWN_NAME:
        return op, "in a vmap"
    if op in _ARITHMETIC_OPS or (op == "masked_fill_" and level in _levels(others[0])):
        return _ARITHMETIC, "in a vmap"
    return f"aten::{op}", f"at level {level}"


def refusal(x: Tensor, op: str, others: tuple) -> batching.Refused | None:
    """PyTorch's error for ``op`` on ``x`` with ``others`` (its tensor arguments) batched at a
    ``vmap`` level where ``x`` is not, else None."""
    own = _levels(x)
    missing = sorted(set().union(*(_levels(o) for o in others)) - own)
    if not missing:
        return None
    level = missing[-1]
    if op == "add_":  # PyTorch's add_ has a rule of its own, which fails on the shapes
        size = next(o for o in others if level in _levels(o))
        while type(size) is batching.BatchedTensor and size._level != level:
            size = size._physical
        batch = size._physical.shape[0]
        return batching.Refused(
            f"output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{[batch, *x.shape]}"
        )
    name, where = _torch_name(op, others, level)
    return batching.Refused(
        f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor "
        "`other` in extra_args that has more elements than `self`. This happened due to "
        f"`other` being vmapped over but `self` not being vmapped over {where}. Please try to "
        f"use out-of-place operators instead of {name}. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead."
    )


def batched_inplace(
    x: Tensor, op: str, compute: Callable, others: tuple, inplace: Callable
) -> Tensor:
    """``inplace(x, op, compute, *others)`` for a batched ``x`` (or batched ``others``):
    ``compute`` on the batch, its result written into the physical tensor of ``x``'s top
    level by ``inplace``; that tensor, if batched at lower levels, is written the same way."""
    tensors = tuple(o for o in others if isinstance(o, Tensor))
    error = refusal(x, op, tensors)
    if error is not None:
        raise error
    level = x._level
    size = x._physical.shape[0]
    logical = tuple(x.shape)

    def on_physical(p: Tensor) -> Tensor:
        result = compute(batching.BatchedTensor(p, level))
        if tuple(result.shape) != logical:
            raise RuntimeError(
                f"{op}: output with shape {list(logical)} doesn't match the broadcast shape "
                f"{list(result.shape)}"
            )
        return batching.unwrap_level(result, level, size)

    inplace(x._physical, op, on_physical, *(batching.physical(o, level) for o in tensors))
    x._requires_grad = x._physical.requires_grad
    return x
