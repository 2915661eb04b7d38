"""PyTorch's legacy names that older tutorials use: the ``FloatTensor``-style types,
``Tensor.type()``, and softmax without ``dim``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn

LEGACY = [
    ("FloatTensor", "float32"),
    ("DoubleTensor", "float64"),
    ("HalfTensor", "float16"),
    ("LongTensor", "int64"),
    ("IntTensor", "int32"),
    ("ShortTensor", "int16"),
    ("CharTensor", "int8"),
    ("ByteTensor", "uint8"),
    ("BoolTensor", "bool"),
]


@pytest.mark.parametrize("name,dtype", LEGACY)
def test_legacy_types_make_tensors_of_their_dtype(name, dtype):
    cls = getattr(symgrad, name)
    made = cls([1.7, 0, 2])
    assert type(made) is symgrad.Tensor and made.dtype.name == dtype
    assert cls(2, 3).shape == (2, 3) and cls(2, 3).dtype.name == dtype
    assert cls().shape == (0,)
    assert cls(symgrad.Size([2, 1])).shape == (2, 1)
    assert isinstance(made, cls) and made.type() == f"torch.{name}"
    assert cls.dtype.name == dtype and not cls.is_cuda


def test_legacy_values():
    assert symgrad.LongTensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert symgrad.IntTensor([1.7, -2.2]).tolist() == [1, -2]  # truncated, as PyTorch
    assert symgrad.BoolTensor([1, 0]).tolist() == [True, False]
    assert symgrad.FloatTensor(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert symgrad.LongTensor(np.array([3, 4])).tolist() == [3, 4]


def test_isinstance_follows_the_dtype():
    x = symgrad.ones(2)
    assert isinstance(x, symgrad.FloatTensor) and not isinstance(x, symgrad.DoubleTensor)
    assert isinstance(x.double(), symgrad.DoubleTensor)
    assert isinstance(symgrad.ones(2, requires_grad=True), symgrad.FloatTensor)
    assert isinstance(nn.Parameter(symgrad.ones(2)), symgrad.FloatTensor)
    assert not isinstance(1.0, symgrad.FloatTensor)
    assert not issubclass(symgrad.FloatTensor, symgrad.Tensor)
    assert repr(symgrad.FloatTensor) == "<class 'symgrad.FloatTensor'>"


def test_legacy_errors():
    x = symgrad.ones(2)
    assert symgrad.FloatTensor(x)._data is x._data  # the same memory, as PyTorch
    with pytest.raises(TypeError, match="must be int64, not float32"):
        symgrad.LongTensor(x)
    with pytest.raises(TypeError, match="requires_grad"):
        symgrad.FloatTensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        symgrad.FloatTensor("a")
    with pytest.raises(RuntimeError, match="negative dimension"):
        symgrad.FloatTensor(-1)
    with pytest.raises(TypeError):
        symgrad.FloatTensor(2, 3.0)


def test_type_names_and_conversions():
    x = symgrad.ones(2)
    assert x.type() == "torch.FloatTensor"
    names = [symgrad.ones(1, dtype=d).type() for d in (symgrad.uint8, symgrad.int16, symgrad.bool)]
    assert names == ["torch.ByteTensor", "torch.ShortTensor", "torch.BoolTensor"]
    assert x.type(symgrad.DoubleTensor).dtype is symgrad.float64
    assert x.type("torch.IntTensor").dtype is symgrad.int32
    assert x.type("symgrad.LongTensor").dtype is symgrad.int64
    assert x.type(symgrad.int64).dtype is symgrad.int64
    assert x.type(symgrad.float32) is x
    assert x.type(dtype=symgrad.float16, non_blocking=False).dtype is symgrad.float16
    w = symgrad.ones(2, requires_grad=True)
    assert type(w.type(symgrad.DoubleTensor).grad_fn).__name__ == "ToCopyBackward0"
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        x.type("foo")
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(3)


def _implicit(fn, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(x)
    assert [w.category for w in caught] == [UserWarning]
    assert "Implicit dimension choice" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the caller
    return out


@pytest.mark.parametrize("ndim,dim", [(0, 0), (1, 0), (2, 1), (3, 0), (4, 1)])
def test_softmax_without_dim(ndim, dim):
    x = symgrad.randn(*([2] * ndim)) if ndim else symgrad.tensor(0.3)
    assert symgrad.allclose(_implicit(F.softmax, x), F.softmax(x, dim=dim))
    assert symgrad.allclose(_implicit(F.log_softmax, x), F.log_softmax(x, dim=dim))
    assert symgrad.allclose(_implicit(F.softmin, x), F.softmin(x, dim=dim))
    assert symgrad.allclose(_implicit(nn.Softmax(), x), F.softmax(x, dim=dim))
    assert symgrad.allclose(_implicit(nn.LogSoftmax(), x), F.log_softmax(x, dim=dim))


def test_softmax_function_and_method_need_dim():
    x = symgrad.ones(2, 2)
    # PyTorch's sentence (its argument parser's), then symgrad's hint
    with pytest.raises(
        TypeError, match='^softmax\\(\\) missing 1 required positional arguments: "dim"\n'
    ):
        symgrad.softmax(x)
    with pytest.raises(
        TypeError, match='^log_softmax\\(\\) missing 1 required positional arguments: "dim"\n'
    ):
        x.log_softmax()
    with pytest.warns(UserWarning, match="Implicit dimension"):
        assert F.softmax(x, None, 3, symgrad.float64).dtype is symgrad.float64


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for name, _ in LEGACY:
        want = getattr(torch, name)([1.7, 0, 2])
        got = getattr(symgrad, name)([1.7, 0, 2])
        assert got.type() == want.type()
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = np.random.default_rng(0).standard_normal((2, 3, 2)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.functional.log_softmax(torch.tensor(x))
        got = F.log_softmax(symgrad.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
