"""Structural primitives and their nodes.

A :class:`Structural` primitive is a forward and a VJP rule written against an array namespace
``xp``; the same rule runs on NumPy (``backward``), on Tensors (``create_graph``) and on SymPy
object arrays (the node's ``expression`` and ``local_derivatives``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._lazy import sympy as sp
from symgrad._silent import quiet
from symgrad.autograd import anomaly, grad_mode
from symgrad.autograd.node import Node, node_class
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import camel, input_records, recorded, reduce_to
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, link_view

__all__ = ["Ctx", "Structural", "StructuralNode"]

_grad_state = grad_mode._state
_anomaly_state = anomaly._state


class Ctx:
    """What a structural VJP rule sees: saved inputs and output, input shapes, parameters."""

    __slots__ = ("inputs", "out", "shapes", "needs", "params")

    def __init__(self, inputs: tuple, out: Any, shapes: tuple, needs: tuple, params: dict):
        self.inputs = inputs
        self.out = out
        self.shapes = shapes
        self.needs = needs
        self.params = params


class Structural:
    """A primitive given by a forward and a VJP rule over an array namespace ``xp``.

    ``forward(xp, *inputs, **params)`` computes the output; ``vjp(xp, g, ctx)`` returns one
    gradient per input (``None`` where ``ctx.needs`` is False). ``saves`` names the input
    positions the rule reads from ``ctx.inputs``; ``saves_out`` whether it reads ``ctx.out``.
    ``symbolic`` is the forward for the symbolic interpreter where ``forward`` uses NumPy
    directly (a max-shifted softmax becomes ``exp(x) / sum(exp(x))``). ``view_key`` names the
    parameter holding the key of an op whose output, when it shares the input's memory, is
    ``input[key]`` (basic indexing): in-place changes of such a view reach the input.
    """

    def __init__(
        self,
        name: str,
        forward: Callable,
        vjp: Callable,
        *,
        saves: tuple = (),
        saves_out: bool = False,
        backward: str | None = None,
        symbolic: Callable | None = None,
        view_key: str | None = None,
    ) -> None:
        self.name = name
        self.view_key = view_key
        self.forward = forward
        self.vjp = vjp
        self.symbolic = symbolic or forward
        self.numeric_forward = quiet(forward)
        self.saves = saves
        self._saves_flags: dict[int, tuple] = {}
        self.saves_out = saves_out
        self.node_class = node_class(
            StructuralNode, backward or f"{camel(name)}Backward0", prim=self
        )

    def __repr__(self) -> str:
        return f"<structural primitive {self.name}>"

    def saves_flags(self, n: int) -> tuple:
        """For each of ``n`` inputs, whether the rule reads it (``saves``), cached per count."""
        flags = self._saves_flags.get(n)
        if flags is None:
            flags = self._saves_flags[n] = tuple(i in self.saves for i in range(n))
        return flags

    def __call__(self, *tensors: Tensor, **params: Any) -> Tensor:
        out = self.numeric_forward(NP, *[t._data for t in tensors], **params)
        return self.record(tensors, params, out)

    def record(self, tensors: tuple, params: dict, out: Any) -> Tensor:
        """The result tensor of ``out``, the forward's value for ``tensors`` and ``params``,
        with this primitive's node recorded when grad mode and the inputs call for one."""
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if _anomaly_state.enabled:
            anomaly.check_forward(self, out, tensors)
        if _grad_state.enabled and _any_requires_grad(tensors):
            result = recorded(self.node_class, tensors, params, out)
        else:
            result = Tensor._make(out)
        if out.base is not None and tensors and np.may_share_memory(out, tensors[0]._data):
            link_view(tensors[0], result, params[self.view_key] if self.view_key else None)
        return result


def _any_requires_grad(tensors: tuple) -> bool:
    for t in tensors:
        if t._requires_grad:
            return True
    return False


class StructuralNode(Node):
    """The node of a structural op; ``prim`` is set on each op's subclass."""

    __slots__ = ("_meta", "_params")
    prim: Structural

    def __init__(self, tensors: tuple, params: dict, out: np.ndarray) -> None:
        keep = self.prim.saves_flags(len(tensors))
        edges, saved, versions, meta, consts, held = input_records(tensors, keep)
        Node.__init__(
            self, tuple(edges), tuple(saved), out if self.prim.saves_out else None, versions
        )
        self._consts = consts
        self._held = held
        self._meta = meta
        self._params = params

    @property
    def expression(self) -> Any:
        """The forward formula in the node's own input symbols ``x[i, j]``, ``y[i, j]``."""
        return self._local_rule()[0]

    @property
    def local_derivatives(self) -> tuple:
        """The VJP rule applied to a symbolic incoming gradient ``g[i, j]``: for each input,
        the gradient it receives, in the node's own symbols."""
        return self._local_rule()[1]

    def _local_rule(self) -> tuple:
        from symgrad.prim import sympy_xp as sx

        names = _input_names(len(self._meta))
        xs = tuple(sx.symbol_array(n, m[0]) for n, m in zip(names, self._meta))
        env = {}
        for x, t in zip(xs, self._saved or ()):
            if t is not None:
                env.update(zip(x.flat, (sx.exact(v, as_float=True) for v in t._data.flat)))
        interp = sx.SX(_evaluator(env) if env else None)
        out = np.asarray(self.prim.symbolic(interp, *xs, **self._params), dtype=object)
        g = sx.symbol_array("g", out.shape)
        ctx = Ctx(xs, out, tuple(m[0] for m in self._meta), (True,) * len(xs), self._params)
        grads = self.prim.vjp(interp, g, ctx)
        return sx.to_sympy(out), tuple(
            None if v is None else sx.to_sympy(np.asarray(v, dtype=object)) for v in grads
        )

    def apply(self, grads: list, create_graph: bool) -> tuple:
        saved = self._unpack()
        meta = self._meta
        needs = [fn is not None for fn, _ in self.next_functions]
        shapes = [m[0] for m in meta]
        if create_graph:
            out = Tensor._make(self._out, self, True) if self._out is not None else None
            ctx = Ctx(saved, out, shapes, needs, self._params)
            result = self.prim.vjp(INTERPRETERS.tensor, grads[0], ctx)
            return tuple(_cast_tensor(r, m[1]) for r, m in zip(result, meta))
        inputs = [None if s is None else s._data for s in saved]
        ctx = Ctx(inputs, self._out, shapes, needs, self._params)
        result = self.prim.vjp(NP, grads[0], ctx)
        grads_in = []
        for r, n, (shape, dtype) in zip(result, needs, meta):
            if r is None or not n:
                r = None
            elif type(r) is not np.ndarray or r.shape != shape or r.dtype != dtype:
                r = reduce_to(r, shape, dtype)
            grads_in.append(r)
        return tuple(grads_in)


def _input_names(n: int) -> tuple:
    return ("x", "y", "z")[:n] if n <= 3 else tuple(f"x{i}" for i in range(n))


def _evaluator(env: dict) -> Callable:
    def numeric(a: np.ndarray) -> np.ndarray:
        def value(e: Any) -> float:
            return float(sp.sympify(e, strict=True).xreplace(env))

        return np.vectorize(value, otypes=[float])(a)

    return numeric


def _cast_tensor(g: Tensor | None, dtype: np.dtype) -> Tensor | None:
    if g is None or g._data.dtype == dtype:
        return g
    return g.to(dtypes.from_numpy_dtype(dtype))
