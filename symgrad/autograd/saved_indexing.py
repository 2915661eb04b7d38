"""The values PyTorch's nodes of gathers, scatters, index writes, diagonals and distances
save, read from what symgrad's nodes keep: the index tensor given (watched for changes in
place), the places a scatter writes, and the arguments as given.

:data:`SAVED` and :data:`VALUES` here are merged into those of
:mod:`symgrad.autograd.saved_table`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["SAVED", "VALUES"]

SAVED = {
    "GatherBackward0": "dim index sparse_grad",
    "TakeBackward0": "index",
    "ScatterBackward0": "dim index",
    "ScatterBackward1": "dim index",
    "ScatterAddBackward0": "dim index",
    "IndexAddBackward0": "alpha dim index source source_dim",
    "IndexCopyBackward0": "dim index source source_dim",
    "IndexFillBackward0": "dim index",
    "IndexFillBackward1": "dim index",
    "DiagonalBackward0": "dim1 dim2 offset self_sym_sizes",
    "DiagonalBackward0_copy": "dim1 dim2 offset self_sym_sizes",
    "CdistBackward0": "p result x1 x2",
}


def _index_given(node: Any) -> Tensor:
    """The index tensor a gather, take or scatter read (the one given, where it is watched
    for changes in place)."""
    if node._watched:
        return node._watched[0][0]
    own = node.params.get("put")
    index = node.params["index"] if own is None else own.__self__.index
    return Tensor._make(np.asarray(index, dtype=np.int64))


def _source_dim(node: Any) -> int:
    return len(node._meta[1][0])


def _scatter_dim(node: Any) -> int:
    own = node.params.get("put")
    return int(node.params["dim"] if own is None else own.__self__.dim)


VALUES: dict[str, dict[str, Any]] = {
    "GatherBackward0": {"index": _index_given, "sparse_grad": lambda n: False},
    "TakeBackward0": {"index": _index_given},
    "ScatterBackward0": {"dim": _scatter_dim, "index": _index_given},
    "ScatterBackward1": {"dim": _scatter_dim, "index": _index_given},
    "ScatterAddBackward0": {"dim": _scatter_dim, "index": _index_given},
    "IndexAddBackward0": {
        # (saved where the source needs a gradient, whose rule reads it)
        "index": lambda n: _index_given(n) if n._watched else None,
        "source_dim": _source_dim,
    },
    "IndexCopyBackward0": {"index": _index_given, "source_dim": _source_dim},
    "IndexFillBackward0": {"index": _index_given},
    "IndexFillBackward1": {"index": _index_given},
}
