"""Custom differentiable functions: subclass :class:`Function`, as in PyTorch.

A Function class is adapted to the primitive protocol by a :class:`FunctionPrimitive`: its
``backward`` is the node's backward rule, and its optional ``symbolic(*inputs)`` (the forward
formula in SymPy) gives the closed forms, pictures and derivations the other primitives give.
The ``ctx`` of a call is its node, as in PyTorch.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._lazy import sympy as sp
from symgrad._version import SAVED, is_inference
from symgrad.autograd import dual, grad_mode
from symgrad.autograd.function_call import (
    _NO_JVP,
    as_positional,
    check_dirty,
    check_transforms,
    forward_tangents,
    note_saved_outputs,
    with_defaults,
    wrap_output,
)
from symgrad.autograd.hooks import grad_tensor
from symgrad.autograd.node import Node
from symgrad.autograd.once import once_differentiable
from symgrad.autograd.saved import ACTIVE as _hooks_active
from symgrad.autograd.saved_names import pack_node
from symgrad.prim.primitive import Ctx, Primitive, input_records
from symgrad.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "FunctionPrimitive", "once_differentiable"]


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function, which is also its node in the graph."""

    __slots__ = (
        "needs_input_grad",
        "_non_differentiable",
        "_dirty",
        "materialize_grads",
        "__dict__",
    )
    _function: type
    _primitive: Any = None  # each Function class's node class has its FunctionPrimitive
    runs_user_code = True

    def __init__(self) -> None:
        super().__init__(self._primitive, 1, ())
        self.needs_input_grad: tuple = ()
        self._non_differentiable: tuple = ()
        self._dirty: tuple = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward`` (checked for in-place changes when read back; only
        tensors and None, checked when the call records, as in PyTorch)."""
        self._saved = tensors
        # an inference tensor has no version: refused when the call records (see apply)
        self._versions = tuple(
            t._counter.value if isinstance(t, Tensor) and not is_inference(t) else None
            for t in tensors
        )

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``jvp`` (read back there as :attr:`saved_tensors`)."""
        self._saved_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to :meth:`save_for_backward` (in ``jvp``, to
        :meth:`save_for_forward`)."""
        if getattr(self, "_in_jvp", False):
            return getattr(self, "_saved_forward", ())
        return self._unpack()

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """Declare outputs that get no gradient (e.g. indices)."""
        _check_tensors("mark_non_differentiable", outputs)
        self._non_differentiable += outputs  # kept alive: told apart by identity

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs ``forward`` changed in place. ``forward`` must return them; they
        then become outputs of this call (the same tensor objects, with this node as their
        ``grad_fn``), as in PyTorch."""
        _check_tensors("mark_dirty", tensors)
        self._dirty += tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = bool(value)

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        # PyTorch prints custom nodes with the module of autograd.Function
        return f"<symgrad.autograd.function.{type(self).__name__} object at {id(self):#x}>"


def _check_tensors(method: str, values: tuple) -> None:
    for i, t in enumerate(values):
        if not isinstance(t, Tensor):
            raise RuntimeError(
                f"{method} only accepts tensors (variables), but argument {i} is of type "
                f"{type(t).__name__}"
            )


def _grad_tensor(g: Any, meta: tuple | None, materialize: bool) -> Any:
    if g is None:
        # an output that is not a tensor gets None even when gradients are materialized
        return Tensor._make(np.zeros(*meta)) if materialize and meta is not None else None
    return grad_tensor(g)


class FunctionPrimitive(Primitive):
    """A custom :class:`Function` class as a primitive: one per class, made with it.

    Examples
    --------
    >>> import symgrad
    >>> class Double(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> y = Double.apply(symgrad.ones(2, requires_grad=True))
    >>> y.grad_fn.prim.name, y.grad_fn.prim.node_name()
    ('Double', 'DoubleBackward')
    """

    @staticmethod
    def edges(node: Any) -> tuple:
        """PyTorch's edges: one per tensor argument of ``forward`` (none for the others)."""
        return tuple(i for i, m in enumerate(node._meta) if m is not None)

    def __init__(self, function: type) -> None:
        self.function = function
        self.name = function.__name__
        self.backward_name = f"{function.__name__}Backward"

    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        """Run the class's ``backward`` with the node as ``ctx``, and check what it returns."""
        fn = self.function
        outs = [
            _grad_tensor(g, meta, node.materialize_grads) for g, meta in zip(grads, node._out_meta)
        ]
        with grad_mode.set_grad_enabled(create_graph):
            result = fn.backward(node, *outs)
        result = result if isinstance(result, tuple) else (result,)
        n = len(node._edges)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(
                f"function {node.name()} returned an incorrect number of gradients (expected "
                f"{n}, got {len(result)})"
            )
        return tuple(_checked(node, i, r, create_graph) for i, r in enumerate(result[:n]))

    # -- closed forms, pictures and derivations: from the class's ``symbolic`` --------------------
    def formula(self, n_inputs: int, n_outputs: int) -> tuple[tuple, tuple]:
        """Scalar symbols for the inputs and the formulas of the outputs (undefined functions
        of the inputs when the class has no ``symbolic``)."""
        cls = self.function
        xs = tuple(sp.Symbol(f"_in{i}", real=True) for i in range(n_inputs))
        rule = getattr(cls, "symbolic", None)
        if rule is None:
            f = sp.Function(cls.__name__)
            outs = tuple(
                f(*xs) if n_outputs == 1 else sp.Function(f"{cls.__name__}_{k}")(*xs)
                for k in range(n_outputs)
            )
            return xs, outs
        outs = rule(*xs)
        try:  # strict: a string is refused, never parsed
            outs = tuple(
                sp.sympify(o, strict=True) for o in (outs if isinstance(outs, tuple) else (outs,))
            )
        except sp.SympifyError:
            raise TypeError(
                f"{cls.__name__}.symbolic() must return SymPy expressions built from its "
                f"arguments (e.g. sympy.exp(x)), got {type(outs).__name__}; strings are not "
                "parsed"
            ) from None
        if len(outs) != n_outputs:
            raise ValueError(
                f"{cls.__name__}.symbolic() returned {len(outs)} formula(s) but forward() "
                f"returned {n_outputs} output(s): return one formula per output, as a tuple "
                "when there are several"
            )
        return xs, outs

    def outputs(self, xp: Any, inputs: tuple, params: int) -> tuple:
        """The outputs' formulas with each element's expressions substituted."""
        xs, formulas = self.formula(len(inputs), params)
        arrays = np.broadcast_arrays(*inputs)
        results = []
        for formula in formulas:
            out = np.empty(arrays[0].shape if arrays else (), dtype=object)
            for index in np.ndindex(*out.shape):
                out[index] = formula.xreplace({x: a[index] for x, a in zip(xs, arrays)})
            results.append(out)
        return tuple(results)

    def vjp(self, xp: Any, g: Any, ctx: Ctx) -> list:
        """The symbolic gradients of output ``ctx.output``, from ``symbolic``'s partials."""
        cls = self.function
        if getattr(cls, "symbolic", None) is None:
            raise ValueError(
                f"the closed-form gradient can't go through the custom Function {cls.__name__}: "
                "it has no formula. Define a static method symbolic(*inputs) on the class "
                "returning its forward formula as SymPy (called with one SymPy expression per "
                "input)."
            )
        args = list(ctx.inputs)
        xs, formulas = self.formula(len(args), ctx.params)
        arrays = np.broadcast_arrays(*args, g)
        grads: list = []
        for i, need in enumerate(ctx.needs):
            if not need:
                grads.append(None)
                continue
            partial = sp.diff(formulas[ctx.output], xs[i])
            out = np.empty(arrays[0].shape, dtype=object)
            for index in np.ndindex(*out.shape):
                subs = {x: a[index] for x, a in zip(xs, arrays)}
                out[index] = arrays[-1][index] * partial.xreplace(subs)
            grads.append(xp.sum_to_size(out, np.shape(args[i])))
        return grads

    def recompute(self, inputs: tuple, params: int) -> tuple:
        """The outputs from ``symbolic``, element by element (by substitution: generating code
        from a user's formula could splice in its symbol names)."""
        if getattr(self.function, "symbolic", None) is None:
            raise ValueError(f"{self.name} has no symbolic formula to recompute it with")
        xs, outs = self.formula(len(inputs), params)
        arrays = np.broadcast_arrays(
            *(np.asarray(a._data if isinstance(a, Tensor) else a) for a in inputs)
        )
        results = []
        for formula in outs:
            out = np.empty(arrays[0].shape if arrays else (), dtype=float)
            for index in np.ndindex(*out.shape):
                out[index] = float(
                    formula.xreplace(
                        {x: sp.Float(float(a[index])) for x, a in zip(xs, arrays, strict=True)}
                    )
                )
            results.append(out)
        return tuple(results)

    def text(self, node: Any, names: list, symbols: list, outs: list, outputs: list, args: list):
        from symgrad.prim.text import function_text

        cls = self.function
        formula = self.formula(len(names), node.params) if hasattr(cls, "symbolic") else None
        return function_text(cls.__name__, formula, outputs, outs, names, symbols)


def check_formula_shapes(node: Any, outs: tuple) -> None:
    """A custom Function's ``symbolic`` formulas apply element by element, so its outputs must
    have the inputs' broadcast shape: anything else (a sum, a reshape) has no such formula,
    and replaying it would give a wrong closed form."""
    for k, (out, meta) in enumerate(zip(outs, getattr(node, "_out_meta", ()))):
        if meta is not None and np.shape(out) != tuple(meta[0]):
            raise ValueError(
                f"{node.prim.name}.symbolic() gives output {k} element by element, of shape "
                f"{list(np.shape(out))} (the inputs' broadcast shape), but forward() returned "
                f"shape {list(meta[0])}: only a Function whose outputs are element-wise in its "
                "inputs has a closed form through symbolic()"
            )


def _checked(node: Any, i: int, g: Any, create_graph: bool) -> Any:
    """A gradient ``backward`` returned for input ``i``, checked and fitted to the input."""
    if g is None:
        return None
    if node._meta[i] is None:
        raise RuntimeError(
            f"function {node.name()} returned a gradient different than None at position "
            f"{i + 1}, but the corresponding forward input was not a Variable (it was not a "
            "tensor): return None in its place"
        )
    if not isinstance(g, Tensor):
        raise RuntimeError(
            f"expected Variable or None (got {type(g).__name__}): function {node.name()} "
            f"returned it as gradient {i}; backward must return tensors (or None)"
        )
    if node._edges[i][0] is None:
        return None
    shape, dtype = node._meta[i]
    if g.shape != shape:
        try:  # a gradient the input's shape broadcasts to is summed back to it
            ok = np.broadcast_shapes(shape, g.shape) == g.shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(g.shape)} but expected shape compatible with {list(shape)}"
            )
        g = g.sum_to_size(shape)
    if g._data.dtype != dtype:
        g = g.to(dtypes.from_numpy_dtype(dtype))
    return g if create_graph else g._data


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, ``<ClassName>Backward``."""

    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        super().__init__(name, bases, namespace)
        primitive = FunctionPrimitive(cls)
        cls._backward_cls = type(
            primitive.node_name(),
            (FunctionCtx,),
            # PyTorch's: <class 'torch.autograd.function.MyFunctionBackward'>
            {"_function": cls, "_primitive": primitive, "__module__": __name__},
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = type(self).__name__
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated and not "
            f"supported: call the class's apply instead of an instance, {name}.apply(...) "
            f"rather than {name}()(...)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define a static backward(ctx, ...)")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Save what backward needs, for a ``forward(*inputs)`` written without ``ctx``."""
        raise NotImplementedError("setup_context is not overridden")

    setup_context.__func__._undefined = True  # type: ignore[attr-defined]

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """The outputs' tangents from the inputs' (forward mode); define it to use forward
        mode AD through the Function (``ctx.save_for_forward`` keeps what it reads)."""
        raise NotImplementedError(_NO_JVP)

    jvp.__func__._undefined = True  # type: ignore[attr-defined]

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        separate = not getattr(cls.setup_context, "_undefined", False)
        check_transforms(cls, separate)
        args = as_positional(cls.forward, args, kwargs, has_ctx=not separate)
        if separate:
            args = with_defaults(cls.forward, args)
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        with grad_mode.no_grad(), dual.disabled():
            if separate:  # forward(*args) without ctx, then setup_context(ctx, inputs, output)
                outputs = cls.forward(*args)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        record = grad_mode.recording() and any(ctx.needs_input_grad)
        if ctx._dirty:
            check_dirty(ctx, args, outs, record)
        if not record:
            if dual.active():
                outs = forward_tangents(cls, ctx, args, outs)
                outputs = outs if is_tuple else outs[0]
            ctx._release()
            return outputs
        for i, t in enumerate(ctx._saved):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}: keep values other than tensors as attributes of ctx "
                    "(ctx.k = k)"
                )
        if any(t is not None and is_inference(t) for t in ctx._saved):
            raise RuntimeError(SAVED)
        # the same records as every other node (ctx keeps what save_for_backward gave it)
        edges, _, _, meta, consts, held = input_records(args, (False,) * len(args))
        ctx._edges, ctx._meta, ctx._consts, ctx._held = edges, meta, consts, held
        wrapped = tuple(wrap_output(ctx, i, o, args) for i, o in enumerate(outs))
        note_saved_outputs(ctx)
        ctx._out_meta = tuple(
            (o.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in wrapped
        )
        ctx.num_outputs = ctx.params = len(wrapped)
        if _hooks_active.count:  # saved_tensors_hooks: ctx keeps what pack_hook returns
            pack_node(ctx)
        if dual.active():
            wrapped = forward_tangents(cls, ctx, args, wrapped)
        return wrapped if is_tuple else wrapped[0]
