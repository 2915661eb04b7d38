"""``symgrad.compile(module)``: the module wrapped, its ``forward`` compiled (PyTorch's
``OptimizedModule``, with the wrapped module as ``_orig_mod``)."""

from __future__ import annotations

import weakref
from typing import Any

from symgrad.compiler.function import CompiledFunction
from symgrad.nn.modules.module import Module

__all__ = ["OptimizedModule", "compile_call"]


# each module's compiled forward after ``Module.compile()`` (a weak table: the module keeps
# only its options, so that it copies and pickles as before)
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _guard_values(mod: Module) -> tuple:
    """What a trace of ``mod`` assumed: every submodule's ``training`` flag and the identity
    of each parameter and buffer."""
    return (
        tuple(m.training for m in mod.modules()),
        tuple(id(p) for p in mod.parameters()),
        tuple(id(b) for b in mod.buffers()),
    )


def compile_call(
    mod: Module,
    *,
    fullgraph: bool = False,
    dynamic: Any = None,
    backend: Any = "inductor",
    mode: Any = None,
    options: Any = None,
    disable: bool = False,
    fresh: bool = False,
) -> CompiledFunction | None:
    """``mod``'s ``forward`` compiled, for ``Module.compile`` (None with ``disable``): the
    arguments of ``symgrad.compile``, the same guards as :class:`OptimizedModule`'s; made
    once per module (``fresh``: made again)."""
    from symgrad.compiler import backend_kind

    if disable:
        return None
    compiled = None if fresh else _COMPILED.get(mod)
    if compiled is None:
        kind = backend_kind(backend)
        ref = weakref.ref(mod)  # (the table's value must not keep its key alive)

        def forward(*args: Any, **kwargs: Any) -> Any:
            return ref().forward(*args, **kwargs)  # type: ignore[union-attr]

        guard = lambda: _guard_values(ref())  # noqa: E731
        compiled = _COMPILED[mod] = CompiledFunction(forward, fullgraph, guard, kind)
    return compiled


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
        return _guard_values(self._orig_mod)

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
