"""``torch.utils.data._utils.collate``: how a loader puts samples together.

:func:`collate` walks a batch of samples by the type of its first sample: a type listed in
``collate_fn_map`` (or a subclass of one) goes to that function, and mappings, named tuples
and other sequences are collated field by field, keeping their own type where it can be
copied (a ``defaultdict`` stays one, a ``list`` subclass stays one; tuples become lists).
:data:`default_collate_fn_map` is the table :func:`default_collate` uses; programs extend a
copy of it for their own types, as in PyTorch.
"""

from __future__ import annotations

import collections.abc as abc
import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad.ops import stack
from symgrad.tensor import Tensor

__all__ = [
    "collate",
    "collate_tensor_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_float_fn",
    "collate_int_fn",
    "collate_str_fn",
    "default_collate_fn_map",
    "default_collate",
    "default_convert",
]

_REFUSED = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _refused_array(a: np.ndarray) -> bool:
    """Strings, bytes and objects (and dtypes such as datetimes, which ``as_tensor`` refuses
    with its own error) are not numbers to stack."""
    return a.dtype.kind in "SaUO"


def collate_tensor_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    """Tensors stacked along a new first dimension."""
    return stack(batch, 0)


def collate_numpy_array_fn(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    """NumPy arrays as tensors sharing their memory, then stacked."""
    if _refused_array(batch[0]):
        raise TypeError(_REFUSED.format(batch[0].dtype))
    return collate([creation.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    """NumPy scalars as one tensor of their dtype."""
    return creation.as_tensor(np.asarray(batch))


def collate_float_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    """Python floats as a ``float64`` tensor."""
    return creation.tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    """Python ints (and bools) as a tensor of the dtype all of them need."""
    return creation.tensor(batch)


def collate_str_fn(batch: list, *, collate_fn_map: dict | None = None) -> list:
    """Strings and bytes left as they came."""
    return batch


default_collate_fn_map: dict[type | tuple, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _as_mapping(elem: Any, values: dict) -> Any:
    """``values`` in a mapping of ``elem``'s type where one can be made (a copy of ``elem``
    updated, or the type built from a dict), else a plain dict."""
    try:
        if isinstance(elem, abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def _as_sequence(elem: Any, items: list) -> Any:
    """``items`` in a sequence of ``elem``'s type where one can be made (a copy of ``elem``
    refilled, or the type built from a list), else a list."""
    try:
        if isinstance(elem, abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):  # one by one: a deque takes no slices
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def collate(batch: Any, *, collate_fn_map: dict | None = None) -> Any:
    """Put the samples of ``batch`` together, by the type of its first sample: the function
    ``collate_fn_map`` holds for that type (or a base of it), else mappings, named tuples and
    sequences field by field.

    Examples
    --------
    >>> from symgrad.utils.data._utils.collate import collate, default_collate_fn_map
    >>> table = {**default_collate_fn_map, complex: lambda batch, *, collate_fn_map: batch}
    >>> collate([{"z": 1j, "n": 1}, {"z": 2j, "n": 2}], collate_fn_map=table)
    {'z': [1j, 2j], 'n': tensor([1, 2])}
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)

    def fields(items: Any) -> list:
        # (a field's samples are a tuple: strings come back as one, as in PyTorch)
        return [collate(samples, collate_fn_map=collate_fn_map) for samples in items]

    if isinstance(elem, abc.Mapping):
        return _as_mapping(
            elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*fields(zip(*batch)))
    if isinstance(elem, abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = fields(zip(*batch))
        return collated if isinstance(elem, tuple) else _as_sequence(elem, collated)
    raise TypeError(_REFUSED.format(elem_type))


def default_collate(batch: list) -> Any:
    """Put a list of samples together as PyTorch does: tensors (and NumPy arrays) stacked
    along a new first dimension, Python ints to a tensor of the dtype all of them need
    (``int64`` for ints only) and floats to a ``float64`` one, strings left as they came, and
    dicts, named tuples, tuples and lists collated field by field (tuples come back as lists,
    as in PyTorch; other containers keep their type).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import default_collate
    >>> default_collate([(symgrad.tensor([1.0, 2.0]), 0), (symgrad.tensor([3.0, 4.0]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """NumPy arrays (and numbers held in NumPy scalars) to tensors, inside mappings, named
    tuples and sequences; everything else as it is. What a loader without batching applies.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.utils.data import default_convert
    >>> default_convert({"x": np.array([1.0, 2.0]), "name": "a"})
    {'x': tensor([1., 2.], dtype=symgrad.float64), 'name': 'a'}
    """
    if isinstance(data, np.ndarray) and not _refused_array(data):
        return creation.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return creation.as_tensor(data)
    if isinstance(data, abc.Mapping):
        return _as_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, abc.Sequence) and not isinstance(data, (str, bytes)):
        return _as_sequence(data, [default_convert(d) for d in data])
    return data
