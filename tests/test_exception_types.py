"""Misuses an autograd user can hit raise PyTorch's exception types (user code catches them);
the messages may say more than PyTorch's. The expected types are PyTorch 2.13's, kept here so
the tests run without it; the cross-check below compares with PyTorch when it is installed."""

import pytest

import symgrad

CASES = [
    ("float_of_many", lambda T: float(T.tensor([1.0, 2.0, 3.0])), ValueError),
    ("int_of_many", lambda T: int(T.tensor([1, 2])), ValueError),
    ("negate_bool", lambda T: -T.tensor([True]), RuntimeError),
    ("int_to_negative_power", lambda T: T.tensor([1, 2]) ** -1, RuntimeError),
    ("softmax_of_int", lambda T: T.tensor([1, 2]).softmax(0), NotImplementedError),
    ("log_softmax_of_int", lambda T: T.tensor([1, 2]).log_softmax(0), NotImplementedError),
    ("argmax_of_empty", lambda T: T.zeros(0).argmax(), IndexError),
    ("argmin_of_empty", lambda T: T.zeros(0).argmin(), IndexError),
    ("max_of_empty", lambda T: T.zeros(0).max(), RuntimeError),
    ("min_of_empty", lambda T: T.zeros(0).min(), RuntimeError),
    ("amax_of_empty", lambda T: T.zeros(0).amax(), RuntimeError),
    ("item_of_many", lambda T: T.tensor([1.0, 2.0]).item(), RuntimeError),
    ("div_unknown_rounding", lambda T: T.ones(2).div(2, rounding_mode="round"), RuntimeError),
    ("div_rounding_not_str", lambda T: T.ones(2).div(2, rounding_mode=1), TypeError),
    ("div_unknown_rounding_", lambda T: T.ones(2).div_(2, rounding_mode="Floor"), RuntimeError),
]


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_exception_type_is_pytorchs(name, call, expected):
    with pytest.raises(expected) as caught:
        call(symgrad)
    assert type(caught.value) is expected


def test_one_element_conversions_still_work():
    assert float(symgrad.tensor([2.5])) == 2.5
    assert int(symgrad.tensor([[3]])) == 3
    assert symgrad.tensor([1, 2]).softmax(0, dtype=symgrad.float64).dtype is symgrad.float64


@pytest.mark.torch
@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_the_expected_types_are_pytorchs(name, call, expected):
    torch = pytest.importorskip("torch")
    with pytest.raises(expected) as caught:
        call(torch)
    assert type(caught.value) is expected
