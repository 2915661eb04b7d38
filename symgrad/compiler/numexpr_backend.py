"""The ``numexpr`` backend of ``symgrad.compile``: chains of element-wise steps fused into one
numexpr expression each, forward and backward.

The plan's element-wise steps whose formulas print to numexpr are grouped into regions: a
step's result is folded into the step that uses it when that is its only use (so nothing is
computed twice in the forward pass) and both are element-wise steps of one floating dtype. A
region becomes one step: its forward pass is one numexpr expression (the members' formulas
composed), and the gradient of each of its inputs one more, built by the chain rule from the
members' own partial derivatives (the intermediates recomputed inside the loop, never stored).
numexpr evaluates each in cache-sized blocks on all cores. Everything else, and any step
whose formula or derivative numexpr can't express (or with a hand-written NumPy kernel for
stability), stays a NumPy step; so do regions smaller than ``MIN_SIZE`` elements, where
numexpr's call costs more than it saves. Expressions are built from SymPy formulas and the
package's own names (``i0``, ``p0``, ``out``, ``g``), never from user text.

The NumPy backend fuses the same regions on large arrays (``engine="numpy"``): the arithmetic
between the functions is a NumPy function lambdified from the same formulas, and the region
runs block by block on every core (:mod:`symgrad.compiler.blocks`).
"""

from __future__ import annotations

import copy
import re
import threading
from typing import Any

import numpy as np
import sympy as sp

from symgrad.compiler import blocks
from symgrad.compiler.numexpr_source import FUNCTIONS as _FUNCTIONS
from symgrad.compiler.numexpr_source import Unprintable as _Unprintable
from symgrad.compiler.numexpr_source import to_source as _print
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.kernels import lambdify

__all__ = ["fuse", "MIN_SIZE"]

_NUMEXPR = threading.Lock()
MIN_SIZE = 4096  # elements: below this a NumPy call is cheaper than numexpr's
_MAX_MEMBERS = 24  # numexpr compiles every expression into a program of bounded size
_MAX_INPUTS = 16

# the functions computed by NumPy's ufuncs rather than inside numexpr's loops
_UFUNCS = {
    sp.sin: np.sin,
    sp.cos: np.cos,
    sp.tan: np.tan,
    sp.asin: np.arcsin,
    sp.acos: np.arccos,
    sp.atan: np.arctan,
    sp.sinh: np.sinh,
    sp.cosh: np.cosh,
    sp.tanh: np.tanh,
    sp.asinh: np.arcsinh,
    sp.acosh: np.arccosh,
    sp.atanh: np.arctanh,
    sp.exp: np.exp,
    sp.log: np.log,
}
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_G, _OUT = sp.Symbol("g", real=True), sp.Symbol("out", real=True)


def require_numexpr() -> Any:
    """The numexpr module, or an ImportError saying how to install it."""
    try:
        import numexpr
    except ImportError as exc:
        raise ImportError(
            "symgrad.compile(..., backend='numexpr') needs numexpr, which is not installed: "
            "pip install 'symgrad[fast]' (or pip install numexpr)"
        ) from exc
    return numexpr


def _printable(prim: Any) -> bool:
    """Whether ``prim``'s formula and partials print to numexpr and are the ones the engine
    evaluates (no hand-written kernel in their place), cached per primitive."""
    cache = _printable.__dict__.setdefault("cache", {})
    if id(prim) in cache:
        return cache[id(prim)][1]
    kernel = prim.kernel
    ok = (kernel is None or isinstance(kernel, np.ufunc)) and not prim.partial_kernels
    # the cached fused g * partial kernels are lambdified; a declared one is hand-written
    ok = ok and all(k.__name__ == "_lambdifygenerated" for k in prim._vjp_kernels.values())
    if ok:
        try:
            for e in (prim.expr, *prim.partials):
                _print(e)
        except _Unprintable:
            ok = False
    cache[id(prim)] = (prim, ok)  # the primitive kept alive so that its id stays its own
    return ok


# -- the regions --------------------------------------------------------------------------------
def fuse(plan: Any, engine: str = "numexpr") -> Any:
    """A copy of ``plan`` with its element-wise regions as fused steps (see the module);
    ``symgrad.compile(fn, backend="numexpr")`` runs it on every plan it traces. With
    ``engine="numpy"`` the arithmetic around the functions is a NumPy function lambdified from
    the same formulas instead of a numexpr expression, for the NumPy backend; its regions run
    block by block on every core (:mod:`symgrad.compiler.blocks`).

    Examples
    --------
    >>> import pytest
    >>> _ = pytest.importorskip("numexpr")  # the example needs numexpr installed
    >>> import symgrad
    >>> from symgrad.compiler.trace import trace
    >>> x = symgrad.randn(5000, requires_grad=True)
    >>> plan, _, _ = trace(lambda x: (x.sin() * 2 + x * x).sum(), (x,), {})
    >>> [step.prim.name for step in plan.steps]
    ['sin', 'mul', 'mul', 'add', 'sum']
    >>> fused = fuse(plan)
    >>> [step.prim.name for step in fused.steps]
    ['numexpr', 'sum']
    >>> fused.steps[0].prim.source  # the sine is kept for the backward pass
    [('m0', 'sin(i0)'), ('out', '((i0**2) + (c1_1*m0))')]
    """
    uses: dict = {}
    for step in plan.steps:
        for key in [*step.inputs, *step.param_inputs]:
            if key[0] != "const":
                uses[key] = uses.get(key, 0) + 1
    for key, _ in plan.outputs:
        uses[key] = uses.get(key, 0) + 2  # an output is always stored
    producer = {step.key: step for step in plan.steps if _candidate(step)}
    regions: dict = {}  # id(root step) -> its members, in plan order
    folded: set = set()
    for step in plan.steps:
        if id(step) not in {id(s) for s in producer.values()}:
            continue
        members = [step]
        for key in step.inputs:
            child = producer.get(key) if key[0] == "node" else None
            if child is None or uses.get(key) != 1 or id(child) not in regions:
                continue
            if child.arrays[0].dtype != step.arrays[0].dtype:
                continue
            merged = regions[id(child)] + members
            if len(merged) > _MAX_MEMBERS or len(_inputs(merged)) > _MAX_INPUTS:
                continue
            members = merged
            folded.add(id(child))
        regions[id(step)] = sorted(members, key=_position(plan))
    fused = copy.copy(plan)
    fused.steps = []
    for step in plan.steps:
        if id(step) in folded:
            continue
        if id(step) in regions and step.arrays[0].size >= _least(engine):
            fused.steps.append(_FusedStep(regions[id(step)], engine))
        elif id(step) in regions:
            fused.steps.extend(regions[id(step)])  # too small: the NumPy steps as they were
        else:
            fused.steps.append(step)
    return fused


def _least(engine: str) -> int:
    """The elements a region needs to be fused: numexpr's call pays from ``MIN_SIZE``; the
    NumPy engine's regions pay once they are cut into blocks for the cores."""
    return MIN_SIZE if engine == "numexpr" else blocks.MIN_BLOCKED


def _position(plan: Any) -> Any:
    order = {id(s): k for k, s in enumerate(plan.steps)}
    return lambda s: order[id(s)]


def _candidate(step: Any) -> bool:
    prim = step.prim
    if not isinstance(prim, Elementwise) or step.param_fn is not None or len(step.keys) != 1:
        return False
    if not step.grad or any(step.detached) or step.arrays[0].dtype not in _DTYPES:
        return False
    dtype = step.arrays[0].dtype
    for key, meta in zip(step.inputs, step.meta):
        if key[0] == "const":
            if np.ndim(key[1]) or not isinstance(key[1], (int, float, np.floating, np.integer)):
                return False
        elif meta is None or meta[1] != dtype:
            return False
    return _printable(prim)


def _inputs(members: list) -> list:
    """The keys a region reads from outside itself, in first-use order."""
    inside = {m.key for m in members}
    seen: list = []
    for m in members:
        for key in m.inputs:
            if key[0] != "const" and key not in inside and key not in seen:
                seen.append(key)
    return seen


class _FusedStep:
    """Several element-wise steps as one: the emitter's view of a region. Its outputs are
    the region's result and then the values of its costly members (a transcendental
    function, a root), which the backward pass reads instead of computing them again."""

    def __init__(self, members: list, engine: str = "numexpr") -> None:
        root = members[-1]
        kept = [m for m in members[:-1] if _costly(m.prim.expr)]
        self.members = members
        self.keys = [root.key] + [m.key for m in kept]
        self.key = root.key
        self.values = tuple(m.values[0] for m in [root, *kept])
        self.arrays = tuple(m.arrays[0] for m in [root, *kept])
        self.grad = True
        self.sized = False  # element-wise: its shape is its inputs', never the values'
        self.param_fn, self.param_inputs = None, []
        self.params = ()
        self.node = root.node
        self.inputs = _inputs(members)
        meta = {}
        for m in members:
            meta.update(zip(m.inputs, m.meta))
        self.meta = [meta[key] for key in self.inputs]
        self.detached = [False] * len(self.inputs)
        self.prim = _Fused(members, kept, self.inputs, root.arrays[0].dtype, engine)


def _costly(expr: Any) -> bool:
    """Whether a formula calls a function other than abs or takes a root: worth storing
    rather than computing again (products, sums and small powers are not)."""
    for e in sp.preorder_traversal(expr):
        if e.func in _FUNCTIONS and e.func is not sp.Abs:
            return True
        if e.is_Pow and not e.exp.is_Integer:
            return True
    return False


class _Fused:
    """The primitive of a fused region: a few numexpr programs for the forward pass (each
    costly member, then the result) and one per input gradient. It is interpreted on NumPy
    arrays only (the emitted program's steps)."""

    def __init__(
        self, members: list, kept: list, inputs: list, dtype: np.dtype, engine: str = "numexpr"
    ) -> None:
        numexpr = None
        if engine == "numexpr":
            import numexpr

        self.name = "numexpr" if numexpr is not None else "fused"
        self.n_outputs = 1 + len(kept)
        self._numexpr, self._dtype = numexpr, dtype
        self._inputs = [f"i{k}" for k in range(len(inputs))]
        self._kept = [f"m{k}" for k in range(len(kept))]
        symbols = [sp.Symbol(n, real=True) for n in self._inputs]
        saved = {m.key: sp.Symbol(n, real=True) for m, n in zip(kept, self._kept)}
        values: dict = {}  # constants and parameters, bound as numexpr variables
        program, adjoints = _region_formulas(members, dict(zip(inputs, symbols)), saved, values)
        self._bound = {name: np.asarray(v, dtype=dtype) for name, v in values.items()}
        self._numbers: dict = {}
        self.source = [(str(name), _print(e)) for name, e in program]
        self._forward = [self._program(e) for _, e in program]
        self._vjps = [
            self._program(_shared(sp.piecewise_fold(adjoints.get(x, sp.Integer(0)))))
            for x in symbols
        ]

    def _program(self, expr: Any) -> list:
        """The operations computing ``expr``: each function call by its NumPy ufunc (as fast
        as numexpr's, or faster: NumPy's are vectorised), on an argument numexpr computes,
        then the arithmetic around them as one numexpr expression. An operation is
        ``(name, ufunc or None, numexpr program or None, variables, constant)``."""
        ops: list = []
        temps: dict = {}
        # numexpr built on Intel's VML computes the functions faster than NumPy: keep them
        hoisted = {} if getattr(self._numexpr, "use_vml", False) else _UFUNCS
        if self._numexpr is None:  # the arithmetic lambdified: NumPy's ufuncs do the functions
            hoisted = _UFUNCS
        calls = [e for e in sp.postorder_traversal(expr) if e.func in hoisted]
        for call in dict.fromkeys(calls):  # innermost first: arguments before their calls
            arg = call.args[0].xreplace(temps)
            name = f"h{len(temps)}"
            ops.append(self._op(name, _UFUNCS[call.func], arg))
            temps[call] = sp.Symbol(name, real=True)
        ops.append(self._op("result", None, expr.xreplace(temps)))
        return ops

    def _op(self, name: str, ufunc: Any, expr: Any) -> tuple:
        source = _print(expr, self._numbers)
        for value, k in self._numbers.items():
            self._bound[k] = np.asarray(value, self._dtype)
        known = [*self._inputs, *self._kept, "out", "g", *(f"h{k}" for k in range(64))]
        order = _order(source, known, self._bound)
        if expr.is_Symbol:  # no loop: the value itself
            return (name, ufunc, None, [expr.name], None)
        if not order:  # a constant: evaluated once
            return (name, ufunc, None, [], float(sp.N(expr)))
        if self._numexpr is None:
            function = lambdify([sp.Symbol(n, real=True) for n in order], expr)
            return (name, ufunc, function, order, None)
        kind = float if self._dtype == np.float32 else np.float64  # numexpr's type names
        signature = [(n, kind) for n in order]
        return (name, ufunc, self._numexpr.NumExpr(source, signature=signature), order, None)

    def _run(self, ops: list, env: dict, shape: tuple) -> np.ndarray:
        env = dict(env)
        for name, ufunc, compiled, order, constant in ops:
            if compiled is not None:
                # a gradient may come as a float64 scalar for a float32 region
                args = [np.asarray(env[n], self._dtype) for n in order]
                if self._numexpr is None:
                    value = np.asarray(compiled(*args), self._dtype)
                    if value.shape != shape:  # (a formula of numbers and bound values alone)
                        value = np.broadcast_to(value, shape)
                else:
                    with _NUMEXPR:  # numexpr's state is global: one caller at a time
                        value = compiled(*args)
            elif order:
                value = env[order[0]]
            else:
                value = np.full(shape, constant, self._dtype)
            env[name] = value if ufunc is None else ufunc(value)
        return env["result"]

    def outputs(self, xp: Any, inputs: tuple, params: Any) -> tuple:
        shape = np.broadcast_shapes(*[np.shape(a) for a in inputs])
        results = self._every(self._forward_block, list(inputs), shape, len(self._forward))
        return (results[-1], *results[:-1])  # the region's result first

    def _every(self, work: Any, given: list, shape: tuple, count: int) -> list:
        """``work``'s ``count`` results over ``shape``: block by block on every core for the
        NumPy engine where the inputs allow; at once otherwise (numexpr cuts its own loops
        into blocks, on its own threads)."""
        results = None
        if self._numexpr is None:
            results = blocks.run_blocked(work, given, shape, [self._dtype] * count)
        return work(given, shape) if results is None else results

    def _forward_block(self, inputs: Any, shape: tuple) -> list:
        env = dict(self._bound)
        env.update(zip(self._inputs, inputs))
        results = []
        for (name, _), program in zip(self.source, self._forward):
            env[name] = self._run(program, env, shape)
            results.append(env[name])
        return results

    def vjp(self, xp: Any, g: Any, ctx: Any) -> list:
        out = ctx.out if type(ctx.out) is tuple else (ctx.out,)
        programs = [p for p, need in zip(self._vjps, ctx.needs) if need]
        names = [*self._inputs, *self._kept, "out", "g"]
        given = [*ctx.inputs, *out[1:], out[0], g[0]]

        def block(parts: list, shape: tuple) -> list:
            env = dict(self._bound)
            env.update(zip(names, parts))
            return [self._run(program, env, shape) for program in programs]

        found = iter(self._every(block, given, np.shape(out[0]), len(programs)))
        return [next(found) if need else None for need in ctx.needs]


def _region_formulas(members: list, symbol_of: dict, saved: dict, values: dict) -> tuple:
    """The forward program (``(name, formula)`` per costly member, then ``("out", the
    result)``) in the input symbols and the costly members' names, and each input's
    ``g * d out / d input`` by the chain rule over the members, in the same names."""
    formula: dict = {}  # a member's value: its name if costly, else its formula
    program = []
    args_of: dict = {}
    root = members[-1]
    for j, m in enumerate(members):
        prim = m.prim
        args = []
        for i, key in enumerate(m.inputs):
            if key[0] == "const":
                name = f"c{j}_{i}"
                values[name] = key[1]
                args.append(sp.Symbol(name, real=True))
            else:
                args.append(formula[key] if key in formula else symbol_of[key])
        rule = dict(zip(prim.inputs, args))
        for n, (p, v) in enumerate(zip(prim.params, m.params)):
            values[f"p{j}_{n}"] = v
            rule[p] = sp.Symbol(f"p{j}_{n}", real=True)
        value = prim.expr.xreplace(rule)
        if m.key in saved:
            program.append((saved[m.key], value))
            formula[m.key] = saved[m.key]
        else:
            formula[m.key] = value
        args_of[m.key] = (rule, args)
    program.append((_OUT, formula[root.key]))
    adjoint: dict = {root.key: _G}
    grads: dict = {}
    for m in reversed(members):
        a = adjoint.pop(m.key, None)
        if a is None:
            continue
        rule, args = args_of[m.key]
        rule = dict(rule)
        rule[m.prim.out_symbol] = _OUT if m is root else formula[m.key]
        for key, arg, partial in zip(m.inputs, args, m.prim.partials):
            if key[0] == "const":
                continue
            term = a * partial.xreplace(rule)
            if key in formula:
                adjoint[key] = adjoint.get(key, 0) + term
            else:
                grads[arg] = grads.get(arg, 0) + term
    return program, grads


def _shared(expr: Any) -> Any:
    """``expr`` with the terms of a sum that share a function call collected, so that numexpr
    (which has no common sub-expressions) calls it once: ``g e cos x - 2 g x e sin x`` becomes
    ``e (g cos x - 2 g x sin x)``."""
    calls = [e for e in sp.preorder_traversal(expr) if e.func in _FUNCTIONS or e.is_Symbol]
    repeated = [c for c in dict.fromkeys(calls) if calls.count(c) > 1 and not c.is_Symbol]
    return sp.collect(sp.expand(expr), repeated) if repeated else expr


def _order(source: str, names: list, bound: dict) -> list:
    """The variables the expression reads, in the order numexpr takes them (sorted)."""
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
    return sorted(n for n in [*names, *bound] if n in used)
