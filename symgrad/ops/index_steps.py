"""The nodes PyTorch records for an index key of several entries: its ints, slices and Nones
one at a time, left to right, then its tensors in one index (see ``indexing.getitem``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.index_keys import skipped_slice
from symgrad.tensor import Tensor

__all__ = ["index_steps"]


def index_steps(key: tuple, given: Any, shape: tuple) -> tuple:
    """The nodes PyTorch makes for ``key``, in its order: a select for each int, a slice for
    each slice that is not its whole dimension, an unsqueeze for each None (and for each bool,
    then indexed by a one-element mask), left to right; then one index by the tensors, given
    as they were (``"advanced"``, a key of its own). ``(kind, None)`` when that is one node of
    that kind (or none: ``"alias"``), to make with the whole key at once."""
    given = given if isinstance(given, tuple) else (given,)
    size = list(shape)  # of the partial result
    steps: list = []  # (kind, dimension, entry)
    advanced: list = []  # (dimension, index as given, dimensions it covers)
    at = 0  # the dimension of the partial result the next entry reads
    for k, g in zip(key, given):
        kind = type(k)
        if kind is int:
            steps.append(("select", at, k))
            del size[at]
        elif kind is slice:
            if not skipped_slice(k, size[at]):
                steps.append(("slice", at, k))
                size[at] = len(range(*k.indices(size[at])))
            at += 1
        elif k is None or kind is bool:
            steps.append(("unsqueeze", at, None))
            size.insert(at, 1)
            if kind is bool:
                advanced.append((at, Tensor._make(np.array([k])), 1))
            at += 1
        elif k is Ellipsis:
            at += len(shape) - sum(map(_reads, key))
        else:  # an index array (a uint8 mask goes on as the bool mask it was read as)
            uint8 = isinstance(g, Tensor) and g._data.dtype == np.uint8
            advanced.append((at, Tensor._make(k) if uint8 else g, _reads(k)))
            at += _reads(k)
    if len(steps) + bool(advanced) <= 1:
        return ("advanced" if advanced else steps[0][0] if steps else "alias"), None
    chain = [(kind, (slice(None),) * at + (k,)) for kind, at, k in steps]
    if advanced:
        index: list = []
        covered = 0  # dimensions the index covers so far (a mask: as many as it has)
        for dim, g, dims in advanced:
            index += [slice(None)] * (dim - covered) + [g]
            covered = dim + dims
        chain.append(("advanced", tuple(index) + (Ellipsis,)))
    return None, chain


def _reads(k: Any) -> int:
    """The dimensions of the indexed tensor that the (normalized) key entry ``k`` reads: a
    mask as many as it has, None, ``...`` and a bool none (``...`` covers the others)."""
    if k is None or k is Ellipsis or type(k) is bool:
        return 0
    if isinstance(k, np.ndarray) and k.dtype == np.bool_:
        return k.ndim
    return 1


def advanced(key: tuple) -> bool:
    """Whether ``key`` indexes by arrays (its result is a copy)."""
    return any(isinstance(k, np.ndarray) for k in key)


def several_ellipses(items: Any) -> bool:
    """Whether a key has more than one ``...`` (which NumPy refuses and PyTorch reads)."""
    return sum(k is Ellipsis for k in items) > 1


def spread_ellipses(items: Any, normalized: Any, ndim: int) -> list:
    """A key's entries ``items`` (``normalized`` as NumPy reads them) with each ``...`` made
    whole slices, as PyTorch reads a key with several: each passes over as many dimensions as
    the key leaves unindexed (``x[..., 0, ...]`` is ``x[:, :, 0]`` of a 3-d ``x``), those after
    the last entry dropping out."""
    spread = max(ndim - sum(map(_reads, normalized)), 0)
    out: list = []
    for k in items:
        out += [_PASSED] * spread if k is Ellipsis else [k]
    while out and out[-1] is _PASSED:
        out.pop()
    return [slice(None) if k is _PASSED else k for k in out]


_PASSED = object()  # a dimension an ellipsis passes over
