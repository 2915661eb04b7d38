"""Closed forms turned into fast NumPy functions (and C source) with common subexpressions
shared. Generated code uses only names of its own (``a0``, ``t3``): the names of tensors and
symbols never become source text, so no name can inject code."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from symgrad.prim import kernels
from symgrad.symbolic.names import symbol_array_of
from symgrad.tensor import Tensor

__all__ = ["lambdify", "compile_gradient", "CompiledFunction"]


# SymPy's C printer uses these POSIX names, which strict C99's <math.h> does not define
_C99_CONSTANTS = [
    f"#ifndef {name}\n#define {name} {value}\n#endif"
    for name, value in (
        ("M_PI", "3.14159265358979323846"),
        ("M_E", "2.71828182845904523536"),
        ("M_SQRT2", "1.41421356237309504880"),
        ("M_1_PI", "0.31830988618379067154"),
        ("M_2_PI", "0.63661977236758134308"),
        ("M_2_SQRTPI", "1.12837916709551257390"),
        ("M_SQRT1_2", "0.70710678118654752440"),
        ("M_LN2", "0.69314718055994530942"),
        ("M_LN10", "2.30258509299404568402"),
        ("M_PI_2", "1.57079632679489661923"),
        ("M_PI_4", "0.78539816339744830962"),
    )
]


def _leaf_symbols(leaf: Any) -> tuple[list, tuple]:
    """The element symbols of a leaf (a tensor, a symbol, a Matrix/Array of symbols) and its
    shape."""
    if isinstance(leaf, Tensor):
        arr = symbol_array_of(leaf)
        return list(arr.flat)[: 1 if leaf.numel() == 1 else None], (
            () if leaf.numel() == 1 else leaf.shape
        )
    if isinstance(leaf, sp.Symbol):
        return [leaf], ()
    if isinstance(leaf, (sp.MatrixBase, sp.NDimArray)):
        return list(leaf), tuple(leaf.shape)
    raise TypeError(
        f"leaves must be tensors or SymPy symbols / matrices of symbols, got {type(leaf).__name__}"
    )


def _outputs(exprs: Any) -> tuple[list, list, bool]:
    """Flat scalar expressions, the shape of each output, whether a single output was given."""
    single = not isinstance(exprs, (list, tuple))
    items = [exprs] if single else list(exprs)
    flat, shapes = [], []
    for e in items:
        if isinstance(e, (sp.MatrixBase, sp.NDimArray)):
            shapes.append(tuple(e.shape))
            flat.extend(sp.sympify(v, strict=True) for v in e)
        else:
            shapes.append(())
            flat.append(sp.sympify(e, strict=True))
    return flat, shapes, single


class CompiledFunction:
    """A closed form as one NumPy function, called with one array per leaf.

    Attributes
    ----------
    source : str
        The generated Python source (readable; arguments ``a0, a1, ...`` are the leaves'
        elements in order, see ``arguments``).
    arguments : list of (str, sympy.Symbol)
        Which generated argument stands for which symbol.
    """

    def __init__(
        self,
        fn: Any,
        leaves: list,
        arg_names: list,
        exprs: list,
        replacements: list,
        shapes: list,
        single: bool,
    ) -> None:
        self._fn = fn
        self._leaves = leaves  # (symbols, shape) per leaf
        self._shapes = shapes
        self._single = single
        self._exprs = exprs
        self._replacements = replacements
        self.source = inspect.getsource(fn)
        self.extra_tensors: list = []  # compile_gradient: the other named tensors, in order
        self.arguments = [(n, s) for n, s in zip(arg_names, (s for ss, _ in leaves for s in ss))]

    def __call__(self, *arrays: Any) -> Any:
        if len(arrays) != len(self._leaves):
            raise TypeError(
                f"this function takes {len(self._leaves)} arrays (one per leaf), got {len(arrays)}"
            )
        args = []
        batch: tuple = ()
        for k, (a, (_, shape)) in enumerate(zip(arrays, self._leaves)):
            a = np.asarray(a._data if isinstance(a, Tensor) else a, dtype=np.float64)
            if a.shape[a.ndim - len(shape) :] != shape if shape else False:
                raise ValueError(
                    f"argument {k} must have shape {list(shape)} (with optional leading batch "
                    f"dimensions), got {list(a.shape)}"
                )
            lead = a.shape[: a.ndim - len(shape)]
            batch = np.broadcast_shapes(batch, lead)
            args.extend(a[(...,) + index] for index in np.ndindex(*shape))
        flat = self._fn(*args)
        results, start = [], 0
        for shape in self._shapes:
            n = int(np.prod(shape)) if shape else 1
            values = [
                np.broadcast_to(np.asarray(v, dtype=np.float64), batch)
                for v in flat[start : start + n]
            ]
            start += n
            out = (
                np.stack(values, axis=-1).reshape(batch + shape)
                if values
                else np.zeros(batch + shape)
            )
            results.append(out)
        return results[0] if self._single else results

    def c_source(self, name: str = "f") -> str:
        """C99 source of the same computation: ``void name(const double *in0, ...,
        double *out0, ...)`` with each array flattened in row-major order."""
        if not name.isidentifier():
            raise ValueError(f"the C function name must be an identifier, got {name!r}")
        ins = [f"const double *in{k}" for k in range(len(self._leaves))]
        outs = [f"double *out{k}" for k in range(len(self._shapes))]
        signature = f"void {name}({', '.join(ins + outs)}) {{"
        lines = ["#include <math.h>", *_C99_CONSTANTS, "", signature]
        a = 0
        for k, (symbols, _) in enumerate(self._leaves):
            for j in range(len(symbols)):
                lines.append(f"    const double a{a} = in{k}[{j}];")
                a += 1
        for s, e in self._replacements:
            lines.append(f"    const double {s} = {sp.ccode(e)};")
        start = 0
        for k, shape in enumerate(self._shapes):
            n = int(np.prod(shape)) if shape else 1
            for j in range(n):
                lines.append(f"    out{k}[{j}] = {sp.ccode(self._exprs[start + j])};")
            start += n
        lines.append("}")
        return "\n".join(lines) + "\n"


def _used(replacements: list, exprs: list) -> list:
    """The replacements the expressions need, directly or through other replacements."""
    needed = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    kept = []
    for s, e in reversed(replacements):
        if s in needed:
            kept.append((s, e))
            needed |= e.free_symbols
    return kept[::-1]


def lambdify(exprs: Any, leaves: Sequence[Any]) -> CompiledFunction:
    """Turn closed forms into one NumPy function of the leaves' values.

    ``exprs`` is an expression, a Matrix/Array, a list of those, or a ``(replacements,
    expressions)`` pair from ``cse=True``; ``leaves`` are tensors (their symbols) or SymPy
    symbols / matrices of symbols, in the order the function takes them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import gradient, lambdify
    >>> x = symgrad.tensor(1.0, requires_grad=True, name="x")
    >>> f = lambdify(gradient(x ** 3, x), [x])
    >>> float(f(2.0))
    12.0
    """
    replacements: list = []
    if (
        isinstance(exprs, tuple)
        and len(exprs) == 2
        and isinstance(exprs[0], list)
        and all(isinstance(p, tuple) and len(p) == 2 for p in exprs[0])
    ):
        replacements, exprs = exprs
    if not isinstance(leaves, (list, tuple)):
        leaves = [leaves]
    leaf_info = [_leaf_symbols(leaf) for leaf in leaves]
    flat, shapes, single = _outputs(exprs)
    # our own names only: a0.. for inputs, t0.. for the replacements
    arg_syms = [sp.Symbol(f"a{i}", real=True) for i in range(sum(len(s) for s, _ in leaf_info))]
    rename = dict(zip((s for ss, _ in leaf_info for s in ss), arg_syms))
    renamed_repl = []
    for k, (s, e) in enumerate(replacements):
        t = sp.Symbol(f"t{k}", real=True)
        renamed_repl.append((t, e.xreplace(rename)))
        rename[s] = t
    flat = [e.xreplace(rename) for e in flat]
    renamed_repl = _used(renamed_repl, flat)
    free = set().union(*(e.free_symbols for e in flat), *(e.free_symbols for _, e in renamed_repl))
    unknown = free - set(arg_syms) - {t for t, _ in renamed_repl}
    if unknown:
        raise ValueError(
            f"the expressions use symbols that are not among the leaves: "
            f"{sorted(map(str, unknown))}; pass every tensor they depend on"
        )

    def cse(exprs: list) -> tuple:
        extra, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("c"))
        return renamed_repl + extra, reduced

    fn = kernels.lambdify(arg_syms, flat, cse=cse, where=False)
    return CompiledFunction(
        fn, leaf_info, [str(s) for s in arg_syms], flat, renamed_repl, shapes, single
    )


def compile_gradient(y: Tensor, xs: Any) -> CompiledFunction:
    """The closed-form gradient of ``y`` with respect to ``xs`` as one NumPy function.

    It takes the arrays of ``xs`` and then those of the other named tensors ``y`` depends on
    (constants given a name), in the order their names sort; ``.arguments`` lists them all.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import compile_gradient
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    >>> f = compile_gradient((w * w).sum(), w)
    >>> f([3.0, 4.0])
    array([6., 8.])
    """
    from symgrad.prim.sympy_xp import to_sympy
    from symgrad.symbolic.calculus import gradient_replay

    single = isinstance(xs, Tensor)
    xs_list = [xs] if single else list(xs)
    replay, grads = gradient_replay(y, xs_list, cse=True)
    values = [to_sympy(g) if g.ndim else sp.sympify(g[()], strict=True) for g in grads]
    given = {id(x) for x in xs_list}
    others = sorted(
        (t for k, t in replay.leaves.items() if k not in given), key=lambda t: str(t.name)
    )
    compiled = lambdify((replay.definitions, values[0] if single else values), xs_list + others)
    compiled.extra_tensors = others
    return compiled
