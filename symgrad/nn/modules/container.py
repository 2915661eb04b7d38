"""Containers: ``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict`` (registered
collections of submodules), and ``DataParallel`` (one module, run as it is on the CPU)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from symgrad.nn.modules.module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "DataParallel"]


def _index(idx: Any, size: int) -> int:
    """``idx`` as a position in ``range(size)``, an IndexError beyond it."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


def _renumber(module: Module) -> None:
    """Keys ``"0"``, ``"1"``, ... again after a deletion (PyTorch keeps the numbering)."""
    object.__setattr__(
        module, "_modules", OrderedDict((str(i), m) for i, m in enumerate(module._modules.values()))
    )


def _check_sequential(other: Any) -> None:
    if not isinstance(other, Sequential):
        raise ValueError(
            f"add operator supports only objects of Sequential class, but {type(other)} is given."
        )


def _factor(module: Module, times: Any) -> int:
    """How many copies of ``module`` a product asks for: a positive int."""
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(module)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(module)}")
    return times


class Sequential(Module):
    """Modules applied one after the other: ``forward(x)`` passes ``x`` through each in turn.

    Build it from modules (named ``"0"``, ``"1"``, ...) or from an ``OrderedDict`` of named
    modules.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> model = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
    >>> model
    Sequential(
      (0): Linear(in_features=4, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> len(model), type(model[0]).__name__, model(symgrad.ones(2, 4)).shape
    (2, 'Linear', symgrad.Size([2, 3]))
    >>> len(model + nn.Sequential(nn.Tanh())), len(model * 3), type(model.pop(1)).__name__
    (3, 6, 'ReLU')
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, list(self._modules)[_index(idx, len(self))], module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]:
            delattr(self, key)
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        _check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other: Sequential) -> Sequential:
        _check_sequential(other)
        return self.extend(other)

    def __mul__(self, times: int) -> Sequential:
        return Sequential().extend(list(self) * _factor(self, times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        return self.extend(list(self) * (_factor(self, times) - 1))

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key``.

        Examples
        --------
        >>> from symgrad import nn
        >>> model = nn.Sequential(nn.ReLU(), nn.Tanh())
        >>> model.pop(0), len(model)
        (ReLU(), 1)
        """
        module = self[key]
        del self[key]
        return module

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append each module of ``sequential``; returns ``self``."""
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` at position ``index``, shifting the later ones; returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered so their parameters are the container's.

    Examples
    --------
    >>> from symgrad import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
    )
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx: int | slice) -> None:
        indices = range(len(self))[idx] if isinstance(idx, slice) else [_index(idx, len(self))]
        for k in indices:
            delattr(self, str(k))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append each of ``modules``; returns ``self``."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def __repr__(self) -> str:
        # runs of equal modules print once, as "(0-2): 3 x Linear(...)", as in PyTorch
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list = []  # [first, last, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [
            _addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
            for a, b, r in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dictionary of submodules, in insertion order, registered under their keys.

    Examples
    --------
    >>> from symgrad import nn
    >>> heads = nn.ModuleDict({"act": nn.ReLU(), "out": nn.Linear(2, 1)})
    >>> list(heads.keys()), "act" in heads
    (['act', 'out'], True)
    """

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module under ``key``."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        """The keys, in order."""
        return self._modules.keys()

    def items(self) -> Any:
        """The ``(key, module)`` pairs, in order."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add (or replace) the modules of a mapping or of an iterable of pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but "
                "got " + type(modules).__name__
            )
        pairs = modules.items() if isinstance(modules, (Mapping, ModuleDict)) else modules
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ModuleDict update sequence element #{j} should be Iterable; is"
                    + type(pair).__name__
                )
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required"
                )
            self[pair[0]] = pair[1]


class DataParallel(Module):
    """A module to be run on several devices at once: symgrad has only the CPU, so, as
    PyTorch does without GPUs, ``forward`` calls ``module`` itself (its parameters are this
    module's under ``module.``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> net = nn.DataParallel(nn.Linear(2, 1))
    >>> net(symgrad.ones(3, 2)).shape, list(net.state_dict())
    (symgrad.Size([3, 1]), ['module.weight', 'module.bias'])
    """

    def __init__(
        self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
