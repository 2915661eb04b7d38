"""What a backward pass starts from: the outputs and the gradient each one starts with, checked
as PyTorch checks them (a non-scalar output needs ``gradient``, shapes must match, ...)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.autograd.edges import GradientEdge
from symgrad.autograd.node import Node, accumulator_of
from symgrad.tensor import Tensor

__all__ = ["as_list", "given_gradients", "node_of", "root_gradients", "targets_of", "warn_cycle"]


def as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (Tensor, GradientEdge)):  # (an edge is a tuple, but one input)
        return [value]
    return list(value)


def given_gradients(outputs: Any, given: Any) -> list:
    """The ``gradient``/``grad_outputs`` argument as one entry per output."""
    if given is None:
        return [None] * len(as_list(outputs))
    if isinstance(given, Tensor):
        return [given]
    if not isinstance(given, (list, tuple)):
        raise TypeError(
            f"gradients can be either Tensors or None, but got {type(given).__name__}; "
            "wrap the values in symgrad.tensor(...)"
        )
    return list(given)


def root_gradients(roots: list, grads: list, create_graph: bool) -> list:
    """The gradient each root starts with: given, or 1 for a one-element root."""
    if len(grads) < len(roots):
        raise RuntimeError(
            f"got {len(roots)} tensors and {len(grads)} gradients: one gradient (or None) per "
            "output is needed"
        )
    grads = grads[: len(roots)]  # PyTorch ignores gradients beyond the outputs
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(g).__name__}; "
                "wrap the values in symgrad.tensor(...)"
            )
    result = []
    for i, (root, g) in enumerate(zip(roots, grads)):
        if not isinstance(root, Tensor):
            # (PyTorch asserts it)
            raise AssertionError(
                f"Expected output to be a torch.Tensor: output {i} is a {type(root).__name__}"
            )
        if not root._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn\n"
                "(none of the tensors it was computed from has requires_grad=True, or it was "
                "computed under no_grad)"
            )
        if g is None:
            if root.numel() != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n(the output has shape "
                    f"{list(root.shape)}: pass gradient= (the v of v^T J) with that shape)"
                )
            g = Tensor._make(np.ones_like(root._data))  # (a meta array for a meta root)
        elif g.is_meta != root.is_meta:
            raise RuntimeError(
                f"invalid gradient at index {i} - expected device {root.device.type} but got "
                f"{g.device.type}"
            )
        elif g.shape != root.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                f"output[{i}] has a shape of {root.shape!r}."
            )
        if g.dtype is not root.dtype:
            g = g.to(root.dtype)
        result.append(g if create_graph else g._data)
    return result


_warned_cycle = False


def warn_cycle() -> None:
    """PyTorch's warning (once per process) that a ``.grad`` recorded by ``backward`` refers
    to its parameter through its own graph."""
    global _warned_cycle
    if not _warned_cycle:
        _warned_cycle = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after "
            "use to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=4,
        )


def node_of(t: Any) -> tuple[Node, int]:
    """The node and output number a root or an input stands for."""
    if type(t) is GradientEdge:
        return (t.node, t.output_nr)
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulator_of(t), 0)


def targets_of(inputs: Sequence) -> dict:
    """{(node, output_nr): positions of the inputs it stands for} (a tensor may be listed
    twice, and then gets its gradient in both places, as in PyTorch)."""
    targets: dict = {}
    for i, t in enumerate(inputs):
        key = node_of(_check_input(t, i))
        targets[key] = targets.get(key, ()) + (i,)
    return targets


def _check_input(t: Any, i: int) -> Any:
    if isinstance(t, GradientEdge):
        return t
    if not isinstance(t, Tensor):
        raise RuntimeError(
            f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__} "
            f"(input {i})"
        )
    if not t._requires_grad:
        raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    return t
