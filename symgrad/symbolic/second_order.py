"""Hessians by forward mode over reverse mode, on the assignment form of the gradient.

The graph is replayed once in assignment form: every node's value and every gradient reaching
a node is a symbol with a short definition (``v2[0] = sin(v1[0])``, ``g3[0] = cos(v1[0])``).
The gradient is then differentiated by one forward sweep over those definitions, in order: a
definition's tangent is the sum, over the symbols it uses, of its local partial (``diff`` of
that one short definition) times their tangents. Tangents are sparse, a map from the inputs'
elements to expressions, so an element that depends on few inputs costs little: the sweep is
linear in the size of the graph times the number of inputs each element depends on, never a
``diff`` of a whole formula per pair of variables.

Inline, each symbol's closed form is built once from its definition and the closed forms it
uses, and the partials are read in those closed forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad._symbol_names import name_symbol
from symgrad.prim.sympy_build import product, substitute
from symgrad.prim.sympy_build import total as add_terms
from symgrad.symbolic.names import symbol_array_of
from symgrad.symbolic.nesting import DEPTH_MESSAGE, MAX_INLINE_DEPTH, SymbolicDepthError
from symgrad.symbolic.replay import Replay, seed_ones
from symgrad.tensor import Tensor

__all__ = ["hessian_sweep", "NoClosedSecondOrder"]


class NoClosedSecondOrder(ValueError):
    """A local derivative SymPy leaves unevaluated: the caller takes another route."""


class _Sweep:
    """Tangents (input column -> expression) of the symbols of one assignment form."""

    def __init__(self, cse: bool) -> None:
        self.cse = cse
        self.tangent: dict[sp.Symbol, dict[int, Any]] = {}
        self.inline: dict[sp.Symbol, Any] = {}  # inline only: each symbol's closed form
        self.depth: dict[sp.Symbol, int] = {}
        self.named: dict[Any, sp.Symbol] = {}  # assignment form: definition -> its symbol
        self.definitions: list[tuple[sp.Symbol, Any]] = []  # the tangents' own, in order
        self._count = 0

    def seed(self, symbols: list, first_column: int) -> None:
        for k, s in enumerate(symbols):
            self.tangent[s] = {first_column + k: sp.Integer(1)}

    def define(self, s: sp.Symbol, d: Any) -> None:
        """Add the definition ``s = d``: its closed form inline, and its tangent."""
        if not self.cse:
            self.depth[s] = self._depth(d)
            if self.depth[s] > MAX_INLINE_DEPTH:
                raise SymbolicDepthError(DEPTH_MESSAGE)
            self.inline[s] = substitute(d, self.inline) if self.inline else d
        else:
            self.named.setdefault(d, s)
        found = self.derivative(d)
        if found:
            self.tangent[s] = self._named(found) if self.cse else found

    def derivative(self, e: Any) -> dict[int, Any]:
        """The tangent of the expression ``e`` (in the assignment form's symbols)."""
        used = getattr(e, "free_symbols", set()) & self.tangent.keys()
        terms: dict[int, list] = {}
        for f, partial in _partials(e, used).items():
            partial = self._closed(partial, e, f)
            if partial == 0:
                continue
            for column, t in self.tangent[f].items():
                terms.setdefault(column, []).append(_times(partial, t))
        total = {c: add_terms(ts) for c, ts in terms.items()}
        return {c: v for c, v in sorted(total.items()) if v != 0}

    def _closed(self, partial: Any, e: Any, f: sp.Symbol) -> Any:
        if partial.has(sp.Derivative, sp.Subs):
            raise NoClosedSecondOrder(f"d/d{f} of {e}")
        if self.cse:
            return partial.xreplace(self.named) if self.named else partial
        return substitute(partial, self.inline) if self.inline else partial

    def _named(self, tangent: dict[int, Any]) -> dict[int, Any]:
        """Assignment form: a symbol for every tangent that is not a symbol or a number."""
        out = {}
        for column, t in tangent.items():
            if t.is_Atom or (
                t.is_Mul and len(t.args) == 2 and t.args[0] == -1 and t.args[1].is_Atom
            ):
                out[column] = t
                continue
            self._count += 1
            s = name_symbol(f"t{self._count}", real=True)
            self.definitions.append((s, t))
            out[column] = s
        return out

    def _depth(self, d: Any) -> int:
        if d in self.depth:
            return self.depth[d]
        if not getattr(d, "args", ()):
            return 1
        return 1 + max(self._depth(a) for a in d.args)


def _times(p: Any, t: Any) -> Any:
    """``p * t`` (built directly where ``Mul`` has nothing to combine)."""
    return t if p == 1 else product((p, t))


def _partials(e: Any, used: set) -> dict:
    """``{f: de/df}`` for the symbols ``used`` that occur in ``e``: a sum and a product term by
    term, so a sum of many terms is not differentiated once per symbol in full."""
    if not used:
        return {}
    if e.is_Add or e.is_Mul:
        found: dict = {}
        for k, a in enumerate(e.args):
            inner = a.free_symbols & used
            if not inner:
                continue
            rest = product(e.args[:k] + e.args[k + 1 :]) if e.is_Mul else None
            for f, d in _partials(a, inner).items():
                found.setdefault(f, []).append(d if rest is None else product((rest, d)))
        return {f: add_terms(ds) for f, ds in found.items()}
    return {f: _partial(e, f) for f in used}


def _partial(e: Any, f: sp.Symbol) -> Any:
    """``diff(e, f)``, the common cases taken directly (the same expression as ``diff``).

    A power of ``f`` to an exponent free of ``f`` is ``p * f**(p - 1)``, as PyTorch's
    derivative of pow: ``diff`` writes ``p * f**p / f``, 0/0 at ``f = 0``; and a piecewise
    expression is differentiated piece by piece, each so."""
    if e == f:
        return sp.Integer(1)
    if e.is_Pow and e.base == f and f not in e.exp.free_symbols:
        return e.exp * f ** (e.exp - 1)
    if isinstance(e, sp.Piecewise):
        pieces = [(_partials(p, {f} & p.free_symbols).get(f, 0), c) for p, c in e.args]
        return sp.Piecewise(*pieces)
    if isinstance(e, sp.Function) and e.args == (f,):
        found = e.fdiff(1)
        if not isinstance(found, sp.Derivative):  # else its own _eval_derivative may know
            return found
    return sp.diff(e, f)


def hessian_sweep(y: Tensor, xs: list[Tensor], cse: bool, as_float: bool) -> tuple:
    """``(definitions, blocks)``: the Hessian blocks ``d²y/dxᵢdxⱼ`` as lists of ``Matrix``
    rows of ``blocks[i][j]``, and in assignment form the definitions they use (empty inline)."""
    replay = Replay(cse=True, as_float=as_float)
    grads = replay.adjoints(y, seed_ones(y.shape), xs)
    sweep = _Sweep(cse)
    columns = [0]
    for x in xs:
        sweep.seed(list(symbol_array_of(x).flat)[: x.numel()], columns[-1])
        columns.append(columns[-1] + x.numel())
    for s, d in replay.definitions:
        sweep.define(s, d)
    blocks = []
    for x, g in zip(xs, grads):
        rows = []
        for k in range(x.numel()):
            e = sp.Integer(0) if g is None else sp.sympify(np.asarray(g).flat[k], strict=True)
            rows.append(sweep.derivative(e))
        blocks.append([_block(rows, columns[j], columns[j + 1]) for j in range(len(xs))])
    definitions = replay.definitions + sweep.definitions if cse else []
    return definitions, blocks


def _block(rows: list[dict], start: int, stop: int) -> sp.Matrix:
    block = sp.zeros(len(rows), stop - start)
    for i, row in enumerate(rows):
        for column, value in row.items():
            if start <= column < stop:
                block[i, column - start] = value
    return block
