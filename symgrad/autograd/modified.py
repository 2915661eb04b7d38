"""PyTorch's error for a value a node reads in its backward pass that was changed in place
after the node saved it, and the index tensors nodes watch for such changes."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from symgrad.dtypes import from_numpy_dtype

__all__ = ["modified_error", "watch_indices"]


def modified_error(node: Any, tensor: Any, expected: int, found: int, output: int) -> Exception:
    """The error for ``tensor`` (a saved input, or None for the node's own output number
    ``output``) found at version ``found`` where ``node`` saved version ``expected``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x.sin()
    >>> str(modified_error(y.grad_fn, x, 0, 1, 0)).split(": ")[1][:40]
    '[torch.FloatTensor [2]] is at version 1;'
    """
    if tensor is None:
        array = node._output()
        array = array[output] if type(array) is tuple else array
        what = "a tensor" if array is None else _type_text(array.shape, array.dtype)
        origin = f", which is output {output} of {_op_name(node.name())},"
    else:
        what, maker = _type_text(tensor.shape, tensor.dtype.numpy), tensor.grad_fn
        # an output of a custom Function it saved: named as that node's, as PyTorch's
        mine = [n for t, n in getattr(node, "_saved_outputs", ()) if t is tensor]
        maker, nr = (node, mine[0]) if mine else (maker, tensor._output_nr)
        origin = "" if maker is None else f", which is output {nr} of {_op_name(maker.name())},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what}{origin} is at version {found}; expected version "
        f"{expected} instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with symgrad.autograd.set_detect_anomaly(True, "
        "check_nan=False).\n"
        f"(The tensor is saved by {node.name()} for its gradient: use .clone() before the "
        "in-place op, or do the op out of place.)"
    )


def watch_indices(result: Any, *tensors: Any) -> None:
    """The node that made ``result`` reads the values of ``tensors`` (indices, masks, class
    targets) in its backward rule, as PyTorch saves them: changing one in place before the
    backward pass is PyTorch's error, not a gradient of other indices.

    Examples
    --------
    >>> import symgrad
    >>> a, i = symgrad.ones(3, requires_grad=True), symgrad.tensor([0, 2])
    >>> y = a.index_select(0, i)  # (index_select watches i itself)
    >>> _ = i.zero_()
    >>> y.sum().backward()
    Traceback (most recent call last):
    RuntimeError: one of the variables needed for gradient computation ... version 1; ...
    """
    node = getattr(result, "grad_fn", None)
    if node is None:
        return
    pairs = tuple((t, t._counter.value) for t in tensors if getattr(t, "_counter", None))
    if pairs:
        node._watched = pairs if node._watched is None else node._watched + pairs


def _op_name(node_name: str) -> str:
    """The op of a node as PyTorch's messages name it: ``Exp`` for ``ExpBackward0``."""
    return re.sub(r"Backward\d*$", "", node_name)


def _type_text(shape: tuple, np_dtype: Any) -> str:
    """A tensor as PyTorch's messages show one: ``[torch.FloatTensor [2, 3]]`` (a bool one
    ``[CPUBoolType [3]]``)."""
    kind = from_numpy_dtype(np.dtype(np_dtype)).scalar_type
    name = "CPUBoolType" if kind == "Bool" else f"torch.{kind}Tensor"
    return f"[{name} {list(shape)}]"
