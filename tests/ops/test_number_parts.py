"""frexp, gcd, lcm (and their in-place forms), Tensor.apply_ and Tensor.map_: values,
dtypes, gradients, node names and errors as PyTorch's, written out, and against PyTorch itself
when it is installed."""

from __future__ import annotations

import pytest

import symgrad


def _leaf(T, values, dtype="float32"):
    return T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)


def _grads(T, fn, *leaves):
    out = fn(*leaves)
    return [g.tolist() for g in T.autograd.grad(out.sum(), leaves)]


def _frexp(T, values, dtype="float32"):
    m, e = T.frexp(T.tensor(values, dtype=getattr(T, dtype)))
    return m.tolist(), e.tolist(), str(m.dtype).split(".")[1], str(e.dtype).split(".")[1]


def _applied(T, values, fn, dtype="float32"):
    x = T.tensor(values, dtype=getattr(T, dtype))
    same = x.apply_(fn) is x
    return x.tolist(), same, x._version


def _mapped(T, values, others, fn):
    x = T.tensor(values)
    return x.map_(T.tensor(others), fn).tolist(), x.tolist()


# name -> (a call of the module T giving plain values, PyTorch's answer)
VALUES = {
    "frexp": (
        lambda T: _frexp(T, [1.5, -8.0, 0.0, 3.0]),
        ([0.75, -0.5, 0.0, 0.75], [1, 4, 0, 2], "float32", "int32"),
    ),
    "frexp_float64": (
        lambda T: _frexp(T, [1.0, 2.0], "float64"),
        ([0.5, 0.5], [1, 2], "float64", "int32"),
    ),
    "frexp_float16": (
        lambda T: _frexp(T, [1.0, 6.0], "float16"),
        ([0.5, 0.75], [1, 3], "float16", "int32"),
    ),
    "frexp_non_finite": (
        lambda T: _frexp(T, [float("inf"), -float("inf")]),
        ([float("inf"), -float("inf")], [0, 0], "float32", "int32"),
    ),
    "frexp_fields_and_method": (
        lambda T: (
            T.tensor([6.0]).frexp().mantissa.tolist(),
            T.tensor([6.0]).frexp().exponent.tolist(),
            type(T.frexp(T.tensor([1.0]))).__name__,
            len(T.frexp(T.tensor([1.0]))),
        ),
        ([0.75], [3], "frexp", 2),
    ),
    "frexp_grad": (
        lambda T: _grads(T, lambda x: T.frexp(x).mantissa, _leaf(T, [1.5, -8.0, 0.25])),
        [[0.5, 0.0625, 2.0]],
    ),
    "frexp_grad_fn": (
        lambda T: (
            T.frexp(_leaf(T, [1.0])).mantissa.grad_fn.name(),
            T.frexp(_leaf(T, [1.0])).exponent.requires_grad,
        ),
        ("FrexpBackward0", False),
    ),
    "gcd": (
        lambda T: T.gcd(T.tensor([12, -18, 0, 0]), T.tensor([8, 12, 5, 0])).tolist(),
        [4, 6, 5, 0],
    ),
    "lcm": (
        lambda T: T.lcm(T.tensor([12, -18, 0, 4]), T.tensor([8, 12, 5, -6])).tolist(),
        [24, 36, 0, 12],
    ),
    "gcd_promotes": (
        lambda T: str(T.gcd(T.tensor([12], dtype=T.int8), T.tensor([8])).dtype).split(".")[1],
        "int64",
    ),
    "gcd_uint8": (
        lambda T: T.gcd(T.tensor([12], dtype=T.uint8), T.tensor([8], dtype=T.uint8)).tolist(),
        [4],
    ),
    "lcm_wraps": (
        lambda T: T.lcm(T.tensor([100], dtype=T.int8), T.tensor([3], dtype=T.int8)).tolist(),
        [44],
    ),
    "gcd_0d_other": (lambda T: T.tensor([12, 18]).gcd(T.tensor(4)).tolist(), [4, 2]),
    "gcd_in_place": (
        lambda T: (lambda x: (x.gcd_(T.tensor([8, 12])) is x, x.tolist(), x._version))(
            T.tensor([12, 18])
        ),
        (True, [4, 6], 1),
    ),
    "lcm_in_place": (
        lambda T: (lambda x: (T.lcm_(x, T.tensor([8, 12])) is x, x.tolist()))(T.tensor([12, 18])),
        (True, [24, 36]),
    ),
    "gcd_in_place_keeps_dtype": (
        lambda T: T.tensor([12, 18], dtype=T.uint8).gcd_(T.tensor([8, 12], dtype=T.int8)).tolist(),
        [4, 6],
    ),
    "apply": (lambda T: _applied(T, [1.0, 2.0, 3.0], lambda v: v * 2), ([2.0, 4.0, 6.0], True, 0)),
    "apply_int_truncates": (
        lambda T: _applied(T, [1, 2], lambda v: v * 2.7, "int64"),
        ([2, 5], True, 0),
    ),
    "apply_gets_python_numbers": (
        lambda T: (
            _applied(T, [1, 2], lambda v: type(v) is int, "int64")[0],
            _applied(T, [1.5], lambda v: type(v) is float)[0],
            _applied(T, [True, False], lambda v: not v, "bool")[0],
        ),
        ([1, 1], [1.0], [False, True]),
    ),
    "apply_0d": (lambda T: _applied(T, 2.0, lambda v: v * 3), (6.0, True, 0)),
    "apply_nan": (lambda T: str(_applied(T, [1.0], lambda v: float("nan"))[0]), "[nan]"),
    "apply_through_a_view": (
        lambda T: (lambda b: (b.t().apply_(lambda v: v * 10), b.tolist())[1])(
            T.arange(4.0).reshape(2, 2)
        ),
        [[0.0, 10.0], [20.0, 30.0]],
    ),
    "map": (
        lambda T: _mapped(T, [1.0, 2.0, 3.0], [10.0, 20.0, 30.0], lambda a, b: a + b),
        ([11.0, 22.0, 33.0], [11.0, 22.0, 33.0]),
    ),
    "map_broadcasts_other": (
        lambda T: _mapped(T, [1.0, 2.0, 3.0], 10.0, lambda a, b: a * b),
        ([10.0, 20.0, 30.0], [10.0, 20.0, 30.0]),
    ),
    "apply_meta_does_nothing": (
        lambda T: T.empty(2, device="meta").apply_(lambda v: 1 / 0).shape == (2,),
        True,
    ),
}

# name -> (a call of the module T, PyTorch's exception type, the start of its message)
ERRORS = {
    "frexp_of_integers": (
        lambda T: T.frexp(T.tensor([1, 2])),
        RuntimeError,
        "torch.frexp() only supports floating-point dtypes",
    ),
    "gcd_of_floats": (
        lambda T: T.gcd(T.tensor([1.0]), T.tensor([2.0])),
        NotImplementedError,
        "\"gcd_cpu\" not implemented for 'Float'",
    ),
    "lcm_of_bools": (
        lambda T: T.lcm(T.tensor([True]), T.tensor([True])),
        NotImplementedError,
        "\"lcm_cpu\" not implemented for 'Bool'",
    ),
    "gcd_of_uint16": (
        lambda T: T.gcd(T.tensor([12], dtype=T.uint16), T.tensor([8], dtype=T.uint16)),
        NotImplementedError,
        "\"gcd_cpu\" not implemented for 'UInt16'",
    ),
    "gcd_number_input": (
        lambda T: T.gcd(3, T.tensor([4])),
        TypeError,
        "gcd(): argument 'input' (position 1) must be Tensor, not int",
    ),
    "gcd_method_number": (
        lambda T: T.tensor([12]).gcd(4),
        TypeError,
        "gcd(): argument 'other' (position 1) must be Tensor, not int",
    ),
    "gcd_in_place_number": (
        lambda T: T.tensor([12]).gcd_(4),
        TypeError,
        "gcd_(): argument 'other' (position 1) must be Tensor, not int",
    ),
    "gcd_in_place_of_floats": (
        lambda T: T.tensor([1.0]).gcd_(T.tensor([1.0])),
        NotImplementedError,
        "\"gcd_cpu\" not implemented for 'Float'",
    ),
    "gcd_in_place_broadcasting_self": (
        lambda T: T.tensor([[12], [18]]).gcd_(T.tensor([8, 12])),
        RuntimeError,
        "",
    ),
    "apply_requires_grad": (
        lambda T: T.ones(2, requires_grad=True).apply_(lambda v: v),
        RuntimeError,
        "Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.",
    ),
    "apply_requires_grad_under_no_grad": (
        lambda T: (lambda x: T.no_grad()(lambda: x.apply_(lambda v: v))())(
            T.ones(2, requires_grad=True) * 1
        ),
        RuntimeError,
        "Can't call apply_() on Variable that requires grad.",
    ),
    "apply_returns_a_string": (
        lambda T: T.ones(2).apply_(lambda v: "a"),
        TypeError,
        "must be real number, not str",
    ),
    "apply_returns_none": (
        lambda T: T.ones(2).apply_(lambda v: None),
        TypeError,
        "must be real number, not NoneType",
    ),
    "apply_not_callable": (
        lambda T: T.ones(2).apply_(3),
        TypeError,
        "'int' object is not callable",
    ),
    "apply_raises": (
        lambda T: T.ones(2).apply_(lambda v: 1 / 0),
        ZeroDivisionError,
        "division by zero",
    ),
    "apply_overflows_int8": (
        lambda T: T.tensor([1], dtype=T.int8).apply_(lambda v: 300),
        RuntimeError,
        "",
    ),
    "map_requires_grad": (
        lambda T: T.ones(2, requires_grad=True).map_(T.ones(2), lambda a, b: a),
        RuntimeError,
        "Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.",
    ),
    "map_other_requires_grad": (
        lambda T: T.ones(2).map_(T.ones(2, requires_grad=True), lambda a, b: a),
        RuntimeError,
        "Can't call map_() on Variable that requires grad.",
    ),
    "map_other_dtype": (
        lambda T: T.ones(2).map_(T.tensor([1, 2]), lambda a, b: a),
        TypeError,
        "map_: expected torch.FloatTensor for 'other' (got torch.LongTensor)",
    ),
    "map_not_a_tensor": (
        lambda T: T.ones(2).map_([1.0, 2.0], lambda a, b: a),
        TypeError,
        "map_(): argument 'other' (position 1) must be Tensor, not list",
    ),
    "map_other_too_big": (
        lambda T: T.ones(1).map_(T.ones(2), lambda a, b: a),
        RuntimeError,
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_are_pytorchs(name):
    fn, answer = VALUES[name]
    assert fn(symgrad) == answer


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    fn, kind, message = ERRORS[name]
    with pytest.raises(kind) as caught:
        fn(symgrad)
    assert str(caught.value).startswith(message.replace("torch.frexp", "symgrad.frexp"))


def test_expand_refuses_to_shrink_a_dimension():
    with pytest.raises(RuntimeError, match="only dimensions of size 1 can grow"):
        symgrad.tensor([1.0, 2.0]).expand(1)


# -- against PyTorch ----------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, answer = VALUES[name]
    assert fn(torch) == fn(symgrad) == answer


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, kind, message = ERRORS[name]
    with pytest.raises(kind) as theirs:
        fn(torch)
    with pytest.raises(kind):
        fn(symgrad)
    assert str(theirs.value).startswith(message)
