"""The parameter containers ``ParameterList`` and ``ParameterDict``: a list and a dict whose
tensors are registered parameters and whose other values are kept as plain attributes, as
PyTorch's."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["ParameterList", "ParameterDict"]


class ParameterList(Module):
    """A list whose entries are registered under ``"0"``, ``"1"``, ...: tensors become
    ``Parameter``\\ s, other values are kept as they are. Indexing, slicing (a new
    ``ParameterList``), ``append``, ``extend`` and ``+=`` work as on a list.

    Examples
    --------
    >>> import symgrad
    >>> ps = symgrad.nn.ParameterList([symgrad.ones(2), symgrad.zeros(3)])
    >>> ps += [4]
    >>> len(ps), [n for n, _ in ps.named_parameters()], ps[-1]
    (3, ['0', '1'], 4)
    >>> type(ps[:2]).__name__, isinstance(ps[0], symgrad.nn.Parameter)
    ('ParameterList', True)
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _slot(self, idx: Any) -> str:
        """The attribute name of entry ``idx`` (negative counts from the end)."""
        n = len(self)
        position = operator.index(idx)
        if position < -n or position >= n:
            raise IndexError(f"index {position} is out of range")
        return str(position + n if position < 0 else position)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):  # a new list of the entries picked
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._slot(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        # every way of adding an entry comes here, so this is where tensors become parameters
        name = self._slot(idx)
        setattr(self, name, _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (getattr(self, str(i)) for i in range(self._size))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end; returns ``self``."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append every value of the iterable ``values`` (not a tensor); returns ``self``."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return _lines(enumerate(self), lambda p: repr(p.dtype))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict whose values are registered under their (string) keys: tensors
    become ``Parameter``\\ s, other values are kept as they are. ``update`` (and so the
    constructor) keeps the order of an ``OrderedDict``, a ``ParameterDict`` or an iterable
    of pairs, but takes the keys of any other mapping (a plain ``dict``) in sorted order,
    as PyTorch does.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> d = nn.ParameterDict({'scale': symgrad.ones(2), 'bias': symgrad.zeros(2), 'k': 3})
    >>> list(d.keys()), [n for n, _ in d.named_parameters()], d['k']
    (['bias', 'k', 'scale'], ['bias', 'scale'], 3)
    >>> d.pop('k'), d.get('k', 'gone'), list(d | {'z': 1})
    (3, 'gone', ['bias', 'scale', 'z'])
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _checked_key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._checked_key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        # every way of adding an entry comes here, so this is where tensors become
        # parameters; the key is recorded before it is checked, as PyTorch records it
        self._keys[key] = None
        setattr(self, self._checked_key(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._checked_key(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: Any) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ``ParameterDict`` holding the same values, in the same order."""
        return ParameterDict(list(self.items()))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after setting it to ``default`` if ``key`` is missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for key in self._keys.copy():
            del self[key]

    def pop(self, key: str) -> Any:
        """Remove the entry ``key`` and return its value."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove the last entry and return it as a ``(key, value)`` pair."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        last = next(reversed(self._keys))
        return last, self.pop(last)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` if ``key`` is present, otherwise ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ``ParameterDict`` with every key of ``keys`` set to ``default``."""
        return ParameterDict([(key, default) for key in keys])

    def keys(self) -> Any:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """The ``(key, value)`` pairs, in order."""
        return ((key, getattr(self, key)) for key in self._keys)

    def values(self) -> Iterator[Any]:
        """The values, in order."""
        return (getattr(self, key) for key in self._keys)

    def update(self, parameters: Any) -> None:
        """Add (or replace) the entries of a mapping or of an iterable of pairs; the keys of
        a mapping other than an ``OrderedDict`` or a ``ParameterDict`` are taken sorted."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Iterable[Any] = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _checked_pairs(parameters)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return _lines(self.items(), lambda p: f"torch.{p.dtype.scalar_type}Tensor")

    def __call__(self, input: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: Any) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: Any) -> Any:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: Any) -> ParameterDict:
        self.update(other)
        return self


def _checked_pairs(parameters: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """The pairs of an iterable given to ``ParameterDict.update``, with PyTorch's errors for
    an element that is not one."""
    for j, pair in enumerate(parameters):
        if not isinstance(pair, Iterable):
            raise TypeError(
                f"ParameterDict update sequence element #{j} should be Iterable; is"
                + type(pair).__name__
            )
        if len(pair) != 2:
            raise ValueError(
                f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        yield pair[0], pair[1]


def _as_parameter(value: Any) -> Any:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _lines(entries: Iterable[tuple[Any, Any]], kind: Any) -> str:
    """The containers' ``extra_repr``: one line per entry, a tensor by its ``kind`` and
    size, any other value by its type."""
    lines = []
    for key, value in entries:
        if isinstance(value, Tensor):
            what = "Parameter" if isinstance(value, Parameter) else "Tensor"
            size = "x".join(str(n) for n in value.shape)
            text = f"{what} containing: [{kind(value)} of size {size}]"
        else:
            text = "Object of type: " + type(value).__name__
        lines.append(f"  ({key}): {text}")
    return "\n".join(lines)
