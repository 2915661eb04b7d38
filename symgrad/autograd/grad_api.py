"""``autograd.grad`` with PyTorch's whole signature: batched ``grad_outputs``
(``is_grads_batched``) and the deprecated ``only_inputs`` around the engine's ``grad``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad.autograd.engine import grad as _engine_grad
from symgrad.autograd.roots import as_list
from symgrad.tensor import Tensor


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

    With ``is_grads_batched=True`` the first dimension of every ``grad_outputs`` tensor is a
    batch: the result holds one vector-Jacobian product per batch entry, stacked along a new
    first dimension (rows of a Jacobian from the rows of an identity, say).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.autograd.grad(x**2, x, symgrad.eye(2), is_grads_batched=True)
    (tensor([[2., 0.],
            [0., 4.]]),)
    """
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    inputs = as_list(inputs)  # (once: a generator such as model.parameters() is read once)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not is_grads_batched:
        return _engine_grad(
            outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )  # fmt: skip
    roots = as_list(outputs)
    batches = _batched_outputs(roots, grad_outputs)
    size = batches[0].shape[0]
    if size == 0:
        raise RuntimeError("is_grads_batched=True needs a batch of at least one grad_output")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    rows = [
        _engine_grad(
            outputs,
            inputs,
            [g[b] for g in batches],
            retain_graph or b < size - 1,
            create_graph,
            allow_unused,
        )  # fmt: skip
        for b in range(size)
    ]
    result = []
    for i, x in enumerate(as_list(inputs)):
        column = [row[i] for row in rows]
        if column[0] is not None:
            result.append(_stacked(column, create_graph))
        else:  # unused: materialized zeros are not batched, as in PyTorch
            zeros = Tensor._make(np.zeros(x.shape, x._data.dtype))
            result.append(zeros if materialize_grads else None)
    return tuple(result)


def _batched_outputs(roots: list, grad_outputs: Any) -> list:
    """The batched ``grad_outputs``, one per output, each checked against its output."""
    batches = as_list(grad_outputs) if grad_outputs is not None else []
    if len(batches) != len(roots) or any(not isinstance(g, Tensor) for g in batches):
        raise RuntimeError(
            "If `is_grads_batched=True`, every output needs its grad_output, a tensor whose "
            f"first dimension is the batch: got {len(batches)} tensors for {len(roots)} outputs"
        )
    for i, (g, out) in enumerate(zip(batches, roots)):
        if g.ndim == 0 or tuple(g.shape[1:]) != tuple(out.shape) or g.shape[0] != len(batches[0]):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {list(g.shape)} and output[{i}] has "
                f"a shape of {list(out.shape)}. If you only want some tensors in `grad_output` "
                "to be considered batched, consider using vmap."
            )
    return batches


def _stacked(rows: list, create_graph: bool) -> Tensor:
    """One input's gradients of every batch entry, stacked along a new first dimension."""
    if not create_graph or not any(r.requires_grad for r in rows):
        return Tensor._make(np.stack([r._data for r in rows]))
    block = rows[0].unsqueeze(0).expand(len(rows), *rows[0].shape).clone()
    for k, r in enumerate(rows[1:], start=1):
        block[k] = r  # recorded: the batched gradients stay differentiable
    return block
