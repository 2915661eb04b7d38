"""Pooling and padding primitives: each is a gather, a sum of gathers or a product with a
constant matrix, so its rule is a few vocabulary words on every interpreter.

- ``pick``: ``x[key]`` for a fixed advanced key (max pooling picks each window's maximum,
  found on the numbers; padding by reflection or replication picks the mirrored or edge
  element); its VJP adds the gradients back where they were picked.
- ``pool_matrices``: average pooling, adaptive or not, is separable: along each spatial
  dimension every output is a weighted sum of a window of inputs, so it is one constant
  ``(out, in)`` matrix per dimension; the VJP multiplies by the transposes.
- ``constant_pad``: the input, cropped where a pad is negative, placed in a tensor of the
  fill value.

Max and average pooling and reflection or replication padding take ``reads_input=True``:
PyTorch's backward of these reads the input, so under ``create_graph`` their gradient is a
node of its own (``MaxPool2DWithIndicesBackwardBackward0``) with an edge to the input too,
whose derivative there is zero; the gradient then requires grad whenever the input does, even
where the incoming gradient is a constant (``max_pool2d(x, 2).sum()``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._tracing import TRACE, data_params
from symgrad.ops.max_positions import first_maximum, max_positions, window_maximum
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.numpy_xp import HALF, NP
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS

__all__ = [
    "pick",
    "first_maximum",
    "max_positions",
    "window_maximum",
    "pool_matrices",
    "integer_average",
    "constant_pad",
]


# -- picking by a fixed key ---------------------------------------------------------------------
def _pick_forward(xp: Any, x: Any, key: tuple, unique: bool = False, saved_as: tuple = ()) -> Any:
    return xp.getitem(x, key)


def _pick_grad(
    xp: Any, g: Any, shape: tuple, key: tuple, unique: bool = False, saved_as: tuple = ()
) -> Any:
    # windows that don't overlap pick each element once at most: written, not accumulated
    return xp.index_put_zeros(shape, key, g, unique)


def _pick_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_pick_grad(xp, g, c.shapes[0], c.params["key"], c.params.get("unique", False)),)


def _named_pick_vjp(node: str) -> Any:
    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        unique = c.params.get("unique", False)
        return (xp.index_put_zeros(c.shapes[0], c.params["key"], g, unique, node=node),)

    return vjp


_PICKS: dict[str, Structural] = {}
# the op PyTorch's formula records for the gradient, where it has one of its own:
# grad.roll(-shifts, dims), grad.rot90(-k, dims), masked_scatter of the gradient into zeros
_GRAD_NODES = {
    "RollBackward0": "RollBackward0",
    "Rot90Backward0": "Rot90Backward0",
    "MaskedSelectBackward0": "MaskedScatterBackward0",
}


def pick(
    x: Any,
    key: tuple,
    name: str,
    find: Any = None,
    reads_input: bool = False,
    unique: bool = False,
    shown: tuple = (),
) -> Any:
    """``x[key]`` recorded as PyTorch's node ``name`` (max pooling, reflection, rolling,
    ...); its gradient is added back at ``key`` (``unique``: ``key`` names no element twice;
    ``shown``: the arguments the node shows, as ``(name, value)`` pairs).
    ``find(x's values)`` gives ``key`` when the values choose it (max pooling): a compiled
    program finds it afresh at every call. ``reads_input``: PyTorch's backward reads ``x``
    (see the module's notes)."""
    prim = _PICKS.get(name)
    if prim is None:
        vjp = _reading_input(name, _pick_forward, _pick_grad) if reads_input else _pick_vjp
        if name in _GRAD_NODES:
            vjp = _named_pick_vjp(_GRAD_NODES[name])
        prim = _PICKS[name] = Structural(
            "pick",
            _pick_forward,
            vjp,
            saves=(0,) if reads_input else (),
            backward=name,
            jvp="linear",
            batch="getitem",
            suggested=(4, 5) if name.startswith("MaxPool3D") else True,
        )
    if shown:  # (unique before saved_as: the gradient takes the parameters in order)
        result = prim(x, key=key, unique=unique, saved_as=shown)
    else:
        result = prim(x, key=key, unique=True) if unique else prim(x, key=key)
    if find is not None and TRACE.log is not None:
        data_params(result, lambda a: {"key": find(a)}, x)
    return result


# -- separable weighted sums (average pooling) --------------------------------------------------
def _along(xp: Any, x: Any, axis: int, matrix: np.ndarray) -> Any:
    """``matrix`` applied along ``axis`` of ``x`` (a float16 tensor's float32 average weights
    in float16, as matmul takes operands of one dtype)."""
    if getattr(getattr(x, "dtype", None), "numpy", None) is HALF:
        matrix = matrix.astype(HALF)
    moved = xp.transpose(x, axis, -1)
    return xp.transpose(xp.matmul(moved, xp.constant(matrix.T)), axis, -1)


def _pool_forward(
    xp: Any, x: Any, matrices: tuple, saved_as: tuple = (), grad_matrices: Any = None
) -> Any:
    if xp is NP:  # (a gradient's gradient) NaN and infinity kept in their windows
        return _pool_kernel(xp, x, matrices)
    first = x.ndim - len(matrices)
    for i, m in enumerate(matrices):
        x = _along(xp, x, first + i, m)
    return x


def _numpy_along(x: np.ndarray, axis: int, matrix: np.ndarray) -> np.ndarray:
    """``matrix`` applied along ``axis`` as one 2-d matrix product (BLAS): NumPy's stacked
    ``matmul`` of transposed views takes a slow loop instead."""
    moved = np.moveaxis(x, axis, -1)
    rows = np.ascontiguousarray(moved).reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
    out = rows @ matrix.T
    bad = ~np.isfinite(rows)
    if bad.any():
        out = _nonfinite_rows(rows, matrix, out, bad)
    return np.moveaxis(out.reshape(moved.shape[:-1] + (matrix.shape[0],)), -1, axis)


def _nonfinite_rows(rows: np.ndarray, matrix: np.ndarray, out: np.ndarray, bad: np.ndarray):
    """The products of rows holding a NaN or an infinity, each output summing only the
    inputs it weighs: in the matrix product a zero weight times NaN would spread the NaN
    to every output of the row (PyTorch's window sums keep it in its windows)."""
    which = np.flatnonzero(bad.any(-1))
    weighed = matrix != 0
    terms = np.where(weighed, rows[which, None, :] * matrix, 0)
    out = out.copy()
    out[which] = terms.sum(-1)
    return out


def _pool_kernel(
    xp: Any, x: np.ndarray, matrices: tuple, saved_as: tuple = (), grad_matrices: Any = None
) -> np.ndarray:
    if x.dtype is HALF and matrices and matrices[0].dtype == np.float32:
        # float32 weights of a float16 input: PyTorch's float32 arithmetic, rounded once
        return _pool_kernel(xp, x.astype(np.float32), matrices).astype(HALF)
    first = x.ndim - len(matrices)
    for i, m in enumerate(matrices):
        x = _numpy_along(x, first + i, m)
    return np.ascontiguousarray(x)


def integer_average(x: np.ndarray, matrices: tuple) -> np.ndarray:
    """Average pooling of an int64 array as PyTorch's kernel: each window's sum divided by
    its divisor (``1 / weight`` of the window's row in each matrix), truncated toward 0."""
    sums = _pool_kernel(NP, x.astype(np.float64), tuple((m != 0).astype(float) for m in matrices))
    return np.trunc(sums / _divisors(matrices)).astype(x.dtype)


def _divisors(matrices: tuple) -> np.ndarray:
    """Each window's divisor: the product of ``1 / weight`` of its row in each matrix."""
    divisor = np.ones(())
    for m in matrices:
        weight = m.max(axis=1)  # a row of zeros (no input in its window) sums to 0 anyway
        divisor = np.multiply.outer(divisor, 1 / np.where(weight > 0, weight, 1.0))
    return np.rint(divisor)


def _ones(matrices: tuple) -> tuple:
    return tuple((m != 0).astype(np.float32) for m in matrices)


def _average_kernel(xp: Any, x: np.ndarray, matrices: tuple, saved_as: tuple = ()) -> np.ndarray:
    """Average pooling; float16 as PyTorch's kernels: each window summed in float32, divided
    by its divisor, rounded once."""
    if x.dtype is not HALF:
        return _pool_kernel(xp, x, matrices)
    sums = _pool_kernel(xp, x.astype(np.float32), _ones(matrices))
    return (sums / _divisors(matrices).astype(np.float32)).astype(HALF)


def _average_grad(xp: Any, g: Any, shape: tuple, matrices: tuple, saved_as: tuple = ()) -> Any:
    """``_pool_grad``; for a float16 gradient as PyTorch's kernel: each window's share (the
    gradient over its divisor, rounded to float16) added to the window's inputs in float16,
    window after window in row-major order."""
    if xp is not NP or g.dtype is not HALF:
        return _pool_grad(xp, g, shape, matrices)
    shares = (g.astype(np.float32) / _divisors(matrices).astype(np.float32)).astype(HALF)
    if all((m != 0).sum(axis=0).max(initial=0) <= 1 for m in matrices):  # no window overlaps
        return _pool_kernel(xp, shares, tuple(m.T for m in _ones(matrices))).astype(HALF)
    d = len(matrices)
    out = np.zeros(shape, np.float32)
    lead = (slice(None),) * (out.ndim - d)
    spans = [[np.flatnonzero(row) for row in m] for m in matrices]
    for position in np.ndindex(*shares.shape[-d:]):
        cols = [span[i] for span, i in zip(spans, position)]
        if all(len(col) for col in cols):
            window = lead + tuple(slice(col[0], col[-1] + 1) for col in cols)
            share = shares[lead + position].reshape(shares.shape[:-d] + (1,) * d)
            out[window] = (out[window] + share).astype(HALF)
    return out.astype(HALF)


def _average_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_average_grad(xp, g, c.shapes[0], c.params["matrices"]),)


def _pool_grad(xp: Any, g: Any, shape: tuple, matrices: tuple, saved_as: tuple = ()) -> Any:
    first = len(shape) - len(matrices)
    if xp is NP:
        return _pool_kernel(xp, g, tuple(m.T for m in matrices))
    for i, m in enumerate(matrices):
        g = _along(xp, g, first + i, np.ascontiguousarray(m.T))
    return g


def _pool_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_pool_grad(xp, g, c.shapes[0], _backward_matrices(c.params)),)


def _backward_matrices(params: dict) -> tuple:
    """The matrices the gradient is resized by: the forward's, but where PyTorch's backward
    kernel picks other inputs (see ``pool_matrices``)."""
    grad_matrices = params.get("grad_matrices")
    return params["matrices"] if grad_matrices is None else grad_matrices


_POOLS: dict[str, Structural] = {}


def pool_matrices(
    x: Any,
    matrices: tuple,
    name: str,
    reads_input: bool = False,
    shown: tuple = (),
    grad_matrices: tuple | None = None,
) -> Any:
    """The last ``len(matrices)`` dimensions of ``x`` each multiplied by its ``(out, in)``
    matrix, recorded as PyTorch's node ``name``; ``reads_input``: PyTorch's backward reads
    ``x`` (see the module's notes); ``shown``: the arguments the node shows, as ``(name,
    value)`` pairs; ``grad_matrices``: the transposes of these give the gradient, where
    PyTorch's backward kernel is not its forward's (1-d and 3-d nearest resizing)."""
    prim = _POOLS.get(name)
    averages = "AvgPool" in name
    if prim is None:
        if reads_input:
            vjp = _reading_input(name, _pool_forward, _average_grad if averages else _pool_grad)
        elif averages:
            vjp = _average_vjp
        else:
            vjp = _gradient_only(name)
        prim = _POOLS[name] = Structural(
            "pool",
            _pool_forward,
            vjp,
            saves=(0,) if reads_input else (),
            backward=name,
            kernel=_average_kernel if averages else _pool_kernel,
            jvp="linear",
            batch="trailing",
            # PyTorch's 3-d resizing keeps a channels-last 3-d layout, its 3-d averages do not
            suggested=(4, 5) if name.startswith("Upsample") else True,
        )
    # a float16 average keeps its weights (1/3, ...) in float32 for its float32 window sums,
    # and so does an interpolation whose caller built them in float32
    wide = averages or all(np.asarray(m).dtype == np.float32 for m in matrices)
    dtype = np.float32 if wide and x.dtype.numpy is HALF else x.dtype.numpy
    matrices = tuple(np.asarray(m, dtype=dtype) for m in matrices)
    params: dict = {"matrices": matrices}
    if shown:
        params["saved_as"] = shown
    if grad_matrices is not None:
        params["grad_matrices"] = tuple(np.asarray(m, dtype=dtype) for m in grad_matrices)
    return prim(x, **params)


# -- the gradient as a node reading the input ---------------------------------------------------
def _as_node(xp: Any, g: Any, c: Any) -> bool:
    """Whether the gradient is recorded as a node of its own: under ``create_graph``, out of
    ``vmap`` (there the plain rule runs on the batch)."""
    if xp is not INTERPRETERS.tensor or type(g) is BatchedTensor:
        return False
    return type(c.inputs[0]) is not BatchedTensor


def _check_gradient(name: str, shape: tuple) -> None:
    """PyTorch's error for the gradient of an adaptive pooling to an empty output: its
    backward kernels refuse an empty dimension other than the batch."""
    d = int(name.split("D", 1)[0][-1])  # (AdaptiveAvgPool2DBackward0, ...)
    for i in range(len(shape) - d - 1 if len(shape) == d + 2 else 0, len(shape)):
        if shape[i] == 0:
            kind = "avg" if "Avg" in name else "max"
            raise RuntimeError(
                f"adaptive_{kind}_pool{d}d_backward(): Expected grad_output to have non-zero "
                f"size for non-batch dimensions, but grad_output has sizes {list(shape)} with "
                f"dimension {i} being empty"
            )


def _reading_input(name: str, forward: Any, grad: Any) -> Any:
    """The VJP rule of an op (``forward``, whose gradient ``grad(xp, g, shape, *params)``
    reads only the input's shape) whose PyTorch backward reads the input: under
    ``create_graph`` the gradient is the node ``(g, x) -> grad`` named after ``name``."""

    def node_vjp(xp: Any, gg: Any, c: Any) -> tuple:
        # linear in the incoming gradient; zero for the input, which gives only its shape
        params = {k: v for k, v in c.params.items() if k != "dtype"}
        gg_g = forward(xp, gg, **params) if c.needs[0] else None
        zeros = np.zeros(c.shapes[1], dtype=c.params["dtype"])
        return (gg_g, xp.constant(zeros) if c.needs[1] else None)

    node = Structural(
        f"{name}_backward",
        lambda xp, g, x, dtype, **params: grad(xp, g, tuple(x.shape), *params.values()),
        node_vjp,
        backward=name.replace("Backward0", "BackwardBackward0"),
        jvp="linear",  # in the incoming gradient; the input gives its shape only
    )

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        if name.startswith("Adaptive"):
            _check_gradient(name, tuple(g.shape))
        if not _as_node(xp, g, c):
            return (grad(xp, g, c.shapes[0], *c.params.values()),)
        x = c.inputs[0]
        return (node(g, x, dtype=x._data.dtype, **c.params),)

    vjp.__wrapped__ = grad  # type: ignore[attr-defined]  # (what symgrad.compile calls)
    return vjp


def _gradient_only(name: str) -> Any:
    """The VJP rule of a resize by matrices whose PyTorch backward reads the incoming
    gradient only (interpolation): under ``create_graph`` the gradient is the node
    ``g -> gradient`` named after ``name``, whose own VJP is the resize again: the forward's
    matrices ``forward``, also where the backward kernel takes others (as PyTorch's)."""
    node = Structural(
        f"{name}_backward",
        lambda xp, g, shape, matrices, forward: _pool_grad(xp, g, shape, matrices),
        lambda xp, gg, c: (_pool_forward(xp, gg, c.params["forward"]),),
        backward=name.replace("Backward0", "BackwardBackward0"),
        jvp="linear",
    )

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        if not _as_node(xp, g, c):
            return _pool_vjp(xp, g, c)
        shape, forward = tuple(c.shapes[0]), c.params["matrices"]
        return (node(g, shape=shape, matrices=_backward_matrices(c.params), forward=forward),)

    vjp.__wrapped__ = _pool_vjp  # type: ignore[attr-defined]  # (what symgrad.compile calls)
    return vjp


# -- constant padding ---------------------------------------------------------------------------
def _pad_forward(
    xp: Any, x: Any, crop: tuple, place: tuple, shape: tuple, mask: Any, value: Any
) -> Any:
    out = xp.index_put_zeros(shape, place, xp.getitem(x, crop), True)
    if mask is None:
        return out
    return xp.where(xp.constant(mask), out, xp.constant(np.full(shape, value)))


def _pad_vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    if _as_node(xp, g, c):
        # PyTorch's gradient is constant_pad_nd(g, -pads): one ConstantPadNdBackward0 node
        back = {"crop": p["place"], "place": p["crop"], "shape": tuple(c.shapes[0])}
        return (_CONSTANT_PAD(g, **back, mask=None, value=0),)
    return (xp.index_put_zeros(c.shapes[0], p["crop"], xp.getitem(g, p["place"]), True),)


def _pad_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """The tangent padded with zeros: the fill value is a constant."""
    p = c.params
    return _pad_forward(xp, tangents[0], p["crop"], p["place"], p["shape"], None, 0)


def _pad_batch(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Inside ``vmap``: the batch is one more leading, unpadded dimension."""
    p = args[0]._physical
    whole = (slice(None),)
    new = dict(params, crop=whole + params["crop"], place=whole + params["place"])
    new["shape"] = (p.shape[0],) + tuple(params["shape"])
    return prim(p, **new)


_CONSTANT_PAD = Structural(
    "constant_pad",
    _pad_forward,
    _pad_vjp,
    backward="ConstantPadNdBackward0",
    jvp=_pad_jvp,
    batch=_pad_batch,
    suggested=True,
)


def constant_pad(x: Any, pads: list, value: float) -> Any:
    """``x`` with ``pads[i] = (before, after)`` elements of ``value`` on its last dimensions
    (negative pads crop)."""
    lead = x.ndim - len(pads)
    crop, place, shape = [slice(None)] * lead, [slice(None)] * lead, list(x.shape[:lead])
    for n, (lo, hi) in zip(x.shape[lead:], pads):
        if n + min(lo, 0) < 0 or n + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        crop.append(slice(max(-lo, 0), n - max(-hi, 0)))
        size = n + lo + hi
        place.append(slice(max(lo, 0), size - max(hi, 0)))
        shape.append(size)
    mask = None
    if value != 0:
        mask = np.zeros(shape, dtype=bool)
        mask[tuple(place)] = True
        # the fill in x's dtype: a Python float would make a float32 tensor's padding float64;
        # an integer fill wraps around as PyTorch's cast does (-1 is 255 in uint8)
        if hasattr(x.dtype, "numpy"):
            with np.errstate(all="ignore"):
                value = np.asarray(value).astype(x.dtype.numpy)[()]
    return _CONSTANT_PAD(
        x, crop=tuple(crop), place=tuple(place), shape=tuple(shape), mask=mask, value=value
    )
