"""``linearize``: a function's value at a point, and its Jacobian-vector product there as a
function that can be called for many tangents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import _like
from symgrad.func._pytree import tree_flatten, tree_unflatten
from symgrad.func.transforms import (
    _fresh_tree,
    _products,
    _tensor_outputs,
    _Transform,
    check_floating_primals,
)
from symgrad.tensor import Tensor

__all__ = ["linearize"]


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(output, jvp_fn)``: ``func(*primals)``, and ``jvp_fn(*tangents)`` the Jacobian of
    ``func`` at ``primals`` applied to ``tangents`` (pytrees of the primals' structure and
    shapes), with the output's structure.

    ``func`` is traced once; every call of ``jvp_fn`` is two passes over the recorded graph
    (the Jacobian-vector product as the derivative of a vector-Jacobian product), no new
    forward run.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import linearize
    >>> out, jvp_fn = linearize(lambda x: x ** 3, symgrad.tensor([1.0, 2.0]))
    >>> out
    tensor([1., 8.])
    >>> jvp_fn(symgrad.tensor([1.0, 0.5]))
    tensor([3., 6.])
    """
    what = "linearize(func, *primals)"
    check_floating_primals(primals)
    run = _Transform(primals, "linearize")
    with run:
        inputs, xs = _fresh_tree(primals, what)
        out = func(*inputs)
        outs, out_spec = _tensor_outputs(out, what)
        us = [_like.zeros_like(o).requires_grad_(True) for o in outs if _has_tangent(o)]
        pulled = _products([o for o in outs if _has_tangent(o)], xs, us, True)
    primal_spec = tree_flatten(primals)[1]

    def jvp_fn(*tangents: Any) -> Any:
        ts, spec = tree_flatten(tangents)
        if spec != primal_spec:
            raise RuntimeError(
                f"Expected the tangents {spec} to have the same argspec as the primals "
                f"{primal_spec}"
            )
        for i, (t, x) in enumerate(zip(ts, xs)):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{what}: expected tangents to be Tensors, got {type(t)}")
            if tuple(t.shape) != tuple(x.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {x.shape} of the corresponding primal."
                )
        with run:
            found = iter(_products(pulled, us, ts, run.create_graph))
        # an integer output has no tangent: its jvp is zeros, as PyTorch's
        jv = [next(found) if _has_tangent(o) else _like.zeros_like(o) for o in outs]
        return run.finish(tree_unflatten(jv, out_spec))

    return run.finish(out), jvp_fn


def _has_tangent(out: Tensor) -> bool:
    return out.dtype.is_floating_point
