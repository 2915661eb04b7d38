"""Tests for ``symgrad._printing``: hard-coded golden strings plus cross-checks against PyTorch.

The golden strings were produced by PyTorch's ``repr`` (with ``torch.`` read as ``symgrad.``),
so the layout stays tested on machines without PyTorch.
"""

from __future__ import annotations

import contextlib
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from symgrad._printing import format_tensor, set_printoptions

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _reset_printoptions():
    yield
    set_printoptions(**DEFAULTS)


# --------------------------------------------------------------------------- golden strings

F32 = np.float32
GOLDEN = [
    (np.array([2.0, 3.0], dtype=F32), [], "tensor([2., 3.])"),
    (np.array(2.0, dtype=F32), [], "tensor(2.)"),
    (np.array(-0.5, dtype=F32), ["requires_grad=True"], "tensor(-0.5000, requires_grad=True)"),
    (np.array([1e10, 1.0, -2.5], dtype=F32), [], "tensor([ 1.0000e+10,  1.0000e+00, -2.5000e+00])"),
    (np.array([1e-5, 0.5], dtype=F32), [], "tensor([1.0000e-05, 5.0000e-01])"),
    (np.array([123456789.0, 1.0], dtype=F32), [], "tensor([1.2346e+08, 1.0000e+00])"),
    (
        np.array([np.nan, np.inf, -np.inf, 1.5], dtype=F32),
        [],
        "tensor([   nan,    inf,   -inf, 1.5000])",
    ),
    (np.array([np.nan, 2.0, -np.inf], dtype=F32), [], "tensor([nan, 2., -inf])"),
    (np.array([-0.0, 0.0], dtype=F32), [], "tensor([-0., 0.])"),
    (np.array([-0.0, 0.25], dtype=F32), [], "tensor([-0.0000, 0.2500])"),
    (np.zeros((0, 3), dtype=F32), [], "tensor([], size=(0, 3))"),
    (
        np.zeros((2, 0, 1), dtype=F32),
        ["requires_grad=True"],
        "tensor([], size=(2, 0, 1), requires_grad=True)",
    ),
    (np.zeros(0, dtype=np.int64), ["dtype=symgrad.int64"], "tensor([], dtype=symgrad.int64)"),
    (np.array([True, False, True]), [], "tensor([ True, False,  True])"),
    (np.array([[1, -2], [30, 4]], dtype=np.int64), [], "tensor([[ 1, -2],\n        [30,  4]])"),
    (
        np.arange(12, dtype=F32).reshape(2, 2, 3) / 4,
        [],
        "tensor([[[0.0000, 0.2500, 0.5000],\n"
        "         [0.7500, 1.0000, 1.2500]],\n"
        "\n"
        "        [[1.5000, 1.7500, 2.0000],\n"
        "         [2.2500, 2.5000, 2.7500]]])",
    ),
    (np.arange(2000, dtype=np.int64), [], "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        np.arange(1200, dtype=F32).reshape(30, 40) / 8,
        [],
        "tensor([[0.0000e+00, 1.2500e-01, 2.5000e-01,  ..., 4.6250e+00, 4.7500e+00,\n"
        "         4.8750e+00],\n"
        "        [5.0000e+00, 5.1250e+00, 5.2500e+00,  ..., 9.6250e+00, 9.7500e+00,\n"
        "         9.8750e+00],\n"
        "        [1.0000e+01, 1.0125e+01, 1.0250e+01,  ..., 1.4625e+01, 1.4750e+01,\n"
        "         1.4875e+01],\n"
        "        ...,\n"
        "        [1.3500e+02, 1.3512e+02, 1.3525e+02,  ..., 1.3962e+02, 1.3975e+02,\n"
        "         1.3988e+02],\n"
        "        [1.4000e+02, 1.4012e+02, 1.4025e+02,  ..., 1.4462e+02, 1.4475e+02,\n"
        "         1.4488e+02],\n"
        "        [1.4500e+02, 1.4512e+02, 1.4525e+02,  ..., 1.4962e+02, 1.4975e+02,\n"
        "         1.4988e+02]])",
    ),
    (
        np.arange(30, dtype=F32) * 1.5,
        ["grad_fn=<MulBackward0>"],
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
        "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000],\n"
        "       grad_fn=<MulBackward0>)",
    ),
    (
        np.arange(12, dtype=F32) * 1.25,
        ["grad_fn=<MulBackward0>"],
        "tensor([ 0.0000,  1.2500,  2.5000,  3.7500,  5.0000,  6.2500,  7.5000,  8.7500,\n"
        "        10.0000, 11.2500, 12.5000, 13.7500], grad_fn=<MulBackward0>)",
    ),
    (
        np.arange(8, dtype=F32) * 1.25,
        ["grad_fn=<MulBackward0>"],
        "tensor([0.0000, 1.2500, 2.5000, 3.7500, 5.0000, 6.2500, 7.5000, 8.7500],\n"
        "       grad_fn=<MulBackward0>)",
    ),
    (
        np.arange(4, dtype=F32) * 1.25,
        ["grad_fn=<MulBackward0>"],
        "tensor([0.0000, 1.2500, 2.5000, 3.7500], grad_fn=<MulBackward0>)",
    ),
    (
        np.array([1.5, 2.0, 1e-3, 7.0, 1e-2, 3.25]),
        ["dtype=symgrad.float64"],
        "tensor([1.5000e+00, 2.0000e+00, 1.0000e-03, 7.0000e+00, 1.0000e-02, 3.2500e+00],\n"
        "       dtype=symgrad.float64)",
    ),
    (
        np.array([1.5, 2.0]),
        ["dtype=symgrad.float64"],
        "tensor([1.5000, 2.0000], dtype=symgrad.float64)",
    ),
    (
        np.array([[1.0, 2.0], [3.0, 4.5]], dtype=F32),
        ["requires_grad=True"],
        "tensor([[1.0000, 2.0000],\n        [3.0000, 4.5000]], requires_grad=True)",
    ),
]


@pytest.mark.parametrize(("data", "suffixes", "expected"), GOLDEN)
def test_golden(data, suffixes, expected):
    assert format_tensor(data, suffixes) == expected


GOLDEN_WITH_OPTIONS = [
    (
        {"precision": 2, "sci_mode": False},
        np.array([1e-5, 123.456], dtype=F32),
        "tensor([  0.00, 123.46])",
    ),
    ({"sci_mode": True}, np.array([1.0, 2.5], dtype=F32), "tensor([1.0000e+00, 2.5000e+00])"),
    (
        {"precision": 2, "linewidth": 30},
        np.arange(10, dtype=F32).reshape(2, 5) / 3,
        "tensor([[0.00, 0.33, 0.67,\n"
        "         1.00, 1.33],\n"
        "        [1.67, 2.00, 2.33,\n"
        "         2.67, 3.00]])",
    ),
    (
        {"edgeitems": 0, "linewidth": 30},
        np.arange(6, dtype=np.int64).reshape(2, 3),
        "tensor([[0, 1, 2],\n        [3, 4, 5]],\n       size=(2, 3))",
    ),
    ({"edgeitems": 0, "threshold": 5}, np.arange(10, dtype=F32), "tensor([...], size=(10,))"),
    ({"edgeitems": 0}, np.array(3.0, dtype=F32), "tensor(3., size=())"),
    (
        {"edgeitems": 1, "threshold": 3},
        np.arange(30, dtype=F32).reshape(2, 3, 5),
        "tensor([[[ 0.,  ...,  4.],\n"
        "         ...,\n"
        "         [10.,  ..., 14.]],\n"
        "\n"
        "        [[15.,  ..., 19.],\n"
        "         ...,\n"
        "         [25.,  ..., 29.]]])",
    ),
]


@pytest.mark.parametrize(("options", "data", "expected"), GOLDEN_WITH_OPTIONS)
def test_golden_with_options(options, data, expected):
    set_printoptions(**options)
    assert format_tensor(data) == expected


def test_set_printoptions_resets_sci_mode_when_omitted():
    data = np.array([1.0, 2.5], dtype=F32)
    set_printoptions(sci_mode=True)
    set_printoptions(precision=4)
    assert format_tensor(data) == "tensor([1.0000, 2.5000])"


def test_options_persist_between_calls():
    set_printoptions(precision=1)
    data = np.array([0.25, 1.0], dtype=F32)
    assert format_tensor(data) == "tensor([0.2, 1.0])"
    assert format_tensor(data) == "tensor([0.2, 1.0])"


def test_suffixes_follow_size():
    data = np.zeros((0, 2), dtype=np.int64)
    text = format_tensor(data, ["dtype=symgrad.int64", "requires_grad=True"])
    assert text == "tensor([], size=(0, 2), dtype=symgrad.int64, requires_grad=True)"


# ------------------------------------------------------------------- cross-checks with torch


def _torch():
    return pytest.importorskip("torch")


def _dtype_suffix(data: np.ndarray) -> list[str]:
    """The dtype item PyTorch shows (its default dtype is float32).

    It is spelt ``torch.`` because the item's length decides where suffixes wrap, and
    ``symgrad.`` is longer: replacing the name in PyTorch's output could move a line break.
    """
    if data.dtype == np.float32:
        return []
    if data.size and data.dtype in (np.int64, np.bool_):
        return []
    return [f"dtype=torch.{data.dtype.name}"]


def _torch_repr(torch, data: np.ndarray, autograd: str = "") -> str:
    assert torch.get_default_dtype() == torch.float32
    tensor = torch.from_numpy(np.array(data, copy=True))
    if autograd:
        tensor.requires_grad_()
    if autograd == "grad_fn":
        tensor = tensor.clone()  # keeps every value, including -0.0 and nan
    return repr(tensor)


def _ours(data: np.ndarray, autograd: str = "") -> str:
    extra = {"requires_grad": ["requires_grad=True"], "grad_fn": ["grad_fn=<CloneBackward0>"]}
    return format_tensor(data, _dtype_suffix(data) + extra.get(autograd, []))


@contextlib.contextmanager
def _both_printoptions(torch, **options):
    torch.set_printoptions(**options)
    set_printoptions(**options)
    try:
        yield
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
        set_printoptions(**DEFAULTS)


def _check(data: np.ndarray, autograd: str = "") -> None:
    torch = _torch()
    assert _ours(data, autograd) == _torch_repr(torch, data, autograd)


@pytest.mark.torch
@pytest.mark.parametrize(("data", "suffixes", "expected"), GOLDEN)
def test_golden_strings_match_torch(data, suffixes, expected):
    torch = _torch()
    tensor = torch.from_numpy(np.array(data, copy=True))
    if "requires_grad=True" in suffixes:
        tensor.requires_grad_()
    if "grad_fn=<MulBackward0>" in suffixes:
        tensor = tensor.requires_grad_() * 1
    assert repr(tensor).replace("torch.", "symgrad.") == expected


@pytest.mark.torch
@pytest.mark.parametrize(("options", "data", "expected"), GOLDEN_WITH_OPTIONS)
def test_golden_options_match_torch(options, data, expected):
    torch = _torch()
    with _both_printoptions(torch, **options):
        assert repr(torch.from_numpy(data.copy())) == expected


SPECIAL_VALUES = [
    [0.0],
    [-0.0],
    [0.0, -0.0, 0.0],
    [np.nan],
    [np.inf, -np.inf],
    [np.nan, 0.0],
    [np.nan, 1e-7],
    [np.inf, 1e12, -3.0],
    [1.0, 1000.0],
    [1.0, 1000.5],
    [1.0, 1001.0],
    [1e8],
    [1.0000001e8],
    [1e-4],
    [9.99e-5],
    [0.5, -0.5, 1e-4],
    [1e30, -1e-30],
    [123456.0, 7.0],
    [-1.0, 2.0, -3.0],
    [0.1, 0.2, 0.3],
    [1e-45],
    [3.4e38, -3.4e38],
    [0.99995],
    [-0.00004, 0.5],
    [2.0**24, 1.0],
    [1.5e15, 2.0],
]


@pytest.mark.torch
@pytest.mark.parametrize("values", SPECIAL_VALUES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(values, dtype):
    data = np.array(values, dtype=dtype)
    _check(data)
    _check(data[0])  # 0-d
    _check(np.tile(data, (2, 3)))


SHAPES = [
    (1,),
    (7,),
    (30,),
    (1, 1),
    (3, 4),
    (2, 17),
    (4, 1, 3),
    (2, 3, 4),
    (2, 2, 2, 3),
    (1, 3, 1, 5),
]
SCALES = {
    "normal": lambda rng, shape: rng.normal(size=shape),
    "large": lambda rng, shape: rng.normal(size=shape) * 1e9,
    "tiny": lambda rng, shape: rng.normal(size=shape) * 1e-7,
    "mixed": lambda rng, shape: rng.normal(size=shape) * 10.0 ** rng.integers(-8, 9, size=shape),
    "integral": lambda rng, shape: np.round(rng.normal(size=shape) * 100),
    "positive": lambda rng, shape: rng.uniform(0, 10, size=shape),
}


@pytest.mark.torch
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("scale", sorted(SCALES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_floats(shape, scale, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{shape}{scale}".encode()))
    data = SCALES[scale](rng, shape).astype(dtype)
    _check(data)
    _check(data, "requires_grad")


@pytest.mark.torch
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_random_integers_and_bools(shape):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    _check(rng.integers(-(10**6), 10**6, size=shape))
    _check(rng.integers(-(2**63), 2**63 - 1, size=shape, dtype=np.int64))
    _check(rng.random(size=shape) < 0.5)
    _check(np.ones(shape, dtype=bool))


EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0, 0, 1)]


@pytest.mark.torch
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_empty(shape, dtype):
    _check(np.zeros(shape, dtype=dtype))
    if dtype in (np.float32, np.float64):
        _check(np.zeros(shape, dtype=dtype), "grad_fn")


LARGE_SHAPES = [
    (1001,),
    (5000,),
    (40, 40),
    (3, 400),
    (400, 3),
    (11, 11, 11),
    (2, 600),
    (5, 5, 5, 10),
]


@pytest.mark.torch
@pytest.mark.parametrize("shape", LARGE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_summarised(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    data = (rng.normal(size=shape) * 50).astype(dtype)
    _check(data)
    if dtype == np.float32:
        _check(data, "grad_fn")
        # The values hidden by "..." must not change the layout.
        data.reshape(-1)[data.size // 2] = 1e20
        _check(data)


@pytest.mark.torch
def test_non_contiguous_input():
    data = np.arange(24, dtype=F32).reshape(2, 3, 4) / 7
    _check(data.transpose(2, 0, 1))
    _check(data[:, ::2, 1:])


@pytest.mark.torch
@pytest.mark.parametrize("autograd", ["", "requires_grad", "grad_fn"])
@pytest.mark.parametrize("length", range(1, 16))
def test_suffix_wrapping(length, autograd):
    # Row lengths straddling the line width exercise where PyTorch moves suffixes to a new line.
    base = np.arange(length, dtype=np.float64) * 1.25
    _check(base, autograd)
    _check(base.astype(F32), autograd)
    _check(base.reshape(1, -1).astype(F32), autograd)


OPTION_SETS = [
    {"precision": 0},
    {"precision": 1},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"linewidth": 20},
    {"linewidth": 200},
    {"linewidth": 5},
    {"threshold": 10},
    {"threshold": 10, "edgeitems": 1},
    {"threshold": 10, "edgeitems": 0},
    {"edgeitems": 0},
    {"threshold": 0},
    {"threshold": float("inf")},
    {"precision": 2, "sci_mode": True, "linewidth": 40},
]


@pytest.mark.torch
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_print_options_match_torch(options):
    torch = _torch()
    rng = np.random.default_rng(7)
    mixed = rng.normal(size=(3, 2, 8)) * 10.0 ** rng.integers(-6, 6, size=(3, 2, 8))
    samples = [
        np.array(2.5, dtype=F32),
        rng.normal(size=(13,)).astype(F32),
        rng.normal(size=(4, 9)) * 1e5,
        mixed.astype(F32),
        np.arange(40, dtype=np.int64).reshape(5, 8),
        rng.random(size=(6, 5)) < 0.5,
        np.zeros((0, 2), dtype=F32),
        np.array([np.nan, -0.0, 3.0], dtype=F32),
    ]
    with _both_printoptions(torch, **options):
        for data in samples:
            _check(data, "requires_grad" if data.dtype.kind == "f" else "")


# ------------------------------------------------------------------------- hypothesis checks


@st.composite
def _arrays(draw):
    names = ["float32", "float64", "float16", "int64", "int32", "bool"]
    dtype = np.dtype(draw(st.sampled_from(names)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
    if dtype.kind == "f":
        elements = st.floats(width=dtype.itemsize * 8)
        if draw(st.booleans()):  # keep some arrays well inside the printable range
            bound = 6e4 if dtype == np.float16 else 1e6
            elements = st.floats(-bound, bound, width=dtype.itemsize * 8)
    else:
        elements = None
    return draw(hnp.arrays(dtype, shape, elements=elements))


_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.integers(0, 300),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(1, 150),
        "sci_mode": st.sampled_from([None, True, False]),
    },
)

# The autouse fixture only restores print options; each example restores them itself.
_HYPOTHESIS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.slow
@pytest.mark.torch
@_HYPOTHESIS
@given(data=_arrays(), autograd=st.sampled_from(["", "requires_grad", "grad_fn"]))
def test_hypothesis_default_options(data, autograd):
    if data.dtype.kind != "f":
        autograd = ""
    _check(data, autograd)


@pytest.mark.slow
@pytest.mark.torch
@_HYPOTHESIS
@given(data=_arrays(), options=_OPTIONS)
def test_hypothesis_random_options(data, options):
    torch = _torch()
    with _both_printoptions(torch, **options):
        assert _ours(data) == _torch_repr(torch, data)


# --------------------------------------------------------------------------- max/min along a dim


def _max_min_reprs(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 0.0]], requires_grad=True)
    return repr(x.max(1)), str(x.min(0, keepdim=True))


def test_max_and_min_along_a_dim_print_as_pytorch_return_types():
    import symgrad

    assert _max_min_reprs(symgrad) == (
        "symgrad.return_types.max(\n"
        "values=tensor([2., 3.], grad_fn=<MaxBackward0>),\n"
        "indices=tensor([1, 0]))",
        "symgrad.return_types.min(\n"
        "values=tensor([[1., 0.]], grad_fn=<MinBackward0>),\n"
        "indices=tensor([[0, 1]]))",
    )


@pytest.mark.torch
def test_max_and_min_along_a_dim_print_as_in_pytorch():
    import symgrad

    torch = pytest.importorskip("torch")
    theirs = tuple(r.replace("torch.", "symgrad.") for r in _max_min_reprs(torch))
    assert _max_min_reprs(symgrad) == theirs


def test_format_of_zero_dim_tensor_is_its_number():
    import symgrad

    loss = symgrad.tensor(0.5, requires_grad=True) * 2
    assert f"{loss}" == "1.0" and f"{loss:.3f}" == "1.000"
    assert f"{symgrad.tensor(3)}" == "3" and f"{symgrad.tensor(True)}" == "True"
    assert f"{symgrad.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
