"""``masked_fill``: ``value`` where a boolean mask holds (``MaskedFillBackward0``; a 0-d
tensor value is an input of its own, ``MaskedFillBackward1``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad._data import check_fill
from symgrad._tracing import TRACE, data_params, data_value
from symgrad.autograd.modified import watch_indices
from symgrad.ops.elementwise import WHERE
from symgrad.ops.indexing import check_key_device
from symgrad.prim import batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["masked_fill"]


def _masked_fill_forward(xp: Any, a: Any, *value: Any, mask: np.ndarray, fill: Any) -> Any:
    return xp.where(xp.constant(mask), value[0] if value else fill, a)


def _masked_fill_vjp(xp: Any, g: Any, c: Any) -> tuple:
    mask = xp.constant(c.params["mask"])
    ga = xp.masked_fill(g, mask, 0.0) if c.needs[0] else None
    if len(c.needs) == 1:
        return (ga,)
    return (ga, xp.sum(xp.where(mask, g, 0.0)) if c.needs[1] else None)


# a number fills (MaskedFillBackward0); a 0-d tensor is an input of its own (...Backward1)
_FILL = (_masked_fill_forward, _masked_fill_vjp)
_MASKED_FILL = Structural("masked_fill", *_FILL, batch="trailing", rows=True)
_MASKED_FILL_TENSOR = Structural("masked_fill", *_FILL, backward="MaskedFillBackward1", rows=True)


def _zeroed_forward(xp: Any, a: Any, *, mask: np.ndarray, node: str) -> Any:
    return xp.where(xp.constant(mask), 0.0, a)


def _zeroed_vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    return (xp.masked_fill(g, xp.constant(p["mask"]), 0.0, node=p["node"]),)


# formulas writing zeros_like(values) back into the gradient: an edge for the zeros too
_WITH_ZEROS = (
    "PutBackward0",
    "IndexPutBackward0",
    "SelectScatterBackward0",
    "SliceScatterBackward0",
    "DiagonalScatterBackward0",
)
# the incoming gradient with zeros at the places an op wrote, as the op of PyTorch's formula
# records it (``grad.scatter(dim, index, 0)``, ``grad.index_fill(dim, index, 0)``, ...)
_ZEROED = Structural(
    "zeroed",
    _zeroed_forward,
    _zeroed_vjp,
    backward=lambda params, meta: params["node"],
    edges=lambda node: (0, None) if type(node).__name__ in _WITH_ZEROS else None,
    batch="trailing",
)


def zeroed(g: Tensor, mask: np.ndarray, node: str) -> Tensor:
    """``g`` with zeros where ``mask`` holds, recorded as the node ``node``: the gradient of
    an op that wrote there, as PyTorch's formula records it."""
    return _ZEROED(g, mask=mask, node=node)


def _batched_masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """Inside ``vmap``, each element's own mask (or fill value): ``where`` on the whole batch."""
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    if isinstance(value, Tensor) and value.dtype is not input.dtype:
        value = value.to(input.dtype)
    elif not isinstance(value, Tensor):
        value = check_fill(value, input.dtype, "masked_fill")
        value = Tensor._make(np.asarray(value, dtype=input._data.dtype))
    return WHERE(mask, value, input)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where ``mask`` (boolean, broadcastable) is True, ``input`` elsewhere."""
    require_tensor("masked_fill", "mask", 1, mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.cpp_name(mask.dtype)}\n(compare to make one: x > 0)"
        )
    check_key_device(input, mask)
    m = mask._data
    try:
        shape = np.broadcast_shapes(m.shape, input.shape)
    except ValueError:
        raise RuntimeError(
            f"masked_fill: the mask of shape {list(m.shape)} does not broadcast with the "
            f"input of shape {list(input.shape)}"
        ) from None
    if shape != input.shape:
        input = input.expand(shape)
    if batching.any_batched(mask, value) and input.dtype.is_floating_point:
        return _batched_masked_fill(input, mask, value)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        if value.dtype is not input.dtype:
            value = value.to(input.dtype)
        return _mask_from_values(_MASKED_FILL_TENSOR(input, value, mask=m, fill=None), mask, None)
    if not isinstance(value, (int, float, np.number, np.bool_)):
        raise TypeError(
            f"masked_fill(): value must be a number or a 0-d Tensor, got {type(value).__name__}"
        )
    value = check_fill(value, input.dtype, "masked_fill")
    if not input.dtype.is_floating_point:  # the value is cast to the input's dtype, as PyTorch
        fill = np.asarray(value).astype(input._data.dtype)
        result = Tensor._make(np.where(m, fill, input._data))
        if TRACE.log is not None:
            data_value(result, lambda m, a: np.where(m, fill, a), mask, input)
        return result
    return _mask_from_values(_MASKED_FILL(input, mask=m, fill=float(value)), mask, float(value))


def _mask_from_values(result: Tensor, mask: Tensor, fill: Any) -> Tensor:
    """The mask read by ``masked_fill``'s backward (watched for in-place changes); while
    ``symgrad.compile`` traces, read afresh at every call."""
    watch_indices(result, mask)
    if TRACE.log is not None:

        def params(m: np.ndarray) -> dict:
            return {"mask": m, "fill": fill}

        data_params(result, params, mask)
    return result
