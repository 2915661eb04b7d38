"""``segment_reduce``: a reduction of consecutive runs (segments) of a tensor along one axis,
one ``SegmentReduceBackward0`` node.

The rule is written in vocabulary words: the segments are gathered into a padded block
(``gather`` along the axis, one row of ``longest`` slots per segment, the slots past a
segment's end masked), reduced along the slots, and the gradient scattered back the same way
(``scatter_zeros``). So it runs on NumPy, on tensors (double backward) and on SymPy arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["segment_reduce"]

_REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
               "amin": "min", "prod": "prod"}  # fmt: skip
_IDENTITY = {"sum": 0.0, "mean": 0.0, "max": -np.inf, "min": np.inf, "prod": 1.0}


def _padded(xp: Any, x: Any, p: dict) -> Any:
    """The segments as a block (*batch, segments, longest, *rest), masked slots ``fill``."""
    axis, blocked = p["axis"], p["blocked"]
    taken = xp.reshape(xp.gather(x, axis, p["index"]), blocked)
    return taken, xp.where(xp.constant(p["mask"]), taken, xp.constant(p["fill"]))


def _forward(xp: Any, x: Any, *, reduce: str, initial: Any, **p: Any) -> Any:
    slots = p["axis"] + 1
    if p["blocked"][slots] == 0:  # every segment empty
        return xp.constant(p["empty"])
    _, block = _padded(xp, x, p)
    if reduce in ("max", "min"):
        if initial is not None:  # one more slot holding the initial value
            block = xp.cat([block, xp.constant(p["extra"])], slots)
        return xp.extremum(block, slots, False, np.argmax if reduce == "max" else np.argmin)
    if reduce == "prod":
        whole = xp.getitem(xp.prod_others(block, (slots,)) * block, p["first"])
        return whole if initial is None else whole * initial
    total = xp.sum(block, slots, False)
    if initial is not None:
        total = total + initial
    if reduce == "sum":
        return total
    out = total / xp.constant(p["counts"])
    if initial is not None:  # an empty segment's mean is the initial value
        out = xp.where(xp.constant(p["counts"] == 0), initial, out)
    return out


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = dict(c.params)
    reduce, initial, slots = p["reduce"], p["initial"], p["axis"] + 1
    if p["blocked"][slots] == 0:
        return (xp.constant(np.zeros(c.shapes[0], p["empty"].dtype)),)
    gb = xp.expand(xp.unsqueeze(g, slots), p["blocked"])
    mask = xp.constant(p["mask"])
    if reduce == "mean":
        gb = gb / xp.constant(np.maximum(p["counts"], 1)[(slice(None),) * slots + (None,)])
    elif reduce in ("max", "min"):
        taken, _ = _padded(xp, c.inputs[0], p)
        hit = xp.where(mask, xp.eq(taken, xp.unsqueeze(c.out, slots)), mask)
        gb = xp.where(hit, gb / xp.count(hit, slots, True), 0.0)
    elif reduce == "prod":
        _, block = _padded(xp, c.inputs[0], p)
        gb = gb * xp.prod_others(block, (slots,))
        if initial is not None:
            gb = gb * initial
    flat = xp.reshape(xp.where(mask, gb, 0.0), p["index"].shape)
    return (xp.scatter_zeros(tuple(c.shapes[0]), p["axis"], p["index"], flat),)


_SEGMENT_REDUCE = Structural(
    "segment_reduce",
    _forward,
    _vjp,
    saves=(0,),
    saves_out=True,
    backward="SegmentReduceBackward0",
    jvp=no_forward_rule("segment_reduce"),
)


def _integer(t: Tensor, kind: str) -> np.ndarray:
    if (
        t.dtype.is_floating_point
        or t.dtype.is_complex
        or t._data.dtype.kind not in "iu"
        or (t._data.dtype.itemsize < 4)
    ):
        raise NotImplementedError(
            f"\"_segment_reduce_{kind}_cpu_kernel1\" not implemented for '{t.dtype.scalar_type}'"
        )
    return t._data.astype(np.int64)


def _segments(data: Tensor, lengths: Any, offsets: Any, axis: int, unsafe: bool) -> tuple:
    """Each segment's start and length along ``axis``, arrays (*batch, segments)."""
    if lengths is not None:
        lens = _integer(lengths, "lengths")
        if (lens < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if lens.ndim == 0 or lens.ndim - 1 != axis:
            raise RuntimeError(
                "segment_reduce(): Expected axis to be the last dimension of lengths but got "
                f"{axis}."
            )
        ends = np.cumsum(lens, axis=-1)
        if not unsafe and (ends[..., -1:] != data.shape[axis]).any():
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
        return ends - lens, lens
    offs = _integer(offsets, "offsets")
    if offs.ndim == 0 or offs.ndim - 1 != axis:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of offsets but got {axis}."
        )
    lens = np.diff(offs, axis=-1)
    if (lens < 0).any():
        raise RuntimeError(
            "Expected segment_length >= 0 to be true, but got false.  (Could this error message "
            "be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    return offs[..., :-1], lens


def _layout(data: Tensor, starts: np.ndarray, lens: np.ndarray, axis: int) -> dict:
    """The gather index, slot mask and block shape of the padded segments."""
    shape = tuple(data.shape)
    rest = shape[axis + 1 :]
    longest = int(lens.max()) if lens.size else 0
    slot = np.arange(longest)
    valid = slot < lens[..., None]
    position = np.where(valid, starts[..., None] + slot, 0)
    if (position >= max(shape[axis], 1)).any() or (shape[axis] == 0 and valid.any()):
        raise RuntimeError(
            f"segment_reduce(): the segments run past the end of the data (size {shape[axis]} "
            f"along axis {axis})"
        )
    blocked = lens.shape + (longest,) + rest
    grow = (None,) * len(rest)
    flat = lens.shape[:-1] + (lens.shape[-1] * longest,) + rest
    index = np.broadcast_to(position.reshape(flat[: axis + 1] + (1,) * len(rest)), flat)
    mask = np.broadcast_to(valid[(...,) + grow], blocked)
    counts = np.broadcast_to(lens[(...,) + grow], lens.shape + rest)
    return {"index": np.ascontiguousarray(index), "mask": mask, "blocked": blocked,
            "counts": counts.astype(data._data.dtype)}  # fmt: skip


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Any = None,
) -> Tensor:
    """Reduce (``"sum"``, ``"mean"``, ``"max"``, ``"min"``, ``"prod"``) each run of
    ``data`` along ``axis`` given by ``lengths`` (or ``offsets``: their starts and the end),
    batched over the leading dims of ``lengths``; ``initial`` joins every segment (an empty
    one gives it, else the reduction's identity; an empty mean is nan). Without ``unsafe``
    each row of ``lengths`` must cover the axis exactly. Gradients as PyTorch's: the maximum's
    shared among ties, the product's exact with zeros.

    Examples
    --------
    >>> import symgrad
    >>> data = symgrad.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> symgrad.segment_reduce(data, "sum", lengths=symgrad.tensor([2, 0, 3]))
    tensor([ 3.,  0., 12.])
    >>> symgrad.segment_reduce(data, "max", offsets=symgrad.tensor([0, 4, 5]))
    tensor([4., 5.])
    """
    kind = _REDUCTIONS.get(reduce)
    if kind is None:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    n = max(data.ndim, 1)
    if not -n <= axis < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {axis})"
        )
    axis %= n
    if not data.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"_segment_reduce_cpu\" not implemented for '{data.dtype.scalar_type}'"
        )
    starts, lens = _segments(data, lengths, offsets, axis, unsafe)
    p = _layout(data, starts, lens, axis)
    dtype = data._data.dtype
    fill = _IDENTITY[kind] if initial is None or kind not in ("max", "min") else initial
    empty = np.full(lens.shape + tuple(data.shape[axis + 1 :]), fill, dtype)
    if kind == "prod" and initial is not None:
        empty[...] = initial
    if kind in ("sum", "mean"):
        empty[...] = np.nan if kind == "mean" and initial is None else (initial or 0.0)
    first = (slice(None),) * (axis + 1) + (0,)
    extra = np.full(p["blocked"][: axis + 1] + (1,) + p["blocked"][axis + 2 :], fill, dtype)
    return _SEGMENT_REDUCE(
        data, reduce=kind, initial=initial, axis=axis, fill=np.asarray(fill, dtype),
        empty=empty, first=first, extra=extra, **p,
    )  # fmt: skip
