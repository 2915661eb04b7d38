"""Argument kinds as PyTorch takes them: sizes by keyword (``zeros(size=...)``,
``x.reshape(shape=...)``), a method's dims one by one (``x.squeeze(0, 1)``), a tuple of dims,
a lone bool as ``unbiased``, a Python number where a tensor is copied from, the deprecated
``add(alpha, other)``; and PyTorch's exception type for None, a float or a bool where an int
(or a tensor) is wanted, and for a dim out of range.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, shapes, or the exception's type): the table holds the expected
data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import pytest
from _torch_table import run

import symgrad

TE, IE, RE = ("raises", "TypeError"), ("raises", "IndexError"), ("raises", "RuntimeError")
VE = ("raises", "ValueError")


def _x(T):
    return T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)


def _b(T):
    return T.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])


def _grad(T, f):
    """The gradient of ``f(x).sum()`` with respect to ``x``."""
    x = _x(T)
    f(x).sum().backward()
    return x.grad


def _shape(t):
    return tuple(t.shape)


X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
XT = [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]]  # X transposed
X32 = [[0.5, -1.0], [2.0, 1.5], [0.25, -0.75]]  # X viewed as (3, 2)
ONES = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]

SIZE_KEYWORDS = [
    ("zeros(size=(2, 3))", lambda T: T.zeros(size=(2, 3)), ([[0.0] * 3] * 2, "float32", None)),
    ("ones(size=[2])", lambda T: T.ones(size=[2]), ([1.0, 1.0], "float32", None)),
    ("empty(size=(2,)).shape", lambda T: T.empty(size=(2,)).shape, (2,)),
    ("rand(size=(2,)).shape", lambda T: T.rand(size=(2,)).shape, (2,)),
    ("randn(size=(1, 2)).shape", lambda T: T.randn(size=(1, 2)).shape, (1, 2)),
    ("zeros((2,), size=(3,))", lambda T: T.zeros((2,), size=(3,)), TE),
    ("zeros(size=(2,), bogus=1)", lambda T: T.zeros(size=(2,), bogus=1), TE),
    ("x.view(size=(3, 2))", lambda T: _x(T).view(size=(3, 2)), (X32, "float32", "ViewBackward0")),
    ("x.view(size=6)", lambda T: _x(T).view(size=6), TE),
    ("x.view(dtype=..., size=...)", lambda T: _x(T).view(dtype=T.float32, size=(3, 2)), TE),
    (
        "x.reshape(shape=(3, 2))",
        lambda T: _x(T).reshape(shape=(3, 2)),
        (X32, "float32", "ViewBackward0"),
    ),
    (
        "reshape(x, shape=(3, 2))",
        lambda T: T.reshape(_x(T), shape=(3, 2)),
        (X32, "float32", "ViewBackward0"),
    ),
    ("x.reshape(shape=6)", lambda T: _x(T).reshape(shape=6), TE),
    ("x.reshape(3, 2, shape=(3, 2))", lambda T: _x(T).reshape(3, 2, shape=(3, 2)), TE),
    ("x.new_zeros(size=(3, 2))", lambda T: _shape(_x(T).new_zeros(size=(3, 2))), (3, 2)),
    ("x.new_ones(size=(1,))", lambda T: _x(T).new_ones(size=(1,)), ([1.0], "float32", None)),
    ("x.new_empty(size=(3, 2))", lambda T: _shape(_x(T).new_empty(size=(3, 2))), (3, 2)),
    ("x.new_zeros(2, size=(3,))", lambda T: _x(T).new_zeros(2, size=(3,)), TE),
    (
        "x.expand(size=(1, 2, 3))",
        lambda T: _x(T).expand(size=(1, 2, 3)),
        ([X], "float32", "ExpandBackward0"),
    ),
    (
        "x.repeat(repeats=(1, 1))",
        lambda T: _x(T).repeat(repeats=(1, 1)),
        (X, "float32", "RepeatBackward0"),
    ),
    (
        "x.permute(dims=(1, 0))",
        lambda T: _x(T).permute(dims=(1, 0)),
        (XT, "float32", "PermuteBackward0"),
    ),
    (
        "permute(x, dims=[1, 0])",
        lambda T: T.permute(_x(T), dims=[1, 0]),
        (XT, "float32", "PermuteBackward0"),
    ),
    ("x.flip(dims=(0,))", lambda T: _x(T).flip(dims=(0,)), (X[::-1], "float32", "FlipBackward0")),
    (
        "x.sum_to_size(size=(1, 3))",
        lambda T: _x(T).sum_to_size(size=(1, 3)),
        ([[2.0, -0.75, 1.25]], "float32", "SumBackward1"),
    ),
]

ONE_BY_ONE = [
    ("ones(1, 2, 1).squeeze(0, 2)", lambda T: _shape(T.ones(1, 2, 1).squeeze(0, 2)), (2,)),
    ("ones(1, 1, 2).squeeze_(0, 1)", lambda T: _shape(T.ones(1, 1, 2).squeeze_(0, 1)), (2,)),
    ("x.squeeze(0, 1)", lambda T: _x(T).squeeze(0, 1), (X, "float32", "SqueezeBackward2")),
    ("x.count_nonzero(0, 1)", lambda T: _b(T).count_nonzero(0, 1), (5, "int64", None)),
    ("x.tile(2, 1)", lambda T: _shape(_x(T).tile(2, 1)), (4, 3)),
    (
        "x.hsplit(1, 2)",
        lambda T: tuple(_shape(p) for p in _x(T).hsplit(1, 2)),
        ((2, 1), (2, 1), (2, 1)),
    ),
    ("x.vsplit(1)", lambda T: tuple(_shape(p) for p in _x(T).vsplit(1)), ((2, 3),)),
    (
        "x.flip(0, 1)",
        lambda T: _x(T).flip(0, 1),
        ([r[::-1] for r in X[::-1]], "float32", "FlipBackward0"),
    ),
    ("x.broadcast_to(1, 2, 3)", lambda T: _shape(_x(T).broadcast_to(1, 2, 3)), (1, 2, 3)),
    ("x.flip()", lambda T: _x(T).flip(), TE),
    ("flip(x)", lambda T: T.flip(_x(T)), TE),
    ("squeeze(x, 0, 1)", lambda T: T.squeeze(_x(T), 0, 1), TE),
]

DIM_TUPLES = [
    ("b.all((0, 1))", lambda T: _b(T).all((0, 1)), (False, "bool", None)),
    ("b.any([1])", lambda T: _b(T).any([1]), ([True, True], "bool", None)),
    ("b.all(dim=[0])", lambda T: _b(T).all(dim=[0]), ([False, True, True], "bool", None)),
    (
        "b.all((0, 1), keepdim=True)",
        lambda T: _b(T).all((0, 1), keepdim=True),
        ([[False]], "bool", None),
    ),
    (
        "b.all(dim=())",
        lambda T: _b(T).all(dim=()),
        ([[False, True, True], [True] * 3], "bool", None),
    ),
    ("b.all([0, 0])", lambda T: _b(T).all([0, 0]), RE),
    ("b.all((5,))", lambda T: _b(T).all((5,)), IE),
    ("b.any((1.0,))", lambda T: _b(T).any((1.0,)), TE),
    ("x.sum((0, 1))", lambda T: _x(T).sum((0, 1)), (2.5, "float32", "SumBackward1")),
    ("x.mean([0, 1])", lambda T: _x(T).mean([0, 1]), (0.4167, "float32", "MeanBackward1")),
]

UNBIASED = [
    ("x.std(True)", lambda T: _x(T).std(True), (1.1902, "float32", "StdBackward0")),
    ("x.var(False)", lambda T: _x(T).var(False), (1.1806, "float32", "VarBackward0")),
    (
        "std_mean(x, False)",
        lambda T: T.std_mean(_x(T), False),
        ((1.0865, "float32", "StdMeanBackward0"), (0.4167, "float32", "StdMeanBackward0")),
    ),
    (
        "var_mean(x, True)",
        lambda T: T.var_mean(_x(T), True),
        ((1.4167, "float32", "VarMeanBackward0"), (0.4167, "float32", "VarMeanBackward0")),
    ),
    ("x.std(True, True)", lambda T: _x(T).std(True, True), TE),
    (
        "grad of x.var(False)",
        lambda T: _grad(T, lambda x: x.var(False)),
        ([[0.0278, -0.4722, 0.5278], [0.3611, -0.0556, -0.3889]], "float32", None),
    ),
]

NUMBERS_TAKEN = [
    (
        "nan_to_num(t, None)",
        lambda T: T.nan_to_num(T.tensor([float("nan"), 1.0]), None),
        ([0.0, 1.0], "float32", None),
    ),
    (
        "nan_to_num(t, nan=1-element)",
        lambda T: T.nan_to_num(T.tensor([float("nan")]), nan=T.tensor(2.0)),
        ([2.0], "float32", None),
    ),
    ("nan_to_num(x, x)", lambda T: T.nan_to_num(_x(T), _x(T)), TE),
    ("nan_to_num(x, (0,))", lambda T: T.nan_to_num(_x(T), (0,)), TE),
    ("nan_to_num(x, posinf='a')", lambda T: T.nan_to_num(_x(T), posinf="a"), TE),
    (
        "zeros(2, 3).copy_(2.0)",
        lambda T: T.zeros(2, 3).copy_(2.0),
        ([[2.0] * 3] * 2, "float32", None),
    ),
    ("zeros(2).copy_(True)", lambda T: T.zeros(2).copy_(True), ([1.0, 1.0], "float32", None)),
    (
        "ones(2, int64).copy_(2.7)",
        lambda T: T.ones(2, dtype=T.int64).copy_(2.7),
        ([2, 2], "int64", None),
    ),
    ("zeros(2).copy_('a')", lambda T: T.zeros(2).copy_("a"), TE),
    ("zeros(2).copy_(None)", lambda T: T.zeros(2).copy_(None), TE),
    ("zeros(2).copy_([1.0, 2.0])", lambda T: T.zeros(2).copy_([1.0, 2.0]), TE),
    (
        "histogram(t) has 100 bins",
        lambda T: tuple(_shape(p) for p in T.histogram(T.tensor([0.0, 1.0, 1.0]))),
        ((100,), (101,)),
    ),
    (
        "t.histogram()[0] counts",
        lambda T: T.tensor([0.0, 1.0, 1.0]).histogram()[0].sum(),
        (3.0, "float32", None),
    ),
]

DEPRECATED_ALPHA = [
    (
        "add(x, 2, ones)",
        lambda T: T.add(_x(T), 2, T.ones(2, 3)),
        ([[2.5, 1.0, 4.0], [3.5, 2.25, 1.25]], "float32", "AddBackward0"),
    ),
    (
        "x.add(2, 3)",
        lambda T: _x(T).add(2, 3),
        ([[6.5, 5.0, 8.0], [7.5, 6.25, 5.25]], "float32", "AddBackward0"),
    ),
    (
        "x.sub(2, ones)",
        lambda T: _x(T).sub(2, T.ones(2, 3)),
        ([[-1.5, -3.0, 0.0], [-0.5, -1.75, -2.75]], "float32", "SubBackward0"),
    ),
    (
        "sub(x, 2, ones)",
        lambda T: T.sub(_x(T), 2, T.ones(2, 3)),
        ([[-1.5, -3.0, 0.0], [-0.5, -1.75, -2.75]], "float32", "SubBackward0"),
    ),
    (
        "ones.add_(-0.5, ones)",
        lambda T: T.ones(2).add_(-0.5, T.ones(2)),
        ([0.5, 0.5], "float32", None),
    ),
    (
        "ones.sub_(0.5, ones)",
        lambda T: T.ones(2).sub_(0.5, T.ones(2)),
        ([0.5, 0.5], "float32", None),
    ),
    (
        "grad of ones.add(3, x)",
        lambda T: _grad(T, lambda x: T.ones(2, 3).add(3, x)),
        ([[3.0] * 3] * 2, "float32", None),
    ),
    ("x.add(x, 2)", lambda T: _x(T).add(_x(T), 2), TE),
    ("x.add(2, x, alpha=3)", lambda T: _x(T).add(2, _x(T), alpha=3), TE),
    ("x.add(2.5, x, x)", lambda T: _x(T).add(2.5, _x(T), _x(T)), TE),
]

NOT_A_TENSOR = [
    ("linear(x, 2)", lambda T: T.nn.functional.linear(_x(T), 2), TE),
    ("linear(2, x)", lambda T: T.nn.functional.linear(2, _x(T)), TE),
    ("bilinear(x, 1, 2)", lambda T: T.nn.functional.bilinear(_x(T), 1, 2), TE),
    ("cosine_similarity(x, 1)", lambda T: T.nn.functional.cosine_similarity(_x(T), 1), TE),
    ("pairwise_distance(x, 1)", lambda T: T.nn.functional.pairwise_distance(_x(T), 1), TE),
    (
        "triplet_margin_loss(x, 1, 2)",
        lambda T: T.nn.functional.triplet_margin_loss(_x(T), 1, 2),
        TE,
    ),
    (
        "cosine_embedding_loss(x, 1, 2)",
        lambda T: T.nn.functional.cosine_embedding_loss(_x(T), 1, 2),
        TE,
    ),
    ("vdot(t, 1)", lambda T: T.vdot(T.ones(2), 1), TE),
    ("addmm(x, 2, x)", lambda T: T.addmm(_x(T), 2, _x(T)), TE),
    ("addmm(2.0, m, m)", lambda T: T.addmm(2.0, T.ones(2, 2), T.ones(2, 2)), TE),
    ("addmv(x, 1, 2)", lambda T: T.addmv(_x(T), 1, 2), TE),
    ("addr(x, 1, 2)", lambda T: T.addr(_x(T), 1, 2), TE),
    ("baddbmm(x, 1, 2)", lambda T: T.baddbmm(_x(T), 1, 2), TE),
    ("addbmm(x, 1, 2)", lambda T: T.addbmm(_x(T), 1, 2), TE),
    ("x.view_as(1)", lambda T: _x(T).view_as(1), TE),
    ("x.reshape_as(None)", lambda T: _x(T).reshape_as(None), TE),
    ("x.expand_as([2])", lambda T: _x(T).expand_as([2]), TE),
    ("x.type_as(2.0)", lambda T: _x(T).type_as(2.0), TE),
    (
        "linear(x, parameter)",
        lambda T: _shape(T.nn.functional.linear(_x(T), T.nn.Parameter(T.ones(4, 3)))),
        (2, 4),
    ),
    ("x.view_as(t)", lambda T: _x(T).view_as(T.ones(3, 2)), (X32, "float32", "ViewBackward0")),
]

NONE_DIM = [
    ("x.squeeze(None)", lambda T: _x(T).squeeze(None), TE),
    ("x.squeeze(dim=None)", lambda T: _x(T).squeeze(dim=None), TE),
    ("squeeze(x, None)", lambda T: T.squeeze(_x(T), None), TE),
    ("x.squeeze_(None)", lambda T: T.ones(2).squeeze_(None), TE),
    ("squeeze_copy(x, None)", lambda T: T.squeeze_copy(_x(T), None), TE),
    (
        "ones(1, 2).squeeze()",
        lambda T: T.ones(1, 2, requires_grad=True).squeeze(),
        ([1.0, 1.0], "float32", "SqueezeBackward0"),
    ),
    (
        "squeeze_copy(ones(1, 2))",
        lambda T: T.squeeze_copy(T.ones(1, 2, requires_grad=True)),
        ([1.0, 1.0], "float32", "SqueezeBackward0_copy"),
    ),
    ("x.max(None)", lambda T: _x(T).max(None), TE),
    ("max(x, None)", lambda T: T.max(_x(T), None), TE),
    ("x.min(dim=None)", lambda T: _x(T).min(dim=None), TE),
    ("x.prod(None)", lambda T: _x(T).prod(None), TE),
    ("x.prod(dim=None)", lambda T: _x(T).prod(dim=None), TE),
    ("x.logsumexp(None)", lambda T: _x(T).logsumexp(None), TE),
    ("x.median(None)", lambda T: _x(T).median(None), TE),
    ("x.nanmedian(dim=None)", lambda T: _x(T).nanmedian(dim=None), TE),
    ("x.max()", lambda T: _x(T).max(), (2.0, "float32", "MaxBackward1")),
    ("x.min(0)[0]", lambda T: _x(T).min(0)[0], ([0.5, -1.0, -0.75], "float32", "MinBackward0")),
    ("x.prod()", lambda T: _x(T).prod(), (0.2812, "float32", "ProdBackward0")),
    ("x.median()", lambda T: _x(T).median(), (0.25, "float32", "MedianBackward0")),
    ("x.nanmedian()", lambda T: _x(T).nanmedian(), (0.25, "float32", "NanmedianBackward0")),
    ("x.sum(None)", lambda T: _x(T).sum(None), (2.5, "float32", "SumBackward1")),
    ("x.sum()", lambda T: _x(T).sum(), (2.5, "float32", "SumBackward0")),
    (
        "x.sum(dim=None, keepdim=True)",
        lambda T: _x(T).sum(dim=None, keepdim=True),
        ([[2.5]], "float32", "SumBackward1"),
    ),
    (
        "grad of x.sum(None)",
        lambda T: _grad(T, lambda x: (x * x).sum(None)),
        ([[1.0, -2.0, 4.0], [3.0, 0.5, -1.5]], "float32", None),
    ),
    ("x.mean(dim=None)", lambda T: _x(T).mean(dim=None), (0.4167, "float32", "MeanBackward1")),
    ("x.mean()", lambda T: _x(T).mean(), (0.4167, "float32", "MeanBackward0")),
]

INT_COUNTS = [
    ("x.chunk(2.0)", lambda T: _x(T).chunk(2.0), TE),
    ("x.chunk(True)", lambda T: _x(T).chunk(True), TE),
    ("chunk(x, 2.0)", lambda T: T.chunk(_x(T), 2.0), TE),
    ("x.split(2.0)", lambda T: _x(T).split(2.0), TE),
    ("x.split(True)", lambda T: _x(T).split(True), TE),
    ("x.topk(2.0)", lambda T: _x(T).topk(2.0), TE),
    ("x.topk(True)", lambda T: _x(T).topk(True), TE),
    ("x.select(0, 1.0)", lambda T: _x(T).select(0, 1.0), TE),
    ("x.select(0, True)", lambda T: _x(T).select(0, True), TE),
    ("x.roll(1.0)", lambda T: _x(T).roll(1.0), TE),
    ("x.roll(True)", lambda T: _x(T).roll(True), TE),
    ("x.diff(1.0)", lambda T: _x(T).diff(1.0), TE),
    ("x.diff(True)", lambda T: _x(T).diff(True), TE),
    ("x.unfold(0, 1.0, 1)", lambda T: _x(T).unfold(0, 1.0, 1), TE),
    ("x.unfold(True, 1, 1)", lambda T: _x(T).unfold(True, 1, 1), TE),
    ("zeros(2.0)", lambda T: T.zeros(2.0), TE),
    ("ones((2, 3.0))", lambda T: T.ones((2, 3.0)), TE),
    ("x.chunk(2)", lambda T: tuple(_shape(p) for p in _x(T).chunk(2)), ((1, 3), (1, 3))),
    ("x.split([1, 1])", lambda T: tuple(_shape(p) for p in _x(T).split([1, 1])), ((1, 3), (1, 3))),
    (
        "x.select(0, tensor(1))",
        lambda T: _x(T).select(0, T.tensor(1)),
        (X[1], "float32", "SelectBackward0"),
    ),
    (
        "x.roll((1, 1), (0, 1))",
        lambda T: _x(T).roll((1, 1), (0, 1)),
        ([[-0.75, 1.5, 0.25], [2.0, 0.5, -1.0]], "float32", "RollBackward0"),
    ),
    ("x.topk(1)[0]", lambda T: _x(T).topk(1)[0], ([[2.0], [1.5]], "float32", "TopkBackward0")),
]

DIMS = [
    ("x.sum(1.0)", lambda T: _x(T).sum(1.0), TE),
    ("x.sum(True)", lambda T: _x(T).sum(True), TE),
    ("x.transpose(0.0, 1)", lambda T: _x(T).transpose(0.0, 1), TE),
    ("x.unsqueeze(1.0)", lambda T: _x(T).unsqueeze(1.0), TE),
    ("x.cumsum(dim=True)", lambda T: _x(T).cumsum(dim=True), TE),
    ("x.sum(5)", lambda T: _x(T).sum(5), IE),
    ("x.sum(-3)", lambda T: _x(T).sum(-3), IE),
    ("x.transpose(0, 2)", lambda T: _x(T).transpose(0, 2), IE),
    ("x.unsqueeze(3)", lambda T: _x(T).unsqueeze(3), IE),
    ("x.cumsum(5)", lambda T: _x(T).cumsum(5), IE),
    ("x.size(5)", lambda T: _x(T).size(5), IE),
    ("cat([x, x], 5)", lambda T: T.cat([_x(T), _x(T)], 5), IE),
    ("stack([x, x], 4)", lambda T: T.stack([_x(T), _x(T)], 4), IE),
    ("x.view(-1)", lambda T: _shape(_x(T).view(-1)), (6,)),
    ("x.view([-1, 2])", lambda T: _shape(_x(T).view([-1, 2])), (3, 2)),
    ("x.permute([1, 0])", lambda T: _x(T).permute([1, 0]), (XT, "float32", "PermuteBackward0")),
    ("x.reshape((2, 3))", lambda T: _x(T).reshape((2, 3)), (X, "float32", "ViewBackward0")),
    ("x.repeat([2, 1])", lambda T: _shape(_x(T).repeat([2, 1])), (4, 3)),
    ("x.expand((2, 3))", lambda T: _x(T).expand((2, 3)), (X, "float32", "ExpandBackward0")),
]


def _f(T):
    return T.nn.functional


def _in_place_dropout2d(T):
    """Whether ``dropout2d(x, inplace=True)`` returns ``x``, and the sum it leaves in ``x``."""
    x = T.ones(1, 2, 3, 3)
    out = _f(T).dropout2d(x, 1.0, True, inplace=True)
    return out is x, float(x.sum())


def _fn_shape(r):
    """The shape and node name of ``r``."""
    return tuple(r.shape), type(r.grad_fn).__name__


# calls PyTorch accepts with an argument of an unusual kind (a bool size, a float for to,
# tensor tolerances) or an input of an unusual rank, and the errors next to them
ACCEPTED = [
    (
        "dropout2d(4-d, p=1, inplace) writes into its input",
        lambda T: _in_place_dropout2d(T),
        (True, 0.0),
    ),
    (
        "dropout2d(2-d, eval)",
        lambda T: _f(T).dropout2d(_x(T), 0.5, False),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32", None),
    ),
    (
        "dropout2d(2-d, p=0)",
        lambda T: _f(T).dropout2d(_x(T), 0.0),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32", None),
    ),
    (
        "dropout2d(2-d, p=1)",
        lambda T: _f(T).dropout2d(_x(T), 1.0),
        ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float32", "MulBackward0"),
    ),
    (
        "dropout2d(3-d, p=1)",
        lambda T: _f(T).dropout2d(_x(T)[None], 1.0),
        ([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], "float32", "MulBackward0"),
    ),
    (
        "dropout2d(5-d, eval)",
        lambda T: _fn_shape(_f(T).dropout2d(_x(T).reshape(1, 2, 1, 3, 1), training=False)),
        ((1, 2, 1, 3, 1), "ViewBackward0"),
    ),
    (
        "dropout2d(5-d, p=1)",
        lambda T: _fn_shape(_f(T).dropout2d(_x(T).reshape(1, 2, 1, 3, 1), 1.0)),
        ((1, 2, 1, 3, 1), "MulBackward0"),
    ),
    (
        "dropout2d(1-d, p=1)",
        lambda T: _f(T).dropout2d(_x(T)[0], 1.0),
        ([0.0, 0.0, 0.0], "float32", "MulBackward0"),
    ),
    ("dropout2d(1-d, p=0.5)", lambda T: _f(T).dropout2d(_x(T)[0], 0.5), RE),
    (
        "dropout2d(2-d, inplace, eval)",
        lambda T: _f(T).dropout2d(_x(T) * 1, 0.5, False, True),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32", "MulBackward0"),
    ),
    (
        "dropout3d(2-d, eval)",
        lambda T: _f(T).dropout3d(_x(T), 0.5, False),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32", "SqueezeBackward1"),
    ),
    (
        "dropout3d(3-d, p=1)",
        lambda T: _f(T).dropout3d(_x(T)[None], 1.0),
        ([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], "float32", "SqueezeBackward1"),
    ),
    (
        "dropout3d(4-d, eval)",
        lambda T: _fn_shape(_f(T).dropout3d(_x(T).reshape(1, 2, 3, 1), training=False)),
        ((1, 2, 3, 1), "SqueezeBackward1"),
    ),
    (
        "dropout3d(5-d, p=0)",
        lambda T: _fn_shape(_f(T).dropout3d(_x(T).reshape(1, 2, 1, 3, 1), 0.0)),
        ((1, 2, 1, 3, 1), "ViewBackward0"),
    ),
    (
        "dropout1d(2-d, eval)",
        lambda T: _f(T).dropout1d(_x(T), 0.5, False),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32", "SqueezeBackward1"),
    ),
    ("dropout1d(4-d)", lambda T: _f(T).dropout1d(_x(T)[None, None], 0.5, False), RE),
    (
        "einsum(x, [0, 1], b, [2, 1], [0, 2])",
        lambda T: T.einsum(_x(T), [0, 1], _b(T), [2, 1], [0, 2]),
        ([[3.0, 7.5], [-1.25, 1.75]], "float32", "ViewBackward0"),
    ),
    (
        "einsum(x, [0, 1], b, [0, 1])",
        lambda T: T.einsum(_x(T), [0, 1], _b(T), [0, 1]),
        (4.75, "float32", "ViewBackward0"),
    ),
    (
        "einsum(x, [30, 1], [1, 30])",
        lambda T: T.einsum(_x(T), [30, 1], [1, 30]),
        ([[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]], "float32", "PermuteBackward0"),
    ),
    (
        "einsum(x, [..., 1], [1])",
        lambda T: T.einsum(_x(T), [..., 1], [1]),
        ([2.0, -0.75, 1.25], "float32", "SumBackward1"),
    ),
    (
        "einsum(x, [0, ...])",
        lambda T: T.einsum(_x(T), [0, ...]),
        ([[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]], "float32", "PermuteBackward0"),
    ),
    (
        "einsum(x, (True, 0), b, (True, 2))",
        lambda T: T.einsum(_x(T), (True, 0), _b(T), (True, 2)),
        ([[4.5, 6.5, 8.5], [0.75, 0.0, -0.75], [-2.25, -1.0, 0.25]], "float32", "ViewBackward0"),
    ),
    ("einsum(x, [0, 52])", lambda T: T.einsum(_x(T), [0, 52]), VE),
    ("einsum(x, [0, -1])", lambda T: T.einsum(_x(T), [0, -1]), VE),
    ("einsum(x)", lambda T: T.einsum(_x(T)), VE),
    ("einsum(x, [0])", lambda T: T.einsum(_x(T), [0]), RE),
    ("einsum(x, ['a', 'b'])", lambda T: T.einsum(_x(T), ["a", "b"]), TE),
    (
        "linalg.pinv(x, tensor([[0.], [5.]]))",
        lambda T: _pinv_parts(T, lambda x: T.linalg.pinv(x, T.tensor([[0.0], [5.0]]))),
        (((2, 1, 3, 2), "LinalgPinvBackward0"), True, 0.0),
    ),
    (
        "linalg.pinv(x, atol=tensor([0., 5.]))",
        lambda T: _pinv_parts(T, lambda x: T.linalg.pinv(x, atol=T.tensor([0.0, 5.0]))),
        (((2, 3, 2), "LinalgPinvBackward0"), True, 0.0),
    ),
    (
        "linalg.pinv(x, rtol=tensor([0., 1.]))",
        lambda T: _pinv_parts(T, lambda x: T.linalg.pinv(x, rtol=T.tensor([0.0, 1.0]))),
        (((2, 3, 2), "LinalgPinvBackward0"), True, 0.0),
    ),
    (
        "linalg.pinv(stack, atol=tensor([5., 0.]), rtol=tensor(0.))",
        lambda T: _fn_shape(
            T.linalg.pinv(T.stack([_x(T), _x(T)]), atol=T.tensor([5.0, 0.0]), rtol=T.tensor(0.0))
        ),
        ((2, 3, 2), "LinalgPinvBackward0"),
    ),
    (
        "linalg.pinv(x, atol=tensor(5.), rtol=0.5)",
        lambda T: T.linalg.pinv(_x(T), atol=T.tensor(5.0), rtol=0.5),
        ([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], "float32", "LinalgPinvBackward0"),
    ),
    (
        "linalg.pinv(x, atol=tensor([5.]), rtol=0.5)",
        lambda T: T.linalg.pinv(_x(T), atol=T.tensor([5.0]), rtol=0.5),
        TE,
    ),
    (
        "linalg.pinv(x, tensor(1.), atol=tensor(1.))",
        lambda T: T.linalg.pinv(_x(T), T.tensor(1.0), atol=T.tensor(1.0)),
        TE,
    ),
    (
        "linalg.pinv(stack, atol=ones(3))",
        lambda T: T.linalg.pinv(T.stack([_x(T), _x(T)]), atol=T.ones(3)),
        RE,
    ),
    (
        "elu_(x, 2.0, 3.0, 0.5)",
        lambda T: _f(T).elu_(_x(T) * 1, 2.0, 3.0, 0.5),
        ([[1.5, -2.3608, 6.0], [4.5, 0.75, -1.8763]], "float32", "EluBackward1"),
    ),
    (
        "elu_(x, alpha=2., scale=3., input_scale=.5)",
        lambda T: _f(T).elu_(_x(T) * 1, alpha=2.0, scale=3.0, input_scale=0.5),
        ([[1.5, -2.3608, 6.0], [4.5, 0.75, -1.8763]], "float32", "EluBackward1"),
    ),
    (
        "elu_(x, 2.0, 3) grad",
        lambda T: _grad(T, lambda x: _f(T).elu_(x * 1, 2.0, 3)),
        ([[3.0, 2.2073, 3.0], [3.0, 3.0, 2.8342]], "float32", None),
    ),
    (
        "elu_(x, 2.0, 3.0, 0.5) grad",
        lambda T: _grad(T, lambda x: _f(T).elu_(x * 1, 2.0, 3.0, 0.5)),
        ([[3.0, 1.8196, 3.0], [3.0, 3.0, 2.0619]], "float32", None),
    ),
    ("elu_(x, -1.0, 2.0) grad", lambda T: _grad(T, lambda x: _f(T).elu_(x * 1, -1.0, 2.0)), RE),
    (
        "hardtanh_(x, 2.0)",
        lambda T: _f(T).hardtanh_(_x(T) * 1, 2.0),
        ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], "float32", "HardtanhBackward0"),
    ),
    (
        "hardtanh_(x, 1.0, -1.0)",
        lambda T: _f(T).hardtanh_(_x(T) * 1, 1.0, -1.0),
        ([[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]], "float32", "HardtanhBackward0"),
    ),
    (
        "hardtanh_(x, 1.0, -1.0) grad",
        lambda T: _grad(T, lambda x: _f(T).hardtanh_(x * 1, 1.0, -1.0)),
        ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float32", None),
    ),
    ("hardtanh(x, 1.0, -1.0)", lambda T: _f(T).hardtanh(_x(T), 1.0, -1.0), VE),
    ("norm(x, True)", lambda T: T.norm(_x(T), True), (6.0, "float32", "LinalgVectorNormBackward0")),
    (
        "x.norm(p=True, dim=1)",
        lambda T: _x(T).norm(p=True, dim=1),
        ([3.5, 2.5], "float32", "LinalgVectorNormBackward0"),
    ),
    (
        "linalg.vector_norm(x, False)",
        lambda T: T.linalg.vector_norm(_x(T), False),
        (6.0, "float32", "LinalgVectorNormBackward0"),
    ),
    (
        "normalize(x, True)",
        lambda T: _f(T).normalize(_x(T), True),
        ([[0.1429, -0.2857, 0.5714], [0.6, 0.1, -0.3]], "float32", "DivBackward0"),
    ),
    (
        "subtract(x, 2, 0.5)",
        lambda T: T.subtract(_x(T), 2, 0.5),
        ([[-0.5, -2.0, 1.0], [0.5, -0.75, -1.75]], "float32", "SubBackward1"),
    ),
    (
        "x.subtract(2, 3)",
        lambda T: _x(T).subtract(2, 3),
        ([[-5.5, -7.0, -4.0], [-4.5, -5.75, -6.75]], "float32", "SubBackward1"),
    ),
    (
        "x.subtract_(2, 0.5)",
        lambda T: (_x(T) * 1).subtract_(2, 0.5),
        ([[-0.5, -2.0, 1.0], [0.5, -0.75, -1.75]], "float32", "SubBackward1"),
    ),
    (
        "subtract(x, 2, 0.5) grad",
        lambda T: _grad(T, lambda x: T.subtract(x, 2, 0.5)),
        ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], "float32", None),
    ),
    ("subtract(x, 2, x)", lambda T: T.subtract(_x(T), 2, _x(T)), TE),
    ("subtract(x, x, 1)", lambda T: T.subtract(_x(T), _x(T), 1), TE),
    ("subtract(x, 2, 'a')", lambda T: T.subtract(_x(T), 2, "a"), TE),
    ("subtract(x, True, 1)", lambda T: T.subtract(_x(T), True, 1), RE),
    (
        "x.to(2.0)",
        lambda T: _x(T).to(2.0),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float64", "ToCopyBackward0"),
    ),
    (
        "x.to(True)",
        lambda T: _x(T).to(True),
        ([[True, True, True], [True, True, True]], "bool", None),
    ),
    (
        "x.to(-1.5, False, True)",
        lambda T: _x(T).to(-1.5, False, True),
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float64", "ToCopyBackward0"),
    ),
    ("x.to(2.0, float32)", lambda T: _x(T).to(2.0, T.float32), TE),
    ("x.to(2.0, dtype=float32)", lambda T: _x(T).to(2.0, dtype=T.float32), TE),
    (
        "x.view(2, True, 3)",
        lambda T: _x(T).view(2, True, 3),
        ([[[0.5, -1.0, 2.0]], [[1.5, 0.25, -0.75]]], "float32", "ViewBackward0"),
    ),
    (
        "x.reshape(3, 2, True)",
        lambda T: _x(T).reshape(3, 2, True),
        ([[[0.5], [-1.0]], [[2.0], [1.5]], [[0.25], [-0.75]]], "float32", "ViewBackward0"),
    ),
    ("x.view(2, False, 3)", lambda T: _x(T).view(2, False, 3), RE),
    ("x.view(True, 6)", lambda T: _x(T).view(True, 6), TE),
    ("zeros((2, True))", lambda T: T.zeros((2, True)), ([[0.0], [0.0]], "float32", None)),
    ("zeros((True, 2))", lambda T: T.zeros((True, 2)), TE),
    # PyTorch leaves new()'s memory uninitialised: zero_() makes its values comparable
    (
        "x.new(size=(1, 2))",
        lambda T: _x(T).new(size=(1, 2)).zero_(),
        ([[0.0, 0.0]], "float32", None),
    ),
    ("x.new(size=2)", lambda T: _x(T).new(size=2), TE),
    ("x.new(2, size=(2,))", lambda T: _x(T).new(2, size=(2,)), TE),
    (
        "unique_consecutive(b, True)",
        lambda T: T.unique_consecutive(_b(T), True),
        (([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None), ([], "int64", None)),
    ),
    (
        "unique_consecutive(b, False, True)",
        lambda T: T.unique_consecutive(_b(T), False, True),
        (([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None), ([], "int64", None)),
    ),
    (
        "unique_consecutive(b, True, True)",
        lambda T: T.unique_consecutive(_b(T), True, True),
        (
            ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None),
            ([[0, 1, 2], [3, 4, 5]], "int64", None),
            ([1, 1, 1, 1, 1, 1], "int64", None),
        ),
    ),
    (
        "unique_consecutive(b, True, return_counts=True)",
        lambda T: T.unique_consecutive(_b(T), True, return_counts=True),
        (([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None), ([1, 1, 1, 1, 1, 1], "int64", None)),
    ),
    (
        "b.unique_consecutive(True)",
        lambda T: _b(T).unique_consecutive(True),
        (
            ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None),
            ([[0, 1, 2], [3, 4, 5]], "int64", None),
        ),
    ),
    (
        "unique_consecutive(b, False, True, 0)",
        lambda T: T.unique_consecutive(_b(T), False, True, 0),
        (([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "float32", None), ([0, 1], "int64", None)),
    ),
    ("softmax(x, 0, 1.0)", lambda T: T.softmax(_x(T), 0, 1.0), TE),
    ("tile(x, True)", lambda T: T.tile(_x(T), True), TE),
    ("repeat_interleave(x, True)", lambda T: T.repeat_interleave(_x(T), True), TE),
    ("norm_except_dim(x, True)", lambda T: T.norm_except_dim(_x(T), True), TE),
    ("pinverse(x, b)", lambda T: T.pinverse(_x(T), _b(T)), TE),
    ("dropout2d(x, 0.5, 1)", lambda T: _f(T).dropout2d(_x(T), 0.5, 1), TE),
    ("hardtanh_(x, 'a')", lambda T: _f(T).hardtanh_(_x(T) * 1, "a"), TE),
    (
        "pca_lowrank(b, True) shapes",
        lambda T: tuple(_shape(t) for t in T.pca_lowrank(_b(T), True)),
        ((2, 1), (1,), (3, 1)),
    ),
]


def _pinv_parts(T, f):
    """The shape and node of a batch of pseudo-inverses of x with tolerances ``(small, big)``,
    whether the first is x's pinv and the second all zeros."""
    r = f(_x(T))
    return (
        _fn_shape(r),
        bool((r[0] - T.linalg.pinv(_x(T))).abs().max() < 1e-5),
        r[1].abs().sum().item(),
    )


CASES = (
    SIZE_KEYWORDS
    + ONE_BY_ONE
    + DIM_TUPLES
    + UNBIASED
    + NUMBERS_TAKEN
    + DEPRECATED_ALPHA
    + NOT_A_TENSOR
    + NONE_DIM
    + INT_COUNTS
    + DIMS
    + ACCEPTED
)
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,fn,expected", CASES, ids=IDS)
def test_symgrad_takes_the_argument_as_pytorch_does(name, fn, expected):
    assert run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=IDS)
def test_the_table_is_pytorchs(name, fn, expected):
    torch = pytest.importorskip("torch")
    assert run(torch, fn) == expected


def test_the_deprecated_alpha_form_warns():
    with pytest.warns(UserWarning, match="This overload of add_ is deprecated"):
        symgrad.ones(2).add_(-0.1, symgrad.ones(2))


MESSAGES = [
    (
        "x.reshape(shape=6)",
        lambda T: _x(T).reshape(shape=6),
        "reshape(): argument 'shape' must be tuple of ints, not int",
    ),
    (
        "zeros(size=(2,), bogus=1)",
        lambda T: T.zeros(size=(2,), bogus=1),
        "zeros() got an unexpected keyword argument 'bogus'",
    ),
    (
        "x.new_zeros(2, size=(3,))",
        lambda T: _x(T).new_zeros(2, size=(3,)),
        "new_zeros() got multiple values for argument 'size'",
    ),
    (
        "x.view_as(1)",
        lambda T: _x(T).view_as(1),
        "view_as(): argument 'other' (position 1) must be Tensor, not int",
    ),
    (
        "linear(x, 2)",
        lambda T: T.nn.functional.linear(_x(T), 2),
        "linear(): argument 'weight' (position 2) must be Tensor, not int",
    ),
    (
        "addmm(x, 2, x)",
        lambda T: T.addmm(_x(T), 2, _x(T)),
        "addmm(): argument 'mat1' (position 2) must be Tensor, not int",
    ),
    (
        "zeros(2).copy_('a')",
        lambda T: T.zeros(2).copy_("a"),
        "copy_(): argument 'other' (position 1) must be Tensor, not str",
    ),
    (
        "squeeze(x, None)",
        lambda T: T.squeeze(_x(T), None),
        "squeeze() received an invalid combination of arguments - got (Tensor, NoneType)",
    ),
    (
        "x.logsumexp(dim=None)",
        lambda T: _x(T).logsumexp(dim=None),
        "logsumexp(): argument 'dim' must be tuple of ints, not NoneType",
    ),
    (
        "x.nanmedian(dim=None)",
        lambda T: _x(T).nanmedian(dim=None),
        "nanmedian(): argument 'dim' must be int, not NoneType",
    ),
    (
        "nan_to_num(x, posinf='a')",
        lambda T: T.nan_to_num(_x(T), posinf="a"),
        "nan_to_num(): argument 'posinf' must be float, not str",
    ),
]


@pytest.mark.parametrize("name,fn,message", MESSAGES, ids=[m[0] for m in MESSAGES])
def test_the_message_is_pytorchs(name, fn, message):
    with pytest.raises(TypeError) as caught:
        fn(symgrad)
    assert message in str(caught.value)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,message", MESSAGES, ids=[m[0] for m in MESSAGES])
def test_the_messages_are_pytorchs(name, fn, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as caught:
        fn(torch)
    assert message in str(caught.value)


WARNED = [
    (
        "dropout2d(2-d)",
        lambda T: T.nn.functional.dropout2d(T.ones(2, 3)),
        "a 2-D input to dropout2d",
    ),
    (
        "dropout2d(3-d)",
        lambda T: T.nn.functional.dropout2d(T.ones(1, 2, 3), training=False),
        "a 3D input to dropout2d and assuming that channel-wise 1D dropout",
    ),
    (
        "dropout2d(5-d)",
        lambda T: T.nn.functional.dropout2d(T.ones(1, 1, 1, 1, 1), 0.0),
        "a 5-D input to dropout2d",
    ),
    (
        "dropout3d(3-d)",
        lambda T: T.nn.functional.dropout3d(T.ones(1, 2, 3), training=False),
        "a 3-D input to dropout3d",
    ),
]


@pytest.mark.parametrize("name,fn,message", WARNED, ids=[w[0] for w in WARNED])
def test_the_channel_dropouts_warn_of_other_ranks(name, fn, message):
    with pytest.warns(UserWarning, match=message):
        fn(symgrad)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,message", WARNED, ids=[w[0] for w in WARNED])
def test_pytorchs_channel_dropouts_warn_so(name, fn, message):
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match=message):
        fn(torch)


def test_the_channel_dropouts_keep_quiet_on_their_ranks():
    F = symgrad.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(symgrad.ones(1, 2, 2, 2))
        F.dropout3d(symgrad.ones(2, 2, 2, 2))
        F.dropout3d(symgrad.ones(1, 2, 2, 2, 2))


def test_the_scaled_elu_gradient_is_the_difference_quotient():
    x = symgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=symgrad.float64)
    x.requires_grad_()

    def f(t):
        return symgrad.nn.functional.elu_(t * 1, 2.0, 3.0, 0.5)

    assert symgrad.autograd.gradcheck(f, (x,))
