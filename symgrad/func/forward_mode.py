"""``jvp``: a function's value and its Jacobian applied to tangents, by forward mode (the
primals carry the tangents as dual tensors)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import _like
from symgrad.autograd import dual, forward_ad
from symgrad.autograd.engine import grad as _engine_grad
from symgrad.func import batched
from symgrad.func._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from symgrad.func._run import _Transform
from symgrad.func.transforms import (
    _fresh_tree,
    _products,
    _recordable,
    _split_aux,
    _tensor_outputs,
    check_floating_primals,
)
from symgrad.tensor import Tensor

__all__ = ["jvp"]


def jvp(
    func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> tuple:
    """``(output, jvp_out)``: ``func`` at ``primals`` and its Jacobian applied to ``tangents``;
    ``aux`` third with ``has_aux=True``.

    With ``strict=True`` an output that does not depend on the primals raises RuntimeError
    (by default its ``jvp_out`` is zeros), as in PyTorch.

    ``primals`` and ``tangents`` are tuples of pytrees of tensors (one entry per argument of
    ``func``) with the same structure and shapes; ``jvp_out`` has the output's structure.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import jvp
    >>> x = symgrad.tensor([1.0, 2.0])
    >>> jvp(lambda x: x ** 2, (x,), (symgrad.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    >>> jvp(lambda p: {"y": p["a"] * p["b"]}, ({"a": x, "b": x},), ({"a": x, "b": x},))
    ({'y': tensor([1., 4.])}, {'y': tensor([2., 8.])})
    """
    what = "jvp(f, primals, tangents)"
    ts = _check_tangents(primals, tangents, what)
    check_floating_primals(primals)
    lowering = batched.Lowering.of(list(primals))
    if lowering is not None:
        return _lowered_jvp(func, lowering, primals, tangents, has_aux, strict)
    with _Transform((primals, tangents)) as run:
        inputs, xs = _fresh_tree(primals, what)
        # forward mode, as PyTorch's jvp, unless a dual level is already in use (a jvp inside
        # forward_ad or inside another jvp): then the tangents come from two reverse passes
        forward = dual.STATE.level is None
        if forward:
            with forward_ad.dual_level():
                ts = [_recordable(t) for t in ts]
                duals = [forward_ad.make_dual(x, t) for x, t in zip(xs, ts)]
                out = func(*tree_unflatten(duals, tree_flatten(primals)[1]))
                out, aux = _split_aux(out, has_aux, what)
                outs, out_spec = _tensor_outputs(out, what)
                found = [forward_ad.unpack_dual(o).tangent for o in outs]
        else:
            out, aux = _split_aux(func(*inputs), has_aux, what)
            outs, out_spec = _tensor_outputs(out, what)
        if strict:
            _check_dependent(outs, xs)
        run.note(outs, xs)
        closure = batched.Lowering.of(out)
        if closure is None:
            if forward:
                jv = [_like.zeros_like(o) if t is None else t for o, t in zip(outs, found)]
            else:
                # J v as the derivative of u -> <J^T u, v> by u, at any u: two reverse passes
                us = [_like.zeros_like(o).requires_grad_(True) for o in outs]
                pulled = _products(outs, xs, us, True)
                jv = _products(pulled, us, ts, run.create_graph)
            if not run.nested and not run.closes and not _requires_grad(primals):
                out = _outer_detached(out)  # only the tangents require grad: the output doesn't
            aux = (run.finish_aux(aux),) if has_aux else ()
            result = run.finish((out, tree_unflatten(jv, out_spec)) + aux)
            # the output comes back as an alias of the function's (AliasBackward0), as PyTorch's
            return (tree_map(_alias, result[0]),) + result[1:]
    # a closure over a batched tensor: each element's own jvp
    return _lowered_jvp(func, closure, primals, tangents, has_aux, strict)


def _alias(t: Any) -> Any:
    return t[...] if isinstance(t, Tensor) and t.requires_grad else t


def _requires_grad(tree: Any) -> bool:
    return any(isinstance(t, Tensor) and t.requires_grad for t in tree_leaves(tree))


def _outer_detached(tree: Any) -> Any:
    return tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


def _check_dependent(outs: list, xs: list) -> None:
    """``jvp(..., strict=True)``: every output must depend on some primal."""
    for o in outs:
        grads = [None]
        if o.requires_grad:
            zero = _like.zeros_like(o)
            grads = _engine_grad([o], xs, [zero], retain_graph=True, allow_unused=True)
        if all(g is None for g in grads):
            raise RuntimeError(
                "jvp(f, primals, tangents, strict=True): The output of f is independent of "
                "the inputs. This is not allowed with strict=True."
            )


def _lowered_jvp(
    func: Callable, lowering: batched.Lowering, primals: tuple, tangents: tuple, *flags: bool
) -> tuple:
    """Inside ``vmap``: the ``jvp`` of the function on the physical tensors."""
    phys = [lowering.down(p, True) for p in primals]

    def physical_func(*xs: Any) -> Any:
        inputs = [lowering.up_flagged(x, flags) for x, (_, flags) in zip(xs, phys)]
        return lowering.unwrap(func(*inputs))

    ps, lowered_ts = tuple(x for x, _ in phys), tuple(lowering.unwrap(list(tangents)))
    has_aux, strict = flags
    return lowering.wrap(jvp(physical_func, ps, lowered_ts, strict=strict, has_aux=has_aux))


def _check_tangents(primals: Any, tangents: Any, what: str) -> list:
    """The tangents' tensors, checked against the primals (PyTorch's errors)."""
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(
                f"{what}: Expected {name} to be a tuple. "
                f"E.g. it should be valid to call f(*{name})."
            )
    ps, p_spec = tree_flatten(primals)
    ts, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{what}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {p_spec} and tangents with structure {t_spec}"
        )
    for name, leaves in (("primals", ps), ("tangents", ts)):
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise RuntimeError(
                    f"{what}: Expected {name} to only contain Tensors, got {type(leaf)}"
                )
    for i, (p, t) in enumerate(zip(ps, ts)):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                f"{what}: Expected primals and tangents to have the same shape, got "
                f"{list(p.shape)} and {list(t.shape)} for the tensor at position {i} of the "
                f"flattened structure {p_spec}"
            )
    return ts
