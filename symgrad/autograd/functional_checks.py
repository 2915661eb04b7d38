"""The checks ``torch.autograd.functional`` makes in strict mode, with PyTorch's messages.

``check_requires_grad`` looks at what a step produced (the function's outputs, a Jacobian);
``fill_in_zeros`` looks at the gradients a backward pass returned, naming the pass (``stage``)
in which a missing or constant gradient was found, and otherwise puts zeros for the inputs a
gradient did not reach.

Examples
--------
>>> import symgrad
>>> from symgrad.autograd.functional_checks import fill_in_zeros
>>> fill_in_zeros((None,), (symgrad.ones(2),), False, False, "back")
(tensor([0., 0.]),)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["check_requires_grad", "fill_in_zeros"]


def _not_requiring_grad(kind: str, i: int) -> str:
    if kind == "hessian":
        return (
            f"The hessian of the user-provided function with respect to input {i} is "
            "independent of the input. This is not allowed in strict mode. You should ensure "
            "that your function is thrice differentiable and that the hessian depends on the "
            "inputs."
        )
    if kind == "jacobian":
        return (
            "While computing the hessian, found that the jacobian of the user-provided function "
            f"with respect to input {i} is independent of the input. This is not allowed in "
            "strict mode. You should ensure that your function is twice differentiable and "
            "that the jacobian depends on the inputs (this would be violated by a linear "
            "function for example)."
        )
    if kind == "grad_inputs":
        return (
            f"The gradient with respect to input {i} is independent of the inputs of the "
            "user-provided function. This is not allowed in strict mode."
        )
    return (
        f"Output {i} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    )


def check_requires_grad(items: tuple, kind: str, strict: bool) -> None:
    """With ``strict``, refuse an item (``kind``: outputs, grad_inputs, jacobian, hessian)
    that is missing or does not require grad, as PyTorch's ``_check_requires_grad``."""
    if not strict:
        return
    for i, item in enumerate(items):
        if item is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode."
            )
        if not item.requires_grad:
            raise RuntimeError(_not_requiring_grad(kind, i))


def _missing(stage: str, i: int) -> str:
    if stage == "back":
        return (
            f"The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode."
        )
    if stage == "back_trick":
        return (
            f"The gradient with respect to the input is independent of entry {i} in the "
            "grad_outputs when using the double backward trick to compute forward mode "
            "gradients. This is not allowed in strict mode."
        )
    if stage == "double_back":
        return (
            f"The jacobian of the user-provided function is independent of input {i}. This "
            "is not allowed in strict mode."
        )
    return (
        f"The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
        "double backward trick to replace forward mode AD."
    )


def fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """``grads`` with zeros shaped as ``refs`` for the missing ones, or PyTorch's strict-mode
    error for a missing gradient, or a constant one under ``create_graph``."""
    out: list[Any] = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_missing(stage, i))
            g = Tensor._make(np.zeros(ref.shape, dtype=ref._data.dtype))
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)
