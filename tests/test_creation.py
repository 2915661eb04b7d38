"""Tensor factories: PyTorch's signatures, dtype inference, memory sharing and seeding."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

SIZED = [symgrad.zeros, symgrad.ones, symgrad.rand, symgrad.randn, symgrad.empty]


# -- tensor() and its dtype inference ---------------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([1, 2], symgrad.int64),
        ([1.0, 2.0], symgrad.float32),
        ([1, 2.5], symgrad.float32),
        ([True, False], symgrad.bool),
        ([True, 2], symgrad.int64),
        ([True, 2.0], symgrad.float32),
        (3, symgrad.int64),
        (3.0, symgrad.float32),
        (True, symgrad.bool),
        ((1, 2.0), symgrad.float32),
        ([], symgrad.float32),
        ([[1, 2], [3, 4]], symgrad.int64),
        (np.float64(2.0), symgrad.float64),
        (np.float32(2.0), symgrad.float32),
        (np.int32(3), symgrad.int32),
        ([np.float64(1.0), 2.0], symgrad.float64),
        ([1, np.float32(2.5)], symgrad.float32),
        ([np.int32(2)], symgrad.int32),
        ([np.bool_(True)], symgrad.bool),
    ],
)
def test_dtype_is_inferred_element_by_element_as_pytorch(data, dtype):
    assert symgrad.tensor(data).dtype is dtype


@pytest.mark.parametrize(
    "array, dtype",
    [
        (np.array([1.0]), symgrad.float64),
        (np.array([1.0], dtype=np.float32), symgrad.float32),
        (np.array([1.0], dtype=np.float16), symgrad.float16),
        (np.array([1]), symgrad.int64),
        (np.array([1], dtype=np.int32), symgrad.int32),
        (np.array([True]), symgrad.bool),
    ],
)
def test_numpy_arrays_keep_their_dtype(array, dtype):
    assert symgrad.tensor(array).dtype is dtype
    assert symgrad.from_numpy(array).dtype is dtype
    assert symgrad.as_tensor(array).dtype is dtype


def test_python_floats_follow_the_default_dtype():
    symgrad.set_default_dtype(symgrad.float64)
    assert symgrad.tensor([1.5]).dtype is symgrad.float64
    assert symgrad.tensor([1, 2]).dtype is symgrad.int64
    assert symgrad.tensor([np.float32(1.5)]).dtype is symgrad.float32


def test_tensor_in_a_list_contributes_its_dtype():
    t = symgrad.tensor([symgrad.tensor(1.0, dtype=symgrad.float64), 2.0])
    assert t.dtype is symgrad.float64 and t.tolist() == [1.0, 2.0]


def test_explicit_dtype_converts():
    t = symgrad.tensor([1.7, -2.2], dtype=symgrad.int64)
    assert t.dtype is symgrad.int64 and t.tolist() == [1, -2]
    assert symgrad.tensor([1, 2], dtype=symgrad.float64).tolist() == [1.0, 2.0]


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    t = symgrad.tensor(a)
    a[0] = 10
    assert t.tolist() == [1.0, 2.0]
    with pytest.warns(UserWarning, match="detach\\(\\).clone\\(\\)"):  # PyTorch's advice
        u = symgrad.tensor(t)
    u[0] = 5.0
    assert t.tolist() == [1.0, 2.0]


def test_tensor_with_requires_grad_and_name():
    t = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    assert t.requires_grad and t.is_leaf and t.name == "w"


@pytest.mark.parametrize(
    "data, error, match",
    [
        ("abc", TypeError, "can't build a tensor"),
        ([1, "a"], TypeError, "can't build a tensor from 'a' at index \\[1\\]"),
        ([1, None], RuntimeError, "can't build a tensor from None at index \\[1\\]"),
        (None, RuntimeError, "can't build a tensor"),
        ([[1, 2], [3]], ValueError, "(?s)length 2 at dim 1 \\(got 1\\).*ragged"),
        ([[1, 2], 3], TypeError, "(?s)not a sequence.*ragged"),
        ([symgrad.ones(2)], ValueError, "(?s)one element tensors.*symgrad.stack"),
    ],
)
def test_bad_data_is_a_clear_error(data, error, match):
    with pytest.raises(error, match=match):
        symgrad.tensor(data)


def test_unsupported_numpy_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="float128.*symgrad supports"):
        symgrad.from_numpy(np.zeros(2, dtype=np.longdouble))


def test_cpu_device_is_accepted_and_others_rejected():
    assert symgrad.tensor([1.0], device="cpu").device == symgrad.device("cpu")
    assert symgrad.zeros(2, device="cpu").shape == (2,)
    with pytest.raises(AssertionError, match="not compiled with CUDA.*computes on the CPU"):
        symgrad.zeros(2, device="cuda")


# -- from_numpy and as_tensor share memory ---------------------------------------------------------


def test_from_numpy_shares_memory_both_ways():
    a = np.array([1.0, 2.0])
    t = symgrad.from_numpy(a)
    a[0] = 5
    assert t.tolist() == [5.0, 2.0]
    t.mul_(2)
    np.testing.assert_array_equal(a, [10.0, 4.0])


def test_from_numpy_needs_an_array():
    with pytest.raises(TypeError, match="expected a NumPy array"):
        symgrad.from_numpy([1.0, 2.0])


def test_as_tensor_shares_memory_when_it_can():
    a = np.array([1.0, 2.0])
    shared = symgrad.as_tensor(a)
    copied = symgrad.as_tensor(a, dtype=symgrad.float32)
    a[0] = 10
    assert shared.tolist() == [10.0, 2.0] and copied.tolist() == [1.0, 2.0]
    t = symgrad.ones(2)
    assert symgrad.as_tensor(t) is t
    assert symgrad.as_tensor(t, dtype=symgrad.float64).dtype is symgrad.float64
    assert symgrad.as_tensor([1, 2]).dtype is symgrad.int64


# -- sized factories -------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", SIZED, ids=lambda f: f.__name__)
def test_sizes_as_ints_a_tuple_or_a_list(factory):
    assert factory(2, 3).shape == (2, 3)
    assert factory((2, 3)).shape == (2, 3)
    assert factory([2, 3]).shape == (2, 3)
    assert factory(4).shape == (4,)
    assert factory(()).shape == ()


@pytest.mark.parametrize("factory", SIZED, ids=lambda f: f.__name__)
def test_dtype_and_requires_grad_keywords(factory):
    t = factory(2, dtype=symgrad.float64, requires_grad=True)
    assert t.dtype is symgrad.float64 and t.requires_grad and t.is_leaf
    assert factory(2).dtype is symgrad.float32 and not factory(2).requires_grad


@pytest.mark.parametrize("factory", SIZED, ids=lambda f: f.__name__)
def test_default_dtype_is_followed(factory):
    symgrad.set_default_dtype(symgrad.float64)
    assert factory(2).dtype is symgrad.float64


_NEGATIVE = "Trying to create tensor with negative dimension"
_NEGATIVE_SIZES = [
    (lambda T: T.zeros(2, -1, -3), "zeros: Dimension size must be non-negative."),
    (lambda T: T.empty(-2, -1), f"{_NEGATIVE} -2: [-2, -1]"),
    (lambda T: T.ones(2, -3), f"{_NEGATIVE} -3: [2, -3]"),
    (lambda T: T.full((2, -1), 1.0), f"{_NEGATIVE} -1: [2, -1]"),
    (lambda T: T.rand(-1), f"{_NEGATIVE} -1: [-1]"),
    (lambda T: T.zeros(-1, device="meta"), f"{_NEGATIVE} -1: [-1]"),
    (lambda T: T.ones(1).new_zeros(-1), f"{_NEGATIVE} -1: [-1]"),
]


@pytest.mark.parametrize("program, message", _NEGATIVE_SIZES)
def test_negative_size_raises(program, message):
    with pytest.raises(RuntimeError) as info:
        program(symgrad)
    assert str(info.value) == message
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as info:
        program(torch)
    assert str(info.value) == message


def test_bad_size_raises():
    with pytest.raises(TypeError, match="sizes must be ints"):
        symgrad.zeros([2, None])


@pytest.mark.parametrize("size", [2.5, "2"])
def test_non_integer_size_raises(size):
    with pytest.raises(TypeError):
        symgrad.zeros(size)


def test_values_of_zeros_ones_full_eye():
    assert symgrad.zeros(2).tolist() == [0.0, 0.0]
    assert symgrad.ones(2, dtype=symgrad.int64).tolist() == [1, 1]
    assert symgrad.full((2, 2), 1.5).tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert symgrad.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert symgrad.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


@pytest.mark.parametrize(
    "value, dtype",
    [
        (3, symgrad.int64),
        (3.0, symgrad.float32),
        (True, symgrad.bool),
        (np.float64(2.0), symgrad.float32),
    ],
)
def test_full_infers_the_dtype_from_the_fill_value(value, dtype):
    assert symgrad.full((2,), value).dtype is dtype


def test_full_with_dtype_and_requires_grad():
    t = symgrad.full([2], 7, dtype=symgrad.float64, requires_grad=True)
    assert t.dtype is symgrad.float64 and t.requires_grad and t.tolist() == [7.0, 7.0]


def test_eye_dtype_and_requires_grad():
    t = symgrad.eye(3, dtype=symgrad.float64, requires_grad=True)
    assert t.dtype is symgrad.float64 and t.requires_grad


def test_integer_factories_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        symgrad.zeros(2, dtype=symgrad.int64, requires_grad=True)


# -- arange and linspace ---------------------------------------------------------------------------


def test_arange():
    assert symgrad.arange(4).tolist() == [0, 1, 2, 3] and symgrad.arange(4).dtype is symgrad.int64
    assert symgrad.arange(1, 4).tolist() == [1, 2, 3]
    assert symgrad.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert symgrad.arange(5.0).dtype is symgrad.float32
    assert symgrad.arange(4, dtype=symgrad.float64).dtype is symgrad.float64
    assert symgrad.arange(3.0, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        symgrad.arange(0, 1, 0)


_ARANGE_REFUSALS = [
    (lambda T: T.arange(0, 1, float("nan")), "step must be nonzero"),
    (lambda T: T.arange(float("inf")), "unsupported range: 0 -> inf"),
    (lambda T: T.arange(float("-inf"), 0), "unsupported range: -inf -> 0"),
    (lambda T: T.arange(float("nan")), "unsupported range: 0 -> nan"),
    (lambda T: T.arange(2.5, float("-inf"), -1), "unsupported range: 2.5 -> -inf"),
    (lambda T: T.arange(float("nan"), 1, dtype=T.int64), "unsupported range: nan -> 1"),
    (lambda T: T.arange(0, 10, 1e-18), "invalid size, possible overflow?"),
    (lambda T: T.arange(1e300, 1e301), "invalid size, possible overflow?"),
]


@pytest.mark.parametrize("program, message", _ARANGE_REFUSALS)
def test_arange_refuses_what_pytorch_refuses(program, message):
    with pytest.raises(RuntimeError) as info:
        program(symgrad)
    assert str(info.value) == message
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as info:
        program(torch)
    assert str(info.value) == message


def test_arange_with_an_infinite_step_is_empty():
    assert symgrad.arange(0, 1, float("inf")).tolist() == []
    assert symgrad.arange(0, -1, float("-inf")).shape == (0,)


def test_linspace():
    t = symgrad.linspace(0, 1, 5)
    assert t.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and t.dtype is symgrad.float32
    assert symgrad.linspace(0, 1, 3, dtype=symgrad.float64).dtype is symgrad.float64


# -- the *_like factories ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "factory, args",
    [
        (symgrad.zeros_like, ()),
        (symgrad.ones_like, ()),
        (symgrad.full_like, (2.0,)),
        (symgrad.rand_like, ()),
        (symgrad.randn_like, ()),
        (symgrad.empty_like, ()),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_like_factories_copy_shape_and_dtype(factory, args):
    base = symgrad.ones(2, 3, dtype=symgrad.float64, requires_grad=True)
    t = factory(base, *args)
    assert t.shape == (2, 3) and t.dtype is symgrad.float64
    assert not t.requires_grad  # the flag is not copied
    assert factory(base, *args, dtype=symgrad.float32, requires_grad=True).requires_grad


def test_like_factories_values():
    base = symgrad.tensor([1, 2], dtype=symgrad.int64)
    assert symgrad.zeros_like(base).tolist() == [0, 0]
    assert symgrad.ones_like(base).tolist() == [1, 1]
    assert symgrad.full_like(base, 2.7).tolist() == [2, 2]  # the dtype of base, as PyTorch


@pytest.mark.parametrize("factory", [symgrad.rand, symgrad.randn])
def test_random_factories_reject_integer_dtypes(factory):
    with pytest.raises(NotImplementedError, match="floating point"):
        factory(2, dtype=symgrad.int64)
    with pytest.raises(NotImplementedError):
        symgrad.randn_like(symgrad.ones(2, dtype=symgrad.int64))


# -- randomness ------------------------------------------------------------------------------------


def test_manual_seed_makes_random_factories_reproducible():
    draws = []
    for _ in range(2):
        symgrad.manual_seed(1234)
        draws.append(
            [
                symgrad.rand(3).tolist(),
                symgrad.randn(2, 2).tolist(),
                symgrad.randn_like(symgrad.ones(2)).tolist(),
            ]
        )
    assert draws[0] == draws[1]
    symgrad.manual_seed(4321)
    assert symgrad.rand(3).tolist() != draws[0][0]


def test_rand_is_uniform_on_the_unit_interval():
    values = symgrad.rand(10_000, dtype=symgrad.float64).numpy()
    assert values.min() >= 0.0 and values.max() < 1.0
    assert abs(values.mean() - 0.5) < 0.02  # 4 standard errors of the mean


def test_randn_is_standard_normal():
    values = symgrad.randn(10_000, dtype=symgrad.float64).numpy()
    assert abs(values.mean()) < 0.04 and abs(values.std() - 1.0) < 0.04


def test_randint():
    t = symgrad.randint(0, 5, (100,))
    assert t.dtype is symgrad.int64 and t.shape == (100,)
    assert 0 <= t.numpy().min() and t.numpy().max() < 5


@pytest.mark.torch
def test_inference_matches_pytorch():
    torch = pytest.importorskip("torch")
    samples = [
        [1, 2],
        [1.0, 2],
        [True],
        [True, 1.5],
        3,
        2.5,
        [np.float64(1.0)],
        [np.int32(1)],
        np.array([1.0], dtype=np.float32),
        (1, 2),
    ]
    for data in samples:
        ours, theirs = symgrad.tensor(data).dtype, torch.tensor(data).dtype
        assert ours.name == str(theirs).split(".")[-1], data


def test_randint_argument_errors_and_keywords():
    with pytest.raises(RuntimeError, match="'from' to be less than 'to'.*from=5 >= to=5"):
        symgrad.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="from=0 >= to=0"):
        symgrad.randint(0, (2,))
    with pytest.raises(TypeError, match="size"):
        symgrad.randint(5, 3)
    out = symgrad.randint(high=4, size=(3,))
    assert out.shape == (3,) and out.dtype == symgrad.int64
    assert bool(((out >= 0) & (out < 4)).all())


def test_div_in_place_with_rounding_mode():
    a = symgrad.tensor([7, -7])
    assert a.div_(2, rounding_mode="floor").tolist() == [3, -4]
    b = symgrad.tensor([7.0, -7.0], requires_grad=True) * 1
    b.div_(2, rounding_mode="trunc")
    assert b.tolist() == [3.0, -3.0]
    assert b.grad_fn.name() == "DivBackward2"


def test_linspace_rounds_as_pytorch():
    # the first half from start, the rest from end, each a fused multiply-add
    assert symgrad.linspace(-1, 1, 11, dtype=symgrad.float64).tolist() == [
        -1.0, -0.8, -0.6, -0.39999999999999997, -0.19999999999999996, -5.551115123125783e-17,
        0.19999999999999996, 0.39999999999999997, 0.6, 0.8, 1.0,
    ]  # fmt: skip
    assert symgrad.linspace(0, 1, 7).tolist() == [
        0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368,
        0.8333333134651184, 1.0,
    ]  # fmt: skip


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32"])
@pytest.mark.parametrize(
    "start, end, steps",
    [(-1, 1, 11), (0, 1, 37), (-3.3, 7.1, 1000), (2, -5, 33), (0, 1, 1), (0, 1, 2), (-7, 20, 13)],
)
def test_linspace_matches_pytorch(start, end, steps, dtype):
    torch = pytest.importorskip("torch")
    ours = symgrad.linspace(start, end, steps, dtype=getattr(symgrad, dtype)).numpy()
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
