"""Primitives with several outputs computed together: the factors of a matrix decomposition
(``Q`` and ``R``, ``U``, ``S`` and ``Vh``), the sign and log of a determinant.

A :class:`Factorization` is one node for all its outputs, as in PyTorch (``LinalgQrBackward0``
for both ``Q`` and ``R``). Its VJP rule, written against ``xp`` like every rule, receives one
gradient per output (None for an output no gradient reached) and the outputs themselves in
``ctx.out``; it runs on NumPy for ``backward()`` and on tensors for ``create_graph``. The
forward-mode rule comes from the VJP rule by transposition (``jvp``). Where the outputs have a
closed form (``slogdet``), ``forward`` gives it on any interpreter; decompositions of symbolic
matrices have none and say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._meta import is_meta, meta_result
from symgrad._silent import quiet
from symgrad._tracing import TRACE, traced_outputs
from symgrad.autograd import dual, grad_mode
from symgrad.autograd.current_pass import edge_needs
from symgrad.autograd.node import node_class
from symgrad.autograd.saved import ACTIVE as hooks_active
from symgrad.autograd.saved_names import pack_node
from symgrad.prim.numpy_xp import NP, reduce_to
from symgrad.prim.primitive import Ctx, Primitive, _as_input_tensor, input_records, meta_gradients
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["Factorization"]


class Factorization(Primitive):
    """A primitive of one or more tensor inputs and several outputs.

    ``kernel(*arrays, **params)`` returns the outputs as NumPy arrays; ``vjp(xp, grads, ctx)``
    returns one gradient per input (None where ``ctx.needs`` is False) from the outputs'
    ``grads``; ``forward(xp, *inputs, **params)``, when given, is the outputs' closed form;
    ``check(node, grads)`` may refuse a backward PyTorch refuses (Q of ``mode='r'``);
    ``differentiable`` names the outputs the node records, when not all (an integer output
    never is); without ``reads_inputs`` the rule reads only the inputs' dtypes;
    ``saves_outputs`` names the outputs PyTorch's node saves, when not all (an in-place change
    of one of them breaks the backward); ``jvp``, where given, replaces the transposed VJP in
    forward mode (:func:`~symgrad.prim.tangents.no_forward_rule` for an op PyTorch gives none).

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> q, r = symgrad.linalg.qr(a)
    >>> q.grad_fn is r.grad_fn, r.output_nr
    (True, 1)
    """

    def __init__(
        self,
        name: str,
        kernel: Callable,
        vjp: Callable,
        *,
        backward: str,
        n_outputs: int = 1,
        forward: Callable | None = None,
        check: Callable | None = None,
        differentiable: tuple | None = None,
        reads_inputs: bool = True,
        saves_outputs: tuple | None = None,
        jvp: Callable | None = None,
    ) -> None:
        self.name = name
        self.backward_name = backward
        self.n_outputs = n_outputs
        self.kernel = quiet(kernel)
        self.rule = vjp
        self.closed_form = forward
        self.check = check
        # the outputs the node records (None: all); the others are plain tensors, as LU's
        # pivots and permutation matrix are in PyTorch
        self.differentiable = differentiable
        # whether the rule reads the inputs' values, not only their dtypes: a decomposition's
        # gradient comes from its factors, so changing the input in place afterwards breaks
        # nothing (PyTorch saves the factors only)
        self.reads_inputs = reads_inputs
        # the outputs PyTorch's node saves (None: all), whose in-place change breaks the
        # backward; the rule reads no other
        self.saves_outputs = saves_outputs
        self.jvp_rule = jvp

    def __repr__(self) -> str:
        return f"<factorization primitive {self.name}>"

    def used_saves(self, needs: tuple) -> tuple:
        return (self.reads_inputs,) * len(needs)

    def node_class(self, count: int) -> type:
        """PyTorch's node class, with ``count`` outputs."""
        return node_class(self.backward_name, outputs=count)

    # -- recording ------------------------------------------------------------------------------
    def __call__(self, *tensors: Tensor, **params: Any) -> tuple:
        arrays = tuple(np.asarray(a) for a in self.kernel(*[t._data for t in tensors], **params))
        if any(is_meta(t._data) for t in tensors):  # shapes and dtypes only
            arrays = meta_result(arrays)
        if grad_mode.recording() and any(t._requires_grad for t in tensors):
            records = input_records(tensors, (True,) * len(tensors))
            edges, saved, versions, meta, consts, held = records
            node = self.node_class(len(arrays))(
                self, params, edges, saved, arrays, versions, meta, consts, held
            )
            keep = self.differentiable
            outs = tuple(
                Tensor._make(a, node, True) if keep is None or i in keep else Tensor._make(a)
                for i, a in enumerate(arrays)
            )
            for i, t in enumerate(outs):
                if t.grad_fn is node:
                    t._output_nr = i
            # an in-place change of an output the backward reads breaks it, as in PyTorch
            kept = self.saves_outputs
            watched = [t for i, t in enumerate(outs) if kept is None or i in kept]
            node._out_version = tuple((t._counter, 0) for t in watched) or None
            if hooks_active.count:  # saved_tensors_hooks: the node keeps what pack_hook returns
                pack_node(node, outs)
            if TRACE.log is not None:
                traced_outputs(node, outs)
        else:
            outs = tuple(Tensor._make(a) for a in arrays)
        if dual.active() and any(dual.tangent_of(t) is not None for t in tensors):
            self._tangents(tensors, outs, params)
            node = next((o.grad_fn for o in outs if o.grad_fn is not None), None)
            if node is not None:  # the backward reads the outputs: keep their tangents too
                node._out_fw = tuple(o._fw for o in outs)
        return outs

    def _tangents(self, tensors: tuple, outs: tuple, params: dict) -> None:
        """Each floating output's tangent: the VJP rule transposed (its gradient by the
        outputs' gradients of ``<vjp(g), t>``)."""
        from symgrad.autograd.engine import grad

        ts = [dual.tangent_of(tensor) for tensor in tensors]
        needs = [t is not None for t in ts]
        if self.jvp_rule is not None:
            ctx = Ctx(tensors, outs, [t.shape for t in tensors], needs, params)
            for k, tk in enumerate(self.jvp_rule(INTERPRETERS.tensor, ts, ctx)):
                dual.set_tangent(outs[k], tk)
            return
        with dual.disabled(), grad_mode.enable_grad():
            gs = tuple(Tensor._make(np.zeros(o.shape, o._data.dtype), None, True) for o in outs)
            plain = tuple(Tensor._make(o._data) for o in outs)
            ctx = Ctx(tensors, plain, [t.shape for t in tensors], needs, params)
            pairs = zip(self.rule(INTERPRETERS.tensor, gs, ctx), ts)
            total = sum((gi * t).sum() for gi, t in pairs if gi is not None and t is not None)
            keep = self.differentiable
            floating = [
                k
                for k, o in enumerate(outs)
                if o._data.dtype.kind in "fc" and (keep is None or k in keep)
            ]
            tangents = grad(total, [gs[k] for k in floating], allow_unused=True)
        for k, tk in zip(floating, tangents):
            if tk is None:
                tk = Tensor._make(np.zeros(outs[k].shape, outs[k]._data.dtype))
            dual.set_tangent(outs[k], Tensor._make(tk._data))

    # -- the backward rule -----------------------------------------------------------------------
    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        if not create_graph and (meta := meta_gradients(node, grads)) is not None:
            return tuple(meta)
        if self.check is not None:
            self.check(node, grads)
        inputs = tuple(node._unpack())
        arrays = node._output()
        shapes = [m[0] for m in node._meta]
        needs = edge_needs(node)
        if create_graph:
            outs = []
            for i, arr in enumerate(arrays):
                t = Tensor._make(arr, node, True)
                t._output_nr = i
                if node._out_fw is not None:  # forward-over-reverse: the output's tangent
                    t._fw = node._out_fw[i]
                outs.append(t)
            ctx = Ctx(inputs, tuple(outs), shapes, needs, node.params)
            gs = self.rule(INTERPRETERS.tensor, tuple(grads), ctx)
            return tuple(_as_input_tensor(g, n, m) for g, n, m in zip(gs, needs, node._meta))
        ctx = Ctx(tuple(a._data for a in inputs), arrays, shapes, needs, node.params)
        gs = self.rule(NP, tuple(grads), ctx)
        return tuple(
            None if g is None or not n else reduce_to(g, *m)
            for g, n, m in zip(gs, needs, node._meta)
        )

    def vjp(self, xp: Any, g: Any, ctx: Ctx) -> tuple:
        """The rule for the gradient ``g`` of output ``ctx.output`` alone (the symbolic
        replay's per-output call)."""
        if isinstance(g, tuple):
            return self.rule(xp, g, ctx)
        grads = tuple(g if k == ctx.output else None for k in range(self.n_outputs))
        return self.rule(xp, grads, ctx)

    # -- other interpreters ------------------------------------------------------------------------
    def outputs(self, xp: Any, inputs: tuple, params: Any) -> tuple:
        if xp is NP:
            return self.kernel(*inputs, **params)
        if self.closed_form is None:
            raise NotImplementedError(
                f"linalg.{self.name} has no closed form: a decomposition of a matrix of "
                "symbols is not a formula symgrad writes; take the numeric gradient, or a "
                "closed form of det, inv or solve"
            )
        return self.closed_form(xp, *inputs, **params)

    def recompute(self, inputs: tuple, params: Any) -> tuple:
        return self(*inputs, **params)
