"""What a custom Function's ``apply`` does around its ``forward``: keyword arguments passed as
inputs, PyTorch's checks of the tensors given to ``mark_dirty``, and the outputs made the
outputs of the call's node."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np

from symgrad.autograd import dual, transforms_running
from symgrad.autograd.hooks import move_retain_grad
from symgrad.prim.batching import Refused
from symgrad.tensor import Tensor, link_view

__all__ = [
    "as_positional",
    "check_dirty",
    "is_in",
    "wrap_output",
    "note_saved_outputs",
    "check_transforms",
    "forward_tangents",
]

_EXTENDING = " For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def as_positional(forward: Any, args: tuple, kwargs: dict, has_ctx: bool = True) -> tuple:
    """``args`` followed by the keyword arguments, as PyTorch passes them to ``forward``: in
    the order of ``forward``'s parameters after those given, each one an input of the call
    (``backward`` returns a gradient, or None, for it)."""
    if not kwargs:
        return args
    params = list(inspect.signature(forward).parameters.values())[int(has_ctx) :]
    names = [p.name for p in params if p.kind in _POSITIONAL]
    unknown = [k for k in kwargs if k not in names[len(args) :]]
    if unknown:
        raise TypeError(
            f"forward() got an unexpected keyword argument '{unknown[0]}': apply() passes "
            "keyword arguments as forward's positional parameters (after those given) only"
        )
    left = dict(kwargs)
    args = list(args)
    for name in names[len(args) :]:
        if not left:
            break
        if name not in left:
            raise TypeError(
                f"forward() missing required argument: '{name}' (position {len(args)}): "
                "keyword arguments of apply() fill forward's parameters in order, so give "
                "every parameter before the last one given"
            )
        args.append(left.pop(name))
    return tuple(args)


def with_defaults(forward: Any, args: tuple) -> tuple:
    """``args`` followed by the defaults of ``forward``'s positional parameters not given: the
    inputs PyTorch hands ``setup_context`` (and counts as inputs of the node)."""
    params = [p for p in inspect.signature(forward).parameters.values() if p.kind in _POSITIONAL]
    missing = params[len(args) :]
    if any(p.default is inspect.Parameter.empty for p in missing):
        return args  # forward's own call reports the missing argument
    return args + tuple(p.default for p in missing)


def check_dirty(ctx: Any, args: tuple, outs: tuple, record: bool) -> None:
    """PyTorch's checks of the tensors given to ``mark_dirty``."""
    for t in ctx._dirty:
        if not is_in(t, outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                f"output (a tensor of shape {list(t.shape)}). The inputs that are modified "
                "inplace must all be outputs of the Function."
            )
        if not is_in(t, args):
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().",
                UserWarning,
                stacklevel=3,
            )
        elif record and t._requires_grad and t.grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation "
                f"(marked dirty by {type(ctx).__name__}). Change a clone of it (x.clone()), or "
                "call the function under symgrad.no_grad() if it should not be recorded."
            )
        elif record and t._view_base is not None and t._view_base[1] != "alias":
            # PyTorch records the change in the base's history too (CopySlices)
            raise NotImplementedError(
                f"{type(ctx).__name__}: mark_dirty of a view (a tensor of shape "
                f"{list(t.shape)} sharing another's memory) is not supported: the change would "
                "not reach the history of the tensor it is a view of. Pass a clone "
                "(v.clone()) and write the result back with an in-place copy_, or pass the base."
            )


def is_in(t: Tensor, values: tuple) -> bool:
    """Whether ``t`` is one of ``values`` (by identity: tensors compare element-wise)."""
    return any(t is v for v in values)


def wrap_output(ctx: Any, i: int, out: Any, args: tuple) -> Any:
    """Output ``i`` of the call as an output of the node ``ctx`` (a non-tensor as it is)."""
    if not isinstance(out, Tensor):
        return out
    non_differentiable = is_in(out, ctx._non_differentiable)
    if is_in(out, ctx._dirty) and is_in(out, args):
        # changed in place: the input itself becomes the output, its history this call
        if non_differentiable or not out.dtype.is_floating_point:
            return out
        old_node = out.grad_fn
        out.grad_fn, out._output_nr, out._requires_grad = ctx, i, True
        out._counter.value += 1
        move_retain_grad(out, old_node)
        return out
    given = out
    if is_in(out, args) or out.grad_fn is not None or out._requires_grad:
        out = Tensor._make(out._data)  # a new tensor object in the graph, sharing the values
    if non_differentiable or not out.dtype.is_floating_point:
        return out
    shared = given._view_base
    if is_in(given, args) or (shared is not None and shared[1] == "no_grad"):
        # an input returned as it is, or a view made in forward: a view, as in PyTorch
        link_view(given, out, "function")
    out.grad_fn = ctx
    out._output_nr = i
    out._requires_grad = True
    return out


def check_transforms(cls: type, separate: bool) -> None:
    """PyTorch's errors for a Function applied inside a transform of ``symgrad.func``: it must
    have a ``setup_context``, and under ``vmap`` exactly one of a ``vmap`` staticmethod and
    ``generate_vmap_rule = True`` (raised as :class:`Refused`, so vmap reports them as they are
    rather than running the function once per element)."""
    if not transforms_running.RUNNING[0]:
        return
    under_vmap = "vmap" in transforms_running.KINDS
    if not separate:
        raise (Refused if under_vmap else RuntimeError)(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod." + _EXTENDING
        )
    if not under_vmap:
        return
    rule, static = getattr(cls, "generate_vmap_rule", False), callable(getattr(cls, "vmap", None))
    if rule and static:
        raise Refused(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and "
            "an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            "overridden vmap staticmethod to avoid ambiguity." + _EXTENDING
        )
    if not (rule or static):
        raise Refused(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True."
            + _EXTENDING
        )


def note_saved_outputs(ctx: Any) -> None:
    """Remember which saved tensors are outputs of the call: changed in place later (when
    their ``grad_fn`` is another node), PyTorch's error names them as outputs of this one."""
    saved = tuple(
        (t, t._output_nr) for t in ctx._saved if isinstance(t, Tensor) and t.grad_fn is ctx
    )
    if saved:
        ctx._saved_outputs = saved


_NO_JVP = (
    "You must implement the jvp function for custom autograd.Function to use it with forward "
    "mode AD."
)


def forward_tangents(cls: Any, ctx: Any, args: tuple, outs: tuple) -> tuple:
    """``outs`` with the tangents ``cls.jvp(ctx, *input_tangents)`` gives them, when some input
    carries a tangent in forward mode (an output that is an input becomes a new tensor)."""
    tangents = [dual.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return outs
    if getattr(cls.jvp, "_undefined", False):
        raise NotImplementedError(_NO_JVP)
    given = [
        Tensor._make(np.zeros(a.shape, a._data.dtype))
        if t is None and isinstance(a, Tensor) and ctx.materialize_grads
        else t
        for a, t in zip(args, tangents)
    ]
    ctx._in_jvp = True
    try:
        with dual.disabled():
            result = cls.jvp(ctx, *given)
    finally:
        ctx._in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outs):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(outs)} but got {len(result)})"
        )
    outs = tuple(
        Tensor._make(o._data) if isinstance(o, Tensor) and is_in(o, args) else o for o in outs
    )
    for i, (o, t) in enumerate(zip(outs, result)):
        if t is None or not isinstance(o, Tensor) or not o.dtype.is_floating_point:
            continue
        if is_in(o, ctx._non_differentiable):
            raise RuntimeError(
                f"Function's jvp returned a gradient at position {i}, but the corresponding "
                "forward output is not a differentiable Tensor. You should return None at "
                "that position instead."
            )
        if not isinstance(t, Tensor):
            raise RuntimeError(
                f"expected Variable or None (got {type(t).__name__}) for grad output {i}."
            )
        if t.shape != o.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(o.shape)} "
                f"while the given forward gradient is of size {list(t.shape)}."
            )
        dual.set_tangent(o, t)
    return outs
