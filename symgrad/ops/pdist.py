"""``pdist``: the ``p``-norm distance between every pair of rows ``i < j`` of a matrix, in the
order of the upper triangle read row by row; one ``PdistBackward0`` node, with the gradient
rules of :func:`symgrad.cdist` (0 where a distance is 0). As PyTorch's, its gradient under
``create_graph`` is a ``PdistBackwardBackward0`` node reading (g, x, result) without a
derivative of its own."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad.ops.norms import _norm_p
from symgrad.ops.pairwise_distances import _difference_gradient, _kernel
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.no_derivative import backward_without_derivative
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["pdist"]


def _pairs(n: int) -> tuple:
    i, j = np.triu_indices(n, 1)
    return (i,), (j,)


def _differences(xp: Any, x: Any) -> Any:
    first, second = _pairs(x.shape[0])
    return xp.getitem(x, first) - xp.getitem(x, second)


def _forward(xp: Any, x: Any, p: float) -> Any:
    d = _differences(xp, x)
    if p == 2:
        return xp.sqrt(xp.sum(d * d, (1,), False))
    return _norm_p(xp, d, p, (1,), False)


def _pdist_kernel(xp: Any, x: Any, p: float) -> Any:
    first, second = _pairs(x.shape[0])
    # the row pairs as cdist's (K, 1, M) and (K, 1, M) batches: one distance each
    return _kernel(xp, x[first][:, None, :], x[second][:, None, :], p)[:, 0, 0]


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    (x,) = c.inputs
    first, second = _pairs(x.shape[0])
    gd = _difference_gradient(xp, _differences(xp, x), g, c.out, c.params["p"])
    shape = c.shapes[0]
    return (xp.index_put_zeros(shape, first, gd) - xp.index_put_zeros(shape, second, gd),)


_PDIST_BACKWARD = backward_without_derivative("_pdist_backward", "PdistBackwardBackward0")


def _recorded_vjp(xp: Any, g: Any, c: Any) -> tuple:
    (x,) = c.inputs
    if xp is not INTERPRETERS.tensor or any(type(t) is BatchedTensor for t in (g, x, c.out)):
        return _vjp(xp, g, c)
    arrays = Ctx((x._data,), c.out._data, c.shapes, c.needs, c.params)
    return (_PDIST_BACKWARD(g, x, c.out, values=_vjp(NP, g._data, arrays)[0]),)


_recorded_vjp.__wrapped__ = _vjp  # type: ignore[attr-defined]  # (what symgrad.compile calls)


_PDIST = Structural(
    "pdist",
    _forward,
    _recorded_vjp,
    jvp=no_forward_rule("_pdist_forward"),
    saves=(0,),
    saves_out=True,
    backward="PdistBackward0",
    kernel=_pdist_kernel,
)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distances between the rows of ``input`` ``(N, M)``: the ``N (N - 1) /
    2`` pairs ``i < j``, as ``cdist(input, input, p)[i, j]`` read row by row.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.pdist(symgrad.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
    """
    if type(input) is not Tensor:
        require_tensor("pdist", "input", 1, input)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"pdist only supports floating-point dtypes, got: {input.dtype.scalar_type}"
        )
    if input.dtype.scalar_type == "Half":
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    p = float(p)
    if not p >= 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got p={p}")
    return _PDIST(input, p=p)
