"""``cond`` and ``while_loop``: PyTorch's structured control flow, run eagerly.

PyTorch traces both branches of ``cond`` (and the loop's body) with its compiler to check
them; symgrad runs only the code a Python ``if``/``while`` would run, and checks what it
returns: a branch or body returns tensors or ints (possibly in tuples, lists and dicts), never
an input itself or a view of one, and the body keeps each carried value's shape and dtype.
The floating results pass through one node, ``CondAutogradOpBackward`` or
``WhileLoopAutogradOpBackward`` as in PyTorch, so gradients reach the operands, and the
tensors the branches captured, through the code that ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import dtypes
from symgrad.autograd.function import Function
from symgrad.autograd.node import accumulator_of
from symgrad.autograd.order import walk
from symgrad.func._pytree import tree_flatten, tree_unflatten
from symgrad.tensor import Tensor

__all__ = ["cond", "while_loop", "UncapturedHigherOrderOpError"]


class UncapturedHigherOrderOpError(RuntimeError):
    """A branch or loop body PyTorch's ``cond``/``while_loop`` cannot capture (the name of
    PyTorch's error; a ``RuntimeError``)."""


class _Passing(Function):
    """The identity on the results (the first ``count`` inputs); the operands follow, so a
    result requires grad when an operand does, as PyTorch's node."""

    @staticmethod
    def forward(ctx: Any, count: int, *tensors: Tensor) -> Any:
        ctx.operands = [(t.shape, t.dtype) for t in tensors[count:]]
        return tuple(t.clone() for t in tensors[:count])

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        # the operands taken are those the results don't depend on: their gradient is zero
        zeros = [grads[0].new_zeros(shape, dtype=dtype) for shape, dtype in ctx.operands]
        return (None, *grads, *zeros)


class CondAutogradOp(_Passing):
    """The node of ``cond``'s results."""


class WhileLoopAutogradOp(_Passing):
    """The node of ``while_loop``'s results."""


def _root(t: Tensor) -> Tensor:
    base = t._view_base
    return t if base is None else base[0]


def _check_outputs(op: str, outputs: list, inputs: list) -> None:
    """Refuse what PyTorch cannot capture: results other than tensors and ints, and results
    that are inputs or views of them."""
    for out in outputs:
        if not isinstance(out, (Tensor, int)) or isinstance(out, bool):
            raise UncapturedHigherOrderOpError(
                f"torch.{op}: unsupported branch return type {type(out).__name__}: branches "
                "must return tensors or ints"
            )
    roots = {id(_root(t)) for t in inputs if isinstance(t, Tensor)}
    if any(isinstance(out, Tensor) and id(_root(out)) in roots for out in outputs):
        raise UncapturedHigherOrderOpError(
            f"torch.{op}: higher order ops do not support aliasing: a result is an input or a "
            "view of one; replace `return input` with `return input.clone()`"
        )


def _through(node: type, outputs: list, operands: list) -> list:
    """``outputs`` with the floating tensors passed through one ``node``, which also takes
    the operands the results do not depend on: PyTorch's results require grad when an operand
    does, and give such an operand a zero gradient."""
    floating = [i for i, t in enumerate(outputs) if isinstance(t, Tensor) and t.is_floating_point()]
    reached = _reached([outputs[i] for i in floating])
    tensors = [t for t in operands if isinstance(t, Tensor) and t.requires_grad]
    unused = [t for t in tensors if _node_of(t) not in reached]
    if not floating or not (unused or any(outputs[i].requires_grad for i in floating)):
        return outputs
    passed = node.apply(len(floating), *(outputs[i] for i in floating), *unused)
    passed = passed if isinstance(passed, tuple) else (passed,)
    outputs = list(outputs)
    for i, t in zip(floating, passed):
        outputs[i] = t
    return outputs


def _node_of(t: Tensor) -> Any:
    return t.grad_fn if t.grad_fn is not None else accumulator_of(t)


def _reached(results: list) -> set:
    """The nodes (leaves' included) the gradients of ``results`` flow through."""
    roots = [_node_of(t) for t in results if t.requires_grad]
    nodes, leaves = walk(roots)
    return {*nodes, *leaves}


def cond(
    pred: Any,
    true_fn: Callable,
    false_fn: Callable,
    operands: tuple | list = (),
) -> Any:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``, as ``torch.cond``.

    ``pred`` is a Python bool or number (the branch is simply called), or a one-element
    tensor. ``operands`` is a tuple or list of (possibly nested) tensors. A branch returns
    tensors or ints, never an operand itself (clone it).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> y = symgrad.cond(x.sum() > 0, lambda x: x.cos(), lambda x: x.sin(), (x,))
    >>> y
    tensor([1.0000, 0.5403], grad_fn=<CondAutogradOpBackward>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([-0.0000, -0.8415])
    """
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    leaves, _ = tree_flatten(operands)
    if not isinstance(operands, (tuple, list)) or not all(isinstance(t, Tensor) for t in leaves):
        raise RuntimeError(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only "
            f"consists of tensor leaves, but got {operands}."
        )
    result = (true_fn if bool(pred) else false_fn)(*operands)
    outputs, spec = tree_flatten(result)
    _check_outputs("cond", outputs, leaves)
    return tree_unflatten(_through(CondAutogradOp, outputs, leaves), spec)


def _check_condition(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if not isinstance(value, Tensor) or value.ndim != 0 or value.dtype != dtypes.bool_:
        shape = value.shape if isinstance(value, Tensor) else type(value).__name__
        raise UncapturedHigherOrderOpError(
            "torch.while_loop: unsupported cond_fn return type: expected cond_fn to return a "
            f"scalar tensor or a bool but got {shape}"
        )
    return bool(value)


def _check_carried(outputs: list, carried: list) -> None:
    if len(outputs) != len(carried):
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but got "
            f"{len(outputs)} and {len(carried)}"
        )
    for i, (out, before) in enumerate(zip(outputs, carried)):
        if isinstance(before, Tensor) and isinstance(out, Tensor):
            if out.shape != before.shape or out.dtype != before.dtype:
                raise UncapturedHigherOrderOpError(
                    "Expected body_fn_output and carried_inputs to have same metadata but "
                    f"found: pair[{i}] differ: shape {tuple(out.shape)} and dtype {out.dtype} "
                    f"vs shape {tuple(before.shape)} and dtype {before.dtype}"
                )
        elif isinstance(before, Tensor) != isinstance(out, Tensor):
            raise UncapturedHigherOrderOpError(
                f"Expected body_fn_output and carried_inputs to have same metadata but found: "
                f"pair[{i}] is {type(out).__name__} vs {type(before).__name__}"
            )


def while_loop(cond_fn: Callable, body_fn: Callable, carried_inputs: Any) -> Any:
    """``val = body_fn(*val)`` while ``cond_fn(*val)``, from ``val = carried_inputs``, as
    ``torch.while_loop``; returns the last ``val``.

    ``carried_inputs`` is a tuple of (possibly nested) tensors and ints; ``body_fn`` returns
    values of the same shapes and dtypes (new tensors, not its inputs) and ``cond_fn`` a bool
    or a 0-d boolean tensor.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> i, y = symgrad.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * y), (0, x))
    >>> i, y
    (3, tensor([  1., 256.], grad_fn=<WhileLoopAutogradOpBackward>))
    >>> y.sum().backward()
    >>> x.grad  # 8 x ** 7
    tensor([   8., 1024.])
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    carried, spec = tree_flatten(carried_inputs)
    kinds = [type(t) for t in carried if not isinstance(t, (Tensor, int))]
    if kinds:
        raise AssertionError(
            f"{carried} can only be of (Tensor, int) but got {tuple(type(t) for t in carried)}"
        )
    first = carried
    value = carried_inputs
    while _check_condition(condition := cond_fn(*value)):
        result = body_fn(*value)
        outputs, spec = tree_flatten(result)
        _check_carried(outputs, carried)
        _check_outputs("while_loop", outputs, carried)
        carried, value = outputs, result if isinstance(result, (tuple, list)) else (result,)
    if carried is first:
        if not isinstance(condition, Tensor):
            return carried_inputs
        _, spec = tree_flatten(tuple(carried_inputs))
    return tree_unflatten(_through(WhileLoopAutogradOp, carried, first), spec)
