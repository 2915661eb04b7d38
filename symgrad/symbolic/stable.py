"""Closed forms rewritten with the stable functions, before code is generated from them.

The derivative rules of fused ops (``binary_cross_entropy_with_logits``, ``sigmoid``,
``softplus``, ``logsumexp``, ``log_softmax``) produce exponentials that overflow at large
arguments: ``exp(-z) / (1 + exp(-z))`` is ``inf / inf`` at ``z = -1000``, where the engine's
kernels give the right number. The same formulas, written with :mod:`symgrad.prim.special`'s
functions, evaluate through the same stable kernels:

- ``1 / (1 + exp(u))**n`` becomes ``sigmoid(-u)**n``, and a factor ``exp(k*u)`` beside it
  (``1 <= k <= n``) turns ``k`` of them into ``sigmoid(u)``;
- ``log(1 + exp(u))`` becomes ``softplus(u)``;
- any other ``log`` of a sum of exponentials (and positive constants) becomes ``logsumexp``,
  and a power ``-n`` of such a sum ``exp(-n*logsumexp(...))``, which SymPy merges with an
  ``exp`` factor beside it (softmax's ``exp(x - logsumexp(x, y))``).

Each rule is an identity, so the rewritten expression equals the original one everywhere.
Rewriting works inside one expression: a formula that a computation spreads over several
intermediates is evaluated step by step, as the engine evaluates it.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symgrad.prim.special import logsumexp, sigmoid, softplus

__all__ = ["stable_form"]


def stable_form(expr: Any) -> Any:
    """``expr`` with overflowing sub-expressions written with sigmoid, softplus, logsumexp.

    Examples
    --------
    >>> import sympy as sp
    >>> from symgrad.symbolic.stable import stable_form
    >>> z, y = sp.symbols("z y", real=True)
    >>> stable_form(1 - y - sp.exp(-z) / (1 + sp.exp(-z)))
    -y - sigmoid(-z) + 1
    >>> stable_form(sp.log(sp.exp(z) + sp.exp(y)))
    logsumexp(y, z)
    >>> stable_form(sp.exp(z) / (sp.exp(z) + sp.exp(y)))
    exp(z - logsumexp(y, z))
    """
    if isinstance(expr, str):  # text is never parsed: build the formula from symbols
        raise TypeError(
            "stable_form takes a SymPy expression, not a string: build it from sympy.Symbol "
            "objects (or take a closed form symgrad made)"
        )
    expr = sp.sympify(expr, strict=True)
    done: dict = {}
    symbolic: dict = {}  # whether a node has symbols in it
    stack = [expr]
    # post-order without recursion: a node is rebuilt once all its arguments are
    while stack:
        node = stack[-1]
        if node in done:
            stack.pop()
            continue
        pending = [a for a in node.args if a not in done]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        symbolic[node] = node.is_Symbol or any(symbolic[a] for a in node.args)
        # numbers are evaluated exactly or by NumPy once: nothing to protect
        done[node] = _rewrite(node, [done[a] for a in node.args]) if symbolic[node] else node
    return done[expr]


def _rewrite(node: Any, args: list) -> Any:
    if not args:
        return node
    if any(a is not b for a, b in zip(args, node.args)):
        node = node.func(*args)
    if isinstance(node, sp.log):
        return _log_rule(node)
    if node.is_Pow:
        return _pow_rule(node)
    if node.is_Mul:
        return _mul_rule(node)
    return node


def _exponents(total: Any) -> list | None:
    """The exponents ``u_i`` with ``total == sum(exp(u_i))``, for a sum of at least two terms
    each ``c * exp(u)`` or ``c`` (``c > 0`` a number); else None."""
    if not total.is_Add:
        return None
    exponents, found = [], False
    for term in total.args:
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_positive:
            return None
        if rest == 1:
            exponents.append(sp.log(coeff))
            continue
        if not isinstance(rest, sp.exp):
            return None
        found = True
        exponents.append(rest.args[0] + (sp.log(coeff) if coeff != 1 else 0))
    return exponents if found else None


def _one_plus_exp(exponents: list) -> Any:
    """``u`` when the exponents are those of ``1 + exp(u)``, else None."""
    if len(exponents) == 2 and 0 in exponents:
        return exponents[1] if exponents[0] == 0 else exponents[0]
    return None


def _log_rule(node: Any) -> Any:
    exponents = _exponents(node.args[0])
    if exponents is None:
        return node
    u = _one_plus_exp(exponents)
    return softplus(u) if u is not None else logsumexp(*exponents)


def _pow_rule(node: Any) -> Any:
    base, power = node.args
    if not (power.is_Number and power.is_negative):
        return node
    exponents = _exponents(base)
    if exponents is None:
        return node
    u = _one_plus_exp(exponents)
    if u is not None and (-power).is_Integer:
        return sigmoid(-u) ** (-power)
    return sp.exp(power * logsumexp(*exponents))


def _mul_rule(node: Any) -> Any:
    """Exponentials merged into one (``exp(x) * exp(-logsumexp(x, y))`` is at most 1 where
    each factor may overflow), then ``exp(k*u) * sigmoid(-u)**n`` (``1 <= k <= n``) as
    ``sigmoid(u)**k * sigmoid(-u)**(n-k)``: ``exp(u) / (1 + exp(u))`` is ``sigmoid(u)``."""
    exps = [f for f in node.args if isinstance(f, sp.exp)]
    if len(exps) > 1:
        rest = [f for f in node.args if not isinstance(f, sp.exp)]
        node = sp.Mul(*rest, sp.exp(sp.Add(*(f.args[0] for f in exps))))
        if not node.is_Mul:
            return node
    factors = list(node.args)
    for i, f in enumerate(factors):
        if not isinstance(f, sp.exp):
            continue
        for j, s in enumerate(factors):
            base, n = s.as_base_exp()
            if not (isinstance(base, sigmoid) and n.is_Integer and n.is_positive):
                continue
            w = base.args[0]  # sigmoid(w) = 1 / (1 + exp(-w)): here u = -w
            k = _multiple(f.args[0], -w, int(n))
            if k is None:
                continue
            rest = [g for m, g in enumerate(factors) if m not in (i, j)]
            return sp.Mul(*rest, sigmoid(-w) ** k, sigmoid(w) ** (int(n) - k))
    return node


def _multiple(v: Any, u: Any, n: int) -> int | None:
    """The ``k`` in ``1..n`` with ``v == k*u``, if there is one."""
    for k in range(1, n + 1):
        if v == k * u or sp.expand(v - k * u) == 0:
            return k
    return None
