"""``torch.storage``: the module of the storage classes, ``UntypedStorage`` (a tensor's
memory as bytes) and ``TypedStorage`` (as elements of a dtype); a storage prints under this
module's name, as PyTorch's do.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([True]).untyped_storage()
 1
[symgrad.storage.UntypedStorage(device=cpu) of size 1]
"""

from __future__ import annotations

from symgrad.ops.storages import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
