"""Questions PyTorch code asks a tensor about where and how it is stored, answered for
symgrad's dense CPU tensors: the ``is_*`` device and layout flags (all False), ``dim_order``,
``is_set_to``, pinned and shared memory, ``record_stream``, ``const_data_ptr``, and the
removed ``volatile`` and ``reinforce``.

Examples
--------
>>> import symgrad
>>> x = symgrad.ones(2, 3)
>>> x.is_sparse, x.is_quantized, x.is_mps
(False, False, False)
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._memory_format import channels_last
from symgrad._memory_format import memory_format as _memory_format
from symgrad.tensor import Tensor, bind_methods, live_aliases

__all__: list[str] = []

# device and layout flags PyTorch tensors carry, none of which a symgrad tensor has
_NEVER = (
    "is_sparse",
    "is_sparse_csr",
    "is_quantized",
    "is_mkldnn",
    "is_nested",
    "is_xpu",
    "is_mps",
    "is_vulkan",
    "is_ipu",
    "is_maia",
    "is_mtia",
    "is_xla",
)


def _never(name: str) -> property:
    return property(
        lambda self: False,
        doc=f"""False: symgrad's tensors are dense CPU tensors.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).{name}
    False
    """,
    )


# the memories moved to shared memory by share_memory_: the tensors that own them, by id
# (a set would compare tensors with ==, which is element-wise)
_SHARED: dict[int, weakref.ref] = {}


def _owner(t: Tensor) -> Tensor:
    root, _, _ = live_aliases(t)
    return t if root is None else root


def share_memory_(self: Tensor) -> Tensor:
    """Mark this tensor's memory as shared between processes (a no-op for symgrad, whose
    memory stays in this process) and return it.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2)
    >>> x.share_memory_().is_shared()
    True
    """
    owner = _owner(self)
    key = id(owner)
    _SHARED[key] = weakref.ref(owner, lambda _, key=key: _SHARED.pop(key, None))
    return self


def is_shared(self: Tensor) -> bool:
    """Whether :meth:`share_memory_` was called on this tensor or one sharing its memory.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).is_shared()
    False
    """
    owner = _owner(self)
    found = _SHARED.get(id(owner))
    return found is not None and found() is owner


def _device_deprecated(op: str, device: Any) -> None:
    if device is not None:
        warnings.warn(
            f"The argument 'device' of Tensor.{op}() is deprecated. Please do not pass this "
            "argument.",
            DeprecationWarning,
            stacklevel=3,
        )


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """Page-locked memory for fast copies to an accelerator: there is none, so this raises
    PyTorch's RuntimeError, as PyTorch does on a machine without one.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).pin_memory()
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot access accelerator device when none is available.
    """
    _device_deprecated("pin_memory", device)
    if device is not None:
        raise RuntimeError("CPU device type not an accelerator.")
    raise RuntimeError("Cannot access accelerator device when none is available.")


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """Whether the memory is pinned (never, in symgrad).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).is_pinned()
    False
    """
    _device_deprecated("is_pinned", device)
    return False


def record_stream(self: Tensor, stream: Any) -> None:
    """Tie the memory to a CUDA stream: symgrad has no streams, so this raises PyTorch's
    RuntimeError for an argument that is not one.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).record_stream(None)
    Traceback (most recent call last):
    ...
    RuntimeError: unknown parameter type
    """
    raise RuntimeError("unknown parameter type")


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether ``tensor`` reads the same memory in the same way (same start, sizes and
    strides): true of an alias made by ``detach()`` or ``view`` to the same shape.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(3)
    >>> x.is_set_to(x.detach()), x.is_set_to(x.view(1, 3))
    (True, False)
    """
    if not isinstance(tensor, Tensor):
        require_tensor("is_set_to", "tensor", 1, tensor)
    a, b = self._data, tensor._data
    if self is tensor:
        return True
    return (
        type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.dtype == b.dtype
        and a.shape == b.shape
        and a.strides == b.strides
        and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        and np.may_share_memory(a, b)
    )


def is_distributed(self: Tensor) -> bool:
    """Whether the tensor is spread over several machines (never, in symgrad).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).is_distributed()
    False
    """
    return False


def _inside(shape: tuple, strides: tuple, a: int, b: int) -> int:
    """1 when dimension ``a`` lies outside ``b`` in memory (a larger stride, or an equal stride
    and more elements), -1 when inside, 0 when it can't be told (a stride of 0, ties)."""
    if strides[a] == 0 or strides[b] == 0:
        return 0
    if strides[a] != strides[b]:
        return 1 if strides[a] > strides[b] else -1
    return 1 if shape[a] > shape[b] else 0


def _physical_order(t: Tensor, check: bool) -> tuple:
    """The dimensions from outermost to innermost in memory, as PyTorch orders them: a
    contiguous or channels-last tensor by its format, any other by an insertion sort run
    from the innermost dimension out, in which ambiguous dimensions keep their logical
    order (``check``: raise when some pair stays ambiguous)."""
    n, shape, strides = t.ndim, tuple(t.shape), t.stride()
    if n <= 1:
        return tuple(range(n))
    plain = t.is_contiguous()
    nhwc = t.is_contiguous(memory_format=channels_last)
    if plain != nhwc:
        return tuple(range(n)) if plain else (0, *range(2, n), 1)
    inner_first = list(reversed(range(n)))
    for i in range(1, n):
        moving = i
        for j in reversed(range(i)):
            side = _inside(shape, strides, inner_first[j], inner_first[moving])
            if side > 0:
                inner_first[j], inner_first[moving] = inner_first[moving], inner_first[j]
                moving = j
            elif side < 0:
                break
    pairs = zip(inner_first, inner_first[1:])
    if check and any(_inside(shape, strides, a, b) != -1 for a, b in pairs):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(inner_first))


def dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple:
    """The dimensions in the order they are laid out in memory, outermost first: ``(0, 1,
    ..., n-1)`` for a contiguous tensor. ``ambiguity_check`` (True, or a list of memory
    formats) raises a RuntimeError when the order is not unique (size-1 dimensions, equal
    strides) and the tensor is not contiguous in exactly one of the listed formats.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3, 4, 5).contiguous(memory_format=symgrad.channels_last).dim_order()
    (0, 2, 3, 1)
    """
    formats = _formats(ambiguity_check)
    strides = self.stride()
    several = any(s == t for s, t in zip(strides, strides[1:])) or 1 in tuple(self.shape)
    if ambiguity_check is not False and several:
        exact = sum(self.is_contiguous(memory_format=f) for f in formats)
        if exact != 1:
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
    return _physical_order(self, bool(ambiguity_check))


def _formats(check: Any) -> list:
    """The memory formats ``ambiguity_check`` lists (none for a bool)."""
    if isinstance(check, bool):
        return []
    if isinstance(check, list) and all(isinstance(f, _memory_format) for f in check):
        return check
    raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")


def _volatile(self: Tensor) -> bool:
    warnings.warn(
        "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
    )
    return False


def _set_volatile(self: Tensor, value: Any) -> None:
    warnings.warn(
        "volatile was removed and now has no effect. Use `with symgrad.no_grad():` instead.",
        UserWarning,
        stacklevel=2,
    )


def reinforce(self: Tensor, reward: Any) -> None:
    """Removed from PyTorch long ago: raises, pointing to :mod:`symgrad.distributions`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(1).reinforce(1.0)
    Traceback (most recent call last):
    ...
    RuntimeError: reinforce() was removed. Use symgrad.distributions instead ...
    """
    raise RuntimeError(
        "reinforce() was removed. Use symgrad.distributions instead (the log-probability of "
        "the sampled action times the reward, as in REINFORCE: "
        "-dist.log_prob(action) * reward, then backward())."
    )


def const_data_ptr(self: Tensor) -> int:
    """The address of the first element, as :meth:`Tensor.data_ptr`.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2)
    >>> x.const_data_ptr() == x.data_ptr()
    True
    """
    return self.data_ptr()


bind_methods(
    {
        **{name: _never(name) for name in _NEVER},
        "share_memory_": share_memory_,
        "is_shared": is_shared,
        "pin_memory": pin_memory,
        "is_pinned": is_pinned,
        "record_stream": record_stream,
        "is_set_to": is_set_to,
        "is_distributed": is_distributed,
        "dim_order": dim_order,
        "volatile": property(
            _volatile,
            _set_volatile,
            doc="""Removed from PyTorch: always False, with a warning (setting it only warns).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.ones(1).volatile
    False
    """,
        ),
        "reinforce": reinforce,
        "const_data_ptr": const_data_ptr,
    }
)
