"""The Jacobian transforms of :mod:`symgrad.func`: ``jacrev``, ``jacfwd`` and ``hessian``.

As in PyTorch, ``jacrev`` maps ``vjp`` over the basis of the output and ``jacfwd`` maps ``jvp``
over the basis of each input, with ``vmap``: one batched pass per chunk of the basis, not one
pass per row.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad import creation
from symgrad.func import batched
from symgrad.func._checks import check_chunk_size, check_randomness
from symgrad.func.transforms import _argnums, _check_differentiable, jvp, vjp
from symgrad.tensor import Tensor

__all__ = ["jacrev", "jacfwd", "hessian"]


def _jacobian(func: Callable, argnums: Any, has_aux: bool, name: str) -> Callable:
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
        for p in primals:
            _check_differentiable(p, what)
        if name == "jacrev":
            out, aux, jacobians = _reverse_jacobians(of_inputs, primals, has_aux)
        else:
            out, aux, jacobians = _forward_jacobians(of_inputs, primals, has_aux)
        if not isinstance(argnums, tuple):
            jacobians = [j[0] for j in jacobians]
        jac = tuple(jacobians) if isinstance(out, tuple) else jacobians[0]
        return (jac, aux) if has_aux else jac

    return wrapper


def _block(rows: Any, o: Tensor, x: Tensor, forward: bool) -> Tensor:
    """One Jacobian block from the rows a basis gave (``None``: an empty output or input)."""
    if rows is None:
        return creation.zeros(*o.shape, *x.shape, dtype=x.dtype)
    if forward:  # the rows run over the input's elements
        rows = rows.reshape(x.numel(), o.numel()).t()
    return rows.reshape(*o.shape, *x.shape)


def _reverse_jacobians(func: Callable, primals: list, has_aux: bool) -> tuple:
    out, vjp_fn, *aux = vjp(func, *primals, has_aux=has_aux)
    outs = out if isinstance(out, tuple) else (out,)
    jacobians = []
    for k, o in enumerate(outs):

        def row(v: Tensor, k: int = k) -> tuple:
            if not isinstance(out, tuple):
                return vjp_fn(v)
            zeros = [creation.zeros_like(o) for o in outs]
            return vjp_fn(tuple(v if j == k else z for j, z in enumerate(zeros)))

        rows = batched.over_basis(row, tuple(o.shape), o.dtype)
        blocks = rows if rows is not None else (None,) * len(primals)
        jacobians.append(tuple(_block(r, o, x, False) for r, x in zip(blocks, primals)))
    return out, (aux[0] if has_aux else None), jacobians


def _forward_jacobians(func: Callable, primals: list, has_aux: bool) -> tuple:
    zeros = [creation.zeros_like(p) for p in primals]
    found = None  # (output, jvp, aux) of the first chunk: the output and aux, unbatched
    columns = []
    for k, x in enumerate(primals):

        def column(t: Tensor, k: int = k) -> Any:
            tangents = tuple(t if j == k else z for j, z in enumerate(zeros))
            return jvp(func, tuple(primals), tangents, has_aux=has_aux)

        dims = (None, 0, None) if has_aux else (None, 0)
        cols = batched.over_basis(column, tuple(x.shape), x.dtype, dims)
        if cols is not None:
            found = found or cols
        columns.append(None if cols is None else cols[1])
    if found is None:  # every input is empty
        found = jvp(func, tuple(primals), tuple(zeros), has_aux=has_aux)
    out = found[0]
    outs = out if isinstance(out, tuple) else (out,)
    columns = [c if c is None or isinstance(out, tuple) else (c,) for c in columns]
    jacobians = [
        tuple(_block(None if c is None else c[i], o, x, True) for c, x in zip(columns, primals))
        for i, o in enumerate(outs)
    ]
    return out, (found[2] if has_aux else None), jacobians


def jacrev(
    func: Callable, argnums: Any = 0, *, has_aux: bool = False, chunk_size: Any = None
) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums``, of shape ``output.shape +
    input.shape``, by one reverse pass per output element.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import jacrev
    >>> jacrev(lambda x: x ** 2)(symgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    check_chunk_size(chunk_size)
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(
    func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums``, as :func:`jacrev` gives it (the
    same numbers; PyTorch computes it column by column in forward mode)."""
    check_randomness(randomness)
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """The Hessian of the scalar ``func``: the Jacobian of its Jacobian, of shape
    ``input.shape + input.shape``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(symgrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
