"""``symgrad.compile``: a function traced once per input signature into one straight-line NumPy
program for its forward pass and one for its backward pass (PyTorch's ``torch.compile`` and
``torch.compiler``).

Examples
--------
>>> import symgrad
>>> @symgrad.compile
... def f(x, w):
...     return (x @ w).tanh().sum()
>>> x, w = symgrad.ones(2, 3), symgrad.full((3, 1), 0.5, requires_grad=True)
>>> loss = f(x, w)
>>> loss.grad_fn.name()
'CompiledFunctionBackward'
>>> loss.backward()
>>> w.grad.flatten()
tensor([0.3614, 0.3614, 0.3614])
>>> print(f.source.splitlines()[0])
def forward(a0, a1):
"""

from __future__ import annotations

from typing import Any

from symgrad._tracing import TRACE, GraphBreak
from symgrad.compiler.function import CACHE_SIZE_LIMIT, CompiledFunction
from symgrad.compiler.module import OptimizedModule

__all__ = [
    "compile",
    "reset",
    "disable",
    "is_compiling",
    "CompiledFunction",
    "OptimizedModule",
    "GraphBreak",
    "CACHE_SIZE_LIMIT",
]

_COMPILED: list = []  # weak bookkeeping for reset()


def compile(  # noqa: A001 - PyTorch's name
    model: Any = None,
    *,
    fullgraph: bool = False,
    dynamic: Any = None,
    backend: Any = "inductor",
    mode: Any = None,
    options: Any = None,
    disable: bool = False,
) -> Any:
    """Compile a function or an ``nn.Module`` (PyTorch's ``torch.compile`` signature; also a
    decorator, with or without arguments).

    The first call for given argument shapes, dtypes and ``requires_grad`` flags traces the
    function and generates a straight-line NumPy program for its forward and its backward
    pass (read it as ``compiled.source``); later calls run it. The results hang from one
    ``CompiledFunctionBackward`` node, so ``backward()``, ``autograd.grad`` and ``no_grad``
    work as without compile. Tensors the function captures (parameters, buffers) are read
    afresh at every call. Where the function reads a tensor's value into Python, writes into
    a tensor it did not compute, draws random numbers or uses an op that can't be compiled yet,
    it runs eagerly for those inputs (one warning says why); ``fullgraph=True`` raises instead.
    Each new shape is traced anew (up to ``CACHE_SIZE_LIMIT`` per function).

    ``backend="numexpr"`` (needs numexpr: ``pip install 'symgrad[fast]'``) fuses each chain
    of element-wise steps on arrays of ``MIN_SIZE`` elements or more into one multi-threaded
    numexpr loop for the forward pass and one per input gradient for the backward pass (see
    :mod:`symgrad.compiler.numexpr_backend`); steps numexpr can't express stay NumPy steps.
    Where every value of the program (arguments, captured tensors, every step's result) holds
    one float32 or float64 element and every step is element-wise, the program runs on Python
    floats with the ``math`` module instead of NumPy (many times faster on such values; see
    :mod:`symgrad.compiler.scalar`), and any call where NumPy would give inf or nan runs the
    NumPy program: the results are the eager ones either way. ``backend="scalar"`` asks for
    this choice explicitly (it is made the same way), ``backend="numpy"`` never makes it.
    Any other backend name (PyTorch's ``"inductor"``, the default, ``"eager"``,
    ``"aot_eager"``...) and ``dynamic``, ``mode`` and ``options`` are accepted for
    compatibility and give the NumPy program, or the scalar one where it applies.

    Examples
    --------
    >>> import symgrad
    >>> model = symgrad.compile(symgrad.nn.Linear(3, 1))
    >>> type(model).__name__, type(model._orig_mod).__name__
    ('OptimizedModule', 'Linear')
    """
    if model is None:
        return lambda m: compile(
            m,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
        )
    if not callable(model):
        raise TypeError(
            f"symgrad.compile expects a function or an nn.Module, got {type(model).__name__}"
        )
    if disable:
        return model
    kind = backend_kind(backend)
    from symgrad.nn.modules.module import Module

    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph, kind)
    return CompiledFunction(model, fullgraph, backend=kind)


def backend_kind(backend: Any) -> str:
    """The program ``backend`` asks for: "numpy", "scalar", "numexpr" (checked to be
    installed) or, for any other name, "auto"."""
    if backend == "numexpr":
        from symgrad.compiler.numexpr_backend import require_numexpr

        require_numexpr()
        return "numexpr"
    return backend if backend in ("numpy", "scalar") else "auto"


def compile_call(module: Any, *args: Any, **kwargs: Any) -> Any:
    """``module``'s call compiled in place of it (``Module.compile``)."""
    from symgrad.compiler.module import compile_call as compiled_call

    return compiled_call(module, *args, **kwargs)


def reset() -> None:
    """Forget every compiled program (PyTorch's ``torch.compiler.reset``): the next call of a
    compiled function traces it again."""
    from symgrad.compiler import function

    function.clear_all()


def disable(fn: Any = None, recursive: bool = True) -> Any:
    """``fn`` unchanged: it runs eagerly (PyTorch's ``torch.compiler.disable``; a function
    called from a compiled one is traced into it regardless)."""
    if fn is None:
        return lambda f: f
    return fn


def is_compiling() -> bool:
    """Whether a compiled function is being traced right now."""
    return TRACE.log is not None
