"""Creation functions given 0-d tensors where PyTorch takes numbers: ``arange``'s bounds and
``full``'s value are read as their numbers (an integer tensor gives integers), and ``arange``
refuses a step of the wrong sign as PyTorch does."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def test_arange_with_tensor_bounds_keeps_integers() -> None:
    assert symgrad.arange(symgrad.tensor(5)).dtype == symgrad.int64
    assert symgrad.arange(symgrad.tensor(2), 5).tolist() == [2, 3, 4]
    assert symgrad.arange(0, symgrad.tensor(5), symgrad.tensor(2)).dtype == symgrad.int64
    assert symgrad.arange(symgrad.tensor(2.0), 5).dtype == symgrad.float32
    with pytest.raises(TypeError, match="0-d tensors"):
        symgrad.arange(symgrad.tensor([1, 2]))


def test_arange_step_of_the_wrong_sign() -> None:
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        symgrad.arange(0, 10, -1)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        symgrad.arange(10, 0)
    assert symgrad.arange(0, 0, -1).tolist() == []
    assert symgrad.arange(5, 0, -2).tolist() == [5, 3, 1]


def test_full_with_a_tensor_value() -> None:
    assert symgrad.full((2,), symgrad.tensor(3)).tolist() == [3, 3]
    assert symgrad.full((2,), symgrad.tensor(3)).dtype == symgrad.int64
    assert symgrad.full((2,), symgrad.tensor(3.0, dtype=symgrad.float64)).dtype == symgrad.float32
    assert symgrad.full((2,), symgrad.tensor(True)).dtype == symgrad.bool
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        symgrad.full((2,), symgrad.tensor([3, 4]))


def test_logsumexp_of_integers_is_in_the_default_float_dtype() -> None:
    found = symgrad.tensor([1, 2]).logsumexp(0)
    assert found.dtype == symgrad.float32
    assert found.item() == pytest.approx(2.3132617, rel=1e-6)
    assert symgrad.tensor([True, False]).logsumexp(0).item() == pytest.approx(1.3132617, rel=1e-6)


def test_square_of_bools_is_int64() -> None:
    """PyTorch's square is pow(x, 2): of a bool tensor, an int64 one."""
    b = symgrad.tensor([True, False])
    assert b.square().tolist() == [1, 0] and b.square().dtype == symgrad.int64
    assert symgrad.square(b).dtype == symgrad.int64


_MANY_ELEMENT_ITEMS = [
    (lambda T: T.tensor([T.tensor([1, 2]), T.tensor([3, 4])]), TypeError, "to an index"),
    (lambda T: T.tensor([T.tensor([True, False])]), TypeError, "to an index"),
    (lambda T: T.tensor([T.tensor([1.0, 2])], dtype=T.int64), TypeError, "to an index"),
    (lambda T: T.tensor([T.tensor([1.0, 2]), T.tensor([3.0, 4])]), ValueError, "Python scalars"),
    (lambda T: T.tensor([T.tensor([1, 2]), 2.5]), ValueError, "Python scalars"),
    (lambda T: T.tensor([T.tensor([1, 2])], dtype=T.float32), ValueError, "Python scalars"),
]


@pytest.mark.parametrize("program, error, message", _MANY_ELEMENT_ITEMS)
def test_a_list_holding_a_tensor_of_several_elements_is_refused_by_the_result_dtype(
    program, error, message
) -> None:
    # PyTorch reads each item as an index for an integer or bool result, as a float otherwise
    with pytest.raises(error, match=message):
        program(symgrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=message):
        program(torch)


@pytest.mark.parametrize(
    "program",
    [
        lambda T: T.tensor([np.array(1.0), 2]),
        lambda T: T.tensor([[np.array(1.0)]], dtype=T.float64),
        lambda T: T.as_tensor([np.array(3)]),
    ],
)
def test_a_list_holding_a_zero_dim_numpy_array_is_refused(program) -> None:
    # PyTorch takes a NumPy array inside a list for a sequence, and a 0-d one has no length
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        program(symgrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        program(torch)
