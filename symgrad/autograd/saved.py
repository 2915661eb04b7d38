"""Saved tensors under hooks: what :func:`symgrad.autograd.graph.saved_tensors_hooks` does to
the values a node keeps for its backward.

A node keeps its saved inputs in ``_saved`` and its saved output in ``_out``. While hooks are
active, a node that records hands each saved tensor to the innermost ``pack_hook`` and keeps
only what that returns (a :class:`Packed`); its backward gets the tensor back from
``unpack_hook``, each time it reads it. This is one mechanism for every node, primitive or
custom Function: the op declarations know nothing about it, and a node recorded without hooks
pays one attribute test when its backward runs.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.tensor import Tensor

__all__ = [
    "STATE",
    "ACTIVE",
    "FREED",
    "push",
    "pop",
    "Packed",
    "PackedSaved",
    "packed",
    "packed_of",
]

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
_PACK_IN_PLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Return a modified copy instead (x * 2, not x.mul_(2))."
)


class _State(threading.local):
    hooks: tuple = ()  # the active (pack_hook, unpack_hook) pairs, innermost last
    disabled: str | None = None  # the error message while the hooks are disabled


STATE = _State()


class _Active:
    """How many threads have hooks active: what every recorded op tests first (a plain
    attribute, quicker to read than the thread-local STATE)."""

    __slots__ = ("count", "lock")

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()


ACTIVE = _Active()


def push(pack_hook: Any, unpack_hook: Any) -> None:
    """Make ``(pack_hook, unpack_hook)`` the innermost pair (thread-local)."""
    if STATE.disabled is not None:
        raise RuntimeError(STATE.disabled)
    STATE.hooks = STATE.hooks + ((pack_hook, unpack_hook),)
    with ACTIVE.lock:
        ACTIVE.count += 1


def pop() -> None:
    """Drop the innermost pair."""
    STATE.hooks = STATE.hooks[:-1]
    with ACTIVE.lock:
        ACTIVE.count -= 1


class Packed:
    """One saved tensor as its pack hook returned it, with what is needed to give the
    unpacked tensor the original's place in the graph (its ``grad_fn``, or for a leaf its
    ``AccumulateGrad`` node; ``output`` is the output's index when the node saved its own
    output). ``number`` marks a saved Python number, packed as a 0-dim tensor."""

    __slots__ = (
        "value",
        "unpack_hook",
        "grad_fn",
        "output_nr",
        "requires_grad",
        "accumulator",
        "shape",
        "output",
        "number",
    )

    def tensor(self, node: Any) -> Tensor:
        """The saved tensor again: ``unpack_hook(value)``, in the original's place."""
        u = self.unpack_hook(self.value)
        if not isinstance(u, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(u).__name__}"
            )
        if tuple(u._data.shape) != self.shape:
            raise RuntimeError(
                f"the unpack hook returned a tensor of shape {list(u._data.shape)} for a saved "
                f"tensor of shape {list(self.shape)} (saved by {node.name()}): unpack_hook "
                "must give back what pack_hook was given"
            )
        if not self.requires_grad:
            # PyTorch hands back the unpacked tensor itself when no graph is attached to it
            return u if not u._requires_grad else Tensor._make(u._data)
        grad_fn = node if self.output is not None else self.grad_fn
        t = Tensor._make(u._data, grad_fn, True)
        if grad_fn is None:
            t._accumulator = self.accumulator  # a leaf's: gradients reach the original leaf
        else:
            t._output_nr = self.output if self.output is not None else self.output_nr
        return t

    def number_value(self, node: Any) -> Any:
        """A saved number's value again (the unpacked 0-dim tensor's item)."""
        return self.tensor(node)._data.item()


def packed(
    tensor: Tensor, pack_hook: Any, unpack_hook: Any, *, output: int | None = None, detach=False
) -> Packed:
    """``tensor`` handed to ``pack_hook`` (detached when ``detach``, as PyTorch hands it to
    hooks registered on one saved tensor), under no_grad; refused if the hook changed it."""
    version = tensor._counter.value
    with grad_mode.no_grad():
        value = pack_hook(tensor.detach() if detach else tensor)
    if tensor._counter.value != version:
        raise RuntimeError(_PACK_IN_PLACE)
    p = Packed()
    p.value, p.unpack_hook, p.output, p.number = value, unpack_hook, output, False
    p.grad_fn, p.output_nr = tensor.grad_fn, tensor._output_nr
    p.requires_grad = tensor._requires_grad
    p.accumulator = tensor._accumulator
    p.shape = tuple(tensor._data.shape)
    return p


def packed_number(value: Any, pack_hook: Any, unpack_hook: Any) -> Packed:
    """A saved Python number packed as the 0-dim tensor PyTorch wraps it in."""
    p = packed(Tensor._make(np.asanyarray(value)), pack_hook, unpack_hook)
    p.number = True
    return p


class PackedSaved:
    """A node's packed saved values: ``inputs`` aligned with the node's inputs (None where
    the value is kept as it is), ``outputs`` with its outputs (None when the output was not
    packed). ``plain_out`` keeps the outputs' arrays that were not packed; ``single`` says the
    node keeps one output array rather than a tuple of them."""

    __slots__ = ("inputs", "outputs", "plain_out", "single", "order")

    def __init__(self, n_inputs: int, out: Any) -> None:
        self.inputs: list = [None] * n_inputs
        self.order: list = []  # the packed inputs' positions, in the order they were packed
        self.outputs: list | None = None
        self.single = type(out) is not tuple
        self.plain_out = out

    def saved(self, node: Any) -> tuple:
        """The node's saved inputs, each packed one unpacked (Node._unpack's hooked branch)."""
        values = list(node._saved)
        for i in self.order:
            p = self.inputs[i]
            values[i] = p.number_value(node) if p.number else p.tensor(node)
        return tuple(values)

    def output(self, node: Any) -> Any:
        """The saved output's array (a tuple of arrays for several outputs), unpacked."""
        if self.outputs is None:
            return self.plain_out
        plain = (self.plain_out,) if self.single else self.plain_out
        arrays = tuple(
            a if p is None else p.tensor(node)._data for a, p in zip(plain, self.outputs)
        )
        return arrays[0] if self.single else arrays

    def pack_output(self, node: Any, k: int, p: Packed) -> None:
        """Keep output ``k`` as ``p`` only (its array is no longer held)."""
        if self.outputs is None:
            count = 1 if self.single else len(self.plain_out)
            self.outputs = [None] * count
        self.outputs[k] = p
        if self.single:
            self.plain_out = None
        else:
            self.plain_out = tuple(None if j == k else a for j, a in enumerate(self.plain_out))
        node._out = _PACKED
        node._out_version = None  # with hooks, versions can't be followed (as in PyTorch)

    def pack_input(self, node: Any, i: int, p: Packed) -> None:
        """Keep input ``i`` as ``p`` only."""
        self.inputs[i] = p
        self.order.append(i)
        saved, versions = list(node._saved), list(node._versions)
        saved[i] = versions[i] = None
        node._saved, node._versions = tuple(saved), tuple(versions)


class _PackedOutput:
    """What a node's ``_out`` holds once its output was packed: not None (the node does save
    its output), and no array."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<packed output>"


_PACKED = _PackedOutput()


def packed_of(node: Any) -> PackedSaved:
    """The node's PackedSaved, made at its first packed value."""
    if node._packed is None:
        node._packed = PackedSaved(len(node._saved), node._out)
    return node._packed
