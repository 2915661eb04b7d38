"""The primitive of a fused element-wise region (:mod:`symgrad.compiler.numexpr_backend`
groups the regions): a few programs for the forward pass (each costly member, then the result)
and one per input gradient, run by numexpr or, for the NumPy engine, as NumPy functions
lambdified from the members' formulas, block by block on every core
(:mod:`symgrad.prim.blocks`).

Where the backward pass will read fewer arrays that way, the forward pass also computes each
input's partial derivative ``d out / d input`` in the same blocks (the intermediates are then
in the cache) and keeps those instead of the costly members: the backward pass is one product
``g * partial`` per input, with nothing computed again.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd import grad_mode
from symgrad.compiler.numexpr_source import FUNCTIONS as _FUNCTIONS
from symgrad.compiler.numexpr_source import to_source as _print
from symgrad.prim import blocks
from symgrad.prim.kernels import lambdify

__all__ = ["FusedRegion"]

_NUMEXPR = threading.Lock()
_grad_state = grad_mode._state

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
_G, _OUT = sp.Symbol("g", real=True), sp.Symbol("out", real=True)


class FusedRegion:
    """The primitive of a fused region: a few programs for the forward pass (each costly
    member, then the result) and one per input gradient; or, after :meth:`use_partials`, the
    forward programs and one per input's partial derivative, with a product for its gradient.
    It is interpreted on NumPy arrays only (the emitted program's steps); its outputs are the
    result, then the costly members' values or the partials.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(70_000, dtype=symgrad.float64, requires_grad=True)
    >>> f = symgrad.compile(lambda x: (x.sin() * (-x * x).exp() + x.tanh()).sum())
    >>> f(x).backward()
    >>> print(f.source.splitlines()[1])  # the result and x's partial, not sin, exp and tanh
        v0_0, v0_1 = f0(a0)  # fused
    """

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
        self._adjoints = [adjoints.get(x, sp.Integer(0)) for x in symbols]
        self._vjps = [self._program(_shared(sp.piecewise_fold(a))) for a in self._adjoints]
        self._partials: list | None = None  # (input, program) per input, once chosen

    def use_partials(self, needs: list) -> bool:
        """Compute, in the forward pass, the partial derivative of the result by each input
        whose gradient ``needs`` asks for, and keep those instead of the costly members, when
        that keeps no more arrays (so the backward pass reads less and computes only products);
        the NumPy engine only, whose blocks keep the intermediates in the cache. Whether
        chosen."""
        wanted = [k for k, need in enumerate(needs) if need]
        if self._numexpr is not None or not wanted or len(wanted) > len(self._kept):
            return False
        self._partials = [
            (
                k,
                self._program(
                    _shared(sp.piecewise_fold(self._adjoints[k].xreplace({_G: sp.Integer(1)})))
                ),
            )
            for k in wanted
        ]
        self.n_outputs = 1 + len(wanted)
        return True

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
        # without grad mode the backward pass never runs: the result alone
        count = self.n_outputs if _grad_state.enabled else 1
        results = self._every(self._forward_block, list(inputs), shape, count)
        return (*results, *[None] * (self.n_outputs - count))

    def _every(self, work: Any, given: list, shape: tuple, count: int) -> list:
        """``work``'s ``count`` results over ``shape``: block by block on every core for the
        NumPy engine where the inputs allow; at once otherwise (numexpr cuts its own loops
        into blocks, on its own threads)."""
        results = None
        if self._numexpr is None:
            results = blocks.run_blocked(work, given, shape, [self._dtype] * count)
        return work(given, shape) if results is None else results

    def _forward_block(self, inputs: Any, shape: tuple) -> list:
        """The outputs on one block: the result, then (in grad mode) the costly members'
        values or the partials."""
        env = dict(self._bound)
        env.update(zip(self._inputs, inputs))
        for (name, _), program in zip(self.source, self._forward):
            env[name] = self._run(program, env, shape)
        if not _grad_state.enabled:
            return [env["out"]]
        if self._partials is not None:
            return [env["out"], *[self._run(p, env, shape) for _, p in self._partials]]
        return [env["out"], *[env[name] for name in self._kept]]

    def vjp(self, xp: Any, g: Any, ctx: Any) -> list:
        out = ctx.out if type(ctx.out) is tuple else (ctx.out,)
        if self._partials is not None:  # g times each partial the forward pass kept
            partial = {k: p for (k, _), p in zip(self._partials, out[1:])}
            wanted = [k for k, need in enumerate(ctx.needs) if need]
            given = [np.asarray(g[0], self._dtype), *[partial[k] for k in wanted]]
            found = iter(self._every(_products, given, np.shape(out[1]), len(wanted)))
            return [next(found) if need else None for need in ctx.needs]
        programs = [p for p, need in zip(self._vjps, ctx.needs) if need]
        names = [*self._inputs, *self._kept, "out", "g"]
        given = [*ctx.inputs, *out[1:], out[0], g[0]]

        def block(parts: list, shape: tuple) -> list:
            env = dict(self._bound)
            env.update(zip(names, parts))
            return [self._run(program, env, shape) for program in programs]

        found = iter(self._every(block, given, np.shape(out[0]), len(programs)))
        return [next(found) if need else None for need in ctx.needs]


def _products(parts: list, shape: tuple) -> list:
    """The gradient ``parts[0]`` times each partial derivative in ``parts[1:]``."""
    return [np.multiply(parts[0], p) for p in parts[1:]]


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
