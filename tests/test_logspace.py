"""symgrad.logspace: PyTorch's values bit for bit (the ends cast to the result's type, the
exponents and the power in double), dtypes, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

CASES = [
    ((0, 2, 3), {}),
    ((-3, 3, 7), {}),
    ((-1.5, 2.3, 11), {}),
    ((1, 40, 6), {}),
    ((0.5, 7.25, 10), {"base": 3.0}),
    ((2, 0, 3), {"base": 2, "dtype": "int32"}),
    ((0.5, 3.5, 4), {"dtype": "int64"}),
    ((0, 1, 5), {"dtype": "float64"}),
    ((0.7, 1, 1), {}),
    ((0, 3, 0), {}),
    ((0, 2, 3), {"dtype": "float16"}),
]


def _call(lib, args, kwargs):
    kwargs = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
    return lib.logspace(*args, **kwargs)


def test_plain_values():
    assert symgrad.logspace(0, 2, 3).tolist() == [1.0, 10.0, 100.0]
    assert symgrad.logspace(0, 3, 4, base=2).tolist() == [1.0, 2.0, 4.0, 8.0]
    # integer results: the ends truncated first (0.5 -> 0, 3.5 -> 3)
    ints = symgrad.logspace(0.5, 3.5, 4, dtype=symgrad.int64)
    assert ints.tolist() == [1, 10, 100, 1000] and ints.dtype == symgrad.int64
    # float32 values as PyTorch rounds them (computed in double, then cast)
    assert symgrad.logspace(1, 40, 6).tolist()[1] == 630957376.0
    assert symgrad.logspace(-3, 3, 7).tolist()[0] == np.float32(0.001).item()
    assert symgrad.logspace(0.7, 1, 1).tolist() == [np.float32(10**0.7).item()]
    assert symgrad.logspace(0, 3, 0).shape == (0,)
    assert symgrad.logspace(0, 1, 3, requires_grad=True).requires_grad


def test_errors():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        symgrad.logspace(0, 1, -1)


@pytest.mark.parametrize(("args", "kwargs"), CASES)
def test_against_torch(args, kwargs):
    torch = pytest.importorskip("torch")
    got, want = _call(symgrad, args, kwargs), _call(torch, args, kwargs)
    assert got.tolist() == want.tolist()
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]


def test_random_ranges_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(40):
        start, end = rng.uniform(-20, 20, 2)
        steps, base = int(rng.integers(2, 40)), float(rng.uniform(1.1, 12))
        got = symgrad.logspace(float(start), float(end), steps, base=base)
        want = torch.logspace(float(start), float(end), steps, base=base)
        assert got.tolist() == want.tolist()
