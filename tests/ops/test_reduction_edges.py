"""Reductions at their edges, as PyTorch 2.13: the median of no elements (nan, one
``MedianBackward0`` node saving the input and result; an integer's is its minimum), a dim
that is no int before an empty tensor's error, ``var(dim=())``'s gradient (PyTorch's
backward counts the elements over the dims given: one), and ``logsumexp`` of an empty
tensor over ``dim=()``, and ``cumprod``'s gradient where its input holds zeros and
infinities (PyTorch's rule, not the exact products).

Each case is reduced to plain data (values, dtype, grad_fn name, or the exception's type),
checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

import warnings

from _torch_table import NAN, table_tests

_INF = float("inf")


def _backward(f, x):
    """``f(x)``, and the gradient of its sum."""

    def run(T):
        t = x(T)
        y = f(T, t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.sum().backward()
        return y, t.grad

    return run


def _empty(T):
    return T.ones(2, 0, 3, requires_grad=True)


def _saved_names(y):
    return type(y.grad_fn).__name__, sorted(a for a in dir(y.grad_fn) if a.startswith("_saved_"))


def _three(T):
    return T.tensor([1.0, 2.0, 4.0], requires_grad=True)


CASES = {
    "median_of_nothing": (
        _backward(lambda T, x: x.median(), _empty),
        ((NAN, "float32", "MedianBackward0"), ([[], []], "float32", None)),
    ),
    "nanmedian_of_nothing": (
        _backward(lambda T, x: x.nanmedian(), _empty),
        ((NAN, "float32", "NanmedianBackward0"), ([[], []], "float32", None)),
    ),
    "median_saves": (
        lambda T: (_saved_names(_three(T).median()), _saved_names(_three(T).nanmedian())),
        (
            ("MedianBackward0", ("_saved_result", "_saved_self")),
            ("NanmedianBackward0", ("_saved_result", "_saved_self")),
        ),
    ),
    "median_saved_result": (
        lambda T: _empty(T).median().grad_fn._saved_result,
        (NAN, "float32", "MedianBackward0"),
    ),
    "integer_median_of_nothing": (
        lambda T: (
            T.ones(0, dtype=T.int64).median(),
            T.ones(0, dtype=T.int32).nanmedian(),
        ),
        ((-(2**63), "int64", None), (-(2**31), "int32", None)),
    ),
    "max_tuple_dim_of_empty": (
        lambda T: T.ones(2, 0).max((0, 1)),
        ("raises", "TypeError"),
    ),
    "argmax_tuple_dim_of_empty": (
        lambda T: T.ones(2, 0).argmax((0,)),
        ("raises", "TypeError"),
    ),
    "min_list_dim_of_empty": (
        lambda T: T.ones(0, 3).min([]),
        ("raises", "TypeError"),
    ),
    "var_empty_dims": (
        _backward(lambda T, x: x.var(dim=()), _three),
        ((2.3333, "float32", "VarBackward0"), ([-_INF, -_INF, _INF], "float32", None)),
    ),
    "var_empty_dims_population": (
        _backward(lambda T, x: x.var(dim=[], correction=0), _three),
        ((1.5556, "float32", "VarBackward0"), ([-2.6667, -0.6667, 3.3333], "float32", None)),
    ),
    "var_empty_dims_keepdim": (
        _backward(lambda T, x: x.var(dim=(), correction=2, keepdim=True), _three),
        (([4.6667], "float32", "VarBackward0"), ([2.6667, 0.6667, -3.3333], "float32", None)),
    ),
    "std_empty_dims": (
        _backward(lambda T, x: x.std(dim=(), correction=0), _three),
        ((1.2472, "float32", "StdBackward0"), ([-1.069, -0.2673, 1.3363], "float32", None)),
    ),
    "var_mean_empty_dims": (
        _backward(lambda T, x: T.var_mean(x, dim=(), correction=0)[0], _three),
        ((1.5556, "float32", "VarMeanBackward0"), ([-2.6667, -0.6667, 3.3333], "float32", None)),
    ),
    "std_mean_empty_dims": (
        _backward(lambda T, x: T.std_mean(x, dim=())[0], _three),
        ((1.5275, "float32", "StdMeanBackward0"), ([-_INF, -_INF, _INF], "float32", None)),
    ),
    "var_equal_to_mean": (
        _backward(
            lambda T, x: x.var(dim=()), lambda T: T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        ),
        ((1.0, "float32", "VarBackward0"), ([-_INF, NAN, _INF], "float32", None)),
    ),
    "logsumexp_of_nothing_empty_dims": (
        _backward(lambda T, x: x.logsumexp(()), _empty),
        ((-_INF, "float32", "LogsumexpBackward0"), ([[], []], "float32", None)),
    ),
    "logsumexp_empty_dims": (
        lambda T: T.ones(3).logsumexp([]),
        ("raises", "RuntimeError"),
    ),
    "cumprod_infinity_before_zero": (
        _backward(
            lambda T, x: x.cumprod(0) * T.arange(1.0, 6.0),
            lambda T: T.tensor([_INF, 2.0, 0.0, _INF, 3.0], requires_grad=True),
        ),
        (
            ([_INF, _INF, NAN, NAN, NAN], "float32", "MulBackward0"),
            ([NAN, _INF, _INF, 0.0, 0.0], "float32", None),
        ),
    ),
    "cumprod_infinities_beside_zeros": (
        _backward(
            lambda T, x: x.cumprod(1),
            lambda T: T.tensor([[-_INF, -_INF, -_INF], [0.0, 0.0, 0.0]], requires_grad=True),
        ),
        (
            ([[-_INF, _INF, -_INF], [0.0, 0.0, 0.0]], "float32", "CumprodBackward0"),
            ([[NAN, NAN, NAN], [1.0, 0.0, 0.0]], "float32", None),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
