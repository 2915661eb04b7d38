"""Custom differentiable functions: subclass :class:`Function`, as in PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.autograd.node import Node
from symgrad.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function, which is also its node in the graph."""

    __slots__ = (
        "needs_input_grad",
        "_non_differentiable",
        "materialize_grads",
        "_meta",
        "__dict__",
    )
    _function: type
    runs_user_code = True

    def __init__(self) -> None:
        super().__init__(())
        self.needs_input_grad: tuple = ()
        self._non_differentiable: set[int] = set()
        self.materialize_grads = True
        self._meta: tuple = ()

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward`` (checked for in-place changes when read back)."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors (or None), got {type(t).__name__}; "
                    "store other values as attributes of ctx"
                )
        self._saved = tensors
        self._versions = tuple(None if t is None else t._counter.value for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to :meth:`save_for_backward`."""
        return self._unpack()

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """Declare outputs that get no gradient (e.g. indices)."""
        self._non_differentiable.update(id(t) for t in outputs)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Accepted for compatibility; in-place changes are tracked by version counters."""

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = bool(value)

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        # PyTorch prints custom nodes with the module of autograd.Function
        return f"<symgrad.autograd.function.{type(self).__name__} object at {id(self):#x}>"

    def apply(self, grads: list, create_graph: bool) -> tuple:
        fn = self._function
        outs = [
            _grad_tensor(g, shape, dtype, self.materialize_grads)
            for g, (shape, dtype) in zip(grads, self._out_meta)
        ]
        with grad_mode.set_grad_enabled(create_graph):
            result = fn.backward(self, *outs)
        result = result if isinstance(result, tuple) else (result,)
        n = len(self.next_functions)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{n}, got {len(result)})"
            )
        return tuple(self._check(i, r, create_graph) for i, r in enumerate(result[:n]))

    def _check(self, i: int, g: Any, create_graph: bool) -> Any:
        if g is None or self.next_functions[i][0] is None:
            return None
        if not isinstance(g, Tensor):
            raise TypeError(
                f"function {self.name()} returned a {type(g).__name__} as gradient {i}; "
                "backward must return Tensors (or None)"
            )
        shape, dtype = self._meta[i]
        if g.shape != shape:
            try:
                np.broadcast_shapes(g.shape, shape)
                ok = len(g.shape) >= len(shape)
            except ValueError:
                ok = False
            if not ok:
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(shape)}"
                )
            g = g.sum_to_size(shape)
        if g._data.dtype != dtype:
            g = g.to(dtype.type)
        return g if create_graph else g._data


def _grad_tensor(g: Any, shape: tuple, dtype: np.dtype, materialize: bool) -> Any:
    if g is None:
        return Tensor._make(np.zeros(shape, dtype)) if materialize else None
    return g if isinstance(g, Tensor) else Tensor._make(g)


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, ``<ClassName>Backward``."""

    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(
            f"{name}Backward", (FunctionCtx,), {"_function": cls, "__module__": cls.__module__}
        )


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable ops: define static ``forward(ctx, ...)`` and
    ``backward(ctx, *grad_outputs)``, call with ``MyFunction.apply(...)``.

    Examples
    --------
    >>> import symgrad
    >>> class Exp(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         out = x.exp()
    ...         ctx.save_for_backward(out)
    ...         return out
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         (out,) = ctx.saved_tensors
    ...         return grad_output * out
    >>> x = symgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> y = Exp.apply(x)
    >>> y.grad_fn
    <symgrad.autograd.function.ExpBackward object at ...>
    >>> y.sum().backward()
    >>> x.grad
    tensor([1.0000, 2.7183])
    """

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define a static backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from symgrad.prim.primitive import edge

        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        with grad_mode.no_grad():
            outputs = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if not record:
            ctx._release()
            return outputs
        ctx.next_functions = tuple(edge(a) for a in args)
        ctx._held = [
            a for a in args if isinstance(a, Tensor) and a._requires_grad and a.grad_fn is None
        ] or None  # the leaves its edges lead to (see AccumulateGrad)
        ctx._consts = tuple(None if isinstance(a, Tensor) and a._requires_grad else a for a in args)
        ctx._meta = tuple(
            (a.shape, a._data.dtype) if isinstance(a, Tensor) else ((), np.dtype(np.float64))
            for a in args
        )
        wrapped = tuple(_wrap_output(ctx, i, o, args) for i, o in enumerate(outs))
        ctx._out_meta = tuple(
            (o.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.dtype(np.float64))
            for o in wrapped
        )
        ctx.num_outputs = len(wrapped)
        return wrapped if is_tuple else wrapped[0]


def _wrap_output(ctx: FunctionCtx, i: int, out: Any, args: tuple) -> Any:
    if not isinstance(out, Tensor):
        return out
    non_differentiable = id(out) in ctx._non_differentiable
    if any(out is a for a in args) or out.grad_fn is not None or out._requires_grad:
        out = Tensor._make(out._data)  # a new tensor object in the graph, sharing the values
    if non_differentiable or not out.dtype.is_floating_point:
        return out
    out.grad_fn = ctx
    out._output_nr = i
    out._requires_grad = True
    return out


def once_differentiable(fn: Any) -> Any:
    """Mark a ``backward`` as not differentiable itself (accepted for compatibility)."""
    return fn
