"""Structural primitives and their nodes.

A :class:`Structural` primitive is a forward and a VJP rule written against an array namespace
``xp``; the same rule runs on NumPy (``backward``), on Tensors (``create_graph``) and on SymPy
object arrays (the node's ``expression`` and ``local_derivatives``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad._memory_format import in_suggested_format, laid_out_like, row_major
from symgrad._meta import SEEN as _META_SEEN
from symgrad._meta import MetaArray, check_devices, meta_result
from symgrad._shared_memory import owns_rows, shares_memory
from symgrad._silent import quiet
from symgrad.autograd import anomaly, dual, grad_mode
from symgrad.autograd.node import node_class
from symgrad.prim import tangents
from symgrad.prim.batch_rules import batched_call
from symgrad.prim.batching import STATE as _batch_state
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx, Primitive, gradients_in, recorded, with_origin
from symgrad.tensor import NAMES, Tensor, link_view

__all__ = ["Ctx", "Structural", "reshaped_back", "without_derivative"]

_grad_state = grad_mode._state
_anomaly_state = anomaly._state
_dual_state = dual.STATE


class Structural(Primitive):
    """A primitive given by a forward and a VJP rule over an array namespace ``xp``.

    ``forward(xp, *inputs, **params)`` computes the output; ``vjp(xp, g, ctx)`` returns one
    gradient per input (``None`` where ``ctx.needs`` is False). ``saves`` names the input
    positions the rule reads from ``ctx.inputs``; ``saves_out`` whether it reads ``ctx.out``;
    ``reads`` (optional) maps an input to the saved inputs its own gradient reads, so that an
    in-place change of one that no needed gradient reads is no error (a product's factors).
    ``forward`` is the op's meaning, in vocabulary words only, so it runs on every
    interpreter; ``kernel(xp, *arrays, **params)`` is an optional NumPy path, faster or
    stabler (a max-shifted softmax for ``exp(x) / sum(exp(x))``), tested to agree with it.
    ``numeric_vjp(g, arrays, out, needs, params, meta)`` is the same for the backward: the gradients
    ``vjp`` gives on NumPy, bit for bit, for a node of the engine's numeric pass (or None for
    a call it leaves to ``vjp``).
    An output that shares the first input's memory is that input's view (tensor.link_view).
    ``edges`` gives PyTorch's edges where they are not one per input (a convolution without
    bias still has an edge for it): see :attr:`Primitive.edges`. ``rows``: the result is laid
    out row by row whatever the input's layout, as PyTorch allocates a reduction's or a
    scan's (NumPy's follows a transposed input's), so that ``.view`` works on it as there;
    ``like_input``: the result of the first input's shape is laid out as that input (PyTorch's
    ``preserve_format``: a sort's values of a transposed input are transposed too);
    ``suggested``: a 4-D result is in the memory format the inputs suggest (channels-last
    where one of them is so: a convolution's or a pooling's), else row-major; a tuple of
    ranks (``(4, 5)``) says which results do so (PyTorch's CPU kernels of 5-D inputs differ
    from op to op). ``shows``: the op passes ``saved_as``, its arguments as the user gave them,
    which only ``grad_fn._saved_<name>`` reads (the rules never see it).
    """

    def __init__(
        self,
        name: str,
        forward: Callable,
        vjp: Callable,
        *,
        saves: tuple = (),
        saves_out: bool = False,
        reads: dict | None = None,
        backward: Any = None,
        kernel: Callable | None = None,
        formula: Any = None,
        jvp: Any = None,
        text: Any = None,
        batch: Any = None,
        devices: Any = None,
        numeric_vjp: Callable | None = None,
        edges: Any = None,
        rows: bool = False,
        like_input: bool = False,
        suggested: bool | tuple = False,
        shows: bool = False,
    ) -> None:
        self.name = name
        self.edges = edges  # PyTorch's edges, where not one per input (Primitive.edges)
        self.numeric_vjp = numeric_vjp
        if numeric_vjp is not None:  # (the others keep the protocol's apply: no call between)
            self.apply = self._apply_numeric  # type: ignore[method-assign]
        # where meta and CPU tensors meet: a function of the inputs' numbers of dimensions
        # giving the rule of _placed, or None for PyTorch's usual device check
        self.devices = devices
        # how vmap runs it on a batch at once (see symgrad.prim.batching); None: it can't
        self.batch = batch
        # how pictures write it: a writer function, COPIES, or a template of the derivative
        # along dim (see symgrad.prim.text.structural_text); None for the generic text
        self.text_rule = text
        # the forward-mode rule: "linear" (the op applied to the tangents), "bilinear" (the
        # product rule), a function jvp(xp, tangents, ctx), or None (not declared yet)
        self.jvp_rule = jvp
        if shows:
            forward, kernel = _given_left_out(forward), kernel and _given_left_out(kernel)
        self.forward = forward  # type: ignore[method-assign]
        # the numeric path: a faster or stabler NumPy version of forward, tested against it
        self.kernel = kernel or forward
        self.vjp = vjp  # type: ignore[method-assign]
        self.rows = rows
        self.like_input = like_input
        kernel = _row_major(self.kernel) if rows else self.kernel
        if like_input:
            kernel = _like_input(kernel)
        if suggested:
            kernel = _suggested(kernel, (4,) if suggested is True else tuple(suggested))
        self.numeric_forward = quiet(kernel)
        self.saved_inputs = saves
        self.reads = reads  # None: every gradient may read every saved input
        self._saves_flags: dict[int, tuple] = {}
        self.saves_out = saves_out
        self.formula = formula  # the element-wise formula of a fused op (a loss), for its text
        # PyTorch's node name: fixed, or chosen from the call (sum with or without dim)
        self.backward_name = backward
        self._node_cls = None if callable(backward) else node_class(self.node_name())

    def __repr__(self) -> str:
        return f"<structural primitive {self.name}>"

    def laid_out(self, array: Any, input: Any) -> Any:
        """``array``, another result of the op of ``input`` (a sort's indices), laid out as
        the op's own result is."""
        if self.rows:
            return row_major(array)
        return laid_out_like(array, input) if self.like_input else array

    def saves_flags(self, n: int) -> tuple:
        """For each of ``n`` inputs, whether the rule reads it (``saves``), cached per count."""
        flags = self._saves_flags.get(n)
        if flags is None:
            flags = self._saves_flags[n] = tuple(i in self.saved_inputs for i in range(n))
        return flags

    # -- the protocol ------------------------------------------------------------------------
    def saves(self, n: int) -> tuple[tuple, bool]:  # type: ignore[override]
        return self.saves_flags(n), self.saves_out

    def used_saves(self, needs: tuple) -> tuple:
        reads = self.reads
        if reads is None:
            return (True,) * len(needs)
        used = {j for i, need in enumerate(needs) if need for j in reads.get(i, ())}
        return tuple(j in used for j in range(len(needs)))

    def _apply_numeric(self, node: Any, grads: list, create_graph: bool) -> Any:
        """``apply`` of a primitive with a ``numeric_vjp``: that for a NumPy gradient, else the
        protocol's ``vjp`` (:meth:`Primitive.apply`)."""
        fast = self.numeric_vjp
        if create_graph or type(grads[0]) is not np.ndarray or len(grads) != 1:
            return Primitive.apply(self, node, grads, create_graph)
        arrays = []
        for s in node._unpack():  # a loop, not a comprehension: no frame of its own
            arrays.append(s._data if isinstance(s, Tensor) else s)
        needs = []
        for fn, _ in node._edges:
            needs.append(fn is not None)
        out = node._out if node._packed is None else node._packed.output(node)
        result = fast(grads[0], arrays, out, needs, node.params, node._meta)
        if result is None:  # a case the shortcut leaves to the rule
            return Primitive.apply(self, node, grads, False)
        return gradients_in(result, needs, node._meta)

    def jvp(self, xp: Any, tangents: tuple, ctx: Ctx) -> Any:
        """The output's tangent: for a linear op the op applied to the tangents (a missing one
        is zero), for a bilinear one the product rule, else the declared rule."""
        rule = self.jvp_rule
        if rule is None:
            return Primitive.jvp(self, xp, tangents, ctx)
        if all(t is None for t in tangents):
            return None
        if rule == "linear":
            args = [
                xp.constant(np.zeros(shape)) if t is None else t
                for t, shape in zip(tangents, ctx.shapes)
            ]
            return self.forward(xp, *args, **ctx.params)
        if rule == "bilinear":
            total = None
            for i, t in enumerate(tangents):
                if t is not None:
                    args = list(ctx.inputs)
                    args[i] = t
                    term = self.forward(xp, *args, **ctx.params)
                    total = term if total is None else total + term
            return total
        return rule(xp, tangents, ctx)

    def outputs(self, xp: Any, inputs: tuple, params: dict) -> tuple:
        rule = self.kernel if xp is NP else self.forward
        return (rule(xp, *inputs, **params),)

    def recompute(self, inputs: tuple, params: dict) -> tuple:
        return (self(*inputs, **params),)

    def local_formulas(self, node: Any) -> tuple:
        """The forward formula in the node's own input symbols ``x[i, j]``, ``y[i, j]``, and
        the VJP rule applied to a symbolic incoming gradient ``g[i, j]``: for each input, the
        gradient it receives."""
        from symgrad.prim import sympy_xp as sx

        names = _input_names(len(node._meta))
        xs = tuple(sx.symbol_array(n, m[0]) for n, m in zip(names, node._meta))
        env = {}
        for x, t in zip(xs, node._saved or ()):
            if t is not None:
                env.update(zip(x.flat, (sx.exact(v, as_float=True) for v in t._data.flat)))
        interp = sx.SX(_evaluator(env) if env else None)
        out = np.asarray(self.forward(interp, *xs, **node.params), dtype=object)
        g = sx.symbol_array("g", out.shape)
        ctx = Ctx(xs, out, tuple(m[0] for m in node._meta), (True,) * len(xs), node.params)
        grads = self.vjp(interp, g, ctx)
        return sx.to_sympy(out), tuple(
            None if v is None else sx.to_sympy(np.asarray(v, dtype=object)) for v in grads
        )

    def text(self, node: Any, names: list, symbols: list, outs: list, outputs: list, args: list):
        from symgrad.prim.text import structural_text

        shapes = [m[0] for m in node._meta]
        return structural_text(self, node.params, shapes, outs[0], names, symbols)

    def __call__(self, *tensors: Tensor, **params: Any) -> Tensor:
        if _batch_state.depth and any(type(t) is BatchedTensor for t in tensors):
            return batched_call(self, tensors, params, "structural")
        n = len(tensors)  # the arrays without a comprehension's frame: one or two mostly
        if n == 1:
            out = self.numeric_forward(NP, tensors[0]._data, **params)
        elif n == 2:
            out = self.numeric_forward(NP, tensors[0]._data, tensors[1]._data, **params)
        else:
            out = self.numeric_forward(NP, *[t._data for t in tensors], **params)
        return self.record(tensors, params, out)

    def record(self, tensors: tuple, params: dict, out: Any) -> Tensor:
        """The result tensor of ``out``, the forward's value for ``tensors`` and ``params``,
        with this primitive's node recorded when grad mode and the inputs call for one."""
        if type(out) is not np.ndarray or (_META_SEEN.any and _any_meta(tensors)):
            out = _as_output(out, tensors, self.devices)
        elif tensors and out is tensors[0]._data:
            # a kernel that changed nothing (squeeze of no size-1 dimension) returns its input
            # array: the result is a view of it, as in PyTorch, sharing memory and version
            out = out.view()
        if _anomaly_state.enabled and type(out) is np.ndarray:
            anomaly.check_forward(self, out, tensors, params)
        if _grad_state.enabled and _any_requires_grad(tensors):
            result = recorded(self, tensors, params, out)
            if self.devices is not None and _META_SEEN.any and _any_meta(tensors):
                _check_gradient_devices(result, tensors)
        else:
            result = Tensor._make(out)
            if NAMES.used:
                with_origin(self, tensors, params, result)
        if out.base is not None and tensors and shares_memory(out, tensors[0]._data):
            link_view(tensors[0], result, "view" if _grad_state.enabled else "no_grad")
        if _dual_state.level is not None and dual.active():
            return tangents.propagate(self, tensors, params, result)
        return result


def _row_major(kernel: Callable) -> Callable:
    """``kernel`` giving its array laid out row by row (a copy where NumPy's is not)."""

    def row_major(*args: Any, **kwargs: Any) -> Any:
        out = kernel(*args, **kwargs)
        return out.copy(order="C") if type(out) is np.ndarray and not owns_rows(out) else out

    return row_major


def _like_input(kernel: Callable) -> Callable:
    """``kernel`` giving its array laid out as its first array input (a copy where not)."""

    def like_input(xp: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        out = kernel(xp, a, *args, **kwargs)
        return laid_out_like(out, a)

    return like_input


def _suggested(kernel: Callable, ranks: tuple) -> Callable:
    """``kernel`` giving its array, of one of ``ranks``, in the memory format its array
    inputs suggest."""

    def suggested(xp: Any, *arrays: Any, **kwargs: Any) -> Any:
        return in_suggested_format(kernel(xp, *arrays, **kwargs), *arrays, ranks=ranks)

    return suggested


def _given_left_out(rule: Callable) -> Callable:
    """``rule`` called without the parameter ``saved_as`` (see ``Structural``'s ``shows``)."""

    def run(xp: Any, *arrays: Any, saved_as: tuple = (), **params: Any) -> Any:
        return rule(xp, *arrays, **params)

    return run


def reshaped_back(g: Any, arrays: list, out: Any, needs: list, params: Any, meta: tuple) -> tuple:
    """The ``numeric_vjp`` of a view that only reshapes (``view``, ``squeeze``, ...): the
    gradient in the input's shape (the rule's ``xp.reshape(g, c.shapes[0])``, on NumPy)."""
    return (g.reshape(meta[0][0]),)


def _any_meta(tensors: tuple) -> bool:
    for t in tensors:
        if type(getattr(t, "_data", None)) is MetaArray:
            return True
    return False


def _as_output(out: Any, tensors: tuple, devices: Any) -> np.ndarray:
    """``out`` as an array: a meta array when an input is a meta tensor (PyTorch's error
    when meta and CPU tensors meet, or, for an op whose ``devices`` rule says so, the device
    PyTorch's kernel gives the result)."""
    rule = None if devices is None else devices(tuple(t.ndim for t in tensors))
    if rule is not None and _any_meta(tensors):
        return _placed(out, tensors, rule)
    if check_devices(tensors):
        return meta_result(out)
    return np.asarray(out)


def _placed(out: Any, tensors: Any, rule: tuple) -> Any:
    """``out`` on the device PyTorch's kernel gives it where meta and CPU tensors meet an op
    that checks no devices itself (``mm``, ``bmm``, ``addmm``): ``rule`` is the index of the
    tensor whose device the result takes and the ``(expected, other)`` pairs of tensors that
    must share a device, checked in PyTorch's order. A CPU result of a meta operand is
    PyTorch's allocated, never computed, memory: zeros here."""
    index, pairs = rule
    for expected, other in pairs:
        first, second = tensors[expected]._data, tensors[other]._data
        if not isinstance(second, MetaArray) and second.ndim == 0:
            continue  # a CPU tensor of no dimensions counts as a number
        if isinstance(first, MetaArray) != isinstance(second, MetaArray):
            want, got = ("meta", "cpu") if isinstance(first, MetaArray) else ("cpu", "meta")
            raise RuntimeError(f"Tensor on device {got} is not on the expected device {want}!")
    if isinstance(tensors[index]._data, MetaArray):
        return meta_result(out)
    return np.zeros(np.shape(out), np.asarray(out).dtype)


def _check_gradient_devices(result: Tensor, tensors: tuple) -> None:
    """Where meta and CPU tensors met, every gradient comes out on the result's device, and
    PyTorch's engine refuses, at backward time, one for an input on the other device."""
    on_meta = type(result._data) is MetaArray
    for i, t in enumerate(tensors):
        if t._requires_grad and (type(t._data) is MetaArray) != on_meta:
            expected, got = ("meta", "cpu") if not on_meta else ("cpu", "meta")
            message = (
                f"Function {result.grad_fn.name()} returned an invalid gradient at index {i} - "
                f"expected device {expected} but got {got}"
            )

            result.grad_fn.register_prehook(_refusal(message))
            return
    if not on_meta:  # the CPU gradients PyTorch allocates and computes nothing into
        result.grad_fn.register_hook(_on_the_cpu)


def _on_the_cpu(grads_in: tuple, grads_out: tuple) -> tuple:
    return tuple(
        Tensor._make(np.zeros(g.shape, g._data.dtype))
        if g is not None and type(g._data) is MetaArray
        else g
        for g in grads_in
    )


def _refusal(message: str) -> Any:
    def refuse(grad_outputs: Any) -> None:
        raise RuntimeError(message)

    return refuse


def _any_requires_grad(tensors: tuple) -> bool:
    for t in tensors:
        if t._requires_grad:
            return True
    return False


def _input_names(n: int) -> tuple:
    return ("x", "y", "z")[:n] if n <= 3 else tuple(f"x{i}" for i in range(n))


def _evaluator(env: dict) -> Callable:
    def numeric(a: np.ndarray) -> np.ndarray:
        def value(e: Any) -> float:
            return float(sp.sympify(e, strict=True).xreplace(env))

        return np.vectorize(value, otypes=[float])(a)

    return numeric


def without_derivative(
    name: str, backward: str = "NotImplemented", refusal: Exception | None = None, edges: Any = None
) -> Structural:
    """A node (``NotImplemented``, as PyTorch names it) holding values its caller computed
    (``values=``) from its inputs, for an ATen op ``name`` that has no derivative: a
    backward pass through it raises PyTorch's error. A backward op whose derivative formula
    is ``not_implemented(...)`` has a node of its own name (``backward``) that raises
    ``refusal`` instead, with ``edges`` as :attr:`Primitive.edges`.

    Examples
    --------
    >>> import numpy as np
    >>> import symgrad
    >>> prim = without_derivative("_example_backward")
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = prim(x, values=np.array([2.0, 3.0]))
    >>> y.grad_fn.name()
    'torch::autograd::NotImplemented'
    >>> y.sum().backward()
    Traceback (most recent call last):
    ...
    RuntimeError: derivative for aten::_example_backward is not implemented
    """

    def refuse(xp: Any, g: Any, ctx: Ctx) -> tuple:
        if refusal is not None:
            raise type(refusal)(*refusal.args)  # a fresh one each time
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    def no_tangent(xp: Any, tangents: tuple, ctx: Ctx) -> Any:
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{name} that does not support it."
        )

    return Structural(
        name,
        lambda xp, *inputs, values: xp.constant(values),
        refuse,
        backward=backward,
        jvp=no_tangent,
        edges=edges,
    )
