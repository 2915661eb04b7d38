"""PyTorch names programs call: the in-place comparisons and spellings, the complex-number
API on real tensors, and small aliases (symgrad.ops.inplace_aliases, real_tensors,
shape_aliases, linalg.vdot/ger, symgrad.asarray).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _torch_table import NAN, table_tests

import symgrad


def _x(T, values=(1.0, 2.0, 3.0)):
    return T.tensor(list(values), requires_grad=True)


def _compare_grads(T, name, other):
    x = _x(T)
    y = x * 1
    z = getattr(y, name)(other(T))
    z.sum().backward()
    return z, x.grad


def _backward(T, make):
    """The result of ``make(x)`` and ``x``'s gradient after backward of its sum."""
    x = _x(T, (1.0, -2.0, 0.0))
    out = make(T, x)
    out.sum().backward()
    return out, x.grad


def _in_place_version(T, name):
    y = _x(T) * 2
    before = y._version
    getattr(y, name)()
    return y._version - before


F32 = "float32"
CASES = {
    # -- in-place comparisons: 1 and 0 in self's dtype, the comparison's node, zero gradients
    "eq_number": (
        lambda T: _compare_grads(T, "eq_", lambda T: 2.0),
        (([0.0, 1.0, 0.0], F32, "EqBackward0"), ([0.0, 0.0, 0.0], F32, None)),
    ),
    "lt_tensor": (
        lambda T: _compare_grads(T, "lt_", lambda T: T.tensor([2.0, 2.0, 2.0])),
        (([1.0, 0.0, 0.0], F32, "LtBackward1"), ([0.0, 0.0, 0.0], F32, None)),
    ),
    "ne_": (lambda T: (_x(T) * 1).ne_(2), ([1.0, 0.0, 1.0], F32, "NeBackward0")),
    "le_": (lambda T: (_x(T) * 1).le_(2), ([1.0, 1.0, 0.0], F32, "LeBackward0")),
    "gt_": (lambda T: (_x(T) * 1).gt_(2), ([0.0, 0.0, 1.0], F32, "GtBackward0")),
    "ge_": (lambda T: (_x(T) * 1).ge_(2), ([0.0, 1.0, 1.0], F32, "GeBackward0")),
    "greater_": (lambda T: (_x(T) * 1).greater_(2), ([0.0, 0.0, 1.0], F32, "GtBackward0")),
    "greater_equal_": (
        lambda T: (_x(T) * 1).greater_equal_(2),
        ([0.0, 1.0, 1.0], F32, "GeBackward0"),
    ),
    "less_": (lambda T: (_x(T) * 1).less_(2), ([1.0, 0.0, 0.0], F32, "LtBackward0")),
    "less_equal_": (lambda T: (_x(T) * 1).less_equal_(2), ([1.0, 1.0, 0.0], F32, "LeBackward0")),
    "not_equal_": (lambda T: (_x(T) * 1).not_equal_(2), ([1.0, 0.0, 1.0], F32, "NeBackward0")),
    "other_requires_grad": (
        lambda T: _backward(T, lambda T, x: T.ones(3).eq_(x)),
        (([1.0, 0.0, 0.0], F32, "EqBackward1"), ([0.0, 0.0, 0.0], F32, None)),
    ),
    "eq_int": (lambda T: T.tensor([1, 2, 3]).eq_(2), ([0, 1, 0], "int64", None)),
    "lt_bool": (lambda T: T.tensor([True, False]).lt_(1), ([False, True], "bool", None)),
    "lt_int_float": (lambda T: T.tensor([1, 2]).lt_(1.5), ([1, 0], "int64", None)),
    "eq_leaf": (lambda T: _x(T).eq_(2), ("raises", "RuntimeError")),
    "eq_broadcast": (
        lambda T: T.tensor([1, 2]).eq_(T.tensor([[1, 2], [1, 2]])),
        ("raises", "RuntimeError"),
    ),
    "lt_uint16": (
        lambda T: T.tensor([1, 2], dtype=T.uint16).lt_(1),
        ("raises", "NotImplementedError"),
    ),
    # -- in-place spellings
    "multiply_": (lambda T: (_x(T) * 1).multiply_(2), ([2.0, 4.0, 6.0], F32, "MulBackward0")),
    "subtract_": (
        lambda T: (_x(T) * 1).subtract_(1, alpha=2),
        ([-1.0, 0.0, 1.0], F32, "SubBackward0"),
    ),
    "divide_floor": (
        lambda T: (_x(T) * 1).divide_(2, rounding_mode="floor"),
        ([0.0, 1.0, 1.0], F32, "DivBackward2"),
    ),
    "true_divide_": (lambda T: (_x(T) * 1).true_divide_(2), ([0.5, 1.0, 1.5], F32, "DivBackward0")),
    "true_divide_int": (lambda T: T.tensor([1, 2]).true_divide_(2), ("raises", "RuntimeError")),
    "absolute": (
        lambda T: _backward(T, lambda T, x: x.absolute()),
        (([1.0, 2.0, 0.0], F32, "AbsBackward0"), ([1.0, -1.0, 0.0], F32, None)),
    ),
    "absolute_": (
        lambda T: _backward(T, lambda T, x: (x * 1).absolute_()),
        (([1.0, 2.0, 0.0], F32, "AbsBackward0"), ([1.0, -1.0, 0.0], F32, None)),
    ),
    "sgn": (lambda T: T.sgn(_x(T, (1.0, -2.0, 0.0))), ([1.0, -1.0, 0.0], F32, "SgnBackward0")),
    "sgn_method_int": (lambda T: T.tensor([3, -2, 0]).sgn(), ([1, -1, 0], "int64", None)),
    "sgn_bool": (lambda T: T.tensor([True, False]).sgn(), ([True, False], "bool", None)),
    "sgn_": (
        lambda T: _backward(T, lambda T, x: (x * 1).sgn_() * x),
        (([1.0, 2.0, 0.0], F32, "MulBackward0"), ([1.0, -1.0, 0.0], F32, None)),
    ),
    "logical_not_": (
        lambda T: _backward(T, lambda T, x: (x * 2).logical_not_()),
        (([0.0, 0.0, 1.0], F32, "MulBackward0"), ([2.0, 2.0, 2.0], F32, None)),
    ),
    "logical_not_version": (lambda T: _in_place_version(T, "logical_not_"), 1),
    "logical_and_": (
        lambda T: _backward(T, lambda T, x: (x * 2).logical_and_(T.tensor([1.0, 1.0, 0.0]))),
        (([1.0, 1.0, 0.0], F32, "MulBackward0"), ([2.0, 2.0, 2.0], F32, None)),
    ),
    "logical_xor_leaf": (
        lambda T: _x(T, (1.0, 0.0)).logical_xor_(T.tensor([1.0, 1.0])),
        ([0.0, 1.0], F32, None),
    ),
    "logical_or_broadcast": (
        lambda T: T.tensor([1, 0]).logical_or_(T.tensor([[1, 1], [0, 0]])),
        ("raises", "RuntimeError"),
    ),
    "logical_not_leaf": (
        lambda T: _x(T, (1.0, 0.0)).logical_not_(),
        ([0.0, 1.0], F32, None),
    ),
    "logical_not_int": (lambda T: T.tensor([1, 0]).logical_not_(), ([0, 1], "int64", None)),
    "heaviside_": (
        lambda T: (_x(T, (1.0, 0.0, -1.0)) * 1).heaviside_(T.tensor(0.5)),
        ([1.0, 0.5, 0.0], F32, "NotImplemented"),
    ),
    "heaviside_backward": (
        lambda T: _backward(T, lambda T, x: T.heaviside(x, T.tensor(0.5))),
        ("raises", "RuntimeError"),
    ),
    "heaviside_dtypes": (
        lambda T: T.heaviside(T.tensor([1.0, 0.0]), T.tensor(7)),
        ("raises", "RuntimeError"),
    ),
    "heaviside_int": (
        lambda T: T.heaviside(T.tensor([1, 0, -1]), T.tensor(7)),
        ([1, 7, 0], "int64", None),
    ),
    "logaddexp2": (
        lambda T: _backward(T, lambda T, x: T.logaddexp2(x, T.tensor([1.0, 0.0, 0.0]))),
        (([2.0, 0.3219, 1.0], F32, "Logaddexp2Backward0"), ([0.5, 0.2, 0.5], F32, None)),
    ),
    "logaddexp2_method": (
        lambda T: _x(T).logaddexp2(T.tensor([1.0, 2.0, 3.0])),
        ([2.0, 3.0, 4.0], F32, "Logaddexp2Backward0"),
    ),
    "logaddexp2_number": (lambda T: _x(T).logaddexp2(1.0), ("raises", "TypeError")),
    "logaddexp2_int": (
        lambda T: T.logaddexp2(T.tensor([1]), T.tensor([2])),
        ("raises", "NotImplementedError"),
    ),
    # -- predicates and the complex-number API on real tensors
    "is_signed": (
        lambda T: (
            [
                T.tensor(v, dtype=d).is_signed()
                for v, d in ((1.0, T.float32), (1, T.int8), (1, T.uint8))
            ]
            + [T.tensor(True).is_signed(), T.is_signed(T.tensor(1))]
        ),
        (True, True, False, False, True),
    ),
    "complex_predicates": (
        lambda T: (
            [f(t) for t in (_x(T), T.tensor([1])) for f in (T.is_complex, T.is_conj, T.is_neg)]
            + [_x(T).is_complex(), _x(T).is_conj(), _x(T).is_neg()]
        ),
        (False,) * 9,
    ),
    "is_same_size": (
        lambda T: (
            T.ones(2, 3).is_same_size(T.zeros(2, 3, dtype=T.int64)),
            T.is_same_size(T.ones(2), T.ones(3)),
        ),
        (True, False),
    ),
    "is_same_size_number": (lambda T: T.ones(2).is_same_size(2), ("raises", "TypeError")),
    "isneginf": (
        lambda T: T.isneginf(T.tensor([-math.inf, 1.0, math.inf, math.nan], requires_grad=True)),
        ([True, False, False, False], "bool", None),
    ),
    "isposinf": (
        lambda T: T.tensor([-math.inf, 1.0, math.inf]).isposinf(),
        ([False, False, True], "bool", None),
    ),
    "isneginf_int": (lambda T: T.isneginf(T.tensor([1, -2])), ([False, False], "bool", None)),
    "isreal": (
        lambda T: (T.isreal(_x(T)), T.tensor([True]).isreal()),
        (([True, True, True], "bool", None), ([True], "bool", None)),
    ),
    "real_is_self": (lambda T: [T.real(t) is t and t.real is t for t in (_x(T),)], (True,)),
    "conj_is_self": (
        lambda T: [
            getattr(T, n)(t) is t and getattr(t, n)() is t
            for t in (_x(T),)
            for n in ("conj", "resolve_conj", "resolve_neg", "conj_physical")
        ],
        (True,) * 4,
    ),
    "imag": (lambda T: _x(T).imag, ("raises", "RuntimeError")),
    "imag_function": (lambda T: T.imag(T.tensor([1])), ("raises", "RuntimeError")),
    "conj_physical_": (
        lambda T: _backward(T, lambda T, x: (x * 2).conj_physical_()),
        (([2.0, -4.0, 0.0], F32, "ConjPhysicalBackward1"), ([2.0, 2.0, 2.0], F32, None)),
    ),
    "conj_physical_function": (
        lambda T: T.conj_physical_(_x(T) * 1),
        ([1.0, 2.0, 3.0], F32, "ConjPhysicalBackward1"),
    ),
    "conj_physical_version": (lambda T: _in_place_version(T, "conj_physical_"), 1),
    "conj_physical_leaf": (lambda T: _x(T).conj_physical_(), ("raises", "RuntimeError")),
    "H": (
        lambda T: T.arange(6.0).reshape(2, 3).requires_grad_().H,
        ([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], F32, "TransposeBackward0"),
    ),
    "mH_batch": (
        lambda T: (lambda m: (m.mH.shape, type(m.mH.grad_fn).__name__))(
            T.ones(2, 3, 4, requires_grad=True)
        ),
        ((2, 4, 3), "TransposeBackward0"),
    ),
    "adjoint": (
        lambda T: T.adjoint(T.tensor([[1, 2], [3, 4]])),
        ([[1, 3], [2, 4]], "int64", None),
    ),
    "adjoint_method": (
        lambda T: _x(T).reshape(1, 3).adjoint(),
        ([[1.0], [2.0], [3.0]], F32, "TransposeBackward0"),
    ),
    "H_1d": (lambda T: T.ones(3).H, ("raises", "RuntimeError")),
    "H_3d": (lambda T: T.ones(2, 2, 2).H, ("raises", "RuntimeError")),
    "mH_1d": (lambda T: T.ones(3).mH, ("raises", "RuntimeError")),
    "adjoint_1d": (lambda T: T.ones(3).adjoint(), ("raises", "RuntimeError")),
    "conjugate_transposes_0d": (
        lambda T: (lambda s: (s.H is s, s.mH is s, s.adjoint() is s))(T.tensor(2.0)),
        (True, True, True),
    ),
    "angle": (
        lambda T: _backward(
            T, lambda T, x: T.cat([x, T.tensor([-0.0, math.nan, -math.inf])]).angle()
        ),
        (
            ([0.0, 3.1416, 0.0, 0.0, NAN, 3.1416], F32, "AngleBackward0"),
            ([0.0, 0.0, 0.0], F32, None),
        ),
    ),
    "angle_int": (lambda T: T.angle(T.tensor([1, -2, 0])), ([0.0, 3.1416, 0.0], F32, None)),
    "angle_bool": (lambda T: T.tensor([True, False]).angle(), ([0.0, 0.0], F32, None)),
    "angle_float64": (
        lambda T: T.angle(T.tensor([-1.0], dtype=T.float64)),
        ([3.1416], "float64", None),
    ),
    # -- small ops
    "diagflat": (
        lambda T: _backward(T, lambda T, x: T.diagflat(x) * T.arange(9.0).reshape(3, 3)),
        (
            ([[0.0, 0.0, 0.0], [0.0, -8.0, 0.0], [0.0, 0.0, 0.0]], F32, "MulBackward0"),
            ([0.0, 4.0, 8.0], F32, None),
        ),
    ),
    "diagflat_matrix": (
        lambda T: T.arange(4.0).reshape(2, 2).requires_grad_().diagflat(-1).sum(0),
        ([0.0, 1.0, 2.0, 3.0, 0.0], F32, "SumBackward1"),
    ),
    "diagflat_node": (
        lambda T: T.diagflat(_x(T), 1),
        (
            [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0], [0.0] * 4],
            F32,
            "DiagEmbedBackward0",
        ),
    ),
    "diagflat_0d": (lambda T: T.diagflat(T.tensor(3)), ([[3]], "int64", None)),
    "ger": (
        lambda T: _backward(T, lambda T, x: T.ger(x, T.tensor([1.0, 2.0]))),
        (
            ([[1.0, 2.0], [-2.0, -4.0], [0.0, 0.0]], F32, "MulBackward0"),
            ([3.0, 3.0, 3.0], F32, None),
        ),
    ),
    "ger_method_2d": (lambda T: T.ones(2).ger(T.ones(2, 2)), ("raises", "RuntimeError")),
    "vdot": (
        lambda T: _backward(T, lambda T, x: T.vdot(x, T.tensor([4.0, 5.0, 6.0]))),
        ((-6.0, F32, "VdotBackward0"), ([4.0, 5.0, 6.0], F32, None)),
    ),
    "vdot_method_int": (
        lambda T: T.tensor([1, 2]).vdot(T.tensor([3, 4])),
        (11, "int64", None),
    ),
    "vdot_dtypes": (
        lambda T: T.vdot(T.ones(2), T.tensor([1, 2])),
        ("raises", "RuntimeError"),
    ),
    "vdot_sizes": (lambda T: T.vdot(T.ones(3), T.ones(2)), ("raises", "RuntimeError")),
    "vdot_2d": (lambda T: T.vdot(T.ones(3, 1), T.ones(3)), ("raises", "RuntimeError")),
    "split_with_sizes": (
        lambda T: T.arange(5.0, requires_grad=True).split_with_sizes([2, 3]),
        (
            ([0.0, 1.0], F32, "SplitWithSizesBackward0"),
            ([2.0, 3.0, 4.0], F32, "SplitWithSizesBackward0"),
        ),
    ),
    "split_with_sizes_dim": (
        lambda T: [p.shape for p in T.split_with_sizes(T.ones(2, 5), (2, 3), dim=-1)],
        ((2, 2), (2, 3)),
    ),
    "split_with_sizes_sum": (
        lambda T: T.ones(5).split_with_sizes([2, 2]),
        ("raises", "RuntimeError"),
    ),
    "split_with_sizes_negative": (
        lambda T: T.ones(5).split_with_sizes([3, -1, 3]),
        ("raises", "RuntimeError"),
    ),
    "split_with_sizes_int": (lambda T: T.ones(5).split_with_sizes(2), ("raises", "TypeError")),
    "detach": (
        lambda T: (lambda x: (T.detach(x * 2), T.detach(x).requires_grad))(_x(T)),
        (([2.0, 4.0, 6.0], F32, None), False),
    ),
    "cosine_similarity": (
        lambda T: (
            T.cosine_similarity(T.tensor([[3.0, 4.0]]), T.tensor([[4.0, 3.0]])),
            T.cosine_similarity is T.nn.functional.cosine_similarity,
        ),
        (([0.96], F32, None), True),
    ),
}


def _asarray_shares_numpy(T):
    a = np.arange(3.0)
    shared, copied = T.asarray(a), T.asarray(a, copy=True)
    single = T.asarray(a, dtype=T.float32)
    a[0] = 5.0
    return shared, copied, single


def _asarray_of_tensor(T):
    x = _x(T)
    same = T.asarray(x)
    z = x * 2
    return (
        same is x,
        T.asarray(z) is z,
        T.asarray(x, copy=True),
        T.asarray(x, dtype=T.float64),
        T.asarray(z, requires_grad=False),
        T.asarray(T.tensor([1, 2])).dtype == T.int64,
    )


def _asarray_turns_off_a_leaf(T):
    x = _x(T)
    y = T.asarray(x, requires_grad=False)
    return y is x, x.requires_grad


CASES.update(
    {
        "asarray_numpy": (
            _asarray_shares_numpy,
            (
                ([5.0, 1.0, 2.0], "float64", None),
                ([0.0, 1.0, 2.0], "float64", None),
                ([0.0, 1.0, 2.0], F32, None),
            ),
        ),
        "asarray_tensor": (
            _asarray_of_tensor,
            (
                True,
                True,
                ([1.0, 2.0, 3.0], F32, "CloneBackward0"),
                ([1.0, 2.0, 3.0], "float64", "ToCopyBackward0"),
                ([2.0, 4.0, 6.0], F32, None),
                True,
            ),
        ),
        "asarray_leaf_off": (_asarray_turns_off_a_leaf, (True, False)),
        "asarray_sequence": (
            lambda T: (
                T.asarray([1, 2]),
                T.asarray((1, 2.5)),
                T.asarray([1.0], requires_grad=True),
            ),
            (([1, 2], "int64", None), ([1.0, 2.5], F32, None), ([1.0], F32, None)),
        ),
        "asarray_alias_sequence": (
            lambda T: T.asarray([1, 2], copy=False),
            ("raises", "ValueError"),
        ),
        "asarray_alias_dtype": (
            lambda T: T.asarray(np.arange(3), dtype=T.float64, copy=False),
            ("raises", "ValueError"),
        ),
        "asarray_negative_strides": (
            lambda T: T.asarray(np.arange(3)[::-1]),
            ("raises", "ValueError"),
        ),
        "asarray_integer_requires_grad": (
            lambda T: T.asarray([1, 2], requires_grad=True),
            ("raises", "RuntimeError"),
        ),
    }
)


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def test_methods_and_functions_exist():
    names = (
        "eq_ ne_ lt_ le_ gt_ ge_ greater_ greater_equal_ less_ less_equal_ not_equal_ "
        "multiply_ subtract_ divide_ true_divide_ logical_not_ absolute absolute_ sgn sgn_ "
        "heaviside_ logaddexp2 is_signed is_complex is_conj is_neg is_same_size isneginf "
        "isposinf isreal real imag conj resolve_conj resolve_neg conj_physical conj_physical_ "
        "H mH adjoint angle diagflat ger vdot split_with_sizes"
    ).split()
    assert [n for n in names if not hasattr(symgrad.Tensor, n)] == []
    functions = (
        "logaddexp2 sgn is_complex is_conj is_neg is_signed is_same_size isneginf isposinf "
        "isreal real imag conj resolve_conj resolve_neg conj_physical conj_physical_ adjoint "
        "angle diagflat ger vdot split_with_sizes detach asarray cosine_similarity"
    ).split()
    assert [n for n in functions if not callable(getattr(symgrad, n, None))] == []


def test_asarray_warns_once_about_the_requires_grad_default():
    from symgrad import _asarray

    _asarray._WARNED["requires_grad"] = False
    x = symgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="unspecified requires_grad"):
        assert symgrad.asarray(x) is x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symgrad.asarray(x)


def test_zero_dim_conjugate_transposes_warn():
    s = symgrad.tensor(2.0)
    for get in (lambda: s.H, lambda: s.mH, lambda: s.adjoint()):
        with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):
            assert get() is s


def test_in_place_comparison_changes_a_saved_tensor():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.eq_(2.0)
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_in_place_comparison_forward_tangent_is_zero():
    import symgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 1.0]))
        y = x * 1
        y.lt_(1.5)
        assert fwAD.unpack_dual(y).tangent.tolist() == [0.0, 0.0]
