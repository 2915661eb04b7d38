"""Autograd semantics as small programs show them: gradient accumulation into a ``.grad`` that
has a history, custom ``Function`` nodes and their non-tensor arguments and outputs, hooks on
views changed in place, and ``torch.autograd.functional``'s strict mode.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import pytest
from _torch_table import table_tests

F32 = "float32"


def _x(T, values=(1.0, 2.0, 3.0)):
    return T.tensor(list(values), requires_grad=True)


def _functional(T):
    return T.autograd.functional


# -- .grad accumulation ------------------------------------------------------------------------
def _accumulate_into_recorded_grad(T):
    """A second backward without create_graph adds into the recorded .grad in place: the same
    tensor, its node kept, its version bumped."""
    x = _x(T)
    y = x.exp().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference-cycle warning of create_graph
        y.backward(create_graph=True)
    first = x.grad
    version = first._version
    y.backward()
    return x.grad, first is x.grad, x.grad.requires_grad, x.grad._version - version


# -- hooks -------------------------------------------------------------------------------------
def _hooked_view_changed(T, loss):
    """A hook on a view registered before the view is changed in place: the change's gradient
    goes straight into the base's history, so the hook never runs."""
    x = _x(T, (1.0, 2.0, 3.0, 4.0))
    y = x * 1
    v = y[1:3]
    calls = []
    v.register_hook(lambda g: calls.append(g.tolist()) or g * 10)
    v.mul_(2)
    loss(y, v).backward()
    return x.grad, calls


# -- custom Function -----------------------------------------------------------------------------
def _grads_backward_gets(T, extra):
    """What ``backward`` receives for the outputs after the first (which alone is used), and
    the input's gradient."""
    seen = []

    class Outputs(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return (a * 2, *extra(a))

        @staticmethod
        def backward(ctx, g, *rest):
            seen.extend(None if r is None else (r.tolist(), r.dtype == a.dtype) for r in rest)
            return g * 2

    a = _x(T)
    Outputs.apply(a)[0].sum().backward()
    return tuple(seen), a.grad


def _identity(T):
    class Identity(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 3

    return Identity


def _returned_input(T, change):
    """An input returned as it is by a custom Function: a view of the input, whose in-place
    changes (``change(y, z)`` for the input ``y`` and the output ``z``) PyTorch refuses."""
    x = _x(T)
    y = x * 1
    z = _identity(T).apply(y)
    change(y, z)
    z.sum().backward()
    return z, x.grad


def _returned_leaf(T):
    x = _x(T)
    z = _identity(T).apply(x)
    return z._base is x, z.is_leaf, z._version


def _returned_slice(T, change):
    """A custom Function returning a slice of its input (made under its no_grad forward)."""

    class Head(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[:2]

        @staticmethod
        def backward(ctx, g):
            return T.cat([g, g.new_zeros(1)]) * 3

    x = _x(T)
    y = x * 1
    z = Head.apply(y)
    change(y)
    z.sum().backward()
    return z, x.grad, z._base is y


def _handle_ids(T):
    x = _x(T)
    first = x.register_hook(lambda g: g)
    second = (x * 2).grad_fn.register_prehook(lambda go: None)
    return second.id - first.id, isinstance(first.id, int)


# -- calling a node ------------------------------------------------------------------------------
def _called_node(T, make, *grads, grad=True):
    x = _x(T, (1.0, 2.0))
    y = make(T, x)
    with T.set_grad_enabled(grad):
        return y.grad_fn(*(None if g is None else T.tensor(g) for g in grads))


# -- torch.utils.checkpoint ---------------------------------------------------------------------
def _checkpointed(T, reentrant, take):
    """``take(y, x)`` for ``y``, a checkpointed ``sin(x) * 2``, and ``x``'s gradient."""
    checkpoint = T.utils.checkpoint.checkpoint
    x = _x(T)
    y = checkpoint(lambda a: a.sin() * 2, x, use_reentrant=reentrant)
    return take(y, x), x.grad


def _backward_twice_in_grad(T):
    """A reentrant checkpoint inside a reentrant checkpoint's backward pass: valid there."""
    checkpoint = T.utils.checkpoint.checkpoint
    x = _x(T)

    def inner(a):
        return checkpoint(lambda b: b * b, a, use_reentrant=True) * 3

    checkpoint(inner, x, use_reentrant=True).sum().backward()
    return x.grad


CASES = {
    "accumulate_into_recorded_grad": (
        _accumulate_into_recorded_grad,
        (([5.4366, 14.7781, 40.1711], F32, "CopyBackwards"), True, True, 1),
    ),
    "hook_on_view_changed_base_loss": (
        lambda T: _hooked_view_changed(T, lambda y, v: y.sum()),
        (([1.0, 2.0, 2.0, 1.0], F32, None), ()),
    ),
    "hook_on_view_changed_view_loss": (
        lambda T: _hooked_view_changed(T, lambda y, v: v.sum() * 5),
        (([0.0, 10.0, 10.0, 0.0], F32, None), ()),
    ),
    # an output that is not a tensor gets None, the others materialized zeros
    "function_number_output_grad": (
        lambda T: _grads_backward_gets(T, lambda a: (3.0, None)),
        ((None, None), ([2.0, 2.0, 2.0], F32, None)),
    ),
    "function_tensor_output_grad": (
        lambda T: _grads_backward_gets(T, lambda a: (a * 3, "label")),
        ((((0.0, 0.0, 0.0), True), None), ([2.0, 2.0, 2.0], F32, None)),
    ),
    "function_returns_input": (
        lambda T: _returned_input(T, lambda y, z: None),
        (([1.0, 2.0, 3.0], F32, "IdentityBackward"), ([3.0, 3.0, 3.0], F32, None)),
    ),
    "function_returned_input_is_a_view": (
        _returned_leaf,
        (True, False, 0),
    ),
    "function_output_changed_in_place": (
        lambda T: _returned_input(T, lambda y, z: z.mul_(2)),
        ("raises", "RuntimeError"),
    ),
    "function_input_changed_in_place": (
        lambda T: _returned_input(T, lambda y, z: y.mul_(2)),
        ("raises", "RuntimeError"),
    ),
    "function_returns_slice": (
        lambda T: _returned_slice(T, lambda y: None),
        (([1.0, 2.0], F32, "HeadBackward"), ([3.0, 3.0, 0.0], F32, None), True),
    ),
    "function_slice_base_changed": (
        lambda T: _returned_slice(T, lambda y: y.mul_(2)),
        ("raises", "RuntimeError"),
    ),
    "hook_handle_ids_count_up": (_handle_ids, (1, True)),
    # -- grad_fn(*grad_outputs): the node's backward, recorded in grad mode
    "node_call_one_input": (
        lambda T: _called_node(T, lambda T, x: x.exp(), [1.0, 1.0]),
        ([2.7183, 7.3891], F32, "MulBackward0"),
    ),
    "node_call_two_inputs": (
        lambda T: _called_node(T, lambda T, x: x * T.tensor([3.0, 4.0]), [1.0, 1.0]),
        (([3.0, 4.0], F32, None), None),
    ),
    "node_call_no_grad": (
        lambda T: _called_node(T, lambda T, x: x * x, [1.0, 1.0], grad=False),
        (([1.0, 2.0], F32, None), ([1.0, 2.0], F32, None)),
    ),
    "node_call_two_outputs": (
        lambda T: _called_node(T, lambda T, x: x.unbind()[0], 1.0, None),
        ([1.0, 0.0], F32, None),
    ),
    "node_call_too_few": (
        lambda T: _called_node(T, lambda T, x: x.exp()),
        ("raises", "TypeError"),
    ),
    # -- torch.autograd.functional
    # strict with create_graph: a derivative that does not depend on the input is refused
    "vjp_strict_linear_create_graph": (
        lambda T: _functional(T).vjp(
            lambda x: x * 2, _x(T), T.ones(3), create_graph=True, strict=True
        ),
        ("raises", "RuntimeError"),
    ),
    "jvp_strict_linear_create_graph": (
        lambda T: _functional(T).jvp(
            lambda x: x * 2, _x(T), T.ones(3), create_graph=True, strict=True
        ),
        ("raises", "RuntimeError"),
    ),
    "jacobian_strict_linear_create_graph": (
        lambda T: _functional(T).jacobian(lambda x: x * 2, _x(T), create_graph=True, strict=True),
        ("raises", "RuntimeError"),
    ),
    "jacobian_strict_linear": (
        lambda T: _functional(T).jacobian(lambda x: x * 2, _x(T), strict=True),
        ([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]], F32, None),
    ),
    "jacobian_strict_square_create_graph": (
        lambda T: _functional(T).jacobian(lambda x: x * x, _x(T), create_graph=True, strict=True),
        ([[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]], F32, "ViewBackward0"),
    ),
    "vjp_strict_square_create_graph": (
        lambda T: _functional(T).vjp(
            lambda x: x * x, _x(T), T.ones(3), create_graph=True, strict=True
        )[1],
        ([2.0, 4.0, 6.0], F32, "AddBackward0"),
    ),
    "jacobian_strict_vectorize": (
        lambda T: _functional(T).jacobian(lambda x: x * x, _x(T), strict=True, vectorize=True),
        ("raises", "RuntimeError"),
    ),
    "hessian_strict_vectorize": (
        lambda T: _functional(T).hessian(
            lambda x: (x**3).sum(), _x(T), strict=True, vectorize=True
        ),
        ("raises", "RuntimeError"),
    ),
    # an empty output has no rows to stack
    "jacobian_empty_output": (
        lambda T: _functional(T).jacobian(lambda x: x[:0], _x(T)),
        ("raises", "RuntimeError"),
    ),
    "jacobian_empty_output_vectorize": (
        lambda T: _functional(T).jacobian(lambda x: x[:0], _x(T), vectorize=True),
        ("raises", "IndexError"),
    ),
    "hessian_empty_input": (
        lambda T: _functional(T).hessian(lambda x: x.sum(), T.ones(0)),
        ("raises", "RuntimeError"),
    ),
    "jacobian_empty_input": (
        lambda T: _functional(T).jacobian(lambda x: x.sum() * 2, T.ones(0)),
        ([], F32, None),
    ),
    # -- checkpoint: the reentrant variant needs a pass that reaches every leaf
    "checkpoint_reentrant_grad": (
        lambda T: _checkpointed(T, True, lambda y, x: T.autograd.grad(y.sum(), x)),
        ("raises", "RuntimeError"),
    ),
    "checkpoint_reentrant_backward_inputs": (
        lambda T: _checkpointed(T, True, lambda y, x: y.sum().backward(inputs=[x])),
        ("raises", "RuntimeError"),
    ),
    "checkpoint_reentrant_backward": (
        lambda T: _checkpointed(T, True, lambda y, x: y.sum().backward()),
        (None, ([1.0806, -0.8323, -1.98], F32, None)),
    ),
    "checkpoint_grad": (
        lambda T: _checkpointed(T, False, lambda y, x: T.autograd.grad(y.sum(), x)),
        ((([1.0806, -0.8323, -1.98], F32, None),), None),
    ),
    "checkpoint_reentrant_nested": (_backward_twice_in_grad, ([6.0, 12.0, 18.0], F32, None)),
}


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


@pytest.mark.parametrize("target", ["output", "input"])
def test_function_view_change_message(target):
    import symgrad

    what = "is being" if target == "output" else "its base or another view of its base has been"
    change = (lambda y, z: z.mul_(2)) if target == "output" else (lambda y, z: y.mul_(2))
    with pytest.raises(RuntimeError, match=f"Output 0 of Identity is a view and {what} modified"):
        _returned_input(symgrad, change)
