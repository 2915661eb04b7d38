"""Closed forms turned into fast NumPy functions (and C source) with common subexpressions
shared. Generated code uses only names of its own (``a0``, ``t3``): the names of tensors and
symbols never become source text, so no name can inject code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp
from sympy.simplify.cse_main import tree_cse

from symgrad.prim import kernels
from symgrad.symbolic.compiled import REDUCTIONS, CompiledFunction
from symgrad.symbolic.fast_source import numpy_program, reuse_definitions
from symgrad.symbolic.names import symbol_array_of
from symgrad.symbolic.stable import stable_form
from symgrad.tensor import Tensor

__all__ = ["lambdify", "compile_gradient", "CompiledFunction"]


def _leaf_symbols(leaf: Any) -> tuple[list, tuple]:
    """The element symbols of a leaf (a tensor, a symbol, a Matrix/Array of symbols) and its
    shape."""
    if isinstance(leaf, Tensor):
        arr = symbol_array_of(leaf)
        # a one-element tensor is one symbol, whatever its shape ([1] or [1, 1])
        return list(arr.flat)[: 1 if leaf.numel() == 1 else None], tuple(leaf.shape)
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
        if isinstance(e, np.ndarray):  # an object array of expressions (compile_gradient's)
            shapes.append(e.shape)
            flat.extend(sp.sympify(v, strict=True) for v in e.flat)
        elif isinstance(e, (sp.MatrixBase, sp.NDimArray)):
            shapes.append(tuple(e.shape))
            # a dense array's elements as its list holds them (indexing each one parses it)
            flat.extend(sp.sympify(v, strict=True) for v in getattr(e, "_array", e))
        else:
            shapes.append(())
            flat.append(sp.sympify(e, strict=True))
    return flat, shapes, single


def _used(replacements: list, exprs: list) -> list:
    """The replacements the expressions need, directly or through other replacements."""
    needed = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    kept = []
    for s, e in reversed(replacements):
        if s in needed:
            kept.append((s, e))
            needed |= e.free_symbols
    return kept[::-1]


def _split(exprs: Any) -> tuple[list, Any]:
    """``(replacements, expressions)`` from a ``cse=True`` pair, or no replacements."""
    if (
        isinstance(exprs, tuple)
        and len(exprs) == 2
        and isinstance(exprs[0], list)
        and all(isinstance(p, tuple) and len(p) == 2 for p in exprs[0])
    ):
        return exprs[0], exprs[1]
    return [], exprs


def _numbered(prefix: str) -> Any:
    k = 0
    while True:
        yield sp.Symbol(f"{prefix}{k}", real=True)
        k += 1


def _program(replacements: list, flat: list, leaf_syms: list, arg_names: list) -> tuple[list, list]:
    """The assignments and results to print: our own names (``a0`` for the leaves' elements,
    ``t1`` for the intermediates), what the results need only, stable forms, shared terms."""
    arg_syms = [sp.Symbol(n, real=True) for n in arg_names]
    rename = dict(zip(leaf_syms, arg_syms))
    renamed = []
    for k, (s, e) in enumerate(replacements):
        t = sp.Symbol(f"t{k}", real=True)
        renamed.append((t, e.xreplace(rename)))
        rename[s] = t
    flat = [e.xreplace(rename) for e in flat]
    renamed = _used(renamed, flat)
    free = set().union(*(e.free_symbols for e in flat), *(e.free_symbols for _, e in renamed))
    unknown = free - set(arg_syms) - {t for t, _ in renamed}
    if unknown:
        raise ValueError(
            f"the expressions use symbols that are not among the leaves: "
            f"{sorted(map(str, unknown))}; pass every tensor they depend on"
        )
    renamed = [(t, stable_form(e)) for t, e in renamed]
    return _shared(renamed, [stable_form(e) for e in flat])


def _shared(definitions: list, outputs: list) -> tuple[list, list]:
    """Every sub-term used more than once computed once: common sub-expressions found over
    the definitions and the results together (``c0``, ``c1``, ...), each placed just before
    the first assignment that uses it."""
    names = _numbered("c")
    definitions, outputs = reuse_definitions(definitions, outputs)
    while True:
        program, outputs, merged = _eliminate(definitions, outputs, names)
        if not merged:
            return program, outputs
        # a definition found to equal a shared term was merged with it: expressions that
        # differed only by the two names may now be equal, so look again
        definitions = program


def _eliminate(definitions: list, outputs: list, names: Any) -> tuple[list, list, bool]:
    """One pass of common sub-expression elimination (SymPy's ``tree_cse``, without
    ``cse``'s search for common subsets of sums and products, which grows quadratically)."""
    found, reduced = tree_cse(
        [d for _, d in definitions] + outputs, names, opt_subs={}, order="none"
    )
    waiting = dict(found)  # the shared terms not placed yet
    rank = {c: k for k, (c, _) in enumerate(found)}
    program: list = []
    alias: dict = {}  # a definition that is all one shared term is that term

    def place(expr: Any) -> None:
        """Place the waiting terms ``expr`` uses, directly or through other terms."""
        need, todo = {}, [expr]
        while todo:
            for s in todo.pop().free_symbols:
                if s in waiting:
                    need[s] = waiting.pop(s)
                    todo.append(need[s])
        # a term uses only terms found before it
        for c in sorted(need, key=rank.__getitem__):
            program.append((c, need[c].xreplace(alias)))

    for (t, _), r in zip(definitions, reduced):
        place(r)
        if r.is_Symbol:
            alias[t] = alias.get(r, r)
            continue
        program.append((t, r.xreplace(alias)))
    results = reduced[len(definitions) :]
    for r in results:
        place(r)
    return program, [r.xreplace(alias) for r in results], bool(alias)


BACKENDS = ("numpy", "jax", "symengine")


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}"
        )
    if backend == "jax":
        from symgrad.symbolic.jax_export import require_jax

        require_jax()
    if backend == "symengine":
        from symgrad.symbolic.symengine_convert import require_symengine

        require_symengine()


def lambdify(exprs: Any, leaves: Sequence[Any], *, backend: str = "numpy") -> CompiledFunction:
    """Turn closed forms into one NumPy function of the leaves' values.

    ``exprs`` is an expression, a Matrix/Array, a list of those, or a ``(replacements,
    expressions)`` pair from ``cse=True``; ``leaves`` are tensors (their symbols) or SymPy
    symbols / matrices of symbols, in the order the function takes them. Each sub-term used
    more than once is computed once, and exponentials that would overflow where the result is
    finite are computed by stable kernels (see :mod:`symgrad.symbolic.stable`).
    ``backend="jax"`` prints the same program against ``jax.numpy``: a pure function that
    ``jax.jit`` compiles (see :class:`~symgrad.symbolic.jax_export.JaxFunction`). Called on
    Dask arrays, the NumPy function evaluates chunk by chunk (see
    :mod:`symgrad.symbolic.chunked`). ``backend="symengine"`` compiles with SymEngine's
    ``Lambdify`` instead (``pip install symgrad[symengine]``): much sooner for large
    expressions, without the stable kernels (see :mod:`symgrad.symbolic.symengine_compile`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import gradient, lambdify
    >>> x = symgrad.tensor(1.0, requires_grad=True, name="x")
    >>> f = lambdify(gradient(x ** 3, x), [x])
    >>> float(f(2.0))
    12.0
    """
    _check_backend(backend)
    replacements, exprs = _split(exprs)
    if not isinstance(leaves, (list, tuple)):
        leaves = [leaves]
    leaf_info = [_leaf_symbols(leaf) for leaf in leaves]
    flat, shapes, single = _outputs(exprs)
    if backend == "symengine":
        from symgrad.symbolic.symengine_compile import NoSymEngineKernel, symengine_lambdify

        try:
            return symengine_lambdify(*_all_defined(replacements, flat), shapes, single, leaf_info)
        except NoSymEngineKernel:
            backend = "numpy"  # a function SymEngine can't evaluate: NumPy's way
    # our own names only: a0.. for inputs, t0.. for the replacements, c0.. for shared terms
    leaf_syms = [s for ss, _ in leaf_info for s in ss]
    arg_names = [f"a{i}" for i in range(len(leaf_syms))]
    if backend == "numpy":  # (its printer writes SymPy's complex infinity as nan)
        fast = numpy_program(replacements, flat, dict(zip(leaf_syms, arg_names)), arg_names)
        if fast is not None:
            source, fn = fast
            program = lambda: _program(  # noqa: E731
                *_all_defined(replacements, flat), leaf_syms, arg_names
            )
            return CompiledFunction(fn, leaf_info, arg_names, program, shapes, single, source)
    replacements, flat = _all_defined(replacements, flat)
    assignments, results = _program(replacements, flat, leaf_syms, arg_names)
    arg_syms = [sp.Symbol(n, real=True) for n in arg_names]
    cls, modules = CompiledFunction, None
    if backend == "jax":
        from symgrad.symbolic.jax_export import JaxFunction, jax_modules

        cls, modules = JaxFunction, jax_modules()
    fn = kernels.lambdify(
        arg_syms, results, cse=lambda _: (assignments, results), where=False, modules=modules
    )
    return cls(fn, leaf_info, arg_names, (assignments, results), shapes, single)


def _all_defined(replacements: list, flat: list) -> tuple[list, list]:
    """SymPy's complex infinity (a constant folded into log(0) or 1/0) has no NumPy spelling:
    it is undefined, nan as a real number. An integer beyond int64 (``1/eps**2`` of a clamp's
    derivative) is a float: as a Python int it would make NumPy arrays of objects."""
    return [(s, _defined(e)) for s, e in replacements], [_defined(e) for e in flat]


def _defined(e: Any) -> Any:
    if not isinstance(e, sp.Basic):
        return e
    if e.has(sp.zoo):
        e = e.xreplace({sp.zoo: sp.nan})
    huge = {i: sp.Float(i) for i in e.atoms(sp.Integer) if abs(i) > _INT64_MAX}
    return e.xreplace(huge) if huge else e


_INT64_MAX = 2**63 - 1


def compile_gradient(
    y: Tensor,
    xs: Any,
    *,
    batch: Any = None,
    reduction: str | None = None,
    backend: str = "numpy",
) -> CompiledFunction:
    """The closed-form gradient of ``y`` with respect to ``xs`` as one NumPy function.

    It takes the arrays of ``xs`` and then those of the other named tensors ``y`` depends on
    (constants given a name), in the order their names sort; ``.arguments`` lists them all.

    Parameters
    ----------
    y : Tensor
        A one-element tensor: a loss.
    xs : Tensor or list of Tensor
        What to differentiate by: the function returns one gradient per tensor.
    batch : Tensor or list of Tensor, optional
        For ``y`` computed from ONE sample: the named tensors that hold that sample (its
        features, its target). The function then takes, for each of them, an array with one
        more leading dimension, ``N`` samples, and evaluates the one-sample gradient for all
        of them at once; every other argument keeps its own shape. Compiling costs what one
        sample costs, however large the batch it is called with.
    reduction : {"mean", "sum", "none"}, optional
        With ``batch``: the gradient of the mean (the default, PyTorch losses' default) or of
        the sum of the samples' losses, or ``"none"``, the per-sample gradients (what
        ``torch.func.vmap(torch.func.grad(loss), ...)`` gives), each of shape ``(N, *x.shape)``.
        The gradient of a tensor in ``batch`` itself (differentiating by the data) is always
        one per sample, divided by ``N`` for ``"mean"``.
    backend : {"numpy", "jax", "symengine"}, optional
        ``"numpy"`` (the default): a NumPy function, computing in float64; given Dask arrays
        it returns lazy Dask arrays, evaluated chunk by chunk (per-chunk partial sums for
        ``"mean"`` and ``"sum"``), in parallel and out of core (extra ``dask``). ``"jax"``: a
        pure ``jax.numpy`` function in its arguments' dtype, for ``jax.jit`` (extra ``jax``).
        ``"symengine"``: the graph replayed and compiled by SymEngine, no SymPy expression
        built (extra ``symengine``): the fastest to compile for large graphs.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import compile_gradient
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    >>> f = compile_gradient((w * w).sum(), w)
    >>> f([3.0, 4.0])
    array([6., 8.])

    One sample's squared error, evaluated over three samples:

    >>> x = symgrad.tensor([1.0, 1.0], name="x")
    >>> y = symgrad.tensor(0.0, name="y")
    >>> loss = (x @ w - y) ** 2
    >>> per_sample = compile_gradient(loss, w, batch=[x, y], reduction="none")
    >>> [str(t.name) for t in per_sample.extra_tensors]  # the arguments after w
    ['x', 'y']
    >>> X, Y = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.0, 0.0, 3.0]
    >>> per_sample([1.0, 2.0], X, Y)
    array([[2., 0.],
           [0., 4.],
           [0., 0.]])
    >>> compile_gradient(loss, w, batch=[x, y])([1.0, 2.0], X, Y)  # of the mean loss
    array([0.66666667, 1.33333333])
    """
    from symgrad.prim.sympy_xp import to_sympy
    from symgrad.symbolic.calculus import gradient_replay

    _check_backend(backend)
    single = isinstance(xs, Tensor)
    xs_list = [xs] if single else list(xs)
    if batch is None and reduction is not None:
        raise ValueError(
            f"reduction={reduction!r} reduces over a batch of samples: pass batch=[...], the "
            "tensors that hold one sample"
        )
    if backend == "symengine":
        from symgrad.symbolic.symengine_compile import NoSymEngineKernel, symengine_compile_gradient

        try:
            compiled, others = symengine_compile_gradient(y, xs_list, single)
        except NoSymEngineKernel:
            return compile_gradient(y, xs, batch=batch, reduction=reduction)
        compiled.extra_tensors = others
        if batch is not None:
            _batched(compiled, xs_list, xs_list + others, batch, reduction)
        return compiled
    # (the definitions' names stay inside the function: they may come in the order needed)
    replay, grads = gradient_replay(y, xs_list, cse=True, lazy=True)
    # the gradients' object arrays as they are (the jax backend prints SymPy arrays)
    wrap = to_sympy if backend == "jax" else np.asarray
    values = [wrap(g) if g.ndim else sp.sympify(g[()], strict=True) for g in grads]
    given = {id(x) for x in xs_list}
    others = sorted(
        (t for k, t in replay.leaves.items() if k not in given), key=lambda t: str(t.name)
    )
    compiled = lambdify(
        (replay.definitions, values[0] if single else values), xs_list + others, backend=backend
    )
    compiled.extra_tensors = others
    if batch is not None:
        _batched(compiled, xs_list, xs_list + others, batch, reduction)
    return compiled


def _batched(
    compiled: CompiledFunction, xs: list, arguments: list, batch: Any, reduction: str | None
) -> None:
    """Set ``compiled`` to evaluate over a batch of the samples ``batch`` holds."""
    reduction = "mean" if reduction is None else reduction
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"reduction must be one of {', '.join(map(repr, REDUCTIONS))}, got {reduction!r}"
        )
    tensors = [batch] if isinstance(batch, Tensor) else list(batch)
    if not tensors:
        raise ValueError("batch= lists no tensor: give the tensors that hold one sample")
    positions = []
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"batch= takes tensors, got {type(t).__name__} at position {k}")
        found = [i for i, a in enumerate(arguments) if a is t]
        if not found:
            label = repr(t.name) if t.name else f"of shape {list(t.shape)}"
            raise ValueError(
                f"the batch tensor {label} is not an argument of the gradient function: the "
                "loss does not use it, or it is an unnamed constant (name it so that it "
                "stays a symbol: t.name = 'x')"
            )
        positions.append(found[0])
    per_sample = [any(x is t for t in tensors) for x in xs]
    compiled._set_batch(sorted(set(positions)), per_sample, reduction)
