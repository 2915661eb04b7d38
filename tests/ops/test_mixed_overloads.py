"""Overloads PyTorch's parser picks from the kinds of the arguments: ``clamp`` with a 0-d
tensor beside a number takes the tensor as its number (the overload of Number bounds:
``ClampBackward1``, promotion as for numbers; a longer tensor, or one that needs a gradient,
beside a number is refused), and ``max``/``min`` with ``other=`` are ``maximum``/``minimum``.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests

TYPE = ("raises", "TypeError")


def _x(T):
    return T.tensor([0.5, -1.0, 2.0], requires_grad=True)


def _i(T):
    return T.tensor([3, 1, 2])


CLAMPED = ([0.5, 0.0, 1.0], "float32", "ClampBackward1")
CASES = {
    "clamp_0d_min_number_max": (lambda T: _x(T).clamp(T.tensor(0.0), 1.0), CLAMPED),
    "clamp_number_min_0d_max": (lambda T: T.clamp(_x(T), 0.0, T.tensor(1.0)), CLAMPED),
    "clamp_keywords": (lambda T: _x(T).clamp(min=T.tensor(0.0), max=1), CLAMPED),
    "clip_0d_min": (lambda T: _x(T).clip(T.tensor(0.0), 1.0), CLAMPED),
    "clamp__0d_max": (
        lambda T: (_x(T) * 1).clamp_(0.0, T.tensor(1.0)),
        ([0.5, 0.0, 1.0], "float32", "ClampBackward1"),
    ),
    "clamp_int_0d_float_min": (
        lambda T: _i(T).clamp(T.tensor(1.5), 2),
        ([2.0, 1.5, 2.0], "float32", None),
    ),
    "clamp_int_0d_int_min": (lambda T: _i(T).clamp(T.tensor(1), 2), ([2, 1, 2], "int64", None)),
    "clamp_vector_min_number_max": (lambda T: _x(T).clamp(T.zeros(3), 1.0), TYPE),
    "clamp_1_element_min_number_max": (lambda T: _x(T).clamp(T.zeros(1), 1.0), TYPE),
    "clamp_grad_0d_min_number_max": (
        lambda T: _x(T).clamp(T.tensor(0.0, requires_grad=True), 1.0),
        TYPE,
    ),
    "clamp_gradient": (lambda T: _gradient(T), ([1.0, 0.0, 0.0], "float32", None)),
    "max_other": (
        lambda T: _x(T).max(other=T.zeros(3)),
        ([0.5, 0.0, 2.0], "float32", "MaximumBackward0"),
    ),
    "min_other": (
        lambda T: T.min(_x(T), other=T.zeros(3)),
        ([0.0, -1.0, 0.0], "float32", "MinimumBackward0"),
    ),
    "max_input_other": (
        lambda T: T.max(input=_x(T), other=T.zeros(3)),
        ([0.5, 0.0, 2.0], "float32", "MaximumBackward0"),
    ),
    "max_dim_other": (lambda T: _x(T).max(0, other=T.zeros(3)), TYPE),
    "max_other_keepdim": (lambda T: _x(T).max(other=T.zeros(3), keepdim=True), TYPE),
    "max_other_number": (lambda T: _x(T).max(other=1.0), TYPE),
}


def _gradient(T):
    x = _x(T)
    x.clamp(T.tensor(0.0), 1.0).sum().backward()
    return x.grad


test_symgrad, test_table_is_pytorchs = table_tests(CASES)
