"""Property: for random compositions of ops on random shapes, the engine's gradient, central
finite differences and the closed form agree (``verify(...).ok``), and gradcheck agrees."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad.autograd import gradcheck

F = symgrad.nn.functional


def _mixing_matrix(n: int) -> symgrad.Tensor:
    m = (np.add.outer(np.arange(n), 2 * np.arange(n)) % 3 - 1) / 2.0
    return symgrad.tensor(m, dtype=symgrad.float64)


# smooth everywhere and bounded on the inputs' range, so any sequence composes
UNARY = {
    "sin": symgrad.sin,
    "tanh": symgrad.tanh,
    "sigmoid": symgrad.sigmoid,
    "exp_half": lambda x: (x * 0.5).exp(),
    "half_square": lambda x: x * x * 0.5,
    "log1p_square": lambda x: (x * x).log1p(),
    "softplus": F.softplus,
    "gelu": F.gelu,
    "silu": F.silu,
    "erf": symgrad.erf,
    "sqrt_of_square_plus_one": lambda x: (x * x + 1) ** 0.5,
    "softmax": lambda x: symgrad.softmax(x, -1),
    "log_softmax": lambda x: symgrad.log_softmax(x, -1),
    "flip": lambda x: x.flip(-1),
    "mix_last_dim": lambda x: x @ _mixing_matrix(x.shape[-1]),
    "center": lambda x: x - x.mean(-1, keepdim=True),
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (1 + y * y),
    "maximum_smooth": lambda x, y: x * y.sigmoid() + y,
}
FINAL = {
    "none": lambda z: z,  # a non-scalar output: verify projects it
    "sum": lambda z: z.sum(),
    "mean_of_squares": lambda z: (z * z).mean(),
    "logsumexp": lambda z: symgrad.logsumexp(z, -1).sum(),
    "norm": lambda z: (z * z + 0.5).sum().sqrt(),
}

steps = st.lists(
    st.one_of(
        st.sampled_from(sorted(UNARY)).map(lambda n: ("unary", n)),
        st.sampled_from(sorted(BINARY)).map(lambda n: ("binary", n)),
    ),
    min_size=1,
    max_size=4,
)
shapes = st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple)


def compose(program: list, final: str):
    def f(x, y):
        z = x
        for kind, name in program:
            z = UNARY[name](z) if kind == "unary" else BINARY[name](z, y)
        return FINAL[final](z)

    return f


@pytest.mark.slow
@settings(max_examples=25)
@given(
    program=steps,
    final=st.sampled_from(sorted(FINAL)),
    shape=shapes,
    y_broadcasts=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_engine_finite_differences_and_closed_form_agree(program, final, shape, y_broadcasts, seed):
    rng = np.random.default_rng(seed)
    y_shape = shape[-1:] if y_broadcasts else shape
    x = symgrad.tensor(rng.uniform(-1.5, 1.5, shape), dtype=symgrad.float64, requires_grad=True)
    y = symgrad.tensor(rng.uniform(-1.5, 1.5, y_shape), dtype=symgrad.float64, requires_grad=True)
    f = compose(program, final)
    report = symgrad.verify(f, x, y)
    assert report.ok, str(report)
    assert all("closed form" in r.gradients for r in report.inputs), str(report)
    assert gradcheck(f, (x, y))
