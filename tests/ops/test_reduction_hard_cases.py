"""Reductions and scans at their hard cases: 0-d levels of quantile, the saved attributes of
the running extremes, and the like, each checked by plain values and against PyTorch."""

import pytest

import symgrad


def _rounded(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def _zero_dim_levels(T):
    """A 0-d tensor of levels makes no quantiles' dimension, as a number does."""
    x = T.tensor([[3.0, 1.0, 4.0, 1.0], [2.0, 6.0, 5.0, 3.0]], requires_grad=True)
    q = T.tensor(0.4)
    out = []
    for dim, keepdim in [(None, False), (1, False), (0, True), (None, True)]:
        y = T.quantile(x, q, dim=dim, keepdim=keepdim)
        (g,) = T.autograd.grad(y.sum(), x)
        out.append((tuple(y.shape), _rounded(y), _rounded(g)))
    y = T.nanquantile(x, q, dim=1, interpolation="nearest")
    out.append((tuple(y.shape), y.tolist()))
    for q in (1.5, -0.25):
        try:
            T.quantile(x, q)
        except RuntimeError as e:
            out.append(str(e))
    return out


ZERO_DIM_LEVELS = [
    ((), [2.8], [0.8, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0]),
    ((2,), [1.4, 3.4], [0.2, 0.0, 0.0, 0.8, 0.0, 0.0, 0.2, 0.8]),
    ((1, 4), [2.4, 3.0, 4.4, 1.8], [0.4, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4]),
    ((1, 1), [2.8], [0.8, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0]),
    ((2,), [1.0, 3.0]),
    "quantile() q must be in the range [0, 1] but got 1.5",
    "quantile() q must be in the range [0, 1] but got -0.25",
]


def test_zero_dim_levels():
    assert _zero_dim_levels(symgrad) == ZERO_DIM_LEVELS


@pytest.mark.torch
def test_pytorch_zero_dim_levels():
    torch = pytest.importorskip("torch")
    assert _zero_dim_levels(torch) == ZERO_DIM_LEVELS


def _nanmean_dtypes(T):
    """nanmean divides the sum (in ``dtype`` when given) by an int64 count, so the result
    keeps the sum's dtype."""
    nan = float("nan")
    x = T.tensor([[1.0, 2.0, nan], [nan, nan, nan]], requires_grad=True)
    out = []
    for dtype in (T.float16, T.float64):
        y = T.nanmean(x, 1, dtype=dtype)
        other = y.grad_fn._saved_other
        (g,) = T.autograd.grad(y.nansum(), x)
        out.append((str(y.dtype).split(".")[-1], _rounded(y), str(g.dtype).split(".")[-1]))
        out.append((_rounded(g), str(other.dtype).split(".")[-1], other.tolist()))
    return out


NANMEAN_DTYPES = [
    ("float16", [1.5, float("nan")], "float32"),
    ([0.5, 0.5, 0.0, float("nan"), float("nan"), float("nan")], "int64", [2, 0]),
    ("float64", [1.5, float("nan")], "float32"),
    ([0.5, 0.5, 0.0, float("nan"), float("nan"), float("nan")], "int64", [2, 0]),
]


def _same(a, b):
    return repr(a) == repr(b)


def test_nanmean_dtypes():
    assert _same(_nanmean_dtypes(symgrad), NANMEAN_DTYPES)


@pytest.mark.torch
def test_pytorch_nanmean_dtypes():
    torch = pytest.importorskip("torch")
    assert _same(_nanmean_dtypes(torch), NANMEAN_DTYPES)


def _empty_spread_warnings(T):
    """std and var of an empty input warn of no degrees of freedom whatever dims they reduce
    (PyTorch's reduction factor, input numel over output numel, is 0 there)."""
    import warnings

    out = []
    for fn, shape, kw in [
        (T.var, (0, 3), {"dim": 1}),
        (T.std, (3, 0), {"dim": 0}),
        (T.var_mean, (0, 3), {"dim": 1, "correction": 0}),
        (T.var, (0, 3), {"dim": 1, "correction": -1}),
        (T.var, (2, 3), {"dim": 1, "correction": 2}),
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(T.zeros(*shape), **kw)
        out.append(sum("degrees of freedom" in str(w.message) for w in caught))
    return out


def test_empty_spread_warnings():
    assert _empty_spread_warnings(symgrad) == [1, 1, 1, 0, 0]


@pytest.mark.torch
def test_pytorch_empty_spread_warnings():
    torch = pytest.importorskip("torch")
    assert _empty_spread_warnings(torch) == [1, 1, 1, 0, 0]


def _saved_names(T):
    """The names starting with ``_saved`` that ``dir(grad_fn)`` lists: only the fields."""
    x = T.ones(2, 3, requires_grad=True)
    return [
        sorted(n for n in dir(y.grad_fn) if n.startswith("_saved")) for y in (x.prod(), x.sum())
    ]


SAVED_NAMES = [["_saved_result", "_saved_self"], ["_saved_self_sym_sizes"]]


def test_saved_names():
    assert _saved_names(symgrad) == SAVED_NAMES


@pytest.mark.torch
def test_pytorch_saved_names():
    torch = pytest.importorskip("torch")
    assert _saved_names(torch) == SAVED_NAMES
