"""Generators: seeding, states, the generator= argument of the random factories, randperm."""

from __future__ import annotations

import pytest

import symgrad


def test_manual_seed_returns_the_default_generator_and_repeats_draws():
    g = symgrad.manual_seed(11)
    assert g is symgrad.random.default_generator and symgrad.initial_seed() == 11
    a = symgrad.randn(4)
    symgrad.manual_seed(11)
    assert symgrad.randn(4).tolist() == a.tolist()


def test_generators_are_independent_of_the_default_one():
    g = symgrad.Generator().manual_seed(0)
    a = symgrad.rand(3, generator=g)
    symgrad.manual_seed(0)
    symgrad.rand(5)  # draws from the default generator leave g alone
    b = symgrad.rand(3, generator=g)
    assert a.tolist() != b.tolist()
    g.manual_seed(0)
    assert symgrad.rand(3, generator=g).tolist() == a.tolist()
    assert (
        symgrad.randint(0, 5, (3,), generator=g.manual_seed(2)).tolist()
        == symgrad.randint(0, 5, (3,), generator=symgrad.Generator().manual_seed(2)).tolist()
    )


def test_state_round_trip():
    g = symgrad.Generator().manual_seed(5)
    state = g.get_state()
    a = symgrad.randn(3, generator=g)
    g.set_state(state)
    assert symgrad.randn(3, generator=g).tolist() == a.tolist()
    saved = symgrad.get_rng_state()
    b = symgrad.rand(2)
    symgrad.set_rng_state(saved)
    assert symgrad.rand(2).tolist() == b.tolist()
    assert g.seed() == g.initial_seed()


def test_copies_pickles_and_clones_carry_the_state():
    # a sampler or a loader holding a generator is deep-copied or pickled (worker processes),
    # as PyTorch's generators are: the copy draws the original's next numbers
    import copy
    import pickle

    g = symgrad.Generator().manual_seed(5)
    symgrad.rand(3, generator=g)
    expected = [0.8199270367622375, 0.9201034307479858]
    for make in (copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x)), lambda x: x.clone_state()):
        other = make(g)
        assert type(other) is symgrad.Generator and other is not g and other.initial_seed() == 5
        assert symgrad.rand(2, generator=other).tolist() == expected
    assert symgrad.rand(2, generator=g).tolist() == expected  # the copies' draws left g alone
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        g.get_offset()


@pytest.mark.torch
def test_copies_of_generators_as_pytorch():
    torch = pytest.importorskip("torch")
    import copy

    draws = []
    for lib in (torch, symgrad):
        g = lib.Generator().manual_seed(9)
        lib.randn(5, generator=g)
        c = copy.deepcopy(g)
        draws.append([lib.rand(3, generator=c).tolist(), c.initial_seed()])
    assert draws[0] == draws[1]


def test_randperm():
    p = symgrad.randperm(6, generator=symgrad.Generator().manual_seed(1))
    assert p.dtype is symgrad.int64 and sorted(p.tolist()) == list(range(6))
    assert symgrad.randperm(3, dtype=symgrad.float32).dtype is symgrad.float32
    assert symgrad.randperm(0).tolist() == []


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: symgrad.randperm(-1), RuntimeError, "negative dimension -1"),
        (
            lambda: symgrad.randperm(2.5),
            TypeError,
            r"argument 'n' \(position 1\) must be int, not float",
        ),
        (lambda: symgrad.Generator().manual_seed("a"), RuntimeError, "expected a long"),
        (lambda: symgrad.Generator().manual_seed(2**64), ValueError, "Overflow"),  # as PyTorch
        (lambda: symgrad.Generator().set_state(symgrad.zeros(3)), TypeError, "RNG state must"),
        (
            lambda: symgrad.Generator().set_state(symgrad.zeros(3, dtype=symgrad.int64)),
            TypeError,  # PyTorch's: a state is a byte tensor
            "RNG state must be a symgrad.ByteTensor",
        ),
        (lambda: symgrad.rand(2, generator=3), TypeError, "must be a symgrad.Generator"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
