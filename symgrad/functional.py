"""``torch.functional``: the module where PyTorch defines some of its top-level functions
(``import torch.functional as F`` in older code). The same functions as ``symgrad.*``.

PyTorch's ``stft``, ``istft``, ``pca_lowrank`` and ``svd_lowrank`` are not provided;
asking for one raises an ``AttributeError`` that says so.

Examples
--------
>>> import symgrad
>>> import symgrad.functional as F
>>> F.einsum("i,i->", symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
tensor(11.)
"""

from __future__ import annotations

from symgrad.ops.assembling import block_diag, cartesian_prod, chain_matmul
from symgrad.ops.atleast import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_shapes,
    unravel_index,
)
from symgrad.ops.einsum import einsum
from symgrad.ops.joining import split
from symgrad.ops.lu_factorization import lu
from symgrad.ops.norms import norm
from symgrad.ops.pairwise_distances import cdist
from symgrad.ops.products import tensordot
from symgrad.ops.tiling import broadcast_tensors, meshgrid
from symgrad.ops.uniques import unique, unique_consecutive

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "broadcast_shapes",
    "broadcast_tensors",
    "einsum",
    "lu",
    "meshgrid",
    "norm",
    "split",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]

_MISSING = (
    "stft",
    "istft",
    "pca_lowrank",
    "svd_lowrank",
)


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(
            f"torch.functional.{name} is not supported by symgrad; symgrad.functional has "
            f"{', '.join(__all__)}"
        )
    raise AttributeError(f"module 'symgrad.functional' has no attribute {name!r}")


# out= and NumPy's keyword names for dim and keepdim: the same functions as symgrad's
from symgrad._numpy_keywords import install as _install_numpy_keywords  # noqa: E402
from symgrad.ops.out import add_out as _add_out  # noqa: E402

_add_out(globals(), ["chain_matmul", "norm", "tensordot"], exact=True)
_install_numpy_keywords(None, globals())
