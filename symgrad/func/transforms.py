"""The differentiating transforms of :mod:`symgrad.func`: ``grad``, ``grad_and_value`` and
``vjp`` (``jvp`` is in :mod:`.forward_mode`, ``jacrev``, ``jacfwd`` and ``hessian`` in
:mod:`.jacobians`), and the pieces they share."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad import _like
from symgrad.autograd import forward_ad
from symgrad.autograd.engine import grad as _engine_grad
from symgrad.func import (
    batched,
    printing,  # noqa: F401  (tensors print as PyTorch's inside)
)
from symgrad.func._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from symgrad.func._run import _Transform, stand_in
from symgrad.tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp"]


# -- pieces shared by the transforms ---------------------------------------------------------------
def _fresh(x: Any, what: str) -> Tensor:
    """A tensor standing for the input ``x`` that requires grad, still connected to ``x``'s
    graph when ``x`` requires grad (an outer transform, or the caller's autograd)."""
    _check_differentiable(x, what)
    if x.requires_grad:
        return stand_in(x.clone(), x)
    return stand_in(_recordable(x).detach().requires_grad_(True))


def _recordable(t: Any) -> Any:
    """``t``, or a normal copy of an inference tensor (one made under inference_mode), which
    the transform's recorded ops could not save."""
    return t.clone() if type(t) is Tensor and t.is_inference() else t


def _check_differentiable(tree: Any, what: str) -> None:
    """PyTorch's errors for an argument (a pytree of tensors) that can't be differentiated."""
    for x in tree_leaves(tree):
        if not isinstance(x, Tensor):
            raise ValueError(
                f"Thing passed to transform API must be Tensor, got {type(x)}\n({what}: every "
                "leaf of a differentiated argument must be a tensor)"
            )
        if not x.dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients\n"
                f"({what}: only floating point inputs can be differentiated, got {x.dtype})"
            )


def check_floating_primals(tree: Any) -> None:
    """PyTorch's error for a primal of forward mode (``jvp``, ``jacfwd``, ``linearize``) that
    is not floating point, raised before the function runs."""
    for x in tree_leaves(tree):
        if isinstance(x, Tensor):
            forward_ad._check_floating(x)


def _fresh_tree(tree: Any, what: str) -> tuple:
    """``(tree of fresh tensors, their list)`` for a differentiated argument (a pytree)."""
    leaves, spec = tree_flatten(tree)
    fresh = [_fresh(t, what) for t in leaves]
    return tree_unflatten(fresh, spec), fresh


def _tensor_outputs(out: Any, what: str, inputs: str = "primals") -> tuple:
    """``(leaves, spec)`` of a function's output, a pytree of tensors."""
    leaves, spec = tree_flatten(out)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"{what}: expected f(*{inputs}) to return only tensors, got unsupported type "
                f"{type(leaf)}"
            )
    return leaves, spec


def _check_aux(aux: Any, what: str) -> None:
    for leaf in tree_leaves(aux):
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"Expected tensors, got unsupported type {type(leaf)}\n({what}: in the "
                "auxiliary output, which must be a pytree of tensors)"
            )


def _argnums(argnums: Any, n: int, what: str) -> tuple:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}\n({what})")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs\n({what})")
    if len(set(a % n for a in nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}\n({what})")
    return tuple(a % n for a in nums)


def _split_aux(out: Any, has_aux: bool, what: str) -> tuple:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{what}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    _check_aux(out[1], what)
    return out


def _derivatives(out: Tensor, xs: list, v: Any, create_graph: bool) -> list:
    found: list = [None] * len(xs)
    if out.requires_grad:  # (else no input reaches it: every gradient is zeros, as PyTorch's)
        found = _engine_grad(
            out, xs, v, create_graph=create_graph, retain_graph=True, allow_unused=True
        )
    return [g if g is not None else _like.zeros_like(x) for g, x in zip(found, xs)]


def _products(outs: Any, xs: list, vs: list, create_graph: bool) -> list:
    """``Σ vᵀ d(out)/dx`` for each of ``xs`` (zeros where no output depends on it); outputs
    that need no gradient are left out."""
    pairs = [
        (o, v) for o, v in zip(outs, vs) if o is not None and v is not None and o.requires_grad
    ]
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
    return [g if g is not None else _like.zeros_like(x) for g, x in zip(found, xs)]


# -- grad, grad_and_value, vjp --------------------------------------------------------------------
def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``func``'s gradient with respect to the arguments ``argnums`` and its value:
    ``(gradient, value)``, or ``(gradient, (value, aux))`` with ``has_aux=True``.

    A differentiated argument may be a pytree of tensors (a dict of parameters, a tuple or
    list of tensors, a named tuple, nested); its gradient has the same structure. With a tuple
    ``argnums`` the gradient is a tuple with one entry per argument.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import grad_and_value
    >>> params = {"w": symgrad.tensor([1.0, 2.0]), "b": symgrad.tensor(0.5)}
    >>> grad_and_value(lambda p: (p["w"] ** 2).sum() + p["b"])(params)
    ({'w': tensor([2., 4.]), 'b': tensor(1.)}, tensor(5.5000))
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        what = "grad_and_value(f)(*args)"
        nums = _argnums(argnums, len(args), what)
        lowering = batched.Lowering.of(list(args))
        if lowering is not None:
            return _lowered_grad(func, lowering, args, kwargs, argnums, nums, has_aux, what)
        kept = [a for i, a in enumerate(args) if i not in nums]
        with _Transform(args, passed=kept) as run:
            inputs = list(args)
            fresh = []
            for i in nums:
                inputs[i], leaves = _fresh_tree(inputs[i], what)
                fresh.append(leaves)
            out, aux = _split_aux(func(*inputs, **kwargs), has_aux, what)
            _check_scalar(out, what)
            run.note([out], [x for f in fresh for x in f])
            closure = batched.Lowering.of(out)
            if closure is None:
                xs = [x for f in fresh for x in f]
                flat = iter(_derivatives(out, xs, None, run.create_graph))
                grads = [tree_map(lambda _: next(flat), inputs[i]) for i in nums]
                g = tuple(grads) if isinstance(argnums, tuple) else grads[0]
                value = (out, run.finish_aux(aux)) if has_aux else out
                return run.finish((g, value))
        # a closure over a batched tensor: every element's gradient at the same inputs
        return _lowered_grad(func, closure, args, kwargs, argnums, nums, has_aux, what)

    return wrapper


def _check_scalar(out: Any, what: str) -> None:
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{what}: Expected f(*args) to return a Tensor, got {type(out)}")
    if out.ndim != 0:
        raise RuntimeError(
            f"{what}: Expected f(*args) to return a scalar Tensor, got tensor with "
            f"{out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
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
        return values.sum(), (values, lowering.unwrap(aux) if has_aux else ())

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
    """``(output, vjp_fn)`` (and ``aux`` with ``has_aux=True``): ``vjp_fn(cotangents)`` gives
    the vector-Jacobian products with every primal, as a tuple with one entry per primal.

    The primals, the output and the cotangents are pytrees of tensors (tuples, lists, dicts and
    named tuples of them); the cotangents have the output's structure and shapes, and each
    entry of the result has its primal's structure.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import vjp
    >>> params = {"w": symgrad.tensor([1.0, 2.0]), "b": symgrad.tensor(0.5)}
    >>> out, vjp_fn = vjp(lambda p: p["w"] * 3 + p["b"], params)
    >>> vjp_fn(symgrad.ones(2))
    ({'w': tensor([3., 3.]), 'b': tensor(2.)},)
    """
    what = "vjp(f, *primals)"
    lowering = batched.Lowering.of(list(primals))
    if lowering is not None:
        return _lowered_vjp(func, lowering, primals, has_aux)
    run = _Transform(primals)
    with run:
        inputs, xs = _fresh_tree(primals, what)
        out, aux = _split_aux(func(*inputs), has_aux, what)
        outs, out_spec = _tensor_outputs(out, what)
        _check_floating_outputs(outs)
        run.note(outs, xs)
        closure = batched.Lowering.of(out)
    if closure is not None:  # a closure over a batched tensor: each element's own vjp
        return _lowered_vjp(func, closure, primals, has_aux)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: Any = None) -> tuple:
        vs = _cotangent_leaves(cotangents, outs, out_spec)
        with run:
            keep = run.create_graph or bool(create_graph)
            found = _products(outs, xs, vs, keep)
        return run.finish(tree_unflatten(found, tree_flatten(primals)[1]))

    result = (run.finish(out), vjp_fn)
    return result + (run.finish_aux(aux),) if has_aux else result


def _check_floating_outputs(outs: list) -> None:
    for o in outs:
        if not o.dtype.is_floating_point:
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                f"Tensor with dtype {o.dtype}"
            )


def _cotangent_leaves(cotangents: Any, outs: list, out_spec: Any) -> list:
    """The cotangents' tensors, checked against the output's structure and shapes."""
    vs, spec = tree_flatten(cotangents)
    if spec != out_spec:
        raise RuntimeError(
            "Expected pytree structure of cotangents to be the same as pytree structure of "
            f"outputs to the function. cotangents: {spec}, primal output: {out_spec}"
        )
    for i, (v, o) in enumerate(zip(vs, outs)):
        if v is not None and not isinstance(v, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(v).__name__}")
        if v is not None and tuple(v.shape) != tuple(o.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {v.shape} and output[{i}] "
                f"has a shape of {o.shape}."
            )
    # a None cotangent of an output that requires grad is implied, as backward()'s: ones for
    # a one-element output, else an error
    return [_implied(o) if v is None and o.requires_grad else v for v, o in zip(vs, outs)]


def _implied(out: Tensor) -> Tensor:
    if out.numel() != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    return _like.ones_like(out)


def _lowered_vjp(
    func: Callable, lowering: batched.Lowering, primals: tuple, has_aux: bool
) -> tuple:
    """Inside ``vmap``: the ``vjp`` of the function on the physical tensors."""
    lowered = [lowering.down(p, True) for p in primals]

    def physical_func(*xs: Any) -> Any:
        inputs = [lowering.up_flagged(x, flags) for x, (_, flags) in zip(xs, lowered)]
        return lowering.unwrap(func(*inputs))

    out, physical_vjp, *aux = vjp(physical_func, *[x for x, _ in lowered], has_aux=has_aux)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: Any = None) -> tuple:
        found = physical_vjp(lowering.unwrap(cotangents), retain_graph, create_graph)
        return lowering.wrap(found)

    return (lowering.wrap(out), vjp_fn, *lowering.wrap(aux))
