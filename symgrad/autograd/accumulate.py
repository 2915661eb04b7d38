"""Gradients into ``.grad``: the accumulation the engine does at every leaf, and the whole
pass for a graph of one node whose edges all lead to leaves (a compiled function's node), which
needs neither the engine's walk nor its buffers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._grad_dtype import CUSTOM, grad_dtype_of
from symgrad._layout import is_dense
from symgrad._memory_format import element_strides, empty_strided, grad_strides, laid_out_for
from symgrad._silent import silencer
from symgrad._version import NO_VERSION, check_writable
from symgrad.autograd import anomaly, dual, grad_mode
from symgrad.autograd.buffers import SUMS, sums_of
from symgrad.autograd.node import AccumulateGrad
from symgrad.tensor import Tensor

__all__ = ["first_grad", "one_node", "store", "in_grad_dtype"]

_anomaly_state = anomaly._state
_silent_set, _silent_reset, _SILENT = silencer()


def store(leaf: Tensor, g: np.ndarray, foreign: dict) -> None:
    """Accumulate the array ``g`` into ``leaf.grad`` (no graph recorded): the array itself
    when no one else holds it, else a copy; in place where the .grad is the engine's own.
    ``foreign``: the pass's arrays (see :mod:`symgrad.autograd.buffers`)."""
    dtype = leaf._data.dtype if not CUSTOM else _numpy_grad_dtype(leaf, g)
    if g.dtype is not dtype and g.dtype != dtype:  # (the same object: the common case)
        g = g.astype(dtype)
    grad = leaf._grad
    if grad is None:
        if type(g) is not np.ndarray:
            if not isinstance(g, np.generic):  # a meta gradient: no values to own
                leaf._grad = grad = Tensor._make(g)
                foreign[id(g)] = grad
                return
            g = np.array(g)  # a 0-d gradient as a NumPy number: one to write into
        given = g
        sums = foreign.get(SUMS)
        version = 0 if sums is None else sums_of(sums, g)
        if g.strides != leaf._data.strides and (laid := laid_out_for(g, leaf._data)) is not g:
            g = laid  # PyTorch's layout contract (the leaf's own strides: nothing to check)
            version = _copied_version(leaf)
        elif g.base is not None or id(g) in foreign or not g.flags.writeable:
            if foreign.get(id(g)) is g:  # the caller's: PyTorch copies it
                version = _copied_version(leaf)
            g = np.array(g, order="K")  # (its layout is the leaf's: kept)
        leaf._grad = grad = Tensor._make(g)
        foreign[id(g)] = grad  # kept: another leaf copies it
        if version:
            grad._counter.value = version
        if g is not given:
            first = foreign.get(id(given))
            if type(first) is Tensor and first._data is given:
                # a leaf that got this array before copied it in PyTorch, as this one held it
                first._counter.value = 1
    elif grad._data.flags.writeable:
        # in place even into a .grad with a history (create_graph before): PyTorch keeps that
        # tensor and its node, and bumps its version
        if grad._counter is NO_VERSION:
            check_writable(grad)
        np.add(grad._data, g, out=grad._data)
        grad._counter.value += 1
    else:
        leaf._grad = Tensor._make(grad._data + g)


def _copied_version(leaf: Tensor) -> int:
    """The version of a copy PyTorch's AccumulateGrad makes of a gradient for ``leaf``: 1 (an
    empty tensor with the leaf's strides, ``copy_``-ed into) where the leaf's elements fill a
    block, else 0 (a ``clone``)."""
    data = leaf._data
    if type(data) is not np.ndarray or data.flags.c_contiguous:
        return 1
    return 1 if is_dense(data.shape, element_strides(data)) else 0


def first_grad(g: Tensor, leaf: Tensor, own: Callable) -> Tensor:
    """A leaf's first recorded gradient (``create_graph``): a copy of ``g`` made as PyTorch's
    AccumulateGrad makes it (an empty tensor laid out as ``leaf``, ``copy_``-ed into,
    ``CopyBackwards``); ``own(g)`` where ``g`` records nothing and is laid out right."""
    data = g._data
    # a meta gradient, or one of a batched leaf (vmap), has no layout to keep
    real = type(data) is np.ndarray and type(leaf._data) is np.ndarray
    if not g._requires_grad:
        laid = laid_out_for(data, leaf._data) if real else data
        # PyTorch copies it (no gradient is kept while a graph is recorded): a new tensor
        grad = Tensor._make(own(g)._data if laid is data else laid)
        grad._counter.value = _copied_version(leaf)
        return grad
    if real:
        empty = empty_strided(g.shape, data.dtype, grad_strides(leaf._data))
    else:
        empty = np.empty_like(data)
    with grad_mode.enable_grad():
        return Tensor._make(empty).copy_(g)


def one_node(root: Tensor, retain_graph: bool) -> bool:
    """``loss.backward()`` on a graph of one node whose edges all lead to distinct leaves
    without hooks (a compiled function's node): run at once, without the walk and the
    buffers. False, having done nothing, for any other graph or pass."""
    node = root.grad_fn
    if (
        node is None
        or node._hooks is not None
        or node.runs_user_code
        or _anomaly_state.enabled
        or dual.STATE.level is not None
        or type(root._data) is not np.ndarray
    ):
        return False
    leaves = []
    for nxt, _ in node._edges:
        if nxt is not None:
            if type(nxt) is not AccumulateGrad or nxt._hooks is not None or nxt in leaves:
                return False
            leaves.append(nxt)
    start = ones_of(root._data)
    foreign = {id(start): start}  # the caller's (see symgrad.autograd.buffers)
    grads: list = [start]
    if node.num_outputs != 1:  # the gradient of the output called, none for the others
        grads = [None] * node.num_outputs
        grads[root._output_nr] = start
    token = _silent_set(_SILENT)
    try:
        in_grads = node.prim.apply(node, grads, False)
        if not retain_graph:
            node._release()
        for (nxt, _), g in zip(node._edges, in_grads):
            if g is None or nxt is None:
                continue
            leaf = nxt._leaf_ref()
            if leaf is not None and leaf._requires_grad:  # (see the engine)
                store(leaf, g if type(g) is np.ndarray else _array_of(g), foreign)
    finally:
        _silent_reset(token)
    return True


def _array_of(g: Any) -> Any:
    return g._data if isinstance(g, Tensor) else g


_ONES: dict = {}


def ones_of(data: np.ndarray) -> np.ndarray:
    """A read-only array of ones of ``data``'s shape and dtype, one per shape and dtype (a
    loss's starting gradient: ``.copy()`` it for one that may be written)."""
    key = (data.shape, data.dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = _ONES[key] = np.ones_like(data)
        ones.flags.writeable = False
    return ones


def _numpy_grad_dtype(leaf: Tensor, g: np.ndarray) -> np.dtype:
    """The NumPy dtype of ``leaf``'s gradients: its ``grad_dtype`` (None keeps ``g``'s)."""
    kind = grad_dtype_of(leaf)
    return g.dtype if kind is None else kind.numpy


def in_grad_dtype(leaf: Tensor, grads: list) -> list:
    """A leaf's incoming gradient cast to its ``grad_dtype`` (before its hooks see it)."""
    kind = grad_dtype_of(leaf)
    g = grads[0]
    if kind is None or g is None or g.dtype == (kind if isinstance(g, Tensor) else kind.numpy):
        return grads
    return [g.to(kind) if isinstance(g, Tensor) else g.astype(kind.numpy)]
