"""``histogram`` and ``histogramdd``: counts (or weights, or densities) of the elements in
bins, with the bins' edges; not differentiable."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad.ops.determinants import return_type
from symgrad.tensor import Tensor, bind_methods

__all__ = ["histogram", "histogramdd"]


def _edges(op: str, data: np.ndarray, bins: Any, span: Any, dim: int) -> np.ndarray:
    """The bin edges of dimension ``dim``: given as a tensor, else ``bins`` equal bins over
    ``span`` (the data's own range when None; widened by 0.5 each way when it is one point)."""
    if isinstance(bins, Tensor):
        if bins.dtype.numpy != data.dtype:
            raise RuntimeError(
                f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {data.dtype.name} and bins for dimension {dim} with "
                f"dtype {bins.dtype.numpy.name}"
            )
        return np.asarray(bins._data, dtype=data.dtype)
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"{op}(): bins must be an int or a tensor of edges, not {type(bins)}")
    if bins <= 0:
        raise RuntimeError(f"{op}: bins must be > 0, but got {bins} for dimension {dim}")
    if span is None:
        lo, hi = (float(data.min()), float(data.max())) if data.size else (0.0, 1.0)
    else:
        lo, hi = float(span[0]), float(span[1])
    if lo > hi:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
            f"dimension {dim}"
        )
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(
            f"torch.histogramdd: dimension {dim}'s range [{lo:g}, {hi:g}] is not finite"
        )
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, int(bins) + 1).astype(data.dtype)


def _check(op: str, input: Any, weight: Any) -> None:
    if type(input) is not Tensor:
        require_tensor(op, "input", 1, input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{input.dtype.scalar_type}'"
        )
    if weight is not None:
        if not isinstance(weight, Tensor):
            raise TypeError(
                f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}"
            )
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"{op}: weight must have the same dtype as input")


def histogram(
    input: Tensor, bins: Any = 100, *, range: Any = None, weight: Any = None, density: bool = False
) -> tuple:
    """The histogram of ``input``'s elements: ``bins`` equal bins over ``range`` (the data's
    own range by default), or the edges given by a 1-D tensor ``bins``. Returns
    ``(hist, bin_edges)``; ``weight`` (of ``input``'s shape) adds weights instead of counts,
    ``density`` scales to a probability density.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.histogram(symgrad.tensor([1.0, 2.0, 1.0]), bins=2, range=(0.0, 2.0))
    symgrad.return_types.histogram(
    hist=tensor([0., 3.]),
    bin_edges=tensor([0., 1., 2.]))
    """
    _check("histogram", input, weight)
    if weight is not None and weight.shape != input.shape:
        raise RuntimeError("histogram: weight should have the same shape as input")
    data = np.asarray(input._data).reshape(-1)
    edges = _edges("torch.histogram()", data, bins, range, 0)
    w = None if weight is None else np.asarray(weight._data).reshape(-1)
    hist, _ = np.histogram(data, bins=edges.astype(np.float64), weights=w, density=density)
    out = return_type("histogram", ("hist", "bin_edges"))
    return out(Tensor._make(hist.astype(data.dtype)), Tensor._make(edges))


def histogramdd(
    input: Tensor, bins: Any, *, range: Any = None, weight: Any = None, density: bool = False
) -> tuple:
    """The ``D``-dimensional histogram of the points in the last dimension of ``input`` (of
    size ``D``): ``bins`` an int (for every dimension), ``D`` ints, or ``D`` tensors of edges;
    ``range`` the flat ``[min0, max0, min1, max1, ...]``. Returns ``(hist, bin_edges)``.

    Examples
    --------
    >>> import symgrad
    >>> points = symgrad.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> symgrad.histogramdd(points, bins=2).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    _check("histogramdd", input, weight)
    if input.ndim < 1:
        raise RuntimeError("torch.histogramdd: input should have at least 1 dimension")
    dims = input.shape[-1]
    points = np.asarray(input._data).reshape(-1, dims)
    each = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(each) != dims:
        raise RuntimeError(
            f"torch.histogramdd: expected {dims} sequences of bin edges for each of the {dims} "
            f"dimensions of input, but got {len(each)}"
        )
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(
            f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
            f"{2 * dims} elements, but got {len(range)}"
        )
    edges = [
        _edges(
            "torch.histogramdd()",
            points[:, d],
            b,
            None if range is None else range[2 * d : 2 * d + 2],
            d,
        )
        for d, b in enumerate(each)
    ]
    w = None if weight is None else np.asarray(weight._data).reshape(-1)
    hist, _ = np.histogramdd(
        points, bins=[e.astype(np.float64) for e in edges], weights=w, density=density
    )
    out = return_type("histogramdd", ("hist", "bin_edges"))
    return out(Tensor._make(hist.astype(points.dtype)), tuple(Tensor._make(e) for e in edges))


bind_methods({"histogram": histogram})
