"""``symgrad.compile(module)``: the module wrapped, its ``forward`` compiled (PyTorch's
``OptimizedModule``, with the wrapped module as ``_orig_mod``)."""

from __future__ import annotations

from typing import Any

from symgrad.compiler.function import CompiledFunction
from symgrad.nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module whose ``forward`` is ``symgrad.compile``'d; everything else is the wrapped
    module's (its parameters are this module's under the prefix ``_orig_mod.``, as in
    PyTorch). The guards include every submodule's ``training`` flag and the identity of each
    parameter and buffer, so ``eval()`` or a replaced parameter traces again.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.manual_seed(0)  # doctest: +ELLIPSIS
    <symgrad.Generator object at ...>
    >>> nn = symgrad.nn
    >>> net = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    >>> fast = symgrad.compile(net)
    >>> x = symgrad.ones(5, 2)
    >>> bool((fast(x) == net(x)).all())
    True
    >>> next(iter(fast.state_dict()))
    '_orig_mod.0.weight'
    """

    def __init__(self, mod: Module, fullgraph: bool = False, backend: str = "auto") -> None:
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = CompiledFunction(
            mod, fullgraph, guard=self._guard_values, backend=backend
        )

    def _guard_values(self) -> tuple:
        mod = self._orig_mod
        return (
            tuple(m.training for m in mod.modules()),
            tuple(id(p) for p in mod.parameters()),
            tuple(id(b) for b in mod.buffers()),
        )

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)

    @property
    def source(self) -> str | None:
        """The generated code of the program last run."""
        return self.__dict__["_compiled"].source
