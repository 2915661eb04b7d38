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
runs block by block on every core (:mod:`symgrad.prim.blocks`). numexpr built without
Intel's VML calls libm's functions, slower than NumPy's vectorised ones: its large regions run
that way too. The region's primitive is :class:`symgrad.compiler.region.FusedRegion`.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import sympy as sp

from symgrad.compiler.numexpr_source import FUNCTIONS as _FUNCTIONS
from symgrad.compiler.numexpr_source import Unprintable as _Unprintable
from symgrad.compiler.numexpr_source import to_source as _print
from symgrad.compiler.region import FusedRegion
from symgrad.prim import blocks
from symgrad.prim.elementwise import Elementwise

__all__ = ["fuse", "MIN_SIZE"]

MIN_SIZE = 4096  # elements: below this a NumPy call is cheaper than numexpr's
_MAX_MEMBERS = 24  # numexpr compiles every expression into a program of bounded size
_MAX_INPUTS = 16

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


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
    block by block on every core (:mod:`symgrad.prim.blocks`).

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
            fused.steps.append(_FusedStep(regions[id(step)], _engine(engine, step)))
        elif id(step) in regions:
            fused.steps.extend(regions[id(step)])  # too small: the NumPy steps as they were
        else:
            fused.steps.append(step)
    return fused


def _least(engine: str) -> int:
    """The elements a region needs to be fused: numexpr's call pays from ``MIN_SIZE``; the
    NumPy engine's regions pay once they are cut into blocks for the cores."""
    return MIN_SIZE if engine == "numexpr" else blocks.MIN_BLOCKED


def _engine(engine: str, root: Any) -> str:
    """The engine of the region ending at ``root``: numexpr's loops call libm's functions
    unless numexpr is built on Intel's VML, and NumPy's vectorised ones are faster; without
    VML, a region large enough to be cut into blocks runs as the NumPy engine's do (NumPy's
    functions, block by block on every core), numexpr computing the smaller ones."""
    if engine == "numexpr" and root.arrays[0].size >= blocks.MIN_BLOCKED:
        if not getattr(require_numexpr(), "use_vml", False):
            return "numpy"
    return engine


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
        self.prim = FusedRegion(members, kept, self.inputs, root.arrays[0].dtype, engine)

    def use_partials(self, needs: list) -> None:
        """Keep the partial derivatives for the inputs ``needs`` marks, instead of the
        costly members, where the region's primitive finds that worth it
        (:meth:`FusedRegion.use_partials`): its outputs are then the result and the
        partials, all of the result's shape and dtype."""
        if self.prim.use_partials(needs):
            count = self.prim.n_outputs - 1
            self.keys = [self.key] + [("partial", id(self), k) for k in range(count)]
            self.values = (self.values[0],) * (1 + count)
            self.arrays = (self.arrays[0],) * (1 + count)


def _costly(expr: Any) -> bool:
    """Whether a formula calls a function other than abs or takes a root: worth storing
    rather than computing again (products, sums and small powers are not)."""
    for e in sp.preorder_traversal(expr):
        if e.func in _FUNCTIONS and e.func is not sp.Abs:
            return True
        if e.is_Pow and not e.exp.is_Integer:
            return True
    return False
