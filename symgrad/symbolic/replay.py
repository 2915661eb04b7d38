"""Replaying a recorded graph with the symbolic interpreter, forwards and backwards.

Every node output becomes an object array of SymPy expressions. In assignment form
(``cse=True``) each non-trivial element is replaced by a fresh symbol (``v3[0, 1]``) with its
definition kept in order, like ``sympy.cse`` output: the result then grows linearly with the
graph, however deep it is. Inline form substitutes everything into one tree per element.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad._symbol_names import name_symbol
from symgrad._unrecorded import check_read
from symgrad.autograd.function import check_formula_shapes
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.autograd.order import collect, leading_to, topological_order
from symgrad.ops.rounding import stored_values
from symgrad.prim.primitive import Ctx
from symgrad.prim.sympy_build import real_symbol, total, traced_float
from symgrad.prim.sympy_xp import SX, ElementSymbol, _objects, exact
from symgrad.symbolic.names import (
    constant_array,
    is_symbolic,
    leaf_name,
    output_name,
    symbol_array_of,
)
from symgrad.symbolic.nesting import (
    BACKWARD,
    DEPTH_MESSAGE,
    FORWARD,
    MAX_INLINE_DEPTH,
    SymbolicDepthError,
    depth_of,
    growth,
)
from symgrad.tensor import Tensor

__all__ = ["Replay", "SymbolicDepthError"]


def backward_order(roots: list[Node]) -> list[Node]:
    """The nodes reachable from ``roots``, each after every node that feeds it a gradient."""
    deps, _ = collect(roots)
    return topological_order(roots, deps)


class Replay:
    """Symbolic values of the tensors of one graph, and reverse accumulation over it."""

    def __init__(
        self,
        cse: bool = False,
        as_float: bool = False,
        names: dict | None = None,
        every_step: bool = False,
        lazy: bool | None = None,
    ) -> None:
        self.cse = cse
        # gradients build only the values their rules read; in assignment form too if asked
        # (its definitions then come in the order they are needed: automatic names differ)
        self.lazy = not cse if lazy is None else lazy
        self.every_step = every_step  # in assignment form, name negations (-v1) too
        self.names = names or {}  # {(node, output_nr): name} beyond the tensors' own
        self.as_float = as_float
        self.definitions: list[tuple[sp.Symbol, sp.Expr]] = []
        self.values: dict[tuple[Node, int], np.ndarray] = {}
        self.sx = SX(self._numeric)
        self._numeric_values: dict[sp.Symbol, float] = {}
        self._evaluated = 0  # definitions whose numeric value is known
        self._names = {"v": 0, "g": 0}
        self.leaves: dict[int, Tensor] = {}  # the symbolic tensors met, in order
        self._owners: dict[str, Tensor] = {}  # symbol name -> the tensor it stands for
        self._depths: dict[sp.Basic, int] = {}  # the nesting of the closed forms measured
        self._deep: dict[int, tuple] = {}  # id of an array -> (array, bound on its depth)
        self._symbols: dict[int, np.ndarray] = {}  # by id of a tensor in self.leaves

    # -- forward ---------------------------------------------------------------------------------
    def value(self, t: Tensor) -> np.ndarray:
        """The object array of expressions for tensor ``t``."""
        if t.grad_fn is None:
            return self._leaf(t)
        self.forward(t.grad_fn)
        return self.values[(t.grad_fn, t._output_nr)]

    def forward(self, root: Node) -> None:
        """Compute the symbolic outputs of ``root`` and of every node it depends on."""
        for node in reversed(backward_order([root])):
            if isinstance(node, AccumulateGrad) or (node, 0) in self.values:
                continue
            self._evaluate_node(node)

    def input(self, node: Node, i: int) -> np.ndarray:
        """The symbolic value of input ``i`` of ``node``."""
        fn, nr = node._edges[i]
        if fn is None:
            const = node._consts[i] if i < len(node._consts) else None
            if isinstance(const, Tensor):
                return self._leaf(const)
            if const is None:
                raise ValueError(f"{node.name()} did not keep its input {i}")
            return constant_array(const, self.as_float)
        if isinstance(fn, AccumulateGrad):
            return self._leaf(fn._leaf)
        check_read(node, i)
        value = self.values.get((fn, nr))
        if value is None:  # (inline gradients compute the values they read only)
            self._compute(fn)
            value = self.values[(fn, nr)]
        return value

    def _compute(self, root: Node) -> None:
        """The symbolic outputs of ``root`` and of the nodes it depends on that are not known
        yet (depth first: in assignment form, :meth:`forward` keeps the graph's order)."""
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if (node, 0) in self.values:
                continue
            if not ready:
                stack.append((node, True))
                stack.extend(
                    (fn, False)
                    for fn, _ in node._edges
                    if fn is not None and not isinstance(fn, AccumulateGrad)
                )
                continue
            self._evaluate_node(node)

    def _evaluate_node(self, node: Node) -> None:
        """The symbolic outputs of ``node``, its inputs' values known or computed."""
        args = [self.input(node, i) for i in range(len(node._edges))]
        outs = self._guard(lambda: self._apply(node, args), node, args, FORWARD)
        for nr, out in enumerate(outs):
            name = self.names.get((node, nr)) or output_name(node, nr)
            # for a derivation (every_step) a tensor that is another's element (x[1], a
            # maximum) is a step of its own, not that tensor
            self.values[(node, nr)] = self._assign(out, "v", name, symbols=self.every_step)

    def _leaf(self, t: Tensor) -> np.ndarray:
        if not is_symbolic(t):
            if t._origin is not None:  # data made from named tensors: in their names
                return self._derived(t)
            return constant_array(t, self.as_float)
        self.leaves.setdefault(id(t), t)
        arr = self._symbols.get(id(t))
        if arr is not None:
            return arr
        arr = self._new_symbols(t)
        name = leaf_name(t) if arr.size else None
        owner = self._owners.setdefault(name, t)
        if owner is not t:
            raise ValueError(
                f"two different tensors are both named {name!r} (shapes {list(owner.shape)} "
                f"and {list(t.shape)}): their symbols would be confused; rename one"
            )
        self._remember_values(arr, t)
        self._symbols[id(t)] = arr
        return arr

    def _new_symbols(self, t: Tensor) -> np.ndarray:
        """The symbols of the named (or requiring grad) leaf ``t``, first met."""
        return symbol_array_of(t)

    def _remember_values(self, symbols: np.ndarray, t: Tensor) -> None:
        """Keep the values of ``t``'s elements, for rules that pick elements by value."""
        for s, v in zip(symbols.flat, t._data.flat):
            self._numeric_values[s] = float(v)

    def _derived(self, t: Tensor) -> np.ndarray:
        """The value of ``t``, made without a grad_fn by ``t._origin`` from named tensors."""
        node = t._origin
        if (node, 0) not in self.values:
            self._evaluate_node(node)
        value = self.values[(node, t._output_nr)]
        if _wraps(node, t.dtype):
            # integer data: wrapped into its dtype's range as it is stored (int8 127 + 1 is
            # -128, bool True + True is True)
            value = _objects(stored_values(self.sx, value, t.dtype))
        return value

    def _apply(self, node: Node, args: list) -> tuple:
        outs = tuple(_objects(v) for v in node.prim.outputs(self.sx, tuple(args), node.params))
        check_formula_shapes(node, outs)
        return outs

    def _assign(
        self, arr: np.ndarray, prefix: str, name: str | None = None, symbols: bool = False
    ) -> np.ndarray:
        """In assignment form, give every non-trivial element a symbol with its definition:
        ``name`` (the tensor's own) or the next automatic ``v1``, ``v2``, ... With
        ``symbols``, an element that is a symbol is given one too."""
        if not self.cse:
            return arr
        if name is None:
            self._names[prefix] += 1
            name = f"{prefix}{self._names[prefix]}"
        out = np.empty(arr.shape, dtype=object)
        for index in np.ndindex(*arr.shape):
            e = sp.sympify(arr[index], strict=True)
            if (e.is_Atom and not (symbols and e.is_Symbol)) or (
                _negated_atom(e) and not self.every_step
            ):
                out[index] = e
                continue
            label = name if not arr.shape else f"{name}[{', '.join(map(str, index))}]"
            s = real_symbol(ElementSymbol, label) if arr.shape else name_symbol(label, real=True)
            self.definitions.append((s, e))
            out[index] = s
        return out

    # -- backward --------------------------------------------------------------------------------
    def adjoints(self, root: Tensor, seed: np.ndarray, targets: list[Tensor]) -> list:
        """Reverse accumulation from ``root`` (incoming gradient ``seed``): the gradient
        reaching each target, or None where none does."""
        spots = {}
        for k, t in enumerate(targets):
            spots.setdefault(_spot(t), []).append(k)
        result: list = [None] * len(targets)
        if root.grad_fn is None:
            for k in spots.get(_spot(root), []):
                result[k] = seed
            return result
        if not self.lazy:  # every value, the definitions in the graph's order
            self.forward(root.grad_fn)
        order = backward_order([root.grad_fn])
        deps, _ = collect([root.grad_fn])
        # named constants have no edge: the nodes that use them are targets themselves
        users = {
            n for n in order if any(_constant_spot(n, i) in spots for i in range(len(n._edges)))
        }
        useful = leading_to(order, deps, {n for n, _ in spots} | users) | users
        # the gradients reaching each output, summed once all have arrived
        adjoint: dict[tuple[Node, int], list] = {(root.grad_fn, root._output_nr): [seed]}
        for node in order:
            for nr in range(node.num_outputs):
                g = self._total(adjoint.pop((node, nr), None))
                if g is not None and (node, nr) in spots:
                    for k in spots[(node, nr)]:
                        result[k] = g
                if g is None or node not in useful or isinstance(node, AccumulateGrad):
                    continue
                g = self._assign(g, "g")
                wanted = tuple(
                    fn is not None or _constant_spot(node, i) in spots
                    for i, (fn, _) in enumerate(node._edges)
                )
                grads = self._guard(
                    lambda n=node, g=g, nr=nr, w=wanted: self._vjp(n, g, nr, w),
                    node,
                    lambda n=node, g=g, nr=nr: [
                        *(self._known_input(n, i) for i in range(len(n._edges))),
                        self.values.get((n, nr)),
                        g,
                    ],
                    BACKWARD,
                )
                for i, ((fn, fnr), gi) in enumerate(zip(node._edges, grads)):
                    if fn is None and gi is not None:
                        for k in spots.get(_constant_spot(node, i), []):
                            result[k] = (
                                gi
                                if result[k] is None
                                else _objects(np.asarray(result[k] + gi, dtype=object))
                            )
                    if fn is None or gi is None:
                        continue
                    key = (fn, fnr)
                    adjoint.setdefault(key, []).append(gi)
        return result

    def _vjp(self, node: Node, g: np.ndarray, nr: int, needs: tuple | None = None) -> tuple:
        if needs is None:
            needs = tuple(fn is not None for fn, _ in node._edges)
        reads = _reads(node.prim, needs) if self.lazy else None
        if reads is None:
            args = [self.input(node, i) for i in range(len(node._edges))]
            out = self._output(node, 0)
        else:  # the values the rule reads (zeros for the others: their shapes)
            uses, uses_out = reads
            args = [
                self.input(node, i) if used or node._edges[i][0] is None else self._zeros(node, i)
                for i, used in enumerate(uses)
            ]
            out = self._output(node, 0) if uses_out else None
        shapes = tuple(np.shape(a) for a in args)
        if hasattr(node.prim, "n_outputs"):  # a factorization: its rule takes every output
            out = tuple(self._output(node, k) for k in range(node.prim.n_outputs))
        ctx = Ctx(tuple(args), out, shapes, needs, node.params, nr)
        grads = node.prim.vjp(self.sx, g, ctx)
        # element-wise rules give gradients in the output's (broadcast) shape
        return tuple(
            None if v is None else self.sx.sum_to_size(_objects(v), shape)
            for v, shape in zip(grads, shapes)
        )

    def _output(self, node: Node, nr: int) -> np.ndarray:
        if (node, nr) not in self.values:
            self._compute(node)
        return self.values[(node, nr)]

    def _zeros(self, node: Node, i: int) -> np.ndarray:
        """A stand-in for an input no rule reads: zeros of its shape."""
        return np.full(node._meta[i][0], sp.S.Zero, dtype=object)

    def _known_input(self, node: Node, i: int) -> np.ndarray | None:
        """Input ``i`` of ``node`` if its value is known (or a leaf's or a constant's)."""
        fn, nr = node._edges[i]
        if fn is None or isinstance(fn, AccumulateGrad):
            return self.input(node, i)
        return self.values.get((fn, nr))

    # -- numbers, for rules that pick elements by value --------------------------------------------
    def _numeric(self, arr: np.ndarray) -> np.ndarray:
        out = np.empty(arr.shape, dtype=float)
        for index in np.ndindex(*arr.shape):
            out[index] = self._evaluate(sp.sympify(arr[index], strict=True))
        return out

    def _evaluate(self, e: sp.Expr) -> float:
        missing = [s for s in e.free_symbols if s not in self._numeric_values]
        if missing:
            self._evaluate_definitions()
        return traced_float(e.xreplace({s: self._numeric_values[s] for s in e.free_symbols}))

    def _evaluate_definitions(self) -> None:
        for s, d in self.definitions[self._evaluated :]:
            self._numeric_values[s] = traced_float(
                d.xreplace({f: self._numeric_values[f] for f in d.free_symbols})
            )
        self._evaluated = len(self.definitions)

    # -- depth ------------------------------------------------------------------------------------
    def _guard(self, compute: Any, node: Node, inputs: Any, way: int) -> Any:
        """``compute()``, checked for nesting deeper than :data:`MAX_INLINE_DEPTH` (inline
        closed forms only). An element-wise rule nests its results at most as deep as its
        formula over its inputs' depths: that bound, when low enough, spares measuring them.
        ``inputs``: the rule's input arrays, or a function giving them (asked only inline)."""
        try:
            result = compute()
        except RecursionError:
            raise SymbolicDepthError(DEPTH_MESSAGE) from None
        if self.cse:
            return result
        grow = growth(node.prim, way)
        bound = None
        if grow is not None:
            inputs = inputs() if callable(inputs) else inputs
            bound = grow + max((self._depth_of(a) for a in inputs if a is not None), default=0)
        for arr in result:
            if arr is None:
                continue
            # SymPy's own evaluation may rewrite a formula a few levels deeper (tanh(asinh(x))
            # is x/sqrt(x**2 + 1)): the bound is trusted with a wide margin only
            depth = bound if bound is not None and bound <= MAX_INLINE_DEPTH // 4 else None
            if depth is None:
                depth = depth_of(arr, self._depths)
            else:  # the elements' bound, for measuring the trees that hold them later
                known = self._depths
                for e in arr.flat:
                    known.setdefault(e, depth)
            if depth > MAX_INLINE_DEPTH:
                raise SymbolicDepthError(DEPTH_MESSAGE)
            self._deep[id(arr)] = (arr, depth)
        return result

    def _depth_of(self, arr: Any) -> int:
        """A bound on the nesting of the elements of ``arr`` (measured if not known)."""
        known = self._deep.get(id(arr))
        if known is not None and known[0] is arr:
            return known[1]
        depth = depth_of(np.asarray(arr, dtype=object), self._depths)
        self._deep[id(arr)] = (arr, depth)
        return depth

    def _total(self, arrays: list | None) -> np.ndarray | None:
        """The sum of the gradients reaching one output (:func:`_total`; a method, for other
        backends' own), with its depth known from its terms' when they are."""
        out = _total(arrays)
        if not self.cse and arrays and len(arrays) > 1:
            depth = 1 + max(self._depth_of(a) for a in arrays)
            if depth <= MAX_INLINE_DEPTH // 4:
                self._deep[id(out)] = (out, depth)
        return out


def _total(arrays: list | None) -> np.ndarray | None:
    """The element-wise sum of gradients of one shape: one ``Add`` per element (the same
    expression as adding them pairwise, built once)."""
    if not arrays or len(arrays) == 1:
        return arrays[0] if arrays else None
    arrays = np.broadcast_arrays(*(_objects(a) for a in arrays))
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(*out.shape):
        out[index] = total([a[index] for a in arrays])
    return out


def _reads(prim: Any, needs: tuple) -> tuple | None:
    """(which inputs, whether the output) the rule of ``prim`` reads when the inputs where
    ``needs`` is True want a gradient: what the node saves for them (its primitive's
    ``saves`` and ``used_saves``); None where that is not declared per input."""
    keep, keep_out = prim.saves(len(needs))
    if len(keep) != len(needs):
        return None
    used = prim.used_saves(needs)
    return tuple(k and u for k, u in zip(keep, used)), keep_out


def _wraps(node: Node, dtype: Any) -> bool:
    """Whether ``node`` computes in the narrow integer (or bool) ``dtype`` of its output, an
    arithmetic that wraps around (a conversion into it wraps by its own rule)."""
    if dtype.is_floating_point or dtype.is_complex or dtype.itemsize == 8:
        return False
    return any(m is not None and m[1] == dtype.numpy for m in node._meta)


def _negated_atom(e: sp.Basic) -> bool:
    """``-e`` is an atom (``e`` is ``-x``): checked without negating ``e``, which for a large
    sum builds a new one."""
    return e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Atom


def _constant_spot(node: Node, i: int) -> tuple | None:
    const = node._consts[i] if i < len(node._consts) else None
    return ("constant", id(const)) if isinstance(const, Tensor) else None


def _spot(t: Tensor) -> tuple:
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    from symgrad.autograd.node import accumulator_of

    return (accumulator_of(t), 0) if t._requires_grad else ("constant", id(t))


def seed_ones(shape: tuple) -> np.ndarray:
    """The incoming gradient 1 for every element of ``shape``."""
    out = np.empty(shape, dtype=object)
    out.fill(exact(1))
    return out
