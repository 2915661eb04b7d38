"""A random operation inside ``vmap(..., randomness="error")`` (this vmap's or an enclosing
one's) is PyTorch's ``RuntimeError`` at once: no per-element loop first, and so no warning
that one runs; against ``torch.func.vmap`` when PyTorch is installed."""

from __future__ import annotations

import pytest

import symgrad

RANDOM = "vmap: called random operation while in randomness error mode"

# name -> program of (T, x) for T symgrad or torch, x of shape (4, 6)
PROGRAMS = {
    "dropout": lambda T, x: T.func.vmap(lambda a: T.nn.functional.dropout(a, 0.5))(x),
    "rand": lambda T, x: T.func.vmap(lambda a: T.rand(6) + a)(x),
    "randn_like": lambda T, x: T.func.vmap(T.randn_like)(x),
    "bernoulli_": lambda T, x: T.func.vmap(lambda a: a.bernoulli_())(x),
    "normal": lambda T, x: T.func.vmap(lambda a: T.normal(a, 1.0))(x),
    "nested": lambda T, x: T.func.vmap(
        T.func.vmap(lambda a: T.nn.functional.dropout(a, 0.5)), randomness="different"
    )(x.reshape(2, 2, 6)),
    "outer_error_inner_different": lambda T, x: T.func.vmap(
        T.func.vmap(lambda a: T.nn.functional.dropout(a, 0.5), randomness="different")
    )(x.reshape(2, 2, 6)),
    "under_grad": lambda T, x: T.func.vmap(
        T.func.grad(lambda a: T.nn.functional.dropout(a, 0.5).sum())
    )(x),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_random_operation_is_refused_without_a_loop(name, no_loop):
    with pytest.raises(RuntimeError, match=RANDOM):
        PROGRAMS[name](symgrad, symgrad.ones(4, 6))


def test_other_randomness_still_runs(no_loop):
    """With 'same' or 'different' the elements draw numbers, looping (and saying so)."""
    with pytest.warns(UserWarning, match="vmap: a random operation: symgrad runs the function"):
        out = symgrad.func.vmap(lambda a: symgrad.nn.functional.dropout(a, 0.5), randomness="same")(
            symgrad.ones(4, 6)
        )
    assert out.shape == (4, 6) and all((row == out[0]).all() for row in out)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_random_operation_is_refused_as_pytorch(name):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        PROGRAMS[name](torch, torch.ones(4, 6))
    with pytest.raises(RuntimeError) as ours:
        PROGRAMS[name](symgrad, symgrad.ones(4, 6))
    assert str(ours.value) == str(theirs.value)
