"""The differentiating transforms of :mod:`symgrad.func`: ``grad``, ``grad_and_value``,
``vjp`` and ``jvp`` (``jacrev``, ``jacfwd`` and ``hessian`` are in :mod:`.jacobians`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad import creation
from symgrad.autograd.engine import grad as _engine_grad
from symgrad.autograd.grad_mode import enable_grad
from symgrad.func import batched
from symgrad.tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp"]

_depth = [0]  # transforms running now: inner ones keep the derivative's graph for outer ones


# -- pieces shared by the transforms ---------------------------------------------------------------
def _fresh(x: Any, what: str) -> Tensor:
    """A tensor standing for the input ``x`` that requires grad, still connected to ``x``'s
    graph when ``x`` requires grad (an outer transform, or the caller's autograd)."""
    _check_differentiable(x, what)
    return x.clone() if x.requires_grad else x.detach().requires_grad_(True)


def _check_differentiable(x: Any, what: str) -> None:
    """PyTorch's errors for an argument that can't be differentiated."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{what}: expected the differentiated argument to be a Tensor, got {type(x).__name__}"
        )
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{what}: only floating point inputs can be differentiated, got {x.dtype}"
        )


def _leaves(tree: Any) -> list:
    """The tensors of ``tree`` (a tensor, or tuples, lists and dicts of them), in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    if isinstance(tree, dict):
        return [leaf for t in tree.values() for leaf in _leaves(t)]
    return [tree]


def _rebuild(tree: Any, leaves: Any) -> Any:
    """``tree`` with its tensors replaced, in order, by those of the iterator ``leaves``."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(t, leaves) for t in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(t, leaves) for k, t in tree.items()}
    return next(leaves)


def _fresh_tree(tree: Any, what: str) -> tuple:
    """``(tree of fresh tensors, their list)`` for a differentiated argument."""
    fresh = [_fresh(t, what) for t in _leaves(tree)]
    return _rebuild(tree, iter(fresh)), fresh


def _argnums(argnums: Any, n: int, what: str) -> tuple:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"{what}: argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -n <= a < n:
            raise RuntimeError(
                f"{what}: Got argnums={a}, but only {n} positional inputs were given"
            )
    if len(set(a % n for a in nums)) != len(nums):
        raise RuntimeError(f"{what}: argnums must be unique, got {argnums}")
    return tuple(a % n for a in nums)


def _split_aux(out: Any, has_aux: bool, what: str) -> tuple:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{what}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return out


def _outer(results: Any, keep: bool) -> Any:
    """At the outermost transform, results with no graph to keep are plain tensors."""
    if keep:
        return results
    if isinstance(results, Tensor):
        return results.detach()
    if isinstance(results, (tuple, list)):
        return type(results)(_outer(r, keep) for r in results)
    if isinstance(results, dict):
        return {k: _outer(v, keep) for k, v in results.items()}
    return results


class _Transform:
    """One transform's run: the depth count and whether results keep their graph."""

    def __init__(self, inputs: list) -> None:
        self.keep = any(isinstance(x, Tensor) and x.requires_grad for x in inputs)

    def __enter__(self) -> _Transform:
        _depth[0] += 1
        self.nested = _depth[0] > 1
        self.mode = enable_grad()
        self.mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.mode.__exit__(*exc)
        _depth[0] -= 1

    @property
    def create_graph(self) -> bool:
        return self.nested or self.keep

    def finish(self, results: Any) -> Any:
        return _outer(results, self.keep or self.nested)


def _derivatives(out: Tensor, xs: list, v: Any, create_graph: bool) -> list:
    found = _engine_grad(
        out, xs, v, create_graph=create_graph, retain_graph=True, allow_unused=True
    )
    return [g if g is not None else creation.zeros_like(x) for g, x in zip(found, xs)]


def _products(outs: Any, xs: list, vs: list, create_graph: bool) -> list:
    """``Σ vᵀ d(out)/dx`` for each of ``xs`` (zeros where no output depends on it); outputs
    that need no gradient are left out."""
    pairs = [(o, v) for o, v in zip(outs, vs) if o is not None and o.requires_grad]
    found = [None] * len(xs)
    if pairs:
        found = _engine_grad(
            [o for o, _ in pairs],
            xs,
            [v for _, v in pairs],
            create_graph=create_graph,
            retain_graph=True,
            allow_unused=True,
        )
    return [g if g is not None else creation.zeros_like(x) for g, x in zip(found, xs)]


# -- grad, grad_and_value, vjp --------------------------------------------------------------------
def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``func``'s gradient with respect to the arguments ``argnums`` and its value:
    ``(gradient, value)``, or ``(gradient, (value, aux))`` with ``has_aux=True``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        what = "grad_and_value(f)(*args)"
        nums = _argnums(argnums, len(args), what)
        lowering = batched.Lowering.of(list(args))
        if lowering is not None:
            return _lowered_grad(func, lowering, args, kwargs, argnums, nums, has_aux, what)
        with _Transform(_leaves(list(args))) as run:
            args = list(args)
            fresh = []
            for i in nums:
                args[i], leaves = _fresh_tree(args[i], what)
                fresh.append(leaves)
            out, aux = _split_aux(func(*args, **kwargs), has_aux, what)
            _check_scalar(out, what)
            batched.refuse_batched(out)
            flat = _derivatives(out, [x for f in fresh for x in f], None, run.create_graph)
            found = iter(flat)
            grads = [_rebuild(args[i], found) for i in nums]
            g = tuple(grads) if isinstance(argnums, tuple) else grads[0]
            value = (out, aux) if has_aux else out
            return run.finish((g, value))

    return wrapper


def _check_scalar(out: Any, what: str) -> None:
    if not isinstance(out, Tensor) or out.ndim != 0:
        dims = out.ndim if isinstance(out, Tensor) else type(out).__name__
        raise RuntimeError(
            f"{what}: Expected f(*args) to return a scalar Tensor, got tensor with "
            f"{dims} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
        )


def _lowered_grad(
    func: Callable,
    lowering: batched.Lowering,
    args: tuple,
    kwargs: dict,
    argnums: Any,
    nums: tuple,
    has_aux: bool,
    what: str,
) -> tuple:
    """Inside ``vmap``: the gradient of the sum of the elements' values, on the physical
    tensors (an unbatched differentiated input repeated per element), holds every element's
    own gradient in its row, as the elements share nothing."""
    lowered = [lowering.down(a, i in nums) for i, a in enumerate(args)]

    def physical_func(*xs: Any) -> tuple:
        inputs = [lowering.up_flagged(x, flags) for x, (_, flags) in zip(xs, lowered)]
        out, aux = _split_aux(func(*inputs, **kwargs), has_aux, what)
        _check_scalar(out, what)
        values = lowering.unwrap(out)
        return values.sum(), (values, lowering.unwrap(aux))

    inner = grad_and_value(physical_func, argnums, has_aux=True)
    grads, (_, (values, aux)) = inner(*[x for x, _ in lowered])
    value = lowering.wrap(values)
    return lowering.wrap(grads), ((value, lowering.wrap(aux)) if has_aux else value)


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """The gradient of the scalar ``func`` with respect to its arguments ``argnums`` (a tensor,
    or a tuple for a tuple of argnums); ``(gradient, aux)`` with ``has_aux=True``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import grad
    >>> f = lambda w, x: (w * x).sum()
    >>> grad(f, argnums=(0, 1))(symgrad.ones(2), symgrad.tensor([3.0, 4.0]))
    (tensor([3., 4.]), tensor([1., 1.]))
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(output, vjp_fn)`` (and ``aux`` with ``has_aux=True``): ``vjp_fn(cotangent)`` gives the
    vector-Jacobian products with every primal, as a tuple."""
    what = "vjp(f, *primals)"
    lowering = batched.Lowering.of(list(primals))
    if lowering is not None:
        return _lowered_vjp(func, lowering, primals, has_aux)
    run = _Transform(list(primals))
    with run:
        xs = [_fresh(p, what) for p in primals]
        out, aux = _split_aux(func(*xs), has_aux, what)
        batched.refuse_batched(out)
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*cotangents: Any) -> tuple:
        vs = cotangents[0] if len(cotangents) == 1 and isinstance(out, tuple) else cotangents
        if len(vs) != len(outs):
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function: {len(vs)} cotangents for {len(outs)} outputs"
            )
        for v, o in zip(vs, outs):
            if tuple(v.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {v.shape} and output[0] "
                    f"has a shape of {o.shape}."
                )
        with run:
            return run.finish(tuple(_products(outs, xs, vs, run.create_graph)))

    result = (run.finish(out), vjp_fn)
    return result + (run.finish(aux),) if has_aux else result


def _lowered_vjp(
    func: Callable, lowering: batched.Lowering, primals: tuple, has_aux: bool
) -> tuple:
    """Inside ``vmap``: the ``vjp`` of the function on the physical tensors."""
    lowered = [lowering.down(p, True) for p in primals]

    def physical_func(*xs: Any) -> Any:
        inputs = [lowering.up_flagged(x, flags) for x, (_, flags) in zip(xs, lowered)]
        return lowering.unwrap(func(*inputs))

    out, physical_vjp, *aux = vjp(physical_func, *[x for x, _ in lowered], has_aux=has_aux)

    def vjp_fn(*cotangents: Any) -> tuple:
        return lowering.wrap(physical_vjp(*lowering.unwrap(cotangents)))

    return (lowering.wrap(out), vjp_fn, *lowering.wrap(aux))


# -- jvp -----------------------------------------------------------------
def jvp(func: Callable, primals: Any, tangents: Any, *, has_aux: bool = False) -> tuple:
    """``(output, jvp_out)``: ``func`` at ``primals`` and its Jacobian applied to ``tangents``
    (both tuples of tensors of the same shapes); ``aux`` third with ``has_aux=True``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import jvp
    >>> x = symgrad.tensor([1.0, 2.0])
    >>> jvp(lambda x: x ** 2, (x,), (symgrad.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    what = "jvp(f, primals, tangents)"
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(
                f"{what}: Expected {name} to be a tuple. "
                f"E.g. it should be valid to call f(*{name})."
            )
    if len(primals) != len(tangents):
        raise RuntimeError(
            f"{what}: Expected primals and tangents to have the same python structure, got "
            f"{len(primals)} primals and {len(tangents)} tangents"
        )
    for p, t in zip(primals, tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                f"{what}: Expected primals and tangents to have the same shape, got "
                f"{list(p.shape)} and {list(t.shape)}"
            )
    lowering = batched.Lowering.of(list(primals))
    if lowering is not None:
        phys = [lowering.down(p, True) for p in primals]

        def physical_func(*xs: Any) -> Any:
            inputs = [lowering.up_flagged(x, flags) for x, (_, flags) in zip(xs, phys)]
            return lowering.unwrap(func(*inputs))

        ps, ts = tuple(x for x, _ in phys), tuple(lowering.unwrap(list(tangents)))
        return lowering.wrap(jvp(physical_func, ps, ts, has_aux=has_aux))
    with _Transform(list(primals) + list(tangents)) as run:
        xs = [_fresh(p, what) for p in primals]
        out, aux = _split_aux(func(*xs), has_aux, what)
        batched.refuse_batched(out)
        outs = out if isinstance(out, tuple) else (out,)
        # J v as the derivative of u -> <J^T u, v> by u, at any u: two reverse passes
        us = [creation.zeros_like(o).requires_grad_(True) for o in outs]
        pulled = _products(outs, xs, us, True)
        jv = _products(pulled, us, list(tangents), run.create_graph)
        result = (out, tuple(jv) if isinstance(out, tuple) else jv[0])
        result = result + (aux,) if has_aux else result
        return run.finish(result)
