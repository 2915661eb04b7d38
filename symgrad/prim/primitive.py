"""The primitive protocol, and what every primitive shares: node names, edges, operands and
gradient reduction.

An :class:`~symgrad.prim.elementwise.Elementwise` primitive is a SymPy expression of scalar
input symbols; a :class:`~symgrad.prim.structural.Structural` primitive is a forward and a VJP
rule written against an array namespace ``xp``; a custom ``Function`` is adapted to the same
protocol (:mod:`symgrad.autograd.function`). Every consumer of the graph (the engine, the
symbolic replay, pictures, derivations) asks the primitive of a node, handing it an
interpreter; none tells the kinds apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import cannot_convert, int_argument
from symgrad._meta import MetaArray, meta_array
from symgrad._tracing import TRACE, traced
from symgrad.autograd.current_pass import CURRENT, edge_needs
from symgrad.autograd.node import accumulator_of, node_class
from symgrad.autograd.placed import Placed
from symgrad.autograd.saved import ACTIVE as _hooks_active
from symgrad.autograd.saved_names import pack_node
from symgrad.prim.numpy_xp import NP, reduce_to, sum_to_numpy
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = [
    "Primitive",
    "Ctx",
    "camel",
    "input_records",
    "recorded",
    "as_operand",
    "with_origin",
    "int_overflow",
    "reduce_to",
    "sum_to_numpy",
    "meta_gradients",
    "gradients_in",
]


class Ctx:
    """What a VJP or JVP rule sees of one node: its inputs and output (arrays, tensors or
    SymPy arrays, as the interpreter has them), the inputs' shapes, which inputs need a
    gradient, the call's parameters, and which output the gradient is for.

    The shapes may be given directly or as the node's ``(shape, dtype)`` records (``meta``),
    read only when a rule asks for them."""

    __slots__ = ("inputs", "out", "_shapes", "_meta", "needs", "params", "output")

    def __init__(
        self,
        inputs: Any,
        out: Any,
        shapes: Any,
        needs: Any,
        params: Any,
        output: int = 0,
        meta: Any = None,
    ) -> None:
        self.inputs = inputs
        self.out = out
        self._shapes = shapes
        self._meta = meta
        self.needs = needs
        self.params = params
        self.output = output

    @property
    def shapes(self) -> Any:
        """The shape of each input (None for a number)."""
        if self._shapes is None:
            self._shapes = [None if m is None else m[0] for m in self._meta]
        return self._shapes


class Primitive:
    """The protocol every primitive answers (the subclasses fill it in).

    - ``forward(xp, *inputs, **params)``: the op's meaning on interpreter ``xp``;
    - ``outputs(xp, inputs, params)``: the same for a node's recorded ``params``, as a tuple;
    - ``vjp(xp, g, ctx)``: one gradient per input (None where ``ctx.needs`` is False);
    - ``jvp(xp, tangents, ctx)``: the output's tangent from the inputs' (None: no tangent);
    - ``node_name(params, shapes)``: PyTorch's name for the node;
    - ``text(...)``: the formula and derivative labels of pictures;
    - ``local_formulas(node)``: the node's formula and local derivatives in SymPy;
    - ``domain``: where the tests sample each input.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.prim.numpy_xp import NP
    >>> x = symgrad.ones(2, 3, requires_grad=True)
    >>> node = x.sum(1).grad_fn
    >>> node.prim.name, node.name(), node.params["dim"], node.params["keepdim"]
    ('sum', 'SumBackward1', (1,), False)
    >>> node.prim.forward(NP, x.detach().numpy(), **node.params)
    array([3., 3.], dtype=float32)
    """

    name: str = "primitive"
    domain: Any = None
    batch: Any = None  # vmap's batching rule (symgrad.prim.batching), None where there is none
    backward_name: Any = None
    _node_cls: Any = None  # the node class, when the name does not depend on the call
    # PyTorch's edges (``next_functions``) where they are not the inputs one for one: for
    # each, the position of the input it leads from, or None for an optional tensor left out
    # (a convolution's bias); a tuple, or a function of the node giving one. None: one edge
    # per input, in order.
    edges: Any = None
    _needs: Any = None  # what saves() answers whatever the call, once known (element-wise)

    # -- names ----------------------------------------------------------------------------------
    def node_name(self, params: Any = None, shapes: Any = None) -> str:
        """PyTorch's name for this op's node (``MulBackward0``)."""
        given = self.backward_name
        if callable(given):
            return given(params, shapes)
        return given or f"{camel(self.name)}Backward0"

    # -- recording (see recorded()) -------------------------------------------------------------
    def saves(self, n: int) -> tuple[tuple, bool]:
        """(for each of ``n`` inputs whether the VJP reads it, whether it reads the output)."""
        return (True,) * n, True

    def used_saves(self, needs: tuple) -> tuple:
        """For each input, whether the backward reads its saved value when the inputs where
        ``needs`` is True need a gradient (PyTorch saves only those)."""
        return (True,) * len(needs)

    # -- the backward rule, on the engine's interpreters -------------------------------------------
    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        """The node's input gradients from its output gradients: ``vjp`` on NumPy, or on
        recorded tensors under ``create_graph`` (so the gradients are differentiable)."""
        # this runs once per node of every backward pass: loops rather than comprehensions
        # (no frame of their own) and no call where an attribute does
        saved = node._unpack()
        out_array = node._out if node._packed is None else node._packed.output(node)
        meta = node._meta
        if CURRENT.partial:  # grad(): the gradients leading to the inputs asked for only
            needs = edge_needs(node)
        else:
            needs = []
            for fn, _ in node._edges:
                needs.append(fn is not None)
        if create_graph:
            out = Tensor._make(out_array, node, True) if out_array is not None else None
            if out is not None:
                out._fw = node._out_fw  # forward-over-reverse: the output's tangent too
            ctx = Ctx(saved, out, None, needs, node.params, meta=meta)
            result = self.vjp(INTERPRETERS.tensor, grads[0], ctx)
            return tuple(_as_input_tensor(r, n, m) for r, n, m in zip(result, needs, meta))
        if (len(grads) != 1 or type(grads[0]) is not np.ndarray) and _any_meta(grads):
            # meta gradients: the inputs' shapes and dtypes, no values
            return [meta_array(*m) if n else None for n, m in zip(needs, meta)]
        inputs = []
        for s in saved:
            inputs.append(s._data if isinstance(s, Tensor) else s)
        result = self.vjp(NP, grads[0], Ctx(inputs, out_array, None, needs, node.params, 0, meta))
        return gradients_in(result, needs, meta)

    def vjp(self, xp: Any, g: Any, ctx: Ctx) -> tuple:
        raise NotImplementedError(f"{self.name} has no backward rule")

    def jvp(self, xp: Any, tangents: tuple, ctx: Ctx) -> Any:
        raise NotImplementedError(
            f"{self.name} has no forward-mode rule yet: its tangent can't be computed"
        )

    # -- what consumers other than the engine ask ------------------------------------------------
    def outputs(self, xp: Any, inputs: tuple, params: Any) -> tuple:
        raise NotImplementedError(f"{self.name} can't be replayed on another interpreter")

    def recompute(self, inputs: tuple, params: Any) -> tuple:
        """The outputs again from the inputs' values (tensors or numbers), not recorded."""
        raise NotImplementedError(f"{self.name} can't be recomputed")

    def scalar_partial(self, i: int, inputs: tuple, params: Any) -> Any:
        """The local derivative by input ``i`` at one-element symbolic ``inputs``, or None
        where the op has no scalar formula (the derivation then shows the adjoint step)."""
        return None

    def local_formulas(self, node: Any) -> tuple:
        raise AttributeError(f"{node.name()} has no formula")

    def text(self, node: Any, names: list, symbols: list, outs: list, outputs: list, args: list):
        """The forward formula lines and, per input, the derivative label of a picture."""
        return [], []


def gradients_in(result: Any, needs: list, meta: tuple) -> list:
    """A numeric rule's ``result`` as the node's input gradients: None where an input needs
    none, else summed to the input's shape and cast to its dtype where they differ."""
    grads = []
    for r, n, m in zip(result, needs, meta):  # (once per node of every backward pass)
        if r is None or not n:
            r = None
        elif type(r) is not np.ndarray or r.shape != m[0] or r.dtype != m[1]:
            if type(r) is not Placed or r.dtype != m[1]:  # (a Placed has its input's shape)
                r = reduce_to(r.array() if type(r) is Placed else r, m[0], m[1])
        grads.append(r)
    return grads


def meta_gradients(node: Any, grads: Any) -> list | None:
    """When a gradient reaching ``node`` is a meta array: meta gradients of the inputs'
    shapes and dtypes for the inputs that need one (the rule is not run: there are no values).
    None otherwise."""
    if not _any_meta(grads):
        return None
    return [None if fn is None else meta_array(*m) for (fn, _), m in zip(node._edges, node._meta)]


def _any_meta(grads: list) -> bool:
    for g in grads:
        if type(g) is MetaArray:
            return True
    return False


def _as_input_tensor(g: Any, need: bool, meta: Any) -> Any:
    """A create_graph gradient summed to its input's shape and cast to its dtype."""
    if g is None or not need:
        return None
    shape, dtype = meta
    if g.shape != shape:
        g = INTERPRETERS.tensor.sum_to_size(g, shape)
    if g._data.dtype != dtype:
        g = g.to(dtypes.from_numpy_dtype(dtype))
    return g


def int_overflow(op: str, operands: Any, np_dtype: Any) -> RuntimeError:
    """PyTorch's error for a Python int among ``operands`` that ``np_dtype`` (an integer
    dtype) can't hold, given to a parameter PyTorch converts with a range check (``clamp``'s
    bounds, ``pow``'s exponent; operands wrap around instead, see ``_data.in_dtype``)."""
    info = np.iinfo(np_dtype)
    big = [v for v in operands if type(v) is int and not info.min <= v <= info.max]
    return cannot_convert(f"{op}()", big[0] if big else "a number", np_dtype)


def camel(name: str) -> str:
    """``log_softmax`` -> ``LogSoftmax`` (PyTorch's node-name spelling)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


_NO_EDGE = (None, 0)


def _as_made(a: Tensor) -> Tensor:
    """Data made from named tensors, as a node reads it: its provenance now, which a later
    in-place change of ``a`` (rebasing ``a``'s own) leaves as it was for this node."""
    made = Tensor._make(a._data)
    made._origin, made._output_nr = a._origin, a._output_nr
    return made


def _record(a: Any, k: Any) -> tuple:
    """One input's part of :func:`input_records`: its edge, saved value, version, (shape,
    dtype), constant, and itself if it is a leaf the node holds (else None)."""
    if type(a) is Tensor or isinstance(a, Tensor):  # identity first: the common case
        data = a._data
        saved, version = (a, a._counter.value) if k else (None, None)
        if not a._requires_grad:
            if a._origin is not None and TRACE.log is None:
                a = _as_made(a)
            return _NO_EDGE, saved, version, (data.shape, data.dtype), a, None
        fn = a.grad_fn
        if fn is None:
            shared = a._view_base
            if shared is not None and shared[1] == "no_grad":  # a view made under no_grad
                return _NO_EDGE, saved, version, (data.shape, data.dtype), None, None
            return (accumulator_of(a), 0), saved, version, (data.shape, data.dtype), None, a
        return (fn, a._output_nr), saved, version, (data.shape, data.dtype), None, None
    return _NO_EDGE, a, None, None, a, None


def input_records(inputs: tuple, keep: Any) -> tuple[tuple, tuple, tuple, tuple, tuple, Any]:
    """What a node records of its inputs: edges, saved values (tensors where ``keep`` says so,
    numbers always), their versions, their (shape, dtype), the constants (inputs that do not
    require grad, kept for the symbolic replay) and the leaves it holds (or None).

    All are tuples: the cyclic garbage collector stops watching a tuple of numbers, shapes
    and dtypes (a list it watches for ever), and a graph holds one set per node."""
    # this runs once per recorded op, so it is kept tight: one or two inputs (most ops) make
    # the tuples at once, more go through lists
    n = len(inputs)
    if n == 1:
        e0, s0, v0, m0, c0, l0 = _record(inputs[0], keep[0])
        return (e0,), (s0,), (v0,), (m0,), (c0,), None if l0 is None else (l0,)
    if n == 2:
        e0, s0, v0, m0, c0, l0 = _record(inputs[0], keep[0])
        e1, s1, v1, m1, c1, l1 = _record(inputs[1], keep[1])
        if l0 is None:
            held = None if l1 is None else (l1,)
        else:
            held = (l0,) if l1 is None else (l0, l1)
        return (e0, e1), (s0, s1), (v0, v1), (m0, m1), (c0, c1), held
    if not n:
        return (), (), (), (), (), None
    edges, saved, versions, meta, consts, leaves = zip(*map(_record, inputs, keep))
    held = tuple([leaf for leaf in leaves if leaf is not None]) or None
    return edges, saved, versions, meta, consts, held


def recorded(prim: Primitive, inputs: tuple, params: Any, out: np.ndarray) -> Tensor:
    """The tensor holding ``out`` with a new node of ``prim`` as its ``grad_fn``."""
    # make_node's work, inline: this runs once per recorded op
    keep, keep_out = prim._needs or prim.saves(len(inputs))
    if len(inputs) == 1:  # (input_records' one-input case, one call fewer: most ops)
        e0, s0, v0, m0, c0, l0 = _record(inputs[0], keep[0])
        edges, saved, versions, meta, consts = (e0,), (s0,), (v0,), (m0,), (c0,)
        held = None if l0 is None else (l0,)
    else:
        edges, saved, versions, meta, consts, held = input_records(inputs, keep)
    cls = prim._node_cls or node_class(prim.node_name(params, meta))
    node = cls(
        prim,
        params,
        edges,
        saved,
        out if keep_out else None,
        versions,
        meta,
        consts,
        held,
    )
    result = Tensor._make(out, node, True)
    if node._out is not None:  # the node saved its output: watch it for in-place changes
        node._out_version = (result._counter, 0)
    if _hooks_active.count:  # saved_tensors_hooks: the node keeps what pack_hook returns
        pack_node(node, (result,))
    if TRACE.log is not None:  # symgrad.compile is tracing
        TRACE.log.append((node, result, (out,)))
        TRACE.nodes.add(id(node))
    return result


def with_origin(prim: Primitive, inputs: tuple, params: Any, result: Tensor) -> Tensor:
    """``result`` of an op that recorded no node: when a named tensor, or one made from named
    tensors, is among ``inputs`` (none requiring grad), it keeps the op as its provenance, so
    closed forms show it in the names rather than as a number. Called only once some tensor
    has a name (``tensor.NAMES.used``), and always while ``symgrad.compile`` traces."""
    if TRACE.log is not None:
        return _traced_origin(prim, inputs, params, result)
    derived = False
    for a in inputs:
        if isinstance(a, Tensor):
            if a._requires_grad:
                return result  # made under no_grad from a tensor requiring grad: detached data
            derived = derived or a._name is not None or a._origin is not None
    if derived:
        edges, saved, versions, meta, consts, held = input_records(inputs, (False,) * len(inputs))
        cls = prim._node_cls or node_class(prim.node_name(params, meta))
        result._origin = cls(prim, params, edges, saved, None, versions, meta, consts)
    return result


def _traced_origin(prim: Primitive, inputs: tuple, params: Any, result: Tensor) -> Tensor:
    """``result`` made without a node from ``inputs`` during a trace: when one of them holds
    traced values, the op is kept as ``result``'s origin and joins the trace."""
    if any(isinstance(a, Tensor) and traced(a) for a in inputs):
        edges, saved, versions, meta, consts, held = input_records(inputs, (False,) * len(inputs))
        cls = prim._node_cls or node_class(prim.node_name(params, meta))
        node = cls(prim, params, edges, saved, None, versions, meta, consts)
        result._origin = node
        TRACE.log.append((node, result, (result._data,)))
        TRACE.nodes.add(id(node))
    return result


def as_operand(value: Any, op: str) -> Any:
    """A Tensor or a real Python number; anything else is a clear TypeError, an int beyond
    64 bits an OverflowError (as in PyTorch)."""
    if isinstance(value, (Tensor, bool, float, np.number, np.bool_)):
        return value
    if isinstance(value, int):
        return int_argument(value, f"{op}()")
    if isinstance(value, np.ndarray):
        from symgrad.creation import as_tensor

        return as_tensor(value)
    raise TypeError(
        f"{op}(): expected Tensor or number arguments, got {type(value).__name__} ({value!r:.60})"
    )
