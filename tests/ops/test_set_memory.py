"""``Tensor.set_``: the tensor shares the source's memory, shape and strides and keeps its own
version counter (one more), ``set_()`` leaves it empty, a source of another dtype or a leaf
that requires grad is refused, and a recorded ``set_`` is a ``NotImplemented`` node.

Each case is reduced to plain data, checked for symgrad always and for PyTorch when it is
installed."""

from __future__ import annotations

from _torch_table import table_tests


def _shared(T):
    x, source = T.ones(2), T.zeros(3)
    same = x.set_(source) is x
    facts = [same, x._version, source._version, x._base is None]
    x[0] = 5.0
    return source, facts + [source._version, x._version]


def _emptied(T):
    x = T.ones(2)
    x.set_()
    return x, tuple(x.shape), x._version


def _transposed_source(T):
    x = T.ones(2)
    x.set_(T.arange(6.0).reshape(2, 3).t())
    return x, x.stride(), x._base is None


def _under_no_grad(T):
    x = T.ones(2, requires_grad=True)
    with T.no_grad():
        x.set_(T.zeros(3))
    return x.detach(), x.requires_grad, x.grad_fn is None


def _recorded(T, source):
    a = T.ones(2, requires_grad=True)
    y = a * 2
    y.set_(*source(T))
    node = y.grad_fn
    return type(node).__name__, tuple(type(n).__name__ for n, _ in node.next_functions)


def _recorded_backward(T):
    y = T.ones(2)
    y.set_(T.zeros(3, requires_grad=True))
    return y.sum().backward()


def _view_set(T):
    v = T.ones(4)[:2]
    v.set_(T.zeros(3))
    return v, v._base is not None


CASES = {
    "shares_memory_keeps_its_counter": (
        _shared,
        (([5.0, 0.0, 0.0], "float32", None), (True, 1, 0, True, 0, 2)),
    ),
    "no_source_empties": (_emptied, (([], "float32", None), (0,), 1)),
    "source_strides": (
        _transposed_source,
        (([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], "float32", None), (1, 3), True),
    ),
    "other_dtype": (
        lambda T: T.ones(2).set_(T.zeros(3, dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    "leaf_requiring_grad": (
        lambda T: T.ones(2, requires_grad=True).set_(T.zeros(2)),
        ("raises", "RuntimeError"),
    ),
    "leaf_under_no_grad": (_under_no_grad, (([0.0, 0.0, 0.0], "float32", None), True, True)),
    "recorded_with_source": (
        lambda T: _recorded(T, lambda T: (T.zeros(3, requires_grad=True),)),
        ("NotImplemented", ("MulBackward0", "AccumulateGrad")),
    ),
    "recorded_without_source": (
        lambda T: _recorded(T, lambda T: ()),
        ("NotImplemented", ("MulBackward0",)),
    ),
    "no_derivative": (_recorded_backward, ("raises", "RuntimeError")),
    "a_view_stays_a_view": (_view_set, (([0.0, 0.0, 0.0], "float32", None), True)),
    "a_number_source": (lambda T: T.ones(2).set_(5), ("raises", "TypeError")),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
