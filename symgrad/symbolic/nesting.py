"""How deeply closed forms nest: inline formulas (one SymPy tree per element) deeper than
:data:`MAX_INLINE_DEPTH` are refused with :class:`SymbolicDepthError`, as SymPy's recursive
algorithms would fail on them."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import sympy as sp

from symgrad.prim.elementwise import Elementwise

__all__ = [
    "MAX_INLINE_DEPTH",
    "SymbolicDepthError",
    "DEPTH_MESSAGE",
    "FORWARD",
    "BACKWARD",
    "growth",
    "depth_of",
]

# deeper trees than this make SymPy's own recursive algorithms (printing, assumptions,
# differentiation) fail or crawl; assignment form has no such limit
MAX_INLINE_DEPTH = 200


class SymbolicDepthError(ValueError):
    """The closed form is too deeply nested to hold as one SymPy expression."""


FORWARD, BACKWARD = 0, 1
# (primitive, way) -> how much deeper than its inputs an element-wise rule's results can nest
_growths: dict = {}


def growth(prim: Any, way: int) -> int | None:
    """How much deeper than its inputs the results of ``prim`` nest at most, for element-wise
    primitives (their formula over the inputs, then a sum over broadcast dimensions); None for
    others, whose results are measured.

    Examples
    --------
    >>> from symgrad.ops.elementwise import REGISTRY
    >>> growth(REGISTRY["sin"], FORWARD), growth(REGISTRY["sin"], BACKWARD)
    (1, 3)
    """
    if not isinstance(prim, Elementwise):
        return None
    key = (prim, way)
    found = _growths.get(key)
    if found is None:
        if way == FORWARD:
            forms = [prim.expr]
        else:
            forms = list(prim.local_derivatives) + list(prim.partials)
        # the template's depth: each symbol (depth 1) replaced by an input; a product with
        # the incoming gradient and a sum over broadcast dimensions on the way back
        found = max(depth_of(np.array(forms, dtype=object)), 1) - 1 + 2 * way
        _growths[key] = found
    return found


DEPTH_MESSAGE = (
    "the closed form of this graph is nested too deeply to hold as one SymPy expression "
    f"(more than {MAX_INLINE_DEPTH} levels); pass cse=True to get it in assignment form "
    "(replacements, expressions), which stays linear in the size of the graph"
)


def depth_of(arr: np.ndarray, depth: dict | None = None) -> int:
    """The deepest nesting among the elements (iterative, shared subtrees visited once; the
    ``depth`` memo, kept by the caller, spares the trees already measured).

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> x = sp.Symbol("x")
    >>> depth_of(np.array([x, sp.sin(x), sp.sin(sp.cos(x))], dtype=object))
    3
    """
    depth = {} if depth is None else depth
    best = 0
    for e in arr.flat:
        e = sp.sympify(e, strict=True)
        stack = [(e, False)]
        while stack:
            node, done = stack.pop()
            if node in depth:
                continue
            if done or not node.args:
                depth[node] = 1 + max((depth.get(a, 0) for a in node.args), default=0)
                continue
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in depth)
            if len(stack) > sys.getrecursionlimit() * 50:
                return MAX_INLINE_DEPTH + 1
        best = max(best, depth[e])
    return best
