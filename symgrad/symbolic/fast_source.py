"""NumPy source for closed forms, printed straight from the expressions.

SymPy's ``lambdify`` renames every symbol with ``xreplace`` (a new tree per expression), finds
common sub-expressions by rebuilding the trees (``tree_cse``), and prints each node through its
printer's generic dispatch: for the gradient of a 200-term sum that is half a second, a hundred
times what evaluating the result costs. For the expressions gradients are made of (sums,
products, powers, numbers and the elementary functions) this module does the same work in
one counting pass and one printing pass over the trees as they are:

- names are looked up, never substituted: ``a0, a1, ...`` for the arguments, ``t0, t1, ...``
  for the assignments (the graph's intermediates), ``c0, c1, ...`` for the other sub-terms met
  more than once, each computed once just before its first use;
- a function is called by the name SymPy's own NumPy printer gives it (asked once per
  function), in the namespace SymPy's ``lambdify`` builds from
  :data:`symgrad.prim.kernels.MODULES`;
- expressions with an exponential are first rewritten by
  :func:`~symgrad.symbolic.stable.stable_form`.

Anything else (a ``Piecewise``, a relation, a power to a symbol, a function SymPy prints in some
other way) makes :func:`numpy_program` answer None, and the caller takes SymPy's route. The
generated source holds only these names, numbers, and function names: no user name.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import sympy as sp

from symgrad.prim import kernels
from symgrad.symbolic.stable import stable_form

__all__ = ["numpy_program", "reuse_definitions"]


class _Unsupported(Exception):
    """A node this printer leaves to SymPy's."""


_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)")


@cache
def _namespace() -> dict:
    """The globals SymPy's ``lambdify`` gives a function generated against ``MODULES``."""
    return sp.lambdify([], sp.Integer(0), modules=kernels.MODULES).__globals__


@cache
def _printer() -> Any:
    from sympy.printing.numpy import NumPyPrinter

    names = {k: k for m in kernels.MODULES if isinstance(m, dict) for k in m}
    settings = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True}
    return NumPyPrinter({**settings, "user_functions": names})


@cache
def _function_name(func: type, n: int) -> str | None:
    """The name SymPy's printer calls ``func`` of ``n`` arguments by, if it prints it as a
    plain call ``name(z0, z1, ...)`` of a name the namespace holds."""
    zs = sp.symbols(f"z0:{n}", real=True)
    try:
        text = _printer().doprint(func(*zs, evaluate=False))
    except Exception:  # noqa: BLE001 - any failure: SymPy's route decides
        return None
    match = _CALL.fullmatch(text)
    if not match or match.group(2) != ", ".join(map(str, zs)):
        return None
    return match.group(1) if match.group(1) in _namespace() else None


# SymPy's complex infinity (a constant folded into log(0) or 1/0) is undefined: nan as a
# real number
_CONSTANTS = {
    sp.pi: "pi",
    sp.E: "e",
    sp.nan: "nan",
    sp.oo: "inf",
    -sp.oo: "(-inf)",
    sp.zoo: "nan",
}


def _number(e: Any) -> str:
    """A number's text, in parentheses when negative or a fraction (safe as any operand)."""
    if e.is_Integer:
        text = str(int(e))
    elif e.is_Rational:
        text = f"{e.p}/{e.q}"
    elif e.is_Float:
        text = repr(float(e))
    elif e in _CONSTANTS:
        return _CONSTANTS[e]
    else:
        raise _Unsupported(e)
    return text if e.is_Integer and e >= 0 or e.is_Float and e >= 0 else f"({text})"


class _Source:
    """One function's body: assignments of shared sub-terms and of the program's names."""

    def __init__(self, names: dict, shared: set) -> None:
        self.names = names  # expression -> the name it is computed under
        self.shared = shared  # sub-terms met more than once, named once printed
        self.lines: list[str] = []
        self._next = 0

    def assign(self, name: str, e: Any) -> None:
        if e in self.shared and e not in self.names:  # the name itself holds the term
            self.lines.append(f"    {name} = {self.text(e, top=True)}")
            self.names[e] = name
            return
        self.lines.append(f"    {name} = {self.operand(e, top=True)}")

    def operand(self, e: Any, top: bool = False) -> str:
        """``e`` as a name, or printed in full if it is used once (in parentheses unless
        ``top``: where it stands alone, as an argument or a result)."""
        name = self.names.get(e)
        if name is not None:
            return name
        if e.is_Atom:
            if e.is_Number or e in _CONSTANTS:
                return _number(e)
            raise _Unsupported(e)
        if e in self.shared:
            name = f"c{self._next}"
            self._next += 1
            self.lines.append(f"    {name} = {self.text(e, top=True)}")
            self.names[e] = name
            return name
        return self.text(e, top)

    def text(self, e: Any, top: bool = False) -> str:
        """``e``'s own text (not its name), parenthesized unless ``top``."""
        if e.is_Add:
            out = self._add(e)
            return out if top else f"({out})"
        if e.is_Mul:
            sign, body = self._mul(e)
            return (sign + body) if top or not sign else f"({sign}{body})"
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sp.Function):
            name = _function_name(e.func, len(e.args))
            if name is None:
                raise _Unsupported(e)
            return f"{name}({', '.join(self.operand(a, top=True) for a in e.args)})"
        raise _Unsupported(e)

    def _add(self, e: Any) -> str:
        parts = []
        terms = e.args[1:] + e.args[:1] if e.args[0].is_Number else e.args  # the number last
        for k, term in enumerate(terms):
            if term.is_Mul and term not in self.names and term not in self.shared:
                sign, body = self._mul(term)
            elif term.is_Number and term.is_negative:
                sign, body = "-", _number(-term).strip("()")
            else:
                sign, body = "", self.operand(term)
            if k == 0:
                parts.append(sign + body)
            else:
                parts.append((" - " if sign else " + ") + body)
        return "".join(parts)

    def _mul(self, e: Any) -> tuple[str, str]:
        """(``"-"`` or ``""``, the product's text without its sign)."""
        args = list(e.args)
        sign, coeff = "", None
        if args[0].is_Number:
            c = args.pop(0)
            if c.is_negative:
                sign, c = "-", -c
            if c != 1:
                coeff = _number(c)
        num, den = ([coeff] if coeff else []), []
        for f in args:
            if f.is_Pow and f not in self.names and f not in self.shared:
                p = f.exp
                if p.is_Rational and p.is_negative:
                    den.append(self._power(f.base, -p))
                    continue
            num.append(self.operand(f))
        text = "*".join(num) if num else "1"
        if den:
            text += "/" + (den[0] if len(den) == 1 else f"({'*'.join(den)})")
        return sign, text

    def _pow(self, e: Any) -> str:
        p = e.exp
        if p.is_Rational and p.is_negative:
            return f"(1/{self._power(e.base, -p)})"
        return self._power(e.base, p)

    def _power(self, base: Any, p: Any) -> str:
        """``base ** p`` for a positive number ``p``."""
        if not p.is_Number:
            raise _Unsupported(p)  # a power to a symbol: SymPy's route prints PyTorch's power
        b = self.operand(base)
        if not (base in self.names or base.is_Symbol or isinstance(base, sp.Function)):
            if not (base.is_Integer and base >= 0):
                b = f"({b})"
        if p == 1:
            return b
        if p == sp.S.Half:
            return f"sqrt({b})"
        return f"{b}**{_number(p)}"


def _gather(replacements: list, flat: list) -> tuple[list, set, set, bool]:
    """One visit of each distinct node of the results and of the definitions they need:
    those definitions (in order), the symbols met, the non-atomic sub-terms met more than once
    (a repeated term's own sub-terms counted once: it is computed once), and whether an
    exponential is among them."""
    met: set = set()
    shared: set = set()
    symbols: set = set()
    exp = False
    for expr in _needed(replacements, flat, symbols):
        stack = [expr]
        while stack:
            node = stack.pop()
            if node.is_Atom:
                if node.is_Symbol:
                    symbols.add(node)
                continue
            if node in met:
                shared.add(node)
                continue
            met.add(node)
            exp = exp or isinstance(node, sp.exp)
            stack.extend(node.args)
    kept = [(t, e) for t, e in replacements if t in symbols]
    return kept, symbols, shared, exp


def _needed(replacements: list, flat: list, symbols: set) -> Any:
    """The results, then the definitions they need, last first (each uses earlier ones only),
    as the caller's visits fill ``symbols``."""
    yield from flat
    for t, e in reversed(replacements):
        if t in symbols:
            yield e


def reuse_definitions(definitions: list, outputs: list) -> tuple[list, list]:
    """Later occurrences of a definition's right-hand side written as its name (the graph
    may compute one value at two nodes, or inside a bigger expression of a later node)."""
    rule: dict = {}
    kept = []
    for t, d in definitions:
        d = d.xreplace(rule) if rule else d
        if d.is_Symbol:  # the same value as an earlier definition
            rule[t] = d
            continue
        rule.setdefault(d, t)
        kept.append((t, d))
    return kept, [e.xreplace(rule) for e in outputs] if rule else outputs


def numpy_program(
    replacements: list, flat: list, names: dict, arg_names: list
) -> tuple[str, Any] | None:
    """``(source, function)`` computing ``flat`` from the arguments after ``replacements``
    (assignments ``symbol = expression``, in order); ``names`` maps the leaves' symbols to the
    argument names. None where an expression holds something only SymPy's printer prints.

    Raises ValueError when the expressions use a symbol that is neither a leaf nor assigned.
    """
    names = dict(names)
    defs = dict(replacements)
    kept, needed, shared, exp = _gather(replacements, list(flat))
    if exp:
        flat = [stable_form(e) for e in flat]
        kept, needed, shared, _ = _gather([(t, stable_form(e)) for t, e in kept], flat)
    if any(e in shared for _, e in kept):
        # a definition's value met again: written as its name there, so that what differs
        # only by that name is found equal
        kept, flat = reuse_definitions(kept, list(flat))
        kept, needed, shared, _ = _gather(kept, flat)
    for k, (s, _) in enumerate(kept):
        names[s] = f"t{k}"
    unknown = {s for s in needed if s not in names and s not in defs}
    if unknown:
        raise ValueError(
            f"the expressions use symbols that are not among the leaves: "
            f"{sorted(map(str, unknown))}; pass every tensor they depend on"
        )
    body = _Source(names, shared)
    try:
        for s, e in kept:
            body.assign(names[s], e)
        results = [body.operand(e, top=True) for e in flat]
    except (_Unsupported, RecursionError):
        return None
    source = "\n".join(
        [f"def _lambdifygenerated({', '.join(arg_names)}):", *body.lines]
        + [f"    return [{', '.join(results)}]", ""]
    )
    scope = dict(_namespace())
    exec(compile(source, "<symgrad-generated>", "exec"), scope)  # our own names only
    return source, scope["_lambdifygenerated"]
