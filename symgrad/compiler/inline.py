"""A structural step's forward and VJP rules written into the program as NumPy lines.

Run on the code interpreter (:mod:`symgrad.compiler.code_xp`), a rule of the vocabulary becomes
the straight-line code it would execute on these shapes: a matrix product's gradient is one
``@`` of two views, a loss's gradient its partial's kernel and a division. The program then
calls no rule, builds no context and checks no shapes at run time. A step whose rule the code
interpreter can't write keeps its call of the rule (``None`` here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.compiler.code_xp import CodeXP, Emitter, Unemittable, Var
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural

__all__ = ["inline_forward", "inline_vjp", "without_dead_lines"]

# what a rule may raise on the code interpreter: the step is then called, not written
_REFUSED = (Unemittable, TypeError, AttributeError, ValueError, NotImplementedError)


def _writable(step: Any) -> bool:
    prim = step.prim
    return (
        isinstance(prim, Structural)
        and step.param_fn is None
        and len(step.keys) == 1
        and not hasattr(prim, "n_outputs")
    )


def _own_numpy_path(rule: Any) -> bool:
    """Whether a rule takes a path of its own on the NumPy interpreter (``if xp is NP``: a
    convolution's col2im by strided slices, pooling's windows), faster there than the
    vocabulary's words it says to every other interpreter: such a rule is called."""
    # (a rule wrapped for create_graph, PyTorch's nodes of a gradient: the rule it wraps)
    code = getattr(getattr(rule, "__wrapped__", rule), "__code__", None)
    return code is None or "NP" in code.co_names


def _operands(em: Emitter, step: Any, names: dict, values: dict) -> tuple:
    return tuple(
        key[1] if key[0] == "const" else Var(em, names[key], values[key]) for key in step.inputs
    )


def _named(em: Emitter, result: Var, name: str) -> None:
    """Make the line computing ``result`` assign ``name`` instead (or add one that does)."""
    last = em.lines[-1] if em.lines else ""
    head = f"    {result.name} = "
    if last.startswith(head) and result.name.startswith(em.prefix):
        em.lines[-1] = f"    {name} = {last[len(head) :]}"
    else:
        em.lines.append(f"    {name} = {result.name}")


def inline_forward(
    step: Any, j: int, names: dict, values: dict, ns: dict, known: dict
) -> tuple | None:
    """``(lines, value)`` computing step ``j``'s output from its forward rule, or None."""
    prim = step.prim
    if (
        not _writable(step)
        or _own_numpy_path(prim.forward)
        or (prim.kernel is not prim.forward and not getattr(prim.kernel, "faster_only", False))
    ):
        # a kernel of its own, stabler than the rule, is called; one marked ``faster_only``
        # gives the rule's very values (its steps on NumPy, or other strides of dimensions
        # of size 1 only), which the written lines give as well
        return None
    em = Emitter(ns, f"_f{j}", known)
    try:
        out = step.prim.forward(CodeXP(em), *_operands(em, step, names, values), **step.params)
    except _REFUSED:
        return None
    want = step.arrays[0]
    if type(out) is not Var or not out.name.startswith(em.prefix):
        return None
    if type(out.value) is not np.ndarray:  # NumPy's scalar of a whole reduction: an array
        out = em.emit(f"{em.const(np.asarray)}({out.name})", np.asarray(out.value))
    if out.value.shape != want.shape or out.value.dtype != want.dtype:
        return None
    _named(em, out, names[step.key])
    return em.lines, out.value


def inline_vjp(
    step: Any, j: int, needs: list, names: dict, values: dict, g: str, ns: dict, known: dict
) -> tuple | None:
    """``(lines, grads, used)`` for step ``j``'s VJP with its output's gradient named ``g``:
    the name of each input's gradient (None where none), and the forward values the lines
    read; or None."""
    rule = step.prim.vjp
    if getattr(rule, "half_only", False) and step.arrays[0].dtype != np.float16:
        rule = rule.__wrapped__  # its float16 path (in float32) is not taken: the rule itself
    if not _writable(step) or _own_numpy_path(rule):
        return None
    em = Emitter(ns, f"_b{j}", known)
    shape, dtype = step.arrays[0].shape, step.arrays[0].dtype
    grad = Var(em, g, np.ones(shape, dtype))
    out = Var(em, names[step.key], values[step.key])
    inputs = _operands(em, step, names, values)
    ctx = Ctx(inputs, out, None, tuple(needs), step.params, 0, step.meta)
    xp = CodeXP(em)
    try:
        result = rule(xp, grad, ctx)
        grads: list[str | None] = []
        for r, need, (want_shape, want_dtype) in zip(result, needs, step.meta):
            if r is None or not need:
                grads.append(None)
                continue
            if type(r) is not Var:
                raise Unemittable("a gradient that is not computed from values")
            r = xp.sum_to_size(r, want_shape)
            if type(r.value) is not np.ndarray:
                r = em.emit(f"{em.const(np.asarray)}({r.name})", np.asarray(r.value))
            if r.value.dtype != want_dtype:
                r = r.astype(want_dtype)
            grads.append(r.name)
    except _REFUSED:
        return None
    outside = {v.name for v in (*ctx.inputs, out) if type(v) is Var}
    used = {name for line in em.lines for name in _names(line) if name in outside}
    used.update(name for name in grads if name in outside)
    return em.lines, grads, used


def _names(line: str) -> list[str]:
    """The identifiers a generated line reads (right of its ``=``)."""
    source = line.split(" = ", 1)[1]
    word, found = "", []
    for ch in source + " ":
        if ch.isalnum() or ch == "_":
            word += ch
        else:
            if word and not word[0].isdigit():
                found.append(word)
            word = ""
    return found


def without_dead_lines(lines: list[str], keep: tuple = ("r",)) -> tuple[list[str], set]:
    """``lines`` without the assignments no later line reads (a gradient nobody asks for once
    a transpose of a transpose was dropped, a view of it), and the names the rest read.
    Only temporaries and gradients are dropped; the lines compute nothing else."""
    live: set[str] = set()
    kept: list[str] = []
    for line in reversed(lines):
        body = line.strip()
        if " = " in body and not body.startswith("#"):
            target, _ = body.split(" = ", 1)
            if (
                target.isidentifier()
                and target not in live
                and target not in keep
                and target[0] in "_g"
            ):
                continue
            live.update(_names(line))
        elif body.startswith("return") or (body and not body.startswith("#")):
            live.update(_names("x = " + body))
        kept.append(line)
    kept.reverse()
    return kept, live
