"""Closed forms of a traced computation: expression, gradient, Jacobian, Hessian."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd.engine import grad as engine_grad
from symgrad.autograd.grad_mode import enable_grad
from symgrad.prim.sympy_xp import to_sympy
from symgrad.symbolic.matrix import MatrixReplay, as_result
from symgrad.symbolic.names import is_symbolic
from symgrad.symbolic.printing import Assignments, Blocks, Results
from symgrad.symbolic.recognise import simplified
from symgrad.symbolic.replay import Replay, seed_ones
from symgrad.symbolic.second_order import NoClosedSecondOrder, hessian_sweep
from symgrad.symbolic.symengine_backend import check_backend, hessian_blocks, new_replay
from symgrad.tensor import Tensor

__all__ = ["expression", "gradient", "jacobian", "hessian"]


def _tensor(t: Any, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {type(t).__name__}")
    return t


def _simplified_arrays(arrays: list, simplify: Any) -> list:
    """The arrays of expressions simplified as ``simplify=`` asks, shared parts once."""
    if not simplify:
        return arrays
    done = iter(simplified([e for a in arrays for e in a.flat], simplify))
    result = []
    for a in arrays:
        out = np.empty(a.shape, dtype=object)
        for index in np.ndindex(a.shape):
            out[index] = next(done)
        result.append(out)
    return result


def _assignments(definitions: list, result: Any, simplify: Any) -> Assignments:
    """The ``(replacements, result)`` pair, the replacements simplified as ``simplify=`` asks
    (the shared sub-terms named, each in the familiar form)."""
    if simplify:
        found = simplified([d for _, d in definitions], simplify)
        definitions = [(s, d) for (s, _), d in zip(definitions, found)]
    return Assignments((definitions, result))


def _finish(arr: np.ndarray, simplify: Any) -> Any:
    (arr,) = _simplified_arrays([np.asarray(arr, dtype=object)], simplify)
    return to_sympy(arr) if arr.size != 1 or arr.ndim == 0 else sp.sympify(arr.flat[0], strict=True)


def expression(
    t: Tensor,
    *,
    cse: bool = False,
    simplify: Any = False,
    as_float: bool = False,
    form: str = "elements",
) -> Any:
    """The closed form of ``t`` in terms of the leaves' symbols.

    A one-element tensor gives a SymPy expression, a 2-D tensor a ``Matrix``, any other an
    ``Array`` of its shape. With ``cse=True`` the result is ``(replacements, expression)`` in
    assignment form, which stays linear in the size of the graph however deep it is. With
    ``form="matrix"`` named vectors and matrices stay whole (``MatrixSymbol`` s) and the result
    is a SymPy matrix expression (see :mod:`symgrad.symbolic.matrix`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import expression
    >>> a = symgrad.tensor(2.0, requires_grad=True, name="a")
    >>> d = symgrad.tensor(10.0, requires_grad=True, name="d")
    >>> expression(a * a + symgrad.log(d))
    a**2 + log(d)
    """
    t = _tensor(t, "expression()'s argument")
    if _matrix_form(form):
        return as_result(MatrixReplay().value(t))
    replay = Replay(cse=cse, as_float=as_float)
    value = _finish(replay.value(t), simplify)
    return _assignments(replay.definitions, value, simplify) if cse else value


def _matrix_form(form: str) -> bool:
    if form not in ("elements", "matrix"):
        raise ValueError(f"form must be 'elements' or 'matrix', got {form!r}")
    return form == "matrix"


def _inputs(xs: Any) -> tuple[list[Tensor], bool]:
    if isinstance(xs, Tensor):
        return [xs], True
    xs = list(xs)
    for i, x in enumerate(xs):
        _tensor(x, f"input {i}")
    return xs, False


def _check_inputs(xs: Sequence[Tensor]) -> None:
    for i, x in enumerate(xs):
        if x.grad_fn is None and not is_symbolic(x):
            raise ValueError(
                f"input {i} (shape {list(x.shape)}) is an unnamed constant: it enters closed "
                "forms as numbers, so there is nothing to differentiate by; give it a name or "
                "requires_grad=True"
            )


def _gradient_arrays(replay: Replay, y: Tensor, xs: list[Tensor], seed: np.ndarray) -> list:
    grads = replay.adjoints(y, seed, xs)
    result = []
    for x, g in zip(xs, grads):
        if g is None:
            g = np.zeros(x.shape, dtype=object)
            g.fill(sp.Integer(0))
        result.append(np.asarray(g, dtype=object))
    return result


def gradient_replay(
    y: Tensor,
    xs: list[Tensor],
    cse: bool,
    as_float: bool = False,
    backend: str = "sympy",
    lazy: bool | None = None,
) -> tuple[Replay, list]:
    """The replay of ``y``'s graph and the gradient arrays of ``y`` for ``xs`` (in SymPy, on
    either symbolic backend); ``lazy``: see :class:`Replay`."""
    if y.numel() != 1:
        raise ValueError(
            f"gradient() needs a one-element output, got shape {list(y.shape)}; use "
            "jacobian(y, x) for the derivatives of every element"
        )
    _check_inputs(xs)
    replay = new_replay(backend, cse, as_float, lazy)
    grads = _gradient_arrays(replay, y, xs, seed_ones(y.shape))
    return replay, _in_sympy(replay, grads)


def _in_sympy(replay: Replay, arrays: list) -> list:
    """The result arrays in SymPy, whichever backend the replay computed them on."""
    return arrays if type(replay) is Replay else replay.to_sympy(arrays)


def gradient(
    y: Tensor,
    xs: Any,
    *,
    cse: bool = False,
    simplify: Any = False,
    as_float: bool = False,
    form: str = "elements",
    backend: str = "sympy",
) -> Any:
    """The closed-form gradient of the one-element tensor ``y`` with respect to ``xs``.

    ``xs`` is a tensor (the result has its shape: an expression for one element) or a list of
    tensors (a list of results). Computed by reverse accumulation of the nodes' VJP rules, as
    ``backward()`` does, so shared subexpressions stay shared. With ``form="matrix"`` the
    gradient is a matrix expression in the named vectors and matrices, as people write it:
    ``2*A.T*(A*x - b)`` for ``((A @ x - b)**2).sum()``. ``backend="symengine"`` replays the
    graph on SymEngine (``pip install symgrad[symengine]``) and converts the result to the same
    SymPy expressions, several times sooner for large graphs (see
    :mod:`symgrad.symbolic.symengine_backend`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import gradient
    >>> a, b, c, d = (symgrad.tensor(v, requires_grad=True, name=n)
    ...               for v, n in ((2.0, "a"), (3.0, "b"), (5.0, "c"), (10.0, "d")))
    >>> gradient(a * b + symgrad.log(d) * c, [a, b, c, d])
    [b, a, log(d), c/d]
    """
    y = _tensor(y, "gradient()'s output")
    xs_list, single = _inputs(xs)
    if _matrix_form(form):
        _check_inputs(xs_list)
        if y.numel() != 1:
            raise RuntimeError(
                f"grad can be implicitly created only for scalar outputs, got {list(y.shape)}"
            )
        found = [
            as_result(g) if g is not None else None for g in MatrixReplay().gradients(y, xs_list)
        ]
        return found[0] if single else Results(found)
    replay, grads = gradient_replay(y, xs_list, cse, as_float, backend)
    values = [_finish(g, False) for g in _simplified_arrays(grads, simplify)]
    values = values[0] if single else Results(values)
    return _assignments(replay.definitions, values, simplify) if cse else values


def jacobian(
    y: Tensor,
    x: Tensor,
    *,
    cse: bool = False,
    simplify: Any = False,
    as_float: bool = False,
    backend: str = "sympy",
) -> Any:
    """The Jacobian ``dy/dx`` as a ``Matrix`` of shape ``(y.numel(), x.numel())``, both
    flattened in row-major order; for a list of inputs, a tuple of such blocks.
    ``backend="symengine"`` computes on SymEngine, as for :func:`gradient`.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import jacobian
    >>> X = symgrad.tensor([1.0, 2.0], requires_grad=True, name="X")
    >>> jacobian((X + 1) ** 2, X)
    Matrix([
    [2*X[0] + 2,          0],
    [         0, 2*X[1] + 2]])
    """
    if isinstance(x, (list, tuple)):  # one block per input, as PyTorch's functional API
        blocks = [
            jacobian(y, xi, cse=cse, simplify=simplify, as_float=as_float, backend=backend)
            for xi in x
        ]
        return Blocks(blocks)
    y, x = _tensor(y, "jacobian()'s output"), _tensor(x, "jacobian()'s input")
    _check_inputs([x])
    replay = new_replay(backend, cse, as_float)
    rows = []
    for k in range(y.numel()):
        seed = np.zeros(y.shape, dtype=object)
        seed.fill(sp.Integer(0))
        seed.flat[k] = sp.Integer(1)
        (g,) = _gradient_arrays(replay, y, [x], seed)
        rows.append(g)
    rows = [list(g.flat) for g in _in_sympy(replay, rows)]
    if simplify:
        flat = simplified([e for row in rows for e in row], simplify)
        rows = [flat[i * x.numel() : (i + 1) * x.numel()] for i in range(len(rows))]
    matrix = sp.Matrix(y.numel(), x.numel(), lambda i, j: rows[i][j])
    return _assignments(replay.definitions, matrix, simplify) if cse else matrix


def hessian(
    y: Tensor,
    x: Tensor,
    *,
    cse: bool = False,
    simplify: Any = False,
    as_float: bool = False,
    backend: str = "sympy",
) -> Any:
    """The Hessian of the one-element ``y`` with respect to ``x``: a ``Matrix`` of shape
    ``(x.numel(), x.numel())``; for a list of inputs, the blocks ``H[i][j]`` (``d²y/dxᵢdxⱼ``
    as a ``(xᵢ.numel(), xⱼ.numel())`` ``Matrix``) as a tuple of tuples, as PyTorch's
    ``autograd.functional.hessian`` returns them. ``backend="symengine"`` differentiates the
    gradient on SymEngine (inline only: ``cse=True`` needs ``backend="sympy"``); where SymEngine
    cannot differentiate a function the gradient holds, SymPy's way is taken.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import hessian
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    >>> A = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> hessian(x @ A @ x, x)
    Matrix([
    [2, 5],
    [5, 8]])
    """
    blocked = isinstance(x, (list, tuple))
    xs = list(x) if blocked else [x]
    y = _tensor(y, "hessian()'s output")
    xs = [_tensor(xi, "hessian()'s input") for xi in xs]
    if y.numel() != 1:
        raise ValueError(f"hessian() needs a one-element output, got shape {list(y.shape)}")
    if any(xi.grad_fn is not None for xi in xs):
        raise ValueError("hessian() differentiates with respect to leaf tensors")
    _check_inputs(xs)
    found = _symengine_hessian(y, xs, cse, as_float, backend)
    try:
        definitions, blocks = ([], found) if found else hessian_sweep(y, xs, cse, as_float)
    except NoClosedSecondOrder as exc:
        found = _hessian_by_replay(y, xs, simplify, as_float)
        if found is None:
            raise NotImplementedError(
                f"hessian(): SymPy leaves a local derivative unevaluated ({exc}), and the "
                "gradient's own graph could not be replayed; use autograd.functional.hessian"
            ) from None
        result = Blocks(found) if blocked else found[0][0]
        return Assignments(([], result)) if cse else result
    if simplify:
        blocks = [[_simplified_matrix(m, simplify) for m in row] for row in blocks]
    blocks = [tuple(row) for row in blocks]
    result = Blocks(blocks) if blocked else blocks[0][0]
    return _assignments(definitions, result, simplify) if cse else result


def _symengine_hessian(y: Tensor, xs: list, cse: bool, as_float: bool, backend: str) -> Any:
    """The Hessian blocks by SymEngine, or None for SymPy's way."""
    check_backend(backend)
    if backend == "sympy":
        return None
    if cse:
        raise NotImplementedError(
            'hessian(..., cse=True) gives the assignment form with backend="sympy" only; '
            "drop cse=True for SymEngine's inline Hessian"
        )
    return hessian_blocks(y, xs, as_float)


def _simplified_matrix(m: sp.Matrix, simplify: Any) -> sp.Matrix:
    return sp.Matrix(*m.shape, simplified(list(m), simplify))


def _hessian_by_replay(y: Tensor, xs: list, simplify: bool, as_float: bool) -> Any:
    """The Hessian blocks by replaying twice: the engine records the gradient's own graph
    (``create_graph``), and its Jacobian is replayed symbolically, one reverse pass per
    gradient element. The way taken when SymPy leaves a local derivative of the assignment
    form unevaluated; None where that graph can't be recorded or replayed either (inputs that
    need no gradient, a custom op without double backward)."""
    if not y.requires_grad or not all(x.requires_grad and x.grad_fn is None for x in xs):
        return None
    try:
        with enable_grad():
            grads = engine_grad(y, xs, create_graph=True, retain_graph=True, allow_unused=True)
        blocks = []
        for g, xi in zip(grads, xs):
            row = []
            for xj in xs:
                if g is None or not g.requires_grad:
                    row.append(sp.zeros(xi.numel(), xj.numel()))
                else:
                    row.append(jacobian(g, xj, simplify=simplify, as_float=as_float))
            blocks.append(tuple(row))
    except (NotImplementedError, RuntimeError, ValueError, TypeError, AttributeError):
        return None
    return tuple(blocks)
