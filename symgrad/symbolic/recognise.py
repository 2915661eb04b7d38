"""A fast simplification that writes the patterns reverse accumulation produces in the forms
people know, instead of SymPy's general (and slow) ``simplify``.

Three rewrites, each local and linear in the size of the expression:

- the logistic function: ``1/(1 + exp(-u))`` is ``sigmoid(u)`` and, where ``sigmoid(u)`` is
  present, ``exp(-u)`` is ``(1 - sigmoid(u))/sigmoid(u)``, so its derivative reads
  ``sigmoid(u)*(1 - sigmoid(u))`` and a logistic loss's gradient ``sigmoid(u) - y``;
- the log of a sum of two or more exponentials is ``logsumexp(...)``;
- each sum, bottom up, is expanded one level and its common factors taken out
  (``-y/3 + 1/3 - (1 - s)/3`` becomes ``(s - y)/3``), a product spread over one of its sums
  where its factors cancel, and a small quotient cancelled; a rewritten part is kept only when
  it is not longer.

Every rewrite is an identity, so the result equals its input everywhere both are defined; the
tests check that by evaluation at random points, and that the result is never longer.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symgrad.prim.special import logsumexp, sigmoid

__all__ = ["recognise", "simplified", "Recogniser"]


class Recogniser:
    """The rewrites, over any number of expressions that share sub-expressions (each part is
    rewritten once): :meth:`run` takes them all at once, as the logistic function found in one
    lets ``exp(-u)`` become ``(1 - sigmoid(u))/sigmoid(u)`` in every other."""

    def __init__(self) -> None:
        self._named: dict = {}
        self._tidy: dict = {}
        self._sigmoid_args: set = set()

    def run(self, exprs: list) -> list:
        found = [self.named(e) for e in exprs]
        return [self._regroup(e) for e in found]

    def named(self, e: Any) -> Any:
        """``e`` with the logistic function and log-sum-exp named, nothing else changed."""
        e = sp.sympify(e, strict=True)
        return self._name(e) if isinstance(e, sp.Expr) else e

    def _name(self, e: sp.Expr) -> sp.Expr:
        """Bottom up: ``1/(1 + exp(a))`` as ``sigmoid(-a)``, ``log(exp(a) + exp(b) + ...)``
        as ``logsumexp(a, b, ...)``."""
        return _bottom_up(e, self._named, self._name_one)

    def _name_one(self, out: sp.Expr) -> sp.Expr:
        if out.is_Pow and out.exp == -1 and out.base.is_Add and len(out.base.args) == 2:
            scale, base = out.base.as_content_primitive()  # 3 + 3*exp(a) is 3*(1 + exp(a))
            one, other = sorted(base.args, key=lambda t: t != 1) if base.is_Add else (0, 0)
            if one == 1 and isinstance(other, sp.exp):
                s = sigmoid(-other.args[0])
                self._sigmoid_args.add(s.args[0])
                out = s / scale
        elif isinstance(out, sp.log) and out.args[0].is_Add:
            terms = out.args[0].args
            if all(isinstance(t, sp.exp) for t in terms):
                out = logsumexp(*(t.args[0] for t in terms))
        return out

    def _regroup(self, e: sp.Expr) -> sp.Expr:
        """Bottom up: ``exp(-u)`` where ``sigmoid(u)`` appears as ``(1 - sigmoid(u))/sigmoid(u)``
        (which then cancels), and each sum or product regrouped when that is shorter."""
        return _bottom_up(e, self._tidy, self._regroup_one)

    def _regroup_one(self, out: sp.Expr) -> sp.Expr:
        if isinstance(out, sp.exp) and -out.args[0] in self._sigmoid_args:
            s = sigmoid(-out.args[0])
            out = (1 - s) / s
        elif isinstance(out, sp.log) and out.args[0].is_Pow and out.args[0].exp == -1:
            if out.args[0].base.is_positive:  # log(1/sigmoid(v)) is -log(sigmoid(v))
                out = -sp.log(out.args[0].base)
        elif out.is_Add or (out.is_Mul and any(a.is_Add for a in out.args)):
            out = _regrouped(out)
        return out


def _bottom_up(e: sp.Expr, memo: dict, rewrite: Any) -> sp.Expr:
    """``rewrite`` applied to every part of ``e``, innermost first, each part once."""
    done = memo.get(e)
    if done is not None:
        return done
    out = e
    if e.args and not e.is_Atom:
        args = [_bottom_up(a, memo, rewrite) for a in e.args]
        if any(a is not b for a, b in zip(args, e.args)):
            out = e.func(*args)
    out = rewrite(out)
    memo[e] = out
    return out


def _skeleton(e: sp.Expr, calls: dict) -> sp.Expr:
    """``e`` with each function call (``sigmoid(X[0, 0]*w[0] + b)``) a single symbol."""
    if isinstance(e, sp.Function):
        if e not in calls:
            calls[e] = sp.Dummy()
        return calls[e]
    if e.is_Atom or not e.args:
        return e
    args = [_skeleton(a, calls) for a in e.args]
    return e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e


def _regrouped(e: sp.Expr) -> sp.Expr:
    """The shortest of ``e``, ``e`` with its common factors taken out, expanded one level, a
    product spread over one of its sums, or (when small) multiplied out or cancelled; function
    calls stand as single symbols meanwhile."""
    calls: dict = {}
    skeleton = _skeleton(e, calls)
    size = sp.count_ops(skeleton)
    best = skeleton
    candidates = []
    if e.is_Add:
        candidates += [
            sp.factor_terms(skeleton),
            sp.factor_terms(sp.expand_mul(skeleton, deep=False)),
        ]
    if skeleton.is_Mul:  # the other factors distributed over one sum, where they may cancel
        for total in [a for a in skeleton.args if a.is_Add][:2]:
            rest = skeleton / total
            spread = sp.Add(*[rest * t for t in total.args])
            candidates.append(sp.factor_terms(sp.expand_mul(spread, deep=False)))
    if size <= _SMALL:  # multiplied out, or a quotient cancelled, only when it is small
        candidates.append(sp.factor_terms(sp.expand_mul(skeleton)))
        candidates.append(sp.cancel(skeleton))
    candidates += [sp.factor_terms(c) for c in candidates if c.is_Add]
    for candidate in candidates:
        found = sp.count_ops(candidate)
        if found < size or (found == size and candidate.is_Mul and best.is_Add):
            best, size = candidate, found
    if best is skeleton:
        return e
    return best.xreplace({d: f for f, d in calls.items()})


_SMALL = 40  # the size of product worth multiplying out to find cancellations


def recognise(e: Any) -> Any:
    """``e`` with the logistic function, log-sum-exp and factored sums written as people
    write them, never longer than ``e``.

    Examples
    --------
    >>> import sympy as sp
    >>> from symgrad.symbolic.recognise import recognise
    >>> u, y = sp.symbols("u y")
    >>> recognise(-y/3 + sp.Rational(1, 3) - sp.exp(-u)/(3*(sp.exp(-u) + 1)))
    -y/3 + sigmoid(u)/3
    """
    return simplified([e], True)[0]


def simplified(exprs: list, how: Any) -> list:
    """The expressions as asked by a ``simplify=`` argument: False leaves them, True
    recognises the familiar forms (:func:`recognise`, fast; shared parts are rewritten once),
    ``"full"`` runs SymPy's ``simplify`` on each."""
    if how is False or how is None:
        return list(exprs)
    if how == "full":
        return [sp.simplify(e) for e in exprs]
    if how is not True:
        raise ValueError(f"simplify must be True, False or 'full', got {how!r}")
    exprs = [sp.sympify(e, strict=True) for e in exprs]
    done = Recogniser().run(exprs)
    return [d if sp.count_ops(d) <= sp.count_ops(e) else e for d, e in zip(done, exprs)]
