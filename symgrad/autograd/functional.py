"""PyTorch's ``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``
and ``vhp`` of a Python function of tensors, with PyTorch's arguments, checks and return
structures (a tensor for one input and one output, tuples otherwise).

Built on the reverse-mode engine: a Jacobian is one vector-Jacobian product per output
element, a JVP is the transpose of a VJP (the double-backward trick), a Hessian the Jacobian of
the gradient.

Examples
--------
>>> import symgrad
>>> from symgrad.autograd.functional import jacobian, hessian
>>> jacobian(lambda x: x ** 2, symgrad.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
>>> hessian(lambda x: (x ** 3).sum(), symgrad.tensor([1.0, 2.0]))
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.autograd import dual, forward_ad, grad_mode
from symgrad.autograd.engine import grad as _grad
from symgrad.autograd.functional_checks import check_requires_grad, fill_in_zeros
from symgrad.autograd.functional_forward import (
    check_forward_strategy,
    forward_jacobian,
    forward_jvp,
)
from symgrad.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# -- arguments and results, as PyTorch shapes them ---------------------------------------------
def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            what = f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors"
            where = f" but the value at index {i} has type {type(item).__name__}."
            raise TypeError(
                what
                + (where if is_tuple else f" but the given {arg} has type {type(item).__name__}.")
            )
    return is_tuple, items


def _unpack(items: tuple, is_tuple: bool) -> Any:
    return items if is_tuple else items[0]


def _prepare(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """The inputs as fresh tensors that require grad (views keeping the graph with
    ``create_graph``), as PyTorch's ``_grad_preprocess``."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(items: tuple, create_graph: bool) -> tuple:
    """Results cut from the graph unless ``create_graph`` (PyTorch's ``_grad_postprocess``)."""
    if create_graph:
        return items
    return tuple(i.detach() if isinstance(i, Tensor) else i for i in items)


def _check_outputs(outputs: tuple, fn: str) -> None:
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            raise TypeError(
                f"The outputs of the user-provided function given to {fn} must be either a "
                f"Tensor or a tuple of Tensors but the value at index {i} has type "
                f"{type(o).__name__}."
            )


def _one_scalar(raw: Any, fn: str, strict: bool) -> tuple:
    """``(output,)``: what the function given to ``hessian``, ``vhp`` or ``hvp`` returned,
    which must be one tensor (not a tuple, even of one) with one element."""
    is_out, outs = _as_tuple(raw, "outputs of the user-provided function", fn)
    _check_outputs(outs, fn)
    check_requires_grad(outs, "outputs", strict)
    if is_out:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )
    return outs


def _check_v(v: tuple, against: tuple, is_tuple: bool) -> None:
    """PyTorch's checks of ``v`` against the tensors it multiplies (given as a tuple or not)."""
    if len(v) != len(against):
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(against)} but got {len(v)}."
            if is_tuple
            else "The given v should contain a single Tensor."
        )
    for i, (a, b) in enumerate(zip(v, against)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if is_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}."
            )


def _checker(fn: str) -> Callable:
    def check(raw: Any) -> None:
        _check_outputs(_as_tuple(raw, "outputs of the user-provided function", fn)[1], fn)

    return check


def _zeros_like(t: Tensor) -> Tensor:
    return Tensor._make(np.zeros(t.shape, dtype=t._data.dtype))


def _autograd_grad(outputs: tuple, inputs: tuple, v: tuple, create_graph: bool) -> tuple:
    """The gradients of ``outputs`` weighted by ``v`` with respect to ``inputs``, ``None``
    where an input is unused; outputs that are missing or do not require grad are skipped (as
    PyTorch's ``_autograd_grad``)."""
    live = [(o, g) for o, g in zip(outputs, v) if o is not None and o.requires_grad]
    if not live:
        return (None,) * len(inputs)
    return tuple(
        _grad(
            [o for o, _ in live],
            list(inputs),
            [g for _, g in live],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    )


def _ones_like(t: Tensor) -> Tensor:
    return Tensor._make(np.ones(t.shape, dtype=t._data.dtype))


# -- the functions ---------------------------------------------------------------------------
def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """``(func(inputs), vᵀ J)``: the vector-Jacobian product at ``inputs``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.functional import vjp
    >>> vjp(lambda x: x ** 2, symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 1.0]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    with grad_mode.enable_grad():
        is_in, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _prepare(xs, create_graph, True)
        raw = func(*xs)
        is_out, outs = _as_tuple(raw, "outputs of the user-provided function", "vjp")
        _check_outputs(outs, "vjp")
        check_requires_grad(outs, "outputs", strict)
        vs = _default_v(v, outs, is_out, "vjp", create_graph)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _autograd_grad(outs, xs, vs, create_graph)
        grads = fill_in_zeros(grads, xs, strict, create_graph, "back")
    return _unpack(_finish(outs, create_graph), is_out), _unpack(
        _finish(grads, create_graph), is_in
    )


def _default_v(v: Any, outs: tuple, is_tuple: bool, fn: str, create_graph: bool) -> tuple:
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
        return (_ones_like(outs[0]),)
    _, vs = _as_tuple(v, "v", fn)
    vs = _prepare(vs, create_graph, False)
    _check_v(vs, outs, is_tuple)
    return vs


def _input_v(v: Any, xs: tuple, is_tuple: bool, fn: str, create_graph: bool) -> tuple:
    """The vectors multiplying the inputs: ``v`` checked, or ones for one one-element input."""
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        return (_ones_like(xs[0]),)
    _, vs = _as_tuple(v, "v", fn)
    vs = _prepare(vs, create_graph, False)
    _check_v(vs, xs, is_tuple)
    return vs


_NO_FORWARD = "Trying to use forward AD with "


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``, by forward mode
    (the inputs carry ``v`` as tangents); with ``strict``, or inside a dual level, by the
    transpose of a vector-Jacobian product, as PyTorch computes it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.functional import jvp
    >>> jvp(lambda x: x ** 2, symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 0.0]))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    with grad_mode.enable_grad():
        is_in, xs = _as_tuple(inputs, "inputs", "jvp")
        xs = _prepare(xs, create_graph, True)
        vs = _input_v(v, xs, is_in, "jvp", create_graph)
        if not strict and dual.STATE.level is None:
            try:
                raw, outs, result = forward_jvp(func, xs, vs, _checker("jvp"))
            except NotImplementedError as exc:  # an op without a forward rule: PyTorch's
                if not str(exc).startswith(_NO_FORWARD):  # way below needs none
                    raise
            else:
                is_out = isinstance(raw, tuple)
                return _unpack(_finish(outs, create_graph), is_out), _unpack(
                    _finish(result, create_graph), is_out
                )
        raw = func(*xs)
        is_out, outs = _as_tuple(raw, "outputs of the user-provided function", "jvp")
        _check_outputs(outs, "jvp")
        check_requires_grad(outs, "outputs", strict)
        # u -> Jᵀu is linear in u: its VJP with v is J v
        us = tuple(_zeros_like(o).requires_grad_(True) for o in outs)
        jtu = _autograd_grad(outs, xs, us, True)
        check_requires_grad(jtu, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _autograd_grad(jtu, us, vs, create_graph)
        result = fill_in_zeros(result, outs, strict, create_graph, "back_trick")
    return _unpack(_finish(outs, create_graph), is_out), _unpack(
        _finish(result, create_graph), is_out
    )


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` of shape ``outputs[i].shape +
    inputs[j].shape``, one tensor for one input and one output, tuples otherwise."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError(  # PyTorch's type for this argument check
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
            "implemented for `vectorize=True`."
        )
    if strategy == "forward-mode":
        check_forward_strategy(create_graph, strict, vectorize, "jacobian")
        is_in, xs = _as_tuple(inputs, "inputs", "jacobian")
        with grad_mode.enable_grad():
            for x in xs:
                forward_ad._check_floating(x)
            xs = _prepare(xs, False, True)
            is_out, _, blocks = forward_jacobian(func, xs, _checker("jacobian"))
        # PyTorch's forward mode gives lists where the inputs are a tuple
        rows = [list(row) if is_in else row[0] for row in blocks]
        if is_out:
            return list(rows) if is_in else tuple(rows)
        return rows[0]
    with grad_mode.enable_grad():
        is_in, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _prepare(xs, create_graph, True)
        raw = func(*xs)
        is_out, outs = _as_tuple(raw, "outputs of the user-provided function", "jacobian")
        _check_outputs(outs, "jacobian")
        check_requires_grad(outs, "outputs", strict)
        if strict and vectorize:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or `vectorize=False`."
            )
        if any(o.numel() == 0 for o in outs):
            # PyTorch stacks the rows of each output's Jacobian: none for an empty output
            if vectorize:
                raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
            raise RuntimeError("stack expects a non-empty TensorList")
        blocks = [_jacobian_rows(i, o, xs, create_graph, strict) for i, o in enumerate(outs)]
    blocks = [_finish(tuple(row), create_graph) for row in blocks]
    if is_out:
        return tuple(_unpack(row, is_in) for row in blocks)
    return _unpack(blocks[0], is_in)


def _jacobian_rows(i: int, out: Tensor, xs: tuple, create_graph: bool, strict: bool) -> list:
    """The blocks d out / d x for each x, one VJP per element of ``out`` (output ``i``)."""
    n = out.numel()
    rows = [[] for _ in xs]
    for k in range(n):
        seed = np.zeros(n, dtype=out._data.dtype)
        seed[k] = 1
        v = Tensor._make(seed.reshape(out.shape))
        grads = _autograd_grad((out,), xs, (v,), create_graph)
        for j, g in enumerate(grads):
            if g is None and strict:
                raise RuntimeError(
                    f"Output {i} of the user-provided function is independent of input {j}. "
                    "This is not allowed in strict mode."
                )
            if strict and create_graph and not g.requires_grad:
                # PyTorch names the output's index here, where it means the input's
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            rows[j].append(_zeros_like(xs[j]) if g is None else g)
    return [_stack(r, out.shape, x.shape, create_graph) for r, x in zip(rows, xs)]


def _stack(rows: list, out_shape: tuple, in_shape: tuple, create_graph: bool) -> Tensor:
    shape = tuple(out_shape) + tuple(in_shape)
    if not create_graph or not any(r.requires_grad for r in rows):
        data = np.stack([r._data for r in rows])
        return Tensor._make(data.reshape(shape))
    block = _zeros_like(rows[0]).unsqueeze(0).expand(len(rows), *in_shape).clone()
    for k, r in enumerate(rows):
        block[k] = r  # recorded: the Jacobian stays differentiable
    return block.reshape(shape)


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of the scalar-valued ``func`` at ``inputs``: ``H[i][j]`` of shape
    ``inputs[i].shape + inputs[j].shape``."""
    if outer_jacobian_strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
            "implemented for `vectorize=True`."
        )
    is_in, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args: Tensor) -> Any:
        outs = _one_scalar(func(*args), "hessian", strict)
        grads = _autograd_grad(outs, args, (_ones_like(outs[0]),), True)
        grads = fill_in_zeros(grads, args, False, True, "back")
        check_requires_grad(grads, "jacobian", strict)
        return grads if is_in else grads[0]

    return jacobian(
        gradient, _unpack(xs, is_in), create_graph, strict, vectorize, outer_jacobian_strategy
    )


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """``(func(inputs), vᵀ H)``: a vector-Hessian product (double backward).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 1.0]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """``(func(inputs), H v)``: a Hessian-vector product (the Hessian is symmetric, so this is
    the vector-Hessian product, computed as PyTorch does with a double backward).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 0.0]))
    (tensor(9.), tensor([6., 0.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(
    func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, fn: str
):
    with grad_mode.enable_grad():
        is_in, xs = _as_tuple(inputs, "inputs", fn)
        xs = _prepare(xs, create_graph, True)
        vs = _input_v(v, xs, is_in, fn, create_graph)
        outs = _one_scalar(func(*xs), fn, strict)
        jac = _autograd_grad(outs, xs, (_ones_like(outs[0]),), True)
        check_requires_grad(jac, "jacobian", strict)
        if fn == "hvp":
            # PyTorch's double-backward trick: H v as the VJP with v of u -> Hᵀu
            grad_jac = tuple(_zeros_like(x).requires_grad_(True) for x in xs)
            double_back = _autograd_grad(jac, xs, grad_jac, True)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        if fn == "hvp":
            result = _autograd_grad(double_back, grad_jac, vs, create_graph)
            result = fill_in_zeros(result, xs, strict, create_graph, "double_back_trick")
        else:
            result = _autograd_grad(jac, xs, vs, create_graph)
            result = fill_in_zeros(result, xs, strict, create_graph, "double_back")
    return _finish(outs, create_graph)[0], _unpack(_finish(result, create_graph), is_in)
