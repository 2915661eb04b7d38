"""The Jacobian transforms of :mod:`symgrad.func`: ``jacrev``, ``jacfwd`` and ``hessian``.

As in PyTorch, ``jacrev`` maps ``vjp`` over the basis of the output and ``jacfwd`` maps ``jvp``
over the basis of each input, with ``vmap``: one batched pass per chunk of the basis, not one
pass per row.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad import _like, creation
from symgrad.func import batched
from symgrad.func._checks import check_chunk_size, check_randomness
from symgrad.func._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from symgrad.func._run import pass_along
from symgrad.func.forward_mode import jvp
from symgrad.func.transforms import _argnums, _check_differentiable, check_floating_primals, vjp
from symgrad.tensor import Tensor

__all__ = ["jacrev", "jacfwd", "hessian"]


def _jacobian(
    func: Callable,
    argnums: Any,
    has_aux: bool,
    name: str,
    chunk_size: Any,
    randomness: str = "error",
) -> Callable:
    """``jacrev`` (``vjp`` mapped over the output's basis) or ``jacfwd`` (``jvp`` mapped over
    each input's basis), one batched pass per chunk of the basis, as PyTorch builds them."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        what = f"{name}(f)(*args)"
        nums = _argnums(argnums, len(args), what)

        def of_inputs(*xs: Any) -> Any:
            full = list(args)
            for i, x in zip(nums, xs):
                full[i] = x
            return func(*full, **kwargs)

        primals = [args[i] for i in nums]
        if name == "jacfwd":
            check_floating_primals(primals)
        _check_differentiable(primals, what)
        lowering = batched.Lowering.of(list(args))
        if lowering is not None:  # inside vmap: every element's Jacobian at its own inputs
            primals = [lowering.up_flagged(*lowering.down(p, True)) for p in primals]
        pass_along([a for i, a in enumerate(args) if i not in nums])  # (they print as PyTorch's)
        try:
            if name == "jacrev":
                out, aux, blocks = _reverse_jacobians(of_inputs, primals, has_aux, chunk_size)
            else:
                out, aux, blocks = _forward_jacobians(of_inputs, primals, has_aux, randomness)
        finally:
            pass_along(None)
        specs = [tree_flatten(p)[1] for p in primals]

        def by_input(row: list) -> Any:
            found = iter(row)
            per_arg = [tree_unflatten([next(found) for _ in range(s.num_leaves)], s) for s in specs]
            return tuple(per_arg) if isinstance(argnums, tuple) else per_arg[0]

        jac = tree_unflatten([by_input(row) for row in blocks], tree_flatten(out)[1])
        return (jac, aux) if has_aux else jac

    return wrapper


def _block(rows: Any, o: Tensor, x: Tensor, forward: bool) -> Tensor:
    """One Jacobian block from the rows a basis gave (``None``: an empty output or input)."""
    if rows is None:
        return creation.zeros((*o.shape, *x.shape), dtype=x.dtype)
    if forward:  # the rows run over the input's elements: they go last, then unflattened
        rows = rows.movedim(0, -1)
        return rows.unflatten(-1, tuple(x.shape)) if x.ndim else rows.squeeze(-1)
    if type(rows) is Tensor:  # PyTorch's rows are stacked: its Jacobian is their view
        return rows.contiguous().view((*o.shape, *x.shape))
    return rows.reshape((*o.shape, *x.shape))


def _reverse_jacobians(func: Callable, primals: list, has_aux: bool, chunk_size: Any) -> tuple:
    """``(output, aux, blocks)``: ``blocks[i][j]`` the Jacobian of the output's tensor ``i``
    with respect to the inputs' tensor ``j`` (pytrees flattened)."""
    out, vjp_fn, *aux = vjp(func, *primals, has_aux=has_aux)
    outs, out_spec = tree_flatten(out)
    xs = tree_leaves(primals)
    blocks = []
    for k, o in enumerate(outs):

        def row(v: Tensor, k: int = k) -> tuple:
            vs = [v if j == k else _like.zeros_like(u) for j, u in enumerate(outs)]
            return tuple(tree_leaves(vjp_fn(tree_unflatten(vs, out_spec))))

        rows = batched.over_basis(row, tuple(o.shape), o.dtype, chunk_size=chunk_size)
        rows = rows if rows is not None else (None,) * len(xs)
        blocks.append([_block(r, o, x, False) for r, x in zip(rows, xs)])
    return out, (aux[0] if has_aux else None), blocks


def _forward_jacobians(func: Callable, primals: list, has_aux: bool, randomness: str) -> tuple:
    """As :func:`_reverse_jacobians`, one ``jvp`` per element of each input tensor."""
    xs, in_spec = tree_flatten(tuple(primals))
    zeros = [_like.zeros_like(x) for x in xs]
    found = None  # (output, jvp, aux) of the first chunk: the output and aux, unbatched
    columns = []
    for k, x in enumerate(xs):

        def column(t: Tensor, k: int = k) -> Any:
            tangents = tree_unflatten([t if j == k else z for j, z in enumerate(zeros)], in_spec)
            return jvp(func, tuple(primals), tangents, has_aux=has_aux)

        # with fresh random numbers per column the output (and aux) differ per column too:
        # the first column's are kept, as PyTorch's
        mapped = 0 if randomness == "different" else None
        dims = (mapped, 0, mapped) if has_aux else (mapped, 0)
        cols = batched.over_basis(column, tuple(x.shape), x.dtype, dims, randomness=randomness)
        if cols is not None and mapped is not None:
            first = tree_map(lambda t: t[0], (cols[0],) + tuple(cols[2:]))
            cols = (first[0], cols[1]) + tuple(first[1:])
        if cols is not None:
            found = found or cols
        columns.append(None if cols is None else tree_leaves(cols[1]))
    if found is None:  # every input is empty
        found = jvp(func, tuple(primals), tree_unflatten(zeros, in_spec), has_aux=has_aux)
    outs = tree_leaves(found[0])
    blocks = [
        [_block(None if c is None else c[i], o, x, True) for c, x in zip(columns, xs)]
        for i, o in enumerate(outs)
    ]
    return found[0], (found[2] if has_aux else None), blocks


def jacrev(
    func: Callable, argnums: Any = 0, *, has_aux: bool = False, chunk_size: Any = None
) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums``, of shape ``output.shape +
    input.shape``, from a ``vjp`` mapped over the output's basis (``chunk_size`` rows of it at
    a time).

    Inputs and outputs may be pytrees: the result has the output's structure, holding at each
    output tensor the input's structure (a tuple of them for a tuple ``argnums``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import jacrev
    >>> jacrev(lambda x: x ** 2)(symgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    >>> p = {"w": symgrad.tensor([1.0, 2.0]), "b": symgrad.tensor(3.0)}
    >>> jacrev(lambda p: {"y": p["w"] * p["b"]})(p)["y"]["b"]
    tensor([1., 2.])
    """
    check_chunk_size(chunk_size, "jacrev")
    return _jacobian(func, argnums, has_aux, "jacrev", chunk_size)


def jacfwd(
    func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums``, with :func:`jacrev`'s shapes and
    pytree structures, from a ``jvp`` mapped over each input's basis.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import jacfwd
    >>> jacfwd(lambda x, y: x * y, argnums=(0, 1))(symgrad.tensor([1.0, 2.0]), symgrad.tensor(3.0))
    (tensor([[3., 0.],
            [0., 3.]]), tensor([1., 2.]))
    """
    check_randomness(randomness)
    return _jacobian(func, argnums, has_aux, "jacfwd", None, randomness)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """The Hessian of the scalar ``func``: the Jacobian of its Jacobian, of shape
    ``input.shape + input.shape`` (for a pytree input, the input's structure nested in itself:
    ``h["w"]["b"]``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(symgrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
