"""The out= keyword: results written into a given tensor, as PyTorch writes them."""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import symgrad

HAS_TORCH = importlib.util.find_spec("torch") is not None


def both(check: Callable[[Any], None]) -> None:
    """Run ``check`` on symgrad, then on PyTorch when it is installed."""
    check(symgrad)
    if HAS_TORCH:
        import torch

        check(torch)


A, B = [1.0, 2.0], [3.0, 4.0]
CALLS = {
    "add": (lambda T, a, b, o: T.add(a, b, alpha=2, out=o), [7.0, 10.0]),
    "sub": (lambda T, a, b, o: T.sub(a, b, out=o), [-2.0, -2.0]),
    "mul": (lambda T, a, b, o: T.mul(a, b, out=o), [3.0, 8.0]),
    "div": (lambda T, a, b, o: T.div(b, a, out=o), [3.0, 2.0]),
    "pow": (lambda T, a, b, o: T.pow(a, 2, out=o), [1.0, 4.0]),
    "neg": (lambda T, a, b, o: T.neg(a, out=o), [-1.0, -2.0]),
    "exp": (lambda T, a, b, o: T.exp(a * 0, out=o), [1.0, 1.0]),
    "log": (lambda T, a, b, o: T.log(a, out=o), [0.0, 0.6931471805599453]),
    "sqrt": (lambda T, a, b, o: T.sqrt(a * a, out=o), [1.0, 2.0]),
    "abs": (lambda T, a, b, o: T.abs(-a, out=o), [1.0, 2.0]),
    "tanh": (lambda T, a, b, o: T.tanh(a * 0, out=o), [0.0, 0.0]),
    "sigmoid": (lambda T, a, b, o: T.sigmoid(a * 0, out=o), [0.5, 0.5]),
    "clamp": (lambda T, a, b, o: T.clamp(b, 0, 3.5, out=o), [3.0, 3.5]),
    "where": (lambda T, a, b, o: T.where(b > 3, b, a, out=o), [1.0, 4.0]),
    "sum": (lambda T, a, b, o: T.sum(T.stack([a, b]), 0, out=o), [4.0, 6.0]),
    "mean": (lambda T, a, b, o: T.mean(T.stack([a, b]), dim=0, out=o), [2.0, 3.0]),
    "prod": (lambda T, a, b, o: T.prod(T.stack([a, b]), 0, out=o), [3.0, 8.0]),
    "matmul": (lambda T, a, b, o: T.matmul(T.eye(2), b, out=o), [3.0, 4.0]),
    "mm": (lambda T, a, b, o: T.mm(T.eye(2), b[:, None], out=o).view(2), [3.0, 4.0]),
    "bmm": (lambda T, a, b, o: T.bmm(T.eye(2)[None], b[None, :, None], out=o).view(2), B),
    "cat": (lambda T, a, b, o: T.cat([a[:1], b[1:]], out=o), [1.0, 4.0]),
    "stack": (lambda T, a, b, o: T.stack([a[0], b[1]], out=o), [1.0, 4.0]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_receives_the_result(name):
    call, expected = CALLS[name]

    def check(T):
        a, b = T.tensor(A), T.tensor(B)
        out = T.zeros({"mm": (2, 1), "bmm": (1, 2, 1)}.get(name, (2,)))
        before = out._version
        result = call(T, a, b, out)
        assert result.tolist() == pytest.approx(expected) and out._version > before
        assert out.view(-1).tolist() == pytest.approx(expected)

    both(check)


def test_out_is_resized_with_a_warning_unless_empty():
    def check(T):
        a, b = T.tensor(A), T.tensor(B)
        empty = T.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert T.add(a, b, out=empty) is empty and empty.tolist() == [4.0, 6.0]
        wrong = T.zeros(3)
        with pytest.warns(UserWarning, match=r"resized since it had shape \[3\].*shape \[2\]"):
            T.add(a, b, out=wrong)
        assert wrong.tolist() == [4.0, 6.0]
        scalar = T.zeros(5)
        with pytest.warns(UserWarning, match=r"required output shape \[\]"):
            T.mean(a, out=scalar)
        assert scalar.shape == () and scalar.item() == 1.5

    both(check)


def test_out_of_a_strided_view_writes_into_its_base():
    def check(T):
        base = T.zeros(4)
        T.add(T.tensor(A), 1, out=base[::2])
        assert base.tolist() == [2.0, 0.0, 3.0, 0.0]

    both(check)


def test_out_dtype_casting():
    def check(T):
        a = T.tensor(A)
        out = T.zeros(2, dtype=T.float64)
        assert T.add(a, a, out=out).dtype == T.float64 and out.tolist() == [2.0, 4.0]
        ints = T.tensor([1, 2])
        assert T.add(ints, ints, out=T.zeros(2)).tolist() == [2.0, 4.0]
        with pytest.raises(
            RuntimeError, match="result type Float can't be cast to the desired output type Long"
        ):
            T.add(a, a, out=T.zeros(2, dtype=T.int64))
        with pytest.raises(
            RuntimeError, match="Long can't be cast to the desired output type Bool"
        ):
            T.add(ints, ints, out=T.zeros(2, dtype=T.bool))

    both(check)


def test_out_refuses_autograd():
    def check(T):
        x = T.tensor(A, requires_grad=True)
        message = r"add\(\): functions with out=\.\.\. arguments don't support automatic"
        with pytest.raises(RuntimeError, match=message):
            T.add(x, 1, out=T.zeros(2))
        with pytest.raises(RuntimeError, match=message):
            T.add(T.tensor(A), 1, out=T.zeros(2, requires_grad=True))
        with pytest.raises(RuntimeError, match=r"cat\(\): functions with out="):
            T.cat([x, x], out=T.zeros(4))
        out = T.zeros(2, requires_grad=True)
        with T.no_grad():
            assert T.add(x, 1, out=out) is out
        assert out.tolist() == [2.0, 3.0] and out.requires_grad

    both(check)


def test_out_argument_errors():
    def check(T):
        a = T.tensor(A)
        with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
            T.add(a, a, out=[T.zeros(2)])
        with pytest.raises(TypeError, match="sum"):
            T.sum(a, out=T.zeros(()))  # the full sum has no out= overload
        assert T.add(a, a, out=None).tolist() == [2.0, 4.0]

    both(check)
