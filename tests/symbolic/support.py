"""Shared helpers of the symbolic-layer tests: named leaves, scalarised outputs, and the three
oracles (``sympy.diff`` of ``expression(y)``, the engine's numeric gradient, hand-derived
closed forms) brought to numbers the same way.

Closed forms are evaluated by replacing every leaf symbol with a SymPy ``Float`` of the
tensor's value, so the comparison with float64 gradients is to 1e-10.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import sympy as sp

import symgrad
from symgrad.symbolic import symbols

RTOL = ATOL = 1e-10


def leaf(data: Any, name: str | None = None, requires_grad: bool = True) -> symgrad.Tensor:
    """A float64 leaf tensor, named ``name``."""
    return symgrad.tensor(
        np.asarray(data, dtype=np.float64),
        dtype=symgrad.float64,
        requires_grad=requires_grad,
        name=name,
    )


def rng_for(key: str) -> np.random.Generator:
    """A generator seeded by ``key``: every case draws the same numbers on every run."""
    return np.random.default_rng(zlib.crc32(key.encode()))


def weights(rng: np.random.Generator, shape: tuple) -> symgrad.Tensor:
    """Constant weights ``k / 4`` with ``k`` in +-1..8: exact rationals in closed forms."""
    k = rng.integers(1, 9, shape) * rng.choice([-1, 1], shape)
    return symgrad.tensor(k / 4.0, dtype=symgrad.float64)


def scalarise(outputs: Any, rng: np.random.Generator) -> symgrad.Tensor:
    """``sum_k (out_k * w_k).sum()`` with random constant weights: every element of every
    output reaches the scalar with its own coefficient."""
    outs = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
    total = None
    for out in outs:
        term = (out * weights(rng, tuple(out.shape))).sum()
        total = term if total is None else total + term
    return total


def flat(value: Any) -> list:
    """A closed-form result (expression, ``Matrix``, ``Array``) as a flat row-major list."""
    if isinstance(value, sp.MatrixBase):
        return list(value)
    if isinstance(value, sp.NDimArray):
        return list(value.reshape(len(value))) if value.rank() else [value[()]]
    return [sp.sympify(value)]


def element_symbols(t: symgrad.Tensor) -> list:
    """The symbols of a leaf's elements, row-major (one symbol for a one-element tensor)."""
    return flat(symbols(t)) if t.numel() > 1 else [symbols(t)]


def values_of(tensors: Iterable[symgrad.Tensor], symbol_lists: Sequence | None = None) -> dict:
    """``{symbol: Float(value)}`` for the elements of the given symbolic leaves (whose
    ``element_symbols`` may be passed in when already known)."""
    tensors = list(tensors)
    if symbol_lists is None:
        symbol_lists = [element_symbols(t) for t in tensors]
    values = {}
    for t, syms in zip(tensors, symbol_lists):
        data = t.detach().numpy().reshape(-1)
        values.update(zip(syms, (sp.Float(float(v), 17) for v in data)))
    return values


def evaluate(expr: Any, values: dict) -> float:
    """A closed form at the point ``values``, as a float."""
    return float(substitute(sp.sympify(expr), values))


def substitute(expr: Any, values: dict) -> Any:
    """``expr.xreplace(values)``, each distinct sub-expression rebuilt once (closed forms
    share sub-terms, which ``xreplace`` would rebuild along every path that reaches them),
    without recursion (deep forms)."""
    done = dict(values)
    stack = [expr]
    while stack:
        e = stack[-1]
        if e in done:
            stack.pop()
            continue
        args = e.args
        waiting = [a for a in args if a not in done]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        new = tuple(done[a] for a in args)
        done[e] = e.func(*new) if new != args else e
    return done[expr]


def evaluate_all(exprs: Sequence, values: dict) -> np.ndarray:
    """Closed forms at the point ``values``, as a float array."""
    return np.array([evaluate(e, values) for e in exprs], dtype=np.float64)


def evaluate_cse(pair: tuple, values: dict) -> list:
    """Numbers of an assignment-form result ``(replacements, exprs)``: the replacements are
    evaluated in order, each from the numbers of the symbols before it, so no formula is ever
    expanded into one deep tree."""
    replacements, exprs = pair
    known = dict(values)
    for symbol, definition in replacements:
        known[symbol] = sp.Float(evaluate(definition, known), 17)
    items = exprs if isinstance(exprs, list) else [exprs]
    return [evaluate_all(flat(e), known) for e in items]


# the engine's gradient of digamma is PyTorch's trigamma series, good to about 5e-10, where a
# closed form's polygamma(1, x) is exact
_SERIES = {"digamma": 1e-9}


def assert_close(actual: Any, expected: Any, what: str = "") -> None:
    """Equal to 1e-10 (relative and absolute), as float64 arrays (``what`` names the op first,
    as ``"digamma: gradient"``: an op whose engine gradient is a series, to its accuracy)."""
    tol = _SERIES.get(what.split(":")[0].removesuffix("_inplace"))
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
        rtol=RTOL if tol is None else tol,
        atol=ATOL if tol is None else tol,
        err_msg=what,
    )


def numeric_gradients(y: symgrad.Tensor, xs: Sequence[symgrad.Tensor]) -> list[np.ndarray]:
    """The engine's gradients of ``y`` (``y.backward()``), flattened, zeros where none."""
    y.backward(retain_graph=True)
    return [np.zeros(x.numel()) if x.grad is None else x.grad.numpy().reshape(-1) for x in xs]


def diff_sample(n: int, key: str) -> list[int]:
    """Which elements of an ``n``-element input get the (slow) ``sympy.diff`` oracle: all of
    them when there are few, otherwise the first, the last and one more chosen by ``key``."""
    if n <= 4:
        return list(range(n))
    return sorted({0, n - 1, 1 + zlib.crc32(key.encode()) % (n - 2)})


def perturbed(values: dict, key: str, scale: float = 0.03) -> dict:
    """The point ``values`` moved by at most ``scale`` in each coordinate (small enough to stay
    in the domains the samples keep clear of kinks, poles and ties)."""
    rng = rng_for(key + "/perturb")
    return {s: sp.Float(float(v) + rng.uniform(-scale, scale), 17) for s, v in values.items()}


def check_against_diff(
    expr: Any,
    grads: Sequence,
    leaves: Sequence[symgrad.Tensor],
    key: str,
    symbol_lists: Sequence | None = None,
) -> None:
    """Each sampled gradient element equals ``sympy.diff(expr, its symbol)`` at the traced point
    and at a perturbed point (the closed forms must agree as functions, not just at one
    point)."""
    if symbol_lists is None:
        symbol_lists = [element_symbols(t) for t in leaves]
    points = [values_of(leaves, symbol_lists)]
    points.append(perturbed(points[0], key))
    for symbols_x, g in zip(symbol_lists, grads):
        g_flat = flat(g)
        assert len(g_flat) == len(symbols_x), f"{key}: gradient has {len(g_flat)} elements"
        for k in diff_sample(len(symbols_x), key + str(symbols_x[0])):
            reference = sp.diff(expr, symbols_x[k])
            for point in points:
                assert_close(
                    evaluate(g_flat[k], point),
                    evaluate(reference, point),
                    f"{key}: d/d{symbols_x[k]}",
                )
