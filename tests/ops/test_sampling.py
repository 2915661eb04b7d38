"""normal, bernoulli and the in-place samplers: shapes, dtypes, reproducibility, zero
gradients with PyTorch's node names, and out= on the random factories."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def _same_draws(fn):
    symgrad.manual_seed(5)
    a = fn()
    symgrad.manual_seed(5)
    return bool((a == fn()).all())


def test_normal_overloads():
    assert symgrad.normal(symgrad.zeros(3), symgrad.ones(3)).shape == (3,)
    assert symgrad.normal(symgrad.zeros(3, 1), symgrad.ones(2)).shape == (3, 2)
    assert symgrad.normal(symgrad.zeros(2, dtype=symgrad.float64), 2.0).dtype is symgrad.float64
    assert symgrad.normal(0.0, symgrad.ones(4)).shape == (4,)
    x = symgrad.normal(2.0, 0.0, (2, 3))
    assert x.shape == (2, 3) and x.dtype is symgrad.float32 and (x == 2.0).all()
    assert symgrad.normal(1.0, 1.0, (2,), dtype=symgrad.float64).dtype is symgrad.float64
    assert symgrad.normal(symgrad.tensor([5.0]), 0.0).tolist() == [5.0]
    big = symgrad.normal(3.0, 2.0, (20000,), dtype=symgrad.float64)
    assert abs(big.mean().item() - 3.0) < 0.1 and abs(big.std().item() - 2.0) < 0.1
    assert _same_draws(lambda: symgrad.normal(symgrad.zeros(4), 1.0))


def test_normal_errors():
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        symgrad.normal(0.0, -1.0, (2,))
    with pytest.raises(RuntimeError, match="all elements of std >= 0.0"):
        symgrad.normal(symgrad.zeros(2), -symgrad.ones(2))
    with pytest.raises(
        NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"
    ):
        symgrad.normal(symgrad.zeros(2, dtype=symgrad.int64), symgrad.ones(2))
    with pytest.raises(TypeError, match="give the size"):
        symgrad.normal(0.0, 1.0)


@pytest.mark.parametrize(
    "make,node",
    [
        (lambda m, s: symgrad.normal(m, s), "NormalBackward3"),
        (lambda m, s: symgrad.normal(m, 1.0), "NormalBackward1"),
        (lambda m, s: symgrad.normal(0.0, s), "NormalBackward2"),
        (lambda m, s: symgrad.bernoulli(m.sigmoid()), "BernoulliBackward0"),
        (lambda m, s: (m * 1).bernoulli_(0.5), "BernoulliBackward2"),
        (lambda m, s: (m * 1).bernoulli_(symgrad.full((3,), 0.5)), "BernoulliBackward1"),
        (lambda m, s: (m * 1).normal_(), "NormalBackward0"),
        (lambda m, s: (m * 1).uniform_(), "UniformBackward0"),
    ],
)
def test_samples_have_zero_gradient(make, node):
    m = symgrad.zeros(3, requires_grad=True)
    s = symgrad.ones(3, requires_grad=True)
    y = make(m, s)
    assert type(y.grad_fn).__name__ == node
    (y * 2).sum().backward()
    assert m.grad is None or m.grad.tolist() == [0.0, 0.0, 0.0]
    assert s.grad is None or s.grad.tolist() == [0.0, 0.0, 0.0]


def test_bernoulli():
    assert symgrad.bernoulli(symgrad.tensor([0.0, 1.0, 1.0])).tolist() == [0.0, 1.0, 1.0]
    assert symgrad.bernoulli(symgrad.ones(3), 0.0).tolist() == [0.0, 0.0, 0.0]
    p = symgrad.full((20000,), 0.3, dtype=symgrad.float64)
    draws = symgrad.bernoulli(p)
    assert draws.dtype is symgrad.float64 and abs(draws.mean().item() - 0.3) < 0.02
    assert _same_draws(lambda: symgrad.bernoulli(symgrad.full((10,), 0.5)))
    g = symgrad.Generator().manual_seed(1)
    # float64 probabilities draw as a number p does (float64 uniforms), as in PyTorch
    a = symgrad.bernoulli(symgrad.full((10,), 0.5, dtype=symgrad.float64), generator=g)
    g.manual_seed(1)
    assert (a == symgrad.ones(10).bernoulli(0.5, generator=g)).all()
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1"):
        symgrad.bernoulli(symgrad.tensor([2.0]))
    with pytest.raises(NotImplementedError, match="bernoulli_tensor_cpu_p_"):
        symgrad.bernoulli(symgrad.tensor([0, 1]))


def test_bernoulli_in_place():
    x = symgrad.ones(4, dtype=symgrad.int64)
    version = x._version
    assert x.bernoulli_(0.0) is x and x.tolist() == [0, 0, 0, 0] and x._version == version + 1
    assert symgrad.zeros(2, dtype=symgrad.bool).bernoulli_(1.0).tolist() == [True, True]
    assert symgrad.zeros(2).bernoulli_(symgrad.tensor([1.0, 0.0])).tolist() == [1.0, 0.0]
    with pytest.raises(RuntimeError, match=r"but got p=2"):
        symgrad.ones(2).bernoulli_(2.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        symgrad.ones(2, requires_grad=True).bernoulli_()


def test_normal_and_uniform_in_place():
    x = symgrad.zeros(1000, dtype=symgrad.float64)
    assert x.uniform_(2.0, 3.0) is x and bool(((x >= 2) & (x < 3)).all())
    assert abs(symgrad.zeros(10000).normal_(1.0, 0.5).mean().item() - 1.0) < 0.05
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        symgrad.zeros(2, dtype=symgrad.int64).uniform_()


def test_out_on_random_factories():
    out = symgrad.zeros(3)
    version = out._version
    assert symgrad.rand(2, 2, out=out) is out and out.shape == (2, 2)
    assert out._version == version + 1
    assert symgrad.randn(3, out=symgrad.zeros(3, dtype=symgrad.float64)).dtype is symgrad.float64
    assert symgrad.randint(5, (3,), out=symgrad.zeros(3)).dtype is symgrad.float32
    assert sorted(symgrad.randperm(4, out=symgrad.zeros(4, dtype=symgrad.int64)).tolist()) == [
        0, 1, 2, 3,
    ]  # fmt: skip
    assert symgrad.normal(0.0, 1.0, (2,), out=symgrad.zeros(5)).shape == (2,)
    assert symgrad.bernoulli(symgrad.ones(2), out=symgrad.zeros(2)).tolist() == [1.0, 1.0]
    assert symgrad.rand(2, out=symgrad.zeros(2), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="dtype Double does not match dtype of out parameter"):
        symgrad.rand(3, dtype=symgrad.float64, out=symgrad.zeros(3))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        symgrad.rand(3, out=symgrad.zeros(3, requires_grad=True))
    with pytest.raises(NotImplementedError):
        symgrad.rand(3, out=symgrad.zeros(3, dtype=symgrad.int64))


def test_node_names_against_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, symgrad):
        m = lib.zeros(3, requires_grad=True)
        names = [
            type(lib.normal(m, lib.ones(3)).grad_fn).__name__,
            type(lib.normal(m, 2.0).grad_fn).__name__,
            type(lib.bernoulli(m.sigmoid()).grad_fn).__name__,
            type((m * 1).bernoulli_(0.5).grad_fn).__name__,
            type((m * 1).bernoulli_(lib.ones(3) / 2).grad_fn).__name__,
        ]
        if lib is torch:
            want = names
    assert names == want
    assert np.all(symgrad.bernoulli(symgrad.ones(3)).numpy() == 1)


def _normal_of_numbers(lib):
    """``normal(mean, std, size)`` of two numbers is ``normal_(mean, std)`` of a new tensor:
    PyTorch's scalar kernel rounds ``z * std + mean`` once from float64 (fewer than 16
    values), its vectorised one computes in the tensor's dtype."""
    lib.manual_seed(0)
    few = lib.normal(-1.0, 0.3, size=(3,)).tolist()
    lib.manual_seed(0)
    many = lib.normal(2.0, 3.0, size=(17,))[-2:].tolist()
    return few, many


NORMAL_OF_NUMBERS = (
    [-0.5377011895179749, -1.0880286693572998, -1.6536368131637573],
    [-0.5310302376747131, 4.795479774475098],
)


def test_normal_of_numbers_rounds_as_normal_():
    assert _normal_of_numbers(symgrad) == NORMAL_OF_NUMBERS
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        symgrad.normal(2.0, 3.0, size=(2,), dtype=symgrad.int64)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        symgrad.normal(2.0, 3.0, 2)


@pytest.mark.torch
def test_normal_of_numbers_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _normal_of_numbers(torch) == NORMAL_OF_NUMBERS
    with pytest.raises(TypeError):
        torch.normal(2.0, 3.0, 2)


_UNIFORM_BOUNDS = [
    (lambda T: T.empty(2).uniform_(0, float("inf")), "to is out of bounds for float"),
    (lambda T: T.empty(2).uniform_(float("-inf"), 0), "from is out of bounds for float"),
    (lambda T: T.empty(2).uniform_(float("nan"), 1), "from is out of bounds for float"),
    (lambda T: T.empty(2).uniform_(0, 1e39), "to is out of bounds for float"),
    (
        lambda T: T.empty(2, dtype=T.float64).uniform_(0, float("nan")),
        "to is out of bounds for double",
    ),
    (
        lambda T: T.empty(2, dtype=T.float16).uniform_(0, 70000),
        "to is out of bounds for c10::Half",
    ),
    (
        lambda T: T.empty(2).uniform_(-3e38, 3e38),
        "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and "
        "from=-3e+38 which result in to-from to exceed the limit",
    ),
    (
        lambda T: T.empty(2, dtype=T.float16).uniform_(-60000, 60000),
        "uniform_ expects to-from <= std::numeric_limits<Half>::max(), but found to=60000 and "
        "from=-60000 which result in to-from to exceed the limit",
    ),
]


@pytest.mark.parametrize("program, message", _UNIFORM_BOUNDS)
def test_uniform_bounds_the_dtype_cannot_hold_are_refused(program, message):
    with pytest.raises(RuntimeError) as info:
        program(symgrad)
    assert str(info.value).split("\n")[0] == message
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as info:
        program(torch)
    assert str(info.value) == message


_RANDPERM_LIMITS = [
    (lambda T: T.randperm(257, dtype=T.uint8), RuntimeError, "to type uint8_t without overflow"),
    (lambda T: T.randperm(129, dtype=T.int8), RuntimeError, "to type int8_t without overflow"),
    (lambda T: T.randperm(2**15 + 1, dtype=T.int16), RuntimeError, "type int16_t without"),
    (lambda T: T.randperm(2050, dtype=T.float16), RuntimeError, "greater than 2049 for Half"),
    (lambda T: T.randperm(3, dtype=T.bool), NotImplementedError, "not implemented for 'Bool'"),
]


@pytest.mark.parametrize("program, error, message", _RANDPERM_LIMITS)
def test_randperm_refuses_sizes_the_dtype_cannot_count_to(program, error, message):
    with pytest.raises(error, match=message):
        program(symgrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=message):
        program(torch)


def test_randperm_fills_dtypes_up_to_their_limits():
    assert sorted(symgrad.randperm(256, dtype=symgrad.uint8).tolist()) == list(range(256))
    assert symgrad.randperm(2049, dtype=symgrad.float16).max().item() == 2048.0
    assert symgrad.randperm(300, dtype=symgrad.uint8, device="meta").shape == (300,)
